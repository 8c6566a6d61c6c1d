package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Exactly-once across any outage. The dedup window of the streams (two
// minutes by default) only covers a redelivery that comes soon; a stage
// stopped longer, or a caller submitting a task id again later, would be
// decided a second time. The task-id bucket remembers every caller's task
// id for as long as the streams keep its submission, in one write per
// task: the decider creates the record (the fingerprint of the task, its
// submission's sequence and its one decision) before publishing the
// decision; the create admits exactly one of any racing deliveries. A
// later delivery finds the record and publishes nothing new (or, when the
// decider stopped between storing and publishing, the same message again,
// only if the decisions stream does not hold it). The extractor only
// reads the records, to turn away a reused id or an identical retry early.

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
	kvc := jetstream.KeyValueConfig{Bucket: cfg.TaskIDsBucket,
		Description: "skillmatch task ids: key = wire.TaskRecordKey(caller, task id), value = wire.TaskIDRecord (claim and decision)",
		History:     1, TTL: limit(cfg.TasksMaxAge)}
	if err := setupBucket(ctx, js, cfg, "task-id", kvc); err != nil {
		return err
	}
	// The deciders' records go in atomic batches (GroupCommit).
	return allowAtomicBatches(ctx, js, "task-id", cmp.Or(kvc.Bucket, wire.BucketTaskIDs))
}

// allowAtomicBatches lets a bucket's stream take atomic batches (a KV
// bucket's config has no such setting, its stream's has), for the records
// the deciders group-commit.
func allowAtomicBatches(ctx context.Context, js jetstream.JetStream, what, bucket string) error {
	name := "KV_" + bucket
	st, err := js.Stream(ctx, name)
	if err != nil {
		return fmt.Errorf("pipeline: %s bucket stream %s: %w", what, name, err)
	}
	sc := st.CachedInfo().Config
	if sc.AllowAtomicPublish {
		return nil
	}
	sc.AllowAtomicPublish = true
	if _, err := js.UpdateStream(ctx, sc); err != nil {
		return fmt.Errorf("pipeline: %s bucket stream %s: allow atomic batches: %w", what, name, err)
	}
	return nil
}

// TaskIDs is the task-id bucket (wire.BucketTaskIDs), shared by every
// extractor and decider replica.
type TaskIDs struct {
	kv        jetstream.KeyValue
	js        jetstream.JetStream
	decisions string
	group     *batch.Group // nil: each record is created alone
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

// WithGroupCommit makes the deciders that wait at the same time create
// their records in one atomic batch (batch.Group: one fsync for many on
// a server that syncs every write); the bucket's stream must allow atomic
// publishing (SetupStreams with Config.GroupCommit). It returns s.
func (s *TaskIDs) WithGroupCommit(cfg batch.GroupConfig) *TaskIDs {
	s.group = batch.NewGroup(s.js.Conn(), cfg)
	return s
}

// Fingerprint identifies a task as its caller submitted it (parsed, before
// the extractor stamps its caller): two submissions are identical when
// their fingerprints are.
func Fingerprint(task []byte) string {
	h := sha256.Sum256(task)
	return hex.EncodeToString(h[:16])
}

// Lookup is caller's task-id record (nil when there is none).
func (s *TaskIDs) Lookup(ctx context.Context, caller, taskID string) (*wire.TaskIDRecord, error) {
	rec, _, err := s.get(ctx, caller, taskID)
	return rec, err
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
	// First: this call stored it.
	First bool
}

// Decide stores d as the decision of caller's task, submitted with
// fingerprint fp at sequence seq, unless one is stored already (create,
// or compare-and-set over a record without a decision: of deliveries
// racing, exactly one wins), and returns the stored one.
func (s *TaskIDs) Decide(ctx context.Context, caller, taskID, fp string, seq uint64, d wire.StoredMessage) (Decided, error) {
	key := wire.TaskRecordKey(caller, taskID)
	rec := &wire.TaskIDRecord{V: wire.Version, TaskID: taskID, CallerID: caller, Fingerprint: fp, Seq: seq, Decision: &d}
	data, err := json.Marshal(rec)
	if err != nil {
		return Decided{}, badInput(fmt.Errorf("task ids: decision of %s: %w", taskID, err))
	}
	// The common case, a new task: one write.
	if err := s.create(ctx, key, data); err == nil {
		return Decided{Record: rec, First: true}, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return Decided{}, fmt.Errorf("task ids: decide %s: %w", taskID, err)
	}
	for {
		old, e, err := s.get(ctx, caller, taskID)
		if err != nil {
			return Decided{}, err
		}
		if old != nil && (old.Decision != nil || fp != "" && old.Fingerprint != "" && old.Fingerprint != fp) {
			// Decided, or claimed for another task: the caller tells.
			return Decided{Record: old}, nil
		}
		// Claimed without a decision (by an extractor of an earlier
		// version, which claimed ids itself): the claim's fingerprint and
		// sequence stand.
		if old == nil {
			_, err = s.kv.Create(ctx, key, data)
		} else {
			old.Decision = &d
			b, merr := json.Marshal(old)
			if merr != nil {
				return Decided{}, badInput(fmt.Errorf("task ids: decision of %s: %w", taskID, merr))
			}
			_, err = s.kv.Update(ctx, key, b, e.Revision())
			rec = old
		}
		switch {
		case err == nil:
			return Decided{Record: rec, First: true}, nil
		case errors.Is(err, jetstream.ErrKeyExists):
			continue // another delivery wrote first: read what it wrote
		default:
			return Decided{}, fmt.Errorf("task ids: decide %s: %w", taskID, err)
		}
	}
}

// create creates key with data (jetstream.ErrKeyExists when it exists),
// in a batch with the creates waiting beside it when grouped.
func (s *TaskIDs) create(ctx context.Context, key string, data []byte) error {
	return createKey(ctx, s.group, s.kv, key, data)
}

// createKey creates key in kv with data (jetstream.ErrKeyExists when it
// exists), through g when set: in an atomic batch with the creates
// waiting beside it, one fsync for all.
func createKey(ctx context.Context, g *batch.Group, kv jetstream.KeyValue, key string, data []byte) error {
	if g == nil {
		_, err := kv.Create(ctx, key, data)
		return err
	}
	// A KV create is a publish on the key's subject that expects no
	// message there yet; in a batch, a key that exists rejects the whole
	// batch, and each of its records is then created alone.
	m := &nats.Msg{Subject: "$KV." + kv.Bucket() + "." + key, Data: data,
		Header: nats.Header{jetstream.ExpectedLastSubjSeqHeader: []string{"0"}}}
	return g.Publish(ctx, m, func(ctx context.Context, _ *nats.Msg) error {
		_, err := kv.Create(ctx, key, data)
		return err
	})
}

// InStream reports whether the decisions stream holds d: the message on
// d's subject (a task's decision subject names the task) with its
// Nats-Msg-Id. Only a delivery that finds a decision stored it did not
// publish asks: the decider may have stopped between storing and
// publishing.
func (s *TaskIDs) InStream(ctx context.Context, d wire.StoredMessage) (bool, error) {
	st, err := s.js.Stream(ctx, s.decisions)
	if err != nil {
		return false, fmt.Errorf("task ids: stream %s: %w", s.decisions, err)
	}
	m, err := st.GetLastMsgForSubject(ctx, d.Subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("task ids: read %s: %w", s.decisions, err)
	}
	return m.Header.Get(jetstream.MsgIDHeader) == d.MsgID, nil
}
