package decide

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakePriors is a Priors with latencies and costs.
type fakePriors struct {
	mean    map[string]float64
	prior   float64
	latency map[string]time.Duration
	cost    map[string]float64
}

func (f fakePriors) Mean(k string) (float64, bool) {
	if m, ok := f.mean[k]; ok {
		return m, true
	}
	return f.prior, false
}

func (f fakePriors) Latency(k string) (time.Duration, bool) { d, ok := f.latency[k]; return d, ok }
func (f fakePriors) Cost(k string) (float64, bool)          { c, ok := f.cost[k]; return c, ok }

func keys(opts []Option) string {
	var ks []string
	for _, o := range opts {
		ks = append(ks, o.Key)
	}
	return strings.Join(ks, " ")
}

func demoted(o Option) Option { o.Demoted = true; return o }

func TestBreakTies(t *testing.T) {
	p := DefaultPolicy
	noExplore := TieConfig{Epsilon: 0.02}
	tests := []struct {
		name    string
		opts    []Option
		pri     Priors
		want    string
		kind    TieKind
		changed bool
		ties    int
	}{
		{"near-tie broken by success rate",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.89), opt("c/z", 0.5)},
			fakePriors{mean: map[string]float64{"a/x": 0.4, "b/y": 0.95, "c/z": 1}},
			"b/y a/x c/z", TieSuccess, true, 2},
		{"clear winner not moved however bad",
			[]Option{opt("a/x", 0.95), opt("b/y", 0.90), opt("c/z", 0.89)},
			fakePriors{mean: map[string]float64{"a/x": 0.01, "b/y": 0.99, "c/z": 0.99}},
			"a/x b/y c/z", TieNone, false, 0},
		{"just outside epsilon stays put",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.89), opt("c/z", 0.885), opt("d/w", 0.879)},
			fakePriors{mean: map[string]float64{"a/x": 0.5, "b/y": 0.6, "c/z": 0.7, "d/w": 1}},
			"c/z b/y a/x d/w", TieSuccess, true, 3},
		{"equal success: lower latency",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.90)},
			fakePriors{mean: map[string]float64{"a/x": 0.8, "b/y": 0.8},
				latency: map[string]time.Duration{"a/x": 900 * time.Millisecond, "b/y": 300 * time.Millisecond}},
			"b/y a/x", TieSuccess, true, 2},
		{"equal success and latency: lower cost",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.90)},
			fakePriors{mean: map[string]float64{"a/x": 0.8, "b/y": 0.8},
				latency: map[string]time.Duration{"a/x": time.Second, "b/y": time.Second},
				cost:    map[string]float64{"a/x": 0.02, "b/y": 0.01}},
			"b/y a/x", TieSuccess, true, 2},
		{"unknown latency ranks after known",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.90)},
			fakePriors{mean: map[string]float64{"a/x": 0.8, "b/y": 0.8},
				latency: map[string]time.Duration{"b/y": 5 * time.Second}},
			"b/y a/x", TieSuccess, true, 2},
		{"unseen skill ranks at the prior",
			[]Option{opt("a/x", 0.90), opt("new/s", 0.895), opt("c/z", 0.89)},
			fakePriors{mean: map[string]float64{"a/x": 0.6, "c/z": 0.9}, prior: 0.8},
			"c/z new/s a/x", TieSuccess, true, 3},
		{"degraded near-tie stays behind healthy",
			[]Option{opt("a/x", 0.90), demoted(opt("b/y", 0.905))},
			fakePriors{mean: map[string]float64{"a/x": 0.3, "b/y": 0.99}},
			"a/x b/y", TieSuccess, false, 2},
		{"no priors: Order's order",
			[]Option{opt("a/x", 0.90), opt("b/y", 0.89)}, nil,
			"a/x b/y", TieNone, false, 2},
		{"unordered input is ordered first",
			[]Option{opt("c/z", 0.3), opt("a/x", 0.90), opt("b/y", 0.895)},
			fakePriors{mean: map[string]float64{"a/x": 0.7, "b/y": 0.9}},
			"b/y a/x c/z", TieSuccess, true, 2},
		{"single candidate", []Option{opt("a/x", 0.5)}, fakePriors{}, "a/x", TieNone, false, 0},
		{"none", nil, fakePriors{}, "", TieNone, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]Option(nil), tt.opts...)
			out, note := p.BreakTies(tt.opts, tt.pri, nil, noExplore)
			if got := keys(out); got != tt.want {
				t.Errorf("order %q, want %q", got, tt.want)
			}
			if note.Kind != tt.kind || note.Changed != tt.changed || len(note.Candidates) != tt.ties {
				t.Errorf("note %+v, want kind %s, changed %v, %d near-ties", note, tt.kind, tt.changed, tt.ties)
			}
			if len(out) > 0 && (note.After != out[0].Key) {
				t.Errorf("note.After %q, first %q", note.After, out[0].Key)
			}
			if !reflect.DeepEqual(in, tt.opts) {
				t.Error("input slice was modified")
			}
		})
	}
}

