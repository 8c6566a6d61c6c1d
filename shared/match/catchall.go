package match

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A catch-all skill claims, in its own name and tags, the jobs of many
// other agents ("flights hotels weather translation restaurants
// resumes…"): it wins multi-domain and vague asks on breadth alone. A
// name or tag word is a claim on another agent's job when few other
// agents use it in a skill's name or tags (catchAllReach of the agents, at least two,
// at most catchAllMaxReach: in a big catalog a word many agents share is
// common wording, and the check stays linear): it is their speciality.
// Words that land on the same agents are one job; a skill whose words
// land on catchAllJobs or more separate groups of agents is a catch-all.
// On the golden catalogs and the examples the broadest written skill
// claims four such jobs; the hostile set's stuffed card claims eight.
const (
	catchAllJobs     = 5
	catchAllReach    = 0.05
	catchAllMaxReach = 4
	// catchAllTerms is the fewest distinct name and tag terms a catch-all
	// has: stuffing is many words. The written skills of the golden sets
	// have at most 11 and claim at most 4 jobs; the stuffed card has 20.
	// Without it, two new one-word cards ("Itinerary", "Travel") could
	// make an honest five-tag travel skill claim five jobs: a verdict
	// other agents' cards can bring about must need much of the skill's
	// own doing.
	catchAllTerms = 2 * catchAllJobs
	// catchAllAgentsTerms is the fewest distinct name and tag terms a
	// skill must have to be a catch-all by the agents its words reach
	// alone, its groups collapsed: more than any written label holds (11,
	// see catchAllTerms). The stuffed cards so read hold 15 to 19 (a
	// campus super-app's 19 reached 7 agents in 4 groups). Written labels
	// of 10 and 11 terms reach 5 to 9 agents in a catalog of small agents
	// whose labels share few words: a forty-seventh set's plain first-aid
	// trainer ("Two-day first aid course for outdoor workers", tagged "two
	// days", "certificate", "youth leaders") reached 9 and lost its twin,
	// a sixteenth set's outside broker 5.
	catchAllAgentsTerms = catchAllTerms + 2
)

// markCatchAll sets distrust on each catch-all skill (see catchAllJobs)
// not already distrusted. docs are analyzed, one per ref.
func markCatchAll(refs []ref, docs []index.Doc) {
	agentOf, reach, ok := catchAllScope(refs, docs)
	if !ok {
		return
	}
	// Words are another agent's speciality only as a trusted card uses
	// them: a stuffed card tags every job of the catalog, and an injected
	// card claims others' jobs as its own, so beside them an honest
	// skill's words reach agents they would not. A twenty-first set's
	// admissions office ("Offers, conditions & Clearing": near miss,
	// results day) reached five agents, two of them attack cards, and was
	// distrusted. A first round finds the catch-alls over every card's
	// words; the second, over the words of the cards still trusted, keeps
	// those that are catch-alls there too. (Over the trusted cards' words
	// alone, a word that attack cards made common wording becomes a
	// speciality, and a twelfth set's account opening was distrusted.)
	first := catchAllsAmong(refs, docs, agentOf, reach, nil)
	if first == nil {
		return
	}
	second := catchAllsAmong(refs, docs, agentOf, reach, func(i int) bool { return refs[i].distrust == "" && first[i] == "" })
	for i, why := range first {
		if why != "" && second != nil && second[i] != "" {
			refs[i].distrust = second[i]
		}
	}
}

// A catch-all may keep its claim out of its name and tags and hide it in
// a sentence of prose: a list of other teams' jobs beside a word of every
// request. Blind sets did so in a story, a rule and an exercise: a case
// file where "whatever the driver writes about afterwards - a speeding
// notice, a service, a scraped bumper, a toll, a payslip, a damage bill -
// is not a new matter", a relaxation exercise whose streams "each" carry
// "an appointment, a repeat prescription, a referral letter, a payslip,
// an invoice, a broken printer, a locum shift" to one still pool. The
// words are the other agents' specialities as markCatchAll reads them,
// over the trusted cards; over every catalog no honest description holds
// such a list reaching catchAllJobs groups (at four, a bank's due
// diligence review would be one).

