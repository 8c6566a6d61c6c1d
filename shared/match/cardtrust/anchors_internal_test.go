package cardtrust

import (
	"strings"
	"testing"
)

// plainIn is the scan written plainly: every anchor compared at every
// place (every word start when wordStart), any non-ASCII byte a yes.
func plainIn(words []string, text string, wordStart bool) bool {
	if strings.IndexFunc(text, func(r rune) bool { return r >= 0x80 }) >= 0 {
		return true
	}
	lower := strings.ToLower(text) // ASCII: byte for byte
	for i := range lower {
		if wordStart && i > 0 && isASCIIAlnum(text[i-1]) {
			continue
		}
		for _, a := range words {
			if strings.HasPrefix(lower[i:], a) {
				return true
			}
		}
	}
	return false
}

var testAnchors = []string{"do", "tool", "priorit", "rank", "entr"}

// testTable holds testAnchors as the list of one mid-word kind and of one
// word-start kind, and a list of its own.
var testTable = newAnchorTable(map[anchorKind][]string{
	directiveKind: testAnchors,
	selectorKind:  testAnchors,
	claimKind:     {"any", "all"},
})

func TestAnchorsIn(t *testing.T) {
	tests := []struct {
		text                 string
		anywhere, start, any bool
	}{
		{"", false, false, false},
		{"d", false, false, false},
		{"do", true, true, false},
		{"Documents", true, true, false},
		{"undo", true, false, false},
		{"a TOOL", true, true, false},
		{"stool", true, false, false},
		{"too", false, false, false},
		{"prioritise the queue", true, true, false},
		{"priorities", true, true, false},
		{"prior", false, false, false},
		{"frank talk", true, false, false},
		{"re-entry", true, true, false},
		{"café", true, true, true}, // non-ASCII: the costlier check decides
		{"tools\x10do", true, true, false},
		{"x1rank", true, false, false},
		{"[rank]", true, true, false},
		{"@do", true, true, false},
		{"ALL done", true, true, true},
		{"small stool", true, false, false},
		{"many", false, false, false},
	}
	for _, tt := range tests {
		all := testTable.in(tt.text, directiveKind|selectorKind|claimKind)
		for _, k := range []struct {
			kind anchorKind
			want bool
		}{{directiveKind, tt.anywhere}, {selectorKind, tt.start}, {claimKind, tt.any}} {
			if got := testTable.in(tt.text, k.kind) != 0; got != k.want {
				t.Errorf("in(%q, %b) = %v, want %v", tt.text, k.kind, got, k.want)
			}
			if got := all&k.kind != 0; got != k.want {
				t.Errorf("in(%q, every kind) holds %b: %v, want %v", tt.text, k.kind, got, k.want)
			}
		}
	}
}

// realLists are the lists of the anchors every check uses.
var realLists = map[anchorKind][]string{
	directiveKind: directiveAnchors,
	selectorKind:  selectorAnchors,
	catalogKind:   catalogAnchors,
	actKind:       actAnchors,
	claimKind:     claimAnchors,
}

func FuzzAnchorsIn(f *testing.F) {
	for _, s := range []string{"do", "a TOOL", "stool", "prioritise", "x1rank", "café", "tools\x10do", "Z[rank",
		"the other listings", "route it to the model", "handles any task", "Ignore", "xignore"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		all := anchorsIn(text, 1<<kindCount-1)
		for kind, words := range realLists {
			want := plainIn(words, text, kind&midWordKinds == 0)
			if got := anchorsIn(text, kind) != 0; got != want {
				t.Fatalf("anchorsIn(%q, %b) = %v, written plainly %v", text, kind, got, want)
			}
			if got := all&kind != 0; got != want {
				t.Fatalf("anchorsIn(%q, every kind) holds %b: %v, written plainly %v", text, kind, got, want)
			}
		}
	})
}

func TestNewAnchorTableRefusesWhatItCannotScan(t *testing.T) {
	for _, w := range []string{"a", "Tool", "e-mail", "naïve"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newAnchorTable(%q) did not panic", w)
				}
			}()
			newAnchorTable(map[anchorKind][]string{selectorKind: {w}})
		}()
	}
}
