package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Streams names the JetStream streams.
type Streams struct {
	// Tasks holds skillmatch.task.> (submitted, extracted, shortlisted,
	// ranked): the whole path of every task, replayable.
	Tasks string
	// Decisions holds skillmatch.decision.>.
	Decisions string
	// Outcomes holds skillmatch.outcome.
	Outcomes string
	// DeadLetters holds skillmatch.deadletter.>.
	DeadLetters string
	// Advisories captures the max-deliveries advisories of the stage
	// consumers, so that a message that exhausted its deliveries reaches
	// the dead letters even if no dead-letter watcher was running then.
	Advisories string
}

// DefaultStreams are the stream names unless configured.
var DefaultStreams = Streams{
	Tasks: "TASKS", Decisions: "DECISIONS", Outcomes: "OUTCOMES",
	DeadLetters: "DEADLETTER", Advisories: "SKILLMATCH_ADVISORIES",
}

// StageDeadLetters is the durable name of the consumer that turns
// max-deliveries advisories into dead letters.
const StageDeadLetters = "deadletters"

// Config is the NATS side of the pipeline.
type Config struct {
	Streams Streams
	// MaxDeliver is how often a message is delivered before it is given up
	// (and dead-lettered). Default 5.
	MaxDeliver int
	// BackOff are the redelivery delays; BackOff[0] is also the ack wait
	// of the first delivery (JetStream replaces AckWait with it), so it
	// must exceed the time a message can wait in the client buffer plus
	// its processing. Must be shorter than MaxDeliver. Default 30s, 1m,
	// 2m, 5m.
	BackOff []time.Duration
	// MaxAckPending bounds the unacknowledged messages of one consumer
	// (default 1,000).
	MaxAckPending int
	// PullMaxMessages is how many messages a worker buffers (default 64).
	PullMaxMessages int
	// PullExpiry is how long a worker's pull request lives (default 5 s).
	// The client notices a pull request the server lost only when two of
	// its heartbeats (every PullExpiry/2) go missing, so this bounds how
	// long a stage can sit idle with messages waiting; the nats.go default
	// (30 s) let a loaded machine stall a stage for half a minute.
	PullExpiry time.Duration
	// MaxInFlight bounds, per stage, the handled messages whose outputs
	// wait to be published (default 256). A stage's workers only match;
	// a few publishers per stage publish the outputs and ack the input
	// once the stream has stored them, so a worker goes on to the next
	// message instead of waiting two round trips; a worker blocks when
	// the bound is reached. 1 or less: the workers publish themselves.
	MaxInFlight int
	// Workers is how many concurrent workers each stage runs on its
	// durable consumer (default 1); replicas in other processes add more.
	Workers int
	// Retry is how long a delivery retries a transient error in process
	// (exponential backoff) before it is Nak'd. Default 2 s.
	Retry time.Duration
	// Duplicates is the streams' deduplication window (default 2 min): a
	// redelivery within it never publishes a second output. A redelivery
	// later than that (only when an output was published but its input's
	// ack was lost, and then lost again on every delivery) would publish a
	// second one: keep it above BackOff[0] at least, and weigh its memory
	// (one entry per message in the window) against the rest of BackOff.
	Duplicates time.Duration
	// Storage is the stream storage (default file).
	Storage jetstream.StorageType
	// Replicas of each stream (default 1).
	Replicas int
	// CatalogBucket is the KV bucket of the card catalog (default
	// wire.BucketCatalog), created with the streams.
	CatalogBucket string
	// Retention. TasksMaxAge is how long the tasks stream keeps a task's
	// messages (default 7 days): long enough to replay a week and to ride
	// out any backlog, bounded so the store does not grow forever. It must
	// exceed the longest a task can wait for a stage, or the task is
	// dropped unprocessed. DeadLettersMaxAge (default 30 days) and
	// DeadLettersMaxBytes (default 1 GiB, oldest discarded first: each dead
	// letter can carry 512 KiB of payload, so a flood of oversized tasks
	// must not fill the disk) bound the dead letters. Decisions and
	// outcomes are kept without limit: the feedback refit and replay's
	// eval figures read them. A negative value means no limit.
	TasksMaxAge         time.Duration
	DeadLettersMaxAge   time.Duration
	DeadLettersMaxBytes int64
	// ModelBucket is the KV bucket of the model state (default
	// wire.BucketModel), created with the streams: the feedback stage
	// puts the posteriors there, the decider watches them.
	ModelBucket string
	// Followups is the decider's follow-up bucket (FollowupConfig),
	// created with the streams.
	Followups FollowupConfig
	// Ties is the decider's near-tie treatment (nil:
	// decide.DefaultTieConfig, which explores); TieSeed seeds its per-task
	// random source (0: DefaultTieSeed).
	Ties    *decide.TieConfig
	TieSeed uint64
	// FeedbackEvery: the feedback stage publishes the posteriors after
	// this many counted outcomes (default 50), and FeedbackInterval after
	// it counted any (default 10 s).
	FeedbackEvery    int
	FeedbackInterval time.Duration
	// RefitInterval is how often the feedback stage refits the
	// calibration from the latest RefitWindow decisions and outcomes
	// (defaults DefaultRefitInterval, DefaultRefitWindow; negative: never)
	// and puts it in the model bucket when it is no worse on a held-out
	// slice.
	RefitInterval time.Duration
	RefitWindow   int
	// Log receives one line per event, each with the task id.
	Log *zap.Logger
}

