package match

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// A thin link is a skill's only tie to a request: one common word ("play
// some jazz in the living room" to hotel reservations by "room", "order a
// new pair of running shoes" to invoice reconciliation by "purchase
// order", "help me look for a cheap apartment" to a hotel search by
// "look"), while the request's other words speak of something the skill's
// text does not. The learned reranker weighs the word match as it would
// any other, and on the golden dev sets such delegations, made at 0.85 on
// average, were right about four times in ten (and most of the rest were
// requests no skill of the catalog takes). A thin link keeps its rank but
// not its confidence (thinShrink).
const (
	// thinCommon is the corpus weight (SIF a/(a+p(w)), near 1 for rare
	// words) under which a word is common English: "order" 0.84, "room"
	// 0.91, "look" 0.88, where "hotel" is 0.93 and "invoice" 0.99.
	thinCommon = 0.92
	// thinOthers is how many other content words (with vectors) the
	// request must have for one of them to be the link: "reconcile
	// invoices" or "book it" are short, not thin.
	thinOthers = 2
	// thinAlign is the word-to-word cosine at which another word of the
	// request speaks to the skill after all ("call us a cab": "cab" meets
	// the skill's "taxi"; "apartment" to hotel words stays under it).
	thinAlign = 0.75
	// thinDense is the request's similarity to the skill under which a
	// common word of the skill's name or tags is no link either: a label
	// word the request means otherwise ("order" of "purchase order" in
	// "order a new pair of running shoes", 0.26).
	thinDense = 0.35
	// thinLabelAlign is thinAlign for a link that is a word of the
	// skill's label, which names the job: another word of the request
	// speaks to the skill from this cosine. "find me a psychologist in
	// Santa Rosa" names a provider search's "find", and "psychologist"
	// stands 0.73 from its "therapist"; "book me a taxi to the airport"
	// names a holiday booking's "booking", and "taxi" (0.32 from
	// "holiday") and "airport" reach none of its words: it was delegated
	// at 0.74. Over every labelled set (golden dev and train splits, 108
	// hostile sets) the best guesses this bar newly thins were right 9
	// times in 38 at a mean of 0.56, halved to 0.28; 0.65 took in 56
	// more, 18 of them right, and five right delegations for twelve
	// wrong ones (a "family counselor" is 0.62 from "therapist").
	thinLabelAlign = 0.6
	// thinShrink scales a thin link's probability: about what such
	// delegations were right at.
	thinShrink = 0.5
	// unnamedShrink scales the probability of a candidate whose job a
	// thin request does not name (markUnnamed). Across every labelled
	// set (golden dev and train splits, ninety hostile sets) such tops
	// were right 22 times in 659 at a mean of 0.44 before any shrink:
	// 0.08 would match. The golden sets alone say more (21 of 66, most
	// of them clinc150's "cancel it"), so the factor stays a little
	// above the pooled one.
	unnamedShrink = 0.1
	// askedShrink scales the probability of a skill tied to a request of
	// one content word only by an asking word (shrinkAskedOnly).
	askedShrink = 0.1
)

// shrinkThin lowers the probability of each candidate tied to the request
// by a thin link (see thinCommon) to thinShrink of it, but never under
// the probability of a candidate it outranked: the order, and so top-1,
// stays; a thin best match is asked about beside its runner-up or
// abstained on instead of delegated at high confidence. Only candidates
// a decision could take (at least the clarify floor) are looked at.
func (m *Matcher) shrinkThin(req *extract.Requirement, out []Ranked) {
	wv := m.cfg.words
	if wv == nil || len(out) == 0 || req == nil {
		return
	}
	var q *thinQuery
	var thin []string // each candidate's thin link, made for the first: most requests have none
	for i := range out {
		r := &out[i]
		// A degraded candidate is judged too: were it spared, a degraded
		// twin would keep its probability over a healthy one halved.
		if r.Prob < m.policy.ClarifyFloor || r.Unnamed || r.Entry == nil {
			continue
		}
		if q == nil {
			q = newThinQuery(wv, req.Need, len(req.History) > 0)
		}
		if word, ok := q.thin(r.Entry, r.Dense); ok {
			if thin == nil {
				thin = make([]string, len(out))
			}
			thin[i] = word
		}
	}
	if thin == nil {
		return
	}
	for i, word := range thin {
		if word != "" {
			thin[i] = fmt.Sprintf("thin link: only the common word %q ties it to the request. ", word)
		}
	}
	unpair(out, thin)
	shrinkMarked(out, thin, thinShrink)
}

