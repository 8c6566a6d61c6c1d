package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/health"
)

// ServiceFlags are every flag of a stage service: the matcher, the
// pipeline, the connection, and what only a service does.
type ServiceFlags struct {
	Stage    string
	Matcher  MatcherFlags
	Pipeline PipelineFlags
	NATS     NATSFlags
	// Cards is a fixed catalog folder instead of the catalog bucket.
	Cards        string
	SetupStreams bool
	DeadLetters  bool
	// Version prints the version instead of running (see ServiceMain).
	Version bool
}

// NewServiceFlags defines the flags of the named stage's service on a new
// flag set whose usage is written to out.
func NewServiceFlags(stage string, out io.Writer) (*flag.FlagSet, *ServiceFlags) {
	s := &ServiceFlags{Stage: stage}
	fs := NewFlagSet("skillmatch-"+stage, fmt.Sprintf("Usage: skillmatch-%s [flags]\n\n"+
		"Runs the %s stage of the skillmatch pipeline on an external NATS JetStream; run more\n"+
		"replicas to scale out (they share one durable consumer). Every flag can be set from the\n"+
		"environment as SKILLMATCH_<FLAG> (NATS_URL also sets --nats). The matcher flags matter to\n"+
		"the retriever, reranker and decider, and must be the same on the three.\n", stage, stage), out)
	s.NATS.Register(fs)
	fs.DurationVar(&s.NATS.ConnectTimeout, "timeout", 5*time.Second, "connect timeout")
	s.Matcher.Register(fs)
	s.Pipeline.Register(fs)
	fs.StringVar(&s.Cards, "cards", "", "folder of agent cards: a fixed catalog for the retriever, reranker and decider\n"+
		"instead of watching --catalog-bucket")
	fs.BoolVar(&s.SetupStreams, "setup-streams", false, "create or update the streams and buckets at start (otherwise they must exist)")
	fs.BoolVar(&s.DeadLetters, "dead-letters", stage == pipeline.StageFeedback, "also run the watcher that dead-letters messages past their max deliveries")
	fs.BoolVar(&s.Version, "version", false, "print the version and exit")
	return fs, s
}

// ServiceMain runs the named stage's service until SIGINT or SIGTERM and
// returns the exit code: 0 (also after --help, on stdout, and --version),
// 2 for a usage error (two short lines on stderr), 1 otherwise. It is for
// the stages that do not shortlist (extractor, reranker, decider,
// feedback): their matchers rank and decide without retrieval. The
// retriever's main calls app/retrieval.ServiceMain.
func ServiceMain(stage string, args []string) int { return ServiceMainWith(stage, args, nil) }

// ServiceMainWith is ServiceMain with the retrieval the stage's matchers
// search with (nil: none).
func ServiceMainWith(stage string, args []string, r Retrieval) int {
	return serviceMain(stage, args, os.Stdout, os.Stderr, func(ctx context.Context, stage string, args []string, stderr io.Writer) error {
		return RunService(ctx, stage, args, stderr, r)
	})
}

// serviceMain is ServiceMain with its streams and runner given, for tests.
// It parses once on its own so that help, version and flag errors are
// answered before anything starts.
func serviceMain(stage string, args []string, stdout, stderr io.Writer,
	run func(context.Context, string, []string, io.Writer) error) int {
	fs, sf := NewServiceFlags(stage, io.Discard)
	return binaryMain("skillmatch-"+stage, fs, &sf.Version, args, stdout, stderr, func(ctx context.Context) error {
		return run(ctx, stage, args, stderr)
	})
}

