package fit

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// testdata is a small invented set: 3 agents, 9 skills, templated tasks
// and a few that no skill should take.
func loadSet(t *testing.T) *golden.Set {
	t.Helper()
	s, err := golden.Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFitAndEvaluate(t *testing.T) {
	set := loadSet(t)
	for _, examples := range []bool{false, true} {
		m, err := Fit(context.Background(), set, Config{Split: "train", Examples: examples, Folds: 3})
		if err != nil {
			t.Fatalf("examples=%v: %v", examples, err)
		}
		if examples != (len(m.Examples) > 0) {
			t.Errorf("examples=%v but the model holds %d skills' examples", examples, len(m.Examples))
		}
		// The model file round-trips and validates.
		p := filepath.Join(t.TempDir(), "model.json")
		if err := m.Save(p); err != nil {
			t.Fatal(err)
		}
		back, err := model.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if back.Reranker.Stack == nil || len(back.Reranker.Trees) == 0 {
			t.Errorf("examples=%v: stack or trees lost in the file", examples)
		}
		mt, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithModel(back))
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := eval.Run(context.Background(), mt, set.Split("dev"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Top1 < 0.9 || r.Precision < 0.9 || r.Coverage < 0.5 {
			t.Errorf("examples=%v: dev top-1 %.2f, precision %.2f, coverage %.2f", examples, r.Top1, r.Precision, r.Coverage)
		}
		if r.Refusal < 0.5 {
			t.Errorf("examples=%v: no-match refusal %.2f", examples, r.Refusal)
		}
	}
}

func TestFitEmptySplit(t *testing.T) {
	if _, err := Fit(context.Background(), loadSet(t), Config{Split: "test"}); err == nil {
		t.Error("fitting on an empty split should fail")
	}
}

// Several sets fit one model on all their training tasks, each matched
// against its own catalog; one set is exactly Fit.
func TestFitSets(t *testing.T) {
	a := loadSet(t)
	b, err := golden.Load("../eval/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Split: "train", Examples: true, Folds: 3}
	tests := []struct {
		name string
		sets []*golden.Set
	}{{"one", []*golden.Set{a}}, {"two", []*golden.Set{a, b}}}
	for _, tc := range tests {
		m, err := FitSets(ctx, tc.sets, cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tasks, dirs := 0, []string{}
		for _, s := range tc.sets {
			tasks += len(s.Split("train"))
			dirs = append(dirs, s.Dir)
			// Every set's training texts become examples of its skills.
			for _, gt := range s.Split("train") {
				if gt.Expected != "" && len(m.Examples[gt.Expected]) == 0 {
					t.Errorf("%s: no examples for %s", tc.name, gt.Expected)
				}
			}
			mt, err := match.New(s.Catalog, match.WithEmbedder(embed.Default()), match.WithModel(m))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := eval.Run(ctx, mt, s.Split("dev"), nil); err != nil {
				t.Fatalf("%s: eval %s: %v", tc.name, s.Dir, err)
			}
		}
		if m.Fitted.Tasks != tasks || m.Fitted.Set != strings.Join(dirs, ",") {
			t.Errorf("%s: fitted %+v, want %d tasks of %v", tc.name, m.Fitted, tasks, dirs)
		}
	}
	// One set through FitSets is byte for byte the model Fit writes.
	one, err := Fit(ctx, a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	same, err := FitSets(ctx, []*golden.Set{a}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	j1, _ := json.Marshal(one)
	j2, _ := json.Marshal(same)
	if !bytes.Equal(j1, j2) {
		t.Error("FitSets of one set differs from Fit")
	}
	if _, err := FitSets(ctx, []*golden.Set{a, {Dir: "empty", Catalog: a.Catalog}}, cfg); err == nil ||
		!strings.Contains(err.Error(), "empty") {
		t.Errorf("a set without training tasks: %v", err)
	}
	if _, err := FitSets(ctx, nil, cfg); err == nil {
		t.Error("no set should fail")
	}
}

// Regimes: every set fitted with and without its training texts as
// examples, and its cards description-only, cut to one example, or
// mixed (every other skill without) too;
// the model keeps texts only when Examples says so, and still matches.
func TestFitRegimes(t *testing.T) {
	set := loadSet(t)
	if !set.HasExamples() {
		t.Fatal("testdata cards give examples")
	}
	train := len(set.Split("train"))
	tests := []struct {
		name      string
		cfg       Config
		passes    int
		keepTexts bool
	}{
		{"bare too", Config{BareToo: true}, 2, false},
		{"both text regimes", Config{BothTextRegimes: true}, 2, false},
		{"both, keeping texts", Config{BothTextRegimes: true, Examples: true}, 2, true},
		{"every regime", Config{BareToo: true, BothTextRegimes: true}, 4, false},
		{"few texts too", Config{BothTextRegimes: true, FewTexts: 2}, 3, false},
		{"one card example too", Config{CardExamples: 1}, 2, false},
		{"no card gives more: no copy", Config{CardExamples: set.MostExamples()}, 1, false},
		{"bare and one card example too", Config{BareToo: true, CardExamples: 1}, 3, false},
		{"mixed too", Config{MixedToo: 1}, 2, false},
		{"every card regime", Config{BareToo: true, CardExamples: 1, MixedToo: 2}, 4, false},
	}
	for _, tc := range tests {
		tc.cfg.Split, tc.cfg.Folds = "train", 3
		m, err := Fit(context.Background(), set, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Fitted.Tasks != tc.passes*train {
			t.Errorf("%s: fitted on %d tasks, want %d", tc.name, m.Fitted.Tasks, tc.passes*train)
		}
		if tc.keepTexts != (len(m.Examples) > 0) {
			t.Errorf("%s: model keeps %d skills' texts", tc.name, len(m.Examples))
		}
		for k, ex := range m.Examples {
			if n := countTrain(set, k); len(ex) != n {
				t.Errorf("%s: %s has %d texts, want %d (each once)", tc.name, k, len(ex), n)
			}
		}
		mt, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithModel(m))
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := eval.Run(context.Background(), mt, set.Split("dev"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Top1 < 0.9 || r.Precision < 0.9 {
			t.Errorf("%s: dev top-1 %.2f, precision %.2f", tc.name, r.Top1, r.Precision)
		}
	}
}

func countTrain(s *golden.Set, key string) int {
	n := 0
	for _, t := range s.Split("train") {
		if t.Expected == key {
			n++
		}
	}
	return n
}

// Calibrating at the set's own share of no-match tasks, the default, gives
// probabilities at least as high as weighing them up, and leaves the
// reranker alone.
func TestFitCalibrationNoMatchWeight(t *testing.T) {
	set := loadSet(t)
	ctx := context.Background()
	heavy, err := Fit(ctx, set, Config{Split: "train", NoMatchWeight: 10, CalibrationNoMatchWeight: 10})
	if err != nil {
		t.Fatal(err)
	}
	// The default calibrates at the set's own share.
	natural, err := Fit(ctx, set, Config{Split: "train", NoMatchWeight: 10})
	if err != nil {
		t.Fatal(err)
	}
	w1, _ := json.Marshal(heavy.Reranker)
	w2, _ := json.Marshal(natural.Reranker)
	if !bytes.Equal(w1, w2) {
		t.Error("the calibration weight changed the reranker")
	}
	higher := false
	for s := 0.0; s <= 10; s += 0.5 {
		ph, pn := heavy.Calibration.Prob(s), natural.Calibration.Prob(s)
		if pn < ph-0.02 {
			t.Errorf("fit %.1f: probability %.3f at the natural share, below %.3f with no-match tasks weighed up", s, pn, ph)
		}
		higher = higher || pn > ph+0.01
	}
	if !higher {
		t.Error("weighing no-match tasks down in the calibration changed no probability")
	}
}

// Dialogue tasks made from a single-turn set give the history features
// weight, which the set alone cannot: none of its tasks has earlier turns.
func TestFitDialogues(t *testing.T) {
	set := loadSet(t)
	histWeight := func(m *model.Model) float64 {
		w := m.Reranker
		sum := 0.0
		for i, name := range w.Features {
			if strings.HasPrefix(name, "hist_") {
				sum += math.Abs(w.W[i])
			}
		}
		for _, tr := range w.Trees {
			for _, n := range tr.Nodes {
				if n.Feature >= 0 && strings.HasPrefix(w.Features[n.Feature], "hist_") && n.Left > 0 {
					sum++
				}
			}
		}
		return sum
	}
	plain, err := Fit(context.Background(), set, Config{Split: "train", Examples: false, Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	talk, err := Fit(context.Background(), set, Config{Split: "train", Examples: false, Folds: 3, Dialogues: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := histWeight(plain); w != 0 {
		t.Errorf("single-turn fit: history weight %v", w)
	}
	if w := histWeight(talk); w == 0 {
		t.Error("dialogue fit: the history features got no weight")
	}
	if n, base := talk.Fitted.Tasks, plain.Fitted.Tasks; n <= base || n > 2*base {
		t.Errorf("dialogue fit on %d tasks, plain on %d", n, base)
	}
}

// fewOf keeps the same n texts whatever their order, and all of fewer.
func TestFewOf(t *testing.T) {
	texts := []string{"a", "b", "c", "d", "e", "f"}
	got := fewOf(texts, 3)
	rev := slices.Clone(texts)
	slices.Reverse(rev)
	if len(got) != 3 || !slices.Equal(got, fewOf(rev, 3)) {
		t.Errorf("fewOf = %q, reversed %q", got, fewOf(rev, 3))
	}
	if got := fewOf(texts[:2], 3); len(got) != 2 {
		t.Errorf("fewOf of 2 = %q", got)
	}
	if !slices.Equal(texts, []string{"a", "b", "c", "d", "e", "f"}) {
		t.Errorf("fewOf reordered its input: %q", texts)
	}
}
