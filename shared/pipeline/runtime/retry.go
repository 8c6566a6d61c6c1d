package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Retry retries a transient error in process, with exponential backoff,
// for up to budget; the last attempt's result and error are returned. It
// never retries bad input (ErrBadInput: the same input fails the same
// way) nor an unavailable dependency (index.ErrUnavailable: the runner
// holds the stage instead of spending attempts on it). It calls
// in.KeepAlive before each new attempt, so the retries do not run the
// delivery out of its ack wait.
func Retry(budget time.Duration) Middleware { return RetryNotify(budget, nil) }

// RetryNotify is Retry that calls notify (when not nil) with each failed
// attempt that will be retried.
func RetryNotify(budget time.Duration, notify func(in Msg, res Result, err error)) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (Result, error) {
			var res Result
			op := func() error {
				var err error
				res, err = next(ctx, in)
				if err != nil && !retryable(err) {
					return backoff.Permanent(err)
				}
				return err
			}
			err := retry(ctx, budget, op, func(err error) {
				in.KeepAlive()
				if notify != nil {
					notify(in, res, err)
				}
			})
			return res, err
		}
	}
}

// retryable says whether retrying in process can help.
func retryable(err error) bool {
	return !errors.Is(err, ErrBadInput) && !errors.Is(err, index.ErrUnavailable)
}

// retry runs op with exponential backoff for up to budget, calling
// before(err) ahead of each new attempt. The runner's publishing shares
// it, so a publish lost in a reconnect is retried the same way.
func retry(ctx context.Context, budget time.Duration, op func() error, before func(error)) error {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = 20 * time.Millisecond
	eb.MaxInterval = max(budget/4, eb.InitialInterval)
	eb.MaxElapsedTime = budget
	return backoff.RetryNotify(op, backoff.WithContext(eb, ctx), func(err error, _ time.Duration) { before(err) })
}