func (c Config) withDefaults() Config {
	if c.Streams == (Streams{}) {
		c.Streams = DefaultStreams
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 5
	}
	if c.BackOff == nil {
		c.BackOff = []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute}
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 1000
	}
	if c.PullMaxMessages <= 0 {
		c.PullMaxMessages = 64
	}
	if c.PullExpiry <= 0 {
		c.PullExpiry = 5 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 256
	}
	if c.Retry <= 0 {
		c.Retry = 2 * time.Second
	}
	if c.Duplicates <= 0 {
		c.Duplicates = 2 * time.Minute
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.CatalogBucket == "" {
		c.CatalogBucket = wire.BucketCatalog
	}
	if c.TasksMaxAge == 0 {
		c.TasksMaxAge = DefaultTasksMaxAge
	}
	if c.DeadLettersMaxAge == 0 {
		c.DeadLettersMaxAge = DefaultDeadLettersMaxAge
	}
	if c.DeadLettersMaxBytes == 0 {
		c.DeadLettersMaxBytes = DefaultDeadLettersMaxBytes
	}
	if c.ModelBucket == "" {
		c.ModelBucket = wire.BucketModel
	}
	if c.Ties == nil {
		t := decide.DefaultTieConfig
		c.Ties = &t
	}
	if c.TieSeed == 0 {
		c.TieSeed = DefaultTieSeed
	}
	if c.FeedbackEvery <= 0 {
		c.FeedbackEvery = DefaultFeedbackEvery
	}
	if c.FeedbackInterval <= 0 {
		c.FeedbackInterval = DefaultFeedbackInterval
	}
	if c.RefitInterval == 0 {
		c.RefitInterval = DefaultRefitInterval
	}
	if c.RefitWindow <= 0 {
		c.RefitWindow = DefaultRefitWindow
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	return c
}

// Default retention; see Config.
const (
	DefaultTasksMaxAge         = 7 * 24 * time.Hour
	DefaultDeadLettersMaxAge   = 30 * 24 * time.Hour
	DefaultDeadLettersMaxBytes = 1 << 30
)

// limit turns a configured retention (negative = none) into the stream's
// value (0 = none).
func limit[T time.Duration | int64](v T) T {
	if v < 0 {
		return 0
	}
	return v
}

// SetupStreams creates the streams and the catalog bucket, or updates
// them to this config.
func SetupStreams(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	cfg = cfg.withDefaults()
	s := cfg.Streams
	advisory := func(stream string) string {
		return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + stream + ".*"
	}
	streams := []jetstream.StreamConfig{
		{Name: s.Tasks, Subjects: []string{wire.SubjectTasks}, Description: "skillmatch tasks: submitted, extracted, shortlisted, ranked",
			MaxAge: limit(cfg.TasksMaxAge)},
		{Name: s.Decisions, Subjects: []string{wire.SubjectDecisions}, Description: "skillmatch decisions"},
		{Name: s.Outcomes, Subjects: []string{wire.SubjectOutcome}, Description: "skillmatch outcomes reported by callers"},
		{Name: s.DeadLetters, Subjects: []string{wire.SubjectDeadLetters}, Description: "skillmatch messages a stage could not process",
			MaxAge: limit(cfg.DeadLettersMaxAge), MaxBytes: limit(cfg.DeadLettersMaxBytes), Discard: jetstream.DiscardOld},
		{Name: s.Advisories, Subjects: []string{advisory(s.Tasks), advisory(s.Outcomes)},
			Description: "max-deliveries advisories of the skillmatch stages", MaxAge: 7 * 24 * time.Hour},
	}
	for _, sc := range streams {
		sc.Duplicates = cfg.Duplicates
		if sc.MaxAge > 0 && sc.Duplicates > sc.MaxAge {
			sc.Duplicates = sc.MaxAge // the server refuses a window longer than the stream keeps messages
		}
		if sc.MaxBytes == 0 {
			sc.MaxBytes = -1
		}
		sc.Storage = cfg.Storage
		sc.Replicas = cfg.Replicas
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("pipeline: stream %s: %w", sc.Name, err)
		}
	}
	if err := setupCatalog(ctx, js, cfg); err != nil {
		return err
	}
	if err := setupFollowups(ctx, js, cfg); err != nil {
		return err
	}
	return setupModel(ctx, js, cfg)
}

