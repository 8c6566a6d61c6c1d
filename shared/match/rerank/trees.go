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

// forest is a model's trees compiled for evaluation. A shortlist walks
// 150 trees per candidate, and the walk's branches, taken one way or the
// other at random, were an eighth of a decision at 1,000 skills. So each
// tree is padded to a complete tree of the forest's depth, laid out
// breadth first (node i's children are 2i+1 and 2i+2), every node's
// feature already mapped to its place in a Features vector: a walk is
// then depth steps of arithmetic the compiler does without a branch. A
// leaf above the bottom becomes nodes that compare with +∞ over copies of
// its value, so every path reaches the leaf the tree would. Deeper
// forests keep the trees' own shape (flat). Either way the same values
// are added in the same order as walking the JSON trees.
type forest struct {
	depth int
	// nodes holds 2^depth - 1 internal nodes per tree, leaves 2^depth
	// values per tree.
	nodes  []paddedNode
	leaves []float64
	trees  int
	// flat and roots hold the trees as they are when a tree is deeper
	// than maxPaddedDepth.
	flat  []flatNode
	roots []int32
}

// maxPaddedDepth bounds the padding: a complete tree doubles with each
// level.
const maxPaddedDepth = 6

type paddedNode struct {
	at      float64 // go right unless f[feature] <= at
	feature int32
}

type flatNode struct {
	at          float64 // threshold, or a leaf's value
	feature     int32   // index into the Features vector; -1 for a leaf
	left, right int32   // indexes into forest.flat
}

// compile lays out checked trees whose features index pos.
func compile(trees []Tree, pos []int) forest {
	fo := forest{trees: len(trees)}
	for i := range trees {
		fo.depth = max(fo.depth, trees[i].depth())
	}
	if fo.depth > maxPaddedDepth {
		fo.depth = -1
		for _, t := range trees {
			base := int32(len(fo.flat))
			fo.roots = append(fo.roots, base)
			for _, n := range t.Nodes {
				fn := flatNode{at: n.Value, feature: -1}
				if n.Feature >= 0 {
					fn = flatNode{at: n.Threshold, feature: int32(pos[n.Feature]),
						left: base + int32(n.Left), right: base + int32(n.Right)}
				}
				fo.flat = append(fo.flat, fn)
			}
		}
		return fo
	}
	internal, leaves := 1<<fo.depth-1, 1<<fo.depth
	fo.nodes = make([]paddedNode, len(trees)*internal)
	fo.leaves = make([]float64, len(trees)*leaves)
	for ti := range trees {
		t := &trees[ti]
		nodes := fo.nodes[ti*internal : (ti+1)*internal]
		vals := fo.leaves[ti*leaves : (ti+1)*leaves]
		var fill func(ni, at, d int)
		fill = func(ni, at, d int) {
			n := &t.Nodes[ni]
			switch {
			case d == fo.depth: // a leaf: depth counts internal nodes
				vals[at-internal] = n.Value
			case n.Feature < 0:
				nodes[at] = paddedNode{at: math.Inf(1)}
				fill(ni, 2*at+1, d+1)
				fill(ni, 2*at+2, d+1)
			default:
				nodes[at] = paddedNode{at: n.Threshold, feature: int32(pos[n.Feature])}
				fill(n.Left, 2*at+1, d+1)
				fill(n.Right, 2*at+2, d+1)
			}
		}
		fill(0, 0, 0)
	}
	return fo
}

// depth is the most internal nodes on a path from the root to a leaf,
// worked out from the last node back (a checked tree's children come
// after their parent), so that nodes shared by several parents cost once.
func (t *Tree) depth() int {
	d := make([]int, len(t.Nodes))
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		if n := &t.Nodes[i]; n.Feature >= 0 {
			d[i] = 1 + max(d[n.Left], d[n.Right])
		}
	}
	return d[0]
}

