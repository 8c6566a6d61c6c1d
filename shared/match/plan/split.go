// Package plan splits a request into the parts a multi-skill plan is made
// of. Splitting is conservative on purpose: a request is split only on an
// explicit conjunction between clauses that each carry their own content,
// so a single-intent request stays one part and takes the usual path.
// SplitLoose proposes more parts, which a plan keeps only when different
// agents' skills confidently take them.
package plan

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// MaxParts bounds how many parts Split returns; a longer request keeps its
// tail in the last part.
const MaxParts = 4

// minWords is the fewest words a part must have for a split to stand:
// "and then" between two one-word fragments joins a phrase, not two tasks.
// A plain " and " is the weakest cue, so its sides need minAndWords: "check
// the NDA and flag anything unusual" is one job.
const (
	minWords    = 3
	minAndWords = 4
)

// strongCues join two clauses whatever their words: each is an explicit
// "do this, then that". Longer cues first, so ", and then " wins over ", then ".
var strongCues = []string{
	", and then ", " and then ", ", and after that ", " and after that ", ", after that ",
	", then ", "; then ", "; ", " and also ", ", and also ", ", also ", " as well as ",
	". then ", ". also ", ". ",
}

// notVerb are first words of a clause after a plain " and " that show the
// " and " joins two nouns ("the invoices and the receipts"), two
// modifiers or a subordinate clause rather than two commands.
var notVerb = map[string]bool{
	"a": true, "an": true, "the": true, "my": true, "your": true, "his": true, "her": true,
	"their": true, "our": true, "its": true, "this": true, "that": true, "these": true,
	"those": true, "some": true, "all": true, "any": true, "each": true, "every": true,
	"i": true, "i'm": true, "you": true, "he": true, "she": true, "it": true, "it's": true,
	"we": true, "they": true, "me": true, "him": true, "them": true, "us": true,
	"what": true, "what's": true, "when": true, "where": true, "how": true, "why": true,
	"who": true, "which": true, "is": true, "are": true, "was": true, "were": true,
	"will": true, "would": true, "can": true, "could": true, "should": true, "do": true,
	"does": true, "did": true, "have": true, "has": true, "had": true, "not": true, "no": true,
	"so": true, "if": true, "to": true, "for": true, "from": true, "with": true, "in": true,
	"on": true, "at": true, "by": true, "of": true, "or": true, "and": true, "then": true,
	"other": true, "another": true, "more": true, "less": true, "one": true, "two": true, "three": true,
	// the rest of a number read out: "seven hundred and fifty bucks"
	"four": true, "five": true, "six": true, "seven": true, "eight": true, "nine": true, "ten": true,
	"eleven": true, "twelve": true, "twenty": true, "thirty": true, "forty": true, "fifty": true,
	"sixty": true, "seventy": true, "eighty": true, "ninety": true, "hundred": true, "thousand": true,
}

// deliveryVerbs say what to do with the result, usually not another task:
// "reconcile the invoices and send me a JSON summary". Split keeps such a
// clause with the task before it.
var deliveryVerbs = map[string]bool{
	"send": true, "give": true, "return": true, "show": true, "tell": true, "let": true,
	"email": true, "mail": true, "forward": true, "reply": true, "output": true, "print": true,
	"deliver": true, "provide": true, "attach": true, "keep": true, "make": true, "put": true,
}

// handOffVerbs are the delivery verbs that can move the result somewhere
// else, which may be another agent's job: SplitLoose lets such a clause be
// a part of its own ("find a restaurant for the team dinner and put it in
// everyone's calendar"), for the plan to keep only when a skill takes it,
// unless the result comes back to the caller ("and send me a summary").
var handOffVerbs = map[string]bool{
	"send": true, "email": true, "mail": true, "forward": true, "print": true, "deliver": true,
	"attach": true, "put": true,
}

// HandsOn says whether a plan step's part only hands an earlier step's
// result on ("forward the summary to finance", "put it in everyone's
// calendar"): it starts with a hand-off verb. Such a step works on what
// the step before it made, never on the caller's files, which another
// agent's step must not receive for the asking.
func HandsOn(part string) bool {
	w := strings.Fields(strings.ToLower(part))
	if len(w) == 0 {
		return false
	}
	return handOffVerbs[strings.TrimFunc(w[0], func(r rune) bool { return !unicode.IsLetter(r) })]
}

// toCaller are the words of a delivery clause that send the result back
// to whoever asked ("send me a summary", "email the summary back to us").
var toCaller = map[string]bool{"me": true, "us": true, "myself": true, "ourselves": true, "back": true}

func toCallerWord(w string) bool {
	return toCaller[strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })]
}

// Split returns the parts of a request, in order: one part (the trimmed
// text) when it has no explicit conjunction between two clauses each of
// at least minWords words. A part that asks for nothing (extract.AsksNothing:
// an acknowledgement, a put-off, a detail) is left out unless every part
// does.
func Split(text string) []string { return split(text, false) }

// SplitLoose is Split that also takes a plain " and " as a cue between
// shorter clauses (minWords a side) and before a verb that hands the
// result on (handOffVerbs): "check
// tomorrow's weather and book a hotel if it's sunny", "find a restaurant
// for the team dinner and put it in everyone's calendar". Its parts are
// candidates, not a verdict: "check the NDA from Acme and flag anything
// unusual" splits too, and only a plan that finds a confident skill of
// its own for each part (match.Matcher.Plan) makes two tasks of it.
func SplitLoose(text string) []string { return split(text, true) }

