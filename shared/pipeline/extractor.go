package pipeline

import (
	"context"
	"encoding/json"
	"errors"

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
}

// NewExtractor returns the extractor over a caller directory (nil: the
// zero-configuration mode, see identity.Directory); task limits are
// task.DefaultLimits unless given.
func NewExtractor(callers *identity.Directory, limits ...task.Option) *Extractor {
	return &Extractor{callers: callers, limits: limits}
}

// Handle implements Handler.
func (e *Extractor) Handle(_ context.Context, in Msg) (Result, error) {
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
