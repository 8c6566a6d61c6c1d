package analyze

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"what's my PO-7781 balance?", []string{"what", "my", "po", "7781", "balance"}},
		{"  ", nil},
		{"Ünïcode naïve café", []string{"ünïcode", "naïve", "café"}},
		{"don't stop", []string{"don", "stop"}},
	}
	for _, tt := range tests {
		if got := Words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("Please transfer the funds between my accounts")
	want := []string{"transfer", "fund", "account"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestStemShortWords(t *testing.T) {
	if Stem("is") != "is" || Stem("running") != "run" {
		t.Errorf("Stem: is→%q running→%q", Stem("is"), Stem("running"))
	}
}

// wordsByRune is the plain definition of Words (one rune at a time, every
// word copied); Words must always return what it does.
func wordsByRune(text string) []string {
	var out []string
	var b strings.Builder
	skip := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
		skip = false
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !skip {
				b.WriteRune(unicode.ToLower(r))
			}
		case (r == '\'' || r == '’') && b.Len() > 0:
			skip = true
		default:
			flush()
		}
	}
	flush()
	return out
}

func TestWordsMatchesTheRuneDefinition(t *testing.T) {
	for _, text := range []string{
		"", " ", "a", "A", "Hello, World!", "what's up", "don’t STOP", "'quoted' words", "it''s",
		"ÉCOLE café Straße", "naïve façade", "日本語のテキスト", "x\xffy", "\xff\xfe", "abc’", "’abc",
		"tab\tand\nnewline", "MiXeD123case 4U", "ǅemal", "İstanbul", "ΣΊΣΥΦΟΣ", "a'b'c d", "don't'", "12'34",
	} {
		if got, want := Words(text), wordsByRune(text); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"Hello, World!", "don’t STOP", "ÉCOLE café", "x\xffy", "it''s a'b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Words(text), wordsByRune(text); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	})
}

// TestAppendMatchesWords checks that appending to a buffer that
// already holds words leaves them alone and adds what Words returns.
func TestAppendMatchesWords(t *testing.T) {
	for _, text := range []string{"", "the", "Running payments, please!", "don’t STOP", "ÉCOLE café", "a an the of"} {
		base := []string{"kept", "words"}
		if got, want := AppendWords(slices.Clone(base), text), append(slices.Clone(base), Words(text)...); !slices.Equal(got, want) {
			t.Errorf("AppendWords(%q) = %q, want %q", text, got, want)
		}
	}
}

// Content words are the words that are not stopwords, first occurrence
// kept, also past the point where duplicates are found with a map.
func TestAppendContentWords(t *testing.T) {
	long := strings.Repeat("alpha beta the gamma ", 20)
	for i := range 50 {
		long += fmt.Sprintf("w%d of w%d ", i, i/2)
	}
	for _, tc := range []struct {
		dst  []string
		from int
		text string
	}{
		{nil, 0, ""},
		{nil, 0, "the cat and the Cat sat"},
		{[]string{"x", "cat"}, 1, "cat dog x"},
		{[]string{"x", "cat"}, 2, "cat dog x"},
		{nil, 0, long},
		{[]string{"w3"}, 0, long},
	} {
		got := AppendContentWords(slices.Clone(tc.dst), tc.from, Words(tc.text))
		want := slices.Clone(tc.dst)
		for _, w := range Words(tc.text) {
			if !IsStopword(w) && !slices.Contains(want[tc.from:], w) {
				want = append(want, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("AppendContentWords(%q, %d, %.40q) = %q, want %q", tc.dst, tc.from, tc.text, got, want)
		}
	}
}

// The plural of a short word ending in s or z stems as its singular:
// Snowball keeps the e of "buses" ("buse"), so a card saying "Find buses"
// never met "find me a bus". Words whose e is their own stay apart from
// their s-less form.
func TestStemSibilantPlurals(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"bus", "buses", true},
		{"bus", "busses", true},
		{"gas", "gases", true},
		{"quiz", "quizzes", true},
		{"case", "cases", true},
		{"house", "houses", true},
		{"box", "boxes", true},
		{"cas", "cases", false},
	} {
		if got := Stem(tt.a) == Stem(tt.b); got != tt.same {
			t.Errorf("Stem(%q) = %q, Stem(%q) = %q: same %v, want %v", tt.a, Stem(tt.a), tt.b, Stem(tt.b), got, tt.same)
		}
	}
}

// Request framing is no content: "want" and its forms are dropped.
func TestTermsDropRequestFraming(t *testing.T) {
	got := Terms("We want an apartment with a balcony; she wants it, he wanted it")
	for _, w := range []string{"want", "wants", "wanted"} {
		if slices.Contains(got, w) {
			t.Errorf("Terms kept %q: %q", w, got)
		}
	}
	if !slices.Contains(got, "apart") && !slices.Contains(got, "apartment") {
		t.Errorf("Terms dropped the content: %q", got)
	}
}

// IsStopword's first-letter table only rules out words the list does
// not hold.
func FuzzIsStopword(f *testing.F) {
	for w := range stopwords {
		f.Add(w)
	}
	for _, w := range []string{"", "weather", "themselvesx", "Want", "\xffa", "z", "can't"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if _, want := stopwords[w]; IsStopword(w) != want {
			t.Fatalf("IsStopword(%q) = %v, the list says %v", w, !want, want)
		}
	})
}
