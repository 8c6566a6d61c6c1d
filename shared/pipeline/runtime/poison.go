package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// PoisonQueue turns bad input (an error wrapping ErrBadInput) into a
// result whose only output is the input's dead letter, on
// wire.SubjectDeadLetter(stage, caller, task), keeping the failed result's task id. The
// runner publishes it like any output and then terminates the input, so
// the dead-letter path is the chain's: published exactly once (its MsgID
// names the input's stream and sequence), retried and Nak'd like any
// output when the stream does not take it. now stamps the dead letter
// (nil: time.Now).
func PoisonQueue(stage string, now func() time.Time) Middleware {
	if now == nil {
		now = time.Now
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (Result, error) {
			res, err := next(ctx, in)
			if err == nil || !errors.Is(err, ErrBadInput) {
				return res, err
			}
			dl := wire.NewDeadLetter(stage, err.Error(), in.Subject, in.Data, now().UTC())
			dl.TaskID, dl.Stream, dl.StreamSeq, dl.Deliveries = res.TaskID, in.Stream, in.Seq, in.Delivery
			var ann DeadLetterAnnotator
			if errors.As(err, &ann) {
				ann.AnnotateDeadLetter(dl)
			}
			out, merr := deadLetterOutput(dl)
			if merr != nil {
				return res, fmt.Errorf("%w (dead letter not built: %v)", err, merr)
			}
			return Result{TaskID: res.TaskID, Out: []Output{out}, poison: dl.Reason}, nil
		}
	}
}

// DeadLetterAnnotator is an error that adds to the dead letter of the
// input it failed (the extractor's duplicate of a decided task attaches
// that decision).
type DeadLetterAnnotator interface {
	error
	AnnotateDeadLetter(*wire.DeadLetter)
}

// deadLetterOutput is the message of a dead letter. Its MsgID
// ("dl/<stage>/<stream>/<seq>") makes a redelivery, or the max-deliveries
// advisory of the same input, publish no second one.
func deadLetterOutput(dl *wire.DeadLetter) (Output, error) {
	data, err := json.Marshal(dl)
	if err != nil {
		return Output{}, fmt.Errorf("dead letter of %s/%d: %w", dl.Stream, dl.StreamSeq, err)
	}
	return Output{Subject: wire.SubjectDeadLetter(dl.Stage, dl.Caller, dl.TaskID), Data: data,
		MsgID: "dl/" + dl.Stage + "/" + dl.Stream + "/" + strconv.FormatUint(dl.StreamSeq, 10)}, nil
}
