package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// FollowupStore remembers the decider's delegations, so that a message
// that continues a task (task.Message.TaskID) goes to the same agent and
// skill, in the same context, for the same caller only.
type FollowupStore interface {
	// Get returns the record of a task; ok is false when there is none
	// (never delegated, or expired).
	Get(ctx context.Context, taskID string) (rec wire.TaskRecord, ok bool, err error)
	// Put records a delegation unless the store already holds a record
	// for its task id, and returns the record the store holds afterwards:
	// rec, or the earlier one (a redelivered task, or a reused task id).
	// Records are never replaced, so a redelivery cannot move a task.
	Put(ctx context.Context, rec wire.TaskRecord) (wire.TaskRecord, error)
}

// SetFollowups gives the decider its follow-up store (nil: none; a task
// that continues another is then refused). Call it before the decider
// runs.
func (s *Stages) SetFollowups(f FollowupStore) { s.followups = f }

// FollowupConfig configures the follow-up bucket.
type FollowupConfig struct {
	// Bucket is the KV bucket (default wire.BucketTasks).
	Bucket string
	// TTL is how long a delegation can be continued (default
	// DefaultFollowupTTL; negative: forever).
	TTL time.Duration
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
	return setupBucket(ctx, js, cfg, "follow-up", jetstream.KeyValueConfig{Bucket: fc.Bucket,
		Description: "skillmatch delegated tasks for follow-ups: key = wire.TaskRecordKey(task id), value = wire.TaskRecord",
		History:     1, TTL: limit(fc.TTL)})
}

// OpenFollowups opens the follow-up bucket (wire.BucketTasks if bucket
// is "") as the decider's FollowupStore.
func OpenFollowups(ctx context.Context, js jetstream.JetStream, bucket string) (*KVFollowups, error) {
	kv, err := openBucket(ctx, js, "follow-up", bucket, wire.BucketTasks)
	if err != nil {
		return nil, err
	}
	return &KVFollowups{kv: kv}, nil
}

// KVFollowups is a FollowupStore in a JetStream KV bucket.
type KVFollowups struct{ kv jetstream.KeyValue }

// Get implements FollowupStore. A record that does not decode is bad
// input: no retry can make it readable, and guessing would decide wrongly.
func (f *KVFollowups) Get(ctx context.Context, taskID string) (wire.TaskRecord, bool, error) {
	e, err := f.kv.Get(ctx, wire.TaskRecordKey(taskID))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return wire.TaskRecord{}, false, nil
	case err != nil:
		return wire.TaskRecord{}, false, fmt.Errorf("follow-up store: get task %s: %w", taskID, err)
	}
	r, err := wire.DecodeTaskRecord(e.Value())
	if err == nil && r.TaskID != taskID {
		err = fmt.Errorf("%w: record under the key of task %s is for task %s", wire.ErrBadMessage, taskID, r.TaskID)
	}
	if err != nil {
		return wire.TaskRecord{}, false, badInput(fmt.Errorf("follow-up store: %w", err))
	}
	return *r, true, nil
}

// Put implements FollowupStore with a create: of two deliveries of one
// task racing, exactly one writes.
func (f *KVFollowups) Put(ctx context.Context, rec wire.TaskRecord) (wire.TaskRecord, error) {
	rec.V = wire.Version
	data, err := json.Marshal(&rec)
	if err != nil {
		return wire.TaskRecord{}, badInput(fmt.Errorf("follow-up store: task %s: %w", rec.TaskID, err))
	}
	_, err = f.kv.Create(ctx, wire.TaskRecordKey(rec.TaskID), data)
	if err == nil {
		return rec, nil
	}
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return wire.TaskRecord{}, fmt.Errorf("follow-up store: put task %s: %w", rec.TaskID, err)
	}
	old, ok, err := f.Get(ctx, rec.TaskID)
	if err != nil {
		return wire.TaskRecord{}, err
	}
	if !ok {
		// Expired or deleted between the create and the get: retried.
		return wire.TaskRecord{}, fmt.Errorf("follow-up store: task %s: record vanished while being written", rec.TaskID)
	}
	return old, nil
}

