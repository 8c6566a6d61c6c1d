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
	"github.com/skillmatch/skillmatch/shared/match/decide"
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
// stage stopped longer than it) is not decided again: its stored
// decision, found on the task's decision subjects, stands, and the
// redelivery publishes nothing and dead-letters nothing.
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
	first := decisionsOf(t, js, "", "late")
	// The reranker's redelivery, past the window: the decider gets the
	// ranked task again, as a new message.
	pastWindow()
	ack, err := js.PublishMsg(ctx, &nats.Msg{Subject: ranked.Subject(), Data: ranked.Data(), Header: ranked.Headers()},
		jetstream.WithMsgID(MsgID("", "late", "ranked")))
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
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("decider did not settle the redelivery: %+v", info)
		}
	}
	msgs := decisionsOf(t, js, "", "late")
	if len(first) != 1 || len(msgs) != 1 || !bytes.Equal(msgs[0].Data(), first[0].Data()) {
		t.Errorf("%d decisions, then %d: the stored one must stand alone", len(first), len(msgs))
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters", n)
	}
}

// testDecision is a decision of caller's task as the decider publishes it.
func testDecision(t *testing.T, caller, taskID, msgID string) wire.StoredMessage {
	t.Helper()
	data, err := json.Marshal(wire.Decision{V: wire.Version, TaskID: taskID, DecisionID: wire.DecisionID(caller, taskID),
		Decision: decide.Decision{Action: decide.Abstain}})
	if err != nil {
		t.Fatal(err)
	}
	return wire.StoredMessage{Subject: wire.SubjectDecision(caller, string(decide.Abstain), taskID), MsgID: msgID, Data: data}
}

// The stored decision is the task's record: a fresh id is decided once,
// in one write, and a second decision, under another message id past any
// dedup, sees the first, its fingerprint and its submission; a decision
// on a task's subjects that is another task's is bad input, not a
// decision to trust.
func TestTaskIDsDecideOnce(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	ids, err := OpenTaskIDs(ctx, js, "", "")
	if err != nil {
		t.Fatal(err)
	}
	d := testDecision(t, "alice", "u", "m")
	dec, err := ids.Decide(ctx, "alice", "u", "fp1", 7, d, nil)
	if err != nil || !dec.First {
		t.Fatalf("decide: %+v %v", dec, err)
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.Decisions); n != 1 {
		t.Errorf("%d messages in the decisions stream, want the one decision", n)
	}
	d2 := testDecision(t, "alice", "u", "m2")
	d2.Subject = wire.SubjectDecision("alice", string(decide.Delegate), "u")
	dec, err = ids.Decide(ctx, "alice", "u", "fp2", 8, d2, nil)
	if err != nil || dec.First || dec.Record.Fingerprint != "fp1" || dec.Record.Seq != 7 || dec.Record.Decision.MsgID != "m" {
		t.Errorf("second decision: %+v %v", dec, err)
	}
	if rec, err := ids.Lookup(ctx, "alice", "u"); err != nil || rec == nil || rec.Fingerprint != "fp1" || !bytes.Equal(rec.Decision.Data, d.Data) {
		t.Errorf("lookup: %+v %v", rec, err)
	}
	if rec, err := ids.Lookup(ctx, "bob", "u"); err != nil || rec != nil {
		t.Errorf("bob's u: %+v %v", rec, err)
	}
	other := testDecision(t, "alice", "other", "x")
	if _, err := js.Publish(ctx, wire.SubjectDecision("alice", string(decide.Abstain), "t"), other.Data); err != nil {
		t.Fatal(err)
	}
	if _, err := ids.Lookup(ctx, "alice", "t"); !errors.Is(err, ErrBadInput) {
		t.Errorf("lookup of another task's decision: %v", err)
	}
	if _, err := ids.Decide(ctx, "alice", "t", "fp", 1, testDecision(t, "alice", "t", "t"), nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("decision over another task's: %v", err)
	}
}

// The records an earlier version kept in the task-id bucket still count
// while the bucket exists: its fingerprint and submission, with the
// decision the stream holds (none: a claim, or a decision never
// published, which is decided afresh); a record of another task is bad
// input.
func TestTaskIDsLegacyRecords(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: wire.BucketTaskIDs})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := OpenTaskIDs(ctx, js, "", "")
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, rec wire.TaskIDRecord) {
		t.Helper()
		data, _ := json.Marshal(rec)
		if _, err := kv.Put(ctx, key, data); err != nil {
			t.Fatal(err)
		}
	}
	stored := testDecision(t, "alice", "a", "old")
	put(wire.TaskRecordKey("alice", "a"), wire.TaskIDRecord{V: wire.Version, TaskID: "a", CallerID: "alice", Fingerprint: "fpa", Seq: 3, Decision: &stored})
	rec, err := ids.Lookup(ctx, "alice", "a")
	if err != nil || rec == nil || rec.Fingerprint != "fpa" || rec.Seq != 3 || rec.Decision != nil {
		t.Errorf("record of a decision never published: %+v %v", rec, err)
	}
	// An earlier version's decider published it, without the headers.
	if _, err := js.Publish(ctx, stored.Subject, stored.Data); err != nil {
		t.Fatal(err)
	}
	rec, err = ids.Lookup(ctx, "alice", "a")
	if err != nil || rec == nil || rec.Fingerprint != "fpa" || rec.Seq != 3 || rec.Decision == nil || !bytes.Equal(rec.Decision.Data, stored.Data) {
		t.Errorf("record of a published decision: %+v %v", rec, err)
	}
	put(wire.TaskRecordKey("alice", "b"), wire.TaskIDRecord{V: wire.Version, TaskID: "other", CallerID: "bob"})
	if _, err := ids.Lookup(ctx, "alice", "b"); !errors.Is(err, ErrBadInput) {
		t.Errorf("lookup of another task's record: %v", err)
	}
	// The operator deletes the bucket once its records have expired: a
	// task not decided yet is then simply new, not an error to retry.
	if err := js.DeleteKeyValue(ctx, wire.BucketTaskIDs); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if rec, err := ids.Lookup(ctx, "alice", "new"); err != nil || rec != nil {
			t.Errorf("lookup after the old bucket was deleted: %+v %v", rec, err)
		}
	}
}
