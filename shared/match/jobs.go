package match

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/lexicon"
)

// A skill's name says its job: "Reserve Hotel" and "Search Hotel" are
// one agent's two jobs in one domain. On cards with no examples the
// learned reranker sees both skills through the words their texts share
// ("hotel", "room") and often ranks the wrong one of the two first. The
// words of one sibling's name that the other's card lacks ("reserve"
// against "search") are the job the caller must name, and callers name it
// in their own words ("book a room": WordNet relates "book" to
// "reserve"). Only the name counts: descriptions and tags also hold slot
// words ("rooms", "date") that a search request uses as often as a
// booking; on SGD dev, counting them turned the gain into a loss.

// namedJob moves to the top the sibling whose job the request names when
// the best candidate's agent has other skills in the shortlist and the
// request names that sibling's job more often than the best one's (see
// jobLean; of several such siblings, the one it names most, then the
// higher ranked). The sibling takes the best one's place and fit, the
// best one the sibling's: the scores are those the reranker gave; only
// which of one agent's skills holds them changes, and the probability the
// moved-up one is given (see poolMoves). Skills with examples are left to
// the reranker, which reads their examples (on CLINC150 dev, whose cards
// have them, an early version of this rule broke 117 tasks and fixed 26).
// Untrusted and demoted skills take no part.
func (m *Matcher) namedJob(req *extract.Requirement, sl *Shortlist, scored []rerank.Scored) jobMove {
	if len(scored) < 2 || scored[0].Entry == nil || !m.jobReady(scored[0].Doc, sl) {
		return noMove
	}
	top := scored[0].Entry
	var words []string // the request's content words, made for the first sibling
	best, lean := -1, 0
	for i := 1; i < len(scored); i++ {
		e := scored[i].Entry
		if e == nil || e.AgentID != top.AgentID || !m.jobReady(scored[i].Doc, sl) {
			continue
		}
		if words == nil {
			words = analyze.AppendContentWords(nil, 0, analyze.Words(req.Need))
			if len(words) == 0 {
				return noMove
			}
		}
		if l := jobLean(m.jobLexicon(), m.domains(), words, top, e); l > lean {
			best, lean = i, l
		}
	}
	if best < 0 {
		return noMove
	}
	a, b := &scored[0], &scored[best]
	a.Candidate, b.Candidate = b.Candidate, a.Candidate
	a.Reason, b.Reason = "the request names its job, not that of "+b.Entry.Name+"; "+b.Reason, a.Reason
	return jobMove{up: a.Doc, down: b.Doc}
}

// jobMove is a swap namedJob made: doc up took doc down's place.
type jobMove struct{ up, down int }

var noMove = jobMove{-1, -1}

// poolMoves gives each skill a jobMove moved up the probability of the
// pair it was chosen from: the reranker's probabilities say the job is
// one of the two about as often as their sum, and the request's words
// said which. Every sum is of the reranker's own probabilities, and a
// skill moved down keeps its own, also when an earlier move had moved it
// up (topicMove, then namedJob picking its sibling): no probability is
// counted twice. On SGD dev the moved-up skills were right 66% of the
// time at a mean probability of 0.41 before pooling.
func poolMoves(out []Ranked, moves ...jobMove) {
	own := func(doc int) (int, float64, bool) {
		for i := range out {
			if out[i].Doc == doc {
				return i, out[i].Prob, true
			}
		}
		return -1, 0, false
	}
	type pooled struct {
		at   int
		prob float64
	}
	var sums []pooled
	for _, move := range moves {
		if move.up < 0 {
			continue
		}
		up, pu, okUp := own(move.up)
		_, pd, okDown := own(move.down)
		if !okUp || !okDown {
			continue
		}
		// A later move that moves this pair's winner down undoes its sum.
		sums = slices.DeleteFunc(sums, func(p pooled) bool { return out[p.at].Doc == move.down })
		sums = append(sums, pooled{at: up, prob: min(1, pu+pd)})
	}
	for _, p := range sums {
		out[p.at].Prob = p.prob
	}
}

// jobReady says whether doc d may take part in namedJob: a skill with no
// examples, trusted and not demoted.
func (m *Matcher) jobReady(d int, sl *Shortlist) bool {
	if d < 0 || d >= len(m.refs) || m.refs[d].distrust != "" || (sl.Demoted != nil && sl.Demoted[d]) {
		return false
	}
	e := m.idx.Doc(d)
	return e != nil && len(e.Examples) == 0
}

