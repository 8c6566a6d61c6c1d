package feedback

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/match/calibrate"
)

type calFunc func(float64) float64

func (f calFunc) Prob(s float64) float64 { return f(s) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// world is how likely a top candidate with a given score is right.
type world func(score float64) float64

var (
	// before: what the current calibration was fitted on.
	before world = func(s float64) float64 { return sigmoid(1.3 * (s - 6)) }
	// after a catalog change (many near-duplicate skills), the same scores
	// are right less often and the old calibration is overconfident.
	after world = func(s float64) float64 { return sigmoid(0.7 * (s - 7.5)) }
)

// sample draws n labelled scores from w.
func sample(rng *rand.Rand, w world, n int) ([]float64, []bool) {
	scores, labels := make([]float64, n), make([]bool, n)
	for i := range scores {
		scores[i] = 10 * rng.Float64()
		labels[i] = rng.Float64() < w(scores[i])
	}
	return scores, labels
}

// logs simulates n decisions and their outcomes in world w, with
// probabilities given by cal. Outcomes are labelled three ways: the right
// skill named, the success of the top candidate when it was tried, and
// (unlabelled) the success of another skill. Every fifth outcome is
// delivered twice. label overrides the world's label when not nil.
func logs(rng *rand.Rand, w world, cal calibrate.Calibrator, n int, prefix string, label func(taskID string, score float64) bool) ([]LoggedDecision, []Outcome) {
	var ds []LoggedDecision
	var os []Outcome
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id, task := fmt.Sprintf("%s-d%d", prefix, i), fmt.Sprintf("%s-t%d", prefix, i)
		top := fmt.Sprintf("agent%d/skill", rng.IntN(20))
		s := 10 * rng.Float64()
		right := rng.Float64() < w(s)
		if label != nil {
			right = label(task, s)
		}
		ds = append(ds, LoggedDecision{DecisionID: id, TaskID: task, TopKey: top, TopScore: s, Prob: cal.Prob(s), At: at})
		o := Outcome{DecisionID: id, TaskID: task, At: at.Add(time.Minute)}
		switch i % 3 {
		case 0: // the right skill is known
			o.Skill, o.Success = top, right
			o.RightSkill = top
			if !right {
				o.RightSkill = NoSkill
				if i%2 == 0 {
					o.RightSkill = "other/skill"
				}
			}
		case 1: // the top candidate was tried
			o.Skill, o.Success = top, right
		case 2: // a fallback was tried first: no label for the top one ...
			o.Skill, o.Success = "fallback/skill", rng.Float64() < 0.5
			if i%6 == 5 { // ... unless the top one was tried too
				os = append(os, Outcome{DecisionID: id, TaskID: task, Skill: top, Success: right, At: at.Add(2 * time.Minute)})
			}
		}
		os = append(os, o)
		if i%5 == 0 {
			os = append(os, o)
		}
	}
	return ds, os
}

func ece(cal calibrate.Calibrator, scores []float64, labels []bool) float64 {
	p := make([]float64, len(scores))
	for i, s := range scores {
		p[i] = cal.Prob(s)
	}
	return calibrate.ECE(p, labels, 10)
}

