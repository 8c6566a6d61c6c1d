package match

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A conversation's topic is carried by its domain words. A catalog says
// which words those are, with no labels: the words that every skill of
// some agent holds (in its name, tags, description, examples or the
// agent's name) and that never tell two skills of one agent apart. "hotel"
// is in both of a hotel agent's skills; "reserve", "book", "find" or
// "play" each tell one agent's skills apart, so they are job words, which
// say what to do and never where.

// domainTerms lists the domain terms of docs (see above), whose skills
// of one agent are consecutive, as the matcher numbers them.
func domainTerms(docs func(i int) *index.Doc, n int, skip func(doc int) bool) map[string]bool {
	out := make(map[string]bool)
	for t := range domainReach(docs, n, skip) {
		out[t] = true
	}
	return out
}

// domainReach maps each domain term of docs (see domainTerms) to the
// number of agents whose every skill holds it. One counting map per
// agent, reused: at 100,000 skills a set per skill made the first
// follow-up take 1.3 s; counting takes 0.18 s, once per matcher.
func domainReach(docs func(i int) *index.Doc, n int, skip func(doc int) bool) map[string]int {
	const varies = -1 // it tells two skills of some agent apart
	reach := map[string]int{}
	// count[t] is how many of the agent's skills hold t; seen[t] the
	// last skill that counted it (a term is in several fields).
	count, seen := map[string]int{}, map[string]int{}
	agentSpans(docs, n, func(lo, hi int) {
		if hi-lo < 2 || skipAgent(skip, lo, hi) {
			// One skill tells nothing apart: every word of it would
			// pass for a domain word ("book" of a library that lends
			// books). An untrusted card says nothing either way.
			return
		}
		clear(count)
		clear(seen)
		name := analyze.Terms(docs(lo).AgentName)
		for d := lo; d < hi; d++ {
			for _, ts := range skillFields(docs(d), name) {
				for _, t := range ts {
					if s, ok := seen[t]; !ok || s != d {
						seen[t] = d
						count[t]++
					}
				}
			}
		}
		for t, c := range count {
			switch {
			case c < hi-lo:
				reach[t] = varies
			case reach[t] != varies:
				reach[t]++
			}
		}
	})
	for t, r := range reach {
		if r == varies || namesNoDomain(t) {
			delete(reach, t)
		}
	}
	return reach
}

// namesNoDomain says whether an agent's name term names no domain: a
// number ("Hotels 2") names an instance, and a word for a kind of
// organisation ("Deal Desk", "People Team") how the agent is run, not
// what it is about.
func namesNoDomain(t string) bool {
	return strings.IndexFunc(t, unicode.IsDigit) >= 0 || orgNouns[t]
}

// orgNouns are the terms of the words that name a kind of organisation
// in agents' names: "I need it fixed, it fell off the desk" named the
// domain of a Deal Desk, which took a laptop repair's fit at 0.77 (a
// seventh set, written blind). "People" of a People Team is how HR is
// run: "the newsletter people" gave a People Team's sickness reports a
// shift swap's fit (a sixtieth set), and eight more hostile requests that
// spoke of people went to the People Team, none rightly. Words whose term
// is another word's are left out: "department" is "depart" (departing
// buses), "unit" is "united".
var orgNouns = stems(strings.Fields("desk team office centre center hub group partners solutions agency bureau labs people")...)

// agentSpans calls f with each agent's docs lo..hi-1: the matcher numbers
// one agent's skills consecutively.
func agentSpans(docs func(i int) *index.Doc, n int, f func(lo, hi int)) {
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && docs(hi).AgentID == docs(lo).AgentID {
			hi++
		}
		f(lo, hi)
		lo = hi
	}
}

// skillFields are the terms of a skill's text the topic rules read: its
// name, tags, description and examples, and its agent's name.
func skillFields(d *index.Doc, agentName []string) [5][]string {
	return [5][]string{d.NameTerms, d.TagTerms, d.DescTerms, d.ExampleTerms, agentName}
}

