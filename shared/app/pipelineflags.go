package app

import (
	"flag"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// PipelineFlags configure the stages, streams and buckets: the same flags
// on `skillmatch run` and on every service.
type PipelineFlags struct {
	Streams             pipeline.Streams
	CatalogBucket       string
	ExamplesBucket      string
	ModelBucket         string
	FollowupBucket      string
	FollowupTTL         time.Duration
	TasksMaxAge         time.Duration
	DeadLettersMaxAge   time.Duration
	DeadLettersMaxBytes int64
	TasksMaxBytes       int64
	DecisionsMaxBytes   int64
	OutcomesMaxBytes    int64
	TasksSynced         bool
	GroupCommit         bool
	OriginAckWait       time.Duration
	Workers             int
	MatchingWorkers     int
	MaxInFlight         int
	MaxDeliver          int
	BackOff             string
	Retry               time.Duration
	TieEpsilon          float64
	Explore             float64
	TieSeed             uint64
	FeedbackEvery       int
	FeedbackInterval    time.Duration
	RefitInterval       time.Duration
	RefitWindow         int
	LogLevel            string
	HealthListen        string
	Callers             string
	OTLPEndpoint        string
}

// PipelineFlagNames are the flags Register defines.
var PipelineFlagNames = []string{"stream-submissions", "stream-tasks", "stream-decisions", "stream-outcomes", "stream-deadletters", "stream-advisories",
	"catalog-bucket", "examples-bucket", "model-bucket", "followup-bucket", "followup-ttl", "tasks-max-age", "deadletters-max-age", "deadletters-max-bytes",
	"tasks-max-bytes", "decisions-max-bytes", "outcomes-max-bytes", "tasks-synced", "group-commit", "origin-ack-wait",
	"workers", "matching-workers", "max-in-flight", "max-deliver", "backoff", "retry", "tie-epsilon", "explore", "tie-seed",
	"feedback-every", "feedback-interval", "refit-interval", "refit-window", "log-level", "health-listen", "callers", "otlp-endpoint"}

// Register defines the pipeline flags on fs.
func (p *PipelineFlags) Register(fs *flag.FlagSet) {
	def := pipeline.DefaultStreams
	fs.StringVar(&p.Streams.Submissions, "stream-submissions", def.Submissions, "stream of the tasks callers submit")
	fs.StringVar(&p.Streams.Tasks, "stream-tasks", def.Tasks, "stream of the stages' messages about tasks")
	fs.StringVar(&p.Streams.Decisions, "stream-decisions", def.Decisions, "decisions stream")
	fs.StringVar(&p.Streams.Outcomes, "stream-outcomes", def.Outcomes, "outcomes stream")
	fs.StringVar(&p.Streams.DeadLetters, "stream-deadletters", def.DeadLetters, "dead-letter stream")
	fs.StringVar(&p.Streams.Advisories, "stream-advisories", def.Advisories, "stream capturing the max-deliveries advisories")
	fs.StringVar(&p.CatalogBucket, "catalog-bucket", wire.BucketCatalog, "KV bucket of the card catalog the retriever, reranker and decider watch\n"+
		"(fill it with `skillmatch cards add`)")
	fs.StringVar(&p.ExamplesBucket, "examples-bucket", wire.BucketExamples, "KV bucket of the examples each catalog learns from trusted callers' verified successes:\n"+
		"the feedback stage adds them, the retriever, reranker and decider index them (see `skillmatch examples`)")
	fs.StringVar(&p.ModelBucket, "model-bucket", wire.BucketModel, "KV bucket of the model state: the feedback stage puts the posteriors and the refitted\n"+
		"calibration there; the decider and the reranker watch them")
	fs.StringVar(&p.FollowupBucket, "followup-bucket", wire.BucketTasks, "decider: KV bucket recording delegations, so that a task continuing another\n"+
		"(message.taskId) keeps its agent, skill and context")
	fs.DurationVar(&p.FollowupTTL, "followup-ttl", pipeline.DefaultFollowupTTL, "when the streams are set up: how long a delegated task can be continued; negative: forever")
	fs.DurationVar(&p.TasksMaxAge, "tasks-max-age", pipeline.DefaultTasksMaxAge, "when the streams are set up: how long the submissions and tasks streams keep tasks (the\n"+
		"replay range; must exceed any backlog; the decisions, which keep each task decided once, are\n"+
		"kept whatever it is); negative: forever")
	fs.DurationVar(&p.DeadLettersMaxAge, "deadletters-max-age", pipeline.DefaultDeadLettersMaxAge, "when the streams are set up: how long the dead-letter stream keeps dead letters; negative: forever")
	fs.Int64Var(&p.DeadLettersMaxBytes, "deadletters-max-bytes", pipeline.DefaultDeadLettersMaxBytes, "when the streams are set up: size cap of the dead-letter stream, oldest dropped first; negative: none")
	fs.Int64Var(&p.TasksMaxBytes, "tasks-max-bytes", pipeline.DefaultTasksMaxBytes, "when the streams are set up: size cap of the submissions and of the tasks stream; when full, new tasks are refused\n"+
		"(the publisher gets the error), never old ones dropped; negative: none")
	fs.Int64Var(&p.DecisionsMaxBytes, "decisions-max-bytes", pipeline.DefaultDecisionsMaxBytes, "when the streams are set up: size cap of the decisions stream (full: refuses new; it is every task id's exactly-once record, so raise it rather than purge); negative: none")
	fs.Int64Var(&p.OutcomesMaxBytes, "outcomes-max-bytes", pipeline.DefaultOutcomesMaxBytes, "when the streams are set up: size cap of the outcomes stream (full: refuses new); negative: none")
	fs.BoolVar(&p.TasksSynced, "tasks-synced", false, "when the streams are set up: write the stage messages (the tasks stream) like every other message;\n"+
		"by default the server flushes them in the background (persist mode async): a task whose stage\n"+
		"messages a crash loses runs again from its submission, which stays unacknowledged until the\n"+
		"task's decision or dead letter is stored (README, Durability)")
	fs.BoolVar(&p.GroupCommit, "group-commit", false, "decider: store the follow-up records and the decisions (each its task's one record) of the\n"+
		"tasks decided at the same time in one atomic batch per stream (one fsync for many): for a server that syncs every write\n"+
		"(sync_interval always, as deploy/nats and run --sync-always configure it); the streams allow it")
	fs.DurationVar(&p.OriginAckWait, "origin-ack-wait", pipeline.DefaultOriginAckWait, "extractor: how long a submission waits for its task's decision or dead letter before\n"+
		"it is delivered again and the task runs again (decided once): what a crash that loses stage\n"+
		"messages costs the tasks in flight")
	fs.IntVar(&p.Workers, "workers", 1, "concurrent workers per stage on its durable consumer")
	fs.IntVar(&p.MatchingWorkers, "matching-workers", 0, "retriever, reranker: deliveries each handles at once (their work is CPU); 0: one per core\n"+
		"(GOMAXPROCS), at least --workers")
	fs.IntVar(&p.MaxInFlight, "max-in-flight", 256, "handled messages waiting for the stage's publisher; 1: the workers publish themselves")
	fs.IntVar(&p.MaxDeliver, "max-deliver", 5, "deliveries before a message is dead-lettered")
	fs.StringVar(&p.BackOff, "backoff", "30s,1m,2m,5m", "redelivery delays, comma-separated; the first is also the ack wait")
	fs.DurationVar(&p.Retry, "retry", 2*time.Second, "in-process retry budget for a transient error before a Nak")
	fs.Float64Var(&p.TieEpsilon, "tie-epsilon", decide.DefaultTieConfig.Epsilon, "decider: candidates within this calibrated probability of the best are near-ties,\n"+
		"ordered by success rate, latency, cost")
	fs.Float64Var(&p.Explore, "explore", decide.DefaultTieConfig.Explore, "decider: probability of picking a random near-tie first (recorded on the decision); 0: never")
	fs.Uint64Var(&p.TieSeed, "tie-seed", pipeline.DefaultTieSeed, "decider: seed of the per-task tie-break random source (same seed and task id, same draw)")
	fs.IntVar(&p.FeedbackEvery, "feedback-every", pipeline.DefaultFeedbackEvery, "feedback: publish the posteriors after this many counted outcomes")
	fs.DurationVar(&p.FeedbackInterval, "feedback-interval", pipeline.DefaultFeedbackInterval, "feedback: publish the posteriors this often while outcomes come in")
	fs.DurationVar(&p.RefitInterval, "refit-interval", pipeline.DefaultRefitInterval, "feedback: refit the calibration this often from the latest decisions and labelled\n"+
		"outcomes; published only when no worse on a held-out slice, and the reranker loads it at once; negative: never")
	fs.IntVar(&p.RefitWindow, "refit-window", pipeline.DefaultRefitWindow, "feedback: how many of the latest decisions and outcomes a refit reads")
	fs.StringVar(&p.LogLevel, "log-level", "info", "log level: debug (one line per message), info, warn, error")
	fs.StringVar(&p.Callers, "callers", "", "extractor: directory of callers (JSON: tenant, scopes, data-class floor, trusted per caller id):\n"+
		"a task's caller is the subject it arrived on, and its payload may only narrow these; empty: payload claims\n"+
		"other than the caller id are taken as given (loopback development)")
	fs.StringVar(&p.OTLPEndpoint, "otlp-endpoint", "", "send each delivery's span (W3C traceparent carried across the stages) to this OTLP/HTTP\n"+
		"collector, e.g. http://127.0.0.1:4318; empty: no tracing")
	fs.StringVar(&p.HealthListen, "health-listen", "", "serve /healthz (running, NATS connected) and /readyz (catalog loaded, no stage\n"+
		"holding its deliveries) on this address, e.g. :8081; empty: off")
}

// Config is the pipeline configuration the flags give.
func (p *PipelineFlags) Config() (pipeline.Config, error) {
	if err := firstError(checkListen("--health-listen", p.HealthListen),
		positive("--origin-ack-wait", p.OriginAckWait), positive("--feedback-every", p.FeedbackEvery),
		positive("--feedback-interval", p.FeedbackInterval), positive("--refit-window", p.RefitWindow)); err != nil {
		return pipeline.Config{}, err
	}
	var bo []time.Duration
	for _, s := range strings.Split(p.BackOff, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return pipeline.Config{}, fmt.Errorf("%w: --backoff %q: want positive durations, comma-separated", ErrUsage, p.BackOff)
		}
		bo = append(bo, d)
	}
	if p.MaxDeliver < 1 {
		return pipeline.Config{}, fmt.Errorf("%w: --max-deliver %d: want at least 1", ErrUsage, p.MaxDeliver)
	}
	if p.Workers < 1 {
		return pipeline.Config{}, fmt.Errorf("%w: --workers %d: want at least 1", ErrUsage, p.Workers)
	}
	if p.MatchingWorkers < 0 {
		return pipeline.Config{}, fmt.Errorf("%w: --matching-workers %d: want 0 (one per core) or more", ErrUsage, p.MatchingWorkers)
	}
	if p.Explore < 0 || p.Explore > 1 || p.TieEpsilon < 0 {
		return pipeline.Config{}, fmt.Errorf("%w: --explore is a probability and --tie-epsilon not negative", ErrUsage)
	}
	cfg := pipeline.Config{Streams: p.Streams, MaxDeliver: p.MaxDeliver, BackOff: bo, Workers: p.Workers, Retry: p.Retry,
		MatchingWorkers: p.MatchingWorkers,
		MaxInFlight:     p.MaxInFlight, CatalogBucket: p.CatalogBucket, ExamplesBucket: p.ExamplesBucket, TasksMaxAge: p.TasksMaxAge,
		DeadLettersMaxAge: p.DeadLettersMaxAge, DeadLettersMaxBytes: p.DeadLettersMaxBytes, ModelBucket: p.ModelBucket,
		TasksMaxBytes: p.TasksMaxBytes, DecisionsMaxBytes: p.DecisionsMaxBytes, OutcomesMaxBytes: p.OutcomesMaxBytes,
		TasksSynced: p.TasksSynced, GroupCommit: p.GroupCommit, OriginAckWait: p.OriginAckWait,
		Followups: pipeline.FollowupConfig{Bucket: p.FollowupBucket, TTL: p.FollowupTTL},
		Ties:      &decide.TieConfig{Epsilon: p.TieEpsilon, Explore: p.Explore}, TieSeed: p.TieSeed,
		FeedbackEvery: p.FeedbackEvery, FeedbackInterval: p.FeedbackInterval, RefitInterval: p.RefitInterval, RefitWindow: p.RefitWindow}
	if err := cfg.Validate(); err != nil {
		return pipeline.Config{}, fmt.Errorf("%w: --backoff, --max-deliver, --retry, --workers, --max-in-flight: %v", ErrUsage, err)
	}
	callers, err := loadCallers(p.Callers)
	if err != nil {
		return pipeline.Config{}, err
	}
	cfg.Callers = callers
	return cfg, nil
}