func TestBreakTiesNoteRecordsCandidates(t *testing.T) {
	pri := fakePriors{mean: map[string]float64{"a/x": 0.4, "b/y": 0.95}, cost: map[string]float64{"a/x": 0.5}}
	_, note := DefaultPolicy.BreakTies([]Option{opt("a/x", 0.90), opt("b/y", 0.89)}, pri, nil, DefaultTieConfig)
	want := []TieCandidate{
		{Key: "b/y", Prob: 0.89, Success: 0.95, Known: true},
		{Key: "a/x", Prob: 0.90, Success: 0.4, Known: true, Cost: 0.5},
	}
	if !reflect.DeepEqual(note.Candidates, want) || note.Before != "a/x" || note.After != "b/y" {
		t.Errorf("note %+v", note)
	}
}

// TestExplorationRate: over many seeded draws, exploration happens at
// about the configured rate, picks each healthy near-tie about equally
// often, and never puts a candidate outside epsilon or a degraded one
// first.
func TestExplorationRate(t *testing.T) {
	opts := []Option{
		opt("a/x", 0.90), opt("b/y", 0.895), opt("c/z", 0.885),
		demoted(opt("d/w", 0.89)), // a near-tie, but degraded
		opt("e/v", 0.86),          // outside epsilon
	}
	pri := fakePriors{mean: map[string]float64{"a/x": 0.9, "b/y": 0.5, "c/z": 0.3, "d/w": 1, "e/v": 1}}
	cfg := TieConfig{Epsilon: 0.02, Explore: 0.05}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40_000
	explored := 0
	first := map[string]int{}
	for range n {
		out, note := DefaultPolicy.BreakTies(opts, pri, rng, cfg)
		// Order puts the degraded d/w behind e/v, which is within
		// DemoteEpsilon of it; both stay there.
		if len(out) != len(opts) || out[3].Key != "e/v" || out[4].Key != "d/w" {
			t.Fatalf("moved a candidate it must not: %s", keys(out))
		}
		if note.Kind == TieExplored {
			explored++
			first[out[0].Key]++
			if !(note.Draw < cfg.Explore) {
				t.Fatalf("explored on draw %v", note.Draw)
			}
		} else if out[0].Key != "a/x" || note.Kind != TieSuccess {
			t.Fatalf("not explored but first is %s (%s)", out[0].Key, note.Kind)
		}
	}
	rate := float64(explored) / n
	// Binomial sd at n=40,000, p=0.05 is 0.0011; allow 4 sd.
	if math.Abs(rate-cfg.Explore) > 0.0045 {
		t.Errorf("explored %.4f of draws, want %.2f", rate, cfg.Explore)
	}
	for _, k := range []string{"a/x", "b/y", "c/z"} {
		share := float64(first[k]) / float64(explored)
		if math.Abs(share-1.0/3) > 0.05 {
			t.Errorf("explored pick %s %.3f of the time, want 1/3", k, share)
		}
	}
	if len(first) != 3 {
		t.Errorf("explored picks %v, want only the three healthy near-ties", first)
	}
	t.Logf("explored %.4f of %d draws; picks %v", rate, n, first)
}

