package cardtrust

import (
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Card text shaped as something other than prose gives orders its words
// alone do not: a flowchart answering "where does a request go?" whose
// every leaf is the card ("|-- yes --> [Member Navigator]"), and a
// mail-merge template whose fields stand for the request itself ("Help
// with {{request}}", "takes care of {{request}} from start to finish"). A
// twenty-ninth set's cards did both, with no word of selecting, of the
// catalog or of a claim over it. A thirtieth set's told fables whose
// moral is the card ("Moral: a sack of papers belongs with the keeper of
// every ledger, not with the door that fits one page").

// flowsToSelfAt is how many arrows into the card's own name make a
// flowchart of where requests go: an app's menu path ("Settings ->
// Account") points into its own screens, not at itself, and once is a
// link to the card.
const flowsToSelfAt = 2

// flowsToSelf says whether text draws arrows ("->", "-->", "=>") into
// the card's own name or id (as selfNames reads them) flowsToSelfAt
// times or more.
func flowsToSelf(text, name, id string) bool {
	if !strings.Contains(text, "->") && !strings.Contains(text, "=>") {
		return false // most text: no names read
	}
	selves := selfNames(name, id)
	n := 0
	for _, arrow := range []string{"->", "=>"} {
		for rest := text; ; {
			i := strings.Index(rest, arrow)
			if i < 0 {
				break
			}
			rest = rest[i+len(arrow):]
			if pointsAtSelf(rest, selves) {
				if n++; n >= flowsToSelfAt {
					return true
				}
			}
		}
	}
	return false
}

// pointsAtSelf says whether text after an arrow starts (past spaces,
// brackets and quotes) with one of the card's names.
func pointsAtSelf(after string, selves []self) bool {
	after = strings.TrimLeft(after, " \t>[(\"'*")
	line, _, _ := strings.Cut(after, "\n")
	got := words(line[:min(len(line), 80)])
	for _, s := range selves {
		if len(s.words) >= 4 && strings.HasPrefix(got, " "+s.words+" ") {
			return true
		}
	}
	return false
}

// requestFields are what a template field standing for the request holds.
var requestFields = fieldSet("request requests message messages task tasks query queries enquiry topic subject")

// placeholdsRequest says whether text holds a template field ("{{...}}")
// standing for the request: one of requestFields among its words.
func placeholdsRequest(text string) bool {
	for rest := text; ; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		field, after, ok := strings.Cut(rest, "}}")
		if !ok {
			return false
		}
		for _, w := range strings.Fields(words(strings.ReplaceAll(field, "_", " "))) {
			if requestFields[w] {
				return true
			}
		}
		rest = after
	}
}

// moralClaim says whether a sentence of text draws a moral ("Moral: ...",
// "the moral is ...") over every or any thing: a job description has no
// moral, and one over everything argues the card takes it all.
func moralClaim(text string) bool {
	if !strings.Contains(strings.ToLower(text), "moral") {
		return false
	}
	for _, sentence := range sentences(text) {
		t := words(sentence)
		if !strings.HasPrefix(t, " moral ") && !strings.Contains(t, " the moral is ") && !strings.Contains(t, " the moral of ") {
			continue
		}
		if strings.Contains(t, " every ") || strings.Contains(t, " any ") || strings.Contains(t, " all ") || strings.Contains(t, " everything ") {
			return true
		}
	}
	return false
}

// A card may class every request as a kind of thing and then claim that
// kind: "Every request is front-page news ... At Quillmead the front page
// is the Gazette", "a request that matters ... runs on the front page,
// and the front page is here" (a seventy-fourth set's staff newspaper,
// which took a request at 0.86). No word of it claims a task outright.

// claimsThroughRequests says whether a description (of an agent named
// name) claims every task by what it says a request is or holds
// (classifiesRequests, namesSelfInRequests).
func claimsThroughRequests(text, name string) bool {
	return classifiesRequests(text, name) || namesSelfInRequests(text, name)
}

// classifiesRequests says whether text says every (each, any) request,
// task, query or message "is" something (the words up to a stopword), and
// elsewhere that a thing of one of those words "is here", "is ours" or is
// the card (a word of its name that is no stopword).
func classifiesRequests(text, name string) bool {
	if !strings.Contains(text, " is ") || !mayNameRequests(text) {
		return false // most texts: nothing split, nothing allocated
	}
	var kind []string // the words every request is said to be
	ss := sentences(text)
	split := make([][]string, len(ss)) // each sentence's words, split once for both passes
	for k, sentence := range ss {
		ws := strings.Fields(words(sentence))
		split[k] = ws
		for i := 0; i+3 < len(ws); i++ {
			if (ws[i] == "every" || ws[i] == "each" || ws[i] == "any") && messageNouns[ws[i+1]] && ws[i+2] == "is" {
				rest := ws[i+3 : min(len(ws), i+7)]
				if len(rest) > 0 && (rest[0] == "a" || rest[0] == "an" || rest[0] == "the") {
					rest = rest[1:]
				}
				for _, w := range rest { // the words up to the first stopword: "front-page news"
					if analyze.IsStopword(w) {
						break
					}
					kind = append(kind, w)
				}
			}
		}
	}
	if len(kind) == 0 {
		return false
	}
	own := map[string]bool{}
	for _, w := range strings.Fields(words(name)) {
		if len(w) > 2 && !analyze.IsStopword(w) {
			own[w] = true
		}
	}
	for _, ws := range split {
		for j := 1; j+1 < len(ws); j++ {
			if ws[j] != "is" || !slices.ContainsFunc(ws[max(0, j-3):j], func(w string) bool { return slices.Contains(kind, w) }) {
				continue
			}
			next := ws[j+1]
			if next == "the" && j+2 < len(ws) {
				next = ws[j+2]
			}
			if next == "here" || next == "ours" || own[next] {
				return true
			}
		}
	}
	return false
}

