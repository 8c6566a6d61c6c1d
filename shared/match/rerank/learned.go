package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Weights are what fitting learned: a logistic model over standardised
// features. Fit = 10 · σ(bias + Σ w_i · (x_i − mean_i) / scale_i).
type Weights struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	W        []float64 `json:"w"`
	Bias     float64   `json:"bias"`
	// Trees are boosted on top of the linear logit to catch what a line
	// cannot (interactions, thresholds); their features index Features.
	Trees []Tree `json:"trees,omitempty"`
	// Stack, when set, turns each candidate's logit into its fit given its
	// rivals in the shortlist.
	Stack *Stack `json:"stack,omitempty"`
}

// ErrBadWeights is returned for weights that do not fit the feature set.
var ErrBadWeights = errors.New("invalid reranker weights")

// Learned is the built-in reranker: a fitted logistic model over features
// that read the task and each candidate together.
type Learned struct {
	w Weights
	// pos[i] is where weight i's feature sits in a Features vector.
	pos []int
	// forest is the weights' trees laid out for Logit (see compile).
	forest forest
	// feats holds *[]float64 for Rerank's feature vectors, which it
	// drops once the shortlist is scored: 7 KB a decision, reused.
	feats sync.Pool
}

// NewLearned checks the weights against the known features. Features the
// weights do not name get weight zero; a weight for an unknown feature is
// an error (a model from a newer skillmatch).
func NewLearned(w Weights) (*Learned, error) {
	n := len(w.Features)
	if len(w.Mean) != n || len(w.Scale) != n || len(w.W) != n {
		return nil, fmt.Errorf("%w: %d features but %d means, %d scales, %d weights",
			ErrBadWeights, n, len(w.Mean), len(w.Scale), len(w.W))
	}
	l := &Learned{w: w, pos: make([]int, n)}
	for i, name := range w.Features {
		l.pos[i] = -1
		for j, known := range FeatureNames {
			if known == name {
				l.pos[i] = j
			}
		}
		if l.pos[i] < 0 {
			return nil, fmt.Errorf("%w: unknown feature %q", ErrBadWeights, name)
		}
		if w.Scale[i] <= 0 || math.IsNaN(w.W[i]) || math.IsInf(w.W[i], 0) {
			return nil, fmt.Errorf("%w: feature %q has scale %v, weight %v", ErrBadWeights, name, w.Scale[i], w.W[i])
		}
	}
	for i := range w.Trees {
		if err := w.Trees[i].check(n); err != nil {
			return nil, fmt.Errorf("%w: tree %d: %v", ErrBadWeights, i, err)
		}
	}
	l.forest = compile(w.Trees, l.pos)
	return l, nil
}

// Weights returns the model's weights.
func (l *Learned) Weights() Weights { return l.w }

// Logit is the model's log-odds for one feature vector.
func (l *Learned) Logit(f []float64) float64 {
	z := l.w.Bias
	for i, p := range l.pos {
		z += l.w.W[i] * (f[p] - l.w.Mean[i]) / l.w.Scale[i]
	}
	return l.forest.add(z, f)
}

// Fits maps the feature vectors of one shortlist to 0-10 fit scores.
func (l *Learned) Fits(feats [][]float64) []float64 {
	z := make([]float64, len(feats))
	for i, f := range feats {
		z[i] = l.Logit(f)
	}
	if l.w.Stack != nil {
		for i, sf := range stackFeatures(z) {
			z[i] = l.w.Stack.logit(sf)
		}
	}
	for i := range z {
		z[i] = 10 / (1 + math.Exp(-z[i]))
	}
	return z
}

// Rerank scores and orders the shortlist.
func (l *Learned) Rerank(ctx context.Context, in *Input) ([]Scored, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	buf, _ := l.feats.Get().(*[]float64)
	if buf == nil {
		buf = new([]float64)
	}
	defer l.feats.Put(buf)
	feats := features(in, buf)
	fits := l.Fits(feats)
	cands := in.Result.Candidates
	order := make([]int, len(feats))
	for i := range order {
		order[i] = i
	}
	// Best fit first; a tie keeps the fused order.
	sort.SliceStable(order, func(a, b int) bool {
		i, j := order[a], order[b]
		if fits[i] != fits[j] {
			return fits[i] > fits[j]
		}
		return cands[i].FusedRank < cands[j].FusedRank
	})
	sorted := make([]Scored, len(order))
	var cs []contrib // reason's scratch
	for rank, i := range order {
		sorted[rank] = Scored{Candidate: cands[i], Score: fits[i]}
		// Reasons are sentences: write them only for the candidates a
		// decision can name (top, fallbacks, the clarifying pair), unless
		// the caller explains the whole shortlist.
		if rank < ReasonsFor || in.Explain {
			sorted[rank].Reason, cs = l.reason(feats[i], &sorted[rank], cs)
		}
	}
	return sorted, nil
}

// ReasonsFor is how many of the best candidates get a reason by default.
const ReasonsFor = 4

// contrib is one feature's share of a logit.
type contrib struct {
	name string
	v    float64
}

// reason names the evidence that moved the score most, in words. cs is
// scratch, handed back for the next candidate.
func (l *Learned) reason(f []float64, s *Scored, cs []contrib) (string, []contrib) {
	cs = cs[:0]
	for i, p := range l.pos {
		cs = append(cs, contrib{l.w.Features[i], l.w.W[i] * (f[p] - l.w.Mean[i]) / l.w.Scale[i]})
	}
	// The largest contributions first. slices.SortFunc runs the same
	// pattern-defeating quicksort as sort.Slice (both are generated from
	// one template), so ties come out in the same order, without
	// sort.Slice's reflection.
	slices.SortFunc(cs, func(a, b contrib) int {
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
		word := describe(c.name, f, s)
		if word == "" || slices.ContainsFunc(parts, func(p string) bool { return p[2:] == word }) {
			continue
		}
		sign := "+"
		if c.v < 0 {
			sign = "-"
		}
		parts = append(parts, sign+" "+word)
	}
	return fmt.Sprintf("fit %.1f/10: %s", s.Score, strings.Join(parts, "; ")), cs
}

func describe(feature string, f []float64, s *Scored) string {
	at := func(name string) float64 {
		for i, n := range FeatureNames {
			if n == name {
				return f[i]
			}
		}
		return 0
	}
	switch feature {
	case "fused_rr", "bm25_rr", "dense_rr":
		return fmt.Sprintf("retrieval ranks BM25 #%d, dense #%d", s.BM25Rank, s.DenseRank)
	case "bm25_norm", "bm25_log", "bm25_gap":
		return fmt.Sprintf("word match BM25 %.1f", s.BM25)
	case "dense", "desc_sim", "dense_gap":
		return fmt.Sprintf("meaning similarity %.2f", s.Dense)
	case "example_sim":
		if s.BestExample >= 0 && s.BestExample < len(s.Entry.Examples) {
			return fmt.Sprintf("closest example %.2f (%q)", s.ExampleSim, clip(s.Entry.Examples[s.BestExample], 60))
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

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
