package pipeline

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
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
// may speak for that caller) with its Nats-Msg-Id (SubmissionMsgID) and
// the trace context of ctx. It reports whether the stream had already
// seen the task (a duplicate publish within the dedup window stores
// nothing).
func Publish(ctx context.Context, js jetstream.JetStream, t *task.Task) (duplicate bool, err error) {
	return client.New(js).Publish(ctx, t)
}

// SubmissionMsgID is the Nats-Msg-Id Publish gives a task: the caller,
// the task id and the task's fingerprint.
func SubmissionMsgID(t *task.Task) (string, error) { return client.SubmissionMsgID(t) }

// Submit publishes a task and waits until its decision or its dead letter
// appears, or ctx ends (client.Client.Submit), with the wire messages
// decoded in full. A task is decided once: an identical task submitted
// again gets the first one's decision; a different task under a used id
// gets a dead letter.
func Submit(ctx context.Context, js jetstream.JetStream, streams Streams, t *task.Task) (*Answer, error) {
	if streams == (Streams{}) {
		streams = DefaultStreams
	}
	a, err := client.New(js, client.WithStreams(streams.Decisions, streams.DeadLetters)).Submit(ctx, t)
	if err != nil {
		return nil, err
	}
	return decodeAnswer(a)
}

// decodeAnswer reads a client's answer as the wire messages it carries.
func decodeAnswer(a *client.Answer) (*Answer, error) {
	if a.DeadLetter != nil {
		dl, err := wire.DecodeDeadLetter(a.DeadLetter.Raw)
		if err != nil {
			return nil, fmt.Errorf("pipeline: dead letter of task %s: %w", a.DeadLetter.TaskID, err)
		}
		return &Answer{DeadLetter: dl}, nil
	}
	d, err := wire.DecodeDecision(a.Decision.Raw)
	if err != nil {
		return nil, fmt.Errorf("pipeline: decision on task %s: %w", a.Decision.TaskID, err)
	}
	return &Answer{Decision: d}, nil
}
