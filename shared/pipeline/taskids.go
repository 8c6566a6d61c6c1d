package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Exactly-once across any outage. The dedup window of the streams (two
// minutes by default) only covers a redelivery that comes soon; a stage
// stopped longer, or a caller submitting a task id again later, would be
// decided a second time. The decision itself is the task's record, and
// its one synced write: the decider publishes it with the Nats-Msg-Id of
// the task and expects no message yet on the task's decision subjects
// (SubjectDecisionOf, whatever the action; the stream checks it under its
// lock, against everything it keeps, which is every decision), so of any
// racing or late deliveries exactly one is stored, and a stored decision
// is published, to subscribers too, by the same write. It carries the
// fingerprint of the task and its submission's sequence in headers, which
// the extractor reads back to turn away a reused id or an identical
// retry early, and the decider to tell a late delivery of the decided
// submission (nothing to publish) from another submission under the same
// id (a dead letter). Earlier versions wrote a record to the task-id
// bucket before publishing the decision, a second synced write per task;
// their records are still read, while the bucket exists, for the tasks
// they decided.

// ErrTaskIDReused marks a submission whose id its caller already used for
// a different task; ErrDuplicateTask one identical to a task already
// decided. Both are dead-lettered with the reason.
var (
	ErrTaskIDReused  = errors.New("task id reused")
	ErrDuplicateTask = errors.New("duplicate task")
)

// Headers of a stored decision: what the task's record keeps besides the
// decision (see TaskIDs), and the stream's check that none is stored yet.
const (
	// HeaderSubmission is the stream sequence of the submission a
	// decision answers.
	HeaderSubmission = "Skillmatch-Submission"
	// headerExpectedSubject makes the stream apply
	// Nats-Expected-Last-Subject-Sequence to the messages on this subject
	// filter instead of the message's own subject (nats-server 2.11).
	headerExpectedSubject = "Nats-Expected-Last-Subject-Sequence-Subject"
)

// TaskIDs remembers every caller's task ids through their decisions in
// the decisions stream, shared by every extractor and decider replica.
type TaskIDs struct {
	js        jetstream.JetStream
	decisions jetstream.Stream
	group     *batch.Group       // nil: each decision is published alone
	legacy    jetstream.KeyValue // the task-id bucket of earlier versions; nil when there is none
	// legacyGone is set once that bucket was found deleted (as the
	// operator is told to, once its records have expired).
	legacyGone atomic.Bool
}

// OpenTaskIDs opens the task ids kept in the decisions stream (named
// decisions; DefaultStreams.Decisions if ""), and the task-id bucket of
// earlier versions (wire.BucketTaskIDs if bucket is "") when it exists.
func OpenTaskIDs(ctx context.Context, js jetstream.JetStream, bucket, decisions string) (*TaskIDs, error) {
	if decisions == "" {
		decisions = DefaultStreams.Decisions
	}
	st, err := js.Stream(ctx, decisions)
	if err != nil {
		return nil, fmt.Errorf("pipeline: task ids: stream %s: %w", decisions, err)
	}
	s := &TaskIDs{js: js, decisions: st}
	kv, err := js.KeyValue(ctx, cmp.Or(bucket, wire.BucketTaskIDs))
	switch {
	case err == nil:
		s.legacy = kv
	case !errors.Is(err, jetstream.ErrBucketNotFound):
		return nil, fmt.Errorf("pipeline: task-id bucket: %w", err)
	}
	return s, nil
}

// WithGroupCommit makes the deciders that wait at the same time publish
// their decisions in one atomic batch (batch.Group: one fsync for many on
// a server that syncs every write); the decisions stream allows atomic
// publishing (SetupStreams). It returns s.
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

// Lookup is caller's task-id record (nil when there is none): its stored
// decision, or the record an earlier version kept in the task-id bucket.
func (s *TaskIDs) Lookup(ctx context.Context, caller, taskID string) (*wire.TaskIDRecord, error) {
	m, err := s.decisions.GetLastMsgForSubject(ctx, wire.SubjectDecisionOf(caller, taskID))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		m = nil
	case err != nil:
		return nil, fmt.Errorf("task ids: read the decision of %s: %w", taskID, err)
	}
	var rec *wire.TaskIDRecord
	if m != nil {
		if rec, err = decisionRecord(m, caller, taskID); err != nil {
			return nil, badInput(fmt.Errorf("task ids: %w", err))
		}
		if rec.Fingerprint != "" || s.legacy == nil {
			return rec, nil
		}
	}
	// Nothing stored, or a decision an earlier version published, whose
	// fingerprint and submission its bucket record keeps.
	old, err := s.legacyRecord(ctx, caller, taskID)
	if err != nil || old == nil {
		return rec, err
	}
	// The stream's decision is the one published; a record without one
	// in the stream is a claim, or a decision stored but never
	// published, which the next delivery publishes afresh.
	old.Decision = nil
	if rec != nil {
		old.Decision = rec.Decision
	}
	return old, nil
}