// Stage is one consumer of the pipeline.
type Stage struct {
	// Name is the durable consumer name and the dead-letter suffix.
	Name   string
	Stream string
	// Filter is the consumer's filter subject ("" = the whole stream).
	Filter string
	Handle Handler
	// Ready, when set, says whether the stage's dependencies can serve
	// (the retriever's index). A delivery that fails with an error
	// wrapping index.ErrUnavailable is then held: not retried, not Nak'd
	// (a long outage would exhaust MaxDeliver and dead-letter good tasks),
	// but parked with the deliveries that follow it and kept alive with
	// InProgress while Ready is polled; once Ready answers, they are
	// handled in order. See Running.Ready.
	Ready func(ctx context.Context) error
}

// StageSpecs lists the matching stages and the feedback stage.
func (s *Stages) StageSpecs(streams Streams) []Stage {
	if streams == (Streams{}) {
		streams = DefaultStreams
	}
	fb := Feedback
	if s.feedbackH != nil {
		fb = s.feedbackH.Handle
	}
	return []Stage{
		{Name: StageExtractor, Stream: streams.Tasks, Filter: wire.SubjectSubmitted, Handle: s.Extract},
		{Name: StageRetriever, Stream: streams.Tasks, Filter: wire.SubjectExtracted, Handle: s.Retrieve, Ready: s.Ready},
		{Name: StageReranker, Stream: streams.Tasks, Filter: wire.SubjectShortlisted, Handle: s.Rerank},
		{Name: StageDecider, Stream: streams.Tasks, Filter: wire.SubjectRanked, Handle: s.Decide},
		{Name: StageFeedback, Stream: streams.Outcomes, Filter: wire.SubjectOutcome, Handle: fb},
	}
}

// Runner runs stages on JetStream.
type Runner struct {
	js  jetstream.JetStream
	cfg Config
	log *zap.Logger
	now func() time.Time
}

// NewRunner returns a runner; call SetupStreams first (or have an operator
// create the streams).
func NewRunner(js jetstream.JetStream, cfg Config) *Runner {
	cfg = cfg.withDefaults()
	return &Runner{js: js, cfg: cfg, log: cfg.Log, now: time.Now}
}

// Running is a started stage.
type Running struct {
	name     string
	cancel   context.CancelFunc
	ccs      []jetstream.ConsumeContext
	mu       sync.Mutex // guards stopping and wg.Add
	stopping bool
	wg       sync.WaitGroup
	once     sync.Once
	// pending carries handled messages to the stage's publishers (nil:
	// the workers publish themselves).
	pending chan inflight
	acked   chan struct{} // closed when the publishers have finished
	hold    *holding      // nil: the stage has no Ready
}

// inflight is a handled message waiting for its outputs to be published.
type inflight struct {
	m    jetstream.Msg
	outs []Output
	lf   []zap.Field
	n    uint64 // deliveries
}

// enter registers a message being handled; false once stopping.
func (r *Running) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping {
		return false
	}
	r.wg.Add(1)
	return true
}

// Name is the stage name.
func (r *Running) Name() string { return r.name }

// Ready says whether the stage is handling deliveries: false while it
// holds them because a dependency is unavailable (Stage.Ready).
func (r *Running) Ready() bool { return r.hold == nil || !r.hold.isHeld() }