// settled is what the decider publishes for a task: the decision, the
// A2A request of a delegation, and whether the task fixed the skill
// itself (a follow-up, a named skill, a redelivery) rather than the
// policy choosing it.
type settled struct {
	d       decide.Decision
	request *wire.A2ARequest
	pinned  bool
	// contextID is the context id the request carries ("" for none).
	contextID string
}

// delegation settles the policy's decision d for task t: a follow-up goes
// to its task's skill or is refused, a named skill is taken or refused, a
// skill-scoped caller starts a new context. A delegation is recorded in
// the follow-up store, when there is one, before it is published. Errors
// are transient (the store is unreachable) or bad input.
func (s *Stages) delegation(ctx context.Context, m *match.Matcher, t *task.Task, d decide.Decision, opts []decide.Option, decisionID string) (settled, error) {
	st, err := s.settle(ctx, m, t, d, opts)
	if err != nil {
		return st, err
	}
	if err := st.build(m, t, decisionID); err != nil || st.d.Action != decide.Delegate || s.followups == nil {
		return st, err
	}
	rec := wire.TaskRecord{TaskID: t.ID, DecisionID: decisionID, AgentID: st.d.Chosen.AgentID, SkillID: st.d.Chosen.SkillID,
		ContextID: st.contextID, CallerID: t.Caller.ID, At: s.now().UTC()}
	stored, err := s.followups.Put(ctx, rec)
	switch {
	case err != nil:
		return st, err
	case stored.SameDelegation(rec):
		return st, nil
	case stored.CallerID != rec.CallerID:
		return refuse("task id %s is already recorded for another caller: task ids must be unique", t.ID), nil
	}
	// An earlier delivery of this task recorded, and may have published,
	// another delegation (the near-tie posteriors moved in between): the
	// record wins, so that the decision and its follow-ups agree.
	st = s.pin(m, t, stored.AgentID, stored.SkillID, stored.SkillID, stored.ContextID, opts,
		fmt.Sprintf("task %s was delegated to %s/%s on an earlier delivery", t.ID, stored.AgentID, stored.SkillID))
	return st, st.build(m, t, decisionID)
}

// build makes the A2A request of a delegation to an agent of the catalog.
func (st *settled) build(m *match.Matcher, t *task.Task, decisionID string) error {
	if st.d.Action != decide.Delegate || st.d.Chosen == nil {
		return nil
	}
	a, ok := m.Catalog().Agent(st.d.Chosen.AgentID)
	if !ok {
		return nil
	}
	var err error
	if st.request, err = wire.NewA2ARequest(a.Card, st.d.Chosen.SkillID, t, decisionID, wire.WithContextID(st.contextID)); err != nil {
		return badInput(err)
	}
	return nil
}

func (s *Stages) settle(ctx context.Context, m *match.Matcher, t *task.Task, d decide.Decision, opts []decide.Option) (settled, error) {
	if prev := t.Message.TaskID; prev != "" {
		return s.followup(ctx, m, t, prev, opts)
	}
	if agentID, skillID, ok := t.Constraints.Skill(); ok {
		return s.pin(m, t, agentID, skillID, "", t.Message.ContextID, opts, "the caller named skill "+t.Constraints.SkillID), nil
	}
	return scope(m, t, d), nil
}

// followup settles a task that continues task prev: it keeps prev's agent
// and skill, for prev's caller only, and never goes elsewhere.
func (s *Stages) followup(ctx context.Context, m *match.Matcher, t *task.Task, prev string, opts []decide.Option) (settled, error) {
	if s.followups == nil {
		return refuse("task %s continues task %s, but this decider keeps no record of delegated tasks (no follow-up store)", t.ID, prev), nil
	}
	rec, ok, err := s.followups.Get(ctx, prev)
	switch {
	case err != nil:
		return settled{}, err
	case !ok:
		return refuse("task %s continues task %s, which is unknown: it was never delegated, or its record expired", t.ID, prev), nil
	case rec.CallerID != t.Caller.ID:
		return refuse("task %s continues task %s, which was delegated for another caller: only that caller can continue it", t.ID, prev), nil
	}
	if agentID, skillID, named := t.Constraints.Skill(); named && (agentID != rec.AgentID || skillID != rec.SkillID) {
		return refuse("%v: task %s is delegated to %s/%s, and its follow-up %s names %s",
			grants.ErrSkillChange, prev, rec.AgentID, rec.SkillID, t.ID, t.Constraints.SkillID), nil
	}
	contextID := rec.ContextID
	if own := t.Message.ContextID; own != "" && contextID != "" && own != contextID {
		return refuse("task %s continues task %s but names context %q, which is not that task's", t.ID, prev, own), nil
	}
	if contextID == "" {
		// The delegation carried no context id: the agent made one, which
		// only the caller saw in the agent's reply.
		contextID = t.Message.ContextID
	}
	return s.pin(m, t, rec.AgentID, rec.SkillID, rec.SkillID, contextID, opts,
		fmt.Sprintf("follow-up of task %s keeps its skill %s/%s", prev, rec.AgentID, rec.SkillID)), nil
}

