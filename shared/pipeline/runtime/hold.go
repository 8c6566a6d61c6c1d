package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// holding is the gate of a stage whose dependency is unavailable
// (Stage.Ready): while held, every delivery the consumer hands over is
// parked instead of handled; the consumer keeps at most MaxAckPending of
// them outstanding, which bounds the parked set. It parks the JetStream
// deliveries themselves (to keep them alive and release them in order),
// so it is a delivery-level gate of the runner, not a Handler middleware.
type holding struct {
	mu     sync.Mutex
	held   bool
	parked []jetstream.Msg
}

func (h *holding) isHeld() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

// park parks m if the stage is held.
func (h *holding) park(m jetstream.Msg) bool { return h.parkAll([]jetstream.Msg{m}) }

// parkAll parks msgs if the stage is held, else reports false.
func (h *holding) parkAll(msgs []jetstream.Msg) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		h.parked = append(h.parked, msgs...)
	}
	return h.held
}

// hold parks m and holds the stage; it reports whether the stage was
// ready until now (the caller then starts waiting for readiness).
func (h *holding) hold(m jetstream.Msg) (started bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	started = !h.held
	h.held = true
	h.parked = append(h.parked, m)
	return started
}

// parkedNow is a copy of the parked deliveries.
func (h *holding) parkedNow() []jetstream.Msg {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]jetstream.Msg(nil), h.parked...)
}

// release ends the hold and returns the parked deliveries.
func (h *holding) release() []jetstream.Msg {
	h.mu.Lock()
	defer h.mu.Unlock()
	msgs := h.parked
	h.parked, h.held = nil, false
	return msgs
}

// nakAll releases the parked deliveries to another replica.
func (h *holding) nakAll() {
	for _, m := range h.release() {
		_ = m.Nak()
	}
}

// holdFrom holds the stage on m, which failed because a dependency is
// unavailable, and (if the stage was ready until now) starts the wait for
// readiness: one log line when the stage stops, one when it resumes.
func (run *Running) holdFrom(ctx context.Context, m jetstream.Msg, err error, lf []zap.Field) {
	if !run.hold.hold(m) {
		return
	}
	if !run.enter() {
		// Stopping: nobody waits for readiness.
		run.hold.nakAll()
		return
	}
	run.log.Error("not ready: holding deliveries until the stage's dependency answers", append(lf, zap.Error(err))...)
	go func() {
		defer run.wg.Done()
		run.awaitReady(ctx)
	}()
}

// awaitReady polls the stage's Ready with backoff (up to 5 s apart) while
// telling the server the parked deliveries are in progress, so that their
// ack wait never expires: a held delivery is not redelivered, so an
// outage of any length spends none of its MaxDeliver. Once Ready answers,
// it handles the parked deliveries in the order they came (new ones go
// to the workers again).
func (run *Running) awaitReady(ctx context.Context) {
	t0 := time.Now()
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval, eb.MaxInterval, eb.MaxElapsedTime = 100*time.Millisecond, 5*time.Second, 0
	keepAlive := time.NewTicker(run.r.cfg.keepAliveEvery())
	defer keepAlive.Stop()
	probe := time.NewTimer(eb.NextBackOff())
	defer probe.Stop()
	for {
		select {
		case <-ctx.Done():
			run.hold.nakAll() // stopping: let another replica have them now
			return
		case <-keepAlive.C:
			for _, m := range run.hold.parkedNow() {
				_ = m.InProgress()
				// And the task's origin, which waits for it.
				_ = run.r.settleOrigin(run.originOf(m.Headers()), ackInProgress)
			}
		case <-probe.C:
			pctx, cancel := context.WithTimeout(ctx, run.r.cfg.Retry)
			err := run.st.Ready(pctx)
			cancel()
			if err != nil {
				probe.Reset(eb.NextBackOff())
				continue
			}
			msgs := run.hold.release()
			run.log.Info("ready again: resuming", zap.Int("held", len(msgs)),
				zap.Duration("after", time.Since(t0).Round(time.Millisecond)))
			for len(msgs) > 0 {
				// Failing again re-holds the stage, and the new wait owns
				// the rest.
				if run.hold.parkAll(msgs) {
					return
				}
				m := msgs[0]
				msgs = msgs[1:]
				run.handle(ctx, m)
			}
			return
		}
	}
}