// unpair takes the sibling mark off each candidate with a note and off
// its siblings: a shrunk candidate pools with none, or the decider would
// add the two halved probabilities back up (0.95 and 0.90 halved, pooled
// to 0.71, delegated).
func unpair(out []Ranked, note []string) {
	for i := range out {
		if note[i] != "" {
			out[i].Sibling = false
			for j := range out {
				if out[j].AlikeOf == out[i].Entry.Key {
					out[j].Sibling = false
				}
			}
		}
	}
}

// shrinkMarked scales the probability of each candidate with a note by
// shrink (thinShrink, unnamedShrink), prefixing the note to its reason,
// but never under the probability of a candidate it outranked: the
// order, and so top-1, stays.
func shrinkMarked(out []Ranked, note []string, shrink float64) {
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return out[order[a]].Prob > out[order[b]].Prob })
	// From the least probable up, so that each candidate's floor is the
	// (already lowered) best of those it outranked.
	below := 0.0
	for k := len(order) - 1; k >= 0; k-- {
		r := &out[order[k]]
		if n := note[order[k]]; n != "" {
			r.Reason = n + r.Reason
			floor := below
			if floor > 0 {
				// Just over the one it outranked: ties would let the
				// policy's stable order put that one first.
				floor = min(r.Prob, floor+1e-6)
			}
			r.Prob = max(r.Prob*shrink, floor)
		}
		below = max(below, r.Prob)
	}
}

// demoteMarked scales the probability of each candidate with a note to
// thinShrink of it, prefixing the note to its reason, and moves it below
// every unmarked candidate it no longer outscores. Unlike shrinkMarked it
// gives up the rank: it is for a candidate the request did not choose,
// however well its words read (an instance of a list whose thing the
// request does not name). The unmarked candidates keep their order, and
// so do the marked ones.
func demoteMarked(out []Ranked, note []string) {
	var kept, marked []Ranked
	for i, r := range out {
		if note[i] == "" {
			kept = append(kept, r)
			continue
		}
		r.Reason = note[i] + r.Reason
		r.Prob *= thinShrink
		marked = append(marked, r)
	}
	for i := range out {
		if len(marked) > 0 && (len(kept) == 0 || marked[0].Prob > kept[0].Prob) {
			out[i], marked = marked[0], marked[1:]
		} else {
			out[i], kept = kept[0], kept[1:]
		}
	}
}

// thinQuery is what shrinkThin reads of a request, each part when first
// needed: most candidates share no term or several with the request and
// are told apart by its terms alone.
type thinQuery struct {
	wv    rerank.WordVectors
	words []string // the request's words
	terms []string // its distinct terms
	// weight is each term's highest corpus weight among the words it
	// stems from (-1: none has a vector), filled per term asked.
	weight map[string]float32
	// content holds the content words' vectors, made on the first call
	// of contentWords.
	content []thinWord
	made    bool
	// leansBack says the request points back, at earlier turns or with a
	// pointer ("play it on the kitchen speaker"): the label word may be
	// all it says of the job, the rest being where or how.
	leansBack bool
}

type thinWord struct {
	term string
	vec  []float32
}

// newThinQuery reads need, a request with earlier turns or none.
func newThinQuery(wv rerank.WordVectors, need string, earlier bool) *thinQuery {
	q := &thinQuery{wv: wv, words: analyze.Words(need), leansBack: earlier}
	for i := 0; i < len(q.words) && !q.leansBack; i++ {
		q.leansBack = roleOf(q.words, i) == rolePointer
	}
	for _, w := range q.words {
		if analyze.IsStopword(w) {
			continue
		}
		if t := analyze.Stem(w); !slices.Contains(q.terms, t) {
			q.terms = append(q.terms, t)
		}
	}
	return q
}

// weightOf is term t's corpus weight (see thinQuery.weight).
func (q *thinQuery) weightOf(t string) float32 {
	if w, ok := q.weight[t]; ok {
		return w
	}
	best := float32(-1)
	buf := make([]float32, q.wv.Dim())
	for _, w := range q.words {
		if analyze.IsStopword(w) || analyze.Stem(w) != t {
			continue
		}
		if wt, ok := q.wv.WordVector(buf, w); ok {
			best = max(best, wt)
		}
	}
	if q.weight == nil {
		q.weight = map[string]float32{}
	}
	q.weight[t] = best
	return best
}

