package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Who asks is the subject a task arrived on, never the caller id in its
// payload: a caller refused an agent under the grants is still refused
// after claiming to be one that is granted, and its decision is published
// on its own subject; the directory narrows the payload's scopes.
func TestPipelineCallerFromSubject(t *testing.T) {
	m := grantsMatcher(t) // bob is granted support-triage, eve nothing
	cfg := testConfig(t)
	js, ctx, _ := startWithCallers(t, m, cfg, map[string]identity.Identity{
		"bob": {Tenant: "acme", Scopes: []string{"support.tickets"}},
	})
	published := 0
	submitAs := func(as string, tk *task.Task) *wire.Decision {
		t.Helper()
		sub, err := wire.NewTaskSubmitted(tk, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(sub)
		if _, err := js.Publish(ctx, wire.SubjectSubmittedBy(as), data); err != nil {
			t.Fatal(err)
		}
		published++
		waitCount(t, js, DefaultStreams.Decisions, uint64(published), 20*time.Second)
		for _, msg := range readAll(t, js, DefaultStreams.Decisions) {
			if d, err := wire.DecodeDecision(msg.Data()); err == nil && d.TaskID == tk.ID {
				return d
			}
		}
		t.Fatalf("no decision for %s", tk.ID)
		return nil
	}
	text := task.Message{Parts: []task.Part{{Text: "triage this support ticket: the login page is down"}}}
	granted := submitAs("bob", &task.Task{ID: "id-bob", Message: text, Caller: task.Caller{ID: "bob"}})
	if granted.Action != decide.Delegate || granted.Chosen.AgentID != "support-triage" {
		t.Fatalf("bob: %s %+v (%s)", granted.Action, granted.Chosen, granted.Reason)
	}
	forged := submitAs("eve", &task.Task{ID: "id-eve", Message: text, Caller: task.Caller{ID: "bob"}})
	if forged.Action == decide.Delegate || forged.Request != nil {
		t.Fatalf("eve claiming to be bob was delegated: %+v", forged.Decision)
	}
	msgs := readAll(t, js, DefaultStreams.Decisions)
	subjects := map[string]string{}
	for _, msg := range msgs {
		d, _ := wire.DecodeDecision(msg.Data())
		subjects[d.TaskID] = msg.Subject()
	}
	if subjects["id-bob"] != "skillmatch.decision.bob.delegate."+wire.TaskToken("id-bob") || !strings.HasPrefix(subjects["id-eve"], "skillmatch.decision.eve.") {
		t.Errorf("decision subjects %v", subjects)
	}
	// The task the decider saw carries the stamped caller: bob's tenant
	// from the directory, eve's claims cut to nothing.
	for _, msg := range readAll(t, js, DefaultStreams.Tasks) {
		if msg.Subject() != wire.SubjectRanked {
			continue
		}
		r, err := wire.DecodeRanked(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		var tk task.Task
		if err := json.Unmarshal(r.Task, &tk); err != nil {
			t.Fatal(err)
		}
		switch r.TaskID {
		case "id-bob":
			if tk.Caller.ID != "bob" || tk.Caller.Tenant != "acme" {
				t.Errorf("bob's task carries %+v", tk.Caller)
			}
		case "id-eve":
			if tk.Caller.ID != "eve" || tk.Caller.Tenant != "" || len(tk.Caller.Scopes) != 0 {
				t.Errorf("eve's task carries %+v", tk.Caller)
			}
		}
	}
}

// A group that cannot start stops what it started and returns the error.
func TestStartFailsCleanly(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	if _, err := Start(ctx, js, nil, cfg, StageExtractor, "no-such-stage"); err == nil || !strings.Contains(err.Error(), "no stage") {
		t.Fatalf("err %v", err)
	}
	bad := cfg
	bad.Retry = 10 * bad.BackOff[0]
	if _, err := Start(ctx, js, nil, bad, StageExtractor); err == nil {
		t.Fatal("an invalid schedule started")
	}
}

// Outcomes are evidence, not commands: one from a caller the decision was
// not delivered to is dead-lettered; a flood of forged outcomes from an
// untrusted caller (10,000) counts into no posterior and no refit, and
// changes no decision of another caller.
func TestPipelineForgedOutcomes(t *testing.T) {
	m := grantsMatcher(t) // bob is granted support-triage
	cfg := testConfig(t)
	cfg.FeedbackInterval = 100 * time.Millisecond
	cfg.RefitInterval = -1 // refits run by hand below
	js, ctx, g := startWithCallers(t, m, cfg, map[string]identity.Identity{
		"bob": {Scopes: []string{"support.tickets"}, Trusted: true},
		"eve": {},
	})
	text := task.Message{Parts: []task.Part{{Text: "triage this support ticket: the login page is down"}}}
	decide1 := func(id string) *wire.Decision {
		t.Helper()
		a, err := Submit(ctx, js, Streams{}, &task.Task{ID: id, Message: text, Caller: task.Caller{ID: "bob"}})
		if err != nil || a.Decision == nil || a.Decision.Action != decide.Delegate {
			t.Fatalf("bob's %s: %+v %v", id, a, err)
		}
		return a.Decision
	}
	before := decide1("bob-1")
	// report publishes, as caller as, an outcome of owner's task.
	report := func(as, owner, taskID, skill string) {
		t.Helper()
		data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: wire.DecisionID(owner, taskID), TaskID: taskID, Skill: skill,
			Success: false, RightSkill: "none"})
		if _, err := js.PublishAsync(wire.SubjectOutcomeBy(as), data); err != nil {
			t.Fatal(err)
		}
	}
	// bob's own outcome counts.
	report("bob", "bob", "bob-1", before.Chosen.Key)
	// eve reports on bob's decision: dead-lettered.
	report("eve", "bob", "bob-1", before.Chosen.Key)
	// eve floods outcomes for tasks that were never hers.
	const flood = 10_000
	for i := range flood {
		report("eve", "eve", fmt.Sprintf("forged-%d", i), before.Chosen.Key)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(30 * time.Second):
		t.Fatal("flood not published")
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !ok(); {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("the flood handled", func() bool {
		c, err := js.Consumer(ctx, DefaultStreams.Outcomes, StageFeedback)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	waitCount(t, js, DefaultStreams.DeadLetters, 1, 10*time.Second)
	dl, err := wire.DecodeDeadLetter(readAll(t, js, DefaultStreams.DeadLetters)[0].Data())
	if err != nil || !strings.Contains(dl.Reason, "or delivered to another caller") || dl.Caller != "eve" {
		t.Errorf("dead letter %+v %v", dl, err)
	}
	waitFor("bob's outcome published", func() bool {
		p := g.Decider.Posteriors()
		return p != nil && p.Snapshot().Observed >= 1
	})
	if got := g.Decider.Posteriors().Snapshot().Observed; got != 1 {
		t.Errorf("posteriors count %d outcomes, want bob's 1", got)
	}
	// A refit learns only from bob's label.
	res, err := g.fb.Refit(ctx, js, RefitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.N > 1 || res.Accepted {
		t.Errorf("refit on eve's flood: %+v", res)
	}
	kv, _ := ModelKV(ctx, js, "")
	if _, err := kv.Get(ctx, wire.ModelKeyCalibration); err == nil {
		t.Error("a calibration was published")
	}
	after := decide1("bob-2")
	if after.Action != before.Action || after.Chosen.Key != before.Chosen.Key || after.Probability != before.Probability {
		t.Errorf("bob's decision moved: %+v, before %+v", after.Decision, before.Decision)
	}
}

// Callers cannot set the stages' message ids: submissions have a stream
// of their own, whose dedup ids are apart from the stages'. A submission
// carrying the Nats-Msg-Id of another task's extractor output
// (<victim>/extracted) squats nothing: the victim's task is decided, and
// only the junk is dead-lettered. (When submissions shared the tasks
// stream, the victim's task vanished, and later was dead-lettered as a
// duplicate.)
func TestPipelineSubmissionsCannotSquat(t *testing.T) {
	m := testMatcher(t)
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	for _, step := range []string{"extracted", "shortlisted", "ranked", "decision"} {
		if _, err := js.Publish(ctx, wire.SubjectSubmittedBy("eve"), []byte(`junk`), jetstream.WithMsgID(MsgID("", "victim", step))); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Submit(ctx, js, Streams{}, &task.Task{ID: "victim", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision == nil || a.Decision.TaskID != "victim" {
		t.Fatalf("victim's answer: %+v %+v", a.Decision, a.DeadLetter)
	}
	// A squatter who knows alice's task takes its submission id first:
	// her submit still gets her decision (Submit publishes again without
	// the id, and the task-id records tell retry from new task).
	alice := &task.Task{ID: "victim", Caller: task.Caller{ID: "alice"}, Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon"}}}}
	id, err := SubmissionMsgID(alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, wire.SubjectSubmittedBy("eve"), []byte(`junk`), jetstream.WithMsgID(id)); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if a, err := Submit(sctx, js, Streams{}, alice); err != nil || a.Decision == nil || a.Decision.DecisionID != wire.DecisionID("alice", "victim") {
		t.Fatalf("alice's answer after the squat: %+v %v", a, err)
	}
	// The tasks stream holds no submission subject, the submissions
	// stream no stage's.
	for _, stream := range []string{DefaultStreams.Submissions, DefaultStreams.Tasks} {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, subj := range info.Config.Subjects {
			inTasks := subj == wire.SubjectExtracted || subj == wire.SubjectShortlisted || subj == wire.SubjectRanked
			if inTasks != (stream == DefaultStreams.Tasks) {
				t.Errorf("stream %s captures %s", stream, subj)
			}
		}
	}
}

// Task ids are the callers' own: two callers using one id are two tasks,
// each decided once on its own subject, neither a duplicate of the other.
func TestPipelineTaskIDsPerCaller(t *testing.T) {
	m := testMatcher(t)
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	for _, caller := range []string{"alice", "bob"} {
		a, err := Submit(ctx, js, Streams{}, &task.Task{ID: "same-1", Caller: task.Caller{ID: caller},
			Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon on Friday"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Decision == nil || a.Decision.DecisionID != wire.DecisionID(caller, "same-1") {
			t.Fatalf("%s: %+v (dead letter %+v)", caller, a.Decision, a.DeadLetter)
		}
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters", n)
	}
}

// One task's stages make one trace: the caller's span, then one span per
// stage, each the child of the one before, carried by traceparent in the
// NATS headers.
func TestPipelineTrace(t *testing.T) {
	m := testMatcher(t)
	cfg := testConfig(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	cfg.Tracer = tp
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	sctx, root := tp.Tracer("test").Start(ctx, "submit")
	a, err := Submit(sctx, js, Streams{}, &task.Task{ID: "traced", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon"}}}})
	root.End()
	if err != nil || a.Decision == nil {
		t.Fatalf("%+v %v", a, err)
	}
	// The decider's span ends right after its output is handed over.
	var spans []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if spans = rec.Ended(); len(spans) >= 5 {
			break
		}
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("span %s in trace %s, want %s", s.Name(), s.SpanContext().TraceID(), root.SpanContext().TraceID())
		}
		byName[s.Name()] = s
	}
	parent := root.SpanContext().SpanID()
	for _, stage := range []string{StageExtractor, StageRetriever, StageReranker, StageDecider} {
		s, ok := byName[stage]
		if !ok {
			t.Fatalf("no %s span among %d", stage, len(spans))
		}
		if s.Parent().SpanID() != parent {
			t.Errorf("%s span's parent %s, want %s", stage, s.Parent().SpanID(), parent)
		}
		parent = s.SpanContext().SpanID()
	}
	if len(spans) != 5 {
		t.Errorf("%d spans, want 5", len(spans))
	}
}

// startWithCallers runs every stage over m with a directory of callers;
// the group stops with the test.
func startWithCallers(t *testing.T, m *match.Matcher, cfg Config, callers map[string]identity.Identity) (jetstream.JetStream, context.Context, *Group) {
	t.Helper()
	dir, err := identity.New(identity.File{Callers: callers})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Callers = dir
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	return js, ctx, g
}