// add adds each tree's output for f to z, in tree order.
func (fo *forest) add(z float64, f []float64) float64 {
	if fo.depth < 0 {
		for _, r := range fo.roots {
			n := &fo.flat[r]
			for n.feature >= 0 {
				if f[n.feature] <= n.at {
					n = &fo.flat[n.left]
				} else {
					n = &fo.flat[n.right]
				}
			}
			z += n.at
		}
		return z
	}
	internal, leaves := 1<<fo.depth-1, 1<<fo.depth
	t := 0
	// Four trees walk side by side: each step waits on the one before
	// it, so four independent walks fill the time one would leave idle.
	// Their leaves are added in tree order all the same.
	for ; t+4 <= fo.trees; t += 4 {
		n0 := fo.nodes[t*internal : (t+1)*internal]
		n1 := fo.nodes[(t+1)*internal : (t+2)*internal]
		n2 := fo.nodes[(t+2)*internal : (t+3)*internal]
		n3 := fo.nodes[(t+3)*internal : (t+4)*internal]
		i0, i1, i2, i3 := 0, 0, 0, 0
		for range fo.depth {
			i0 = step(n0, i0, f)
			i1 = step(n1, i1, f)
			i2 = step(n2, i2, f)
			i3 = step(n3, i3, f)
		}
		z += fo.leaves[t*leaves+i0-internal]
		z += fo.leaves[(t+1)*leaves+i1-internal]
		z += fo.leaves[(t+2)*leaves+i2-internal]
		z += fo.leaves[(t+3)*leaves+i3-internal]
	}
	for ; t < fo.trees; t++ {
		nodes := fo.nodes[t*internal : (t+1)*internal]
		i := 0
		for range fo.depth {
			i = step(nodes, i, f)
		}
		z += fo.leaves[t*leaves+i-internal]
	}
	return z
}

// add2 is add for two feature vectors at once: eight walks side by side
// (four trees, each for both vectors) instead of four, each vector's
// leaves added in tree order as add adds them.
func (fo *forest) add2(z0, z1 float64, f0, f1 []float64) (float64, float64) {
	if fo.depth < 0 {
		return fo.add(z0, f0), fo.add(z1, f1)
	}
	internal, leaves := 1<<fo.depth-1, 1<<fo.depth
	t := 0
	for ; t+4 <= fo.trees; t += 4 {
		n0 := fo.nodes[t*internal : (t+1)*internal]
		n1 := fo.nodes[(t+1)*internal : (t+2)*internal]
		n2 := fo.nodes[(t+2)*internal : (t+3)*internal]
		n3 := fo.nodes[(t+3)*internal : (t+4)*internal]
		a0, a1, a2, a3 := 0, 0, 0, 0
		b0, b1, b2, b3 := 0, 0, 0, 0
		for range fo.depth {
			a0 = step(n0, a0, f0)
			b0 = step(n0, b0, f1)
			a1 = step(n1, a1, f0)
			b1 = step(n1, b1, f1)
			a2 = step(n2, a2, f0)
			b2 = step(n2, b2, f1)
			a3 = step(n3, a3, f0)
			b3 = step(n3, b3, f1)
		}
		lv := fo.leaves[t*leaves : (t+4)*leaves]
		z0 += lv[a0-internal]
		z0 += lv[leaves+a1-internal]
		z0 += lv[2*leaves+a2-internal]
		z0 += lv[3*leaves+a3-internal]
		z1 += lv[b0-internal]
		z1 += lv[leaves+b1-internal]
		z1 += lv[2*leaves+b2-internal]
		z1 += lv[3*leaves+b3-internal]
	}
	for ; t < fo.trees; t++ {
		nodes := fo.nodes[t*internal : (t+1)*internal]
		a, b := 0, 0
		for range fo.depth {
			a = step(nodes, a, f0)
			b = step(nodes, b, f1)
		}
		z0 += fo.leaves[t*leaves+a-internal]
		z1 += fo.leaves[t*leaves+b-internal]
	}
	return z0, z1
}

// step is node i's child for f in a padded tree: right unless
// f[feature] <= at, NaN included.
func step(nodes []paddedNode, i int, f []float64) int {
	n := &nodes[i]
	right := 0
	if !(f[n.feature] <= n.at) {
		right = 1
	}
	return 2*i + 1 + right
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