func TestExploreZeroAndOne(t *testing.T) {
	opts := []Option{opt("a/x", 0.90), opt("b/y", 0.89)}
	pri := fakePriors{mean: map[string]float64{"a/x": 0.9, "b/y": 0.1}}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 1000 {
		if _, note := DefaultPolicy.BreakTies(opts, pri, rng, TieConfig{Epsilon: 0.02}); note.Kind == TieExplored {
			t.Fatal("explored with Explore 0")
		}
	}
	seenB := false
	for range 1000 {
		out, note := DefaultPolicy.BreakTies(opts, pri, rng, TieConfig{Epsilon: 0.02, Explore: 1})
		if note.Kind != TieExplored {
			t.Fatalf("did not explore with Explore 1: %+v", note)
		}
		seenB = seenB || out[0].Key == "b/y"
	}
	if !seenB {
		t.Error("Explore 1 never picked the other near-tie")
	}
	// A clear winner has no near-tie to explore: no draw is made.
	clear := []Option{opt("a/x", 0.95), opt("b/y", 0.5)}
	for range 100 {
		out, note := DefaultPolicy.BreakTies(clear, pri, rng, TieConfig{Epsilon: 0.02, Explore: 1})
		if out[0].Key != "a/x" || note.Kind != TieNone || note.Draw != 0 {
			t.Fatalf("clear winner: %s, %+v", keys(out), note)
		}
	}
}

func TestBreakTiesDeterministic(t *testing.T) {
	opts := []Option{opt("a/x", 0.90), opt("b/y", 0.895), opt("c/z", 0.89)}
	pri := fakePriors{mean: map[string]float64{"a/x": 0.9, "b/y": 0.5, "c/z": 0.3}}
	cfg := TieConfig{Epsilon: 0.02, Explore: 0.3}
	run := func(seed uint64) []TieNote {
		rng := rand.New(rand.NewPCG(seed, 0))
		var notes []TieNote
		for range 200 {
			_, n := DefaultPolicy.BreakTies(opts, pri, rng, cfg)
			notes = append(notes, n)
		}
		return notes
	}
	a, b, c := run(42), run(42), run(43)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different notes")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same 200 notes")
	}
	// TieRand: the same task draws the same way whatever came before.
	_, n1 := DefaultPolicy.BreakTies(opts, pri, TieRand(9, "task-17"), cfg)
	_, n2 := DefaultPolicy.BreakTies(opts, pri, TieRand(9, "task-17"), cfg)
	if n1.Draw == 0 || !reflect.DeepEqual(n1, n2) {
		t.Errorf("TieRand not deterministic: %+v vs %+v", n1, n2)
	}
	if TieRand(9, "task-17").Float64() == TieRand(9, "task-18").Float64() {
		t.Error("TieRand gives two tasks the same draw")
	}
}

// decideTies is what the pipeline does with the tie-break: BreakTies, then
// Decide on the new order.
func decideTies(p Policy, opts []Option, pri Priors, rng *rand.Rand, cfg TieConfig) (Decision, TieNote) {
	out, note := p.BreakTies(opts, pri, rng, cfg)
	return p.Decide(out), note
}

func TestDecideTies(t *testing.T) {
	pri := fakePriors{mean: map[string]float64{"a/x": 0.5, "a/y": 0.95, "b/z": 0.99}}
	// Near-tie within one agent: the more reliable skill is delegated to.
	d, note := decideTies(DefaultPolicy, []Option{opt("a/x", 0.90), opt("a/y", 0.89), opt("b/z", 0.4)}, pri, nil, DefaultTieConfig)
	if d.Action != Delegate || d.Chosen.Key != "a/y" || note.Kind != TieSuccess {
		t.Errorf("same agent near-tie: %s %+v, note %+v", d.Action, d.Chosen, note)
	}
	if len(d.Fallbacks) != 2 || d.Fallbacks[0].Key != "a/x" {
		t.Errorf("fallbacks %s", keys(d.Fallbacks))
	}
	// Near-tie across agents: still a question, more reliable first.
	d, _ = decideTies(DefaultPolicy, []Option{opt("a/x", 0.90), opt("b/z", 0.89)}, pri, nil, DefaultTieConfig)
	if d.Action != Clarify || d.Candidates[0].Key != "b/z" {
		t.Errorf("cross-agent near-tie: %s %s", d.Action, keys(d.Candidates))
	}
	// Clear winner: delegated whatever its success rate.
	d, _ = decideTies(DefaultPolicy, []Option{opt("a/x", 0.95), opt("b/z", 0.5)}, pri, nil, DefaultTieConfig)
	if d.Action != Delegate || d.Chosen.Key != "a/x" {
		t.Errorf("clear winner: %s %+v", d.Action, d.Chosen)
	}
}
