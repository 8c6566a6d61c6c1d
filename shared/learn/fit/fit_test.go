package fit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/model"
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
		mt, err := match.New(set.Catalog, match.WithModel(back))
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
