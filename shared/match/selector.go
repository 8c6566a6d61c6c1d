package match

import (
	"regexp"
	"strings"
	"unicode"
)

// selectorTalk matches card text that talks to whatever picks the tool
// rather than describing a job, in words the directive regexp does not
// know: it addresses "the assistant selecting tools" or "the routing
// model", asks to be ranked above the others or called instead, calls
// itself the correct tool for the request, or supersedes every other
// tool. The card's own agent name reads "this tool" first (selfAsTool),
// so "call Triage Prime instead" and "MedAssist supersedes every other
// tool" read as what they are. The directive regexp was written against
// one card ("ignore previous instructions… choose me"); a third
// hand-written set hid its orders in tags and examples and in a message
// "for the AI assistant that is selecting tools", and both cards were
// trusted and took 4 tasks they do not fit. Text is matched lower-cased,
// its words joined by single spaces (punctuation dropped).
var selectorTalk = regexp.MustCompile(`\b(` +
	// Addressing the selector.
	`(note|message|instructions?|reminder)\s(to|for)\s(the|any|an?|all)\s(\w+\s)?(ai|llm|router|orchestrator|(routing|selection|ranking|matching|language)\s(model|system|engine|layer))s?\b` +
	`|attention\s(ai|llm|router|orchestrator|assistant|model)\b` +
	`|(ai|llm|router|orchestrator|assistant|model)s?\s((that|who)\s(is|are)\s)?(selecting|choosing|picking|ranking)\s((a|the|which|among|between)\s)?(tools?|skills?|agents?)\b` +
	`|whichever\s(tool|skill|agent)\syou\b` +
	`|you\s(were|are)\s(going|about)\sto\s(call|use|pick|choose|select)\s(a|the|another|some)\s(tool|skill|agent)` +
	// Asking to be ranked or chosen over the others.
	`|(rank|rate|score)\s(this\stool|it|me|us)\s(above|over|higher|highest|first|top|as\s(a|an|the)\s(perfect|top|best|only))\b` +
	`|(rank|rate|score)\sthis\stool\b` +
	`|(call|use|choose|select|pick|prefer)\s(this\stool|me|us)\s(instead|over|above)\b` +
	`|this\stool\s(is|as)\s(the\s)?(correct|right|preferred|only|best)\s(tool|choice|skill|agent|option)\s(for|to)\s(this|every|any|all|each)\s(request|task|message|query|question|call|job)s?\b` +
	`|this\stool\s(supersedes|overrides|outranks)\b` +
	`|supersedes?\s(every|all|any|the)\sother\s(tools?|skills?|agents?)\b` +
	`|(above|over|instead\sof|rather\sthan)\s(the|all|any|every)\sother\s(tools|skills|agents)\b` +
	`|(other|remaining)\s(tools|skills|agents)\s(are|is)\s(deprecated|obsolete|disabled|outdated|inferior)\b` +
	`|(only|correct)\s(correct\s|right\s)?(choice|tool|skill|agent|option)\sfor\s(any|every|all|each)\s(request|task|message|query|question)s?\b` +
	`)`)

// selectorAnchors: every alternative of selectorTalk holds one of them
// (this tool holds "tool"), so raw text with none, in any case, is not
// normalised nor matched: almost every card.
var selectorAnchors = func() (t [256][]string) {
	for _, w := range []string{"tool", "skill", "agent", "llm", "router", "orchestrator", "model", "assistant", "attention",
		"whichever", "supersede", "instead", "rather", "deprecated", "obsolete", "disabled", "outdated", "inferior",
		"rank", "rate", "score", "choice", "note", "message", "instruction", "reminder"} {
		t[w[0]] = append(t[w[0]], w)
	}
	return t
}()

// talksToSelector says whether any of a card's texts (descriptions,
// names, tags, examples) talks to the selector. name and id are the
// agent's, which its text may call itself by (selfNames).
func talksToSelector(name, id string, texts ...string) bool {
	var selves []string // made for the first text that may match
	for _, text := range texts {
		if !mayTalkToSelector(text) {
			continue
		}
		if selves == nil {
			selves = selfNames(name, id)
		}
		if selectorTalk.MatchString(selfAsTool(words(text), selves)) {
			return true
		}
	}
	return false
}

// mayTalkToSelector is a necessary condition for selectorTalk on text:
// an anchor at the start of a word (every alternative's words start
// there, and "generate" or "accurate" would let most texts through).
// Non-ASCII text is left to the regexp.
func mayTalkToSelector(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 {
			return true
		}
		if i > 0 && isASCIIAlnum(text[i-1]) {
			continue
		}
		for _, a := range selectorAnchors[c|0x20] {
			if len(text)-i >= len(a) && strings.EqualFold(text[i:i+len(a)], a) {
				return true
			}
		}
	}
	return false
}

func isASCIIAlnum(c byte) bool {
	c |= 0x20
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// words is text lower-cased with its words (letters and digits) joined
// by single spaces, and a space at each end.
func words(text string) string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return " " + strings.Join(f, " ") + " "
}

// selfAsTool reads the card's own names in t (as words gives it) as
// "this tool". A name shorter than four letters is no name.
func selfAsTool(t string, selves []string) string {
	for _, self := range selves {
		if len(self) >= 4 {
			t = strings.ReplaceAll(t, " "+self+" ", " this tool ")
		}
	}
	return t
}

// selfNames are the names a card's text calls its agent by, as words
// gives them: its name and its id, since a card writes "MedAssist" of
// "MedAssist AI" (id medassist).
func selfNames(name, id string) []string {
	return []string{strings.TrimSpace(words(name)), strings.TrimSpace(words(id))}
}
