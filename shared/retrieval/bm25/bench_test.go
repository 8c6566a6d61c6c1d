package bm25

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// synth generates skill-like documents: 30 words drawn from a Zipf
// distribution over a 20,000-word vocabulary, spread over the fields
// skillmatch indexes (name ×3: 3 words, tags ×2: 4, description ×1: 21,
// agent name ×0.5: 2).
//
// Words are two consonant-vowel-consonant syllables over letters the
// Snowball stemmer has no suffix rule for, so the vocabulary survives
// analysis intact and the benchmark measures the index, not stem collisions.
type synth struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

const vocabSize = 20000

func newSynth(seed uint64) *synth {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	const cons, vows = "bdfgkmnprtvz", "aiou"
	seen := map[string]bool{}
	vocab := make([]string, 0, vocabSize)
	syl := func() string {
		return string([]byte{cons[rng.IntN(len(cons))], vows[rng.IntN(len(vows))], cons[rng.IntN(len(cons))]})
	}
	for len(vocab) < vocabSize {
		w := syl() + syl()
		if !seen[w] && !analyze.IsStopword(w) {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	// s=1.07 approximates natural-language word frequencies.
	return &synth{rng: rng, zipf: rand.NewZipf(rng, 1.07, 1, vocabSize-1), vocab: vocab}
}

func (s *synth) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = s.vocab[s.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

func (s *synth) doc() []Field {
	return []Field{
		{Text: s.words(3), Weight: 3},
		{Text: s.words(4), Weight: 2},
		{Text: s.words(21), Weight: 1},
		{Text: s.words(2), Weight: 0.5},
	}
}

// query draws 8 terms from the same distribution as the documents, so
// frequent terms with long postings lists are common, as in real queries
// that survive stopword removal.
func (s *synth) query() []string {
	return analyze.Terms(s.words(8))
}

func buildIndex(b *testing.B, s *synth, n int) *Index {
	b.Helper()
	ix := New()
	for d := 0; d < n; d++ {
		ix.Add(d, s.doc()...)
	}
	return ix
}

func BenchmarkAdd(b *testing.B) {
	s := newSynth(1)
	const pool = 20000
	docs := make([][]Field, pool)
	for i := range docs {
		docs[i] = s.doc()
	}
	ix := New()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ix.Add(n, docs[n%pool]...)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkAnalyseOnly times analyze.Terms alone on the same fields: what
// every Add would cost without the index's word cache. The synthetic words
// have no suffixes to strip; real English stems more slowly still.
func BenchmarkAnalyseOnly(b *testing.B) {
	s := newSynth(1)
	const pool = 20000
	docs := make([][]Field, pool)
	for i := range docs {
		docs[i] = s.doc()
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, f := range docs[n%pool] {
			analyze.Terms(f.Text)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		s := newSynth(2)
		ix := buildIndex(b, s, n)
		queries := make([][]string, 256)
		for i := range queries {
			queries[i] = s.query()
		}
		b.Run(fmt.Sprintf("docs=%d/k=10", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ix.Search(queries[i%len(queries)], 10, nil)
				i++
			}
		})
		b.Run(fmt.Sprintf("docs=%d/k=100/filter", n), func(b *testing.B) {
			allow := func(doc int) bool { return doc%3 != 0 }
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ix.Search(queries[i%len(queries)], 100, allow)
				i++
			}
		})
	}
}

func BenchmarkScores(b *testing.B) {
	s := newSynth(3)
	ix := buildIndex(b, s, 100000)
	queries := make([][]string, 256)
	for i := range queries {
		queries[i] = s.query()
	}
	dst := map[int]float64{}
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ix.Scores(queries[i%len(queries)], dst)
			i++
		}
	})
	b.Run("one-doc", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ix.Score(queries[i%len(queries)], i%100000)
			i++
		}
	})
}

func BenchmarkRemoveAdd(b *testing.B) {
	s := newSynth(4)
	const n = 100000
	ix := buildIndex(b, s, n)
	docs := make([][]Field, 1000)
	for i := range docs {
		docs[i] = s.doc()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Replace a card: remove then re-add, compaction included.
		ix.Remove(i % n)
		ix.Add(i%n, docs[i%len(docs)]...)
		i++
	}
}
