package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// StageDeadLetters is the durable name of the consumer that turns
// max-deliveries advisories into dead letters.
const StageDeadLetters = "deadletters"

// maxDeliveries is the server's max-deliveries advisory.
type maxDeliveries struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// DeadLetterStage turns the max-deliveries advisories captured in the
// advisories stream into dead letters that carry the original message,
// fetched from its stream by sequence. Only an original from stages, the
// stream the stages write, has its origin terminated: a header on a
// message callers wrote (a submission, an outcome) is their claim.
func (r *Runner) DeadLetterStage(advisories, stages string) Stage {
	return Stage{Name: StageDeadLetters, Stream: advisories, Handle: func(ctx context.Context, in Msg) (Result, error) {
		return r.fromAdvisory(ctx, in, stages)
	}}
}

func (r *Runner) fromAdvisory(ctx context.Context, in Msg, stages string) (Result, error) {
	var a maxDeliveries
	if err := json.Unmarshal(in.Data, &a); err != nil || a.Stream == "" || a.Consumer == "" {
		return Result{}, BadInput(fmt.Errorf("advisory on %s: cannot read it (%v)", in.Subject, err))
	}
	reason := fmt.Sprintf("gave up after %d deliveries (max-deliveries advisory); see the stage's log for the errors", a.Deliveries)
	var subject, origin string
	var payload []byte
	stream, err := r.js.Stream(ctx, a.Stream)
	if err != nil {
		return Result{}, fmt.Errorf("advisory: stream %s: %w", a.Stream, err)
	}
	orig, err := stream.GetMsg(ctx, a.StreamSeq)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		reason += "; the original is no longer in the stream"
	case err != nil:
		return Result{}, fmt.Errorf("advisory: %s/%d: %w", a.Stream, a.StreamSeq, err)
	default:
		subject, payload = orig.Subject, orig.Data
		if a.Stream == stages {
			origin = originOf(orig.Header)
		}
	}
	dl := wire.NewDeadLetter(a.Consumer, reason, subject, payload, r.now().UTC())
	dl.TaskID, dl.Stream, dl.StreamSeq, dl.Deliveries = TaskIDOf(payload), a.Stream, a.StreamSeq, a.Deliveries
	out, err := deadLetterOutput(dl)
	if err != nil {
		return Result{}, BadInput(err)
	}
	// The task ends here: its origin (if the message carried one) is
	// terminated once the dead letter is stored, so it is not run again.
	return Result{TaskID: dl.TaskID, Out: []Output{out}, origin: origin}, nil
}

// TaskIDOf reads the task id of any pipeline message, best effort: "taskId"
// of a stage message, "task.id" of a submitted envelope, "id" of a bare
// task; "" when there is none.
func TaskIDOf(data []byte) string {
	var m struct {
		TaskID string `json:"taskId"`
		ID     string `json:"id"`
		Task   struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if json.Unmarshal(data, &m) != nil {
		// Too deep or broken for the decoder: walk its tokens instead, so
		// a dead letter still names the task.
		f := wire.StringsAt(data, "taskId", "task.id", "id")
		m.TaskID, m.Task.ID, m.ID = f["taskId"], f["task.id"], f["id"]
	}
	id := m.TaskID
	if id == "" {
		id = m.Task.ID
	}
	if id == "" {
		id = m.ID
	}
	if len(id) > 128 {
		id = id[:128]
	}
	return id
}
