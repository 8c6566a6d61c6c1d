package rerank_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
)

// logitReference is Logit over the weights as stored: the linear part,
// then each tree walked in its JSON form, added in order.
func logitReference(w rerank.Weights, f []float64) float64 {
	pos := make([]int, len(w.Features))
	for i, name := range w.Features {
		pos[i] = slices.Index(rerank.FeatureNames, name)
	}
	z := w.Bias
	for i, p := range pos {
		z += w.W[i] * (f[p] - w.Mean[i]) / w.Scale[i]
	}
	for _, t := range w.Trees {
		n := &t.Nodes[0]
		for n.Feature >= 0 {
			if f[pos[n.Feature]] <= n.Threshold {
				n = &t.Nodes[n.Left]
			} else {
				n = &t.Nodes[n.Right]
			}
		}
		z += n.Value
	}
	return z
}

// The compiled forest gives the shipped model's logits bit for bit, on
// feature vectors that sit on the thresholds too.
func TestForestIsTheTrees(t *testing.T) {
	w := model.Default().Reranker
	l, err := rerank.NewLearned(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Trees) == 0 {
		t.Fatal("the default model has no trees to compare")
	}
	var thresholds []float64
	for _, tr := range w.Trees {
		for _, n := range tr.Nodes {
			if n.Feature >= 0 {
				thresholds = append(thresholds, n.Threshold)
			}
		}
	}
	rng := rand.New(rand.NewPCG(8, 9))
	f := make([]float64, len(rerank.FeatureNames))
	for range 5000 {
		for i := range f {
			switch rng.IntN(3) {
			case 0:
				f[i] = thresholds[rng.IntN(len(thresholds))]
			case 1:
				f[i] = rng.Float64()
			default:
				f[i] = rng.NormFloat64() * 3
			}
		}
		if got, want := l.Logit(f), logitReference(w, f); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Logit %v, reference %v for %v", got, want, f)
		}
	}
}

// Random trees of every depth, shallow ones padded and deep ones walked
// as they are, give the logits of the trees as stored, bit for bit.
func TestForestOfRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	features := rerank.FeatureNames[:6]
	for _, depth := range []int{0, 1, 3, 6, 7, 9} {
		w := rerank.Weights{Features: features, Bias: rng.NormFloat64()}
		for range features {
			w.Mean = append(w.Mean, rng.Float64())
			w.Scale = append(w.Scale, 0.5+rng.Float64())
			w.W = append(w.W, rng.NormFloat64())
		}
		for range 20 {
			var tr rerank.Tree
			var grow func(d int) int
			grow = func(d int) int {
				i := len(tr.Nodes)
				tr.Nodes = append(tr.Nodes, rerank.Node{Feature: -1, Value: rng.NormFloat64()})
				if d < depth && (d == 0 || rng.IntN(4) > 0) {
					tr.Nodes[i] = rerank.Node{Feature: rng.IntN(len(features)), Threshold: rng.NormFloat64()}
					l := grow(d + 1)
					r := grow(d + 1)
					tr.Nodes[i].Left, tr.Nodes[i].Right = l, r
				}
				return i
			}
			grow(0)
			w.Trees = append(w.Trees, tr)
		}
		l, err := rerank.NewLearned(w)
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		f := make([]float64, len(rerank.FeatureNames))
		for range 2000 {
			for i := range f {
				f[i] = rng.NormFloat64()
				if rng.IntN(50) == 0 {
					f[i] = math.NaN()
				}
			}
			if got, want := l.Logit(f), logitReference(w, f); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("depth %d: Logit %v, reference %v", depth, got, want)
			}
		}
	}
}
