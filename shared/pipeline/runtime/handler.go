// Package runtime runs pipeline stages on NATS JetStream durable pull
// consumers. A stage is a Handler from one message to the messages it
// publishes, wrapped in small middlewares (Recoverer, Retry, PoisonQueue);
// the Runner only settles each delivery from the chain's answer: publish
// the outputs, then ack (or term a dead-lettered input), or Nak it for
// redelivery, or hold the stage while a dependency is unavailable.
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Msg is one input message and where it was delivered from.
type Msg struct {
	Subject string
	Data    []byte
	// Stream, Seq (the stream sequence) and Delivery (1 on the first
	// delivery) locate the delivery; zero when the handler is called
	// directly, outside a runner.
	Stream   string
	Seq      uint64
	Delivery uint64
	// InProgress tells the server the delivery is still being worked on,
	// which restarts its ack wait; nil outside a runner. Call KeepAlive,
	// which checks.
	InProgress func()
	// Header is the message's NATS header (nil when it has none): the
	// W3C trace context travels in it (Trace), and the task's origin
	// (HeaderOrigin, Carry).
	Header map[string][]string
	// Reply is the delivery's ack subject ("" outside a runner).
	Reply string
}

// KeepAlive calls InProgress when there is one.
func (m Msg) KeepAlive() {
	if m.InProgress != nil {
		m.InProgress()
	}
}

// Output is one message to publish. MsgID becomes Nats-Msg-Id, so that a
// redelivered input publishes nothing new.
type Output struct {
	Subject string
	Data    []byte
	MsgID   string
	// Header, when set, is published with the message (Trace puts the
	// trace context there).
	Header map[string][]string
}

// Result is what a handler did with a message. TaskID is set as soon as
// the handler could read it, also when it fails, for logs and dead letters.
//
// Defer, when set, holds the input's ack until the handler's effect is
// durable: the runner acks the input when Defer yields nil and Naks it
// (for redelivery) when it yields an error or the stage stops; the worker
// goes on meanwhile. The feedback stage acks an outcome only once the
// posteriors that count it are stored.
type Result struct {
	TaskID string
	Out    []Output
	// Stored are outputs the handler stored itself (the decider's
	// decision, which its store publishes once, under the stream's
	// check): the runner does not publish them; observers see them as
	// they see Out.
	Stored []Output
	Defer  <-chan error

	// origin, when set, is the origin ack subject of another message
	// whose dead letter Out is (the dead-letter watcher's): terminated once
	// the dead letter is stored.
	origin string
	// poison is the reason when Out is the input's dead letter
	// (PoisonQueue): the runner then terminates the input instead of
	// acking it, so it is never redelivered, and logs the reason.
	poison string
}

// Emit adds msg, as JSON, to r's outputs. A message that does not encode
// (NaN scores, say) is bad input: the same input fails the same way.
func (r Result) Emit(subject, msgID string, msg any) (Result, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return r, BadInput(fmt.Errorf("output %s: %w", subject, err))
	}
	r.Out = append(r.Out, Output{Subject: subject, Data: data, MsgID: msgID})
	return r, nil
}

// EmitEncoded adds data, a message encode gave (a hand-written encoder
// of a message's JSON), to r's outputs; a message that did not encode
// (encErr) is bad input, as with Emit.
func (r Result) EmitEncoded(subject, msgID string, data []byte, encErr error) (Result, error) {
	if encErr != nil {
		return r, BadInput(fmt.Errorf("output %s: %w", subject, encErr))
	}
	r.Out = append(r.Out, Output{Subject: subject, Data: data, MsgID: msgID})
	return r, nil
}

// Handler processes one message. An error wrapping ErrBadInput is
// permanent (the message goes to the dead letters and is not redelivered);
// any other error is transient (retried).
type Handler func(ctx context.Context, in Msg) (Result, error)

// Middleware wraps a handler with one concern.
type Middleware func(Handler) Handler

// Chain wraps h in mw, the first listed the outermost: Chain(h, a, b)
// handles a message as a(b(h)).
func Chain(h Handler, mw ...Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// ErrBadInput marks a message no retry can process.
var ErrBadInput = errors.New("bad input")

// BadInput wraps err as permanent (once: an error already marked is
// returned as it is).
func BadInput(err error) error {
	if errors.Is(err, ErrBadInput) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadInput, err)
}
