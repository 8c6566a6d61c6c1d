package pipeline

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/runtime"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Streams names the JetStream streams.
type Streams struct {
	// Submissions holds what callers publish, skillmatch.task.submitted
	// and .submitted.<caller>: the extractor's input, and what replay
	// reads. It is apart from Tasks so that nothing a caller sends (a
	// Nats-Msg-Id included: dedup ids are per stream) can reach the
	// stages' messages.
	Submissions string
	// Tasks holds the stages' messages about a task (extracted,
	// shortlisted, ranked), which only stages may publish.
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
	Submissions: "SUBMISSIONS", Tasks: "TASKS", Decisions: "DECISIONS", Outcomes: "OUTCOMES",
	DeadLetters: "DEADLETTER", Advisories: "SKILLMATCH_ADVISORIES",
}

// withDefaults names every stream left empty as DefaultStreams does.
func (s Streams) withDefaults() Streams {
	d := DefaultStreams
	for _, f := range []struct{ v, def *string }{{&s.Submissions, &d.Submissions}, {&s.Tasks, &d.Tasks},
		{&s.Decisions, &d.Decisions}, {&s.Outcomes, &d.Outcomes}, {&s.DeadLetters, &d.DeadLetters}, {&s.Advisories, &d.Advisories}} {
		if *f.v == "" {
			*f.v = *f.def
		}
	}
	return s
}

// StageDeadLetters is the durable name of the consumer that turns
// max-deliveries advisories into dead letters.
const StageDeadLetters = runtime.StageDeadLetters