// Stop stops consuming and waits for the messages being handled. Messages
// the workers had buffered but not handled are redelivered after the ack
// wait.
func (r *Running) Stop() {
	r.once.Do(func() {
		r.mu.Lock()
		r.stopping = true
		r.mu.Unlock()
		r.cancel()
		for _, cc := range r.ccs {
			cc.Stop()
		}
		for _, cc := range r.ccs {
			<-cc.Closed()
		}
		r.wg.Wait()
		if r.pending != nil {
			close(r.pending)
			<-r.acked
		}
	})
}

// Start creates (or updates) the stage's durable pull consumer and starts
// its workers.
func (r *Runner) Start(ctx context.Context, st Stage) (*Running, error) {
	stream, err := r.js.Stream(ctx, st.Stream)
	if err != nil {
		return nil, fmt.Errorf("pipeline: stage %s: stream %s: %w", st.Name, st.Stream, err)
	}
	cc := jetstream.ConsumerConfig{
		Durable: st.Name, Description: "skillmatch " + st.Name, FilterSubject: st.Filter,
		AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver: r.cfg.MaxDeliver, BackOff: r.cfg.BackOff, MaxAckPending: r.cfg.MaxAckPending,
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("pipeline: stage %s: consumer: %w", st.Name, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	run := &Running{name: st.Name, cancel: cancel}
	if st.Ready != nil {
		run.hold = &holding{}
	}
	log := r.log.With(zap.String("stage", st.Name))
	if r.cfg.MaxInFlight > 1 {
		run.pending, run.acked = make(chan inflight, r.cfg.MaxInFlight), make(chan struct{})
		go r.publishers(log, run)
	}
	for w := 0; w < r.cfg.Workers; w++ {
		c, err := cons.Consume(func(m jetstream.Msg) {
			if !run.enter() {
				return // stopping: left for redelivery
			}
			defer run.wg.Done()
			if run.hold != nil && run.hold.park(m) {
				return // held until the stage is ready again
			}
			r.handle(runCtx, log, st, run, m)
		}, jetstream.PullMaxMessages(r.cfg.PullMaxMessages), jetstream.PullExpiry(r.cfg.PullExpiry),
			jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
				if runCtx.Err() == nil {
					log.Warn("consume", zap.String("task_id", ""), zap.Error(err))
				}
			}))
		if err != nil {
			run.Stop()
			return nil, fmt.Errorf("pipeline: stage %s: consume: %w", st.Name, err)
		}
		run.ccs = append(run.ccs, c)
	}
	log.Info("stage started", zap.String("task_id", ""), zap.String("stream", st.Stream), zap.String("filter", st.Filter),
		zap.Int("workers", r.cfg.Workers))
	return run, nil
}

