package rerank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// TestReasonMatchesFmt checks reason, which writes with strconv into one
// buffer, against the fmt.Sprintf version it replaced (kept below), on
// random weights, features and candidates: ties, zeros, NaN, infinities,
// negative zero, long and invalid UTF-8 examples. Decision logs and
// --explain output must not change by a byte.
func TestReasonMatchesFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 15))
	odd := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0.05, -0.05, 0.125, 1e-300, 123456.789}
	pick := func() float64 {
		switch r.IntN(4) {
		case 0:
			return odd[r.IntN(len(odd))]
		case 1:
			return float64(r.IntN(5)) / 4 // exact ties
		}
		return r.NormFloat64() * 3
	}
	examples := []string{
		"short one",
		strings.Repeat("long example words ", 8),
		strings.Repeat("é", 70),
		"bad \xff byte " + strings.Repeat("x", 70),
		strings.Repeat("y", 58) + "\xfe\xfd" + strings.Repeat("z", 20),
		strings.Repeat("q", 59) + "\"quoted\"\n",
	}
	var sc reasonScratch
	for trial := range 3000 {
		n := 1 + r.IntN(NumFeatures)
		names := slices.Clone(FeatureNames)
		r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		w := Weights{Features: names[:n]}
		for range n {
			w.Mean = append(w.Mean, float64(r.IntN(3))/2)
			w.Scale = append(w.Scale, 0.5+float64(r.IntN(3)))
			wt := pick()
			if math.IsNaN(wt) || math.IsInf(wt, 0) {
				wt = 0
			}
			w.W = append(w.W, wt)
		}
		l, err := NewLearned(w)
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, NumFeatures)
		for i := range f {
			f[i] = pick()
		}
		s := &Scored{Score: pick(), Candidate: index.Candidate{
			BM25: pick(), BM25Rank: r.IntN(30), DenseRank: r.IntN(30) - 1,
			Dense: float32(pick()), ExampleSim: float32(pick()), BestExample: r.IntN(len(examples)+2) - 1,
			Entry: &index.Doc{Examples: examples},
		}}
		want := fmtReason(l, f, s)
		if got := l.reason(f, s, &sc); got != want {
			t.Fatalf("trial %d: reason\n%q, fmt wrote\n%q", trial, got, want)
		}
	}
	for _, e := range examples {
		if got, want := clip(e, 60), runeClip(e, 60); got != want {
			t.Errorf("clip(%q) = %q, want %q", e, got, want)
		}
	}
}

// fmtReason is reason as it was written with fmt.
func fmtReason(l *Learned, f []float64, s *Scored) string {
	type oldContrib struct {
		name string
		v    float64
	}
	var cs []oldContrib
	for i, p := range l.pos {
		cs = append(cs, oldContrib{l.w.Features[i], l.w.W[i] * (f[p] - l.w.Mean[i]) / l.w.Scale[i]})
	}
	slices.SortFunc(cs, func(a, b oldContrib) int {
		switch x, y := math.Abs(a.v), math.Abs(b.v); {
		case x > y:
			return -1
		case y > x:
			return 1
		}
		return 0
	})
	var parts []string
	for _, c := range cs {
		if len(parts) == 3 {
			break
		}
		word := fmtDescribe(c.name, f, s)
		if word == "" || slices.ContainsFunc(parts, func(p string) bool { return p[2:] == word }) {
			continue
		}
		sign := "+"
		if c.v < 0 {
			sign = "-"
		}
		parts = append(parts, sign+" "+word)
	}
	return fmt.Sprintf("fit %.1f/10: %s", s.Score, strings.Join(parts, "; "))
}

func fmtDescribe(feature string, f []float64, s *Scored) string {
	at := func(name string) float64 { return f[slices.Index(FeatureNames, name)] }
	switch feature {
	case "fused_rr", "bm25_rr", "dense_rr":
		return fmt.Sprintf("retrieval ranks BM25 #%d, dense #%d", s.BM25Rank, s.DenseRank)
	case "bm25_norm", "bm25_log", "bm25_gap":
		return fmt.Sprintf("word match BM25 %.1f", s.BM25)
	case "dense", "desc_sim", "dense_gap":
		return fmt.Sprintf("meaning similarity %.2f", s.Dense)
	case "example_sim":
		if s.BestExample >= 0 && s.BestExample < len(s.Entry.Examples) {
			return fmt.Sprintf("closest example %.2f (%q)", s.ExampleSim, runeClip(s.Entry.Examples[s.BestExample], 60))
		}
		return fmt.Sprintf("closest example %.2f", s.ExampleSim)
	case "knn_vote", "knn_top":
		return fmt.Sprintf("%.0f%% of the nearest examples are this skill's", 100*at("knn_vote"))
	case "cover_name":
		return fmt.Sprintf("name and tags cover %.0f%% of the need", 100*at("cover_name"))
	case "cover_desc", "cover_ex", "cover_all":
		return fmt.Sprintf("skill text covers %.0f%% of the need", 100*at("cover_all"))
	case "cover_miss":
		return fmt.Sprintf("%.0f%% of the need is not in the skill's text", 100*at("cover_miss"))
	case "format_in":
		return "names the input type exactly"
	case "format_out":
		return "names the output type exactly"
	}
	return ""
}

func runeClip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