// skipAgent says whether any of an agent's docs lo..hi-1 is one skip
// leaves out.
func skipAgent(skip func(doc int) bool, lo, hi int) bool {
	if skip == nil {
		return false
	}
	for d := lo; d < hi; d++ {
		if skip(d) {
			return true
		}
	}
	return false
}

// carryTopic is the query text q of a turn with the conversation's topic
// carried in: when the turn names no domain of its own ("yes, book it for
// Friday"), the domain words of the latest earlier turn that has any
// ("a hotel in Paris") join the query, so the turn's own job words pick a
// skill in the domain the conversation is about. A turn that names its
// own domain ("now find me some songs") is left alone, and so is one whose
// earlier turns name none. Only words the caller wrote are added, so a
// skill's fit rests on the caller's words as for any other task and the
// calibration stays honest. A word of a one-skill agent alone ("cab") does
// not stop the carry: in a small catalog most words are one agent's, a
// card's adjective would then switch the carry off ("a great fitness
// class"), and topicMove checks such words against the skill actually
// ranked first.
func carryTopic(q string, req *extract.Requirement, domain map[string]bool) string {
	if len(req.History) == 0 || len(domain) == 0 {
		return q
	}
	if len(domainWords(req.Need, domain)) > 0 {
		return q
	}
	for i := len(req.History) - 1; i >= 0; i-- {
		if words := domainWords(req.History[i], domain); len(words) > 0 {
			return q + " " + strings.Join(words, " ")
		}
	}
	return q
}

// continuedTurn is the query text of a turn that adds to what the turn
// before it asked rather than asking anew (continues: "same for number 7
// next door please", "another by the back door while they're there",
// "actually, make it the whole week") and names no domain of its own:
// that turn and this one together. q is the turn's QueryText. Such a turn names the thing, not the job; its words
// alone went to whatever skill shares them ("number 7 next door" to a
// house viewing), and carrying the earlier turn's domain words was too
// little where one agent's skills share none. "" when the rule does not
// apply: no earlier turn, a short turn QueryText already joins, or a turn
// that names its own domain ("and a hotel there too"), which goes where its
// words say, as carryTopic lets it. SGD's "too" and "also" open another
// service's job ("I also need a cab"), so only the forms continues reads
// carry, which SGD's turns seldom use.
func continuedTurn(q string, req *extract.Requirement, domain map[string]bool) string {
	if len(req.History) == 0 || q != req.Need {
		return ""
	}
	ws := analyze.Words(req.Need) // lower case, and "you're" reads "you"
	if !continues(ws) {
		return ""
	}
	// An opening "actually" is no word of a billing agent's "actual
	// readings": hostile13's "actually make it the Wednesday as well",
	// after a day off asked for, went to a bill query at 0.86.
	if words, _ := domainWordsIn(ws[interjected(ws):], domain); len(words) > 0 {
		return ""
	}
	return req.History[len(req.History)-1] + " " + req.Need
}

// continues says whether a turn's words (analyze.Words) add to the turn
// before it: they open, after any interjection ("oh,", "actually,"), with
// "and", "same", "another" or "plus", or with "make it" (as a request:
// "can you make it"); or they ask "the same for" something, or say "while
// you're at it" or "while they're there".
func continues(ws []string) bool {
	i := interjected(ws)
	if i < len(ws) && opensContinuation[ws[i]] {
		return true
	}
	switch {
	case i+1 < len(ws) && (ws[i] == "can" || ws[i] == "could") && ws[i+1] == "you":
		i += 2
	case i < len(ws) && ws[i] == "please":
		i++
	}
	if i+1 < len(ws) && ws[i] == "make" && ws[i+1] == "it" {
		return true
	}
	for k := 0; k+1 < len(ws); k++ {
		if ws[k] == "same" && ws[k+1] == "for" || ws[k] == "while" && meanwhile(ws[k+1:]) {
			return true
		}
	}
	return false
}

