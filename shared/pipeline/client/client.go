// Package client is the thin Go client of a running skillmatch pipeline:
// submit a task, await exactly its decision, report an outcome. It needs
// only a JetStream connection and the task model: no matcher, word vectors
// or Weaviate client are linked into a program that uses it (a test checks
// its imports).
//
// Who asks is the connection's: a task is published on its caller's
// submission subject (skillmatch.task.submitted.<caller>) and the server's
// permissions decide whether this connection may speak for that caller;
// the pipeline replaces any caller id the payload claims with the
// subject's.
//
// The client speaks the pipeline's wire contract (shared/pipeline/wire)
// without importing it, since wire also carries the stages' internal
// messages and links the retrieval index; a test checks that both agree.
package client

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
)

// Version is the message version the pipeline reads and writes (wire.Version).
const Version = 1

// Subjects and stream names of the pipeline (wire's and pipeline.DefaultStreams').
const (
	subjectSubmitted      = "skillmatch.task.submitted"
	subjectDecisionPrefix = "skillmatch.decision."
	subjectDeadLetterPfx  = "skillmatch.deadletter."
	subjectOutcome        = "skillmatch.outcome"

	DefaultDecisions   = "DECISIONS"
	DefaultDeadLetters = "DEADLETTER"
)

// SubjectSubmittedBy is where caller submits tasks ("": anonymous).
func SubjectSubmittedBy(caller string) string {
	if caller == "" {
		return subjectSubmitted
	}
	return subjectSubmitted + "." + caller
}

// SubjectOutcomeBy is where caller reports outcomes ("": anonymous).
func SubjectOutcomeBy(caller string) string {
	if caller == "" {
		return subjectOutcome
	}
	return subjectOutcome + "." + caller
}

// TaskToken is a task id as one subject token: its base64url form, so
// that any id the task reader accepts (dots, spaces) is one token.
func TaskToken(taskID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(taskID))
}

// SubjectDecision is the subject of the decision on caller's task with
// the given action: skillmatch.decision.<caller>.<action>.<task token>.
func SubjectDecision(caller, action, taskID string) string {
	return subjectDecisionPrefix + identity.Token(caller) + "." + action + "." + TaskToken(taskID)
}

// SubjectDecisionOf is the filter of every decision on caller's task,
// whatever its action: a consumer on it sees that task's decision alone.
func SubjectDecisionOf(caller, taskID string) string {
	return subjectDecisionPrefix + identity.Token(caller) + ".*." + TaskToken(taskID)
}

// SubjectDeadLetterOf is the filter of the dead letters of caller's task,
// whatever the stage: skillmatch.deadletter.*.<caller>.<task token>.
func SubjectDeadLetterOf(caller, taskID string) string {
	return subjectDeadLetterPfx + "*." + identity.Token(caller) + "." + TaskToken(taskID)
}

// DecisionID is the id of the decision on caller's task
// (wire.DecisionID): made from both, so an outcome can name only its own
// task's decision; a plan's steps are reported under DecisionID-s<n>.
func DecisionID(caller, taskID string) string {
	sum := sha256.Sum256([]byte("skillmatch/decision/v2/" + identity.Token(caller) + "/" + taskID))
	return "d-" + hex.EncodeToString(sum[:10])
}

// ofDecision says whether id is decision's or one of its plan steps'
// (decision-s<n>). The feedback stage checks the step's number against
// the plan's limit.
func ofDecision(id, decision string) bool {
	n, ok := strings.CutPrefix(id, decision+"-s")
	if !ok {
		return id == decision
	}
	v, err := strconv.Atoi(n)
	return err == nil && v >= 1 && strconv.Itoa(v) == n
}

