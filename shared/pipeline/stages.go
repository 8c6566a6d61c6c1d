// Package pipeline runs the matcher as the event-driven pipeline: each stage
// is a plain function from one message to the messages it publishes
// (stages.go), and run.go wires those functions to NATS JetStream durable
// pull consumers with explicit acks, retries and dead letters.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/decide"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/task"
	"github.com/skillmatch/skillmatch/shared/wire"
)

// Stage names: durable consumer names, dead-letter subject suffixes and
// the step part of message ids.
const (
	StageExtractor = "extractor"
	StageRetriever = "retriever"
	StageReranker  = "reranker"
	StageDecider   = "decider"
	StageFeedback  = "feedback"
)

// Msg is one input message.
type Msg struct {
	Subject string
	Data    []byte
}

// Output is one message to publish. MsgID becomes Nats-Msg-Id, so that a
// redelivered input publishes nothing new.
type Output struct {
	Subject string
	Data    []byte
	MsgID   string
}

// Result is what a handler did with a message. TaskID is set as soon as
// the handler could read it, also when it fails, for logs and dead letters.
type Result struct {
	TaskID string
	Out    []Output
}

// Handler processes one message. An error wrapping ErrBadInput is
// permanent (the message goes to the dead letters and is not redelivered);
// any other error is transient (retried).
type Handler func(ctx context.Context, in Msg) (Result, error)

// ErrBadInput marks a message no retry can process.
var ErrBadInput = errors.New("bad input")

// badInput wraps err as permanent.
func badInput(err error) error {
	if errors.Is(err, ErrBadInput) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadInput, err)
}

// Stages holds the matcher the stage handlers wrap. A deployment where the
// stages run as separate services gives each its own Stages over the same
// catalog: the retriever and the reranker pass doc numbers and check that
// their catalogs agree (Fingerprint).
type Stages struct {
	m           *match.Matcher
	fingerprint string
	limits      []task.Option
	now         func() time.Time
}

// NewStages wraps a matcher. Task limits are task.DefaultLimits unless
// given. A nil matcher is allowed for a process that runs only the
// feedback stage.
func NewStages(m *match.Matcher, limits ...task.Option) *Stages {
	s := &Stages{m: m, limits: limits, now: time.Now}
	if m != nil {
		s.fingerprint = wire.Fingerprint(m.Index())
	}
	return s
}

// Fingerprint names the catalog snapshot the stages were built for.
func (s *Stages) Fingerprint() string { return s.fingerprint }

// MsgID is the Nats-Msg-Id of a stage's output for a task.
func MsgID(taskID, step string) string { return taskID + "/" + step }

// Extract validates a submitted task and extracts its requirement.
func (s *Stages) Extract(_ context.Context, in Msg) (Result, error) {
	sub, err := wire.DecodeTaskSubmitted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	t, err := task.Parse(sub.Task, s.limits...)
	if err != nil {
		var te *task.Error
		r := Result{}
		if errors.As(err, &te) {
			r.TaskID = te.TaskID
		}
		if r.TaskID == "" {
			// The id itself is invalid: keep what the caller sent, if it
			// is printable, so that they can find their dead letter.
			r.TaskID = printable(TaskIDOf(sub.Task))
		}
		return r, badInput(err)
	}
	res := Result{TaskID: t.ID}
	raw, err := json.Marshal(t)
	if err != nil {
		return res, badInput(err)
	}
	out := wire.Extracted{V: wire.Version, TaskID: t.ID, Requirement: s.m.Extract(t), Task: raw}
	return res.emit(wire.SubjectExtracted, MsgID(t.ID, "extracted"), &out)
}

// Retrieve filters the catalog and retrieves the shortlist.
func (s *Stages) Retrieve(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeExtracted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	sl, err := s.m.Shortlist(ctx, &m.Requirement)
	if err != nil {
		return res, err
	}
	out := wire.Shortlisted{V: wire.Version, TaskID: m.TaskID, Requirement: m.Requirement, Task: m.Task,
		Catalog: s.fingerprint, Shortlist: wire.FromShortlist(sl)}
	return res.emit(wire.SubjectShortlisted, MsgID(m.TaskID, "shortlisted"), &out)
}

// ErrCatalogMismatch is returned (as a transient error) when a shortlist
// was made over another catalog snapshot than the reranker's: retried, in
// case the reranker is about to load the same catalog, then dead-lettered.
var ErrCatalogMismatch = errors.New("catalog mismatch")

// Rerank scores the shortlist and calibrates each fit.
func (s *Stages) Rerank(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeShortlisted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	if m.Catalog != s.fingerprint {
		return res, fmt.Errorf("%w: shortlist over catalog %s, reranker has %s", ErrCatalogMismatch, m.Catalog, s.fingerprint)
	}
	sl, err := m.Shortlist.Matcher(s.m.Index())
	if err != nil {
		return res, badInput(err)
	}
	ranked, err := s.m.Rank(ctx, &m.Requirement, sl)
	if err != nil {
		return res, err
	}
	out := wire.Ranked{V: wire.Version, TaskID: m.TaskID, Task: m.Task, Catalog: m.Catalog, Candidates: match.Options(ranked)}
	if out.Candidates == nil {
		out.Candidates = []decide.Option{}
	}
	return res.emit(wire.SubjectRanked, MsgID(m.TaskID, "ranked"), &out)
}

// Decide applies the policy to the ranked candidates and, for a
// delegation, builds the A2A request for the chosen agent.
func (s *Stages) Decide(_ context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeRanked(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	if m.Catalog != s.fingerprint {
		// The A2A request needs the chosen agent's card from the same
		// catalog the candidates came from.
		return res, fmt.Errorf("%w: ranked over catalog %s, decider has %s", ErrCatalogMismatch, m.Catalog, s.fingerprint)
	}
	d := s.decide(m.Candidates)
	out := wire.Decision{V: wire.Version, TaskID: m.TaskID, DecisionID: wire.DecisionID(m.TaskID), Decision: d,
		Catalog: m.Catalog, DecidedAt: s.now().UTC()}
	if d.Action == decide.Delegate && d.Chosen != nil {
		var t task.Task
		if err := json.Unmarshal(m.Task, &t); err != nil {
			return res, badInput(fmt.Errorf("ranked task %s: %w", m.TaskID, err))
		}
		if a, ok := s.m.Catalog().Agent(d.Chosen.AgentID); ok {
			if out.Request, err = wire.NewA2ARequest(a.Card, d.Chosen.SkillID, &t, out.DecisionID); err != nil {
				return res, badInput(err)
			}
		}
	}
	return res.emit(wire.SubjectDecision(string(d.Action)), MsgID(m.TaskID, "decision"), &out)
}

// decide is match.Matcher.Decide on options that came over the wire.
func (s *Stages) decide(cands []decide.Option) decide.Decision {
	opts := append([]decide.Option(nil), cands...)
	p := s.m.Policy()
	p.Order(opts)
	return p.Decide(opts)
}

// Feedback is the feedback stage for now: it validates outcomes and
// publishes nothing (no posteriors or refits yet).
func Feedback(_ context.Context, in Msg) (Result, error) {
	o, err := wire.DecodeOutcome(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	return Result{TaskID: o.TaskID}, nil
}

func (r Result) emit(subject, id string, msg any) (Result, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return r, badInput(err) // NaN scores, say: the same input fails the same way
	}
	r.Out = append(r.Out, Output{Subject: subject, Data: data, MsgID: id})
	return r, nil
}

// printable returns s if it is valid UTF-8 without control characters,
// else "".
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return ""
	}
	return s
}