// contentWords are the request's content words that have vectors.
func (q *thinQuery) contentWords() []thinWord {
	if !q.made {
		q.made = true
		for _, w := range analyze.AppendContentWords(nil, 0, q.words) {
			v := make([]float32, q.wv.Dim())
			if _, ok := q.wv.WordVector(v, w); ok {
				q.content = append(q.content, thinWord{term: analyze.Stem(w), vec: v})
			}
		}
	}
	return q.content
}

// thin says whether the request's only tie to skill d is one common word
// (see thinCommon), and which word; dense is the request's similarity to
// the skill.
func (q *thinQuery) thin(d *index.Doc, dense float32) (string, bool) {
	link, links := "", 0
	for _, t := range q.terms {
		if skillHolds(d, t) {
			link = t
			if links++; links > 1 {
				return "", false
			}
		}
	}
	if links != 1 {
		return "", false
	}
	// A word of the skill's label close to the request as a whole is the
	// job named, when the request points back or its other words come
	// near the skill's (thinLabelAlign).
	label := (has(d.NameTerms, link) || has(d.TagTerms, link)) && dense >= thinDense
	if label && q.leansBack {
		return "", false
	}
	if w := q.weightOf(link); w < 0 || w >= thinCommon {
		return "", false // a rare word, or one without a corpus weight to tell
	}
	others := 0
	for _, w := range q.contentWords() {
		if w.term != link {
			others++
		}
	}
	if others < thinOthers {
		return "", false
	}
	bar := float32(thinAlign)
	if label {
		bar = thinLabelAlign
	}
	if q.speaksTo(d, link, bar) {
		return "", false
	}
	return q.wordOf(link), true
}

// wordOf is the request's first word with term t.
func (q *thinQuery) wordOf(t string) string {
	for _, w := range q.words {
		if !analyze.IsStopword(w) && analyze.Stem(w) == t {
			return w
		}
	}
	return t
}

// speaksTo says whether a content word of the request other than link is
// close (a cosine of bar or more) to a word of the skill's text or
// examples.
func (q *thinQuery) speaksTo(d *index.Doc, link string, bar float32) bool {
	v := make([]float32, q.wv.Dim())
	for _, s := range skillWords(d) {
		if _, ok := q.wv.WordVector(v, s); !ok {
			continue
		}
		for _, w := range q.contentWords() {
			if w.term != link && vector.Cosine(w.vec, v) >= bar {
				return true
			}
		}
	}
	return false
}

// shrinkAskedOnly lowers the probability of each candidate whose only tie
// to a request of one content word is an asking word: "what do we need to
// do about the account?" went to a hardship team's "we record the support
// they need" at 0.87, and "I need a dentist" to a therapist search "for
// whatever you need" at 0.90, where neither skill holds the thing asked
// for, nor a word close to it (thinAlign). Asking words say that something
// is wanted, never what (asking). A request with a pointer is
// markUnnamed's; one with earlier turns may name the thing there.
func (m *Matcher) shrinkAskedOnly(req *extract.Requirement, out []Ranked) {
	wv := m.cfg.words
	if wv == nil || len(out) == 0 || req == nil || len(req.History) > 0 {
		return
	}
	words := analyze.Words(req.Need)
	var thing string
	var asks, arranges []string
	for i, w := range words {
		switch roleOf(words, i) {
		case rolePointer:
			return
		case roleContent:
			if thing != "" {
				return
			}
			thing = w
		case roleAsk:
			switch {
			case asking[w]:
				asks = append(asks, analyze.Stem(w))
			case arranging[w]:
				arranges = append(arranges, analyze.Stem(w))
			}
		}
	}
	if thing == "" || len(asks) == 0 {
		return
	}
	stem := analyze.Stem(thing)
	var vec []float32 // the thing's vector, made for the first candidate that asks
	var note []string
	for i := range out {
		r := &out[i]
		// An arrangement the skill names ("I'd like to make a dinner
		// reservation" to a restaurant's reservations) ties it too.
		if r.Prob < m.policy.ClarifyFloor || r.Unnamed || r.Entry == nil || holdsThing(r.Entry, stem) ||
			!slices.ContainsFunc(asks, func(t string) bool { return skillHolds(r.Entry, t) }) ||
			slices.ContainsFunc(arranges, func(t string) bool { return labelled(r.Entry, t) }) {
			continue
		}
		if vec == nil {
			vec = make([]float32, wv.Dim())
			if _, ok := wv.WordVector(vec, thing); !ok {
				return // a word without a vector: nothing tells what it is near
			}
		}
		if nearWord(wv, r.Entry, vec, thinAlign) {
			continue
		}
		if note == nil {
			note = make([]string, len(out))
		}
		note[i] = fmt.Sprintf("only an asking word ties it to the request: it holds nothing of %q. ", thing)
	}
	if note != nil {
		unpair(out, note)
		shrinkMarked(out, note, askedShrink)
	}
}

