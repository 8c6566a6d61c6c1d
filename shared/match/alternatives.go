package match

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// maxJobGroup bounds the skills that may share one tag set or one name
// for them to count as doing one job: hundreds of skills tagged alike say
// nothing about which of them do the same work.
const maxJobGroup = 64

// alternativesOf lists, for each skill, the skills of other agents with the
// very same tags or the very same name (as term sets) that the caller must
// choose between rather than the matcher: another agent's data handling
// (clearance, internal or external), or the same agent name (one card
// copies the other). A request may name words that only one of the two
// uses ("how do you say good morning in Swedish" against "Secure document
// translation"), so the other need not be shortlisted at all; the decider
// must still ask. Looser look-alikes (half the tags, name or description
// words shared) are looked for among the shortlisted skills only (see
// markLookAlikes): searching the whole catalog for them cost a third of a
// 10,000-skill index build.
//
// Catalogs with one data handling and no two agents of one name (every
// golden set, most real ones) have none, and nothing is computed;
// otherwise one pass groups the skills by a hash of their tag set and of
// their name's term set. kinds, nil for a catalog of the first kind, says
// for the other kind how each skill's agent handles data and is named,
// which tells twins from alternatives (see Matcher.alikeKind).
func alternativesOf(refs []ref, docs []index.Doc) (alts map[int][]int, kinds *agentKinds) {
	if len(docs) != len(refs) {
		return nil, nil
	}
	// Per doc: its data-handling class and name class (its agent's number
	// is ref.agentN).
	class, name := make([]int32, len(refs)), make([]int32, len(refs))
	classes, names := map[catalog.Status]int32{}, map[string]int32{}
	dupName, inHouse := false, false
	var c, nm int32
	for i := range refs {
		a := refs[i].agent
		if i == 0 || refs[i].agentN != refs[i-1].agentN {
			inHouse = inHouse || !a.Status.External
			hk := catalog.Status{Clearance: a.Status.Clearance, External: a.Status.External}
			var ok bool
			if c, ok = classes[hk]; !ok {
				c = int32(len(classes))
				classes[hk] = c
			}
			// An unnamed agent shares its name with no other.
			nk := strings.Join(analyze.Words(a.Card.Name), " ")
			nm, ok = names[nk]
			switch {
			case ok && nk != "":
				dupName = true
			default:
				nm = int32(len(names))
				names[nk] = nm
			}
		}
		class[i], name[i] = c, nm
	}
	if len(classes) < 2 && !dupName {
		return nil, nil
	}
	kinds = &agentKinds{class: class, name: name, inHouse: inHouse}
	fields := [2]func(*index.Doc) []string{
		func(d *index.Doc) []string { return d.TagTerms },
		func(d *index.Doc) []string { return d.NameTerms },
	}
	var out map[int][]int
	for _, terms := range fields {
		for _, g := range termGroups(len(docs), func(d int) []string { return terms(&docs[d]) }, nil) {
			if len(g) < 2 || len(g) > maxJobGroup {
				continue
			}
			for _, i := range g {
				for _, j := range g {
					if refs[i].agentN == refs[j].agentN || (class[i] == class[j] && name[i] != name[j]) {
						continue // the same agent, or twins at most
					}
					if slices.Contains(out[i], j) {
						continue // found by the other field
					}
					if out == nil {
						out = map[int][]int{}
					}
					out[i] = append(out[i], j)
				}
			}
		}
	}
	for i := range out {
		slices.Sort(out[i])
	}
	return out, kinds
}

// agentKinds numbers, per doc, its agent's data handling (clearance,
// internal or external) and its agent's name (case, spacing and
// punctuation aside). inHouse says the catalog lists agents of its own
// beside outside ones: only then is an external agent an outside
// supplier (see nearestVendors).
type agentKinds struct {
	class, name []int32
	inHouse     bool
}

