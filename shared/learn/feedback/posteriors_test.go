package feedback

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

func outcome(id, skill string, ok bool) Outcome {
	return Outcome{DecisionID: id, TaskID: "t-" + id, Skill: skill, Success: ok}
}

// TestPosteriorsConverge: simulated agents with known success rates; after
// thousands of outcomes each, the posterior means are close to the truth,
// the truth is inside the 95% interval, and the intervals shrink.
func TestPosteriorsConverge(t *testing.T) {
	truth := map[string]float64{"good/s": 0.95, "fair/s": 0.7, "poor/s": 0.4}
	skills := []string{"good/s", "fair/s", "poor/s"}
	rng := rand.New(rand.NewPCG(2026, 11))
	p := NewPosteriors()
	checkpoints := map[int]bool{30: true, 300: true, 3000: true}
	width := map[string][]float64{}
	id := 0
	for n := 1; n <= 3000; n++ {
		for _, s := range skills {
			id++
			if _, err := p.Observe(outcome(fmt.Sprint(id), s, rng.Float64() < truth[s])); err != nil {
				t.Fatal(err)
			}
		}
		if checkpoints[n] {
			for _, s := range skills {
				lo, hi := p.Interval(s, 0.95)
				width[s] = append(width[s], hi-lo)
			}
		}
	}
	for _, s := range skills {
		m, ok := p.Mean(s)
		lo, hi := p.Interval(s, 0.95)
		err := math.Abs(m - truth[s])
		t.Logf("%s: truth %.2f, mean %.4f (error %.4f), 95%% interval [%.4f, %.4f]; widths at 30/300/3000: %.3f",
			s, truth[s], m, err, lo, hi, width[s])
		if !ok || err > 0.02 {
			t.Errorf("%s: mean %.4f, truth %.2f", s, m, truth[s])
		}
		if !(lo <= truth[s] && truth[s] <= hi) || !(lo < m && m < hi) {
			t.Errorf("%s: interval [%.4f, %.4f] misses truth %.2f or mean %.4f", s, lo, hi, truth[s], m)
		}
		w := width[s]
		if !(w[0] > w[1] && w[1] > w[2]) || w[2] > 0.04 {
			t.Errorf("%s: interval widths %v do not shrink below 0.04", s, w)
		}
	}
	if fm, want := p.FleetMean(), (0.95+0.7+0.4)/3; math.Abs(fm-want) > 0.02 {
		t.Errorf("fleet mean %.4f, want ≈ %.4f", fm, want)
	}
}

// TestShrinkage: with few outcomes a skill's mean stays near the fleet
// mean; the prior is worth 10 tasks.
func TestShrinkage(t *testing.T) {
	p := NewPosteriors()
	if m, ok := p.Mean("any/s"); ok || m != DefaultFleetMean {
		t.Fatalf("empty: mean %v, %v; want the default %v", m, ok, DefaultFleetMean)
	}
	// A fleet of 1,000 outcomes at exactly 0.8 (4,000 at 0.5 below).
	for i := range 1000 {
		p.Observe(outcome(fmt.Sprint("f", i), "fleet/a", i%5 != 0))
	}
	tests := []struct {
		name      string
		successes int
		failures  int
		want      float64 // (10·0.8 + s) / (10 + n)
		raw       float64
	}{
		{"unseen", 0, 0, 0.8, math.NaN()},
		{"two successes", 2, 0, 10.0 / 12, 1},
		{"two failures", 0, 2, 8.0 / 12, 0},
		{"one of each", 1, 1, 9.0 / 12, 0.5},
		{"ten failures", 0, 10, 8.0 / 20, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewPosteriors()
			q.Restore(p.Snapshot())
			skill := "new/" + tt.name
			for i := range tt.successes {
				q.Observe(outcome(fmt.Sprint("s", i), skill, true))
			}
			for i := range tt.failures {
				q.Observe(outcome(fmt.Sprint("x", i), skill, false))
			}
			// The new outcomes move the fleet mean a little too.
			mu := (800 + float64(tt.successes) + 8) / (1000 + float64(tt.successes+tt.failures) + 10)
			want := (10*mu + float64(tt.successes)) / (10 + float64(tt.successes+tt.failures))
			got, _ := q.Mean(skill)
			if math.Abs(got-want) > 1e-12 || math.Abs(got-tt.want) > 0.01 {
				t.Errorf("mean %.4f, want %.4f (≈ %.4f; raw rate %.2f)", got, want, tt.want, tt.raw)
			}
		})
	}
	// The prior follows the fleet: a fleet at 0.5 pulls towards 0.5.
	q := NewPosteriors()
	for i := range 4000 {
		q.Observe(outcome(fmt.Sprint(i), "fleet/b", i%2 == 0))
	}
	q.Observe(outcome("n1", "new/s", true))
	q.Observe(outcome("n2", "new/s", true))
	if m, _ := q.Mean("new/s"); math.Abs(m-7.0/12) > 0.01 {
		t.Errorf("two successes in a fleet at 0.5: mean %.4f, want ≈ %.4f", m, 7.0/12)
	}
}

