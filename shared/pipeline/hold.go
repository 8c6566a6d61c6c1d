package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// holding is the parked deliveries of a stage whose dependency is
// unavailable (Stage.Ready). While held, every delivery the consumer hands
// over is parked instead of handled; the consumer keeps at most
// MaxAckPending of them outstanding, which bounds the parked set.
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

// holdFrom holds the stage on m, which failed because a dependency is
// unavailable, and (if the stage was ready until now) starts the wait for
// readiness: one log line when the stage stops, one when it resumes.
func (r *Runner) holdFrom(ctx context.Context, log *zap.Logger, st Stage, run *Running, m jetstream.Msg, err error, lf []zap.Field) {
	if !run.hold.hold(m) {
		return
	}
	if !run.enter() {
		// Stopping: nobody waits for readiness; release the deliveries
		// for another replica.
		for _, m := range run.hold.release() {
			_ = m.Nak()
		}
		return
	}
	log.Error("not ready: holding deliveries until the stage's dependency answers", append(lf, zap.Error(err))...)
	go func() {
		defer run.wg.Done()
		r.awaitReady(ctx, log, st, run)
	}()
}

// awaitReady polls the stage's Ready with backoff (up to 5 s apart) while
// telling the server the parked deliveries are in progress, so that their
// ack wait never expires: a held delivery is not redelivered, so an
// outage of any length spends none of its MaxDeliver. Once Ready answers,
// it handles the parked deliveries in the order they came (new ones go
// to the workers again).
func (r *Runner) awaitReady(ctx context.Context, log *zap.Logger, st Stage, run *Running) {
	t0 := time.Now()
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval, eb.MaxInterval, eb.MaxElapsedTime = 100*time.Millisecond, 5*time.Second, 0
	keepAlive := time.NewTicker(r.keepAliveEvery())
	defer keepAlive.Stop()
	probe := time.NewTimer(eb.NextBackOff())
	defer probe.Stop()
	for {
		select {
		case <-ctx.Done():
			// Stopping: let another replica have them now.
			for _, m := range run.hold.release() {
				_ = m.Nak()
			}
			return
		case <-keepAlive.C:
			for _, m := range run.hold.parkedNow() {
				_ = m.InProgress()
			}
		case <-probe.C:
			pctx, cancel := context.WithTimeout(ctx, r.cfg.Retry)
			err := st.Ready(pctx)
			cancel()
			if err != nil {
				probe.Reset(eb.NextBackOff())
				continue
			}
			msgs := run.hold.release()
			log.Info("ready again: resuming", zap.String("task_id", ""), zap.Int("held", len(msgs)),
				zap.Duration("after", time.Since(t0).Round(time.Millisecond)))
			for len(msgs) > 0 {
				// Failing again re-holds the stage, and the new wait owns
				// the rest.
				if run.hold.parkAll(msgs) {
					return
				}
				m := msgs[0]
				msgs = msgs[1:]
				r.handle(ctx, log, st, run, m)
			}
			return
		}
	}
}

// keepAliveEvery is how often held deliveries are marked in progress: well
// inside the shortest ack wait (BackOff[0], which JetStream uses as the
// first delivery's ack wait).
func (r *Runner) keepAliveEvery() time.Duration {
	d := 30 * time.Second
	if len(r.cfg.BackOff) > 0 {
		d = r.cfg.BackOff[0]
	}
	return max(d/4, 50*time.Millisecond)
}