// termGroups groups docs 0..n-1 by their terms (as terms gives them):
// each group holds the docs whose non-empty term lists are the very same,
// in doc order. keep, when not nil, leaves docs out. One hash per doc; a
// hash collision is told apart by comparing the lists.
func termGroups(n int, terms func(d int) []string, keep func(d int) bool) [][]int {
	buckets := map[uint64][]int{} // hash → indexes into groups
	var groups [][]int
	for d := range n {
		t := terms(d)
		if len(t) == 0 || keep != nil && !keep(d) {
			continue
		}
		h := hashTerms(t)
		k := slices.IndexFunc(buckets[h], func(g int) bool { return slices.Equal(terms(groups[g][0]), t) })
		if k < 0 {
			buckets[h] = append(buckets[h], len(groups))
			groups = append(groups, []int{d})
			continue
		}
		g := buckets[h][k]
		groups[g] = append(groups[g], d)
	}
	return groups
}

// hashTerms is the FNV-1a hash of a term list, terms separated by a 0.
func hashTerms(terms []string) uint64 {
	h := uint64(14695981039346656037)
	for _, t := range terms {
		for i := 0; i < len(t); i++ {
			h = (h ^ uint64(t[i])) * 1099511628211
		}
		h *= 1099511628211 // the separator, byte 0: h ^ 0 is h
	}
	return h
}

// addAlternatives appends to a ranking whose best candidate has an
// alternative the caller must choose (see alternativesOf), but none in the
// shortlist, the first such skill the hard filters let take this task: at
// probability 0, for the decider to name beside the best one, never to
// delegate to. A card that orders the matcher about is never offered.
func (m *Matcher) addAlternatives(req *extract.Requirement, out []Ranked) []Ranked {
	if len(out) == 0 || m.kinds == nil {
		return out
	}
	top := out[0]
	alts := m.alts[top.Doc]
	if d := m.counterpartAcross(top.Doc); d >= 0 && !slices.Contains(alts, d) {
		// Its counterpart under other handling in words apart.
		alts = append(slices.Clip(alts), d)
	}
	if len(alts) == 0 || top.Prob == 0 {
		return out
	}
	for _, r := range out[1:] {
		if r.AlikeOf == top.Entry.Key && (r.Alike == decide.AlikeDiffers || r.Alike == decide.AlikeImpostor || r.Alike == decide.AlikeCopy) {
			return out
		}
	}
	for _, d := range alts {
		if m.refs[d].distrust != "" || slices.ContainsFunc(out, func(r Ranked) bool { return r.Doc == d }) {
			continue
		}
		if r, ok := m.offShortlist(req, top, d, "under other data handling or the same agent name", m.alikeKind(top.Doc, d)); ok {
			return append(out, r)
		}
	}
	return out
}

// offShortlist is skill doc d, kept off the shortlist by the request's
// words, as a look-alike of the best candidate top (alike, its job done
// "...'s job <how>"), at probability 0, when the hard filters let it take
// the task; not ok when they do not.
func (m *Matcher) offShortlist(req *extract.Requirement, top Ranked, d int, how string, alike decide.Alike) (Ranked, bool) {
	v := filter.Check(req, m.refs[d].agent, m.refs[d].skill, m.cfg.filters...)
	if !v.OK {
		return Ranked{}, false
	}
	return Ranked{
		Demoted: v.Demoted,
		Scored: rerank.Scored{
			Candidate: index.Candidate{Doc: d, Entry: m.idx.Doc(d), BestExample: -1},
			Reason:    "not shortlisted; does " + top.Entry.Key + "'s job " + how,
		},
		AlikeOf: top.Entry.Key, Alike: alike,
	}, true
}

// referents are the words that point at something without naming it: the
// closed class of pronouns and placeholder nouns ("fix it", "help me with
// this", "do the thing we talked about", "handle the usual", "they're
// back", which went to mole catchers at 0.98), and the
// nouns of a trouble reported but not named ("we've got a problem with an
// order" went to a chargeback dispute at 0.96 on its example's "got" and
// "order"), and of the state of a thing not named ("what's the status?"
// went to a status letter at 0.83 on its name's word; "any update?" to
// a change of contact details at 1.00), and of an earlier request or
// trouble come back ("same as last time, please" to annual leave at
// 0.90 and 0.71 in two sets written blind; "it's happened again",
// "still waiting" to job status at 0.97; "what happens next?" to an
// activities programme at 0.93), and of a file sent without a
// word of what to do with it ("could you take a look at the attached?"
// went to a site inspection at 0.81: a PDF many agents take says
// nothing of the job).
var referents = map[string]bool{
	"it": true, "this": true, "that": true, "these": true, "those": true, "them": true, "they": true,
	"something": true, "anything": true, "everything": true, "whatever": true,
	"thing": true, "stuff": true, "usual": true,
	"problem": true, "problems": true, "issue": true, "issues": true, "trouble": true, "mess": true, "wrong": true,
	"status": true, "progress": true, "update": true, "updates": true,
	"same": true, "again": true, "happened": true, "happening": true, "happens": true, "waiting": true,
	"attached": true, "attachment": true, "enclosed": true,
}

