package eval

import (
	"math"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

func TestScore(t *testing.T) {
	in1 := &golden.Task{ID: "1", Expected: "a/x"}
	in2 := &golden.Task{ID: "2", Expected: "a/y", Acceptable: []string{"b/z"}}
	in3 := &golden.Task{ID: "3", Expected: "c/w"}
	none := &golden.Task{ID: "4"}
	none2 := &golden.Task{ID: "5"}
	outs := []Outcome{
		{Task: in1, InList: true, Rank: 1, Action: decide.Delegate, Chosen: "a/x", TopKey: "a/x", Prob: 0.9, Latency: 100 * time.Microsecond},
		{Task: in2, InList: true, Rank: 1, Action: decide.Delegate, Chosen: "b/z", TopKey: "b/z", Prob: 0.8, Latency: 200 * time.Microsecond},
		{Task: in3, InList: true, Rank: 2, Action: decide.Delegate, Chosen: "c/v", TopKey: "c/v", Prob: 0.7, Latency: 300 * time.Microsecond},
		{Task: none, Action: decide.Abstain, TopKey: "a/x", Prob: 0.2, Latency: 400 * time.Microsecond},
		{Task: none2, Action: decide.Delegate, Chosen: "a/x", TopKey: "a/x", Prob: 0.75, Latency: 500 * time.Microsecond},
	}
	r := Score(outs)
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("recall", r.RecallAt, 1)
	check("top1", r.Top1, 2.0/3)
	check("mrr", r.MRR, (1+1+0.5)/3)
	check("precision", r.Precision, 2.0/4) // a/x, b/z right; c/v and the no-match delegation wrong
	check("coverage", r.Coverage, 1)
	check("refusal", r.Refusal, 0.5)
	check("p50", r.P50us, 300)
	if r.Tasks != 5 || r.Delegated != 4 || r.Abstained != 1 || r.NoMatch != 2 || r.WithExpected != 3 {
		t.Errorf("counts %+v", r)
	}
	// ECE: bins of width 0.1; labels 1,1,0,0,0 at 0.9,0.8,0.7,0.2,0.75.
	want := (0.1 + 0.2 + math.Abs(0.725-0)*2 + 0.2) / 5
	check("ece", r.ECE, want)
}

func TestScoreEmpty(t *testing.T) {
	r := Score(nil)
	if r.Tasks != 0 || r.Top1 != 0 || math.IsNaN(r.Precision) {
		t.Errorf("empty report %+v", r)
	}
}