// decisionRecord is the task-id record a stored decision makes.
func decisionRecord(m *jetstream.RawStreamMsg, caller, taskID string) (*wire.TaskIDRecord, error) {
	d, err := wire.DecodeDecision(m.Data)
	if err == nil && d.TaskID != taskID {
		err = fmt.Errorf("%w: the decision on the subject of task %s is another task's (%s)", wire.ErrBadMessage, taskID, d.TaskID)
	}
	if err != nil {
		return nil, err
	}
	rec := &wire.TaskIDRecord{V: wire.Version, TaskID: taskID, CallerID: caller, Fingerprint: m.Header.Get(HeaderFingerprint),
		Decision: &wire.StoredMessage{Subject: m.Subject, MsgID: m.Header.Get(jetstream.MsgIDHeader), Data: m.Data}}
	if v := m.Header.Get(HeaderSubmission); v != "" {
		if rec.Seq, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, fmt.Errorf("%w: decision of task %s: submission %q", wire.ErrBadMessage, taskID, v)
		}
	}
	return rec, nil
}

// legacyDeleted says whether err, from a read of the task-id bucket of
// earlier versions, means the bucket is gone: the operator deletes it once
// its records have expired, and every lookup must not then fail as if the
// server were down. A read of a deleted bucket finds no stream, or no
// responder to its direct get; only the stream's absence, asked again,
// settles it.
func (s *TaskIDs) legacyDeleted(ctx context.Context, err error) bool {
	if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrBucketNotFound) &&
		!errors.Is(err, nats.ErrNoResponders) {
		return false
	}
	if _, serr := s.js.Stream(ctx, "KV_"+s.legacy.Bucket()); !errors.Is(serr, jetstream.ErrStreamNotFound) {
		return false
	}
	s.legacyGone.Store(true)
	return true
}

// legacyRecord reads caller's record in the task-id bucket of earlier
// versions (nil when there is none, or no bucket).
func (s *TaskIDs) legacyRecord(ctx context.Context, caller, taskID string) (*wire.TaskIDRecord, error) {
	if s.legacy == nil || s.legacyGone.Load() {
		return nil, nil
	}
	e, err := s.legacy.Get(ctx, wire.TaskRecordKey(caller, taskID))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, nil
	case err != nil && s.legacyDeleted(ctx, err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("task ids: get %s: %w", taskID, err)
	}
	rec, err := wire.DecodeTaskIDRecord(e.Value())
	if err == nil && (rec.TaskID != taskID || rec.CallerID != caller) {
		err = fmt.Errorf("%w: the record under the key of task %s is another task's (%s)", wire.ErrBadMessage, taskID, rec.TaskID)
	}
	if err != nil {
		return nil, badInput(fmt.Errorf("task ids: %w", err))
	}
	return rec, nil
}

// Decided is a task's stored decision as Decide found or wrote it.
type Decided struct {
	Record *wire.TaskIDRecord
	// First: this call stored it.
	First bool
}

// errDecided means the stream holds a decision of the task already.
var errDecided = errors.New("decided already")

// Decide publishes d, with headers h, as the decision of caller's task,
// submitted with fingerprint fp at sequence seq, unless the stream holds
// one already (of deliveries racing, exactly one is stored), and returns
// the stored one: First when this call stored it.
func (s *TaskIDs) Decide(ctx context.Context, caller, taskID, fp string, seq uint64, d wire.StoredMessage, h nats.Header) (Decided, error) {
	m := &nats.Msg{Subject: d.Subject, Data: d.Data, Header: make(nats.Header, len(h)+5)}
	for k, v := range h {
		m.Header[k] = v
	}
	m.Header.Set(jetstream.MsgIDHeader, d.MsgID)
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	m.Header.Set(headerExpectedSubject, wire.SubjectDecisionOf(caller, taskID))
	if fp != "" {
		m.Header.Set(HeaderFingerprint, fp)
	}
	if seq != 0 {
		m.Header.Set(HeaderSubmission, strconv.FormatUint(seq, 10))
	}
	err := s.publish(ctx, m)
	if err == nil {
		return Decided{First: true, Record: &wire.TaskIDRecord{V: wire.Version, TaskID: taskID, CallerID: caller, Fingerprint: fp, Seq: seq, Decision: &d}}, nil
	}
	if !errors.Is(err, errDecided) {
		return Decided{}, fmt.Errorf("task ids: decide %s: %w", taskID, err)
	}
	rec, err := s.Lookup(ctx, caller, taskID)
	if err != nil {
		return Decided{}, err
	}
	if rec == nil || rec.Decision == nil {
		// Deduplicated by its Nats-Msg-Id while the decision it
		// duplicates is gone (deleted by an operator): retried.
		return Decided{}, fmt.Errorf("task ids: decide %s: the stream refused the decision but holds none", taskID)
	}
	return Decided{Record: rec}, nil
}

// publish stores m, in a batch with the decisions waiting beside it when
// grouped; errDecided when the stream holds a decision of its task
// already (a duplicate Nats-Msg-Id, or a message on its subjects).
func (s *TaskIDs) publish(ctx context.Context, m *nats.Msg) error {
	alone := func(ctx context.Context, m *nats.Msg) error {
		ack, err := s.js.PublishMsg(ctx, m)
		switch {
		case isWrongLastSequence(err):
			return errDecided
		case err != nil:
			return err
		case ack.Duplicate:
			return errDecided
		}
		return nil
	}
	if s.group == nil {
		return alone(ctx, m)
	}
	// In a batch, a decided task rejects the whole batch, and each of its
	// decisions is then published alone, which gives it its own answer.
	return s.group.Publish(ctx, m, alone)
}
