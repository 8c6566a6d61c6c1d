// Package service is the main of the pipeline services: one stage (or a
// few) of the pipeline against an external NATS server, configured by
// flags and environment. services/<stage>/main.go only calls Main.
package service

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/health"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/weaviateindex"
)

// needsCatalog says which stages match against the catalog.
var needsCatalog = map[string]bool{
	pipeline.StageRetriever: true, pipeline.StageReranker: true, pipeline.StageDecider: true,
}

// Main runs the named stage until SIGINT or SIGTERM and returns the exit
// code.
func Main(stage string, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, stage, args, os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "skillmatch-%s: %v\n", stage, err)
		return 2
	default:
		fmt.Fprintf(os.Stderr, "skillmatch-%s: %v\n", stage, err)
		return 1
	}
}

var errUsage = errors.New("usage")

// Run is Main without the signal handling and exit code.
func Run(ctx context.Context, stage string, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet(stage, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skillmatch-%s [flags]\n\nRuns the %s stage of the skillmatch pipeline on an external NATS JetStream.\n"+
			"Every flag can be set from the environment as SKILLMATCH_<FLAG> (NATS_URL also sets --nats).\n\nFlags:\n", stage, stage)
		fs.PrintDefaults()
	}
	def := pipeline.DefaultStreams
	natsURL := fs.String("nats", "nats://127.0.0.1:4222", "NATS server URL(s), comma-separated")
	creds := fs.String("creds", "", "NATS credentials file")
	nkey := fs.String("nkey", "", "NATS NKey seed file")
	tlsCA := fs.String("tls-ca", "", "CA file to trust for the server's TLS certificate")
	tlsCert := fs.String("tls-cert", "", "client certificate file (mutual TLS)")
	tlsKey := fs.String("tls-key", "", "client key file (mutual TLS)")
	tasks := fs.String("stream-tasks", def.Tasks, "tasks stream")
	decisions := fs.String("stream-decisions", def.Decisions, "decisions stream")
	outcomes := fs.String("stream-outcomes", def.Outcomes, "outcomes stream")
	deadLetters := fs.String("stream-deadletters", def.DeadLetters, "dead-letter stream")
	advisories := fs.String("stream-advisories", def.Advisories, "stream capturing the max-deliveries advisories")
	setup := fs.Bool("setup-streams", false, "create or update the streams at start (otherwise they must exist)")
	watchDL := fs.Bool("dead-letters", stage == pipeline.StageFeedback, "also run the watcher that dead-letters messages past their max deliveries")
	cards := fs.String("cards", "", "folder of agent cards: a fixed catalog for the retriever, reranker and decider instead of watching --catalog-bucket")
	bucket := fs.String("catalog-bucket", wire.BucketCatalog, "KV bucket of the card catalog the retriever, reranker and decider watch (fill it with `skillmatch cards add`)")
	tasksAge := fs.Duration("tasks-max-age", pipeline.DefaultTasksMaxAge, "with --setup-streams: how long the tasks stream keeps tasks; negative: forever")
	dlAge := fs.Duration("deadletters-max-age", pipeline.DefaultDeadLettersMaxAge, "with --setup-streams: how long the dead-letter stream keeps dead letters; negative: forever")
	dlBytes := fs.Int64("deadletters-max-bytes", pipeline.DefaultDeadLettersMaxBytes, "with --setup-streams: size cap of the dead-letter stream, oldest dropped first; negative: none")
	tasksBucket := fs.String("followup-bucket", wire.BucketTasks, "decider: KV bucket recording delegations, so that a task continuing another (message.taskId) keeps its agent, skill and context")
	followTTL := fs.Duration("followup-ttl", pipeline.DefaultFollowupTTL, "with --setup-streams: how long a delegated task can be continued; negative: forever")
	modelBucket := fs.String("model-bucket", wire.BucketModel, "KV bucket of the model state: the feedback stage puts the posteriors there, the decider watches them")
	tieEps := fs.Float64("tie-epsilon", decide.DefaultTieConfig.Epsilon, "decider: candidates within this calibrated probability of the best are near-ties, ordered by success rate, latency, cost")
	explore := fs.Float64("explore", decide.DefaultTieConfig.Explore, "decider: probability of picking a random near-tie first (recorded on the decision); 0: never")
	tieSeed := fs.Uint64("tie-seed", pipeline.DefaultTieSeed, "decider: seed of the per-task tie-break random source (same seed and task id, same draw)")
	fbEvery := fs.Int("feedback-every", pipeline.DefaultFeedbackEvery, "feedback: publish the posteriors after this many counted outcomes")
	fbInterval := fs.Duration("feedback-interval", pipeline.DefaultFeedbackInterval, "feedback: publish the posteriors this often while outcomes come in")
	refitEvery := fs.Duration("refit-interval", pipeline.DefaultRefitInterval, "feedback: refit the calibration this often from the latest decisions and labelled outcomes, published only when no worse on a held-out slice; negative: never")
	refitWindow := fs.Int("refit-window", pipeline.DefaultRefitWindow, "feedback: how many of the latest decisions and outcomes a refit reads")
	indexKind := fs.String("index", "memory", "retrieval index of the retriever, reranker and decider: memory (in process) or weaviate")
	wvURL := fs.String("weaviate-url", "", "Weaviate REST endpoint for --index weaviate, e.g. http://127.0.0.1:8080")
	wvGRPC := fs.String("weaviate-grpc", "", "Weaviate gRPC host:port (faster imports; optional)")
	wvCatalog := fs.String("weaviate-catalog", "default", "catalog name: prefixes the Weaviate collections")
	wvTenant := fs.String("weaviate-tenant", "", "store the catalog as this tenant of shared multi-tenant collections (one per catalog of a multi-tenant deployment); empty: collections of its own")
	modelPath := fs.String("model", "", "model file from \"skillmatch fit\" (default: the built-in model)")
	threshold := fs.Float64("threshold", decide.DefaultPolicy.Threshold, "lowest calibrated probability to delegate at (decider)")
	margin := fs.Float64("margin", decide.DefaultPolicy.Margin, "lead over a runner-up of another agent needed to delegate (decider)")
	workers := fs.Int("workers", 1, "concurrent workers on the durable consumer")
	inFlight := fs.Int("max-in-flight", 256, "handled messages waiting for the stage's publisher; 1: the workers publish themselves")
	maxDeliver := fs.Int("max-deliver", 5, "deliveries before a message is dead-lettered")
	backoffs := fs.String("backoff", "30s,1m,2m,5m", "redelivery delays, comma-separated; the first is also the ack wait")
	retry := fs.Duration("retry", 2*time.Second, "in-process retry budget for a transient error before a Nak")
	timeout := fs.Duration("timeout", 5*time.Second, "connect timeout")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	healthAddr := fs.String("health-listen", "", "serve /healthz (running, NATS connected) and /readyz (catalog loaded, no stage holding its deliveries) on this address, e.g. :8081; empty: off")
	if err := applyEnv(fs); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	lvl, err := zapcore.ParseLevel(*logLevel)
	if err != nil {
		return fmt.Errorf("%w: --log-level %q", errUsage, *logLevel)
	}
	var bo []time.Duration
	for _, s := range strings.Split(*backoffs, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return fmt.Errorf("%w: --backoff %q", errUsage, *backoffs)
		}
		bo = append(bo, d)
	}
	if len(bo) >= *maxDeliver {
		return fmt.Errorf("%w: --backoff needs fewer values (%d) than --max-deliver (%d)", errUsage, len(bo), *maxDeliver)
	}
	cfgLog := zap.NewProductionConfig()
	cfgLog.Level = zap.NewAtomicLevelAt(lvl)
	log, err := cfgLog.Build()
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	log = log.With(zap.String("service", stage))

	var stages *pipeline.Stages
	var specs []pipeline.Stage
	var build pipeline.BuildFunc // set when the stage watches the catalog bucket
	streams := pipeline.Streams{Tasks: *tasks, Decisions: *decisions, Outcomes: *outcomes, DeadLetters: *deadLetters, Advisories: *advisories}
	if needsCatalog[stage] {
		mdl := model.Default()
		if *modelPath != "" {
			if mdl, err = model.Load(*modelPath); err != nil {
				return err
			}
		}
		p := decide.DefaultPolicy
		p.Threshold, p.Margin = *threshold, *margin
		opts := []match.Option{match.WithModel(mdl), match.WithPolicy(p), match.WithLogger(log)}
		switch *indexKind {
		case "memory":
		case "weaviate":
			if *wvURL == "" {
				return fmt.Errorf("%w: --index weaviate needs --weaviate-url", errUsage)
			}
			// One builder for every rebuild: it logs one line per change
			// of Weaviate's reachability, not one per index.
			opts = append(opts, match.WithIndex(weaviateindex.Builder(weaviateindex.Config{
				URL: *wvURL, GRPC: *wvGRPC, Catalog: *wvCatalog, Tenant: *wvTenant, Log: log})))
		default:
			return fmt.Errorf("%w: --index %q: want memory or weaviate", errUsage, *indexKind)
		}
		build = func(cat *catalog.Catalog) (*match.Matcher, error) {
			return match.New(cat, opts...)
		}
		if *cards != "" {
			cat, errs := catalog.LoadDir(*cards)
			for _, e := range errs {
				log.Warn("card skipped", zap.String("task_id", ""), zap.Error(e))
			}
			if len(cat.Agents) == 0 {
				return fmt.Errorf("no usable card in %s", *cards)
			}
			m, err := build(cat)
			if err != nil {
				return err
			}
			stages, build = pipeline.NewStages(m), nil
		} else {
			stages = pipeline.NewStages(nil)
		}
	} else {
		// The extractor and the feedback stage do not match.
		stages = pipeline.NewStages(nil)
	}
	known := false
	for _, st := range stages.StageSpecs(streams) {
		known = known || st.Name == stage
	}
	if !known {
		return fmt.Errorf("%w: no stage %q", errUsage, stage)
	}
	stages.SetTies(decide.TieConfig{Epsilon: *tieEps, Explore: *explore}, *tieSeed)
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: *natsURL, Name: "skillmatch-" + stage, Creds: *creds, NKey: *nkey,
		TLSCA: *tlsCA, TLSCert: *tlsCert, TLSKey: *tlsKey, Timeout: *timeout}, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	cfg := pipeline.Config{Streams: streams, MaxDeliver: *maxDeliver, BackOff: bo, Workers: *workers, Retry: *retry, Log: log,
		MaxInFlight: *inFlight, CatalogBucket: *bucket, TasksMaxAge: *tasksAge, DeadLettersMaxAge: *dlAge, DeadLettersMaxBytes: *dlBytes,
		ModelBucket: *modelBucket, Followups: pipeline.FollowupConfig{Bucket: *tasksBucket, TTL: *followTTL}, FeedbackEvery: *fbEvery, FeedbackInterval: *fbInterval, RefitInterval: *refitEvery, RefitWindow: *refitWindow}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if *setup {
		if err := pipeline.SetupStreams(sctx, js, cfg); err != nil {
			return err
		}
	}
	switch stage {
	case pipeline.StageFeedback:
		mkv, err := pipeline.ModelKV(sctx, js, *modelBucket)
		if err != nil {
			return err
		}
		fb, err := pipeline.NewFeedbackStage(sctx, mkv, *fbEvery, *fbInterval, log)
		if err != nil {
			return err
		}
		defer fb.Close() // after the consumer stops (deferred later, run earlier)
		if *refitEvery > 0 {
			fb.StartRefit(js, pipeline.RefitConfig{Streams: streams, Interval: *refitEvery, Window: *refitWindow})
		}
		stages.SetFeedback(fb)
	case pipeline.StageDecider, pipeline.StageReranker:
		if stage == pipeline.StageDecider {
			fu, err := pipeline.OpenFollowups(sctx, js, *tasksBucket)
			if err != nil {
				return err
			}
			stages.SetFollowups(fu)
		}
		// The decider reloads posteriors, the reranker calibration.
		mkv, err := pipeline.ModelKV(sctx, js, *modelBucket)
		if err != nil {
			return err
		}
		mw, err := stages.WatchModel(sctx, mkv, log)
		if err != nil {
			return err
		}
		defer mw.Stop()
	}
	for _, st := range stages.StageSpecs(streams) {
		if st.Name == stage {
			specs = append(specs, st)
		}
	}
	if len(specs) == 0 {
		return fmt.Errorf("%w: no stage %q", errUsage, stage)
	}
	if build != nil {
		kv, err := pipeline.CatalogKV(sctx, js, *bucket)
		if err != nil {
			return err
		}
		w, err := stages.WatchCatalog(sctx, kv, build, log)
		if err != nil {
			return err
		}
		defer w.Stop()
	}
	r := pipeline.NewRunner(js, cfg)
	if *watchDL {
		specs = append(specs, r.DeadLetterStage())
	}
	var running []*pipeline.Running
	defer func() {
		for _, x := range running {
			x.Stop()
		}
	}()
	for _, st := range specs {
		x, err := r.Start(sctx, st)
		if err != nil {
			return err
		}
		running = append(running, x)
	}
	if *healthAddr != "" {
		live := map[string]health.Check{"nats": func(context.Context) error {
			if !nc.IsConnected() {
				return fmt.Errorf("not connected to NATS (%s)", nc.Status())
			}
			return nil
		}}
		ready := map[string]health.Check{}
		if needsCatalog[stage] {
			ready["catalog"] = func(context.Context) error {
				if stages.Matcher() == nil {
					return errors.New("no catalog loaded yet")
				}
				return nil
			}
		}
		for _, x := range running {
			ready[x.Name()] = func(context.Context) error {
				if !x.Ready() {
					return errors.New("holding deliveries: a dependency is unavailable")
				}
				return nil
			}
		}
		addr, err := health.Serve(ctx, *healthAddr, health.Handler(live, ready))
		if err != nil {
			return fmt.Errorf("--health-listen: %w", err)
		}
		log.Info("health probes", zap.String("task_id", ""), zap.String("addr", addr))
	}
	log.Info("ready", zap.String("task_id", ""), zap.String("nats", nc.ConnectedUrlRedacted()),
		zap.String("catalog", stages.Fingerprint()))
	<-ctx.Done()
	log.Info("stopping", zap.String("task_id", ""))
	return nil
}

// applyEnv sets flag defaults from SKILLMATCH_<FLAG>, and --nats from
// NATS_URL.
func applyEnv(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := "SKILLMATCH_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v, ok := os.LookupEnv(key)
		if !ok && f.Name == "nats" {
			v, ok = os.LookupEnv("NATS_URL")
		}
		if ok {
			if e := f.Value.Set(v); e != nil && err == nil {
				err = fmt.Errorf("%w: %s=%q: %v", errUsage, key, v, e)
			}
		}
	})
	return err
}