// jobLexicon is the matcher's lexicon, or WordNet when the model gives
// the lexical features no weight (the matcher then drops its lexicon):
// loaded on the first request whose best skill has a sibling with no
// examples, on the first request of a catalog with trusted skills
// without examples (word forms, forms.go), or on the first follow-up that
// topicMove may move to its conversation's domain: a catalog with
// examples and no follow-ups never pays its heap.
func (m *Matcher) jobLexicon() rerank.Lexicon {
	if m.cfg.lexicon != nil {
		return m.cfg.lexicon
	}
	return lexicon.WordNet()
}

// jobLean is how many more of the request's content words name skill
// b's job than skill a's. A word names a job when it is, or is a WordNet
// relative of (read either way), a job word of that skill: a word of its
// name that the other skill's card lacks. A word both cards hold, or a
// domain word of the catalog (see domainTerms), or a light verb ("get"),
// names no job. "Book two rooms" leans to "Reserve Hotel" over "Search
// Hotel" by one ("book" → "reserve"); "find a hotel" to neither ("find"
// is not "search" in WordNet, but both are seekVerbs).
func jobLean(lex rerank.Lexicon, domain map[string]bool, words []string, a, b *index.Doc) int {
	ja, jb := jobWords(a, b, lex), jobWords(b, a, lex)
	if len(ja) == 0 || len(jb) == 0 {
		return 0
	}
	lean := 0
	for _, w := range words {
		st := analyze.Stem(w)
		if domain[st] || (inText(a, st) && inText(b, st)) || lightVerbs[w] {
			continue
		}
		var rel []string
		if lex != nil {
			rel = lex.RelatedStems(w)
		}
		names := func(job []nameWord) bool {
			for _, j := range job {
				if j.stem == st || slices.Contains(rel, j.stem) || slices.Contains(j.rel, st) ||
					sameJobVerb(j.stem, st) {
					return true
				}
			}
			return false
		}
		switch inA, inB := names(ja), names(jb); {
		case inB && !inA:
			lean++
		case inA && !inB:
			lean--
		}
	}
	return lean
}

// nameWord is a job word: the word, its stem and its relatives' stems in
// the lexicon, looked up once rather than for every word of the request.
type nameWord struct {
	word, stem string
	rel        []string
}

// jobWords are the words of d's name that the other skill's card text
// (name, tags, description) lacks.
func jobWords(d, other *index.Doc, lex rerank.Lexicon) []nameWord {
	return nameWords(d, lex, func(stem string) bool { return !inText(other, stem) })
}

// nameWords are the content words of d's name whose stems keep admits,
// each with its relatives in lex (nil: none).
func nameWords(d *index.Doc, lex rerank.Lexicon, keep func(stem string) bool) []nameWord {
	var out []nameWord
	for _, w := range analyze.AppendContentWords(nil, 0, analyze.Words(d.Name)) {
		st := analyze.Stem(w)
		if !keep(st) {
			continue
		}
		nw := nameWord{word: w, stem: st}
		if lex != nil {
			nw.rel = lex.RelatedStems(w)
		}
		out = append(out, nw)
	}
	return out
}

// inText says whether d's name, tags or description hold stem st.
func inText(d *index.Doc, st string) bool {
	return has(d.NameTerms, st) || has(d.TagTerms, st) || has(d.DescTerms, st)
}

// lightVerbs carry a request's grammar, not its job ("get me a bus", "get
// there", "make the reservation"): WordNet relates "get" to "buy", and
// names like "Get Event Dates" hold it. On SGD dev, reading them as job
// words moved 18 tasks to a wrong sibling and 3 to the right one.
var lightVerbs = map[string]bool{"get": true, "make": true, "take": true, "have": true, "give": true, "go": true}

// seekVerbs are the verbs of looking for something, as stems. WordNet
// keeps "find" (the result) apart from "search" and "look up" (the act),
// but a caller who says "find me a song" asks for the search: to name a
// job they are one word. On SGD dev this moved 59 more tasks to the right
// sibling and 2 to a wrong one ("find a song" to "Lookup Song" rather
// than "Play Song"). "See" names the same job ("See Available Cars"); not
// "show", as often a noun ("two seats for the late show") as a verb.
var seekVerbs = stems("find", "search", "lookup", "look", "locate", "seek", "see")

// acquireVerbs are the verbs of securing something for the caller, as
// stems. WordNet relates "book" to "reserve" but neither to "buy", and
// an agent names one job "Buy Bus Ticket" where another says "Reserve
// Hotel": a caller who says "reserve the bus" asks for the ticket.
var acquireVerbs = stems("buy", "purchase", "book", "reserve")