// meanwhile says whether the words after "while" say "you're at it" or
// "they're there" (as analyze.Words reads them: "you at it", "they there"):
// whoever does the job is at it already. "While we are there" is the
// caller's trip, and SGD's "find a house to stay in while we are there"
// opens another job.
func meanwhile(ws []string) bool {
	if len(ws) < 2 || ws[0] != "you" && ws[0] != "they" {
		return false
	}
	ws = ws[1:]
	if ws[0] == "are" {
		ws = ws[1:]
	}
	return len(ws) > 0 && ws[0] == "there" || len(ws) > 1 && ws[0] == "at" && ws[1] == "it"
}

// interjected is how many of a turn's words open it as interjections.
func interjected(ws []string) int {
	i := 0
	for i < len(ws) && interjections[ws[i]] {
		i++
	}
	return i
}

var (
	interjections     = map[string]bool{"oh": true, "ok": true, "okay": true, "um": true, "actually": true, "sorry": true, "right": true, "great": true, "thanks": true}
	opensContinuation = map[string]bool{"and": true, "same": true, "another": true, "plus": true}
)

// domainWords are the words of text that are domain terms, once each, as
// written; two words that a catalog writes as one ("pick up" against the
// tag "pickup", "rental cars" against "RentalCars") count as that word
// when the first is no stopword and the second none or a verb's particle
// ("check in", "drop off"): "thank you" is no "thankyou" a card wrote.
func domainWords(text string, domain map[string]bool) []string {
	words, _ := domainWordsTerms(text, domain)
	return words
}

// domainWordsTerms is domainWords with the domain terms (stems) the words
// stand for, in the same order.
func domainWordsTerms(text string, domain map[string]bool) (words, terms []string) {
	return domainWordsIn(analyze.Words(text), domain)
}

// domainWordsIn is domainWordsTerms of a text's words.
func domainWordsIn(ws []string, domain map[string]bool) (words, terms []string) {
	for i, w := range ws {
		if i > 0 && !analyze.IsStopword(ws[i-1]) && (particles[w] || !analyze.IsStopword(w)) {
			joined := ws[i-1] + w
			if t := analyze.Stem(joined); domain[t] && !slices.Contains(terms, t) {
				terms = append(terms, t)
				words = append(words, joined)
				continue
			}
		}
		if analyze.IsStopword(w) {
			continue
		}
		if t := analyze.Stem(w); domain[t] && !slices.Contains(terms, t) {
			terms = append(terms, t)
			words = append(words, w)
		}
	}
	return words, terms
}

// particles are the adverbs that make a phrasal verb a card may write as
// one word: "pickup", "checkin", "dropoff", "takeout".
var particles = map[string]bool{"up": true, "down": true, "in": true, "out": true, "off": true, "on": true, "over": true, "back": true, "away": true}

// oneAgentTerms lists the terms (no numbers) that the text of exactly one
// agent holds, in any of its skills' fields or its name, among agents
// whose docs skip does not leave out: "weather" of a weather agent, "cab"
// of a taxi agent. A request holding such a word of the skill ranked
// first names that skill's topic itself, whether or not its agent has two
// skills to tell its domain words by (see domainTerms, topicMove). One
// counting map, reused per agent.
func oneAgentTerms(docs func(i int) *index.Doc, n int, skip func(doc int) bool) map[string]bool {
	agents, _ := termAgents(docs, n, skip, func(d *index.Doc, name []string) [][]string {
		f := skillFields(d, name)
		return f[:]
	})
	out := make(map[string]bool)
	for t, c := range agents {
		if c == 1 && strings.IndexFunc(t, unicode.IsDigit) < 0 {
			out[t] = true
		}
	}
	return out
}

// termAgents counts, for each term that fields gives of an agent's docs
// (with the terms of its agent's name), the agents holding it, leaving out
// the agents skip leaves out; all is how many agents it counted.
func termAgents(docs func(i int) *index.Doc, n int, skip func(doc int) bool, fields func(d *index.Doc, agentName []string) [][]string) (count map[string]int, all int) {
	count = map[string]int{}
	seen := map[string]bool{}
	agentSpans(docs, n, func(lo, hi int) {
		if skipAgent(skip, lo, hi) {
			return
		}
		all++
		clear(seen)
		name := analyze.Terms(docs(lo).AgentName)
		for d := lo; d < hi; d++ {
			for _, ts := range fields(docs(d), name) {
				for _, t := range ts {
					if !seen[t] {
						seen[t] = true
						count[t]++
					}
				}
			}
		}
	})
	return count, all
}

