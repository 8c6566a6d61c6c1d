package cardtrust

import (
	"strings"
	"testing"
)

// plainIn is anchors.in written plainly: every anchor compared at every
// place (every word start when wordStart), any non-ASCII byte a yes.
func plainIn(words []string, text string, wordStart bool) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return true
		}
		if wordStart && i > 0 && isASCIIAlnum(text[i-1]) {
			continue
		}
		for _, a := range words {
			if strings.HasPrefix(strings.ToLower(text[i:]), a) {
				return true
			}
		}
	}
	return false
}

var testAnchors = []string{"do", "tool", "priorit", "rank", "entr"}

func TestAnchorsIn(t *testing.T) {
	a := newAnchors(testAnchors...)
	tests := []struct {
		text            string
		anywhere, start bool
	}{
		{"", false, false},
		{"d", false, false},
		{"do", true, true},
		{"Documents", true, true},
		{"undo", true, false},
		{"a TOOL", true, true},
		{"stool", true, false},
		{"too", false, false},
		{"prioritise the queue", true, true},
		{"priorities", true, true},
		{"prior", false, false},
		{"frank talk", true, false},
		{"re-entry", true, true},
		{"café", true, true}, // non-ASCII: the costlier check decides
		{"tools\x10do", true, true},
		{"x1rank", true, false},
		{"[rank]", true, true},
		{"@do", true, true},
	}
	for _, tt := range tests {
		if got := a.in(tt.text, false); got != tt.anywhere {
			t.Errorf("in(%q, anywhere) = %v, want %v", tt.text, got, tt.anywhere)
		}
		if got := a.in(tt.text, true); got != tt.start {
			t.Errorf("in(%q, at word starts) = %v, want %v", tt.text, got, tt.start)
		}
	}
}

func FuzzAnchorsIn(f *testing.F) {
	for _, s := range []string{"do", "a TOOL", "stool", "prioritise", "x1rank", "café", "tools\x10do", "Z[rank"} {
		f.Add(s)
	}
	a := newAnchors(testAnchors...)
	f.Fuzz(func(t *testing.T, text string) {
		for _, wordStart := range []bool{false, true} {
			if got, want := a.in(text, wordStart), plainIn(testAnchors, text, wordStart); got != want {
				t.Fatalf("in(%q, %v) = %v, written plainly %v", text, wordStart, got, want)
			}
		}
	})
}

func TestNewAnchorsRefusesWhatItCannotScan(t *testing.T) {
	for _, w := range []string{"a", "Tool", "e-mail", "naïve"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newAnchors(%q) did not panic", w)
				}
			}()
			newAnchors(w)
		}()
	}
}
