package lexicon

import (
	"bytes"
	"compress/gzip"
	"slices"
	"testing"
)

func TestWordNet(t *testing.T) {
	lex := WordNet()
	if lex.Len() < 10000 {
		t.Fatalf("shipped table has %d words, want over 10,000", lex.Len())
	}
	tests := []struct{ word, related string }{
		{"movie", "film"},   // synonym
		{"payment", "pay"},  // derivationally related
		{"cash", "currenc"}, // hypernym
		{"book", "reserv"},  // verb sense
		{"restaurant", "eateri"},
	}
	for _, tt := range tests {
		if !slices.Contains(lex.RelatedStems(tt.word), tt.related) {
			t.Errorf("RelatedStems(%q) = %v, want it to hold %q", tt.word, lex.RelatedStems(tt.word), tt.related)
		}
	}
	for _, w := range []string{"", "qzxqzx", "the"} {
		if r := lex.RelatedStems(w); len(r) != 0 {
			t.Errorf("RelatedStems(%q) = %v, want none", w, r)
		}
	}
}

func TestParse(t *testing.T) {
	gz := func(s string) *bytes.Reader {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return bytes.NewReader(b.Bytes())
	}
	tests := []struct {
		name, in string
		ok       bool
		words    int
	}{
		{"two lines", "movie film picture\ncash currency\n", true, 2},
		{"empty", "", true, 0},
		{"word without relatives", "movie\n", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lex, err := Parse(gz(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if err == nil && lex.Len() != tt.words {
				t.Errorf("Len() = %d, want %d", lex.Len(), tt.words)
			}
		})
	}
	if _, err := Parse(bytes.NewReader([]byte("not gzip"))); err == nil {
		t.Error("no error for a table that is not gzip")
	}
}