// binaryMain is the main of a service binary: it parses args with fs
// (whose --version sets *version) to answer help, version and flag errors
// before anything starts, then runs until SIGINT or SIGTERM. It returns
// the exit code: 0, 2 for a usage error (two short lines on stderr), 1
// otherwise.
func binaryMain(name string, fs *flag.FlagSet, version *bool, args []string, stdout, stderr io.Writer,
	run func(context.Context) error) int {
	pos, err := Parse(fs, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	if err != nil {
		return ReportError(name, err, stdout, stderr)
	}
	if *version {
		fmt.Fprintln(stdout, VersionLine(name))
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return ReportError(name, run(ctx), stdout, stderr)
}

// RunService runs the named stage (and the dead-letter watcher when asked)
// until ctx ends. The retriever needs r, the retrieval it shortlists with;
// the other stages ignore it.
func RunService(ctx context.Context, stage string, args []string, stderr io.Writer, r Retrieval) error {
	known := false
	for _, n := range pipeline.StageNames {
		known = known || n == stage
	}
	if !known {
		return fmt.Errorf("%w: no stage %q", ErrUsage, stage)
	}
	fs, sf := NewServiceFlags(stage, stderr)
	pos, err := Parse(fs, args)
	if h := (*HelpError)(nil); errors.As(err, &h) {
		fmt.Fprint(stderr, h.Text) // a direct caller has only stderr
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	if sf.Matcher.SelfCalibrate {
		// It asks the catalog's own requests at load (retrieval) to move
		// the threshold the decider decides at: the decider service links
		// no retrieval, and the retriever's threshold decides nothing.
		return fmt.Errorf("%w: --self-calibrate works only where one matcher retrieves and decides (skillmatch run, match, eval), "+
			"not in the %s service; set --threshold on the decider instead", ErrUsage, stage)
	}
	if stage == pipeline.StageRetriever && r == nil {
		return errors.New("app: the retriever shortlists: run it with a retrieval (app/retrieval.ServiceMain)")
	}
	cfg, err := sf.Pipeline.Config()
	if err != nil {
		return err
	}
	log, err := NewLogger(sf.Pipeline.LogLevel, stderr, LogJSON)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	log = log.With(zap.String("service", stage))
	cfg.Log = log
	metrics := NewMetrics()
	cfg.Observer = metrics
	tp, shutdownTracing, err := tracerProvider(ctx, sf.Pipeline.OTLPEndpoint, "skillmatch-"+stage)
	if err != nil {
		return err
	}
	defer shutdownTracing(context.Background()) //nolint:errcheck
	cfg.Tracer = tp

	matching := pipeline.MatchingStages[stage]
	if stage == pipeline.StageRetriever {
		sf.Matcher.Retrieval = r
	}
	snaps := pipeline.NewSnapshots(nil)
	var build BuildFunc
	if matching {
		sf.Matcher.OnDegraded = metrics.Degraded
		if build, err = sf.Matcher.Builder(log); err != nil {
			return err
		}
		if sf.Cards != "" {
			cat, errs := catalog.LoadDir(sf.Cards)
			for _, e := range errs {
				log.Warn("card skipped", zap.Error(e))
			}
			if cat == nil || len(cat.Agents) == 0 {
				return fmt.Errorf("no usable card in %s", sf.Cards)
			}
			m, err := build(cat)
			if err != nil {
				return err
			}
			snaps.SetMatcher(m)
		}
	}
	nc, js, err := sf.NATS.Connect("skillmatch-"+stage, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if sf.SetupStreams {
		if err := pipeline.SetupStreams(sctx, js, cfg); err != nil {
			return err
		}
	}
	if matching && sf.Cards == "" {
		w, err := watchCatalog(sctx, js, snaps, build, &sf.Matcher, sf.Pipeline, log)
		if err != nil {
			return err
		}
		defer w.Stop()
	}
	names := []string{stage}
	if sf.DeadLetters {
		names = append(names, pipeline.StageDeadLetters)
	}
	g, err := pipeline.Start(sctx, js, snaps, cfg, names...)
	if err != nil {
		return err
	}
	defer g.Stop()
	if sf.Pipeline.HealthListen != "" {
		addr, err := serveHealth(ctx, sf.Pipeline.HealthListen, nc, g, snaps, matching, metrics)
		if err != nil {
			return err
		}
		log.Info("health probes", zap.String("addr", addr))
	}
	log.Info("ready", zap.String("nats", nc.ConnectedUrlRedacted()), zap.String("catalog", snaps.Fingerprint()))
	<-ctx.Done()
	log.Info("stopping")
	return nil
}

// serveHealth serves /healthz (NATS connected) and /readyz (catalog loaded
// when the stage matches, no stage holding its deliveries).
func serveHealth(ctx context.Context, addr string, nc interface {
	IsConnected() bool
}, g *pipeline.Group, snaps *pipeline.Snapshots, matching bool, metrics *Metrics) (string, error) {
	live := map[string]health.Check{"nats": func(context.Context) error {
		if !nc.IsConnected() {
			return errors.New("not connected to NATS")
		}
		return nil
	}}
	ready := map[string]health.Check{"stages": func(context.Context) error {
		if held := g.NotReady(); len(held) > 0 {
			return fmt.Errorf("holding deliveries, a dependency is unavailable: %v", held)
		}
		return nil
	}}
	if matching {
		ready["catalog"] = func(context.Context) error {
			if snaps.Matcher() == nil {
				return errors.New("no catalog loaded yet")
			}
			return nil
		}
	}
	metrics.Watch(g, snaps)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler())
	mux.Handle("/", health.Handler(live, ready))
	a, err := health.Serve(ctx, addr, mux)
	if err != nil {
		return "", fmt.Errorf("--health-listen: %w", err)
	}
	return a, nil
}

// watchCatalog keeps snaps built from the catalog bucket with the
// catalog's learned examples, as the stages index them.
func watchCatalog(ctx context.Context, js jetstream.JetStream, snaps *pipeline.Snapshots, build pipeline.BuildFunc,
	m *MatcherFlags, p PipelineFlags, log *zap.Logger) (*pipeline.CatalogWatch, error) {
	kv, err := pipeline.CatalogKV(ctx, js, p.CatalogBucket)
	if err != nil {
		return nil, err
	}
	learned, err := learnedExamples(ctx, js, m, p, log)
	if err != nil {
		return nil, err
	}
	return snaps.WatchCatalog(ctx, kv, build, log, learned)
}

// learnedExamples is the catalog watch option that indexes the catalog's
// learned examples from the examples bucket (created with the streams).
func learnedExamples(ctx context.Context, js jetstream.JetStream, m *MatcherFlags, p PipelineFlags, log *zap.Logger) (pipeline.WatchOption, error) {
	build, err := m.LearnedBuilder(log)
	if err != nil {
		return nil, err
	}
	ekv, err := pipeline.ExamplesKV(ctx, js, p.ExamplesBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		// Streams set up by a version without it: match without learned
		// examples rather than not at all.
		log.Warn("no learned-examples bucket; matching without learned examples (set the streams up again to create it)",
			zap.String("bucket", p.ExamplesBucket))
		return pipeline.WithLearnedExamples(nil, "", nil), nil
	}
	if err != nil {
		return nil, err
	}
	return pipeline.WithLearnedExamples(ekv, p.CatalogBucket, build), nil
}
