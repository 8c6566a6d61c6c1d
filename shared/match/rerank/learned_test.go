package rerank

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// vec is a feature vector with the named features set.
func vec(set map[string]float64) []float64 {
	f := make([]float64, NumFeatures)
	for i, n := range FeatureNames {
		f[i] = set[n]
	}
	return f
}

func mustLearned(t *testing.T, w Weights) *Learned {
	t.Helper()
	l, err := NewLearned(w)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// coverModel scores by coverage, for tests that need a model whose answer
// they can work out by hand: logit = 1 + 2·(cover_all − 0.5)/0.25 − 1·(cover_miss − 0.5)/0.5.
func coverModel(t *testing.T) *Learned {
	return mustLearned(t, Weights{
		Features: []string{"cover_all", "cover_miss"},
		Mean:     []float64{0.5, 0.5},
		Scale:    []float64{0.25, 0.5},
		W:        []float64{2, -1},
		Bias:     1,
	})
}

func sigmoid10(z float64) float64 { return 10 / (1 + math.Exp(-z)) }

func TestLogitAndFit(t *testing.T) {
	l := coverModel(t)
	tests := []struct {
		all, miss, logit float64
	}{
		{1, 0, 1 + 2*2 + 1},       // all covered
		{0, 1, 1 - 2*2 - 1},       // nothing covered
		{0.5, 0.5, 1},             // at the mean: the bias alone
		{0.75, 0.25, 1 + 2 + 0.5}, // one scale up
	}
	for _, tt := range tests {
		f := vec(map[string]float64{"cover_all": tt.all, "cover_miss": tt.miss})
		if got := l.Logit(f); math.Abs(got-tt.logit) > 1e-12 {
			t.Errorf("Logit(all %v, miss %v) = %v, want %v", tt.all, tt.miss, got, tt.logit)
		}
		if got := l.Fits([][]float64{f})[0]; math.Abs(got-sigmoid10(tt.logit)) > 1e-12 {
			t.Errorf("fit(all %v, miss %v) = %v, want %v", tt.all, tt.miss, got, sigmoid10(tt.logit))
		}
	}
	// Features the weights do not name do not move the score.
	f := vec(map[string]float64{"cover_all": 1, "bm25_norm": 1, "dense": 1})
	if got, want := l.Logit(f), 6.0; got != want {
		t.Errorf("unnamed features changed the logit: %v, want %v", got, want)
	}
}

func TestFitRange(t *testing.T) {
	l := mustLearned(t, Weights{
		Features: []string{"bm25_log", "dense"},
		Mean:     []float64{0, 0},
		Scale:    []float64{1e-3, 1e-3},
		W:        []float64{50, -50},
		Stack:    &Stack{Z: 3, Lead: 2, Share: 1, Bias: -1},
	})
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		feats := make([][]float64, 1+r.IntN(6))
		for i := range feats {
			feats[i] = vec(map[string]float64{"bm25_log": 100 * (r.Float64() - 0.5), "dense": 100 * (r.Float64() - 0.5)})
		}
		for _, s := range l.Fits(feats) {
			if math.IsNaN(s) || s < 0 || s > 10 {
				t.Fatalf("fit %v outside 0-10", s)
			}
		}
	}
}

func TestStackFeatures(t *testing.T) {
	got := stackFeatures([]float64{2, 1, -1}, nil)
	sum := math.Exp(0) + math.Exp(-1) + math.Exp(-3)
	want := [][]float64{
		{2, 1, 1 / sum},              // lead over the runner-up
		{1, -1, math.Exp(-1) / sum},  // behind the best
		{-1, -3, math.Exp(-3) / sum}, // far behind
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-12 {
				t.Errorf("stackFeatures[%d] = %v, want %v", i, got[i], want[i])
				break
			}
		}
	}
	// Alone in the shortlist: a fixed lead, the whole share.
	if got := stackFeatures([]float64{0.3}, nil); !reflect.DeepEqual(got, [][]float64{{0.3, 5, 1}}) {
		t.Errorf("alone: %v", got)
	}
	// Leads are clamped to ±10.
	got = stackFeatures([]float64{30, 0}, nil)
	if got[0][1] != 10 || got[1][1] != -10 {
		t.Errorf("leads %v, %v: want clamped to ±10", got[0][1], got[1][1])
	}
	// A tie for best: each leads the other by zero.
	got = stackFeatures([]float64{1, 1}, nil)
	if got[0][1] != 0 || got[1][1] != 0 || got[0][2] != 0.5 {
		t.Errorf("tie: %v", got)
	}
}

