package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// readPosteriors reads the posteriors snapshot from the model bucket
// (nil, 0 when there is none yet).
func readPosteriors(ctx context.Context, t *testing.T, kv jetstream.KeyValue) (*feedback.Posteriors, *feedback.Snapshot, uint64) {
	t.Helper()
	e, err := kv.Get(ctx, wire.ModelKeyPosteriors)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil, 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var snap feedback.Snapshot
	if err := json.Unmarshal(e.Value(), &snap); err != nil {
		t.Fatal(err)
	}
	p := feedback.NewPosteriors()
	if err := p.Restore(snap); err != nil {
		t.Fatal(err)
	}
	return p, &snap, e.Revision()
}

// Outcomes of simulated skills with known success rates: the posteriors
// the feedback stage publishes converge on them, redeliveries are not
// counted twice, the decider hot-reloads them and a restarted feedback
// stage restores them.
func TestFeedbackPosteriorsConverge(t *testing.T) {
	m := testMatcher(t)
	_, js, ctx := serve(t, 60*time.Second)
	cfg := testConfig(t)
	cfg.FeedbackInterval = 200 * time.Millisecond
	// Outcomes are counted only for delegations the decider recorded.
	delegations := newMemFollowups()
	cfg.Followups.Store = delegations
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()

	rates := map[string]float64{
		"travel-concierge/book-flight": 0.9,
		"travel-concierge/book-hotel":  0.6,
		"world-info/time-zones":        0.3,
	}
	const perSkill = 600
	rng := rand.New(rand.NewPCG(7, 7))
	n := 0
	// Skills in a fixed order: ranging over the map would hand the seeded
	// draws to different skills on each run, and the test would pass or
	// fail by chance.
	skills := slices.Sorted(maps.Keys(rates))
	for i := range perSkill {
		for _, skill := range skills {
			rate := rates[skill]
			id := fmt.Sprintf("t-%d-%s", i, strings.ReplaceAll(skill, "/", "-"))
			agent, sk, _ := strings.Cut(skill, "/")
			if _, err := delegations.Put(ctx, settle.Record{TaskID: id, DecisionID: wire.DecisionID("", id), AgentID: agent, SkillID: sk}); err != nil {
				t.Fatal(err)
			}
			o := wire.Outcome{V: wire.Version, DecisionID: wire.DecisionID("", id), TaskID: id,
				Skill: skill, Success: rng.Float64() < rate, LatencyMS: 100 + 50*rate, Cost: rate}
			data, _ := json.Marshal(o)
			if _, err := js.Publish(ctx, wire.SubjectOutcome, data); err != nil {
				t.Fatal(err)
			}
			n++
			if i%100 == 0 { // a caller reporting the same outcome twice
				if _, err := js.Publish(ctx, wire.SubjectOutcome, data); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	var p *feedback.Posteriors
	var snap *feedback.Snapshot
	var rev uint64
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, snap, rev = readPosteriors(ctx, t, kv)
		if snap != nil && snap.Observed >= int64(n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("posteriors snapshot %+v, want %d outcomes observed", snap, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if snap.Observed != int64(n) || snap.Duplicates != int64(len(rates)*perSkill/100) {
		t.Errorf("observed %d (want %d), duplicates %d (want %d)", snap.Observed, n, snap.Duplicates, len(rates)*perSkill/100)
	}
	for skill, rate := range rates {
		mean, known := p.Mean(skill)
		if !known || math.Abs(mean-rate) > 0.05 {
			t.Errorf("%s: posterior mean %.3f (known %v), want %.2f ± 0.05", skill, mean, known, rate)
		}
		if lat, ok := p.Latency(skill); !ok || math.Abs(lat.Seconds()*1000-(100+50*rate)) > 1 {
			t.Errorf("%s: latency %v", skill, lat)
		}
	}

	// The decider watches the bucket.
	deadline = time.Now().Add(10 * time.Second)
	for g.Decider.PosteriorsRevision() < rev {
		if time.Now().After(deadline) {
			t.Fatalf("decider has posteriors revision %d, want %d", g.Decider.PosteriorsRevision(), rev)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if mean, _ := g.Decider.Posteriors().Mean("travel-concierge/book-flight"); math.Abs(mean-0.9) > 0.05 {
		t.Errorf("decider's posterior mean of book-flight %.3f", mean)
	}

	// A feedback stage started afresh restores them.
	g.Stop()
	fb, err := NewFeedbackStage(ctx, kv, FeedbackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	if got := fb.Posteriors().Snapshot().Observed; got != int64(n) {
		t.Errorf("restored %d outcomes, want %d", got, n)
	}
	// A redelivery of an outcome counted before the restart is dropped.
	last := fmt.Sprintf("t-%d-world-info-time-zones", perSkill-1)
	data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: wire.DecisionID("", last), TaskID: last, Skill: "world-info/time-zones"})
	if _, err := fb.Handle(ctx, Msg{Subject: wire.SubjectOutcome, Data: data}); err != nil {
		t.Fatal(err)
	}
	if got := fb.Posteriors().Snapshot().Observed; got != int64(n) {
		t.Errorf("after a redelivery: %d outcomes, want %d", got, n)
	}
}

// The decider breaks a near-tie between two skills of one agent by the
// success rate it loaded from the model bucket; a clear winner is not
// moved, however bad its success rate.
func TestDeciderBreaksTiesWithPosteriors(t *testing.T) {
	m := testMatcher(t)
	_, js, ctx := serve(t, 30*time.Second)
	if err := SetupStreams(ctx, js, testConfig(t)); err != nil {
		t.Fatal(err)
	}
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestStages(m, DeciderConfig{Ties: decide.TieConfig{Epsilon: 0.02}})
	w, err := WatchModel(ctx, kv, s.de, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	const flight, hotel = "travel-concierge/book-flight", "travel-concierge/book-hotel"
	decideOpts := func(id string, pFlight, pHotel float64) *wire.Decision {
		t.Helper()
		raw := json.RawMessage(`{"id":"` + id + `","message":{"parts":[{"text":"book me a trip"}]},"caller":{"tenant":"acme"},"constraints":{}}`)
		opts := []decide.Option{
			{Key: flight, AgentID: "travel-concierge", SkillID: "book-flight", Score: 9, Prob: pFlight},
			{Key: hotel, AgentID: "travel-concierge", SkillID: "book-hotel", Score: 9, Prob: pHotel},
			{Key: "world-info/time-zones", AgentID: "world-info", SkillID: "time-zones", Score: 1, Prob: 0.05},
		}
		in, _ := json.Marshal(wire.Ranked{V: wire.Version, TaskID: id, Task: raw, Catalog: s.Fingerprint(), Candidates: opts})
		res, err := s.Decide(ctx, Msg{Data: in})
		if err != nil {
			t.Fatal(err)
		}
		d, err := wire.DecodeDecision(res.Out[0].Data)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	// No posteriors yet: the policy's order.
	d := decideOpts("tie-0", 0.90, 0.89)
	if d.Action != decide.Delegate || d.Chosen.Key != flight || d.Top == nil || d.Top.Key != flight {
		t.Fatalf("without posteriors: %+v", d)
	}
	if d.Tie == nil || d.Tie.Kind != decide.TieNone || d.Tie.Changed || len(d.Tie.Candidates) != 2 {
		t.Fatalf("without posteriors: tie note %+v", d.Tie)
	}

	// The feedback stage learns that book-hotel succeeds far more often.
	p := feedback.NewPosteriors()
	for i := range 100 {
		for skill, ok := range map[string]bool{flight: i%5 == 0, hotel: i%10 != 0} {
			if _, err := p.Observe(feedback.Outcome{DecisionID: fmt.Sprint(i), Skill: skill, Success: ok}); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, _ := json.Marshal(p.Snapshot())
	rev, err := kv.Put(ctx, wire.ModelKeyPosteriors, data)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.de.PosteriorsRevision() < rev {
		if time.Now().After(deadline) {
			t.Fatalf("decider has posteriors revision %d, want %d", s.de.PosteriorsRevision(), rev)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Near-tie: broken by success rate.
	d = decideOpts("tie-1", 0.90, 0.89)
	if d.Action != decide.Delegate || d.Chosen.Key != hotel || d.Top.Key != hotel {
		t.Errorf("near-tie: chose %+v, want %s", d.Chosen, hotel)
	}
	if d.Tie == nil || d.Tie.Kind != decide.TieSuccess || !d.Tie.Changed || d.Tie.Before != flight || d.Tie.After != hotel {
		t.Errorf("near-tie: tie note %+v", d.Tie)
	}
	if d.Request == nil || len(d.Fallbacks) == 0 || d.Fallbacks[0].Key != flight {
		t.Errorf("near-tie: request %v, fallbacks %+v", d.Request != nil, d.Fallbacks)
	}

	// Clear winner: not moved.
	d = decideOpts("tie-2", 0.93, 0.80)
	if d.Action != decide.Delegate || d.Chosen.Key != flight || d.Top.Key != flight {
		t.Errorf("clear winner: chose %+v, want %s", d.Chosen, flight)
	}
	if d.Tie != nil {
		t.Errorf("clear winner: tie note %+v, want none", d.Tie)
	}

	// Abstain still carries the top candidate for the calibration refit.
	d = decideOpts("tie-3", 0.10, 0.09)
	if d.Action != decide.Abstain || d.Top == nil || d.Top.Key != hotel {
		t.Errorf("abstain: %+v, top %+v", d.Decision, d.Top)
	}
}

// Calibration drift: the logged probabilities are overconfident by 0.25;
// the refit from the decisions' top candidates joined with their outcomes
// brings the held-out ECE back down and is published, and a refit that
// cannot be trusted (too few labels) is not.
func TestFeedbackRefitCalibrationDrift(t *testing.T) {
	_, js, ctx := serve(t, 60*time.Second)
	if err := SetupStreams(ctx, js, testConfig(t)); err != nil {
		t.Fatal(err)
	}
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := NewFeedbackStage(ctx, kv, FeedbackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()

	rng := rand.New(rand.NewPCG(3, 3))
	const n = 1500
	for i := range n {
		score := 10 * rng.Float64()
		truth := score / 10
		top := decide.Option{Key: "travel-concierge/book-flight", AgentID: "travel-concierge", SkillID: "book-flight",
			Score: score, Prob: min(0.99, truth+0.25)}
		id := fmt.Sprintf("drift-%d", i)
		d := wire.Decision{V: wire.Version, TaskID: id, DecisionID: wire.DecisionID("", id),
			Decision: decide.Decision{Action: decide.Abstain, Probability: top.Prob, Reason: "test"}, Top: &top}
		data, _ := json.Marshal(d)
		if _, err := js.Publish(ctx, wire.SubjectDecision("", string(decide.Abstain), id), data); err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 {
			continue // no outcome reported
		}
		o := wire.Outcome{V: wire.Version, DecisionID: d.DecisionID, TaskID: id, Skill: top.Key, Success: rng.Float64() < truth}
		data, _ = json.Marshal(o)
		if _, err := js.Publish(ctx, wire.SubjectOutcome, data); err != nil {
			t.Fatal(err)
		}
	}

	res, err := fb.Refit(ctx, js, RefitConfig{Options: []feedback.RefitOption{feedback.WithMinLabels(5000)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted {
		t.Fatalf("refit on %d labels accepted with 5000 required: %+v", res.N, res)
	}
	if _, err := kv.Get(ctx, wire.ModelKeyCalibration); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("calibration published by a refused refit: %v", err)
	}

	// The drift is 0.25: a refit that corrects it moves probabilities by
	// more than a tighter bound allows, and is then not published.
	res, err = fb.Refit(ctx, js, RefitConfig{MaxStep: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted || !strings.Contains(res.Reason, "bounded step") {
		t.Fatalf("refit past the bounded step: %+v", res)
	}
	if _, err := kv.Get(ctx, wire.ModelKeyCalibration); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("calibration published past the bounded step: %v", err)
	}

	res, err = fb.Refit(ctx, js, RefitConfig{MaxStep: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("refit: %s", res.Reason)
	if !res.Accepted || res.N != 2*n/3 || res.NewECE >= res.OldECE/2 || res.NewECE > 0.08 {
		t.Fatalf("refit %+v, want it accepted on %d labels with the ECE at least halved", res, 2*n/3)
	}
	e, err := kv.Get(ctx, wire.ModelKeyCalibration)
	if err != nil {
		t.Fatal(err)
	}
	var cal calibrate.Model
	if err := json.Unmarshal(e.Value(), &cal); err != nil {
		t.Fatal(err)
	}
	if p := cal.Prob(5); math.Abs(p-0.5) > 0.15 {
		t.Errorf("published calibration: P(score 5) = %.3f, want about 0.5", p)
	}
}

// A feedback process that dies before it publishes loses no outcome: it
// had not acked them, so the next process gets them again and counts each
// once; the outcomes are acked only once a published snapshot counts them.
func TestFeedbackCrashLosesNoOutcome(t *testing.T) {
	cfg := testConfig(t)
	cfg.BackOff = []time.Duration{time.Second}
	cfg.Retry = time.Second
	js, ctx := embedded(t, cfg)
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(js, cfg)
	const n = 30
	for i := range n {
		data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: fmt.Sprintf("crash-%d", i), TaskID: fmt.Sprintf("t-%d", i),
			Skill: "travel-concierge/book-flight", Success: i%3 != 0})
		if _, err := js.Publish(ctx, wire.SubjectOutcome, data); err != nil {
			t.Fatal(err)
		}
	}
	ackPending := func() int {
		c, err := js.Consumer(ctx, DefaultStreams.Outcomes, StageFeedback)
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.NumAckPending + int(info.NumPending)
	}

	// First process: counts everything, never publishes (a long interval
	// and batch), then dies.
	fb1, err := NewFeedbackStage(ctx, kv, FeedbackConfig{Every: 1000, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	run1, err := r.Start(ctx, Stage{Name: StageFeedback, Stream: DefaultStreams.Outcomes, Filter: wire.SubjectOutcome, Handle: fb1.Handle})
	if err != nil {
		t.Fatal(err)
	}
	for fb1.Posteriors().Snapshot().Observed < n && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if got := ackPending(); got != n {
		t.Errorf("%d outcomes unacked before any publish, want %d", got, n)
	}
	run1.Stop() // the process dies: fb1 is never closed, nothing published
	if _, snap, _ := readPosteriors(ctx, t, kv); snap != nil {
		t.Fatalf("posteriors published by the dead process: %+v", snap)
	}

	// Second process: gets them again and publishes.
	fb2, err := NewFeedbackStage(ctx, kv, FeedbackConfig{Every: 10, Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer fb2.Close()
	run2, err := r.Start(ctx, Stage{Name: StageFeedback, Stream: DefaultStreams.Outcomes, Filter: wire.SubjectOutcome, Handle: fb2.Handle})
	if err != nil {
		t.Fatal(err)
	}
	defer run2.Stop()
	for ackPending() > 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	_, snap, _ := readPosteriors(ctx, t, kv)
	if snap == nil || snap.Observed != n {
		t.Fatalf("published posteriors count %+v, want %d outcomes", snap, n)
	}
}

// Two feedback replicas on the one durable consumer: whichever publishes
// second finds the other's snapshot, takes it and gives its outcomes back;
// in the end the published posteriors count every outcome exactly once,
// per skill.
func TestFeedbackReplicas(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	kv, err := ModelKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(js, cfg)
	core, logs := observer.New(zapcore.DebugLevel)
	for range 2 {
		fb, err := NewFeedbackStage(ctx, kv, FeedbackConfig{Every: 7, Interval: 50 * time.Millisecond, Log: zap.New(core)})
		if err != nil {
			t.Fatal(err)
		}
		run, err := r.Start(ctx, Stage{Name: StageFeedback, Stream: DefaultStreams.Outcomes, Filter: wire.SubjectOutcome, Handle: fb.Handle})
		if err != nil {
			t.Fatal(err)
		}
		defer fb.Close()
		defer run.Stop()
	}
	skills := []string{"travel-concierge/book-flight", "travel-concierge/book-hotel", "world-info/time-zones"}
	const n = 600
	want := map[string][2]float64{}
	for i := range n {
		skill, ok := skills[i%3], i%4 != 0
		data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: fmt.Sprintf("rep-%d", i), TaskID: fmt.Sprintf("t-%d", i),
			Skill: skill, Success: ok})
		if _, err := js.Publish(ctx, wire.SubjectOutcome, data); err != nil {
			t.Fatal(err)
		}
		c := want[skill]
		if ok {
			c[0]++
		} else {
			c[1]++
		}
		want[skill] = c
	}
	var snap *feedback.Snapshot
	for ctx.Err() == nil {
		c, err := js.Consumer(ctx, DefaultStreams.Outcomes, StageFeedback)
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, snap, _ = readPosteriors(ctx, t, kv)
		if info.NumAckPending == 0 && info.NumPending == 0 && snap != nil && snap.Observed == n {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	p, snap, _ := readPosteriors(context.Background(), t, kv)
	if logs.FilterMessageSnippet("published by another replica").Len() == 0 {
		t.Error("the replicas never lost a publish to each other: the test did not exercise the merge")
	}
	if snap == nil || snap.Observed != n {
		t.Fatalf("published posteriors count %v outcomes, want %d", snap, n)
	}
	for _, skill := range skills {
		st, _ := p.Stats(skill)
		if st.Successes != want[skill][0] || st.Failures != want[skill][1] {
			t.Errorf("%s: %v successes, %v failures, want %v, %v", skill, st.Successes, st.Failures, want[skill][0], want[skill][1])
		}
	}
}
