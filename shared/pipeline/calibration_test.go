package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// The reranker hot-reloads the calibration from the model bucket: a
// calibration that maps every score to 0.05 makes the next tasks abstain
// at 0.05; a value that does not decode is ignored; restoring the model's
// own calibration brings the delegations back, equal to the in-process
// core's decisions.
func TestRerankerHotReloadsCalibration(t *testing.T) {
	m := testMatcher(t)
	want := expected(t, m, genTasks(m, 40, 11))
	// The tasks the core delegates.
	var base []*task.Task
	for _, tk := range genTasks(m, 40, 11) {
		var d decide.Decision
		_ = json.Unmarshal([]byte(want[tk.ID]), &d)
		if d.Action == decide.Delegate {
			base = append(base, tk)
		}
	}
	if len(base) < 5 {
		t.Fatalf("only %d of 40 generated tasks are delegated", len(base))
	}
	batch := func(prefix string) ([]*task.Task, map[string]string) {
		out := make([]*task.Task, len(base))
		w := make(map[string]string, len(base))
		for i, tk := range base {
			c := *tk
			c.ID = fmt.Sprintf("%s-%s", prefix, tk.ID)
			out[i] = &c
			w[c.ID] = want[tk.ID]
		}
		return out, w
	}

	_, js, ctx := serve(t, 60*time.Second)
	g, err := StartAll(ctx, js, NewSnapshots(m), testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	decided := 0
	run := func(prefix string) map[string]*wire.Decision {
		t.Helper()
		tasks, _ := batch(prefix)
		publishTasks(ctx, t, js, tasks)
		decided += len(tasks)
		waitCount(t, js, DefaultStreams.Decisions, uint64(decided), 30*time.Second)
		got := map[string]*wire.Decision{}
		for _, msg := range readAll(t, js, DefaultStreams.Decisions) {
			d, err := wire.DecodeDecision(msg.Data())
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := got[d.TaskID]; dup {
				t.Errorf("task %s decided twice", d.TaskID)
			}
			got[d.TaskID] = d
		}
		out := map[string]*wire.Decision{}
		for _, tk := range tasks {
			if got[tk.ID] == nil {
				t.Fatalf("task %s not decided", tk.ID)
			}
			out[tk.ID] = got[tk.ID]
		}
		return out
	}
	sameAsCore := func(prefix string) {
		t.Helper()
		_, w := batch(prefix)
		for id, d := range run(prefix) {
			if b, _ := json.Marshal(d.Decision); string(b) != w[id] {
				t.Errorf("%s: pipeline decided\n  %s\nin-process:\n  %s", id, b, w[id])
			}
		}
	}
	waitRev := func(rev uint64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for g.Reranker.CalibrationRevision() < rev {
			if time.Now().After(deadline) {
				t.Fatalf("reranker has calibration revision %d, want %d", g.Reranker.CalibrationRevision(), rev)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	put := func(v any) uint64 {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := kv.Put(ctx, wire.ModelKeyCalibration, data)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}

	// The model's own calibration: the core's decisions.
	sameAsCore("before")

	// Every score maps to 0.05: abstain at 0.05.
	low, err := calibrate.NewIsotonic(calibrate.Isotonic{X: []float64{0, 1}, Y: []float64{0.05, 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	lowRev := put(low)
	waitRev(lowRev)
	// A skill a rule moved up (a request that names another skill's job
	// or domain) pools the pair's probabilities: two of 0.05.
	calibrated := func(p float64) bool { return p == 0.05 || math.Abs(p-0.1) < 1e-12 }
	abstainAll := func(prefix string) {
		t.Helper()
		for id, d := range run(prefix) {
			if d.Action != decide.Abstain || !calibrated(d.Probability) || d.Top == nil || !calibrated(d.Top.Prob) {
				t.Errorf("%s under the 0.05 calibration: %s at %v (top %+v)", id, d.Action, d.Probability, d.Top)
			}
		}
	}
	abstainAll("low")

	// Values that do not decode are logged and ignored.
	for _, bad := range []string{`{"method":"platt","a":1}`, `{"method":"isotonic","x":[1,0],"y":[0.1,0.2]}`, `not json`} {
		if _, err := kv.Put(ctx, wire.ModelKeyCalibration, []byte(bad)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if got := g.Reranker.CalibrationRevision(); got != lowRev {
		t.Errorf("calibration revision %d after bad values, want %d", got, lowRev)
	}
	abstainAll("bad")

	// Restored: the delegations come back.
	own, ok := m.Calibrator().(*calibrate.Model)
	if !ok {
		t.Fatalf("matcher calibration is a %T", m.Calibrator())
	}
	waitRev(put(own))
	sameAsCore("restored")

	// Deleting the key goes back to the matcher's own calibration too.
	waitRev(put(low))
	abstainAll("low2")
	if err := kv.Delete(ctx, wire.ModelKeyCalibration); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for g.Reranker.Calibrator() != nil {
		if time.Now().After(deadline) {
			t.Fatal("calibration not dropped after the key was deleted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	sameAsCore("deleted")
}