// recalls place a request in time or in an earlier conversation without
// saying what it asks: "fix the problem we discussed", "prepare
// everything for tomorrow" (delegated to a code review at 0.99 and to a
// weather forecast at 0.81 on a word of their examples), "same as last
// time" (recalled), "it's still not right" (to piano removals at 0.81),
// "call me back when they get a minute" (to a first-aid course at 0.71),
// "following up on my earlier message" (to gift cards at 0.93). A weekend
// is a time as a weekday is, and "yet" a time as "still" is ("is it
// ready yet?" went to sign fitting at 0.71).
// Like asking words they are no content of a thin request and name no
// skill's job.
var recalls = map[string]bool{
	"discussed": true, "mentioned": true, "talked": true, "agreed": true,
	"today": true, "tomorrow": true, "tonight": true, "yesterday": true, "now": true, "later": true, "soon": true,
	"last": true, "still": true, "yet": true, "minute": true, "moment": true, "earlier": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true, "weekend": true,
}

// ordinals count the times a thing has happened ("the third time").
var ordinals = map[string]bool{"first": true, "second": true, "third": true, "fourth": true, "fifth": true}

// earlierTalk recalls an earlier conversation, and so points at what it
// settled: "not what we agreed" went to guest complaints at 0.91,
// "follow up on what we discussed".
var earlierTalk = map[string]bool{"discussed": true, "mentioned": true, "talked": true, "agreed": true}

// recalled says whether words[i] is a recall, or the time a "last"
// before it recalls: "same as last time", "what we sent last week", or a
// part of a recalled day.
func recalled(words []string, i int) bool {
	if recalls[words[i]] {
		return true
	}
	switch words[i] {
	case "this": // "this afternoon" is a time, not a thing pointed at
		return i+1 < len(words) && (words[i+1] == "week" || words[i+1] == "weekend" || words[i+1] == "month" || words[i+1] == "year" || dayParts[words[i+1]])
	case "time", "week", "month", "year":
		return i > 0 && (words[i-1] == "last" || words[i] == "time" && ordinals[words[i-1]])
	case "first", "second", "third", "fourth", "fifth": // ordinals
		// "this is the second time this has happened" recalls the times before
		return i+1 < len(words) && words[i+1] == "time"
	case "morning", "afternoon", "evening", "night": // dayParts
		// "got this through the door this morning", "on Monday morning"
		return i > 0 && (words[i-1] == "this" || recalls[words[i-1]])
	}
	return false
}

var dayParts = map[string]bool{"morning": true, "afternoon": true, "evening": true, "night": true}

// asking words say that something is wanted, never what: the closed class
// of verbs of needing, helping and getting done ("I need help with a work
// thing", "can you take care of it", "get this done asap", "we've got a
// problem", "please action ASAP": to action is office English for to
// do). "want" is not one: "I want that last line read out again" is
// a request to repeat. "go" is one ("make it go through"), even where a
// card terminal sold as "Go" is tagged with it: a blind set's flood card
// took that request at 0.81. They are not stopwords (BM25 and the vectors
// keep them), but they are no content of a thin request, and name no
// skill's job. Nor do the pronouns that ask anyone at all to do it ("can
// someone look into it").
var asking = map[string]bool{
	"need": true, "needs": true, "help": true, "get": true, "got": true, "make": true, "go": true,
	"done": true, "handle": true, "deal": true, "sort": true, "take": true, "care": true, "asap": true,
	"someone": true, "somebody": true, "anyone": true, "anybody": true,
	"ideas": true, "look": true, "chance": true, "needful": true, "action": true, "actioned": true,
	"supposed": true, "urgent": true, "urgently": true,
}

