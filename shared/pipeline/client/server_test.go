package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Against a real server with the pipeline's streams, the test plays the
// decider: each awaiting client gets exactly its own task's decision,
// never another task's or another caller's with the same id.
func TestSubmitAwaitReport(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pipeline.SetupStreams(ctx, js, pipeline.Config{}); err != nil {
		t.Fatal(err)
	}
	decideAs := func(caller, id, action string) {
		t.Helper()
		data, _ := json.Marshal(wire.Decision{V: wire.Version, TaskID: id, DecisionID: wire.DecisionID(caller, id),
			Decision: decide.Decision{Action: decide.Action(action), Reason: "by " + caller}})
		if _, err := js.Publish(ctx, wire.SubjectDecision(caller, action, id), data); err != nil {
			t.Fatal(err)
		}
	}
	// The decider answers each submission after another caller's decision
	// on the same id and a decision on another task of the same caller.
	sub, err := js.OrderedConsumer(ctx, pipeline.DefaultStreams.Submissions, jetstream.OrderedConsumerConfig{FilterSubjects: wire.SubjectsSubmitted})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		it, err := sub.Messages()
		if err != nil {
			return
		}
		defer it.Stop()
		go func() { <-ctx.Done(); it.Stop() }()
		for {
			m, err := it.Next()
			if err != nil {
				return
			}
			caller, _ := wire.CallerOf(wire.SubjectSubmitted, m.Subject())
			s, _ := wire.DecodeTaskSubmitted(m.Data())
			tk, err := task.Parse(s.Task)
			if err != nil {
				continue
			}
			decideAs("mallory", tk.ID, "delegate")
			decideAs(caller, tk.ID+"-other", "delegate")
			decideAs(caller, tk.ID, "abstain")
		}
	}()

	c := client.New(js)
	tk := &task.Task{ID: "c-1", Caller: task.Caller{ID: "alice"}, Message: task.Message{Parts: []task.Part{{Text: "hi"}}}}
	a, err := c.Submit(ctx, tk)
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision == nil || a.Decision.TaskID != "c-1" || a.Decision.Action != client.Abstain || a.Decision.Reason != "by alice" ||
		a.Decision.DecisionID != wire.DecisionID("alice", "c-1") {
		t.Fatalf("answer %+v", a.Decision)
	}
	// Submitted again: not run again (the decider above would answer
	// twice), the stored decision is found.
	again, err := c.Submit(ctx, tk)
	if err != nil || again.Decision == nil || again.Decision.DecisionID != a.Decision.DecisionID {
		t.Fatalf("again: %+v %v", again, err)
	}
	if got, err := c.Await(ctx, "alice", "c-1"); err != nil || got.Decision.DecisionID != a.Decision.DecisionID {
		t.Fatalf("await: %+v %v", got, err)
	}
	// Nothing decided for bob's c-1: awaiting it times out.
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	if got, err := c.Await(short, "bob", "c-1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("bob's c-1: %+v %v", got, err)
	}

	// A dead letter of the task is its answer.
	dl := wire.NewDeadLetter("extractor", "bad scope", wire.SubjectSubmittedBy("alice"), []byte(`{}`), time.Now())
	dl.TaskID, dl.Caller = "c-2", "alice"
	data, _ := json.Marshal(dl)
	if _, err := js.Publish(ctx, wire.SubjectDeadLetter("extractor", "alice", "c-2"), data); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Await(ctx, "alice", "c-2"); err != nil || got.DeadLetter == nil || got.DeadLetter.Reason != "bad scope" {
		t.Fatalf("dead letter: %+v %v", got, err)
	}

	// An outcome is stored once per decision and skill, and reads as the
	// feedback stage reads it.
	o := client.Outcome{DecisionID: a.Decision.DecisionID, TaskID: "c-1", Skill: "a/b", Success: true, LatencyMS: 5}
	for range 2 {
		if err := c.Report(ctx, "alice", o); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := js.Stream(ctx, pipeline.DefaultStreams.Outcomes)
	info, _ := s.Info(ctx)
	m, err := s.GetLastMsgForSubject(ctx, wire.SubjectOutcomeBy("alice"))
	if err != nil || info.State.Msgs != 1 {
		t.Fatalf("%d outcomes stored, %v", info.State.Msgs, err)
	}
	if got, err := wire.DecodeOutcome(m.Data); err != nil || got.DecisionID != o.DecisionID || !got.Success || got.Skill != "a/b" {
		t.Errorf("outcome %+v %v", got, err)
	}
	if err := c.Report(ctx, "alice", client.Outcome{Skill: "a/b", TaskID: "c-1"}); err == nil {
		t.Error("an outcome without its decision id was sent")
	}
	if err := c.Report(ctx, "alice", client.Outcome{DecisionID: a.Decision.DecisionID, Skill: "a/b"}); err == nil {
		t.Error("an outcome without its task id was sent")
	}
	// Decision ids are made from caller and task: an outcome naming
	// another task's, or another caller's, is refused before it is sent
	// (the feedback stage would dead-letter it); a plan step's is not.
	for _, bad := range []struct{ caller, decision string }{
		{"alice", client.DecisionID("alice", "c-2")},
		{"bob", a.Decision.DecisionID},
		{"alice", a.Decision.DecisionID + "-s0"},
		{"alice", a.Decision.DecisionID + "-sx"},
	} {
		err := c.Report(ctx, bad.caller, client.Outcome{DecisionID: bad.decision, TaskID: "c-1", Skill: "a/b"})
		if !errors.Is(err, client.ErrOutcome) {
			t.Errorf("%s reporting decision %s of c-1: %v, want ErrOutcome", bad.caller, bad.decision, err)
		}
	}
	if err := c.Report(ctx, "alice", client.Outcome{DecisionID: a.Decision.DecisionID + "-s3", TaskID: "c-1", Skill: "a/b"}); err != nil {
		t.Errorf("a plan step's outcome: %v", err)
	}
	if info, _ := s.Info(ctx); info.State.Msgs != 2 {
		t.Errorf("%d outcomes stored, want 2 (the refused ones are not)", info.State.Msgs)
	}
}
