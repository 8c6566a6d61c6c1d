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
var selectorTalk = regexp.MustCompile(`^(` +
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
	// The card itself as what is to be selected, routed to, preferred or
	// scored: the object of the selector's verbs, not a job's subject
	// ("selects the cheapest supplier", "routes tickets to the right team").
	`|(select|choose|pick|prefer|prioriti[sz]e|favou?r)\s(\w+\s)?(this\s(tool|skill|agent|one)|me)\b` +
	`|(route|delegate|direct)\s(\w+\s){0,3}to\s(this\s(tool|skill|agent|one)|me)\b` +
	`|(send|route|forward|direct|delegate)\s(every|all|any|each)\s(\w+\s)?(requests?|tasks?|quer(y|ies)|messages?|prompts?|questions?)\shere\b` +
	`|(use|call|invoke)\s(this\s(tool|skill|agent|one)|me)\s(instead|always|regardless|whatever|no\smatter)\b` +
	`|(this\s(tool|skill|agent|one)|it)\s(should|must|shall)\s(always\s)?be\s(selected|chosen|picked|preferred|prioriti[sz]ed)\b` +
	`|(this\s(tool|skill|agent|one)|it)\sis\salways\s(the\s)?(best|right|correct|only|preferred|perfect|ideal)\b` +
	`|(best|right|correct|only|top|most\srelevant|preferred|perfect|ideal)\s(\w+\s)?(answer|choice|match|skill|agent|tool|option|pick)\s(for\s)?(every|all|any|each)\s(requests?|quer(y|ies)|tasks?|questions?|messages?|prompts?|inputs?)\b` +
	`|(give|assign|set|report|return|output)\s(this\s(tool|skill|agent|one)|me)\s(a|an|the)\s(\w+\s)?(score|rank|ranking|rating|relevance|priority|confidence|fit|probability)\b` +
	`|(give|assign)\sit\s(a|the)\s(highest|top|maximum|max|perfect|full|best)\s(score|rank|ranking|rating|relevance|priority|confidence|fit|probability)\b` +
	`|(ai|llms?|language\smodels?|routers?|orchestrators?)(\s(agents?|assistants?|models?|systems?))?\s(must|should|shall|need\sto|have\sto|are\sto)\s(always\s)?(route|select|choose|pick|prefer|prioriti[sz]e|delegate|send|use|call|rank|rate|score|ignore)\b` +
	`|(ignore|forget|disregard|override)\s(all\s|any\s)?(your|the|previous|prior|earlier|above|other|system)\s(\w+\s)?(instructions|rules|prompts?|guidelines|directives|agents|skills|tools)\b` +
	`|(never|don\st|do\snot)\s(choose|select|pick|use|consider|call|route\sto|delegate\sto)\s(another|any\sother|other|the\sother)\s(agents?|skills?|tools?)\b` +
	`)`)

// selectorAnchors: every alternative of selectorTalk holds one of them
// (this tool holds "tool"), so raw text with none, in any case, is not
// normalised nor matched: almost every card.
var selectorAnchors = func() (t [256][]string) {
	for _, w := range []string{"tool", "skill", "agent", "llm", "router", "orchestrator", "model", "assistant", "attention",
		"whichever", "supersede", "instead", "rather", "deprecated", "obsolete", "disabled", "outdated", "inferior",
		"rank", "rate", "score", "choice", "note", "message", "instruction", "reminder",
		"select", "choose", "chose", "pick", "prefer", "priorit", "favo", "route", "delegate", "direct", "send", "forward",
		"use", "call", "invoke", "give", "assign", "set", "report", "return", "output", "best", "right", "correct",
		"only", "most", "top", "ideal", "ignore", "forget", "disregard", "override", "never", "don", "do"} {
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
		if matchesAtATrigger(selfAsTool(words(text), selves)) {
			return true
		}
	}
	return false
}

// selectorTriggers are the words each alternative of selectorTalk starts
// with: the anchored regexp is tried only where one starts a word. Run
// unanchored over every text an anchor let through, it cost 1.3 s a
// 100,000-skill catalog; tried at these words, a small fraction of that.
var selectorTriggers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`note message instruction instructions reminder attention
		ai ais llm llms router routers orchestrator orchestrators assistant assistants model models language
		whichever you rank rate score call use invoke choose select pick prefer prioritize prioritise favor favour
		this it supersede supersedes above over instead rather other remaining only correct route delegate direct
		send forward best right top most preferred perfect ideal give assign set report return output
		ignore forget disregard override never don do`) {
		m[w] = true
	}
	return m
}()

// matchesAtATrigger says whether selectorTalk matches t (as words and
// selfAsTool make it) at the start of a word that is a trigger.
func matchesAtATrigger(t string) bool {
	for i := 1; i < len(t); i++ {
		if t[i-1] != ' ' {
			continue
		}
		end := strings.IndexByte(t[i:], ' ')
		if end <= 0 || !selectorTriggers[t[i:i+end]] {
			continue
		}
		if selectorTalk.MatchString(t[i:]) {
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