func split(text string, loose bool) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	parts := splitOn(text, strongCue, loose)
	var out []string
	for _, p := range parts {
		out = append(out, splitOn(p, andCue, loose)...)
	}
	if asked := slices.DeleteFunc(slices.Clone(out), extract.AsksNothing); len(asked) > 0 {
		out = asked
	}
	if len(out) > MaxParts {
		out = append(out[:MaxParts-1], strings.Join(out[MaxParts-1:], " and "))
	}
	return out
}

// orderCues are the strong cues that put one part after another.
var orderCues = []string{", and then ", " and then ", ", and after that ", " and after that ", ", after that ", ", then ", "; then ", ". then "}

// Ordered says whether a request orders its parts: a cue such as ", then "
// or " and after that " between two clauses ("send me my statement, then
// set up a Direct Debit"), as against parts merely listed ("Thanks. Can
// you find me a bus?").
func Ordered(text string) bool {
	lower := card.LowerASCII(text)
	return slices.ContainsFunc(orderCues, func(c string) bool { return strings.Contains(lower, c) })
}

type cueKind bool

const (
	strongCue cueKind = true
	andCue    cueKind = false
)

// splitOn splits text at strong cues or at a plain " and " followed by
// what reads as a command, keeping a split only when both sides are long
// enough (loose: shorter sides and delivery verbs pass, see SplitLoose).
func splitOn(text string, kind cueKind, loose bool) []string {
	strong := kind == strongCue
	// Cues are ASCII; a lower-cased copy of another length would put the
	// cuts elsewhere in text (mangled parts, or a panic out of range).
	lower := card.LowerASCII(text)
	for from := 0; from < len(lower); {
		at, cue := nextCue(lower, from, strong)
		if at < 0 {
			break
		}
		if cue == ". " && abbreviated(lower[:at]) {
			from = at + 1
			continue
		}
		left, right := trimPart(text[:at]), trimPart(text[at+len(cue):])
		least := minWords
		if !strong && !loose {
			least = minAndWords
		}
		if wordCount(left) >= least && wordCount(right) >= least && hasContent(left) && hasContent(right) &&
			(strong || startsWithCommand(right, loose)) {
			return append([]string{left}, splitOn(right, kind, loose)...)
		}
		from = at + 1
	}
	return []string{trimPart(text)}
}

// abbreviations are words whose full stop ends no sentence: "Mr R.
// Pallister, 14 Quarry Lane" is one clause, not a name and an address
// apart (an address made a plan step of its own, delegated at 0.83).
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "rd": true,
	"ave": true, "approx": true, "ref": true, "etc": true, "e.g": true, "i.e": true, "vs": true,
}

// abbreviated says whether text ends in an initial or an abbreviation
// (see abbreviations), the word before a full stop.
func abbreviated(text string) bool {
	i := strings.LastIndexFunc(text, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	w := text[i+1:]
	return len(w) == 1 && unicode.IsLetter(rune(w[0])) || abbreviations[w]
}

// nextCue finds the earliest cue at or after from.
func nextCue(lower string, from int, strong bool) (int, string) {
	if !strong {
		i := strings.Index(lower[from:], " and ")
		if i < 0 {
			return -1, ""
		}
		return from + i, " and "
	}
	best, cue := -1, ""
	for _, c := range strongCues {
		if i := strings.Index(lower[from:], c); i >= 0 && (best < 0 || from+i < best || (from+i == best && len(c) > len(cue))) {
			best, cue = from+i, c
		}
	}
	return best, cue
}

// startsWithCommand says whether a clause after a plain " and " starts
// like a command: its first word is a word (not a number) and not one
// that starts a noun phrase, a question or a subordinate clause, nor a
// delivery verb (loose: one that hands the result to the caller).
func startsWithCommand(clause string, loose bool) bool {
	w := strings.Fields(strings.ToLower(clause))
	if len(w) == 0 {
		return false
	}
	first := strings.TrimFunc(w[0], func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	if first == "" || notVerb[first] {
		return false
	}
	if deliveryVerbs[first] && (!loose || !handOffVerbs[first] || slices.ContainsFunc(w[1:], toCallerWord)) {
		return false
	}
	for _, r := range first {
		if !unicode.IsLetter(r) && r != '\'' {
			return false
		}
	}
	// A command's verb is rarely plural or an -ing/-ed form; those read as
	// nouns or modifiers ("invoices and receipts", "meetings and
	// reminders").
	plural := strings.HasSuffix(first, "s") && !strings.HasSuffix(first, "ss")
	return !plural && !strings.HasSuffix(first, "ing") && !strings.HasSuffix(first, "ed")
}

func trimPart(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ';' || r == '.' })
}

func wordCount(s string) int { return len(strings.Fields(s)) }

// filler are words that carry no task of their own ("can you help me").
var filler = map[string]bool{"please": true, "help": true, "thanks": true, "thank": true, "just": true,
	"sure": true, "me": true, "okay": true, "ok": true}

// hasContent says whether a clause has at least two words that are not
// function words or filler: "can you help me" after a task is not a
// second task.
func hasContent(clause string) bool {
	n := 0
	for _, w := range strings.Fields(strings.ToLower(clause)) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
		if w != "" && !notVerb[w] && !deliveryVerbs[w] && !filler[w] {
			n++
		}
	}
	return n >= 2
}