// holdsThing says whether skill d's text holds the thing asked for: its
// term or a term of its family ("plumber" beside "plumbing": one stem the
// other's start, of four letters or more). WordNet's related words are no
// evidence here: they mix a word's senses, and "account" is related to
// the "record" of "we record the support they need".
func holdsThing(d *index.Doc, stem string) bool {
	for _, terms := range [...][]string{d.NameTerms, d.TagTerms, d.DescTerms, d.ExampleTerms} {
		for _, t := range terms {
			short, long := t, stem
			if len(short) > len(long) {
				short, long = long, short
			}
			if len(short) >= 4 && strings.HasPrefix(long, short) || t == stem {
				return true
			}
		}
	}
	return false
}

// nearWord says whether a word of skill d's text or examples stands at a
// cosine of bar or more from vec.
func nearWord(wv rerank.WordVectors, d *index.Doc, vec []float32, bar float32) bool {
	v := make([]float32, wv.Dim())
	for _, s := range skillWords(d) {
		if _, ok := wv.WordVector(v, s); ok && vector.Cosine(vec, v) >= bar {
			return true
		}
	}
	return false
}

// skillWords are the words of skill d's text and the content words of its
// examples.
func skillWords(d *index.Doc) []string {
	words := append([]string(nil), d.TextWords...)
	for _, e := range d.Examples {
		words = analyze.AppendContentWords(words, 0, analyze.Words(e))
	}
	return words
}

// strayNear is how many of the earlier turns' best skills (Shortlist.History)
// a follow-up naming nothing may lean on: the skill the conversation is
// about is among them.
const strayNear = 3

// shrinkStrayFollowUp lowers, to thinShrink of it, the probability of the
// best candidate for a follow-up that names nothing ("actually, make that
// the week after", "and on Sundays?": no content word but times, replies
// and interjections, and no arranging word) when the earlier turns do not
// point at it either (it is not among their strayNear best skills). Its
// lead then comes from the turn's stray words alone: after "I'd like
// 14-18 July off as annual leave please" the first went to a food lab's
// "how many days a product really keeps" at 0.94. Over every labelled set
// (golden dev and train splits, 108 hostile sets) the tops it shrinks were
// right 2 times in 36 at a mean of 0.55; no right delegation was lost. An
// arranging word names the job ("yes, make the reservation"): SGD's
// reservation turns after a search were right 61% of the time, and are
// left alone. The order, and so top-1, stays.
func (m *Matcher) shrinkStrayFollowUp(req *extract.Requirement, sl *Shortlist, out []Ranked) {
	if len(out) == 0 || req == nil || len(req.History) == 0 || sl == nil || sl.History == nil {
		return
	}
	top := &out[0]
	if top.Prob < m.policy.ClarifyFloor || top.Entry == nil || top.Unnamed {
		return
	}
	for _, c := range sl.History.Candidates[:min(strayNear, len(sl.History.Candidates))] {
		if c.Doc == top.Doc {
			return
		}
	}
	words := analyze.Words(req.Need)
	for i, w := range words {
		if arranging[w] || roleOf(words, i) == roleContent && !timeWords[w] && !replyWords[w] {
			return
		}
	}
	note := make([]string, len(out))
	note[0] = "neither this turn's words nor the turns before it name this skill. "
	unpair(out, note)
	shrinkMarked(out, note, thinShrink)
}

// timeWords place a turn in the calendar and name no job ("make that
// the week after", "and on Sundays?"); a weekday or "today" is already no
// content (recalls).
var timeWords = wordsOf(`day days week weeks weekends fortnight month months year years
	mondays tuesdays wednesdays thursdays fridays saturdays sundays morning mornings afternoon afternoons
	evening evenings night nights january february march april june july august september october november december`)

// replyWords answer or hedge the turn before ("yes, fine", "actually"):
// the interjections a continued turn opens with, and answers.
var replyWords = func() map[string]bool {
	out := wordsOf(`yes yeah yep sure fine perfect cool alright nope instead thank well`)
	for w := range interjections {
		out[w] = true
	}
	return out
}()

// wordsOf is the set of the space-separated words of s.
func wordsOf(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[w] = true
	}
	return out
}