// SubmissionMsgID is the Nats-Msg-Id Publish gives t
// (pipeline.SubmissionMsgID): its caller, its id and a fingerprint of the
// task, so that a publish retried after a lost acknowledgement stores
// nothing new, while a different task under the same id is stored and
// dead-lettered by the extractor as a reused id.
func SubmissionMsgID(t *task.Task) (string, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("client: encode task %s: %w", t.ID, err)
	}
	h := sha256.Sum256(raw)
	return identity.Token(t.Caller.ID) + "/" + t.ID + "/submitted/" + hex.EncodeToString(h[:16]), nil
}

// Decision is the pipeline's decision on a task: the fields a caller acts
// on, and Raw, the whole decision message (wire.Decision) for the rest.
type Decision struct {
	TaskID      string  `json:"taskId"`
	DecisionID  string  `json:"decisionId"`
	Action      string  `json:"action"`
	Probability float64 `json:"probability"`
	Reason      string  `json:"reason,omitempty"`
	Question    string  `json:"question,omitempty"`
	// Request is, for a delegation, the ready A2A request for the chosen
	// agent (wire.A2ARequest).
	Request json.RawMessage `json:"request,omitempty"`
	// Steps are, for a plan, its delegations in order: each part of the
	// request and the skill chosen for it.
	Steps []Step `json:"steps,omitempty"`
	// StepRequests are, for a plan, one ready A2A request per step, in
	// order (wire.A2ARequest), each with its own decision id
	// (DecisionID-s<n>) to report the step's outcome under.
	StepRequests []json.RawMessage `json:"stepRequests,omitempty"`
	Raw          json.RawMessage   `json:"-"`
}

// Step is one delegation of a plan.
type Step struct {
	// Part is the request's words this step handles.
	Part   string    `json:"part"`
	Chosen StepSkill `json:"chosen"`
	// Probability is the calibrated probability the skill is right for
	// the part.
	Probability float64 `json:"probability"`
}

// StepSkill is the skill a plan step delegates to.
type StepSkill struct {
	Key     string `json:"key"`
	AgentID string `json:"agentId"`
	SkillID string `json:"skillId"`
}

// Actions of a decision.
const (
	Delegate = "delegate"
	Clarify  = "clarify"
	Abstain  = "abstain"
	// Plan delegates each part of a request with several intents to its
	// own skill (Steps, StepRequests).
	Plan = "plan"
)

// DeadLetter is why the pipeline rejected a task (wire.DeadLetter's
// fields a caller reads, and Raw, the whole message).
type DeadLetter struct {
	Stage  string `json:"stage"`
	Reason string `json:"reason"`
	TaskID string `json:"taskId,omitempty"`
	Caller string `json:"caller,omitempty"`
	// Decision is, when the task was an identical retry of one decided
	// already, that decision (wire.DeadLetter.Decision).
	Decision json.RawMessage `json:"decision,omitempty"`
	Raw      json.RawMessage `json:"-"`
}

// Answer is what became of a submitted task: its decision, or the dead
// letter that says why there is none.
type Answer struct {
	Decision   *Decision
	DeadLetter *DeadLetter
}

// ErrTask marks a task the client refuses to publish: one whose answer it
// could never find (the pipeline checks everything else, and answers a
// bad task with its dead letter).
var ErrTask = errors.New("client: bad task")

// ErrOutcome marks an outcome the client refuses to publish: one the
// feedback stage would dead-letter for what it names, not for who sends it.
var ErrOutcome = errors.New("client: bad outcome")

// ErrBadReply marks a message on a decision or dead-letter subject that is
// not one: the client reports it rather than wait on.
var ErrBadReply = errors.New("client: bad message from the pipeline")

// Client submits tasks to the pipeline and reports outcomes.
type Client struct {
	js          jetstream.JetStream
	decisions   string
	deadLetters string
	group       *batch.Group // nil: each task is published alone
}

// Option configures a Client.
type Option func(*Client)

// WithStreams names the decision and dead-letter streams (defaults
// DECISIONS and DEADLETTER, what `skillmatch run` and the services create).
func WithStreams(decisions, deadLetters string) Option {
	return func(c *Client) {
		if decisions != "" {
			c.decisions = decisions
		}
		if deadLetters != "" {
			c.deadLetters = deadLetters
		}
	}
}

