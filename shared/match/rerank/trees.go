package rerank

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Tree is one regression tree of the boosted part of the model. Nodes are
// stored flat; node 0 is the root. A leaf has Feature -1.
type Tree struct {
	Nodes []Node `json:"nodes"`
}

// Node of a tree: go Left when x[Feature] <= Threshold.
type Node struct {
	Feature   int     `json:"f"`
	Threshold float64 `json:"t,omitempty"`
	Left      int     `json:"l,omitempty"`
	Right     int     `json:"r,omitempty"`
	Value     float64 `json:"v,omitempty"`
}

// forest is a model's trees compiled for evaluation: every node in one
// array, 24 bytes each, its feature already mapped to its place in a
// Features vector and a leaf's value in the threshold's place. A shortlist
// walks 150 trees per candidate; the JSON form's 48-byte nodes, one array
// per tree and the position lookup per step were a tenth of a decision at
// 1,000 skills. It adds the same values in the same order as eval.
type forest struct {
	nodes []flatNode
	roots []int32
}

type flatNode struct {
	at          float64 // threshold, or a leaf's value
	feature     int32   // index into the Features vector; -1 for a leaf
	left, right int32   // indexes into forest.nodes
}

// compile lays out checked trees whose features index pos.
func compile(trees []Tree, pos []int) forest {
	var fo forest
	for _, t := range trees {
		base := int32(len(fo.nodes))
		fo.roots = append(fo.roots, base)
		for _, n := range t.Nodes {
			fn := flatNode{at: n.Value, feature: -1}
			if n.Feature >= 0 {
				fn = flatNode{at: n.Threshold, feature: int32(pos[n.Feature]),
					left: base + int32(n.Left), right: base + int32(n.Right)}
			}
			fo.nodes = append(fo.nodes, fn)
		}
	}
	return fo
}

// add adds each tree's output for f to z, in tree order.
func (fo *forest) add(z float64, f []float64) float64 {
	nodes := fo.nodes
	for _, r := range fo.roots {
		n := &nodes[r]
		for n.feature >= 0 {
			if f[n.feature] <= n.at {
				n = &nodes[n.left]
			} else {
				n = &nodes[n.right]
			}
		}
		z += n.at
	}
	return z
}

func (t *Tree) check(nfeat int) error {
	if len(t.Nodes) == 0 {
		return errors.New("empty tree")
	}
	for i, n := range t.Nodes {
		if n.Feature >= nfeat {
			return fmt.Errorf("node %d: feature %d of %d", i, n.Feature, nfeat)
		}
		if n.Feature >= 0 && (n.Left <= i || n.Right <= i || n.Left >= len(t.Nodes) || n.Right >= len(t.Nodes)) {
			return fmt.Errorf("node %d: children %d, %d", i, n.Left, n.Right)
		}
	}
	return nil
}

// boostConfig drives gradient boosting of the trees.
type boostConfig struct {
	trees     int
	depth     int
	rate      float64
	lambda    float64
	minHess   float64
	bins      int
	subsample float64
	seed      uint64
}

var defaultBoost = boostConfig{trees: 150, depth: 4, rate: 0.1, lambda: 1, minHess: 5, bins: 48, subsample: 0.7, seed: 1}

// boost fits trees to the logistic loss starting from the margins base
// (the linear model's logits). Features are binned at quantiles so a
// split search is one histogram pass per node.
func boost(xs [][]float64, ys, ws []float64, base []float64, cfg boostConfig) []Tree {
	n, nf := len(xs), len(xs[0])
	// Quantile thresholds per feature.
	cuts := make([][]float64, nf)
	col := make([]float64, n)
	for j := range nf {
		for i := range n {
			col[i] = xs[i][j]
		}
		s := slices.Clone(col)
		slices.Sort(s)
		var c []float64
		for b := 1; b < cfg.bins; b++ {
			v := s[b*(n-1)/cfg.bins]
			if len(c) == 0 || v > c[len(c)-1] {
				c = append(c, v)
			}
		}
		cuts[j] = c
	}
	// bin[i*nf+j] is the bin of xs[i][j]: the number of cuts below it.
	bin := make([]uint8, n*nf)
	for i := range n {
		for j := range nf {
			b, _ := slices.BinarySearch(cuts[j], xs[i][j])
			bin[i*nf+j] = uint8(b)
		}
	}
	margin := slices.Clone(base)
	g := make([]float64, n)
	h := make([]float64, n)
	rng := rand.New(rand.NewPCG(cfg.seed, 7))
	var trees []Tree
	rows := make([]int, 0, n)
	for range cfg.trees {
		for i := range n {
			p := 1 / (1 + math.Exp(-margin[i]))
			g[i], h[i] = ws[i]*(p-ys[i]), ws[i]*math.Max(p*(1-p), 1e-6)
		}
		rows = rows[:0]
		for i := range n {
			if rng.Float64() < cfg.subsample {
				rows = append(rows, i)
			}
		}
		t := Tree{}
		grow(&t, rows, 0, xs, bin, nf, cuts, g, h, cfg)
		trees = append(trees, t)
		for i := range n {
			margin[i] += t.evalRaw(xs[i])
		}
	}
	return trees
}

func (t *Tree) evalRaw(f []float64) float64 {
	n := &t.Nodes[0]
	for n.Feature >= 0 {
		if f[n.Feature] <= n.Threshold {
			n = &t.Nodes[n.Left]
		} else {
			n = &t.Nodes[n.Right]
		}
	}
	return n.Value
}

// grow adds the node for rows at depth and returns its index.
func grow(t *Tree, rows []int, depth int, xs [][]float64, bin []uint8, nf int, cuts [][]float64,
	g, h []float64, cfg boostConfig) int {
	var G, H float64
	for _, i := range rows {
		G += g[i]
		H += h[i]
	}
	me := len(t.Nodes)
	t.Nodes = append(t.Nodes, Node{Feature: -1, Value: -cfg.rate * G / (H + cfg.lambda)})
	if depth >= cfg.depth || H < 2*cfg.minHess {
		return me
	}
	bestGain, bestF, bestB := 1e-9, -1, 0
	nb := cfg.bins + 1
	hg := make([]float64, nb)
	hh := make([]float64, nb)
	parent := G * G / (H + cfg.lambda)
	for j := range nf {
		if len(cuts[j]) == 0 {
			continue
		}
		clear(hg)
		clear(hh)
		for _, i := range rows {
			b := bin[i*nf+j]
			hg[b] += g[i]
			hh[b] += h[i]
		}
		var gl, hl float64
		for b := 0; b < len(cuts[j]); b++ {
			gl += hg[b]
			hl += hh[b]
			gr, hr := G-gl, H-hl
			if hl < cfg.minHess || hr < cfg.minHess {
				continue
			}
			gain := gl*gl/(hl+cfg.lambda) + gr*gr/(hr+cfg.lambda) - parent
			if gain > bestGain {
				bestGain, bestF, bestB = gain, j, b
			}
		}
	}
	if bestF < 0 {
		return me
	}
	var left, right []int
	for _, i := range rows {
		if int(bin[i*nf+bestF]) <= bestB {
			left = append(left, i)
		} else {
			right = append(right, i)
		}
	}
	t.Nodes[me].Feature = bestF
	t.Nodes[me].Threshold = cuts[bestF][bestB]
	t.Nodes[me].Value = 0
	l := grow(t, left, depth+1, xs, bin, nf, cuts, g, h, cfg)
	r := grow(t, right, depth+1, xs, bin, nf, cuts, g, h, cfg)
	t.Nodes[me].Left, t.Nodes[me].Right = l, r
	return me
}