// Kin (one skill of several agents) are not each other's rivals: a
// candidate's lead is over the best candidate that is not its kin, and
// one whose only other candidates are kin stands alone. Kinship is read
// pair by pair: 0 and 2 are both kin of 1 but not of each other. The
// share still counts every candidate.
func TestStackFeaturesKin(t *testing.T) {
	tests := []struct {
		name string
		z    []float64
		kin  [][]int
		lead []float64
	}{
		{"no kin", []float64{2, 1.9, -1}, nil, []float64{0.1, -0.1, -3}},
		{"the top two kin", []float64{2, 1.9, -1}, [][]int{{1}, {0}, nil}, []float64{3, 2.9, -3}},
		{"kin behind the best", []float64{2, 1.9, 1.8}, [][]int{nil, {2}, {1}}, []float64{0.1, -0.1, -0.2}},
		{"only kin", []float64{2, 1.9}, [][]int{{1}, {0}}, []float64{5, 5}},
		{"kin of a third are rivals", []float64{2, 1.9, 1.8, -1}, [][]int{{1}, {0, 2}, {1}, nil}, []float64{0.2, 2.9, -0.2, -3}},
		{"a short kin list", []float64{2, 1.9, -1}, [][]int{{1}}, []float64{3, -0.1, -3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stackFeatures(tt.z, tt.kin)
			plain := stackFeatures(tt.z, nil)
			for i, want := range tt.lead {
				if math.Abs(got[i][1]-want) > 1e-12 {
					t.Errorf("lead[%d] = %v, want %v", i, got[i][1], want)
				}
				if got[i][2] != plain[i][2] {
					t.Errorf("share[%d] = %v, want %v as without kin", i, got[i][2], plain[i][2])
				}
			}
		})
	}
}

func TestStackIsListwise(t *testing.T) {
	s := &Stack{Z: 0, Lead: 1, Share: 0, Bias: 0}
	// Same logit, different rivals: the fit follows the lead.
	alone := s.Apply([]float64{1, 0.9}, nil)[0]
	clear := s.Apply([]float64{1, -3}, nil)[0]
	if !(clear > alone) {
		t.Errorf("clear lead %v not above narrow lead %v", clear, alone)
	}
	if got, want := clear, sigmoid10(4); math.Abs(got-want) > 1e-12 {
		t.Errorf("Apply = %v, want %v", got, want)
	}
	// Fits with a stack is Apply on the linear logits.
	l := coverModel(t)
	l.w.Stack = &Stack{Z: 0.5, Lead: 0.3, Share: 2, Bias: -0.2}
	feats := [][]float64{vec(map[string]float64{"cover_all": 1}), vec(map[string]float64{"cover_miss": 1})}
	z := []float64{l.Logit(feats[0]), l.Logit(feats[1])}
	if got, want := l.Fits(feats), l.w.Stack.Apply(z, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Fits with stack = %v, want %v", got, want)
	}
}

func TestTrees(t *testing.T) {
	// One split on dense (weights' feature 1): +2 above 0.5, −1 at or below.
	tree := Tree{Nodes: []Node{
		{Feature: 1, Threshold: 0.5, Left: 1, Right: 2},
		{Feature: -1, Value: -1},
		{Feature: -1, Value: 2},
	}}
	w := Weights{Features: []string{"cover_all", "dense"}, Mean: []float64{0, 0}, Scale: []float64{1, 1}, W: []float64{1, 0}, Bias: 0.5,
		Trees: []Tree{tree, {Nodes: []Node{{Feature: -1, Value: 0.25}}}}}
	l := mustLearned(t, w)
	tests := []struct {
		all, dense, want float64
	}{
		{0, 0.9, 0.5 + 2 + 0.25},
		{0, 0.5, 0.5 - 1 + 0.25}, // threshold goes left
		{1, 0.1, 0.5 + 1 - 1 + 0.25},
	}
	for _, tt := range tests {
		if got := l.Logit(vec(map[string]float64{"cover_all": tt.all, "dense": tt.dense})); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Logit(all %v, dense %v) = %v, want %v", tt.all, tt.dense, got, tt.want)
		}
	}
	bad := []Tree{
		{},
		{Nodes: []Node{{Feature: 2, Left: 1, Right: 2}, {Feature: -1}, {Feature: -1}}}, // feature out of range
		{Nodes: []Node{{Feature: 0, Left: 0, Right: 1}, {Feature: -1}}},                // loops to itself
		{Nodes: []Node{{Feature: 0, Left: 1, Right: 5}, {Feature: -1}}},                // child past the end
	}
	for i, b := range bad {
		w.Trees = []Tree{b}
		if _, err := NewLearned(w); err == nil {
			t.Errorf("bad tree %d accepted", i)
		}
	}
}

