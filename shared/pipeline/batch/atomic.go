// Package batch stores many JetStream messages with one fsync: atomic
// batch publishing (PublishAtomic) and group commit of concurrent
// publishers (Group). It needs only nats.go, so that the thin client can
// use it too.
package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Atomic batches. A stream that fsyncs every write (sync_interval always)
// fsyncs once per message, one message after another, so a synced stream
// admits about one message per fsync however many publishers wait. A batch
// published atomically (stream config allow_atomic; headers
// Nats-Batch-Id, Nats-Batch-Sequence, Nats-Batch-Commit on the last) is
// stored whole or not at all, and an R1 file stream that syncs always
// fsyncs it once: one fsync covers the batch. The server checks every
// message of the batch before storing any (expected last subject sequence,
// Nats-Msg-Id duplicates, limits); one that fails rejects the whole batch,
// and the caller then publishes its messages one by one, where each gets
// its own answer.
const (
	headerBatchID     = "Nats-Batch-Id"
	headerBatchSeq    = "Nats-Batch-Sequence"
	headerBatchCommit = "Nats-Batch-Commit"
	// MaxSize is the most messages one atomic batch holds (the
	// server's default limit is 1,000).
	MaxSize = 1000
)

// ErrRejected marks an atomic batch the stream refused as a whole:
// nothing of it is stored.
var ErrRejected = errors.New("atomic batch rejected")

// batchAck is the stream's answer to a batch commit: a publish's, or its
// error.
type batchAck struct {
	jetstream.PubAck
	Error *jetstream.APIError `json:"error"`
}

// PublishAtomic publishes msgs, all bound for one stream that allows
// atomic publishing, as one atomic batch, and returns the stream sequence
// of the last. The messages' headers gain the batch headers (msgs are
// modified). An error wrapping ErrRejected means the stream stored
// none of them (a message failed its check, or the batch was incomplete);
// any other error (a timeout) leaves it unknown whether the batch was
// stored, as for a single publish.
func PublishAtomic(ctx context.Context, nc *nats.Conn, msgs []*nats.Msg) (uint64, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	if len(msgs) > MaxSize {
		return 0, fmt.Errorf("%w: %d messages, at most %d", ErrRejected, len(msgs), MaxSize)
	}
	id := nuid.Next()
	last := len(msgs) - 1
	for i, m := range msgs {
		if m.Header == nil {
			m.Header = nats.Header{}
		}
		m.Header.Set(headerBatchID, id)
		m.Header.Set(headerBatchSeq, strconv.Itoa(i+1))
		m.Reply = ""
		if i == last {
			m.Header.Set(headerBatchCommit, "1")
			break
		}
		// Only the commit is answered: the messages before it travel on
		// the same connection, so they reach the stream first, and a gap
		// fails the commit.
		if err := nc.PublishMsg(m); err != nil {
			return 0, fmt.Errorf("atomic batch: publish %s: %w", m.Subject, err)
		}
	}
	resp, err := nc.RequestMsgWithContext(ctx, msgs[last])
	if err != nil {
		return 0, fmt.Errorf("atomic batch of %d: commit: %w", len(msgs), err)
	}
	var ack batchAck
	if err := json.Unmarshal(resp.Data, &ack); err != nil {
		return 0, fmt.Errorf("atomic batch of %d: answer %q: %w", len(msgs), resp.Data, err)
	}
	if ack.Error != nil {
		return 0, fmt.Errorf("%w (%d messages): %w", ErrRejected, len(msgs), ack.Error)
	}
	return ack.Sequence, nil
}