func TestDuplicates(t *testing.T) {
	p := NewPosteriors()
	o := outcome("d-1", "a/s", true)
	for i := range 3 {
		counted, err := p.Observe(o)
		if err != nil || counted != (i == 0) {
			t.Fatalf("delivery %d: counted %v, err %v", i, counted, err)
		}
	}
	// A redelivery with another result is still the same outcome.
	o.Success = false
	if counted, _ := p.Observe(o); counted {
		t.Error("redelivery with another result counted")
	}
	// A fallback tried under the same decision is another outcome.
	if counted, _ := p.Observe(outcome("d-1", "b/s", false)); !counted {
		t.Error("fallback outcome under the same decision not counted")
	}
	if st, _ := p.Stats("a/s"); st.Successes != 1 || st.Failures != 0 {
		t.Errorf("a/s stats %+v, want one success", st)
	}
	if snap := p.Snapshot(); snap.Observed != 2 || snap.Duplicates != 3 {
		t.Errorf("observed %d, duplicates %d; want 2, 3", snap.Observed, snap.Duplicates)
	}

	bad := []Outcome{
		{Skill: "a/s"},
		{DecisionID: "d"},
		{DecisionID: "d", Skill: "a/s", Cost: -1},
		{DecisionID: "d", Skill: "a/s", Cost: math.NaN()},
		{DecisionID: "d", Skill: "a/s", Cost: math.Inf(1)},
	}
	for _, o := range bad {
		if counted, err := p.Observe(o); counted || !errors.Is(err, ErrBadOutcome) {
			t.Errorf("%+v: counted %v, err %v", o, counted, err)
		}
	}

	// The memory of ids is bounded: the oldest is forgotten first.
	q := NewPosteriors(WithSeenCapacity(2))
	for _, id := range []string{"1", "2", "3"} {
		q.Observe(outcome(id, "a/s", true))
	}
	if counted, _ := q.Observe(outcome("3", "a/s", true)); counted {
		t.Error("recent id forgotten")
	}
	if counted, _ := q.Observe(outcome("1", "a/s", true)); !counted {
		t.Error("capacity 2 remembered three ids")
	}
}

func TestLatencyAndCost(t *testing.T) {
	p := NewPosteriors(WithEWMA(0.1))
	if _, ok := p.Latency("a/s"); ok {
		t.Error("latency of an unseen skill")
	}
	p.Observe(Outcome{DecisionID: "1", Skill: "a/s", Success: true, Latency: 100 * time.Millisecond, Cost: 0.02})
	p.Observe(Outcome{DecisionID: "2", Skill: "a/s", Success: true, Latency: 200 * time.Millisecond, Cost: 0.04})
	p.Observe(Outcome{DecisionID: "3", Skill: "a/s", Success: true}) // no latency reported, cost 0
	if l, ok := p.Latency("a/s"); !ok || l != 150*time.Millisecond {
		t.Errorf("latency %v, want the running mean 150ms", l)
	}
	if c, ok := p.Cost("a/s"); !ok || math.Abs(c-0.02) > 1e-12 {
		t.Errorf("cost %v, want 0.02", c)
	}
	// Long after the first 1/α reports the average follows new values.
	for i := range 100 {
		p.Observe(Outcome{DecisionID: fmt.Sprint("late", i), Skill: "a/s", Success: true, Latency: time.Second})
	}
	if l, _ := p.Latency("a/s"); l < 999*time.Millisecond || l > time.Second {
		t.Errorf("latency %v after 100 reports of 1s", l)
	}
}