// loadCallers reads --callers (nil without one).
func loadCallers(path string) (*identity.Directory, error) {
	if path == "" {
		return nil, nil
	}
	dir, err := identity.Load(path)
	if err != nil {
		return nil, BadInput(fmt.Errorf("--callers: %w", err))
	}
	return dir, nil
}

// checkListen says whether addr, a listen flag's value, is host:port
// (empty: off): a malformed one is a usage error said before anything
// starts, not a listen failure after.
func checkListen(flag, addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%w: %s %q: want host:port (:port for every interface)", ErrUsage, flag, addr)
	}
	return nil
}

// listenFlag is a listen flag's name and the address it listens on ("":
// off).
type listenFlag struct{ name, addr string }

// distinctListens says that no two of the listen flags name one address
// (the same port on the same host, or on every interface): the second
// listen would fail only after everything before it had started.
func distinctListens(flags ...listenFlag) error {
	for i, a := range flags {
		for _, b := range flags[i+1:] {
			if sameListen(a.addr, b.addr) {
				return fmt.Errorf("%w: %s %s and %s %s listen on one address: give each its own port", ErrUsage, a.name, a.addr, b.name, b.addr)
			}
		}
	}
	return nil
}

// sameListen says whether two host:port listen addresses take one port:
// the same port, not 0 or -1 (any free one), on hosts that are the same
// or one of them every interface.
func sameListen(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil || pa != pb || pa == "0" || pa == "-1" {
		return false
	}
	host := func(h string) string {
		switch h {
		case "", "0.0.0.0", "::":
			return ""
		case "localhost":
			return "127.0.0.1"
		}
		return h
	}
	ha, hb = host(ha), host(hb)
	return ha == "" || hb == "" || ha == hb
}

// positive says that a flag's value must be above zero, where the code
// would otherwise quietly take its default for zero or less.
func positive[T int | time.Duration](name string, v T) error {
	if v <= 0 {
		return fmt.Errorf("%w: %s %v: want more than 0", ErrUsage, name, v)
	}
	return nil
}

// firstError is the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