// shortlist is three hand-made candidates for coverModel: b covers the
// need fully, a half, c not at all; the fused order is a, b, c.
func shortlist() *Input {
	a := doc("ap", "half", "Reconcile supplier documents.")
	b := doc("ap", "full", "Reconcile supplier invoices against purchase orders.", "match these invoices against the POs")
	c := doc("hr", "leave", "Book annual leave.")
	return needInput(
		index.Candidate{Entry: a, FusedRank: 1, BM25Rank: 2, DenseRank: 1, BestExample: -1},
		index.Candidate{Entry: b, FusedRank: 2, BM25Rank: 1, DenseRank: 2, BestExample: 0},
		index.Candidate{Entry: c, FusedRank: 3, BestExample: -1},
	)
}

func TestRerankOrderReasonsAndDeterminism(t *testing.T) {
	l := coverModel(t)
	in := shortlist()
	got, err := l.Rerank(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Entry.SkillID)
	}
	if want := []string{"full", "half", "leave"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("order %v, want %v", keys, want)
	}
	if got[0].Score != sigmoid10(6) || got[2].Score != sigmoid10(-4) {
		t.Errorf("scores %v, %v; want %v, %v", got[0].Score, got[2].Score, sigmoid10(6), sigmoid10(-4))
	}
	// The reason gives the fit and the evidence, with its sign.
	for _, tt := range []struct {
		i    int
		want []string
	}{
		{0, []string{"fit 10.0/10: ", "+ skill text covers 100% of the need", "+ 0% of the need is not in the skill's text"}},
		{2, []string{"fit 0.2/10: ", "- skill text covers 0% of the need", "- 100% of the need is not in the skill's text"}},
	} {
		r := got[tt.i].Reason
		for _, w := range tt.want {
			if !strings.Contains(r, w) {
				t.Errorf("reason %q lacks %q", r, w)
			}
		}
		if !strings.HasPrefix(r, "fit ") {
			t.Errorf("reason %q does not start with the fit", r)
		}
	}
	again, _ := l.Rerank(context.Background(), shortlist())
	if !reflect.DeepEqual(got, again) {
		t.Error("two reranks of the same input differ")
	}
	// It reorders, never adds or drops.
	if len(got) != len(in.Result.Candidates) {
		t.Errorf("%d scored of %d candidates", len(got), len(in.Result.Candidates))
	}
}

func TestRerankTiesKeepFusedOrder(t *testing.T) {
	// A model that sees nothing: every fit is equal.
	l := mustLearned(t, Weights{Features: []string{"cover_all"}, Mean: []float64{0}, Scale: []float64{1}, W: []float64{0}})
	in := shortlist()
	in.Result.Candidates[0].FusedRank, in.Result.Candidates[2].FusedRank = 3, 1
	got, _ := l.Rerank(context.Background(), in)
	var ranks []int
	for _, s := range got {
		ranks = append(ranks, s.FusedRank)
	}
	if !reflect.DeepEqual(ranks, []int{1, 2, 3}) {
		t.Errorf("tied fits in fused ranks %v, want 1 2 3", ranks)
	}
}

func TestReasonsOnlyForTheBestUnlessExplained(t *testing.T) {
	l := coverModel(t)
	var cands []index.Candidate
	for i := range ReasonsFor + 2 {
		cands = append(cands, index.Candidate{Entry: doc("ap", "s"+string(rune('a'+i)), "Reconcile."), FusedRank: i + 1, BestExample: -1})
	}
	got, _ := l.Rerank(context.Background(), needInput(cands...))
	for i, s := range got {
		if (s.Reason != "") != (i < ReasonsFor) {
			t.Errorf("rank %d: reason %q", i, s.Reason)
		}
	}
	in := needInput(cands...)
	in.Explain = true
	got, _ = l.Rerank(context.Background(), in)
	for i, s := range got {
		if s.Reason == "" {
			t.Errorf("explained, rank %d has no reason", i)
		}
	}
}

func TestRerankHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := coverModel(t).Rerank(ctx, shortlist()); err == nil {
		t.Error("cancelled context: want an error")
	}
}