// carriedTerms are the stems of the domain words carryTopic carries into
// req's query: nil when the turn names a domain of its own or its earlier
// turns name none. They are worked out again rather than carried on the
// Shortlist, which crosses the wire from the retriever to the reranker:
// the catalog and the request give the same words on either side.
func carriedTerms(req *extract.Requirement, domain map[string]bool) []string {
	return analyze.Terms(carryTopic("", req, domain))
}

// topicMove moves to the top the best-ranked skill of the domain the
// request is about when the reranker put another domain's skill first.
// The domain is the conversation's for a follow-up that names none: the
// built-in model gives its history features no weight (it was fitted on
// CLINC150, which has no earlier turns), so "make me a reservation on the
// 2nd of April" after turns about hotels went to whichever domain's skill
// its job words fit best ("Reserve Restaurant": "Make a reservation for a
// table"), although the carried domain words are in its query. And it is
// the request's own when it names one that a skill's label holds: "I'd
// like a reservation for this hotel" went the same way, the
// job words outweighing the one word that says where (see namedTopic).
// The move is made only when
//   - the best skill holds none of the domain's words, while the skill
//     moved up is of an agent whose every skill holds one (domainHolds;
//     for a domain the request names, in a skill name or tag or the
//     agent's name: labelHolds);
//   - the turn holds no word (light verbs aside) of the best skill that
//     one agent alone holds (oneAgentTerms): "find me a cab" or "what's
//     the weather there?" names a topic of its own, even one a
//     single-skill agent offers, whose words are never domain words.
//     Against a domain the request names, only such a word in the best
//     skill's labels counts: "find me flights headed to my destination"
//     is no taxi ride because a taxi card says "head to the destination";
//   - the turn names the job of the skill moved up (its skill name, a
//     WordNet relative or a seek verb, see jobNamedBy) at least as often
//     as the best one's: "two tickets for the fair, please" after a turn
//     about a bank account stays with tickets. A domain the turn names
//     itself counts as one such word for the skill moved up: "reserve me a
//     seat on a bus bound for Reno" names Reserve Car's job once and the bus
//     agent's domain once, and goes to the bus agent (on SGD dev 22 tasks
//     fixed, 3 broken; sgd-x1 23 and 2). A carried domain is the earlier
//     turns' word, not this turn's, and counts for nothing;
//   - for a domain the request names, the request's meaning reaches the
//     skill moved up (namedDomainDense): "jury service" is no IT service.
//
// As in namedJob, the moved-up skill takes the best one's place and fit,
// and rebuild pools the pair's probabilities (see poolMoves); namedJob then
// picks among the moved-up skill's siblings. Untrusted and demoted skills
// take no part. Skills with examples do take part, unlike in namedJob:
// there the reranker tells siblings apart by their examples, but it reads
// no earlier turn whatever a card holds. On SGD dev (history: up to three
// earlier user turns) the conversation's domain fixed 57 tasks and broke
// 7; the request's own fixed 116 and broke 4.
// namedDomainDense is the request's similarity to a skill under which a
// domain word the request names is meant otherwise and moves nothing up:
// "Dr Mensah has jury service the week of 10 February - can her lectures
// move?" named the "service" of an IT Service Desk (0.02), which took the
// teaching timetable's fit at 1.00. The skills a named domain moved up on
// sgd and sgd-x1 dev stood at 0.18 or more; the one under 0.2, a wrong
// move on sgd-x1, no longer happens.
const namedDomainDense = 0.2

