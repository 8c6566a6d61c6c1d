package runtime

import (
	"context"
	"fmt"
)

// Recoverer turns a panicking handler's message into bad input, with the
// panic text in the error ("handler panic: ..."), so that it is
// dead-lettered at once and the stage keeps serving. Retrying would not
// help: the same input panics the same way, and every delivery would
// spend one of MaxDeliver before the advisory dead-letters it anyway,
// without the reason. The task id is read from the payload (TaskIDOf),
// as the handler returned none.
func Recoverer() Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (res Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					res = Result{TaskID: TaskIDOf(in.Data)}
					err = BadInput(fmt.Errorf("handler panic: %v", p))
				}
			}()
			return next(ctx, in)
		}
	}
}
