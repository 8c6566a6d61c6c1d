package match

import (
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// serviceLines numbers, per doc, the line of services its agent belongs
// to: a numbered agent name without its numbers ("Media 1" and "Media 2"
// are the line "media", "Movies 3" alone the line "movies"), -1 for an
// agent not numbered. nil unless the catalog names two lines or more:
// only then can two lines offer one skill (see Matcher.alikeKind).
//
// A catalog that numbers its services says which of them are one kind of
// service, even where it holds one of a kind. sgd's two media services (a
// streaming shop and a rental shop) and its two movie services (a cinema
// and a film database) all "Find Movies", each card describing a search
// by genre, director or actors; sgd labels a media task delegated to
// either media service right and one delegated to a movie service wrong,
// and nothing but the lines tells them apart. Pooled as siblings, a movie
// database's requests went to the rental shop at 0.74-0.92 (97 of the
// built-in model's 309 wrong sgd dev delegations).
func serviceLines(refs []ref) []int32 {
	var keys []string // per agent, at its ref.agentN
	for i := range refs {
		if i > 0 && refs[i].agentN == refs[i-1].agentN {
			continue
		}
		keys = append(keys, lineKey(refs[i].agent.Card.Name)) // agentN counts from 0, one per agent
	}
	ids := map[string]int32{}
	for _, k := range keys {
		if _, ok := ids[k]; !ok && k != "" {
			ids[k] = int32(len(ids))
		}
	}
	if len(ids) < 2 {
		return nil
	}
	lines := make([]int32, len(refs))
	for i := range refs {
		id, ok := ids[keys[refs[i].agentN]]
		if !ok {
			id = -1
		}
		lines[i] = id
	}
	return lines
}

// lineKey is an agent name's words without the numbers that end it
// ("Media 2" → "media", "Translator 2.0" → "translator"), or "" when no
// number ends it or nothing else is left: an agent not numbered is in no
// line, and agents of one name are impostors (see Matcher.alikeKind), not
// a line. A number inside a name is part of it ("GPT-4 Translator",
// "Formula 1 Stats", "Web3 Wallet").
func lineKey(name string) string {
	ws := analyze.Words(name)
	n := len(ws)
	for n > 0 && isNumber(ws[n-1]) {
		n--
	}
	if n == len(ws) || n == 0 {
		return ""
	}
	return strings.Join(ws[:n], " ")
}

// isNumber says whether word w is all digits.
func isNumber(w string) bool {
	return w != "" && !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsDigit(r) })
}
