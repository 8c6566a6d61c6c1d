package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Exactly-once across any outage. The dedup window of the streams (two
// minutes by default) only covers a redelivery that comes soon; a stage
// stopped longer, or a caller submitting a task id again later, would be
// decided a second time. The task-id bucket remembers every caller's task
// id for as long as the streams keep its messages: the extractor claims
// the id for the first task submitted under it (its fingerprint and
// submission), the decider stores the one decision there with a
// compare-and-set before publishing it and marks it once the decisions
// stream has it. A later delivery finds the decision and publishes nothing
// new (or, when the decider stopped between storing and marking, the same
// message again only if the decisions stream does not hold it).

// ErrTaskIDReused marks a submission whose id its caller already used for
// a different task; ErrDuplicateTask one identical to a task already
// decided. Both are dead-lettered with the reason.
var (
	ErrTaskIDReused  = errors.New("task id reused")
	ErrDuplicateTask = errors.New("duplicate task")
)

// setupTaskIDs creates the task-id bucket, or updates it to this config:
// entries live as long as the streams keep tasks.
func setupTaskIDs(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	return setupBucket(ctx, js, cfg, "task-id", jetstream.KeyValueConfig{Bucket: cfg.TaskIDsBucket,
		Description: "skillmatch task ids: key = wire.TaskRecordKey(caller, task id), value = wire.TaskIDRecord (claim and decision)",
		History:     1, TTL: limit(cfg.TasksMaxAge)})
}

// TaskIDs is the task-id bucket (wire.BucketTaskIDs), shared by every
// extractor and decider replica.
type TaskIDs struct {
	kv        jetstream.KeyValue
	js        jetstream.JetStream
	decisions string
}

// OpenTaskIDs opens the task-id bucket (wire.BucketTaskIDs if bucket is
// ""); decisions is the stream the decider publishes to.
func OpenTaskIDs(ctx context.Context, js jetstream.JetStream, bucket, decisions string) (*TaskIDs, error) {
	kv, err := openBucket(ctx, js, "task-id", bucket, wire.BucketTaskIDs)
	if err != nil {
		return nil, err
	}
	if decisions == "" {
		decisions = DefaultStreams.Decisions
	}
	return &TaskIDs{kv: kv, js: js, decisions: decisions}, nil
}

// Fingerprint identifies a task as its caller submitted it (parsed, before
// the extractor stamps its caller): two submissions are identical when
// their fingerprints are.
func Fingerprint(task []byte) string {
	h := sha256.Sum256(task)
	return hex.EncodeToString(h[:16])
}

// Claim records that the submission at seq, of a task with fingerprint fp,
// uses caller's task id, unless the id is taken. It returns the record as
// it stands and whether this call created it.
func (s *TaskIDs) Claim(ctx context.Context, caller, taskID, fp string, seq uint64) (*wire.TaskIDRecord, bool, error) {
	key := wire.TaskRecordKey(caller, taskID)
	rec := &wire.TaskIDRecord{V: wire.Version, TaskID: taskID, CallerID: caller, Fingerprint: fp, Seq: seq}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, false, badInput(err)
	}
	if _, err := s.kv.Create(ctx, key, data); err == nil {
		return rec, true, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, false, fmt.Errorf("task ids: claim %s: %w", taskID, err)
	}
	old, _, err := s.get(ctx, caller, taskID)
	if err != nil {
		return nil, false, err
	}
	if old == nil {
		return nil, false, fmt.Errorf("task ids: %s: record vanished while being claimed", taskID)
	}
	return old, false, nil
}

// get reads caller's task-id record (nil when there is none) and its entry.
func (s *TaskIDs) get(ctx context.Context, caller, taskID string) (*wire.TaskIDRecord, jetstream.KeyValueEntry, error) {
	e, err := s.kv.Get(ctx, wire.TaskRecordKey(caller, taskID))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("task ids: get %s: %w", taskID, err)
	}
	rec, err := wire.DecodeTaskIDRecord(e.Value())
	if err == nil && (rec.TaskID != taskID || rec.CallerID != caller) {
		err = fmt.Errorf("%w: the record under the key of task %s is another task's (%s)", wire.ErrBadMessage, taskID, rec.TaskID)
	}
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("task ids: %w", err))
	}
	return rec, e, nil
}

