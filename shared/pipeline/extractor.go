package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Extractor is the first stage: it validates a submitted task, makes the
// caller it arrived under (its subject) the task's caller, narrowed by the
// directory, and extracts its requirement. It needs no catalog.
type Extractor struct {
	callers *identity.Directory
	limits  []task.Option
	ids     TaskClaims
}

// TaskClaims claims a caller's task id for one task (TaskIDs.Claim): the
// record as it stands, and whether this claim created it.
type TaskClaims interface {
	Claim(ctx context.Context, caller, taskID, fingerprint string, seq uint64) (*wire.TaskIDRecord, bool, error)
}

// WithTaskIDs makes e claim each task's id (nil: no claims, every
// submission is extracted; the in-process tests).
func (e *Extractor) WithTaskIDs(ids TaskClaims) *Extractor {
	e.ids = ids
	return e
}

// NewExtractor returns the extractor over a caller directory (nil: the
// zero-configuration mode, see identity.Directory); task limits are
// task.DefaultLimits unless given.
func NewExtractor(callers *identity.Directory, limits ...task.Option) *Extractor {
	return &Extractor{callers: callers, limits: limits}
}

// Handle implements Handler.
func (e *Extractor) Handle(ctx context.Context, in Msg) (Result, error) {
	sub, err := wire.DecodeTaskSubmitted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	t, err := task.Parse(sub.Task, e.limits...)
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
	caller, err := wire.CallerOf(wire.SubjectSubmitted, in.Subject)
	if err != nil {
		return res, badInput(err)
	}
	if e.ids != nil {
		if skip, err := e.claim(ctx, in, t, caller); skip || err != nil {
			return res, err
		}
	}
	// Who is asking is the subject's caller; the payload's caller id, a
	// claim, is replaced, and its tenant and scopes only narrowed.
	e.callers.Stamp(t, caller)
	raw, err := json.Marshal(t)
	if err != nil {
		return res, badInput(err)
	}
	// The requirement does not depend on the catalog.
	out := wire.Extracted{V: wire.Version, TaskID: t.ID, Caller: caller, Requirement: extract.FromTask(t), Task: raw}
	return res.Emit(wire.SubjectExtracted, MsgID(caller, t.ID, "extracted"), &out)
}

// claim claims the task's id for this submission. A task id its caller
// used before is an error (dead letter) when the task differs, and when an
// identical task was decided already: the dead letter then carries that
// decision, the identical retry's only answer. A redelivery of the
// claiming submission, or an identical retry while the first is being
// decided, goes on (the decider decides once); skip is true when there is
// nothing left to do (a redelivery of a decided task).
func (e *Extractor) claim(ctx context.Context, in Msg, t *task.Task, caller string) (skip bool, err error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return false, badInput(err)
	}
	fp := Fingerprint(raw)
	rec, created, err := e.ids.Claim(ctx, caller, t.ID, fp, in.Seq)
	switch {
	case err != nil || created:
		return false, err
	case rec.Fingerprint != "" && rec.Fingerprint != fp:
		return false, badInput(fmt.Errorf("%w: caller %q used task id %q for a different task (submission %d); "+
			"an id names one task: use a new one", ErrTaskIDReused, identity.Token(caller), t.ID, rec.Seq))
	case rec.Decision == nil:
		return false, nil
	case rec.Seq == in.Seq:
		return true, nil
	}
	return false, badInput(&duplicateError{taskID: t.ID, seq: rec.Seq, decision: rec.Decision.Data})
}

// duplicateError is an identical task submitted again after it was
// decided; its dead letter carries the decision.
type duplicateError struct {
	taskID   string
	seq      uint64
	decision json.RawMessage
}

func (e *duplicateError) Error() string {
	return fmt.Sprintf("%v: task %q was submitted before (submission %d), identical, and decided; "+
		"the dead letter carries that decision: a task is decided once", ErrDuplicateTask, e.taskID, e.seq)
}

func (e *duplicateError) Unwrap() error { return ErrDuplicateTask }

// AnnotateDeadLetter attaches the decision, cutting the payload (the same
// task again) to leave it room.
func (e *duplicateError) AnnotateDeadLetter(dl *wire.DeadLetter) {
	if len(e.decision) > wire.MaxDeadLetterPayload {
		return
	}
	dl.Decision = e.decision
	if room := wire.MaxDeadLetterPayload - len(e.decision); len(dl.Payload) > room {
		dl.Payload, dl.Truncated = dl.Payload[:room], true
	}
}