// askNouns name an ask without saying what it is about: "I have a
// question" went to a payslip query at 0.83-0.89 on two blind sets and to
// a quote query at 0.98 on a third, "I'd like some information" to
// systems access at 0.82.
var askNouns = map[string]bool{
	"question": true, "questions": true, "query": true, "queries": true, "enquiry": true, "enquiries": true,
	"inquiry": true, "inquiries": true, "advice": true, "information": true, "info": true,
}

// attendVerbs ask for something to be looked at or put right, never say
// what: "can you check something for me" went to a drain camera check, an
// artwork check and three more skills labelled with the verb (0.71-0.95)
// when every blind catalog was asked it, "please fix it asap" to a redo
// request at 0.98. A request that names the thing ("check the drains")
// is no thin request.
var attendVerbs = map[string]bool{"check": true, "fix": true}

// asksFor says whether words[i] asks without naming what: an asking word,
// an ask noun, a verb of attending to something, or the "like" of "I'd
// like", "would like".
func asksFor(words []string, i int) bool {
	switch w := words[i]; {
	case asking[w] || askNouns[w] || attendVerbs[w]:
		return true
	case w == "like" && i > 0:
		switch words[i-1] {
		case "would", "i", "we", "you": // analyze.Words reads "I'd" as "i"
			return true
		}
	}
	return false
}

// saysAll says whether skill d's name or one of its examples holds every
// one of words: the request in the skill's own words.
func saysAll(words []string, d *index.Doc) bool {
	for _, text := range append([]string{d.Name}, d.Examples...) {
		said := analyze.Words(text)
		if !slices.ContainsFunc(words, func(w string) bool { return !slices.Contains(said, w) }) {
			return true
		}
	}
	return false
}

// arranging words name an arrangement, or an act on one, without saying
// what is arranged: "please cancel Thursday for us", "cancel our booking
// for Saturday", written blind as ambiguous in a dozen sets, went to a
// holiday cancellation at 0.99 and to annual leave at 0.80-0.83 (its
// examples book and cancel days). Like asking words they are no content
// of a thin request and name no skill's job: a catalog's many bookable
// things share them. To change is such an act: "I need it changed before
// the weekend" went to a kennel's extend-or-shorten-a-stay at 0.79 on its
// tag's "change".
var arranging = map[string]bool{
	"cancel": true, "booking": true, "bookings": true, "appointment": true, "appointments": true,
	"reservation": true, "reservations": true, "reschedule": true, "rebook": true,
	"change": true, "changed": true, "changes": true, "changing": true,
}

// judged says whether words[i] is the adjective of a "too" or the "right"
// of a "not", or a verb reporting someone's word for it (reportsSpeech):
// "is it too late?" judges a thing not named, and went to a pupil-absence
// desk whose tag is "late" at 0.76; "The lads say it's not right. Can you
// have a look?" went to a complaints desk at 0.92, its description
// putting things right. Across every labelled set these readings lower
// the best guess of nine requests no skill takes ("Something's not right
// with my account", "It's still not right"), and no other task's.
func judged(words []string, i int) bool {
	if i == 0 {
		return false
	}
	switch words[i-1] {
	case "too":
		return true
	case "not", "t": // "it's not right", "it isn't right"
		return words[i] == "right"
	}
	return reportsSpeech(words, i)
}

// reportsSpeech says whether words[i] is a verb that reports what someone
// else said or thinks ("the lads say it's not right", "my manager
// reckons it's wrong"): it names no job. A question of saying ("how do
// you say it in French") is not one: its subject is the one asked.
func reportsSpeech(words []string, i int) bool {
	switch words[i] {
	case "say", "says", "said", "reckon", "reckons", "reckoned":
	default:
		return false
	}
	if i+1 == len(words) {
		return false
	}
	switch words[i+1] {
	case "it", "its", "that", "there", "the", "we", "they", "he", "she", "this":
	default:
		return false
	}
	switch words[i-1] {
	case "you", "to", "do", "does", "did", "how", "i", "would", "d", "can", "could":
		return false
	}
	return true
}

