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
	ids     TaskRecords
}

// TaskRecords reads a caller's task-id record (TaskIDs.Lookup; nil when
// there is none).
type TaskRecords interface {
	Lookup(ctx context.Context, caller, taskID string) (*wire.TaskIDRecord, error)
}

// HeaderFingerprint carries, from the extractor to the decider, the
// fingerprint of the task as its caller submitted it (Fingerprint): the
// decision keeps it in the same header, as its task's record, to tell an
// identical retry from a reused id. Stage messages carry it on
// (runtime.Carry).
const HeaderFingerprint = "Skillmatch-Fingerprint"

// WithTaskIDs makes e check each task's id against the task-id records
// (nil: no checks, every submission is extracted; the in-process tests).
func (e *Extractor) WithTaskIDs(ids TaskRecords) *Extractor {
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
	raw, err := json.Marshal(t)
	if err != nil {
		return res, badInput(err)
	}
	fp := Fingerprint(raw)
	if e.ids != nil {
		// Only a read: the decider's one decision is the record.
		rec, err := e.ids.Lookup(ctx, caller, t.ID)
		if err != nil {
			return res, err
		}
		if err := checkRecord(rec, t.ID, caller, fp, in.Seq); err != nil {
			return res, err
		}
	}
	// Who is asking is the subject's caller; the payload's caller id, a
	// claim, is replaced, and its tenant and scopes only narrowed.
	e.callers.Stamp(t, caller)
	if raw, err = json.Marshal(t); err != nil {
		return res, badInput(err)
	}
	// The requirement does not depend on the catalog.
	out := wire.Extracted{V: wire.Version, TaskID: t.ID, Caller: caller, Requirement: extract.FromTask(t), Task: raw}
	if res, err = res.Emit(wire.SubjectExtracted, MsgID(caller, t.ID, "extracted"), &out); err != nil {
		return res, err
	}
	res.Out[0].Header = map[string][]string{HeaderFingerprint: {fp}}
	return res, nil
}

// checkRecord checks a task against its id's record (nil: none yet). A
// task id its caller used before is an error (dead letter) when the task
// differs, and when an identical task was decided already under another
// submission: the dead letter then carries that decision, the identical
// retry's only answer. A redelivery of the decided submission goes on:
// the decider publishes nothing new and ends the submission.
func checkRecord(rec *wire.TaskIDRecord, taskID, caller, fp string, seq uint64) error {
	switch {
	case rec == nil:
		return nil
	case rec.Fingerprint != "" && fp != "" && rec.Fingerprint != fp:
		return badInput(fmt.Errorf("%w: caller %q used task id %q for a different task (submission %d); "+
			"an id names one task: use a new one", ErrTaskIDReused, identity.Token(caller), taskID, rec.Seq))
	case rec.Decision == nil || rec.Seq == seq || rec.Seq == 0 || seq == 0:
		return nil
	}
	return badInput(&duplicateError{taskID: taskID, seq: rec.Seq, decision: rec.Decision.Data})
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