// handle runs the handler on one delivery: publish its outputs, then ack;
// bad input goes to the dead letters and is terminated; a transient error
// is retried in process, then Nak'd with the consumer's backoff.
func (r *Runner) handle(ctx context.Context, log *zap.Logger, st Stage, run *Running, m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		log.Error("no metadata", zap.String("task_id", ""), zap.Error(err))
		_ = m.Term()
		return
	}
	seq, deliveries := md.Sequence.Stream, md.NumDelivered
	var res Result
	op := func() (err error) {
		defer func() {
			// A handler that panics on some input must not take the stage
			// down with it: the delivery fails like a transient error, and
			// after MaxDeliver the message reaches the dead letters.
			if p := recover(); p != nil {
				err = fmt.Errorf("handler panic: %v", p)
			}
		}()
		res, err = st.Handle(ctx, Msg{Subject: m.Subject(), Data: m.Data()})
		if err != nil {
			if errors.Is(err, ErrBadInput) || run.hold != nil && errors.Is(err, index.ErrUnavailable) {
				return backoff.Permanent(err)
			}
			return err
		}
		if run.pending != nil && len(res.Out) > 0 {
			// Published asynchronously below.
			return nil
		}
		return r.publish(ctx, res.Out)
	}
	notify := func(err error) {
		log.Warn("retrying", zap.String("task_id", res.TaskID), zap.Uint64("seq", seq), zap.Error(err))
	}
	err = r.retry(ctx, m, op, notify)
	lf := []zap.Field{zap.String("task_id", res.TaskID), zap.Uint64("seq", seq), zap.Uint64("delivery", deliveries)}
	if err == nil && res.Defer != nil && run.enter() {
		go func() {
			defer run.wg.Done()
			r.ackDeferred(ctx, log, m, res.Defer, lf)
		}()
		return
	}
	if err == nil && run.pending != nil && len(res.Out) > 0 {
		// Published and acked by the stage's publishers; blocks while
		// MaxInFlight messages are waiting for them.
		run.pending <- inflight{m: m, outs: res.Out, lf: lf, n: deliveries}
		return
	}
	switch {
	case err == nil:
		// Bounded: a lost ack only means a redelivery, which the stream
		// deduplicates, so do not hold the worker for long.
		actx, cancel := context.WithTimeout(ctx, max(r.cfg.Retry/4, 200*time.Millisecond))
		err := m.DoubleAck(actx)
		cancel()
		if err != nil {
			// The outputs are published; the redelivery will be deduplicated.
			log.Warn("ack failed", append(lf, zap.Error(err))...)
			return
		}
		log.Debug("handled", append(lf, zap.Int("outputs", len(res.Out)))...)
	case errors.Is(err, ErrBadInput):
		dl := wire.NewDeadLetter(st.Name, err.Error(), m.Subject(), m.Data(), r.now().UTC())
		dl.TaskID, dl.Stream, dl.StreamSeq, dl.Deliveries = res.TaskID, md.Stream, seq, deliveries
		if err := r.deadLetter(ctx, m, dl); err != nil {
			log.Error("dead letter not published; will retry", append(lf, zap.Error(err))...)
			_ = m.NakWithDelay(r.delay(deliveries))
			return
		}
		if err := m.Term(); err != nil {
			log.Warn("term failed", append(lf, zap.Error(err))...)
		}
		log.Warn("dead-lettered", append(lf, zap.String("reason", dl.Reason))...)
	case ctx.Err() != nil:
		_ = m.Nak() // stopping: let another worker have it now
	case run.hold != nil && errors.Is(err, index.ErrUnavailable):
		r.holdFrom(ctx, log, st, run, m, err, lf)
	default:
		d := r.delay(deliveries)
		log.Error("failed; redelivering", append(lf, zap.Duration("after", d), zap.Error(err))...)
		_ = m.NakWithDelay(d)
	}
}

// ackDeferred acks m once its handler's effect is durable (see
// Result.Defer), or Naks it when that fails or the stage stops: the
// redelivery is harmless, the handler recognises what it has seen.
func (r *Runner) ackDeferred(ctx context.Context, log *zap.Logger, m jetstream.Msg, done <-chan error, lf []zap.Field) {
	// Keep the delivery alive while waiting: the ack wait may be shorter
	// than the time the effect takes to become durable.
	keepAlive := time.NewTicker(r.keepAliveEvery())
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

// publishers publish the outputs of handled messages and ack them, so
// that the workers go on matching instead of waiting for the stream's
// round trips. Each output is published synchronously (with the same
// retries as on the worker) and the input acked only after every output is
// stored, so exactly-once holds as before: a redelivery republishes under
// the same Nats-Msg-Id and the stream drops the duplicate. If the outputs
// cannot be published within the retry budget the input is Nak'd for
// redelivery. A stopping stage still finishes what it has taken.
func (r *Runner) publishers(log *zap.Logger, run *Running) {
	var wg sync.WaitGroup
	for range publishersPerStage {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range run.pending {
				ctx, cancel := context.WithTimeout(context.Background(), r.cfg.Retry)
				err := r.retry(ctx, p.m, func() error { return r.publish(ctx, p.outs) }, func(err error) {
					log.Warn("retrying", append(p.lf, zap.Error(err))...)
				})
				if err != nil {
					cancel()
					d := r.delay(p.n)
					log.Error("failed; redelivering", append(p.lf, zap.Duration("after", d), zap.Error(err))...)
					_ = p.m.NakWithDelay(d)
					continue
				}
				// A plain Ack: the outputs are stored under their
				// Nats-Msg-Ids, so an ack lost on the way only means a
				// redelivery whose outputs the stream drops as duplicates
				// (within Config.Duplicates). Waiting for the server to
				// confirm it (DoubleAck) cost a round trip per message and
				// a fifth of the pipeline's throughput.
				err = p.m.Ack()
				cancel()
				if err != nil {
					log.Warn("ack failed", append(p.lf, zap.Error(err))...)
					continue
				}
				if ce := log.Check(zap.DebugLevel, "handled"); ce != nil {
					ce.Write(append(p.lf, zap.Int("outputs", len(p.outs)))...)
				}
			}
		}()
	}
	wg.Wait()
	close(run.acked)
}