// TestRefitDrift: a calibration fitted before a catalog change is badly
// off after it; Refit on logs from after the change brings held-out ECE
// back down, and the new model is accepted and holds up on fresh data.
func TestRefitDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 29))
	s, l := sample(rng, before, 4000)
	current, err := calibrate.Fit(s, l)
	if err != nil {
		t.Fatal(err)
	}
	fs, fl := sample(rng, before, 4000)
	eceBefore := ece(current, fs, fl)
	fs2, fl2 := sample(rng, after, 4000)
	eceDrift := ece(current, fs2, fl2)
	if eceBefore > 0.03 || eceDrift < 0.1 {
		t.Fatalf("setup: current ECE %.4f before the change (want ≤ 0.03), %.4f after (want ≥ 0.1)", eceBefore, eceDrift)
	}

	decisions, outcomes := logs(rng, after, current, 3000, "x", nil)
	res, err := Refit(decisions, outcomes, current)
	if err != nil {
		t.Fatal(err)
	}
	fresh := ece(res.Model, fs2, fl2)
	t.Logf("current ECE %.4f before the change, %.4f after; refit: %s", eceBefore, eceDrift, res.Reason)
	t.Logf("N %d (fit %d, held out %d, unlabelled %d); held-out ECE %.4f → %.4f, Brier %.4f → %.4f; new model on 4,000 fresh: ECE %.4f",
		res.N, res.NFit, res.NHeldOut, res.Unlabelled, res.OldECE, res.NewECE, res.OldBrier, res.NewBrier, fresh)
	if !res.Accepted || res.Model == nil {
		t.Fatalf("refit refused: %s", res.Reason)
	}
	// 3000 decisions: 2000 labelled directly, 500 of the 1000 with a
	// fallback outcome also tried the top candidate.
	if res.N != 2500 || res.Unlabelled != 500 || res.NFit+res.NHeldOut != res.N {
		t.Errorf("N %d, unlabelled %d, fit %d + held out %d", res.N, res.Unlabelled, res.NFit, res.NHeldOut)
	}
	if frac := float64(res.NHeldOut) / float64(res.N); math.Abs(frac-0.2) > 0.03 {
		t.Errorf("held out %.3f of the labels, want ≈ 0.2", frac)
	}
	if res.OldECE < 0.1 || res.NewECE > 0.05 || res.NewBrier >= res.OldBrier {
		t.Errorf("held-out ECE %.4f → %.4f, Brier %.4f → %.4f", res.OldECE, res.NewECE, res.OldBrier, res.NewBrier)
	}
	if fresh > 0.04 {
		t.Errorf("new model's ECE on fresh data %.4f", fresh)
	}

	// Deterministic: the same logs give the same result.
	again, _ := Refit(decisions, outcomes, current)
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("refit not deterministic:\n%s\n%s", a, b)
	}
	// Without a current calibrator the logged probabilities stand in.
	nocur, _ := Refit(decisions, outcomes, nil)
	if nocur.OldECE != res.OldECE || !nocur.Accepted {
		t.Errorf("no current: old ECE %.4f, want %.4f (accepted %v)", nocur.OldECE, res.OldECE, nocur.Accepted)
	}
}

func TestRefitRefuses(t *testing.T) {
	truth := calFunc(after)
	tests := []struct {
		name    string
		n       int
		current calibrate.Calibrator
		label   func(task string, s float64) bool
		opts    []RefitOption
		reason  string
		model   bool
	}{
		{name: "too few labels", n: 150, current: truth, reason: "only 125 labelled decisions, need 200"},
		{name: "too few for the option", n: 3000, current: truth, opts: []RefitOption{WithMinLabels(5000)}, reason: "only 2500 labelled decisions, need 5000"},
		{name: "one class", n: 600, current: truth, label: func(string, float64) bool { return true }, reason: "cannot fit"},
		{
			// The fit slice follows another curve than the held-out one,
			// which the current calibrator matches exactly: the new model
			// is worse where it is judged.
			name: "worse on the held-out slice", n: 3000, current: truth,
			label: func() func(string, float64) bool {
				rng := rand.New(rand.NewPCG(8, 8))
				return func(task string, s float64) bool {
					if HeldOut(task, DefaultHoldout) {
						return rng.Float64() < after(s)
					}
					return rng.Float64() < before(s)
				}
			}(),
			reason: "worse on", model: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.n), 1))
			ds, os := logs(rng, after, tt.current, tt.n, "r", tt.label)
			res, err := Refit(ds, os, tt.current, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (held-out ECE %.4f → %.4f, Brier %.4f → %.4f)", res.Reason, res.OldECE, res.NewECE, res.OldBrier, res.NewBrier)
			if res.Accepted || !strings.Contains(res.Reason, tt.reason) || (res.Model != nil) != tt.model {
				t.Errorf("accepted %v, model %v, reason %q; want refused with %q", res.Accepted, res.Model != nil, res.Reason, tt.reason)
			}
		})
	}
}

