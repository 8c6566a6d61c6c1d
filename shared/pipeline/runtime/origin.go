package runtime

import (
	"context"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
)

// A task's durable origin. The stage marked Stage.Origin reads the
// durable input (the callers' submissions) and does not ack it when it
// has published its outputs: its outputs, and every stage message after
// them, carry the input's ack subject in HeaderOrigin, and the stage that
// stores the task's end (Stage.Final: the decision; any stage: a dead
// letter) acks the origin once that end is stored. The stage messages in
// between may then live in memory: when they are lost (a server restart),
// the origin, never acked, is redelivered after its ack wait and the task
// runs again; the idempotency records make the second run publish
// nothing new. The origin consumer's MaxAckPending bounds the tasks in
// flight.
const (
	// HeaderOrigin is the ack subject of the task's origin delivery.
	HeaderOrigin = "Skillmatch-Origin"
	// carriedPrefix marks the headers a stage's outputs inherit from its
	// input (the origin, and what the origin stage adds for the final one).
	carriedPrefix = "Skillmatch-"
)

// Carry copies the input's Skillmatch-* headers (HeaderOrigin and what
// the origin stage adds) into every output that does not set them, and,
// when origin is set, makes the input delivery itself (its ack subject,
// in.Reply) the outputs' HeaderOrigin and carries none of the input's
// headers, which a caller wrote. It goes inside PoisonQueue, so a
// dead letter carries none of them to the callers who read it.
func Carry(origin bool) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, in Msg) (Result, error) {
			res, err := next(ctx, in)
			if err != nil || len(res.Out) == 0 {
				return res, err
			}
			for i := range res.Out {
				h := nats.Header(res.Out[i].Header)
				// The origin stage's input is a caller's submission: its
				// headers are claims and are not carried.
				for k, v := range carried(in.Header, origin) {
					if strings.HasPrefix(k, carriedPrefix) && h[k] == nil {
						if h == nil {
							h = nats.Header{}
						}
						h[k] = v
					}
				}
				if origin && in.Reply != "" {
					if h == nil {
						h = nats.Header{}
					}
					h.Set(HeaderOrigin, in.Reply)
				}
				res.Out[i].Header = h
			}
			return res, nil
		}
	}
}

// carried is the input header a stage's outputs inherit: none at the
// origin stage.
func carried(h map[string][]string, origin bool) map[string][]string {
	if origin {
		return nil
	}
	return h
}

// originOf is the origin ack subject a message carries ("" when none):
// only a JetStream ack subject is taken, so a header that names any
// other subject makes the runner publish nothing there.
func originOf(h nats.Header) string {
	o := h.Get(HeaderOrigin)
	if !strings.HasPrefix(o, "$JS.ACK.") {
		return ""
	}
	return o
}

// OriginSeq is the stream sequence of a message's origin delivery (0 when
// it carries none): it names the submission a stage message comes from.
func OriginSeq(h map[string][]string) uint64 {
	o := originOf(h)
	if o == "" {
		return 0
	}
	// $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<dseq>.<ts>.<pending>,
	// or with <domain>.<account hash> before the stream and a token after.
	t := strings.Split(o, ".")
	var i int
	switch {
	case len(t) == 9:
		i = 5
	case len(t) >= 11:
		i = 7
	default:
		return 0
	}
	seq, err := strconv.ParseUint(t[i], 10, 64)
	if err != nil {
		return 0
	}
	return seq
}

// Acknowledgement bodies JetStream takes on an ack subject.
const (
	ackOK         = "+ACK"
	ackTerm       = "+TERM"
	ackInProgress = "+WPI"
)

// settleOrigin publishes body on the origin's ack subject. A lost one only
// means the origin is redelivered after its ack wait and the task runs
// again, which the idempotency records make harmless.
func (r *Runner) settleOrigin(origin, body string) error {
	if origin == "" {
		return nil
	}
	return r.js.Conn().Publish(origin, []byte(body))
}