// TestMaxWeight: with capped evidence a skill that gets worse is noticed.
func TestMaxWeight(t *testing.T) {
	for _, tt := range []struct {
		cap      float64
		min, max float64
	}{{0, 0.75, 0.85}, {100, 0.25, 0.45}} {
		p := NewPosteriors(WithMaxWeight(tt.cap))
		rng := rand.New(rand.NewPCG(5, 5))
		for i := range 2000 {
			p.Observe(outcome(fmt.Sprint(i), "a/s", rng.Float64() < 0.9))
		}
		for i := range 300 {
			p.Observe(outcome(fmt.Sprint("after", i), "a/s", rng.Float64() < 0.3))
		}
		m, _ := p.Mean("a/s")
		st, _ := p.Stats("a/s")
		if m < tt.min || m > tt.max {
			t.Errorf("cap %v: mean %.3f after a drop from 0.9 to 0.3, want in [%v, %v]", tt.cap, m, tt.min, tt.max)
		}
		if tt.cap > 0 && math.Abs(st.Successes+st.Failures-tt.cap) > 1e-9 {
			t.Errorf("cap %v: evidence %v", tt.cap, st.Successes+st.Failures)
		}
		if fm := p.FleetMean(); tt.cap > 0 && math.Abs(fm-(st.Successes+8)/(tt.cap+10)) > 1e-9 {
			t.Errorf("cap %v: fleet mean %v does not follow the capped counts", tt.cap, fm)
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	p := NewPosteriors(WithSnapshotSeen(3))
	rng := rand.New(rand.NewPCG(3, 4))
	skills := []string{"a/x", "b/y", "c/z"}
	for i := range 500 {
		s := skills[i%3]
		p.Observe(Outcome{DecisionID: fmt.Sprint("d", i), Skill: s, Success: rng.Float64() < 0.7,
			Latency: time.Duration(rng.IntN(1000)) * time.Millisecond, Cost: rng.Float64(),
			At: time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC)})
	}
	data, err := json.Marshal(p.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	if len(snap.Seen) != 3 || snap.Seen[2] != "d499\x00b/y" {
		t.Errorf("snapshot seen %q, want the last three", snap.Seen)
	}
	q := NewPosteriors(WithPriorWeight(3), WithFleetMean(0.5)) // replaced by the snapshot's
	if err := q.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(skills, "unseen/s") {
		pm, pok := p.Mean(s)
		qm, qok := q.Mean(s)
		plo, phi := p.Interval(s, 0.9)
		qlo, qhi := q.Interval(s, 0.9)
		pl, _ := p.Latency(s)
		ql, _ := q.Latency(s)
		pc, _ := p.Cost(s)
		qc, _ := q.Cost(s)
		if pm != qm || pok != qok || plo != qlo || phi != qhi || pl != ql || pc != qc {
			t.Errorf("%s: before %v %v [%v %v] %v %v, after %v %v [%v %v] %v %v", s, pm, pok, plo, phi, pl, pc, qm, qok, qlo, qhi, ql, qc)
		}
	}
	if counted, _ := q.Observe(Outcome{DecisionID: "d499", Skill: "b/y"}); counted {
		t.Error("redelivery of an outcome in the snapshot counted after restore")
	}
	if counted, _ := q.Observe(Outcome{DecisionID: "d0", Skill: "a/x"}); !counted {
		t.Error("an id older than the snapshot's seen list was not counted")
	}

	before, _ := q.Mean("a/x")
	for _, bad := range []func(*Snapshot){
		func(s *Snapshot) { s.V = 2 },
		func(s *Snapshot) { s.PriorWeight = 0 },
		func(s *Snapshot) { s.FleetMean = 1 },
		func(s *Snapshot) { s.Skills["a/x"] = SkillStats{Successes: -1} },
		func(s *Snapshot) { s.Skills["b/y"] = SkillStats{Failures: math.Inf(1)} },
	} {
		var s Snapshot
		json.Unmarshal(data, &s)
		bad(&s)
		if err := q.Restore(s); !errors.Is(err, ErrSnapshot) {
			t.Errorf("bad snapshot restored: %v", err)
		}
	}
	if after, _ := q.Mean("a/x"); after != before {
		t.Error("a refused snapshot changed the state")
	}
}

func TestConcurrentObserve(t *testing.T) {
	p := NewPosteriors()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				// Every outcome is delivered twice, by two goroutines.
				id := fmt.Sprint((g/2)*1000 + i)
				p.Observe(outcome(id, "a/s", i%4 != 0))
				p.Mean("a/s")
				p.Interval("a/s", 0.9)
			}
		}()
	}
	wg.Wait()
	st, _ := p.Stats("a/s")
	if st.Successes != 1500 || st.Failures != 500 {
		t.Errorf("stats %+v, want 1500 successes and 500 failures", st)
	}
}

func TestBetaQuantile(t *testing.T) {
	tests := []struct {
		name string
		a, b float64
		q    float64
		want float64
	}{
		{"uniform", 1, 1, 0.3, 0.3},
		{"Beta(2,1): x²", 2, 1, 0.25, 0.5},
		{"Beta(1,2): 1−(1−x)²", 1, 2, 0.75, 0.5},
		{"symmetric median", 5, 5, 0.5, 0.5},
		{"Beta(1,3) 0.975", 1, 3, 0.975, 1 - math.Cbrt(0.025)},
		{"Beta(0.5,0.5) arcsine", 0.5, 0.5, 0.25, math.Pow(math.Sin(math.Pi*0.25/2), 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BetaQuantile(tt.a, tt.b, tt.q); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("quantile %v, want %v", got, tt.want)
			}
		})
	}
	// Large counts: close to the normal approximation.
	a, b := 2850.0, 150.0
	m, sd := a/(a+b), math.Sqrt(a*b/((a+b)*(a+b)*(a+b+1)))
	if got := BetaQuantile(a, b, 0.975); math.Abs(got-(m+1.96*sd)) > 1e-3 {
		t.Errorf("Beta(2850,150) 0.975 quantile %v, normal approximation %v", got, m+1.96*sd)
	}
	for _, bad := range [][3]float64{{0, 1, 0.5}, {1, -1, 0.5}, {1, 1, 1.5}} {
		if !math.IsNaN(BetaQuantile(bad[0], bad[1], bad[2])) {
			t.Errorf("BetaQuantile%v not NaN", bad)
		}
	}
}