// Decided is a task's stored decision as Decide found or wrote it.
type Decided struct {
	Record *wire.TaskIDRecord
	// First: this call stored it. At: when it was stored (the server's
	// time; zero when First). Revision: the record's revision.
	First    bool
	At       time.Time
	Revision uint64
}

// Decide stores d as the decision of caller's task unless one is stored
// already (compare-and-set: of deliveries racing, exactly one wins), and
// returns the stored one.
func (s *TaskIDs) Decide(ctx context.Context, caller, taskID string, d wire.StoredMessage) (Decided, error) {
	key := wire.TaskRecordKey(caller, taskID)
	for {
		rec, e, err := s.get(ctx, caller, taskID)
		if err != nil {
			return Decided{}, err
		}
		if rec != nil && rec.Decision != nil {
			return Decided{Record: rec, At: e.Created(), Revision: e.Revision()}, nil
		}
		if rec == nil {
			// Claimed before the bucket existed, or by an extractor
			// without it: the decision claims the id.
			rec = &wire.TaskIDRecord{V: wire.Version, TaskID: taskID, CallerID: caller}
		}
		rec.Decision = &d
		data, err := json.Marshal(rec)
		if err != nil {
			return Decided{}, badInput(fmt.Errorf("task ids: decision of %s: %w", taskID, err))
		}
		var rev uint64
		if e == nil {
			rev, err = s.kv.Create(ctx, key, data)
		} else {
			rev, err = s.kv.Update(ctx, key, data, e.Revision())
		}
		switch {
		case err == nil:
			return Decided{Record: rec, First: true, Revision: rev}, nil
		case errors.Is(err, jetstream.ErrKeyExists):
			continue // another delivery wrote first: read what it wrote
		default:
			return Decided{}, fmt.Errorf("task ids: decide %s: %w", taskID, err)
		}
	}
}

// MarkPublished records that the decisions stream holds the decision of
// dec (as Decide returned it). Best effort: without the mark, a later
// delivery looks for the decision in the stream instead.
func (s *TaskIDs) MarkPublished(ctx context.Context, dec Decided) error {
	if dec.Record == nil || dec.Record.Published {
		return nil
	}
	rec := *dec.Record
	rec.Published = true
	data, err := json.Marshal(&rec)
	if err != nil {
		return err
	}
	_, err = s.kv.Update(ctx, wire.TaskRecordKey(rec.CallerID, rec.TaskID), data, dec.Revision)
	if err != nil && !errors.Is(err, jetstream.ErrKeyExists) { // changed since: marked by another delivery
		return fmt.Errorf("task ids: mark %s: %w", rec.TaskID, err)
	}
	return nil
}

// clockSlack covers the clocks of the servers holding the bucket and the
// decisions stream (a cluster's nodes differ by far less).
const clockSlack = 2 * time.Second

// InStream reports whether the decisions stream holds d, published after
// since (the time the decision was stored, before it was published): it
// reads the messages on d's subject from then on, looking for its
// Nats-Msg-Id. Only a delivery that finds a decision stored but not marked
// published asks: the decider stopped between the two.
func (s *TaskIDs) InStream(ctx context.Context, d wire.StoredMessage, since time.Time) (bool, error) {
	start := since.Add(-clockSlack)
	c, err := s.js.OrderedConsumer(ctx, s.decisions, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{d.Subject}, DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &start})
	if err != nil {
		return false, fmt.Errorf("task ids: read %s: %w", s.decisions, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return false, fmt.Errorf("task ids: read %s: %w", s.decisions, err)
	}
	left := info.NumPending
	for left > 0 {
		batch, err := c.Fetch(int(min(left, 256)), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return false, fmt.Errorf("task ids: read %s: %w", s.decisions, err)
		}
		n := uint64(0)
		for m := range batch.Messages() {
			n++
			if m.Headers().Get(jetstream.MsgIDHeader) == d.MsgID {
				return true, nil
			}
		}
		if err := batch.Error(); err != nil {
			return false, fmt.Errorf("task ids: read %s: %w", s.decisions, err)
		}
		if n == 0 {
			return false, fmt.Errorf("task ids: read %s: %d messages announced, none delivered", s.decisions, left)
		}
		left -= min(n, left)
	}
	return false, nil
}
