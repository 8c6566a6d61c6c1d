package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// publisherPool takes handled deliveries off a stage's workers and
// publishes and settles them, so that the workers go on matching instead
// of waiting for the stream's round trips. Each output is published
// synchronously and the input acked only after every output is stored,
// so exactly-once holds as on the worker. It settles JetStream deliveries,
// so it is a delivery-level step of the runner, not a Handler middleware.
type publisherPool struct {
	pending chan delivery
	done    chan struct{} // closed when every publisher has finished
}

// publishersPerStage is the fewest publishers a stage runs. Each waits a
// round trip per output (the stream's ack), so a stage's publishers store
// at most publishers / round trip outputs a second, whatever its CPU: the
// retriever and reranker, one worker and so one publisher per core, were
// capped near 1,400 tasks/s on the 2-core benchmark once a synced server
// stretched the round trips (their consumers held 600 deliveries waiting
// while the cores idled a third of the time). 16 keep the round trips off
// the critical path there (BenchmarkPipeline, interleaved runs: every
// write synced 1,236-1,432 -> 1,572-1,688 tasks/s, grouped submissions
// 1,170-1,413 -> 1,445-1,988, default 2,529-2,618 -> 2,480-3,016); 32
// and 64 measured no better.
const publishersPerStage = 16

// publishers is how many publishers a stage with workers workers, each
// handling concurrency deliveries at once (0 or 1: one), runs: one for
// every delivery handled at once, and at least publishersPerStage.
func publishers(workers, concurrency int) int {
	return max(publishersPerStage, workers*max(1, concurrency))
}

// startPublishers starts n publishers running settle on each delivery
// put, with room for size waiting ones.
func startPublishers(n, size int, settle func(delivery)) *publisherPool {
	p := &publisherPool{pending: make(chan delivery, size), done: make(chan struct{})}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range p.pending {
				settle(d)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(p.done)
	}()
	return p
}

// put hands d to the publishers; it blocks while the pool is full.
func (p *publisherPool) put(d delivery) { p.pending <- d }

// close waits for the publishers to settle what they were given; put
// must not be called after.
func (p *publisherPool) close() {
	close(p.pending)
	<-p.done
}

// publishRetry publishes outs, retrying for up to cfg.Retry and telling
// the server m is in progress before each new attempt. An output stored
// on an earlier attempt is not published again. An output the stream
// reports as a duplicate is stored already (by this delivery's earlier
// attempt, or an earlier delivery's): only stages publish into the
// streams they consume, so nobody else holds their message ids.
func (r *Runner) publishRetry(ctx context.Context, m jetstream.Msg, outs []Output, log *zap.Logger, lf []zap.Field) error {
	if len(outs) == 0 {
		return nil
	}
	stored := make([]bool, len(outs))
	return retry(ctx, r.cfg.Retry, func() error {
		return r.publish(ctx, outs, stored)
	}, func(err error) {
		_ = m.InProgress()
		log.Warn("retrying", append(lf, zap.Error(err))...)
	})
}

// publish publishes the outputs not stored yet, each attempt bounded to a
// quarter of the retry budget so that an attempt lost in a reconnect
// leaves time to retry.
func (r *Runner) publish(ctx context.Context, outs []Output, stored []bool) error {
	for i, o := range outs {
		if stored[i] {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, r.attemptTimeout())
		_, err := r.js.PublishMsg(pctx, &nats.Msg{Subject: o.Subject, Data: o.Data, Header: o.Header}, jetstream.WithMsgID(o.MsgID))
		cancel()
		if err != nil {
			return fmt.Errorf("publish %s: %w", o.Subject, err)
		}
		stored[i] = true
	}
	return nil
}

// attemptTimeout bounds one round trip to the server.
func (r *Runner) attemptTimeout() time.Duration { return max(r.cfg.Retry/4, 200*time.Millisecond) }
