package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Stage is one consumer of the pipeline.
type Stage struct {
	// Name is the durable consumer name and the dead-letter suffix.
	Name   string
	Stream string
	// Filter is the consumer's filter subject ("" = the whole stream);
	// Filters, when set, are several instead.
	Filter  string
	Filters []string
	Handle  Handler
	// Ready, when set, says whether the stage's dependencies can serve
	// (the retriever's index). A delivery that fails with an error
	// wrapping index.ErrUnavailable is then held: not retried, not Nak'd
	// (a long outage would exhaust MaxDeliver and dead-letter good tasks),
	// but parked with the deliveries that follow it and kept alive with
	// InProgress while Ready is polled; once Ready answers, they are
	// handled in order. See Running.Ready.
	Ready func(ctx context.Context) error
	// Origin marks the stage whose input is each task's durable origin
	// (see HeaderOrigin): its outputs carry the delivery's ack subject,
	// and a delivery that published outputs is left unacked, for the
	// stage that stores the task's end to ack.
	Origin bool
	// CallerInput marks a stage whose input callers write (their
	// outcomes): its Skillmatch-* headers are claims, so an origin named
	// there is never settled nor carried. The origin stage's input is
	// callers' too.
	CallerInput bool
	// Final marks the stage whose outputs end a task (the decision): once
	// they are stored (or when it publishes none), it acks the input's
	// origin. Any other stage that dead-letters a task terminates its
	// origin.
	Final bool
	// MaxDeliver, when set, replaces the runner's for this stage (-1: no
	// limit). The origin stage has none: its input is redelivered until
	// the task ends, however long a later stage is down.
	MaxDeliver int
	// BackOff, when set, replaces the runner's redelivery delays for this
	// stage (its first is the ack wait): the origin stage's input waits
	// for the whole pipeline, not for one stage.
	BackOff []time.Duration
	// Workers, when set, replaces the runner's number of workers for this
	// stage: a stage whose handler waits for synced writes (the decider's
	// decisions) keeps that many in flight instead of one. The stage gets
	// a publisher for every delivery it handles at once (workers ×
	// Concurrency).
	Workers int
	// Concurrency, when above 1, is how many deliveries each worker
	// handles at once, each in a goroutine of its own: for a stage whose
	// handler mostly waits for round trips (the extractor's reads of a
	// task's last decision) or for synced writes a batch.Group shares,
	// where the batches hold one write per waiting delivery. Not with
	// Ready (a held stage handles its deliveries in order).
	Concurrency int
}

// Runner runs stages on JetStream.
type Runner struct {
	js  jetstream.JetStream
	cfg Config
	log *zap.Logger
	now func() time.Time
}

// NewRunner returns a runner; create the streams first. A config that
// Validate refuses is logged, not refused: the runner still works, only
// with the risk the check names (a redelivery while retrying, a second
// output after the dedup window).
func NewRunner(js jetstream.JetStream, cfg Config) *Runner {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		cfg.Log.Warn("runner config", zap.Error(err))
	}
	return &Runner{js: js, cfg: cfg, log: cfg.Log, now: time.Now}
}

// Config is the runner's configuration, defaults applied.
func (r *Runner) Config() Config { return r.cfg }

// Running is a started stage.
type Running struct {
	name     string
	r        *Runner
	st       Stage
	h        Handler // st.Handle in the middlewares
	log      *zap.Logger
	cancel   context.CancelFunc
	ccs      []jetstream.ConsumeContext
	mu       sync.Mutex // guards stopping and wg.Add
	stopping bool
	wg       sync.WaitGroup
	once     sync.Once
	pool     *publisherPool // nil: the workers publish themselves
	hold     *holding       // nil: the stage has no Ready
}

// delivery is a handled message on its way to being settled.
type delivery struct {
	m   jetstream.Msg
	res Result
	lf  []zap.Field
	n   uint64 // deliveries
	// origin is the ack subject of the task's origin delivery the input
	// carries ("" when none; see HeaderOrigin).
	origin string
}