func TestRefitTolerance(t *testing.T) {
	// On data the current calibrator matches exactly, a refit is at best
	// as good; a tolerance lets an equally good one through.
	rng := rand.New(rand.NewPCG(4, 4))
	ds, os := logs(rng, after, calFunc(after), 3000, "t", nil)
	strict, _ := Refit(ds, os, calFunc(after))
	loose, _ := Refit(ds, os, calFunc(after), WithTolerance(0.05))
	t.Logf("strict: %s; loose: %s", strict.Reason, loose.Reason)
	if !loose.Accepted {
		t.Errorf("tolerance 0.05 refused: %s", loose.Reason)
	}
}

func TestRefitErrors(t *testing.T) {
	ds := []LoggedDecision{{DecisionID: "d", TaskID: "t", TopKey: "a/s", TopScore: math.NaN()}}
	os := []Outcome{{DecisionID: "d", Skill: "a/s", Success: true}}
	if _, err := Refit(ds, os, nil); err == nil {
		t.Error("NaN score accepted")
	}
	for _, opt := range []RefitOption{WithHoldout(0), WithHoldout(1), WithBins(0), WithTolerance(-1)} {
		if _, err := Refit(nil, nil, nil, opt); err == nil {
			t.Error("invalid option accepted")
		}
	}
}

func TestLabel(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		outcomes  []Outcome
		right, ok bool
	}{
		{"no outcomes", nil, false, false},
		{"right skill is the top", []Outcome{{Skill: "b/s", RightSkill: "a/s"}}, true, true},
		{"right skill is another", []Outcome{{Skill: "a/s", Success: true, RightSkill: "b/s"}}, false, true},
		{"no skill fits", []Outcome{{Skill: "a/s", RightSkill: NoSkill}}, false, true},
		{"top tried and succeeded", []Outcome{{Skill: "a/s", Success: true}}, true, true},
		{"top tried and failed", []Outcome{{Skill: "a/s"}}, false, true},
		{"only another skill tried", []Outcome{{Skill: "b/s", Success: true}}, false, false},
		{"right skill wins over success", []Outcome{{Skill: "a/s", Success: true}, {Skill: "b/s", RightSkill: "b/s"}}, false, true},
		{"latest success wins", []Outcome{{Skill: "a/s", Success: true, At: t0.Add(time.Hour)}, {Skill: "a/s", At: t0}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if right, ok := Label("a/s", tt.outcomes); right != tt.right || ok != tt.ok {
				t.Errorf("Label = %v, %v; want %v, %v", right, ok, tt.right, tt.ok)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	ds := []LoggedDecision{
		{DecisionID: "1", TaskID: "t1", TopKey: "a/s", TopScore: 8, Prob: 0.9},
		{DecisionID: "1", TaskID: "t1", TopKey: "a/s", TopScore: 8, Prob: 0.9}, // logged twice
		{DecisionID: "2", TaskID: "t2", TopKey: "a/s", TopScore: 3, Prob: 0.2},
		{DecisionID: "3", TaskID: "t3", TopKey: "a/s", TopScore: 5, Prob: 0.5}, // no outcome
		{DecisionID: "4", TaskID: "t4", TopKey: "a/s", TopScore: 6, Prob: 0.6}, // no label
	}
	os := []Outcome{
		{DecisionID: "1", Skill: "a/s", Success: true},
		{DecisionID: "2", Skill: "a/s", RightSkill: "b/s"},
		{DecisionID: "4", Skill: "b/s", Success: true},
		{DecisionID: "9", Skill: "a/s", Success: true}, // no decision
	}
	got, unlabelled := Join(ds, os)
	want := []Example{{TaskID: "t1", Score: 8, Prob: 0.9, Right: true}, {TaskID: "t2", Score: 3, Prob: 0.2}}
	if !reflect.DeepEqual(got, want) || unlabelled != 1 {
		t.Errorf("Join = %+v, %d unlabelled", got, unlabelled)
	}
}

func TestHeldOut(t *testing.T) {
	n := 0
	for i := range 20000 {
		id := fmt.Sprint("task-", i)
		h := HeldOut(id, 0.2)
		if h != HeldOut(id, 0.2) {
			t.Fatal("HeldOut not deterministic")
		}
		if h && !HeldOut(id, 0.3) {
			t.Fatal("a larger share does not contain a smaller one")
		}
		if h {
			n++
		}
	}
	if frac := float64(n) / 20000; math.Abs(frac-0.2) > 0.01 {
		t.Errorf("held out %.4f, want 0.2", frac)
	}
}
