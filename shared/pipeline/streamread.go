package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Range says which messages of a stream ReadStream reads. The zero Range
// is every message up to the stream's last one when the read starts.
type Range struct {
	// Subjects filters the stream (empty: all).
	Subjects []string
	// FromSeq, or else FromTime, is the first message (zero: the first).
	FromSeq  uint64
	FromTime time.Time
	// ToSeq and ToTime bound the last message (zero: no bound).
	ToSeq  uint64
	ToTime time.Time
	// Latest, when positive, reads only the last Latest messages (of the
	// whole stream, before the subject filter) and ignores From.
	Latest int
}

// ReadStream calls fn with each message of the stream in the range,
// oldest first, with an ordered consumer (no state left on the server),
// up to the stream's last message when it started: a stream that keeps
// growing still ends. The feedback refit and `skillmatch replay` both read
// with it.
func ReadStream(ctx context.Context, js jetstream.JetStream, stream string, r Range, fn func(m jetstream.Msg, md *jetstream.MsgMetadata)) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("pipeline: read stream %s: %w", stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: read stream %s: %w", stream, err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if r.ToSeq > 0 {
		last = min(last, r.ToSeq)
	}
	occ := jetstream.OrderedConsumerConfig{FilterSubjects: r.Subjects}
	switch {
	case r.Latest > 0:
		start := first
		if last >= uint64(r.Latest) && last-uint64(r.Latest)+1 > start {
			start = last - uint64(r.Latest) + 1
		}
		occ.DeliverPolicy, occ.OptStartSeq = jetstream.DeliverByStartSequencePolicy, start
	case r.FromSeq > 0:
		if r.FromSeq > last {
			return nil
		}
		occ.DeliverPolicy, occ.OptStartSeq = jetstream.DeliverByStartSequencePolicy, r.FromSeq
	case !r.FromTime.IsZero():
		t := r.FromTime
		occ.DeliverPolicy, occ.OptStartTime = jetstream.DeliverByStartTimePolicy, &t
	}
	if info.State.Msgs == 0 || last == 0 || last < first {
		return nil
	}
	cons, err := s.OrderedConsumer(ctx, occ)
	if err != nil {
		return fmt.Errorf("pipeline: read stream %s: %w", stream, err)
	}
	for {
		batch, err := cons.FetchNoWait(500)
		if err != nil {
			return fmt.Errorf("pipeline: read stream %s: %w", stream, err)
		}
		got, done := 0, false
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			seq := md.Sequence.Stream
			if seq > last || (!r.ToTime.IsZero() && md.Timestamp.After(r.ToTime)) {
				done = true
				continue
			}
			fn(m, md)
			if seq == last || md.NumPending == 0 {
				done = true
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("pipeline: read stream %s: %w", stream, err)
		}
		if done || got == 0 {
			// got == 0: the rest were deleted meanwhile, or the filter
			// matches nothing further.
			return ctx.Err()
		}
	}
}