// Config is the NATS side of the pipeline.
type Config struct {
	Streams Streams
	// The runner's settings (RuntimeConfig): what each means, its default
	// and how they must agree (runtime.Config.Validate) are in
	// runtime.Config. Duplicates is also the streams' deduplication window.
	MaxDeliver      int
	BackOff         []time.Duration
	MaxAckPending   int
	PullMaxMessages int
	PullExpiry      time.Duration
	MaxInFlight     int
	Workers         int
	Retry           time.Duration
	Duplicates      time.Duration
	// DeciderWorkers is how many deliveries the decider handles and
	// publishes at once (default DefaultDeciderWorkers; at least Workers):
	// each waits for synced writes (a delegation's follow-up record, the
	// decision), so one at a time would leave the disk idle between them.
	DeciderWorkers int
	// DeciderConcurrency is, with GroupCommit, how many deliveries each
	// decider worker handles at once (default
	// DefaultGroupDeciderConcurrency): a batch holds at most one write per
	// delivery waiting, and larger batches share an fsync more widely.
	DeciderConcurrency int
	// MatchingWorkers is how many deliveries the retriever and the
	// reranker each handle at once (default DefaultMatchingWorkers, the
	// process's GOMAXPROCS; at least Workers). Their work is CPU, and one
	// worker made the retriever the queue every flooded task waited in,
	// with a core idle under a synced server.
	MatchingWorkers int
	// ExtractorConcurrency is how many submissions the extractor handles
	// at once (default DefaultExtractorConcurrency): each waits a round
	// trip for its task-id record (a read of the decisions stream, which
	// waits behind its fsyncs on a synced server); their order does not
	// matter.
	ExtractorConcurrency int
	// GroupCommit stores what the deciders write at the same time (their
	// delegations' follow-up records, their decisions) in atomic batches,
	// one per stream, so that one fsync covers many (batch.Group): for a server
	// that syncs every write (sync_interval always; `skillmatch run
	// --sync-always`), where each message otherwise costs its stream an
	// fsync of its own. On the default store, which fsyncs in the
	// background, it only costs the batches' staging.
	GroupCommit bool
	// OriginAckWait is how long a submission waits for its task's
	// decision or dead letter before the extractor gets it again (default
	// DefaultOriginAckWait, at least BackOff[0]): the stage messages are
	// acked hop by hop and persisted, so a redelivered submission only
	// recovers a task whose stage messages a machine crash lost, or one
	// that waited that long behind a stopped stage (run again, decided
	// once). Shorter makes those recover sooner and a slow pipeline run
	// tasks twice.
	OriginAckWait time.Duration
	// Storage is the stream storage (default file).
	Storage jetstream.StorageType
	// TasksSynced writes the stage messages (Streams.Tasks) like the
	// other streams, each synced under sync_interval always. By default
	// the server flushes them to disk asynchronously (the stream's persist
	// mode "async"): they are derived from the submissions, which stay
	// unacked until the task's decision or dead letter is stored, so a
	// stage message a machine crash loses only means its task runs again
	// from its submission (README, "Durability"), while a synced one costs
	// an fsync per message. Replicated streams (Replicas > 1) cannot be
	// async; the server relaxes their syncing itself. A tasks stream that
	// exists keeps its persist mode (the server cannot change it).
	TasksSynced bool
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
	// Size caps of the streams callers publish into, directly or through
	// the stages (defaults DefaultTasksMaxBytes, DefaultDecisionsMaxBytes,
	// DefaultOutcomesMaxBytes; negative: none). A full stream refuses new
	// messages (the publisher gets the error) rather than dropping old
	// ones, so nothing acknowledged is lost; one message may be at most
	// MaxMessageBytes (MaxOutcomeBytes for outcomes).
	TasksMaxBytes     int64
	DecisionsMaxBytes int64
	OutcomesMaxBytes  int64
	// ModelBucket is the KV bucket of the model state (default
	// wire.BucketModel), created with the streams: the feedback stage
	// puts the posteriors there, the decider watches them.
	ModelBucket string
	// ExamplesBucket is the KV bucket of the examples catalogs learn from
	// trusted callers' verified successes (default wire.BucketExamples),
	// created with the streams: the feedback stage adds them, the stages
	// that build matchers index them.
	ExamplesBucket string
	// TaskIDsBucket is the KV bucket where earlier versions kept the
	// task ids in use and their decisions (default wire.BucketTaskIDs;
	// see TaskIDs): read, while it exists, for the tasks they decided, and
	// no longer created nor written (the decisions stream keeps the ids).
	// Its entries expire after the TasksMaxAge they were written with;
	// delete it then.
	TaskIDsBucket string
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
	// Callers is the directory of callers the extractor narrows each
	// task's claims with (nil: the zero-configuration mode, where only
	// the caller id comes from the subject).
	Callers *identity.Directory
	// Log receives one line per event, each with the task id.
	Log *zap.Logger
	// Observer is told about every delivery of every stage (metrics).
	Observer runtime.Observer
	// Tracer gives every delivery a span in its task's trace (nil: no
	// tracing; the W3C trace context still passes through untouched).
	Tracer trace.TracerProvider
}

