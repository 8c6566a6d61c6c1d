package rerank

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The term set finds exactly the terms has finds, for up to 64 request
// terms, with words that share length and end bytes (one slot), an empty
// word, and skill term sets short and long; more than 64 terms are left
// to has.
func TestTermSetIsHas(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 64))
	alphabet := []string{"a", "b", "ab", "ba", "aab", "abb", "acb", "adb", "", "pay", "pby", "pcy", "payment", "paymant", "x"}
	word := func() string {
		if rng.IntN(3) == 0 {
			return alphabet[rng.IntN(len(alphabet))]
		}
		b := make([]byte, 1+rng.IntN(6))
		for i := range b {
			b[i] = "abcp"[rng.IntN(4)]
		}
		return string(b)
	}
	for round := range 2000 {
		var terms []string
		for range rng.IntN(70) {
			if w := word(); !slices.Contains(terms, w) {
				terms = append(terms, w)
			}
		}
		var set termSet
		if ok := set.fill(terms); ok != (len(terms) <= 64) {
			t.Fatalf("round %d: fill of %d terms says %v", round, len(terms), ok)
		} else if !ok {
			continue
		}
		for range 5 {
			var list []string
			for range rng.IntN(50) {
				list = append(list, word())
			}
			slices.Sort(list)
			list = slices.Compact(list)
			bits := set.present(list)
			for j, term := range terms {
				if got, want := bits&(1<<j) != 0, has(list, term); got != want {
					t.Fatalf("round %d: term %q in %q: set says %v, has %v", round, term, list, got, want)
				}
			}
			if bits>>len(terms) != 0 {
				t.Fatalf("round %d: bits %b past the %d terms", round, bits, len(terms))
			}
		}
	}
}