// pin delegates the task to the one skill it fixed, or refuses, saying
// why: the skill must still be in the catalog, granted to the caller
// (grants.Access) and pass every hard filter. taskSkill is the skill of
// the task being continued ("" for a new task), for grants.Followup. The
// chosen option is the ranked candidate when the matcher ranked the
// skill, so the probability is the matcher's, else 0.
func (s *Stages) pin(m *match.Matcher, t *task.Task, agentID, skillID, taskSkill, contextID string, opts []decide.Option, why string) settled {
	a, ok := m.Catalog().Agent(agentID)
	if !ok {
		return refuse("%s, but agent %q is not in the catalog", why, agentID)
	}
	sk, ok := a.Card.Skill(skillID)
	if !ok {
		return refuse("%s, but agent %q lists no skill %q", why, agentID, skillID)
	}
	acc := m.Grants().Access(t.Caller.ID, a, sk)
	if !acc.OK {
		return refuse("%s, but %s", why, acc.Reason)
	}
	req := extract.FromTask(t)
	v := filter.Check(&req, a, sk)
	if !v.OK {
		return refuse("%s, but it cannot take the task: %s", why, v.Rejection.Reason)
	}
	// Followup fails only on a changed or missing skill, which
	// followup and the skill given here rule out.
	if _, newContext, _ := grants.Followup(taskSkill, skillID, acc.Scoped, contextID != ""); newContext {
		contextID = ""
	}
	key := agentID + "/" + skillID
	opt := decide.Option{Key: key, AgentID: agentID, SkillID: skillID, AgentName: a.Card.Name, SkillName: sk.Name, Demoted: v.Demoted}
	for _, o := range opts {
		if o.Key == key {
			opt = o
			break
		}
	}
	return settled{pinned: true, contextID: contextID,
		d: decide.Decision{Action: decide.Delegate, Chosen: &opt, Probability: opt.Prob, Reason: why}}
}

// scope applies the grants to the policy's delegation: a caller that
// reaches the chosen agent only through skill grants starts a new context
// (grants.Followup), and a skill the decider's grants do not allow (a
// retriever running on other grants) is refused rather than sent.
func scope(m *match.Matcher, t *task.Task, d decide.Decision) settled {
	st := settled{d: d, contextID: t.Message.ContextID}
	if d.Action != decide.Delegate || d.Chosen == nil {
		return st
	}
	a, ok := m.Catalog().Agent(d.Chosen.AgentID)
	if !ok {
		return st
	}
	sk, ok := a.Card.Skill(d.Chosen.SkillID)
	if !ok {
		return st
	}
	acc := m.Grants().Access(t.Caller.ID, a, sk)
	if !acc.OK {
		return settled{d: decide.Decision{Action: decide.Abstain, Probability: d.Probability,
			Reason: fmt.Sprintf("best match %s is not granted: %s", d.Chosen.Key, acc.Reason)}}
	}
	// Followup fails only on a changed or missing skill; here there is
	// no earlier task and a chosen skill.
	if _, newContext, _ := grants.Followup("", sk.ID, acc.Scoped, st.contextID != ""); newContext {
		st.contextID = ""
	}
	return st
}

// refuse is an abstention on a task that fixed its skill.
func refuse(format string, args ...any) settled {
	return settled{pinned: true, d: decide.Decision{Action: decide.Abstain, Reason: fmt.Sprintf(format, args...)}}
}