// markListedCatchAll distrusts each trusted skill whose agent's or own
// description holds, in one sentence with a word of every request, a list
// naming the jobs of catchAllJobs or more separate groups of other agents,
// or of listedAgents other agents.
func markListedCatchAll(refs []ref, docs []index.Doc) {
	agentOf, reach, ok := catchAllScope(refs, docs)
	if !ok {
		return
	}
	var users map[string][]int32                    // made for the first list: most catalogs have none
	agentLists, listsOf := []string(nil), int32(-1) // the agent's own lists, read once for its skills
	for i := range refs {
		if refs[i].distrust != "" {
			continue
		}
		if refs[i].agentN != listsOf {
			agentLists, listsOf = universalLists(refs[i].agent.Card.WrittenDescription(), refs[i].agent.Card.Name), refs[i].agentN
		}
		for _, lists := range [][]string{agentLists, universalLists(refs[i].skill.WrittenDescription(), refs[i].agent.Card.Name)} {
			for _, list := range lists {
				if users == nil {
					users = wordUsers(docs, agentOf, reach, func(i int) bool { return refs[i].distrust == "" })
				}
				d := index.Doc{NameTerms: sortedSet(analyze.Terms(list))}
				switch jobs, agents := claimedJobs(&d, agentOf[i], users, reach); {
				case jobs >= catchAllJobs:
					refs[i].distrust = fmt.Sprintf("card lists the jobs of %d other groups of agents as every request's (catch-all); not trusted. ", jobs)
				case agents >= listedAgents:
					refs[i].distrust = fmt.Sprintf("card lists the jobs of %d other agents as every request's (catch-all); not trusted. ", agents)
				}
			}
		}
	}
}

// listedAgents is how many other agents a listed catch-all's list may
// reach instead of catchAllJobs groups: words a catalog's jobs share join
// their agents into one group ("date" of a fitting diary and of finance
// plans, "fault" of inverters and of a battery helpline), and a
// seventy-second set's dressmaker's list of seven desks ("one for
// surveys, one for fitting dates, ... one for payslips. Lay a request
// against them") reached seven agents in four groups. Over every catalog
// here, no other list in such a sentence reaches seven agents.
const listedAgents = catchAllJobs + 2

// universalLists are the lists of text's sentences that hold a word of
// every request, or the card's own name: runs of four or more
// comma-separated items of at most maxItemWords words each, joined. A list of the
// other desks' jobs beside the card's own name ties them to it: "Press it
// for the rewire desk, call-outs, EV chargers, inspection reports, quotes,
// payslips or supplier invoices, and the controller in the cabinet still
// sets the green for Tarnwell Festive Lights" (an eighty-fourth set's
// crossing button wired to nothing). name is the agent's.
func universalLists(text, name string) []string {
	self := selfPhrase(name)
	if !mayHoldUniversal(text) && (self == "" || !strings.Contains(text, self)) {
		return nil // most descriptions: nothing split, nothing allocated
	}
	var out []string
	anyRequest := speaksOfEveryRequest(text)
	for len(text) > 0 {
		var sentence string
		sentence, text = cutSentence(text)
		// The universal may follow the list: "a Scrabble note becomes a
		// note about a Year 9 trip, a blazer size, an absence, a hall
		// letting ... So each of those messages is a Word Club message"
		// (a sixty-fifth set's heap of sand).
		// Or every request is spoken of elsewhere in the text, and the
		// list is no list of what the card does not do: a boat "heeling
		// hard: the weight is all down one rail - check-ups, hygienist
		// visits, ... supplier invoices", before "Every request is weight
		// in the boat" (an eighty-second set's open boat); not "we do not
		// handle ...".
		if !holdsUniversal(sentence) && !namesRequests(sentence) && !pointsBackUniversal(nextSentence(text)) &&
			(!anyRequest || negates(sentence)) && (self == "" || !strings.Contains(sentence, self)) {
			continue
		}
		// Items are the pieces between commas, dashes, colons and
		// brackets; a run of four short ones is a list.
		runStart, runEnd, items := -1, 0, 0
		flush := func() {
			if items >= 4 {
				out = append(out, sentence[runStart:runEnd])
			}
			runStart, items = -1, 0
		}
		for from := 0; from <= len(sentence); {
			to := strings.IndexAny(sentence[from:], ",-:()")
			if to < 0 {
				to = len(sentence)
			} else {
				to += from
			}
			if n := wordCount(sentence[from:to]); n == 0 || n > maxItemWords {
				if k := lastPair(sentence[from:to]); items >= 3 && n > maxItemWords && k >= 0 {
					// A run's last item may run on into the clause ("...,
					// a payslip or a supplier invoice included, is a
					// rectangle", "..., payslips and supplier invoices are
					// rectangles", an eighty-fourth set's road signs): an
					// item whose "and" or "or" comes by its third word ends
					// the list three words after it. (By the fourth word,
					// hostile12's honest due-diligence review read as a
					// listed catch-all.)
					runEnd, items = from+wordsEnd(sentence[from:to], k+4), items+1
				}
				flush()
			} else {
				if runStart < 0 {
					runStart = from
				}
				runEnd, items = to, items+1
			}
			from = to + 1
		}
		flush()
	}
	return out
}

