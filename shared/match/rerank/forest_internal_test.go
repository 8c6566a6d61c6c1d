package rerank

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logits, which walks the trees for two vectors at once, gives each
// vector's Logit bit for bit, for lists of every length up to 21, with
// forests of 0 to 9 trees padded to depth 1 to 6, and with a tree too
// deep to pad, on vectors that sit on thresholds too.
func TestLogitsArePerVectorLogits(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	base := Weights{Features: FeatureNames}
	for range FeatureNames {
		base.Mean = append(base.Mean, rng.NormFloat64())
		base.Scale = append(base.Scale, 0.5+rng.Float64())
		base.W = append(base.W, rng.NormFloat64())
	}
	var models []Weights
	for trees := range 10 {
		w := base
		w.Trees = nil
		for range trees {
			w.Trees = append(w.Trees, Tree{Nodes: randomTree(rng, 1+rng.IntN(6))})
		}
		models = append(models, w)
	}
	deep := base
	deep.Trees = []Tree{{Nodes: randomTree(rng, 9)}, {Nodes: randomTree(rng, 3)}, {Nodes: randomTree(rng, 2)}}
	models = append(models, deep)
	for _, w := range models {
		l, err := NewLearned(w)
		if err != nil {
			t.Fatal(err)
		}
		for n := range 22 {
			feats := make([][]float64, n)
			for i := range feats {
				feats[i] = make([]float64, NumFeatures)
				for j := range feats[i] {
					switch rng.IntN(8) {
					case 0: // on a threshold (NaN, which step shares with add, would make every logit NaN)
						if len(w.Trees) > 0 {
							nodes := w.Trees[rng.IntN(len(w.Trees))].Nodes
							feats[i][j] = nodes[0].Threshold
						}
					case 1:
						feats[i][j] = 0
					default:
						feats[i][j] = rng.NormFloat64()
					}
				}
			}
			z := make([]float64, n)
			l.logits(feats, z)
			for i, f := range feats {
				if want := l.Logit(f); math.Float64bits(z[i]) != math.Float64bits(want) || math.IsNaN(want) {
					t.Fatalf("%d trees, list of %d: logit %d = %v, Logit says %v", len(w.Trees), n, i, z[i], want)
				}
			}
		}
	}
}

// randomTree is a tree at most depth deep, every node's children after
// it, some leaves above the bottom.
func randomTree(rng *rand.Rand, depth int) []Node {
	nodes := []Node{{}}
	var grow func(i, d int)
	grow = func(i, d int) {
		if d == depth || (d > 0 && rng.IntN(4) == 0) {
			nodes[i] = Node{Feature: -1, Value: rng.NormFloat64()}
			return
		}
		l := len(nodes)
		nodes = append(nodes, Node{}, Node{})
		nodes[i] = Node{Feature: rng.IntN(NumFeatures), Threshold: rng.NormFloat64(), Left: l, Right: l + 1}
		grow(l, d+1)
		grow(l+1, d+1)
	}
	grow(0, 0)
	return nodes
}
