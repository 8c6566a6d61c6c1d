package pipeline

import "github.com/skillmatch/skillmatch/shared/pipeline/runtime"

// The handler contract and the stage runner live in package runtime;
// these names keep the stage handlers and their callers as they were.
type (
	Msg     = runtime.Msg
	Output  = runtime.Output
	Result  = runtime.Result
	Handler = runtime.Handler
	Stage   = runtime.Stage
	Running = runtime.Running
)

// ErrBadInput marks a message no retry can process (runtime.ErrBadInput).
var ErrBadInput = runtime.ErrBadInput

// badInput wraps err as permanent (runtime.BadInput).
func badInput(err error) error { return runtime.BadInput(err) }