// greetings open a request and say nothing of it: "hello? is anyone
// there" went to a change of collector at 0.94 on the vectors of "hello"
// and "anyone". A thin request of greetings names only a skill that says
// it greets (namesJob).
var greetings = map[string]bool{"hello": true, "hi": true, "hey": true, "hiya": true, "howdy": true}

// contactVerbs ask for a reply before "me back" or "us back" ("can
// someone ring me back about it?", to a shop return at 0.84), and so ask,
// naming nothing but the reply; a skill whose label is a call back is
// still named by them.
var contactVerbs = map[string]bool{"ring": true, "call": true, "phone": true, "email": true, "text": true, "contact": true}

// contactAsk says whether words[i] is a contact verb asking for a reply:
// "ring me back" ("what do you want to call me" asks a name).
func contactAsk(words []string, i int) bool {
	return contactVerbs[words[i]] && i+1 < len(words) && (words[i+1] == "me" || words[i+1] == "us") &&
		(i+2 < len(words) && words[i+2] == "back" || callsOnly(words, i))
}

// callsOnly says whether the contact verb at words[i] ends the request
// but for a time or a please ("it's urgent, call me", "ring us asap"):
// a call asked for, with no job beside it; "call me a taxi" names one.
// Unlike a call back, it names no call-back skill either (namesJob): "it's
// urgent, call me" went to on-call rotas and eight other skills in a probe
// of every blind catalog.
func callsOnly(words []string, i int) bool {
	if i > 0 && words[i-1] == "to" {
		return false // "what do you want to call me" asks a name
	}
	for _, w := range words[i+2:] {
		if !asking[w] && !recalls[w] && w != "please" {
			return false
		}
	}
	return true
}

// followUp says whether words[i] is "follow" (any form) before "up": a
// request that follows up an earlier one points at it ("following up on
// my email from Monday" went to annual leave at 0.74).
func followUp(words []string, i int) bool {
	switch words[i] {
	case "follow", "following", "followed", "follows":
		return i+1 < len(words) && words[i+1] == "up"
	}
	return false
}

// askingParticle says whether words[i] is the particle of an asking verb
// before it ("get back to me", "sort it out"), or the "know" of "let me
// know": no more content than the verb. "please look into it and get back
// to me" went to a refund at 0.82 on "back" ("money back" is its tag),
// "just have a look and let me know" to dog sitters at 0.92.
func askingParticle(words []string, i int) bool {
	if words[i] == "know" && i >= 2 && words[i-2] == "let" && (words[i-1] == "me" || words[i-1] == "us") {
		return true // "let me know": asks for an answer, names none ("I don't know" is no ask)
	}
	if i > 0 && contactAsk(words, i-1) {
		return true // the "us" of "call us back"
	}
	if !particles[words[i]] {
		return false
	}
	for j := i - 1; j >= max(0, i-2); j-- { // the verb, or the verb and its object ("sort it out")
		if asking[words[j]] || contactAsk(words, j) {
			return true
		}
	}
	return false
}