// mayNameRequests says whether text may hold a word of messageNouns, in
// lower case or capitalised, without allocating.
func mayNameRequests(text string) bool {
	for _, w := range [...]string{"equest", "essage", "task", "Task", "uer"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// A card may say what a word of a request stands for, and that it stands
// for the card: "By the plain rules of grammar the 'it' in such a message
// is the Swatch & Sample Room, and a message about the Swatch & Sample
// Room belongs with the Swatch & Sample Room" (a seventy-ninth set's
// pronoun antecedent, which took a reprint request at 0.98 and a car's
// MOT at 0.81). No word of it claims a task outright either.

// namesSelfInRequests says whether a sentence of text says that something
// in a request (a message, a task: "in such a message", "in every
// request") "is" the card, by its whole name ending the clause: the name
// is the sentence's last words, or a conjunction follows it. "The first
// line in every request is the Order Desk reference" names a field.
func namesSelfInRequests(text, name string) bool {
	if !strings.Contains(text, " in ") || !strings.Contains(text, " is ") || !mayNameRequests(text) {
		return false // most texts: nothing split, nothing allocated
	}
	own := strings.Fields(words(name))
	if len(own) == 0 || len(strings.Join(own, "")) < 4 {
		return false
	}
	for _, sentence := range sentences(text) {
		ws := strings.Fields(words(sentence))
		for i := 0; i+3 < len(ws); i++ {
			if ws[i] != "in" {
				continue
			}
			// "in such a message is", "in every request is", "in a task is"
			j := i + 1
			for j < len(ws) && j <= i+3 && !messageNouns[ws[j]] {
				j++
			}
			if j+1 >= len(ws) || !messageNouns[ws[j]] || ws[j+1] != "is" {
				continue
			}
			rest := ws[j+2:]
			if len(rest) > 0 && rest[0] == "the" {
				rest = rest[1:]
			}
			if len(rest) >= len(own) && slices.Equal(rest[:len(own)], own) &&
				(len(rest) == len(own) || clauseEnds[rest[len(own)]]) {
				return true
			}
		}
	}
	return false
}

// clauseEnds are the words that may follow a clause's last noun: a name
// before them is the clause's whole complement.
var clauseEnds = fieldSet("and but so which because or")

// A card may speak of the desks a request goes to and put itself among
// them, as good as any: "Any desk will do for a thing that makes no mark,
// and the Wall Calendar will do as well as any"; "... has been seen to
// once, at its own desk ... Log it with the Lantern Walk" (an eighty-third
// set's hundred-year calendar and hour that happens twice; "What is left
// in your hands is the echo" comes between). A job's card names no desk a
// request goes to.

// deskPhrases are how such a card speaks of where a request goes: not
// "any desk" (a hot-desk booking's "book any desk on the third floor"),
// nor "another desk" or "the right desk" (a reception's "we pass your
// query to the right desk").
var deskPhrases = []string{" whichever desk ", " one desk or another ", " its own desk ", " any other desk ",
	" every other desk ", " an earlier desk "}

// routesAmongDesks says whether a sentence of text speaks of the desk a
// request goes to (deskPhrases) and says "here", or it or one of the next
// two names the card by its name or id (two words or more).
func routesAmongDesks(text, name, id string) bool {
	if !strings.Contains(text, "desk") && !strings.Contains(text, "Desk") {
		return false // most texts: nothing split
	}
	var selves []string
	for _, s := range selfNames(name, id) {
		if strings.Contains(s.words, " ") {
			selves = append(selves, " "+s.words+" ")
		}
	}
	ss := sentences(text)
	for k, sentence := range ss {
		w := words(sentence)
		if !slices.ContainsFunc(deskPhrases, func(p string) bool { return strings.Contains(w, p) }) {
			continue
		}
		near := w
		for _, next := range ss[k+1 : min(k+3, len(ss))] {
			near += words(next)
		}
		// "here" names the card as well: "A rent payment, a repair, ...
		// that comes here and not to its own desk is the upside-down one
		// of its sheet" (an eighty-seventh set's inverted stamp).
		if strings.Contains(w, " here ") || slices.ContainsFunc(selves, func(s string) bool { return strings.Contains(near, s) }) {
			return true
		}
	}
	return false
}
