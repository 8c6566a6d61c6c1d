package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// shortWindow is testConfig with a one-second dedup window (and the ack
// wait and retry budget Validate then wants), so that a test can outlast
// it: what the streams' dedup would have caught within the window must be
// caught by the task-id records after it.
func shortWindow(t *testing.T) Config {
	cfg := testConfig(t)
	cfg.BackOff = []time.Duration{time.Second, time.Second, time.Second}
	cfg.Retry = time.Second
	cfg.Duplicates = time.Second
	return cfg
}

// pastWindow waits until the one-second dedup window of shortWindow is
// over.
func pastWindow() { time.Sleep(1500 * time.Millisecond) }

// decisionsOf returns the messages of the decisions stream about a
// caller's task.
func decisionsOf(t *testing.T, js jetstream.JetStream, caller, taskID string) []jetstream.Msg {
	t.Helper()
	var out []jetstream.Msg
	for _, m := range readAll(t, js, DefaultStreams.Decisions) {
		d, err := wire.DecodeDecision(m.Data())
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := wire.CallerOfDecision(m.Subject()); c == caller && d.TaskID == taskID {
			out = append(out, m)
		}
	}
	return out
}

// A task id names one task, for as long as the streams keep it, not for
// the dedup window: the same id with a different task is dead-lettered
// as reused (even from the same caller, within the window or after it);
// an identical retry after the window gets the first decision, carried by
// its dead letter, and no second one; another caller's id is its own.
func TestPipelineTaskIDs(t *testing.T) {
	m := testMatcher(t)
	cfg := shortWindow(t)
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	flight := task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon on Friday"}}}
	contract := task.Message{Parts: []task.Part{{Text: "translate this contract to German"}}}
	submit := func(caller string, msg task.Message) *Answer {
		t.Helper()
		a, err := Submit(ctx, js, Streams{}, &task.Task{ID: "t-1", Caller: task.Caller{ID: caller}, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := submit("alice", flight)
	if first.Decision == nil {
		t.Fatalf("first: %+v", first.DeadLetter)
	}
	for _, wait := range []bool{false, true} {
		if wait {
			pastWindow()
		}
		other := submit("alice", contract)
		if other.DeadLetter == nil || !strings.Contains(other.DeadLetter.Reason, ErrTaskIDReused.Error()) || other.DeadLetter.Decision != nil {
			t.Errorf("a different task under a used id (past the window: %v): %+v %+v", wait, other.Decision, other.DeadLetter)
		}
	}
	pastWindow()
	again := submit("alice", flight)
	if again.Decision == nil || again.Decision.DecisionID != first.Decision.DecisionID || !again.Decision.DecidedAt.Equal(first.Decision.DecidedAt) {
		t.Errorf("identical retry past the window: %+v, want the first decision %+v", again.Decision, first.Decision)
	}
	if bob := submit("bob", contract); bob.Decision == nil {
		t.Errorf("bob's t-1: %+v", bob.DeadLetter)
	}
	if n := len(decisionsOf(t, js, "alice", "t-1")); n != 1 {
		t.Errorf("alice's t-1 decided %d times", n)
	}
	// The dead letters say which: two reused, one duplicate with the
	// decision, each on alice's subject.
	var reused, dups int
	for _, msg := range readAll(t, js, DefaultStreams.DeadLetters) {
		dl, err := wire.DecodeDeadLetter(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case msg.Subject() != wire.SubjectDeadLetter(StageExtractor, "alice", dl.TaskID):
			t.Errorf("dead letter on %s: %s", msg.Subject(), dl.Reason)
		case strings.Contains(dl.Reason, ErrTaskIDReused.Error()):
			reused++
		case strings.Contains(dl.Reason, ErrDuplicateTask.Error()) && len(dl.Decision) > 0:
			dups++
		default:
			t.Errorf("dead letter: %s", dl.Reason)
		}
	}
	if reused != 2 || dups != 1 {
		t.Errorf("%d reused, %d duplicate dead letters; want 2, 1", reused, dups)
	}
}

// Finding 5: a task redelivered to the decider after the dedup window (a
// stage stopped longer than it) is not decided again (the stored decision
// is looked for in the stream), and when the decider had stopped between
// storing it and publishing it, the redelivery publishes the stored
// decision, byte for byte, once.
func TestPipelineDecidesOnceAfterWindow(t *testing.T) {
	m := testMatcher(t)
	cfg := shortWindow(t)
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	a, err := Submit(ctx, js, Streams{}, &task.Task{ID: "late", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon"}}}})
	if err != nil || a.Decision == nil {
		t.Fatalf("%+v %v", a, err)
	}
	var ranked jetstream.Msg
	for _, msg := range readAll(t, js, DefaultStreams.Tasks) {
		if msg.Subject() == wire.SubjectRanked && TaskIDOf(msg.Data()) == "late" {
			ranked = msg
		}
	}
	if ranked == nil {
		t.Fatal("no ranked message")
	}
	ids, err := OpenTaskIDs(ctx, js, "", "")
	if err != nil {
		t.Fatal(err)
	}
	record := func() *wire.TaskIDRecord {
		t.Helper()
		rec, _, err := ids.get(ctx, "", "late")
		if err != nil || rec == nil || rec.Decision == nil {
			t.Fatalf("record %+v %v", rec, err)
		}
		return rec
	}
	// redeliver publishes the decider's input again past the window, as
	// the reranker's redelivery would, and waits until the decider has
	// settled it.
	redeliver := func() {
		t.Helper()
		pastWindow()
		ack, err := js.PublishMsg(ctx, &nats.Msg{Subject: ranked.Subject(), Data: ranked.Data()}, jetstream.WithMsgID(MsgID("", "late", "ranked")))
		if err != nil || ack.Duplicate {
			t.Fatalf("republish: %+v %v", ack, err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			c, err := js.Consumer(ctx, DefaultStreams.Tasks, StageDecider)
			if err != nil {
				t.Fatal(err)
			}
			info, err := c.Info(ctx)
			if err == nil && info.AckFloor.Stream >= ack.Sequence && info.NumAckPending == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("decider did not settle the redelivery: %+v", info)
			}
		}
	}
	check := func(what string) {
		t.Helper()
		msgs := decisionsOf(t, js, "", "late")
		if len(msgs) != 1 {
			t.Fatalf("%s: %d decisions", what, len(msgs))
		}
		if rec := record(); !bytes.Equal(msgs[0].Data(), rec.Decision.Data) {
			t.Errorf("%s: the stream's decision is not the stored one", what)
		}
	}
	redeliver()
	check("redelivered past the window")

	s, err := js.Stream(ctx, DefaultStreams.Decisions)
	if err != nil {
		t.Fatal(err)
	}
	md, err := decisionsOf(t, js, "", "late")[0].Metadata()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, md.Sequence.Stream); err != nil {
		t.Fatal(err)
	}
	redeliver()
	check("stopped before publishing")
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters", n)
	}
}

// The task-id record refuses what cannot be its own: a record under the
// key of another task is bad input, not a decision to trust.
func TestTaskIDsRecordChecked(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	ids, err := OpenTaskIDs(ctx, js, "", "")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(wire.TaskIDRecord{V: wire.Version, TaskID: "other", CallerID: "bob"})
	if _, err := ids.kv.Put(ctx, wire.TaskRecordKey("alice", "t"), data); err != nil {
		t.Fatal(err)
	}
	d := wire.StoredMessage{Subject: "skillmatch.decision.alice.abstain.t", MsgID: "m", Data: []byte(`{}`)}
	if _, err := ids.Decide(ctx, "alice", "t", "fp", 1, d); !errors.Is(err, ErrBadInput) {
		t.Errorf("decision over another task's record: %v", err)
	}
	if _, err := ids.Lookup(ctx, "alice", "t"); !errors.Is(err, ErrBadInput) {
		t.Errorf("lookup of another task's record: %v", err)
	}
	// A fresh id is decided once, in one write: the second decision sees
	// the first, its fingerprint and its submission.
	dec, err := ids.Decide(ctx, "alice", "u", "fp1", 7, d)
	if err != nil || !dec.First || dec.Record.Seq != 7 {
		t.Fatalf("decide: %+v %v", dec, err)
	}
	if e, err := ids.kv.Get(ctx, wire.TaskRecordKey("alice", "u")); err != nil || e.Revision() != 2 {
		t.Errorf("the record is not the bucket's one write since the other record: %v", err)
	}
	d2 := d
	d2.MsgID = "m2"
	dec, err = ids.Decide(ctx, "alice", "u", "fp2", 8, d2)
	if err != nil || dec.First || dec.Record.Fingerprint != "fp1" || dec.Record.Seq != 7 || dec.Record.Decision.MsgID != "m" {
		t.Errorf("second decision: %+v %v", dec, err)
	}
}