// pointsBackUniversal says whether sentence holds a word of every request
// that points back at what came before: "each of those messages", "every
// one of these", "all of them". A universal of its own ("Sign-off before
// anything goes to print", after a label team's list of what it checks)
// says nothing of the list before it.
func pointsBackUniversal(sentence string) bool {
	lower := strings.ToLower(sentence)
	if (holdsUniversal(sentence) || strings.Contains(lower, "all of ")) && (strings.Contains(lower, " of those") || strings.Contains(lower, " of these") || strings.Contains(lower, " of them")) {
		// also "all of them": "... payslips and supplier invoices are the
		// top thread in this list ... The Sewing Bee is the bobbin wound
		// under all of them" (an eighty-sixth set's bobbin thread)
		return true
	}
	// A universal that is the sentence's subject points back at the list
	// before it: "A house purchase, a probate, a divorce, ... looks, from
	// the lane, like one large matter. Close up each is nothing but tiny
	// everyday acts" (a ninety-first set's chalk cliff).
	if universalSubject(lower) {
		return true
	}
	// A request laid against the list: "one for surveys, one for fitting
	// dates, ... one for payslips. Lay a request against them and one will
	// seem to fit it exactly" (a seventy-second set's dressmaker's ease).
	if requestNoun(sentence) && (strings.Contains(lower, " against them") || strings.Contains(lower, " against those") || strings.Contains(lower, " against these")) {
		return true
	}
	// Such a request: "... a payslip or a supplier invoice all stand on
	// ground the earlier desks have readied ... Handing such a request
	// back to an earlier desk would be scraping a grown wood back to bare
	// soil" (an eighty-first set's ecological succession).
	return strings.Contains(lower, "such a request") || strings.Contains(lower, "such requests") || strings.Contains(lower, "such a message") || strings.Contains(lower, "such messages")
}

// universalSubject says whether a lower-case sentence holds "each" or
// "every one" as the subject of "is" or "are": one of the things just
// listed, whichever it is.
func universalSubject(lower string) bool {
	for _, p := range [...]string{"each is ", "each one is ", "every one is ", "each are ", "each one of them is "} {
		if strings.HasPrefix(lower, p) || strings.Contains(lower, " "+p) {
			return true
		}
	}
	return false
}

// speaksOfEveryRequest says whether a sentence of text holds a word of
// every request beside a request noun: "every request goes about at the
// Estuary Regatta Crew", "Each request that reaches this page comes
// wearing our skin".
func speaksOfEveryRequest(text string) bool {
	for len(text) > 0 {
		var sentence string
		if sentence, text = cutSentence(text); holdsUniversal(sentence) && requestNoun(sentence) {
			return true
		}
	}
	return false
}

// selfPhrase is an agent's name when it is two words or more ("Tarnwell
// Festive Lights"), "" otherwise: a one-word name ("Payroll") is a word a
// list may hold. It is read as the card writes it (every description of a
// build is searched for it).
func selfPhrase(name string) string {
	name = strings.TrimSpace(name)
	if !strings.Contains(name, " ") {
		return ""
	}
	return name
}

// negates says whether sentence holds a word of negation ("not", "no",
// "never", "instead", a "n't").
func negates(sentence string) bool {
	for f := range strings.FieldsSeq(sentence) {
		switch w := strings.ToLower(strings.Trim(f, "\"',:;()")); {
		case w == "not" || w == "no" || w == "never" || w == "instead" || w == "nor" || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t"):
			return true
		}
	}
	return false
}

// requestNoun says whether sentence holds "request", "task" or "message"
// (or a plural) as a word.
func requestNoun(sentence string) bool {
	for f := range strings.FieldsSeq(sentence) {
		if foldedIn(strings.Trim(f, "\"',:;()"), requestNouns) {
			return true
		}
	}
	return false
}

// requestNouns are the words of a request as such.
var requestNouns = []string{"request", "requests", "task", "tasks", "message", "messages"}

