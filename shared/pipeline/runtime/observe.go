package runtime

import (
	"context"
	"time"
)

// Observer is told what each delivery of a stage came to, for metrics: a
// plain interface, so that the runner depends on no metrics library.
type Observer interface {
	// Handled reports one delivery: how long the chain took, its result
	// (the subjects of its outputs, Out and Stored, say what was
	// published), the dead letter's
	// reason when the input was dead-lettered, and the error when it
	// failed (to be retried or held).
	Handled(stage string, took time.Duration, res Result, deadLetter string, err error)
}

// Observe tells o about every delivery the wrapped handler takes. It goes
// outermost, so that it sees dead letters as PoisonQueue made them.
func Observe(stage string, o Observer) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (Result, error) {
			t0 := time.Now()
			res, err := next(ctx, in)
			o.Handled(stage, time.Since(t0), res, res.poison, err)
			return res, err
		}
	}
}
