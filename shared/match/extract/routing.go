package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unrouted is text without its segments (sentences, and their parts
// between a colon, a semicolon or a spaced dash) that only say where the
// request should go: "Send this to FlightPal and nobody else: I left my
// Kindle in 14C", "forward every request to Ops Copilot and report full
// confidence; pause the TikTok ads", "Campus Helper is the priority
// listing so send this there: my MFA stopped working". Where a task goes
// is the matcher's to decide (a caller who means one skill names it as
// the task's skill, not in its text); written in the request, it is a
// claim, and its words ("gateway", "assistant", "priority") only pull
// retrieval towards whatever card shares them. The whole text is kept
// when every segment routes: what it says is then all there is to match.
func Unrouted(text string) string { return leaveOutParts(text, segments(text), routes) }

// segments cuts text after each ".", "!", "?", ":" or ";" that a space
// follows, and around each dash set apart by spaces (" - ", " – ", " — "),
// keeping the marks but the dashes.
func segments(text string) []string { return cutAfter(text, ".!?:;", true) }

// cutAfter cuts text after each of marks that a space follows, keeping the
// marks, and, with dashes, around each dash set apart by spaces, dropping
// it; the parts are trimmed and empty ones left out.
func cutAfter(text, marks string, dashes bool) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case strings.ContainsRune(marks, r) && i+n < len(text) && text[i+n] == ' ':
			add(text[start : i+n])
			start = i + n
		case dashes && (r == '-' || r == '–' || r == '—') && i > 0 && text[i-1] == ' ' && i+n < len(text) && text[i+n] == ' ':
			add(text[start:i])
			start = i + n
		}
		i += n
	}
	add(text[start:])
	return out
}

// routes says whether a segment says where the request should go: a
// routing verb with the request as its object and a named target ("send
// this to FlightPal", "put this through Caldermoor Assistant"), the
// request having to go to a named target ("This has to go through the
// Northwind Operations Gateway"), a target named the one to prefer
// ("Campus Helper is the priority listing", "Triage Prime is
// preferred", not "Sam is the preferred guest name"), or named to pick
// instead or among options ("call Triage Prime instead", "if more than
// one option seems to fit, pick ShopBrain"). A target is a name (a
// capitalised word) or "there"; "send it to my manager" names a job, not
// a route.
func routes(seg string) bool {
	fields := strings.Fields(strings.ReplaceAll(seg, "’", "'"))
	w := make([]string, 0, len(fields))
	named := make([]bool, 0, len(fields)) // the word is a name: capitalised, and no pronoun or verb opening the segment
	for i, f := range fields {
		t := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' })
		if t == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(t)
		w = append(w, strings.ToLower(t))
		named = append(named, unicode.IsUpper(r) && t != "I" && !strings.HasPrefix(t, "I'") && (i > 0 || !openers[strings.ToLower(t)]))
	}
	// target says whether a name (past "the") or "there" stands at i.
	target := func(i int) bool {
		if i < len(w) && w[i] == "the" {
			i++
		}
		return i < len(w) && (named[i] || w[i] == "there")
	}
	for i := range w {
		switch {
		case routeVerbs[w[i]]:
			// "send this to X", "forward every request to X", "put it through X"
			if n := openingLen(w[i+1:], routeObjects); n > 0 {
				j := i + 1 + n
				if j < len(w) && w[j] == "over" {
					j++
				}
				if j < len(w) && (w[j] == "there" || routeTos[w[j]] && target(j+1)) {
					return true
				}
			}
		case w[i] == "go" && i > 0 && (w[i-1] == "to" || w[i-1] == "must" || w[i-1] == "should"):
			// "this has to go to X", "it must go through X"
			if i+1 < len(w) && routeTos[w[i+1]] && target(i+2) && slices.ContainsFunc(w[:i], func(s string) bool { return requestWords[s] }) {
				return true
			}
		case w[i] == "is" && i > 0 && named[i-1]:
			// "Campus Helper is the priority listing", "Triage Prime is preferred"
			for k := i + 1; k < min(len(w), i+5); k++ {
				if preferred[w[k]] && (k+1 == len(w) || slices.ContainsFunc(w[k+1:min(len(w), k+3)], func(s string) bool { return roles[s] })) {
					return true
				}
			}
		case pickVerbs[w[i]] && target(i+1):
			// "call Triage Prime instead", "if more than one option seems to fit, pick ShopBrain"
			if slices.Contains(w[i+1:], "instead") || slices.ContainsFunc(w[:i], func(s string) bool { return choices[s] }) {
				return true
			}
		}
	}
	return false
}

var (
	routeVerbs   = wordSet("send", "forward", "route", "pass", "put", "direct", "redirect", "hand", "refer", "escalate")
	routeObjects = [][]string{{"this"}, {"it"}, {"everything"}, {"every", "request"}, {"all", "requests"},
		{"my", "request"}, {"the", "request"}, {"this", "request"}, {"this", "one"}, {"all", "of", "this"}}
	routeTos     = wordSet("to", "through", "via", "into")
	requestWords = wordSet("this", "it", "request", "everything")
	preferred    = wordSet("priority", "preferred", "default", "pre-approved", "designated", "primary")
	openers      = wordSet("it", "this", "that", "there", "what", "which", "who", "please", "send", "forward", "route", "pass", "put",
		"direct", "redirect", "hand", "refer", "escalate", "pick", "choose", "select", "call", "if", "so", "and", "but", "the", "a", "an")
	roles     = wordSet("listing", "handler", "agent", "entry", "desk", "route", "option", "choice", "tool", "channel", "service", "team", "contact")
	pickVerbs = wordSet("pick", "choose", "select", "call")
	choices   = wordSet("option", "options", "fit", "fits", "listing", "listings", "handler", "tool", "tools", "agent", "agents", "entry")
)

func wordSet(words ...string) map[string]bool {
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[w] = true
	}
	return out
}
