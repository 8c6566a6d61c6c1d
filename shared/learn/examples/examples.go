// Package examples keeps the example texts a catalog learns from verified
// outcomes: per skill, a short list of tasks that the skill was verified
// to serve, indexed beside the card's own examples. The rules here are
// pure (clean, deduplicate, cap); the pipeline stores the lists.
package examples

import (
	"strings"

	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// Limits of a skill's learned examples.
const (
	// DefaultCap is how many examples a skill keeps; past it the oldest
	// goes first.
	DefaultCap = 50
	// MaxText caps one example, in characters, cut at a word boundary.
	MaxText = 500
)

// Clean is the text an example keeps: control and format characters
// dropped, white space collapsed, at most MaxText characters. Task text is
// a caller's words and goes into the index like card text: data, capped.
func Clean(s string) string { return extract.Clean(s, MaxText) }

// Same says whether two examples are one: equal once cleaned, ignoring
// case.
func Same(a, b string) bool { return strings.EqualFold(Clean(a), Clean(b)) }

// Add appends text to a skill's list and says whether the list changed:
// not when the text cleans to nothing or is already there (Same). Past
// limit (DefaultCap when <= 0) the oldest examples are dropped. list is
// not modified.
func Add(list []string, text string, limit int) ([]string, bool) {
	if limit <= 0 {
		limit = DefaultCap
	}
	text = Clean(text)
	if text == "" {
		return list, false
	}
	for _, e := range list {
		if Same(e, text) {
			return list, false
		}
	}
	out := append(append(make([]string, 0, len(list)+1), list...), text)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, true
}

// Remove drops text (Same) from list and says whether it was there.
func Remove(list []string, text string) ([]string, bool) {
	out := make([]string, 0, len(list))
	for _, e := range list {
		if !Same(e, text) {
			out = append(out, e)
		}
	}
	return out, len(out) != len(list)
}