// enter registers work on the stage's messages; false once stopping.
func (run *Running) enter() bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.stopping {
		return false
	}
	run.wg.Add(1)
	return true
}

// Name is the stage name.
func (run *Running) Name() string { return run.name }

// Ready says whether the stage is handling deliveries: false while it
// holds them because a dependency is unavailable (Stage.Ready).
func (run *Running) Ready() bool { return run.hold == nil || !run.hold.isHeld() }

// Stop stops consuming and waits for the messages being handled, acking
// those whose handlers finish. Messages the workers had buffered but not
// handled are redelivered after the ack wait.
func (run *Running) Stop() {
	run.once.Do(func() {
		run.mu.Lock()
		run.stopping = true
		run.mu.Unlock()
		run.cancel()
		for _, cc := range run.ccs {
			cc.Stop()
		}
		for _, cc := range run.ccs {
			<-cc.Closed()
		}
		run.wg.Wait()
		if run.pool != nil {
			run.pool.close()
		}
	})
}

// Start creates (or updates) the stage's durable pull consumer and starts
// its workers.
func (r *Runner) Start(ctx context.Context, st Stage) (*Running, error) {
	stream, err := r.js.Stream(ctx, st.Stream)
	if err != nil {
		return nil, fmt.Errorf("runtime: stage %s: stream %s: %w", st.Name, st.Stream, err)
	}
	cc := jetstream.ConsumerConfig{
		Durable: st.Name, Description: "skillmatch " + st.Name, FilterSubject: st.Filter, FilterSubjects: st.Filters,
		AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver: r.cfg.MaxDeliver, BackOff: r.cfg.BackOff, MaxAckPending: r.cfg.MaxAckPending,
	}
	if st.MaxDeliver != 0 {
		cc.MaxDeliver = st.MaxDeliver
	}
	if st.BackOff != nil {
		cc.BackOff = st.BackOff
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("runtime: stage %s: consumer: %w", st.Name, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	log := r.log.With(zap.String("stage", st.Name))
	run := &Running{name: st.Name, r: r, st: st, log: log, cancel: cancel, h: r.chain(st, log)}
	if st.Ready != nil {
		run.hold = &holding{}
	}
	workers := r.cfg.Workers
	if st.Workers > 0 {
		workers = st.Workers
	}
	if r.cfg.MaxInFlight > 1 {
		// As many publishers as deliveries handled at once, and never
		// fewer than publishersPerStage: a stage's outputs wait a round
		// trip each, so too few publishers cap the stage below its CPU
		// and its handlers block on the full pool.
		run.pool = startPublishers(publishers(workers, st.Concurrency), r.cfg.MaxInFlight, func(d delivery) {
			// Background: a stopping stage still finishes what it has
			// taken, within the retry budget.
			ctx, cancel := context.WithTimeout(context.Background(), r.cfg.Retry)
			defer cancel()
			run.publishAndSettle(ctx, d, false)
		})
	}
	var slots chan struct{} // nil: each worker handles one delivery at a time
	if st.Concurrency > 1 && st.Ready == nil {
		slots = make(chan struct{}, workers*st.Concurrency)
	}
	for w := 0; w < workers; w++ {
		c, err := cons.Consume(func(m jetstream.Msg) {
			if !run.enter() {
				return // stopping: left for redelivery
			}
			if slots != nil {
				slots <- struct{}{}
				go func() {
					defer run.wg.Done()
					defer func() { <-slots }()
					run.handle(runCtx, m)
				}()
				return
			}
			defer run.wg.Done()
			if run.hold != nil && run.hold.park(m) {
				return // held until the stage is ready again
			}
			run.handle(runCtx, m)
		}, jetstream.PullMaxMessages(r.cfg.PullMaxMessages), jetstream.PullExpiry(r.cfg.PullExpiry),
			jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
				if runCtx.Err() == nil {
					log.Warn("consume", zap.Error(err))
				}
			}))
		if err != nil {
			run.Stop()
			return nil, fmt.Errorf("runtime: stage %s: consume: %w", st.Name, err)
		}
		run.ccs = append(run.ccs, c)
	}
	log.Info("stage started", zap.String("stream", st.Stream), zap.String("filter", st.Filter), zap.Strings("filters", st.Filters),
		zap.Int("workers", workers))
	return run, nil
}

