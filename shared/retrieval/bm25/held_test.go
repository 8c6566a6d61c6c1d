package bm25

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// A held search gives the hits Search gives and, for every document, the
// score ScoreEach gives, bit for bit, on queries whose postings take the
// sparse and the dense path, with repeated and unknown terms, removed and
// replaced documents and filters; released, it leaves the scratch clean
// for the next search.
func TestSearchHeldIsSearchAndScoreEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	for _, n := range []int{0, 1, 50, 700} {
		ix := New()
		for i, fs := range randomCorpus(rng, n) {
			ix.Add(i, fs...)
		}
		for d := 0; d < n/10; d++ {
			ix.Remove(rng.IntN(n))
		}
		if n > 0 {
			ix.Add(rng.IntN(n), Field{Text: "alpha beta omega", Weight: 1})
		}
		docs := make([]int, n+5)
		for i := range docs {
			docs[i] = i - 2 // two unknown docs below, three above
		}
		for range 40 {
			var q []string
			for range 1 + rng.IntN(5) {
				u := rng.Float64()
				q = append(q, greek[int(u*u*u*float64(len(greek)))])
			}
			if rng.IntN(4) == 0 {
				q = append(q, "nosuchterm", q[0])
			}
			terms := analyze.Terms(strings.Join(q, " "))
			k := rng.IntN(30)
			var allow func(int) bool
			if rng.IntN(2) == 0 {
				allow = func(d int) bool { return d%3 != 0 }
			}
			want := ix.Search(terms, k, allow)
			wantScores := make([]float64, len(docs))
			ix.ScoreEach(terms, docs, wantScores)

			got, held := ix.SearchHeld(terms, k, allow)
			scores := make([]float64, len(docs))
			held.ScoreEach(docs, scores)
			held.Release()
			if !slices.Equal(got, want) {
				t.Fatalf("%d docs, %q: held hits %v, Search %v", n, terms, got, want)
			}
			for i := range docs {
				if math.Float64bits(scores[i]) != math.Float64bits(wantScores[i]) {
					t.Fatalf("%d docs, %q: doc %d held score %v, ScoreEach %v", n, terms, docs[i], scores[i], wantScores[i])
				}
			}
			sc := ix.scratch.Get().(*scratch)
			if slices.ContainsFunc(sc.score, func(v float64) bool { return v != 0 }) || len(sc.touched) > 0 {
				t.Fatalf("%d docs, %q: Release left scores behind", n, terms)
			}
			ix.scratch.Put(sc)
		}
	}
}