func (m *Matcher) topicMove(req *extract.Requirement, sl *Shortlist, scored []rerank.Scored) jobMove {
	if len(scored) < 2 {
		return noMove
	}
	domain, own := m.domains(), m.oneAgent()
	topic, holds, bestHolds := carriedTerms(req, domain), m.domainHolds, holdsAny
	about := "the conversation is about " + strings.Join(topic, ", ")
	domainNamed := 0        // 1 when this turn names the domain itself: a job word for the moved-up skill
	var topicWords []string // the words that name it, as the request wrote them
	if len(topic) == 0 {
		topicWords, topic = namedTopic(req, domain)
		holds, bestHolds = m.labelHolds, labelHoldsAny
		about = "the request names " + strings.Join(topicWords, ", ")
		domainNamed = 1 // with no topic named, no move is made below
	}
	if len(topic) == 0 || !m.moveReady(scored[0], sl) || holdsAny(scored[0].Entry, topic) {
		return noMove
	}
	words := analyze.AppendContentWords(nil, 0, analyze.Words(req.Need))
	for _, w := range words {
		t := analyze.Stem(w)
		if own[t] && !lightVerbs[w] && bestHolds(scored[0].Entry, []string{t}) {
			return noMove
		}
	}
	lex := m.jobLexicon()
	reqWords := requestWordsOf(lex, domain, words)
	named := jobNamedBy(lex, domain, reqWords, scored[0].Entry)
	for i := 1; i < len(scored); i++ {
		if !m.moveReady(scored[i], sl) || !holds(scored[i].Doc, m.inAgentsForms(scored[i].Doc, topicWords, topic)) ||
			jobNamedBy(lex, domain, reqWords, scored[i].Entry)+domainNamed < named ||
			domainNamed == 1 && scored[i].Dense < namedDomainDense {
			continue
		}
		a, b := &scored[0], &scored[i]
		a.Candidate, b.Candidate = b.Candidate, a.Candidate
		// The fit shown is the place taken; the skill's own reason follows.
		a.Reason, b.Reason = about+", so it takes the fit of "+b.Entry.Name+"; "+b.Reason, a.Reason
		return jobMove{up: a.Doc, down: b.Doc}
	}
	return noMove
}

// formKinds says which forms of a term an agent's labels write: a form in
// -ing ("Housing", "Parking", "Planning"), one without.
type formKinds uint8

const (
	formIng formKinds = 1 << iota
	formPlain
)

// formOf is the kind of word w's form.
func formOf(w string) formKinds {
	if len(w) > 5 && strings.HasSuffix(w, "ing") {
		return formIng
	}
	return formPlain
}

// labelFormsOf is, per agent, for every term of its name and its skills'
// names and tags, the kinds of the forms that write it.
func labelFormsOf(docs func(i int) *index.Doc, n int) map[string]map[string]formKinds {
	out := map[string]map[string]formKinds{}
	for i := range n {
		d := docs(i)
		forms := out[d.AgentID]
		if forms == nil {
			forms = map[string]formKinds{}
			out[d.AgentID] = forms
		}
		for _, text := range append([]string{d.AgentName, d.Name}, d.Tags...) {
			for _, w := range analyze.Words(text) {
				forms[analyze.Stem(w)] |= formOf(w)
			}
		}
	}
	return out
}