// chain is the stage's handler in the runner's middlewares. PoisonQueue
// is outermost so that it sees the bad input of every layer below,
// panics included; Carry is inside it, so that dead letters carry no
// origin to the callers; Recoverer is innermost so that a panic is bad input
// before Retry sees it, and is not retried.
func (r *Runner) chain(st Stage, log *zap.Logger) Handler {
	notify := func(in Msg, res Result, err error) {
		log.Warn("retrying", zap.String("task_id", res.TaskID), zap.Uint64("seq", in.Seq), zap.Error(err))
	}
	carry := func(next Handler) Handler { return next } // the final stage's outputs go to callers: nothing carried
	if !st.Final {
		carry = Carry(st.Origin || st.CallerInput)
	}
	mw := []Middleware{PoisonQueue(st.Name, r.now), carry, RetryNotify(r.cfg.Retry, notify), Recoverer()}
	if r.cfg.Observer != nil {
		mw = append([]Middleware{Observe(st.Name, r.cfg.Observer)}, mw...)
	}
	if r.cfg.Tracer != nil {
		mw = append([]Middleware{Trace(st.Name, r.cfg.Tracer)}, mw...)
	}
	return Chain(st.Handle, mw...)
}

// handle runs the chain on one delivery and settles it: publish the
// outputs, then ack (or term a dead-lettered input); hold the stage when
// its dependency is unavailable; Nak anything else for redelivery with
// the consumer's backoff.
func (run *Running) handle(ctx context.Context, m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		run.log.Error("no metadata", zap.Error(err))
		_ = m.Term()
		return
	}
	in := Msg{Subject: m.Subject(), Data: m.Data(), Stream: md.Stream, Seq: md.Sequence.Stream,
		Delivery: md.NumDelivered, InProgress: func() { _ = m.InProgress() }, Header: m.Headers(), Reply: m.Reply()}
	res, err := run.h(ctx, in)
	d := delivery{m: m, res: res, n: md.NumDelivered, origin: run.originOf(m.Headers()),
		lf: []zap.Field{zap.String("task_id", res.TaskID), zap.Uint64("seq", in.Seq), zap.Uint64("delivery", in.Delivery)}}
	switch {
	case err != nil:
		run.fail(ctx, d, err)
	case res.Defer != nil:
		run.deferAck(ctx, d)
	case run.pool != nil && len(res.Out) > 0:
		// Published and acked by the stage's publishers; blocks while
		// MaxInFlight messages are waiting for them.
		run.pool.put(d)
	default:
		run.publishAndSettle(ctx, d, true)
	}
}

// fail settles a delivery whose handler failed.
func (run *Running) fail(ctx context.Context, d delivery, err error) {
	switch {
	case ctx.Err() != nil:
		_ = d.m.Nak() // stopping: let another worker have it now
	case run.hold != nil && errors.Is(err, index.ErrUnavailable):
		run.holdFrom(ctx, d.m, err, d.lf)
	default:
		// Transient, or bad input PoisonQueue could not dead-letter: after
		// MaxDeliver the advisory dead-letters it.
		delay := run.r.cfg.delay(d.n)
		run.log.Error("failed; redelivering", append(d.lf, zap.Duration("after", delay), zap.Error(err))...)
		_ = d.m.NakWithDelay(delay)
	}
}