// markUnnamed marks the candidates Unnamed when the request is thin — it
// points at something ("it", "this", "the attached") that no earlier turn
// supplies, nor a file only one agent takes, and beside that holds at
// most one content word (asking words are none), or it only asks, with no
// content word at all ("I need help" went to a tenancy support referral
// at 0.71), or it names, points at and asks nothing ("what should I do?";
// such a request is a skill's only in the skill's own words, as a small
// talk skill's example "where are you from") — and none of its words is
// part of the candidate's stated job (its name, tags or description).
// "repeat that" names a repeat skill's job; "fix it" says nothing of a
// pull-request review's, though a review example mentions a fix. A thin request can be right for a skill only through the words
// that define the skill. Every candidate is marked, not only the best:
// success priors may reorder near-ties before the decider reads them.
//
// A marked candidate's probability is scaled by unnamedShrink too: the
// decider abstains on it whatever its score, and the probability it
// reports must say how often such a pick is right. The ranker scored
// the one word it had ("fix it" put a code review at 1.00). As with a
// thin link, the order stays.
func markUnnamed(req *extract.Requirement, out []Ranked) {
	if len(out) == 0 || req == nil || len(req.History) > 0 || len(req.InputTypes) > 0 && allOneAgent(out) {
		return
	}
	words := analyze.Words(req.Need)
	pointers, its, content, asks := 0, 0, 0, 0
	for i, w := range words {
		switch roleOf(words, i) {
		case rolePointer:
			pointers++
			if w == "it" {
				its++
			}
		case roleAsk:
			asks++
		case roleContent:
			content++
		}
	}
	// A request that points at something and names only whom or where it
	// is for names no job. Without a pointer a capital may be the
	// writer's ("I need a Dermatologist in Hercules"), and "it" may point
	// at nothing: "will it rain in Paris tomorrow" asks about Paris.
	if pointers > its && content > 1 {
		if names := properNames(req.Need); names != nil {
			for i, w := range words {
				if names[w] && roleOf(words, i) == roleContent {
					content--
				}
			}
		}
	}
	// An act on an arrangement beside only whom, when or where it is for
	// names no bookable thing either ("Please cancel Thursday for my
	// mum", "Cancel Thursday's booking for Tern, please", each delegated
	// to a catalog's one bookable thing of many at 0.70-0.81), but
	// for a skill whose label is that act ("Cancel an appointment":
	// "cancel Mrs Dunn's 2pm"; "Reserve a restaurant": "I want to make a
	// reservation at the Sparrow Bar").
	actsOnly := pointers == 0 && content > 0 && slices.ContainsFunc(words, func(w string) bool { return arranging[w] })
	if actsOnly {
		names := properNames(req.Need)
		for i, w := range words {
			if roleOf(words, i) == roleContent && (names[w] || whomFor[w] || w[0] >= '0' && w[0] <= '9') {
				content--
			}
		}
	}
	// A request of no content word that neither points nor asks ("what
	// should I do?", "hi what's up") names a skill only in its own words:
	// a small-talk skill's example "where are you from". Five blind sets'
	// "what do I do now?" were abstained on for low scores alone, and
	// clinc150's "hi what's up" went to translation at 0.95.
	bare := pointers == 0 && content == 0 && asks == 0
	if !bare && ((pointers == 0 && (content > 0 || asks == 0)) || content > 1) {
		return
	}
	var note []string
	for i := range out {
		out[i].Unnamed = !namesJob(words, out[i].Entry) && !(actsOnly && labelsArrangement(words, out[i].Entry)) &&
			!(bare && saysAll(words, out[i].Entry))
		if out[i].Unnamed {
			if note == nil {
				note = make([]string, len(out))
			}
			note[i] = "the request names no job of this skill. "
		}
	}
	if note != nil {
		shrinkMarked(out, note, unnamedShrink)
	}
}

// whomFor are the words that say whom an arrangement is for, as a name
// would: kin and titles.
var whomFor = map[string]bool{
	"mum": true, "mom": true, "dad": true, "mother": true, "father": true, "son": true, "daughter": true,
	"wife": true, "husband": true, "partner": true, "nan": true, "gran": true, "grandma": true, "grandad": true,
	"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true,
}

// labelsArrangement says whether skill d's name or tags hold every
// arranging word of the request: the act is the skill's job.
func labelsArrangement(words []string, d *index.Doc) bool {
	for _, w := range words {
		if arranging[w] && !labelled(d, analyze.Stem(w)) {
			return false
		}
	}
	return true
}

// wordRole is what a word of a request does in it, as markUnnamed counts.
type wordRole uint8

const (
	roleNone    wordRole = iota // a stopword, a time, a particle or a greeting
	rolePointer                 // points at something: "it", "the usual", "following up"
	roleAsk                     // asks, naming nothing: "need", "call me back"
	roleContent                 // says what the request is about
)

// routeNouns are what a request asks the right or the wrong one of when
// it asks where to go, not what to do: "is this the right place for
// it?" went to IT faults at 0.70 (a seventieth set, written blind);
// "who's the right person to talk to about this?".
var routeNouns = map[string]bool{"place": true, "person": true, "people": true, "team": true, "desk": true, "department": true}