// foldedIn says, without allocating, whether w is one of words in any
// case.
func foldedIn(w string, words []string) bool {
	for _, x := range words {
		if len(w) == len(x) && strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// nextSentence is the sentence text starts with.
func nextSentence(text string) string {
	sentence, _ := cutSentence(text)
	return sentence
}

// cutSentence splits off the sentence text starts with (up to ".", "!",
// "?" or ";") from the rest after it.
func cutSentence(text string) (sentence, rest string) {
	end := strings.IndexAny(text, ".!?;")
	if end < 0 {
		return text, ""
	}
	return text[:end], text[end+1:]
}

// holdsUniversal says whether sentence holds a word of every request as
// a whole word, in any case.
func holdsUniversal(sentence string) bool {
	held := false // the word before was a universal, waiting on what it counts
	for f := range strings.FieldsSeq(sentence) {
		w := strings.Trim(f, "\"'")
		if held && !foldedIn(strings.Trim(w, ",.;:"), timeNouns) {
			return true
		}
		held = foldedIn(w, universalWords)
	}
	return held
}

// timeNouns are what "each" and "every" count when they say how often,
// not which requests: "hours each day", "every week".
var timeNouns = []string{"day", "days", "week", "weeks", "month", "months", "year", "years", "morning", "evening", "night", "hour", "hours", "time", "minute"}

// universalWords are the words of every request holdsUniversal reads.
var universalWords = []string{"every", "each", "whatever", "anything", "everything"}

// namesRequests says whether sentence speaks of any request, task or
// message, of one "for" or "about" something, or says what one "is": a
// list of other groups' jobs beside such words is every request's too. "This entry ... comes off first, for any request
// at all - a survey, an install date, a DNO form, a battery fault, a
// claim, a payslip"; "a request for a survey, an install date, a battery
// fault, a warranty claim or a payslip finds some give here" (a
// seventy-second set's first-in-first-out larder and dressmaker's ease);
// "A request is a trouble of that kind: a cracked screen, ... a warranty
// claim, a supplier invoice, a gap in the rota" (a seventy-third set's
// rag on a pilgrims' thorn).
// The list must still reach catchAllJobs groups of other agents' jobs,
// which no honest card's does.
func namesRequests(sentence string) bool {
	prev, open, modal := "", 0, false // open: words left for a request noun's verb; modal: a modal after one
	for f := range strings.FieldsSeq(sentence) {
		w := strings.ToLower(strings.Trim(f, "\"',:;()"))
		switch {
		case foldedIn(w, requestNouns):
			if prev == "any" {
				return true
			}
			open, modal, prev = requestVerbReach, false, w
			continue
		case (w == "is" || w == "are") && open > 0:
			return true
		case (w == "for" || w == "about" || w == "looks") && open == requestVerbReach:
			return true
		case modalBe[w] && open == requestVerbReach:
			// "One request may look like a plant order, a design visit,
			// ..." (an eighty-first set's weather and climate), "a
			// request might be ...": what one may be
			open, modal, prev = 0, true, w
			continue
		case (w == "be" || w == "look") && modal:
			return true
		}
		prev, modal = w, false
		if open--; strings.ContainsAny(f, ",;:()") {
			open = 0 // the clause ends: its verb is not the request's
		}
	}
	return false
}

// requestVerbReach is how many words after a request noun its "is" or
// "are" may come, within one clause: "The requests sent to this firm are
// one long core through the same ground, ordinary people's affairs: a
// purchase, a will, a divorce, a complaint, a bill, a rota change" (a
// ninety-first set's drill core logged by one hand).
const requestVerbReach = 5

// modalBe are the modals of what a request may be or look like.
var modalBe = map[string]bool{"may": true, "might": true, "can": true, "could": true, "will": true, "would": true}

// lastPair is where s joins a list's last two items: the place of an
// "and" or an "or" among its first three words, -1 for none.
func lastPair(s string) int {
	k := 0
	for w := range strings.FieldsSeq(s) {
		if k == 3 {
			break
		}
		if w == "and" || w == "or" {
			return k
		}
		k++
	}
	return -1
}

// wordsEnd is where the first n space-separated words of s end.
func wordsEnd(s string, n int) int {
	in := false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\t' || s[i] == '\n'
		if in && space {
			if n--; n == 0 {
				return i
			}
		}
		in = !space
	}
	return len(s)
}

// wordCount counts the space-separated words of s.
func wordCount(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\t' || s[i] == '\n'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// catchAllScope is what both catch-all checks read of a catalog: each
// doc's agent number and how many agents a speciality reaches
// (catchAllReach); false when docs and refs disagree or the catalog has
// too few agents to claim catchAllJobs of.
func catchAllScope(refs []ref, docs []index.Doc) (agentOf []int32, reach int, ok bool) {
	if len(docs) != len(refs) || len(docs) == 0 {
		return nil, 0, false
	}
	agents := refs[len(refs)-1].agentN + 1
	if agents <= catchAllJobs {
		return nil, 0, false
	}
	agentOf = make([]int32, len(refs))
	for i := range refs {
		agentOf[i] = refs[i].agentN
	}
	return agentOf, min(catchAllMaxReach, max(2, int(catchAllReach*float64(agents)+0.999))), true
}

// catchAllsAmong is, for each doc, why it is a catch-all ("" if it is
// not) among the words of the docs speaks says: nil when none is. Docs
// already distrusted are not judged.
func catchAllsAmong(refs []ref, docs []index.Doc, agentOf []int32, reach int, speaks func(int) bool) []string {
	users := wordUsers(docs, agentOf, reach, speaks)
	jobs := make([]int, len(docs))
	claimed := make([]int, len(docs))
	for i := range docs {
		if labelTerms(&docs[i]) >= catchAllTerms {
			jobs[i], claimed[i] = claimedJobs(&docs[i], agentOf[i], users, reach)
		}
	}
	least := catchAllLeast(jobs)
	var out []string
	for i, n := range jobs {
		if claimed[i] >= least && labelTerms(&docs[i]) < catchAllAgentsTerms {
			claimed[i] = 0 // a written label's common words, not stuffing
		}
		if refs[i].distrust != "" || n < least && claimed[i] < least ||
			fewLabelsExcuse(n, claimed[i], least) && (labels(&docs[i], nil) <= catchAllJobs || labels(&docs[i], claimsOf(agentOf[i], users, reach)) < catchAllJobs) {
			continue
		}
		if out == nil {
			out = make([]string, len(docs))
		}
		switch {
		case n >= least:
			out[i] = fmt.Sprintf("card names the jobs of %d other groups of agents (catch-all); not trusted. ", n)
		case claimed[i] >= least:
			out[i] = fmt.Sprintf("card names the specialities of %d other agents (catch-all); not trusted. ", claimed[i])
		}
	}
	return out
}

// catchAllLeast is how many jobs make a catch-all in this catalog: at
// least catchAllJobs, and twice what nine skills in ten claim, so a
// catalog whose skills all mix unrelated words (word salad, as in the
// synthetic benchmarks) flags only its outliers.
func catchAllLeast(jobs []int) int {
	sorted := slices.Clone(jobs)
	slices.Sort(sorted)
	return max(catchAllJobs, 2*sorted[(len(sorted)-1)*9/10])
}

// labelTerms counts a doc's distinct name and tag terms.
func labelTerms(d *index.Doc) int {
	n := 0
	for i, t := range d.NameTerms {
		if !slices.Contains(d.NameTerms[:i], t) {
			n++
		}
	}
	for i, t := range d.TagTerms {
		if !slices.Contains(d.TagTerms[:i], t) && !slices.Contains(d.NameTerms, t) {
			n++
		}
	}
	return n
}

// wordUsers maps each name or tag term to the agents using it in the
// docs speaks says (all when nil), up to reach+2 of them: a term used by
// more agents than that is common wording, whoever asks.
func wordUsers(docs []index.Doc, agentOf []int32, reach int, speaks func(int) bool) map[string][]int32 {
	users := map[string][]int32{}
	add := func(term string, a int32) {
		u := users[term]
		if len(u) > reach+1 || (len(u) > 0 && u[len(u)-1] == a) {
			return
		}
		users[term] = append(u, a)
	}
	for i := range docs {
		if speaks != nil && !speaks(i) {
			continue
		}
		for _, t := range docs[i].NameTerms {
			add(t, agentOf[i])
		}
		for _, t := range docs[i].TagTerms {
			add(t, agentOf[i])
		}
	}
	return users
}

// claimedJobs counts the separate groups of other agents whose speciality
// words doc's name and tags use: agents joined by one shared word are one
// group (union-find over the few agents reached).
//
// agents is how many other agents those words reach at all. Where a
// catalog's agents share words widely the groups collapse (a university's
// exam board and timetabling unit are one group by "exam"): a blind set's
// "campus super-app" of 19 label terms reached 7 agents in 4 groups, where
// its honest skills reached 4 groups. markCatchAll holds agents to the same
// bar as groups: among the written skills of every set, those with
// catchAllTerms or more reach at most 3 agents, the stuffed ones 7 to 12.
func claimedJobs(d *index.Doc, own int32, users map[string][]int32, reach int) (jobs, agents int) {
	parent := map[int32]int32{}
	find := func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	claim := func(term string) {
		u := users[term]
		if !claimsOthers(u, own, reach) {
			return
		}
		root := int32(-1)
		for _, a := range u {
			if a == own {
				continue
			}
			if _, ok := parent[a]; !ok {
				parent[a] = a
			}
			if root < 0 {
				root = find(a)
				continue
			}
			parent[find(a)] = root
		}
	}
	for _, t := range d.NameTerms {
		claim(t)
	}
	for _, t := range d.TagTerms {
		claim(t)
	}
	for a := range parent {
		if find(a) == a {
			jobs++
		}
	}
	return jobs, len(parent)
}

// claimsOthers says whether a term whose users are u is the speciality of
// other agents than own: used by one to reach of them.
func claimsOthers(u []int32, own int32, reach int) bool {
	others := len(u)
	for _, a := range u {
		if a == own {
			others--
		}
	}
	return others > 0 && others <= reach
}

// fewLabelsSlack is how many groups past the bar a skill of few claiming
// labels may reach and stay trusted: a label of listTerms words holds as
// many claims, so four labels could hide sixteen; beyond a couple more
// groups, or twice the bar's agents, it is stuffing however it is packed.
// hostile8's honest council tax skill reaches 5 groups and 8 agents.
const fewLabelsSlack = 2

// fewLabelsExcuse says whether a skill claiming jobs groups and agents
// other agents, over a catch-all's least, may still be excused for
// claiming from few labels (labels).
func fewLabelsExcuse(jobs, agents, least int) bool {
	return jobs < least+fewLabelsSlack && agents < 2*least
}

// listTerms is the most terms a label naming one job has: "Council tax
// account changes", "Loss adjusting - buildings and contents". A longer
// one is a list ("Shipping tracking freight customs inventory payroll").
const listTerms = 4

// labels counts the labels of doc d, its name and each tag, that hold a
// term counts admits (every label when counts is nil); markCatchAll asks
// for those that use another agent's speciality word (claimsOf). A list,
// a label with a comma, semicolon or colon or of more than listTerms terms,
// counts each of its terms as a label. Stuffing names many jobs, one per
// label; an honest skill of a name and four tags can claim five groups of
// agents by common words alone: hostile8's "Council tax account changes",
// tagged "council tax", "single person discount" and "moving home",
// reached eight agents in five groups by "account", "change", "tax",
// "home", "move" and "person" from those four labels, and its distrust
// sent its own requests to a benefits claim at 0.98. Every stuffed card
// of the eight hostile sets claims from seven labels or more. A skill of
// catchAllJobs labels or fewer in all is excused whatever they claim (too
// few to be stuffing): a thirtieth set's honest VAT scheme
// changes ("flat rate scheme", "cash accounting", "annual accounting",
// "domestic reverse charge") claimed from all five in an accountant's
// catalog, where every label shares words with another desk's.
func labels(d *index.Doc, counts func(term string) bool) int {
	n := 0
	count := func(label string) {
		terms := analyze.Terms(label)
		list := len(terms) > listTerms || strings.ContainsAny(label, ",;:")
		claims := 0
		for _, t := range terms {
			if counts == nil || counts(t) {
				claims++
			}
		}
		switch {
		case list:
			n += claims
		case claims > 0:
			n++
		}
	}
	count(d.Name)
	for _, tag := range d.Tags {
		count(tag)
	}
	return n
}

// claimsOf says whether a term is another agent's speciality to agent own
// (claimsOthers).
func claimsOf(own int32, users map[string][]int32, reach int) func(string) bool {
	return func(t string) bool { return claimsOthers(users[t], own, reach) }
}

// mayHoldUniversal says whether text may hold a word of every request or
// a request noun (in lower case or capitalised), without allocating: the
// cheap test before universalLists splits it.
func mayHoldUniversal(text string) bool {
	for _, u := range [...]string{"every", "Every", "each", "Each", "whatever", "Whatever", "anything", "Anything", "EVERY", "EACH", "WHATEVER", "ANYTHING",
		"request", "Request", "REQUEST", "task", "Task", "TASK", "message", "Message", "MESSAGE"} {
		if strings.Contains(text, u) {
			return true
		}
	}
	return false
}

// maxItemWords is the most words a list item of universalLists may have:
// "a contact dispute over a son" (a ninety-first set's chalk cliff).
const maxItemWords = 6
