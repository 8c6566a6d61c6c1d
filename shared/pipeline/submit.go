package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/runtime"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Answer is what became of a submitted task: its decision, or the dead
// letter that says why there is none.
type Answer struct {
	Decision   *wire.Decision
	DeadLetter *wire.DeadLetter
}

// Publish publishes a task on the submission subject of its caller
// (wire.SubjectSubmittedBy: the server decides whether this connection
// may speak for that caller) with a Nats-Msg-Id made of the caller, the
// task id and the task's fingerprint, so that a publish retried after a
// lost acknowledgement stores nothing new, while a different task under
// the same id is stored, and dead-lettered by the extractor as a reused
// id. It reports whether the stream had already seen the task (a
// duplicate publish within the dedup window stores nothing).
func Publish(ctx context.Context, js jetstream.JetStream, t *task.Task) (duplicate bool, err error) {
	return publish(ctx, js, t, true)
}

// SubmissionMsgID is the Nats-Msg-Id Publish gives a task.
func SubmissionMsgID(t *task.Task) (string, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return "", err
	}
	return MsgID(t.Caller.ID, t.ID, "submitted/"+Fingerprint(raw)), nil
}

// publish publishes t, with its Nats-Msg-Id when withID is set.
func publish(ctx context.Context, js jetstream.JetStream, t *task.Task, withID bool) (duplicate bool, err error) {
	msg, err := wire.NewTaskSubmitted(t, time.Now().UTC())
	if err != nil {
		return false, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return false, err
	}
	// The caller's trace context, when ctx carries one, travels with the
	// task through every stage (traceparent in the header).
	hdr := nats.Header{}
	propagation.TraceContext{}.Inject(ctx, runtime.HeaderCarrier(hdr))
	out := &nats.Msg{Subject: wire.SubjectSubmittedBy(t.Caller.ID), Data: data, Header: hdr}
	var opts []jetstream.PublishOpt
	if withID {
		id, err := SubmissionMsgID(t)
		if err != nil {
			return false, err
		}
		opts = append(opts, jetstream.WithMsgID(id))
	}
	ack, err := js.PublishMsg(ctx, out, opts...)
	if err != nil {
		return false, fmt.Errorf("pipeline: publish task %s: %w", t.ID, err)
	}
	return ack.Duplicate, nil
}

// Submit publishes a task and waits until its decision or its dead letter
// appears, or ctx ends. A task is decided once: an identical task
// submitted again gets the first one's decision (when it comes, or, when
// it came already, carried by the extractor's dead letter of the
// duplicate); a different task under a used id gets a dead letter.
func Submit(ctx context.Context, js jetstream.JetStream, streams Streams, t *task.Task) (*Answer, error) {
	streams = streams.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan *Answer, 1)
	errs := make(chan error, 2)
	// Watch from now on before publishing, so the answer cannot slip by.
	start := func() error {
		for _, w := range []struct {
			stream string
			filter []string
			read   func([]byte) *Answer
		}{
			// Only this caller's decisions: another caller's are not
			// ours to read (and server permissions may forbid them).
			{streams.Decisions, []string{wire.SubjectDecisionsOf(t.Caller.ID)}, func(b []byte) *Answer {
				if d, err := wire.DecodeDecision(b); err == nil && d.TaskID == t.ID {
					return &Answer{Decision: d}
				}
				return nil
			}},
			{streams.DeadLetters, []string{wire.SubjectDeadLettersOf(t.Caller.ID)}, func(b []byte) *Answer {
				d, err := wire.DecodeDeadLetter(b)
				if err != nil || d.TaskID != t.ID {
					return nil
				}
				if len(d.Decision) > 0 {
					// An identical task, decided before: its decision.
					if dec, err := wire.DecodeDecision(d.Decision); err == nil && dec.TaskID == t.ID {
						return &Answer{Decision: dec}
					}
				}
				return &Answer{DeadLetter: d}
			}},
		} {
			c, err := js.OrderedConsumer(ctx, w.stream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverNewPolicy, FilterSubjects: w.filter})
			if err != nil {
				return fmt.Errorf("pipeline: watch %s: %w", w.stream, err)
			}
			read := w.read
			go func() {
				it, err := c.Messages()
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
					if a := read(m.Data()); a != nil {
						select {
						case answers <- a:
						default:
						}
						return
					}
				}
			}()
		}
		return nil
	}
	if err := start(); err != nil {
		return nil, err
	}
	dup, err := Publish(ctx, js, t)
	if err != nil {
		return nil, err
	}
	if dup {
		// The stream holds a message under this task's id: its own
		// earlier publish, or one that took the id (it can be set by any
		// publisher). Publish it again without one: the task-id records,
		// not the dedup window, tell a retry (answered with the first
		// decision, when it comes or in the duplicate's dead letter) from
		// a new task.
		if _, err := publish(ctx, js, t, false); err != nil {
			return nil, err
		}
	}
	select {
	case a := <-answers:
		return a, nil
	case err := <-errs:
		return nil, fmt.Errorf("pipeline: waiting for task %s: %w", t.ID, err)
	case <-ctx.Done():
		return nil, fmt.Errorf("pipeline: no decision for task %s: %w", t.ID, ctx.Err())
	}
}