// sameJobVerb says whether two stems are verbs of one job: both of
// looking for something or both of securing it.
func sameJobVerb(a, b string) bool {
	return seekVerbs[a] && seekVerbs[b] || acquireVerbs[a] && acquireVerbs[b]
}

// stems is the set of the words' stems.
func stems(words ...string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[analyze.Stem(w)] = true
	}
	return out
}

// jobOf is namedJob's move, and when it makes none, nameLed's swap:
// the request's job words, then its names, decide between one agent's
// skills.
func (m *Matcher) jobOf(req *extract.Requirement, sl *Shortlist, scored []rerank.Scored) jobMove {
	move := m.namedJob(req, sl, scored)
	if move == noMove {
		m.nameLed(req, sl, scored)
	}
	return move
}

// nameLed gives the best candidate's place and fit to a sibling of its
// agent when the best one leads on the caller's own names: its examples
// hold a name or code of the request (the supplier-invoice example
// "invoice TP-88213 from Tamberlane Papers ..." against "This is
// Tamberlane Papers - has our invoice TP-88277 been paid yet?"), it holds
// no other word of the request that the sibling lacks, and the sibling's
// name, tags or description hold one it lacks (the payment queries'
// "when an invoice will be or was paid"). Names say who asks, not what
// for. Unlike namedJob's swap, the pair's probabilities are not pooled:
// the sibling takes the best one's. A follow-up ("and INV-5540 as
// well?") is read with the turn before it, where its names and its job
// were said. Over the 108 hostile sets, top-1 +20, right delegations +15
// and wrong ones -14; no golden decision moved. Leaving names out of
// examples altogether cost 70 right delegations.
func (m *Matcher) nameLed(req *extract.Requirement, sl *Shortlist, scored []rerank.Scored) {
	if len(scored) < 2 || scored[0].Entry == nil || len(scored[0].Entry.ExampleTerms) == 0 || m.refs[scored[0].Doc].distrust != "" {
		return
	}
	top := scored[0].Entry
	// The siblings first: most rankings have none, and then the request's
	// names are never read.
	var siblings []int
	for i := 1; i < min(len(scored), 3); i++ {
		e := scored[i].Entry
		if e != nil && e.AgentID == top.AgentID && m.refs[scored[i].Doc].distrust == "" && (sl.Demoted == nil || !sl.Demoted[scored[i].Doc]) {
			siblings = append(siblings, i)
		}
	}
	if len(siblings) == 0 {
		return
	}
	q := req.Need
	if len(req.History) > 0 {
		q = req.History[len(req.History)-1] + " " + q
	}
	instance := callerNames(q)
	if !slices.ContainsFunc(top.ExampleTerms, func(t string) bool { return instance[t] }) {
		return
	}
	var words []string
	for _, w := range analyze.AppendContentWords(nil, 0, analyze.Words(q)) {
		if t := analyze.Stem(w); !instance[t] {
			words = append(words, t)
		}
	}
	for _, i := range siblings {
		e := scored[i].Entry
		topOnly, siblingOnly := 0, 0
		for _, t := range words {
			inTop, inSibling := skillHolds(top, t), inText(e, t)
			switch {
			case inTop && !inSibling:
				topOnly++
			case inSibling && !inTop:
				siblingOnly++
			}
		}
		if topOnly == 0 && siblingOnly > 0 {
			a, b := &scored[0], &scored[i]
			a.Candidate, b.Candidate = b.Candidate, a.Candidate
			a.Reason, b.Reason = "only the caller's names tie "+b.Entry.Name+" to the request; its words name this job. "+b.Reason, a.Reason
			return
		}
	}
}

// callerNames are the terms of text's proper names (properNames, and the
// capitalized word that opens one: "Glasspool Dental Supplies here") and
// of its words with a digit (codes, references): who and which, not what.
func callerNames(text string) map[string]bool {
	out := map[string]bool{}
	for n := range properNames(text) {
		for _, w := range analyze.Words(n) {
			out[analyze.Stem(w)] = true
		}
	}
	fields := strings.Fields(text)
	for i, f := range fields {
		opensName := i+1 < len(fields) && leadsName(f) && out[analyze.Stem(strings.ToLower(strings.Trim(fields[i+1], ",.:;!?")))]
		if opensName || strings.ContainsAny(f, "0123456789") {
			for _, w := range analyze.Words(f) {
				out[analyze.Stem(w)] = true
			}
		}
	}
	return out
}

// leadsName says whether field f is written as a name: a capital, then
// lower-case letters.
func leadsName(f string) bool {
	r := []rune(f)
	return len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1])
}
