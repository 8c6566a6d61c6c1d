package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// FollowupConfig configures the follow-up bucket.
type FollowupConfig struct {
	// Bucket is the KV bucket (default wire.BucketTasks).
	Bucket string
	// TTL is how long a delegation can be continued (default
	// DefaultFollowupTTL; negative: forever).
	TTL time.Duration
	// Store, when set, is used instead of the bucket (tests, or a store
	// of the operator's).
	Store settle.Store
}

// DefaultFollowupTTL is how long a delegated task can be continued unless
// configured: as long as the tasks stream keeps tasks.
const DefaultFollowupTTL = 7 * 24 * time.Hour

func (c FollowupConfig) withDefaults() FollowupConfig {
	if c.Bucket == "" {
		c.Bucket = wire.BucketTasks
	}
	if c.TTL == 0 {
		c.TTL = DefaultFollowupTTL
	}
	return c
}

// setupFollowups creates the follow-up bucket, or updates it to this
// config. One revision per key: a record is written once and never
// changed, and the bucket's TTL expires it.
func setupFollowups(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	fc := cfg.Followups.withDefaults()
	if err := setupBucket(ctx, js, cfg, "follow-up", jetstream.KeyValueConfig{Bucket: fc.Bucket,
		Description: "skillmatch delegated tasks for follow-ups: key = wire.TaskRecordKey(task id), value = wire.TaskRecord",
		History:     1, TTL: limit(fc.TTL)}); err != nil {
		return err
	}
	// The deciders' records go in atomic batches (GroupCommit).
	return allowAtomicBatches(ctx, js, "follow-up", fc.Bucket)
}

// OpenFollowups opens the follow-up bucket (wire.BucketTasks if bucket
// is "") as the decider's FollowupStore.
func OpenFollowups(ctx context.Context, js jetstream.JetStream, bucket string) (*KVFollowups, error) {
	kv, err := openBucket(ctx, js, "follow-up", bucket, wire.BucketTasks)
	if err != nil {
		return nil, err
	}
	return &KVFollowups{kv: kv, js: js}, nil
}

// KVFollowups is a settle.Store in a JetStream KV bucket, shared by every
// decider replica.
type KVFollowups struct {
	kv    jetstream.KeyValue
	js    jetstream.JetStream
	group *batch.Group // nil: each record is created alone
}

// WithGroupCommit makes the deciders that record delegations at the same
// time create their records in one atomic batch (batch.Group: one fsync
// for many on a server that syncs every write), as TaskIDs does; the
// bucket's stream must allow atomic publishing (SetupStreams). It
// returns f.
func (f *KVFollowups) WithGroupCommit(cfg batch.GroupConfig) *KVFollowups {
	f.group = batch.NewGroup(f.js.Conn(), cfg)
	return f
}

// Get implements settle.Store. A record that does not decode is bad
// input: no retry can make it readable, and guessing would decide wrongly.
func (f *KVFollowups) Get(ctx context.Context, caller, taskID string) (settle.Record, bool, error) {
	e, err := f.kv.Get(ctx, wire.TaskRecordKey(caller, taskID))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return settle.Record{}, false, nil
	case err != nil:
		return settle.Record{}, false, fmt.Errorf("follow-up store: get task %s: %w", taskID, err)
	}
	r, err := wire.DecodeTaskRecord(e.Value())
	if err == nil && (r.TaskID != taskID || r.CallerID != caller) {
		err = fmt.Errorf("%w: record under the key of task %s is for task %s of another caller", wire.ErrBadMessage, taskID, r.TaskID)
	}
	if err != nil {
		return settle.Record{}, false, badInput(fmt.Errorf("follow-up store: %w", err))
	}
	return r.Record(), true, nil
}

// Put implements settle.Store with a create: of two deliveries of one
// task racing, exactly one writes.
func (f *KVFollowups) Put(ctx context.Context, rec settle.Record) (settle.Record, error) {
	data, err := json.Marshal(wire.NewTaskRecord(rec))
	if err != nil {
		return settle.Record{}, badInput(fmt.Errorf("follow-up store: task %s: %w", rec.TaskID, err))
	}
	err = createKey(ctx, f.group, f.kv, wire.TaskRecordKey(rec.CallerID, rec.TaskID), data)
	if err == nil {
		return rec, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return settle.Record{}, fmt.Errorf("follow-up store: put task %s: %w", rec.TaskID, err)
	}
	old, ok, err := f.Get(ctx, rec.CallerID, rec.TaskID)
	if err != nil {
		return settle.Record{}, err
	}
	if !ok {
		// Expired or deleted between the create and the get: retried.
		return settle.Record{}, fmt.Errorf("follow-up store: task %s: record vanished while being written", rec.TaskID)
	}
	return old, nil
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