// publishAndSettle publishes d's outputs, retrying for up to cfg.Retry,
// then acks d, or terminates it when the output is its dead letter; when
// the outputs are not stored in time, d is Nak'd for redelivery, which
// republishes them under the same Nats-Msg-Ids (the stream drops what it
// already has). confirm waits, briefly, for the server to confirm the ack.
func (run *Running) publishAndSettle(ctx context.Context, d delivery, confirm bool) {
	err := run.r.publishRetry(ctx, d.m, d.res.Out, run.log, d.lf)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			_ = d.m.Nak() // stopping: let another worker have it now
			return
		}
		msg := "failed; redelivering"
		if d.res.poison != "" {
			msg = "dead letter not published; will retry"
		}
		delay := run.r.cfg.delay(d.n)
		run.log.Error(msg, append(d.lf, zap.Duration("after", delay), zap.Error(err))...)
		_ = d.m.NakWithDelay(delay)
		return
	}
	// The task's end is stored: its origin is done with.
	switch {
	case d.res.poison != "":
		run.endOrigin(d, ackTerm)
	case run.st.Final:
		run.endOrigin(d, ackOK)
	case d.res.origin != "":
		// The dead-letter watcher's dead letter of a stage message.
		if err := run.r.settleOrigin(d.res.origin, ackTerm); err != nil {
			run.log.Warn("origin not terminated", append(d.lf, zap.Error(err))...)
		}
	}
	if d.res.poison != "" {
		if err := d.m.Term(); err != nil {
			run.log.Warn("term failed", append(d.lf, zap.Error(err))...)
		}
		run.log.Warn("dead-lettered", append(d.lf, zap.String("reason", d.res.poison))...)
		return
	}
	if run.st.Origin && len(d.res.Out) > 0 {
		// Left unacked: the stage that stores the task's end acks it.
		return
	}
	if confirm {
		// Bounded: a lost ack only means a redelivery, which the stream
		// deduplicates, so do not hold the worker for long. Not cancelled
		// by Stop: the work is done, and Stop waits for it to be acked
		// rather than have it handled again after a restart.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), run.r.attemptTimeout())
		err = d.m.DoubleAck(actx)
		cancel()
	} else {
		// A plain Ack: the outputs are stored under their Nats-Msg-Ids,
		// so an ack lost on the way only means a redelivery whose outputs
		// the stream drops as duplicates (within the dedup window).
		// Waiting for the server to confirm it (DoubleAck) cost a round
		// trip per message and a fifth of the pipeline's throughput.
		err = d.m.Ack()
	}
	if err != nil {
		// The outputs are published; the redelivery will be deduplicated.
		run.log.Warn("ack failed", append(d.lf, zap.Error(err))...)
		return
	}
	if ce := run.log.Check(zap.DebugLevel, "handled"); ce != nil {
		ce.Write(append(d.lf, zap.Int("outputs", len(d.res.Out)))...)
	}
}

// originOf is the origin a delivery of this stage names: none when
// callers write the stage's input (a header there is theirs, and could
// name another caller's submission).
func (run *Running) originOf(h nats.Header) string {
	if run.st.Origin || run.st.CallerInput {
		return ""
	}
	return originOf(h)
}

// endOrigin settles the origin of d's input with body (ackOK, ackTerm);
// the origin stage's own input is its origin, settled as the input.
func (run *Running) endOrigin(d delivery, body string) {
	if run.st.Origin {
		return
	}
	if err := run.r.settleOrigin(d.origin, body); err != nil {
		run.log.Warn("origin not settled", append(d.lf, zap.Error(err))...)
	}
}

// deferAck publishes d's outputs, if any, and leaves its ack to
// ackDeferred; the worker goes on.
func (run *Running) deferAck(ctx context.Context, d delivery) {
	if len(d.res.Out) > 0 {
		if err := run.r.publishRetry(ctx, d.m, d.res.Out, run.log, d.lf); err != nil {
			delay := run.r.cfg.delay(d.n)
			run.log.Error("failed; redelivering", append(d.lf, zap.Duration("after", delay), zap.Error(err))...)
			_ = d.m.NakWithDelay(delay)
			return
		}
	}
	if !run.enter() {
		// Stopping: nobody would wait for the effect; the redelivery is
		// harmless (the handler recognises what it has seen).
		_ = d.m.Nak()
		return
	}
	go func() {
		defer run.wg.Done()
		ackDeferred(ctx, run.log, d.m, d.res.Defer, d.lf, run.r.cfg.keepAliveEvery())
	}()
}