// publishersPerStage is how many publishers each stage runs. One is enough
// to take the round trips off the workers (+25-30% tasks/s on the 2-core
// benchmark); more gave nothing measurable there, where the CPU is the
// limit.
const publishersPerStage = 1

// retry runs op with exponential backoff for up to cfg.Retry, telling the
// server the message is in progress before each new attempt.
func (r *Runner) retry(ctx context.Context, m jetstream.Msg, op func() error, notify func(error)) error {
	eb := backoff.NewExponentialBackOff()
	eb.InitialInterval = 20 * time.Millisecond
	eb.MaxInterval = r.cfg.Retry / 4
	eb.MaxElapsedTime = r.cfg.Retry
	return backoff.RetryNotify(op, backoff.WithContext(eb, ctx), func(err error, _ time.Duration) {
		if m != nil {
			_ = m.InProgress()
		}
		notify(err)
	})
}

// publish publishes outputs, each attempt bounded to a quarter of the
// retry budget so that an attempt lost in a reconnect leaves time to retry.
func (r *Runner) publish(ctx context.Context, outs []Output) error {
	for _, o := range outs {
		pctx, cancel := context.WithTimeout(ctx, max(r.cfg.Retry/4, 200*time.Millisecond))
		_, err := r.js.Publish(pctx, o.Subject, o.Data, jetstream.WithMsgID(o.MsgID))
		cancel()
		if err != nil {
			return fmt.Errorf("publish %s: %w", o.Subject, err)
		}
	}
	return nil
}

func (r *Runner) deadLetter(ctx context.Context, m jetstream.Msg, dl *wire.DeadLetter) error {
	data, err := json.Marshal(dl)
	if err != nil {
		return err
	}
	out := []Output{{Subject: wire.SubjectDeadLetter(dl.Stage), Data: data,
		MsgID: "dl/" + dl.Stage + "/" + dl.Stream + "/" + strconv.FormatUint(dl.StreamSeq, 10)}}
	return r.retry(ctx, m, func() error { return r.publish(ctx, out) }, func(error) {})
}

// delay is the redelivery delay after the n-th delivery failed.
func (r *Runner) delay(n uint64) time.Duration {
	b := r.cfg.BackOff
	if len(b) == 0 {
		return time.Second
	}
	i := int(n) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(b) {
		i = len(b) - 1
	}
	return b[i]
}

// maxDeliveries is the server's max-deliveries advisory.
type maxDeliveries struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// DeadLetterStage turns max-deliveries advisories into dead letters that
// carry the original message, fetched from its stream by sequence.
func (r *Runner) DeadLetterStage() Stage {
	return Stage{Name: StageDeadLetters, Stream: r.cfg.Streams.Advisories, Handle: r.fromAdvisory}
}

func (r *Runner) fromAdvisory(ctx context.Context, in Msg) (Result, error) {
	var a maxDeliveries
	if err := json.Unmarshal(in.Data, &a); err != nil || a.Stream == "" || a.Consumer == "" {
		return Result{}, badInput(fmt.Errorf("advisory on %s: cannot read it (%v)", in.Subject, err))
	}
	reason := fmt.Sprintf("gave up after %d deliveries (max-deliveries advisory); see the stage's log for the errors", a.Deliveries)
	var subject string
	var payload []byte
	stream, err := r.js.Stream(ctx, a.Stream)
	if err != nil {
		return Result{}, err
	}
	orig, err := stream.GetMsg(ctx, a.StreamSeq)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		reason += "; the original is no longer in the stream"
	case err != nil:
		return Result{}, err
	default:
		subject, payload = orig.Subject, orig.Data
	}
	dl := wire.NewDeadLetter(a.Consumer, reason, subject, payload, r.now().UTC())
	dl.TaskID, dl.Stream, dl.StreamSeq, dl.Deliveries = TaskIDOf(payload), a.Stream, a.StreamSeq, a.Deliveries
	data, err := json.Marshal(dl)
	if err != nil {
		return Result{}, badInput(err)
	}
	return Result{TaskID: dl.TaskID, Out: []Output{{Subject: wire.SubjectDeadLetter(a.Consumer), Data: data,
		MsgID: "dl/" + a.Consumer + "/" + a.Stream + "/" + strconv.FormatUint(a.StreamSeq, 10)}}}, nil
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
		return ""
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
