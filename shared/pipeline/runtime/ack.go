package runtime

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// ackDeferred acks m once its handler's effect is durable (see
// Result.Defer), or Naks it when that fails or the stage stops: the
// redelivery is harmless, the handler recognises what it has seen. It
// acts on the JetStream delivery itself (ack, Nak, InProgress), so it is
// a delivery-level step of the runner, not a Handler middleware.
func ackDeferred(ctx context.Context, log *zap.Logger, m jetstream.Msg, done <-chan error, lf []zap.Field, keepAliveEvery time.Duration) {
	// Keep the delivery alive while waiting: the ack wait may be shorter
	// than the time the effect takes to become durable.
	keepAlive := time.NewTicker(keepAliveEvery)
	defer keepAlive.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				// Given back (the feedback stage after another replica
				// published first): count it again now.
				log.Info("not durable; redelivering", append(lf, zap.Error(err))...)
				_ = m.Nak()
				return
			}
			if err := m.Ack(); err != nil {
				log.Warn("ack failed", append(lf, zap.Error(err))...)
			}
			return
		case <-keepAlive.C:
			_ = m.InProgress()
		case <-ctx.Done():
			_ = m.Nak()
			return
		}
	}
}