func (c Config) withDefaults() Config {
	c.Streams = c.Streams.withDefaults()
	if c.Duplicates <= 0 {
		// The runner's default, which the streams need (the runner
		// applies its other defaults itself).
		c.Duplicates = runtime.DefaultConfig().Duplicates
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.DeciderWorkers <= 0 {
		c.DeciderWorkers = DefaultDeciderWorkers
	}
	if c.DeciderConcurrency <= 0 {
		c.DeciderConcurrency = DefaultGroupDeciderConcurrency
	}
	if c.ExtractorConcurrency <= 0 {
		c.ExtractorConcurrency = DefaultExtractorConcurrency
	}
	c.DeciderWorkers = max(c.DeciderWorkers, c.Workers)
	if c.MatchingWorkers <= 0 {
		c.MatchingWorkers = DefaultMatchingWorkers()
	}
	c.MatchingWorkers = max(c.MatchingWorkers, c.Workers)
	if c.OriginAckWait <= 0 {
		c.OriginAckWait = DefaultOriginAckWait
	}
	bo := c.BackOff
	if bo == nil {
		bo = runtime.DefaultConfig().BackOff
	}
	if len(bo) > 0 && c.OriginAckWait < bo[0] {
		c.OriginAckWait = bo[0]
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
	if c.TasksMaxBytes == 0 {
		c.TasksMaxBytes = DefaultTasksMaxBytes
	}
	if c.DecisionsMaxBytes == 0 {
		c.DecisionsMaxBytes = DefaultDecisionsMaxBytes
	}
	if c.OutcomesMaxBytes == 0 {
		c.OutcomesMaxBytes = DefaultOutcomesMaxBytes
	}
	if c.ModelBucket == "" {
		c.ModelBucket = wire.BucketModel
	}
	if c.TaskIDsBucket == "" {
		c.TaskIDsBucket = wire.BucketTaskIDs
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

// DefaultMatchingWorkers is Config.MatchingWorkers unless set: one per
// core the Go runtime uses (GOMAXPROCS), so that the matching stages can
// use every core; more replicas scale them further.
func DefaultMatchingWorkers() int { return goruntime.GOMAXPROCS(0) }

// Default retention; see Config.
const (
	DefaultTasksMaxAge         = 7 * 24 * time.Hour
	DefaultDeadLettersMaxAge   = 30 * 24 * time.Hour
	DefaultDeadLettersMaxBytes = 1 << 30
	DefaultTasksMaxBytes       = 4 << 30
	DefaultDecisionsMaxBytes   = 4 << 30
	DefaultOutcomesMaxBytes    = 1 << 30
	DefaultOriginAckWait       = 2 * time.Minute
	DefaultDeciderWorkers      = 4
	// DefaultGroupDeciderConcurrency is how many deliveries each decider
	// worker handles at once with GroupCommit: 256 in flight with the
	// default workers.
	DefaultGroupDeciderConcurrency = 64
	DefaultExtractorConcurrency    = 32
	// The caps reserve store space (TasksMaxBytes applies to the
	// submissions and to the tasks stream): with the dead letters' they
	// total 14 GiB, under deploy/nats' max_file_store of 20 GB.
	// MaxMessageBytes bounds one message of the tasks, decisions and dead
	// letters: a task is at most 256 KiB (task.DefaultLimits), a dead
	// letter carries at most 512 KiB of it.
	MaxMessageBytes = 1 << 20
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
		// TASKS first: a TASKS of an earlier version captured the
		// submissions too, and two streams may not share a subject.
		{Name: s.Tasks, Subjects: wire.SubjectsStages, Description: "skillmatch stage messages: extracted, shortlisted, ranked",
			MaxAge: limit(cfg.TasksMaxAge), MaxBytes: limit(cfg.TasksMaxBytes), Discard: jetstream.DiscardNew, MaxMsgSize: MaxMessageBytes},
		// Atomic batches (GroupCommit, client.PublishBatch) store many
		// submissions or decisions with one fsync.
		{Name: s.Submissions, Subjects: wire.SubjectsSubmitted, Description: "skillmatch tasks submitted by callers",
			MaxAge: limit(cfg.TasksMaxAge), MaxBytes: limit(cfg.TasksMaxBytes), Discard: jetstream.DiscardNew, MaxMsgSize: MaxMessageBytes,
			AllowAtomicPublish: true},
		{Name: s.Decisions, Subjects: []string{wire.SubjectDecisions}, Description: "skillmatch decisions",
			MaxBytes: limit(cfg.DecisionsMaxBytes), Discard: jetstream.DiscardNew, MaxMsgSize: MaxMessageBytes, AllowAtomicPublish: true},
		{Name: s.Outcomes, Subjects: wire.SubjectsOutcome, Description: "skillmatch outcomes reported by callers",
			MaxBytes: limit(cfg.OutcomesMaxBytes), Discard: jetstream.DiscardNew, MaxMsgSize: wire.MaxOutcomeBytes},
		{Name: s.DeadLetters, Subjects: []string{wire.SubjectDeadLetters}, Description: "skillmatch messages a stage could not process",
			MaxAge: limit(cfg.DeadLettersMaxAge), MaxBytes: limit(cfg.DeadLettersMaxBytes), Discard: jetstream.DiscardOld, MaxMsgSize: MaxMessageBytes},
		{Name: s.Advisories, Subjects: []string{advisory(s.Submissions), advisory(s.Tasks), advisory(s.Outcomes)},
			Description: "max-deliveries advisories of the skillmatch stages", MaxAge: 7 * 24 * time.Hour},
	}
	tasksPersist, err := tasksPersistMode(ctx, js, cfg)
	if err != nil {
		return err
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
		if sc.Name == s.Tasks {
			sc.PersistMode = tasksPersist
		}
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
	if err := setupExamples(ctx, js, cfg); err != nil {
		return err
	}
	return setupModel(ctx, js, cfg)
}

// tasksPersistMode is how the stage messages are written: flushed
// asynchronously unless TasksSynced, or the streams are in memory or
// replicated; a tasks stream that exists keeps its mode.
func tasksPersistMode(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.PersistModeType, error) {
	want := jetstream.AsyncPersistMode
	if cfg.TasksSynced || cfg.Storage != jetstream.FileStorage || cfg.Replicas > 1 {
		want = jetstream.DefaultPersistMode
	}
	s, err := js.Stream(ctx, cfg.Streams.Tasks)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return want, nil
	case err != nil:
		return 0, fmt.Errorf("pipeline: stream %s: %w", cfg.Streams.Tasks, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("pipeline: stream %s: %w", cfg.Streams.Tasks, err)
	}
	if got := info.Config.PersistMode; got != want {
		cfg.Log.Warn("the tasks stream keeps its persist mode; delete it while no task is in flight to change it",
			zap.String("stream", cfg.Streams.Tasks), zap.Stringer("mode", got), zap.Stringer("wanted", want))
	}
	return info.Config.PersistMode, nil
}

// RuntimeConfig is the runner's part of the config. The runner applies
// its defaults to the settings left zero.
// Validate checks that the settings agree with each other
// (runtime.Config.Validate): the redelivery schedule, the retry budget,
// the dedup window, and the idempotency records against the tasks'
// retention.
func (c Config) Validate() error { return c.RuntimeConfig().Validate() }

func (c Config) RuntimeConfig() runtime.Config {
	c = c.withDefaults()
	return runtime.Config{
		MaxDeliver: c.MaxDeliver, BackOff: c.BackOff, MaxAckPending: c.MaxAckPending,
		PullMaxMessages: c.PullMaxMessages, PullExpiry: c.PullExpiry, MaxInFlight: c.MaxInFlight,
		Workers: c.Workers, Retry: c.Retry, Duplicates: c.Duplicates, Log: c.Log, Observer: c.Observer, Tracer: c.Tracer,
		// The idempotency records are the decisions (TaskIDs), which the
		// decisions stream keeps without an age limit.
		Remember: -1, MaxAge: limit(c.TasksMaxAge),
	}
}

// Runner runs stages on JetStream (runtime.Runner) and knows the
// pipeline's advisories stream, for DeadLetterStage.
type Runner struct {
	*runtime.Runner
	advisories, tasks string
}

// NewRunner returns a runner; call SetupStreams first (or have an operator
// create the streams).
func NewRunner(js jetstream.JetStream, cfg Config) *Runner {
	cfg = cfg.withDefaults()
	return &Runner{Runner: runtime.NewRunner(js, cfg.RuntimeConfig()), advisories: cfg.Streams.Advisories, tasks: cfg.Streams.Tasks}
}

// DeadLetterStage turns the max-deliveries advisories of the pipeline's
// stages into dead letters (runtime.Runner.DeadLetterStage).
func (r *Runner) DeadLetterStage() Stage { return r.Runner.DeadLetterStage(r.advisories, r.tasks) }

// TaskIDOf reads the task id of any pipeline message, best effort
// (runtime.TaskIDOf).
func TaskIDOf(data []byte) string { return runtime.TaskIDOf(data) }