// inAgentsForms keeps the domain terms a request names (words, as it
// wrote them) that doc d's agent's labels write in the same form: a stem
// joins "house" and "Housing", "park" and "Parking", but a house crawling
// with fleas is no housing benefit's and a park no parking permit's. A
// term the labels do not hold, or hold only joined from two words, is
// kept: holds decides on it.
func (m *Matcher) inAgentsForms(d int, words, terms []string) []string {
	if words == nil {
		return terms // a conversation's domain: its words are earlier turns'
	}
	forms := m.labelForms()[m.idx.Doc(d).AgentID]
	kept := terms[:0:0]
	for i, t := range terms {
		if f, ok := forms[t]; ok && f&formOf(words[i]) == 0 {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// namedTopic are the domain words the request's own turn names, as the
// caller wrote them and as terms ("hotel" in "make the reservation for
// this hotel and two guests"), nil when it names none.
func namedTopic(req *extract.Requirement, domain map[string]bool) (words, terms []string) {
	return domainWordsIn(placesOut(analyze.Words(req.Need)), domain)
}

// placesOut is words without those that follow a preposition of place
// (and a determiner): "a taxi to the restaurant" or "a table near my
// hotel" names where, not what, and a restaurant or a hotel is not the
// topic of the first nor a hotel that of the second.
func placesOut(ws []string) []string {
	kept := ws[:0:0]
	place := false
	det := false
	for _, w := range ws {
		switch {
		case placePreps[w]:
			place, det = true, false
			kept = append(kept, w)
			continue
		case place && determiners[w]:
			det = true
			kept = append(kept, w)
			continue
		case place && det:
			place = false
			continue
		}
		place = false
		kept = append(kept, w)
	}
	return kept
}

// placePreps are the prepositions of place that introduce a destination or
// a location rather than what a request is about.
var placePreps = map[string]bool{"to": true, "near": true, "towards": true}

// determiners may stand between a preposition of place and its noun.
var determiners = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "your": true, "their": true, "his": true, "her": true, "this": true, "that": true, "some": true}

// moveReady says whether s may take part in topicMove: trusted and not
// demoted.
func (m *Matcher) moveReady(s rerank.Scored, sl *Shortlist) bool {
	d := s.Doc
	return s.Entry != nil && d >= 0 && d < len(m.refs) && m.refs[d].distrust == "" && (sl.Demoted == nil || !sl.Demoted[d])
}

// domainHolds says whether one of the topic terms is a domain term of the
// agent of doc d: every skill of that agent, which has two or more, holds
// it (see domainTerms). A one-skill card that mentions "hotel rooms" in
// passing, or one skill of an agent that stuffs it in, is not where a
// conversation about hotels goes.
func (m *Matcher) domainHolds(d int, topic []string) bool {
	return m.agentHolds(d, topic, m.domainAgents(), skillHolds, false)
}

// labelHolds is domainHolds for a domain the request names itself: the
// agent's name when it is that one word (soleNameTerm), or every one of
// its skills' names or tags, holds one of the topic terms. A word every
// skill's description happens to use ("that suit your preferences" on
// both of a flight agent's skills) says how the card is written, not what
// it is about: "I prefer pop" is no flight.
func (m *Matcher) labelHolds(d int, topic []string) bool {
	return m.agentHolds(d, topic, m.domainAgents(), labelled, true)
}

// labelHoldsAny says whether d's skill name or tags, or its agent's name,
// hold any of the terms.
func labelHoldsAny(d *index.Doc, terms []string) bool {
	return holdsAnyBy(d, terms, labelled)
}

// labelled says whether d's skill name or tags hold t.
func labelled(d *index.Doc, t string) bool { return has(d.NameTerms, t) || has(d.TagTerms, t) }

// agentDocs is the range of docs of doc d's agent: one agent's skills
// are consecutive in catalog order.
func (m *Matcher) agentDocs(d int) (lo, hi int) {
	id := m.idx.Doc(d).AgentID
	lo, hi = d, d+1
	for lo > 0 && m.idx.Doc(lo-1).AgentID == id {
		lo--
	}
	for hi < m.idx.Len() && m.idx.Doc(hi).AgentID == id {
		hi++
	}
	return lo, hi
}

// agentHolds says whether the agent of doc d has two or more skills and
// one topic term is in its name or held by each of its skills (by
// holds). An agent name that names the domains of two or more other
// agents ("Hotel Restaurant Movie Flight Desk") names none: anyone can
// name a card, and such a name would make the agent's every skill a
// hotel's, a restaurant's and a flight's for the rules that move a skill
// up (reach: domainReach). With wholeName, a topic term counts in the
// agent's name only when it is the whole name (numbers and words for a
// kind of organisation aside, see soleNameTerm).
func (m *Matcher) agentHolds(d int, topic []string, reach map[string]int, holds func(e *index.Doc, t string) bool, wholeName bool) bool {
	lo, hi := m.agentDocs(d)
	if hi-lo < 2 {
		return false
	}
	name := analyze.Terms(m.idx.Doc(lo).AgentName)
	others := 0
	for _, t := range name {
		if reach[t] >= 2 {
			others++
		}
	}
	named := others < 2
	sole := ""
	if wholeName {
		sole = soleNameTerm(name)
	}
	for _, t := range topic {
		if named && (wholeName && t == sole || !wholeName && slices.Contains(name, t)) {
			return true
		}
		all := true
		for e := lo; e < hi && all; e++ {
			all = holds(m.idx.Doc(e), t)
		}
		if all {
			return true
		}
	}
	return false
}

// soleNameTerm is the one term of an agent's name terms that is neither a
// number nor a word for a kind of organisation (orgNouns), "" when there
// are more or none: "Buses 1" and "Music Team" are named by their domain,
// "Finance Shared Services" and "Smart Metering Programme" are not. A
// request that names the whole of a one-word name names the agent's
// domain; one that names a word of a longer name most often means
// something else ("the finance drive", "the valve exercise programme",
// "their hygiene certificates" each moved a skill of such an agent above
// the right one on the hand-written sets). Over every set, moves backed by
// a one-word name alone were right 120 times and wrong 5 (sgd-x1's
// "Buses", "RentalCars", "Music"); by a longer name, right never and
// wrong 6.
func soleNameTerm(name []string) string {
	word := ""
	for _, t := range name {
		if namesNoDomain(t) {
			continue
		}
		if word != "" {
			return ""
		}
		word = t
	}
	return word
}

// holdsAny says whether d's text (name, tags, description, examples or its
// agent's name) holds any of the terms.
func holdsAny(d *index.Doc, terms []string) bool { return holdsAnyBy(d, terms, skillHolds) }

// holdsAnyBy says whether holds finds one of the terms in d, or d's
// agent's name holds one.
func holdsAnyBy(d *index.Doc, terms []string, holds func(d *index.Doc, t string) bool) bool {
	var agent []string
	for _, t := range terms {
		if holds(d, t) {
			return true
		}
		if agent == nil {
			agent = analyze.Terms(d.AgentName)
		}
		if slices.Contains(agent, t) {
			return true
		}
	}
	return false
}

// requestWord is a request's content word as jobNamedBy reads it: made once
// a request, not once a candidate.
type requestWord struct {
	nameWord
	// joined is the stem of the word before and this one run together
	// ("round trip", "roundtrip"); "" for the first.
	joined string
	// noJob says the word is a domain word or a light verb.
	noJob bool
}

// requestWordsOf makes the request's content words as requestWords; their
// relatives are looked up only for words that may name a job.
func requestWordsOf(lex rerank.Lexicon, domain map[string]bool, words []string) []requestWord {
	out := make([]requestWord, len(words))
	for i, w := range words {
		jw := &out[i]
		jw.word, jw.stem = w, analyze.Stem(w)
		if i > 0 {
			jw.joined = analyze.Stem(words[i-1] + w)
		}
		jw.noJob = domain[jw.stem] || lightVerbs[w]
		if !jw.noJob && lex != nil {
			jw.rel = lex.RelatedStems(w)
		}
	}
	return out
}

// jobNamedBy counts the request's words that name a word of d's skill
// name: the word itself, a WordNet relative (read either way), for the
// verbs of looking for something another of them, or two words side by
// side the name writes as one ("round trip", "Roundtrip"). Domain words
// and light verbs name no job (see jobLean).
func jobNamedBy(lex rerank.Lexicon, domain map[string]bool, words []requestWord, d *index.Doc) int {
	names := nameWords(d, lex, func(stem string) bool { return !domain[stem] })
	n := 0
	for _, w := range words {
		if w.joined != "" && slices.ContainsFunc(names, func(j nameWord) bool { return j.stem == w.joined }) {
			n++
			continue
		}
		if w.noJob {
			continue
		}
		for _, j := range names {
			if j.stem == w.stem || slices.Contains(w.rel, j.stem) || slices.Contains(j.rel, w.stem) || sameJobVerb(j.stem, w.stem) {
				n++
				break
			}
		}
	}
	return n
}