// WithGroupCommit makes tasks published at the same time by the client's
// goroutines share their submission's fsync: whatever queues while one
// publish is being stored goes in one atomic batch (batch.Group; the
// submissions stream must allow atomic publishing, as the pipeline sets
// it up). Each task is stored exactly as alone, and Publish returns once
// it is; for a program that submits many tasks concurrently (a front
// door) to a server that syncs every write.
func WithGroupCommit() Option {
	return func(c *Client) { c.group = batch.NewGroup(c.js.Conn(), batch.GroupConfig{}) }
}

// New is a client on a JetStream connection.
func New(js jetstream.JetStream, opts ...Option) *Client {
	c := &Client{js: js, decisions: DefaultDecisions, deadLetters: DefaultDeadLetters}
	for _, o := range opts {
		o(c)
	}
	return c
}

// submission is wire.TaskSubmitted.
type submission struct {
	V           int             `json:"v"`
	Task        json.RawMessage `json:"task"`
	SubmittedAt time.Time       `json:"submittedAt,omitzero"`
}

// Publish publishes t on its caller's submission subject with its
// Nats-Msg-Id (SubmissionMsgID) and the trace context ctx carries
// (traceparent). It reports whether the stream had already seen the task:
// a duplicate publish within the dedup window stores nothing.
func (c *Client) Publish(ctx context.Context, t *task.Task) (duplicate bool, err error) {
	return c.publish(ctx, t, true)
}

// publish publishes t, with its Nats-Msg-Id when withID is set.
func (c *Client) publish(ctx context.Context, t *task.Task, withID bool) (duplicate bool, err error) {
	if err := check(t.Caller.ID, t.ID); err != nil {
		return false, err
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return false, fmt.Errorf("client: encode task %s: %w", t.ID, err)
	}
	data, err := json.Marshal(submission{V: Version, Task: raw, SubmittedAt: time.Now().UTC()})
	if err != nil {
		return false, fmt.Errorf("client: encode task %s: %w", t.ID, err)
	}
	hdr := nats.Header{}
	propagation.TraceContext{}.Inject(ctx, headerCarrier(hdr))
	out := &nats.Msg{Subject: SubjectSubmittedBy(t.Caller.ID), Data: data, Header: hdr}
	if withID {
		id, err := SubmissionMsgID(t)
		if err != nil {
			return false, err
		}
		hdr.Set(jetstream.MsgIDHeader, id)
	}
	alone := func(ctx context.Context, m *nats.Msg) error {
		ack, err := c.js.PublishMsg(ctx, m)
		if err == nil {
			duplicate = ack.Duplicate
		}
		return err
	}
	if c.group != nil {
		// Stored in a batch: not a duplicate (one would have failed the
		// batch, and gone alone).
		err = c.group.Publish(ctx, out, alone)
	} else {
		err = alone(ctx, out)
	}
	if err != nil {
		return false, fmt.Errorf("client: publish task %s: %w", t.ID, err)
	}
	return duplicate, nil
}

// Submit publishes t and waits until its decision or dead letter appears,
// or ctx ends. It watches the task's own decision and dead-letter
// subjects from before the publish, so the answer cannot slip by. A task
// is decided once: an identical task submitted again gets the first one's
// decision (when it comes, or, when it came already, carried by the
// extractor's dead letter of the duplicate); a different task under a
// used id gets a dead letter.
func (c *Client) Submit(ctx context.Context, t *task.Task) (*Answer, error) {
	if err := check(t.Caller.ID, t.ID); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan *Answer, 1)
	errs := make(chan error, 4)
	if err := c.await(ctx, t.Caller.ID, t.ID, jetstream.DeliverNewPolicy, answers, errs); err != nil {
		return nil, err
	}
	dup, err := c.Publish(ctx, t)
	if err != nil {
		return nil, err
	}
	if dup {
		// The stream holds a message under this task's id: its own
		// earlier publish, or one that took the id (any publisher can set
		// it). Publish again without one: the pipeline's task-id records
		// (the stored decisions), not the dedup window, tell a retry from
		// a new task.
		if _, err := c.publish(ctx, t, false); err != nil {
			return nil, err
		}
	}
	return wait(ctx, t.ID, answers, errs)
}

