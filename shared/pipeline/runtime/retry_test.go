package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

func TestRetry(t *testing.T) {
	transient := errors.New("backend down")
	for _, c := range []struct {
		name      string
		failures  int   // attempts that fail before one succeeds (-1: all)
		err       error // what they fail with
		budget    time.Duration
		attempts  int // want exactly (0: at least 2, for "all")
		wantErr   error
		keepAlive bool // InProgress before each new attempt
	}{
		{name: "success", failures: 0, err: transient, budget: time.Second, attempts: 1},
		{name: "transient then success", failures: 2, err: transient, budget: time.Second, attempts: 3, keepAlive: true},
		{name: "budget spent", failures: -1, err: transient, budget: 100 * time.Millisecond, wantErr: transient, keepAlive: true},
		{name: "bad input not retried", failures: -1, err: BadInput(errors.New("no task")), budget: time.Second, attempts: 1, wantErr: ErrBadInput},
		{name: "unavailable not retried", failures: -1, err: fmt.Errorf("search: %w", index.ErrUnavailable), budget: time.Second,
			attempts: 1, wantErr: index.ErrUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			attempts, kept := 0, 0
			h := func(context.Context, Msg) (Result, error) {
				attempts++
				if c.failures < 0 || attempts <= c.failures {
					return Result{TaskID: "t-1"}, c.err
				}
				return Result{TaskID: "t-1", Out: []Output{{Subject: "s"}}}, nil
			}
			notified := 0
			mw := RetryNotify(c.budget, func(in Msg, res Result, err error) {
				notified++
				if res.TaskID != "t-1" || !errors.Is(err, c.err) {
					t.Errorf("notified with %q, %v", res.TaskID, err)
				}
			})
			res, err := Chain(h, mw)(context.Background(), Msg{InProgress: func() { kept++ }})
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, c.wantErr)
			}
			if res.TaskID != "t-1" {
				t.Errorf("task id %q: the last attempt's result must be kept", res.TaskID)
			}
			if c.attempts > 0 && attempts != c.attempts || c.attempts == 0 && attempts < 2 {
				t.Errorf("%d attempts, want %d", attempts, c.attempts)
			}
			if kept != attempts-1 || notified != attempts-1 {
				t.Errorf("%d attempts, %d InProgress, %d notified: want one before each new attempt", attempts, kept, notified)
			}
			if c.keepAlive && kept == 0 {
				t.Error("InProgress never called")
			}
		})
	}
}

// A cancelled context stops the retries.
func TestRetryCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	h := func(context.Context, Msg) (Result, error) {
		attempts++
		cancel()
		return Result{}, errors.New("backend down")
	}
	_, err := Chain(h, Retry(time.Minute))(ctx, Msg{})
	if !errors.Is(err, context.Canceled) || attempts != 1 {
		t.Errorf("err = %v after %d attempts, want context.Canceled after 1", err, attempts)
	}
}