// asksRoute says whether words[i] is part of "right place", "wrong desk"
// and the like, or of "talk to" or "speak with": a question of routing, no
// content ("Who do I need to talk to about this?" went to a library's
// events, tagged "author talks", at 0.74).
func asksRoute(words []string, i int) bool {
	switch w := words[i]; {
	case w == "talk" || w == "speak" || w == "talking" || w == "speaking":
		return i+1 < len(words) && (words[i+1] == "to" || words[i+1] == "with")
	case w == "right" || w == "wrong":
		return i+1 < len(words) && routeNouns[words[i+1]]
	case routeNouns[w]:
		return i > 0 && (words[i-1] == "right" || words[i-1] == "wrong")
	}
	return false
}

// roleOf is words[i]'s role.
func roleOf(words []string, i int) wordRole {
	w := words[i]
	switch {
	case asksRoute(words, i) || judged(words, i):
		return roleNone
	case referents[w] && !recalled(words, i) || earlierTalk[w] || followUp(words, i):
		return rolePointer
	case asksFor(words, i) || arranging[w] || contactAsk(words, i):
		return roleAsk
	case !analyze.IsStopword(w) && w != "us" && !recalled(words, i) && !askingParticle(words, i) && !greetings[w]:
		return roleContent
	}
	return roleNone
}

// namesJob says whether one of the words (other than a pointer or an
// asking word: "I need help with a work thing" does not name a "Quick
// help" skill's job) is one of the skill's tags or a term of its name or
// tags: its label. A description says how the job is done as well as
// what it is, in common verbs ("fix or replace", "suggests fixes"), and
// "just fix everything" was delegated on them, to an equipment-fault
// report at 0.92 and to a code review at 0.99.
func namesJob(words []string, d *index.Doc) bool {
	for i, w := range words {
		if referents[w] || asksFor(words, i) || arranging[w] || contactAsk(words, i) && callsOnly(words, i) || recalled(words, i) || askingParticle(words, i) || followUp(words, i) || asksRoute(words, i) || judged(words, i) {
			continue
		}
		if greetings[w] && has(d.DescTerms, analyze.Stem(w)) {
			return true
		}
		if slices.ContainsFunc(d.Tags, func(t string) bool { return strings.EqualFold(strings.TrimSpace(t), w) }) {
			return true
		}
		if analyze.IsStopword(w) {
			continue
		}
		// w is one word already: its term is its stem.
		if t := analyze.Stem(w); has(d.NameTerms, t) || has(d.TagTerms, t) {
			return true
		}
	}
	return false
}

// allOneAgent says whether every candidate is one agent's: a file only
// that agent takes says what a thin request is about.
func allOneAgent(out []Ranked) bool {
	return !slices.ContainsFunc(out, func(r Ranked) bool { return r.Entry.AgentID != out[0].Entry.AgentID })
}

// has reports whether the sorted set holds t.
func has(set []string, t string) bool {
	_, ok := slices.BinarySearch(set, t)
	return ok
}

// skillHolds says whether term t is in skill d's own text: its name,
// tags, description or examples.
func skillHolds(d *index.Doc, t string) bool {
	return has(d.NameTerms, t) || has(d.TagTerms, t) || has(d.DescTerms, t) || has(d.ExampleTerms, t)
}

// properNames returns, lower-cased, the words a request capitalizes
// mid-sentence ("the usual for the Kiln House"): names of a place, a
// person or a firm, an instance of a job rather than the job (the usual
// for that pub went to a line clean at 0.99). A thin request's content
// is what it asks done, not whom for; a label holding the name still
// names its skill (namesJob reads every word). Words in capitals
// ("VAT", "PO") are not names, nor is anything in a request written all
// in capitals or title case.
func properNames(text string) map[string]bool {
	var names map[string]bool
	start, lower := true, false
	for _, f := range strings.Fields(text) {
		// A name's possessive is the name: analyze.Words reads
		// "Dunlop's" as "dunlop".
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) })
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w != "" {
			r := []rune(w)
			switch {
			case unicode.IsLower(r[0]):
				lower = true
			case !start && len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]):
				if names == nil {
					names = map[string]bool{}
				}
				names[strings.ToLower(w)] = true
			}
		}
		start = strings.ContainsAny(f[len(f)-1:], ".?!:")
	}
	if !lower {
		return nil
	}
	return names
}