// Await waits for the answer to a task submitted earlier by caller,
// stored or still to come, until ctx ends.
func (c *Client) Await(ctx context.Context, caller, taskID string) (*Answer, error) {
	if err := check(caller, taskID); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan *Answer, 1)
	errs := make(chan error, 2)
	if err := c.await(ctx, caller, taskID, jetstream.DeliverAllPolicy, answers, errs); err != nil {
		return nil, err
	}
	return wait(ctx, taskID, answers, errs)
}

// check refuses a caller id no subject can carry and a task id no
// answer's subject would name.
func check(caller, taskID string) error {
	if caller != "" {
		if err := identity.Valid(caller); err != nil {
			return fmt.Errorf("%w: %w", ErrTask, err)
		}
	}
	if !task.ValidID(taskID) {
		return fmt.Errorf("%w: task id %.40q: want 1 to %d characters of A-Z a-z 0-9 . _ : -", ErrTask, taskID, task.MaxIDLen)
	}
	return nil
}

func wait(ctx context.Context, taskID string, answers <-chan *Answer, errs <-chan error) (*Answer, error) {
	select {
	case a := <-answers:
		return a, nil
	case err := <-errs:
		return nil, fmt.Errorf("client: waiting for task %s: %w", taskID, err)
	case <-ctx.Done():
		return nil, fmt.Errorf("client: no decision for task %s: %w", taskID, ctx.Err())
	}
}

// await starts two ordered consumers, until ctx ends: one on the task's
// decision subject, one on its dead-letter subjects; the first message on
// either is the answer.
func (c *Client) await(ctx context.Context, caller, taskID string, policy jetstream.DeliverPolicy, answers chan<- *Answer, errs chan<- error) error {
	for _, w := range []struct {
		stream, filter string
		read           func([]byte) (*Answer, error)
	}{
		{c.decisions, SubjectDecisionOf(caller, taskID), func(b []byte) (*Answer, error) {
			d, err := decodeDecision(b)
			if err != nil || d.TaskID != taskID {
				return nil, fmt.Errorf("%w: on task %s's decision subject: %v", ErrBadReply, taskID, err)
			}
			return &Answer{Decision: d}, nil
		}},
		{c.deadLetters, SubjectDeadLetterOf(caller, taskID), func(b []byte) (*Answer, error) {
			var d DeadLetter
			if err := json.Unmarshal(b, &d); err != nil || d.TaskID != taskID {
				return nil, fmt.Errorf("%w: on task %s's dead-letter subject: %v", ErrBadReply, taskID, err)
			}
			if len(d.Decision) > 0 {
				// An identical task, decided before: its decision.
				if dec, err := decodeDecision(d.Decision); err == nil && dec.TaskID == taskID {
					return &Answer{Decision: dec}, nil
				}
			}
			d.Raw = b
			return &Answer{DeadLetter: &d}, nil
		}},
	} {
		cons, err := c.js.OrderedConsumer(ctx, w.stream, jetstream.OrderedConsumerConfig{
			DeliverPolicy: policy, FilterSubjects: []string{w.filter}})
		if err != nil {
			return fmt.Errorf("client: watch %s: %w", w.stream, err)
		}
		go func(read func([]byte) (*Answer, error)) {
			it, err := cons.Messages()
			if err != nil {
				errs <- err
				return
			}
			defer it.Stop()
			go func() { <-ctx.Done(); it.Stop() }()
			for {
				m, err := it.Next()
				if err != nil {
					if !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
						errs <- err
					}
					return
				}
				a, err := read(m.Data())
				if err != nil {
					errs <- err
					return
				}
				if a != nil {
					select {
					case answers <- a:
					default:
					}
					return
				}
			}
		}(w.read)
	}
	return nil
}

// decodeDecision reads the caller's fields of a decision message.
func decodeDecision(b []byte) (*Decision, error) {
	var d struct {
		V *int `json:"v"`
		Decision
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	if d.V == nil || *d.V != Version {
		return nil, fmt.Errorf("decision of version %v, want %d", d.V, Version)
	}
	switch d.Action {
	case Delegate, Clarify, Abstain:
	case Plan:
		if len(d.Steps) < 2 || len(d.StepRequests) != len(d.Steps) {
			return nil, fmt.Errorf("plan of %d steps with %d step requests", len(d.Steps), len(d.StepRequests))
		}
	default:
		return nil, fmt.Errorf("unknown action %q", d.Action)
	}
	d.Decision.Raw = b
	return &d.Decision, nil
}

// Outcome is what a caller reports after acting on a decision
// (wire.Outcome): evidence for the success posteriors, counted only when
// it comes from the caller the task was delegated for.
type Outcome struct {
	DecisionID string `json:"decisionId"`
	TaskID     string `json:"taskId,omitempty"`
	// Skill is the key ("agent/skill") of the skill that was tried.
	Skill     string  `json:"skill"`
	Success   bool    `json:"success"`
	LatencyMS float64 `json:"latencyMs,omitempty"`
	Cost      float64 `json:"cost,omitempty"`
	// RightSkill is, when known, the skill that should have been chosen
	// ("none": no skill fits).
	RightSkill string    `json:"rightSkill,omitempty"`
	At         time.Time `json:"at,omitzero"`
}

// CheckOutcome refuses (ErrOutcome) an outcome from caller that the
// feedback stage would dead-letter for what it names: no decision id, task
// id or skill, or a decision id that is not the task's for caller (nor one
// of its plan steps').
func CheckOutcome(caller string, o Outcome) error {
	if o.DecisionID == "" || o.TaskID == "" || o.Skill == "" {
		return fmt.Errorf("%w: an outcome needs its decision id, task id and skill", ErrOutcome)
	}
	if want := DecisionID(caller, o.TaskID); !ofDecision(o.DecisionID, want) {
		return fmt.Errorf("%w: decision %q is not the decision of task %q for caller %q (that is %s)",
			ErrOutcome, o.DecisionID, o.TaskID, identity.Token(caller), want)
	}
	return nil
}

// Report publishes an outcome as caller ("": anonymous), once per decision
// and skill (its Nats-Msg-Id). It needs the decision id, the task id and
// the skill, and the decision id must be the task's for caller
// (CheckOutcome): else ErrOutcome, and nothing is sent. The feedback stage
// checks the rest: one it refuses is dead-lettered with the reason.
func (c *Client) Report(ctx context.Context, caller string, o Outcome) error {
	if err := CheckOutcome(caller, o); err != nil {
		return err
	}
	if o.At.IsZero() {
		o.At = time.Now().UTC()
	}
	data, err := json.Marshal(struct {
		V int `json:"v"`
		Outcome
	}{Version, o})
	if err != nil {
		return fmt.Errorf("client: encode outcome: %w", err)
	}
	id := identity.Token(caller) + "/" + o.DecisionID + "/" + o.Skill + "/outcome"
	if _, err := c.js.Publish(ctx, SubjectOutcomeBy(caller), data, jetstream.WithMsgID(id)); err != nil {
		return fmt.Errorf("client: report outcome of %s: %w", o.DecisionID, err)
	}
	return nil
}

// headerCarrier is a NATS header as an OpenTelemetry carrier (keys as
// written: NATS headers are case-sensitive).
type headerCarrier nats.Header

func (h headerCarrier) Get(key string) string {
	for k, v := range h {
		if strings.EqualFold(k, key) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func (h headerCarrier) Set(key, value string) { h[key] = []string{value} }

func (h headerCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
