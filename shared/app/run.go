package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/console"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// ExampleCatalog is the catalog that ships with the project, relative to
// the repository root.
const ExampleCatalog = "examples/catalog"

// RunFlags are the flags of `skillmatch run`.
type RunFlags struct {
	Data       string
	Cards      string
	Listen     string
	SyncAlways bool
	Auth       string
	Matcher    MatcherFlags
	Pipeline   PipelineFlags
	Refresh    RefreshFlags
	Trust      TrustFlags
	Console    ConsoleFlags
	A2A        A2AFlags
}

const runUsage = `Usage: skillmatch run [--data DIR] [--cards DIR] [--nats-listen 127.0.0.1:4222] [--registry FILE [--refresh 5m]]
       [--grants FILE] [--trust-keys FILE|URL] [--unsigned refuse|flag|accept] [--bad-signature refuse|flag|accept]

Runs the whole pipeline in this process: an embedded NATS server with JetStream (store
under --data, listening on --nats-listen so any NATS client can publish tasks), the
streams, and the five stages (extractor, retriever, reranker, decider, feedback) plus
the dead-letter watcher, configured by the same flags as the services. Publish tasks on
` + wire.SubjectSubmitted + `.<caller> (or use ` + "`skillmatch submit`" + `); decisions appear on
` + wire.SubjectDecisionPrefix + `<caller>.<action>. Or ask and wait:
` + "`nats req skillmatch.match '<task>'`" + ` replies with the decision (skillmatch.match.<caller>
to ask as a caller; NATS micro service "skillmatch").
With --a2a-listen it is also an A2A agent: its card at /.well-known/agent-card.json,
SendMessage over JSON-RPC and HTTP+JSON answered with the decision as a data part;
--a2a-tokens makes callers authenticate with bearer tokens.
The --cards folder is loaded into the catalog KV bucket at start; change it while running
with ` + "`skillmatch cards add|remove`" + ` (the stages rebuild their index live). With
--registry the agents it lists are discovered and kept fresh every --refresh, as
` + "`skillmatch cards refresh`" + ` does; the signature flags apply to --cards too.
Retention: SUBMISSIONS and TASKS keep tasks for --tasks-max-age (the range
` + "`skillmatch replay`" + ` can cover); DEADLETTER keeps dead letters for --deadletters-max-age
up to --deadletters-max-bytes; DECISIONS and OUTCOMES are kept.
Feedback: outcomes on ` + wire.SubjectOutcome + ` update per-skill Beta posteriors of the success
rate, put in the model bucket every --feedback-every outcomes and every --feedback-interval;
the decider hot-reloads them and, among candidates within --tie-epsilon of the best
calibrated probability, prefers the better success rate, then latency, then cost. Every
--refit-interval the calibration is refitted from the logged decisions joined with labelled
outcomes, put in the model bucket only when no worse on a held-out slice, and loaded by the
reranker at once.
With --console-listen ADDR the read-only operator console is served there (loopback unless
--console-auth names the operators who may look).
Ctrl-C stops it cleanly; the store keeps tasks, decisions and consumer positions.
`

// NewRunFlags defines the flags of `skillmatch run`.
func NewRunFlags(out io.Writer) (*flag.FlagSet, *RunFlags) {
	r := &RunFlags{}
	fs := NewFlagSet("run", runUsage, out)
	fs.StringVar(&r.Data, "data", defaultDataDir(), "data folder for the JetStream store")
	fs.StringVar(&r.Cards, "cards", "", "folder of agent cards (default: the example catalog, "+ExampleCatalog+")")
	fs.StringVar(&r.Listen, "nats-listen", natsbox.DefaultListen, "host:port the embedded NATS server listens on (port -1: any free port)")
	fs.BoolVar(&r.SyncAlways, "sync-always", false, "fsync every JetStream write (safer against machine crashes, slower);\n"+
		"implies --group-commit")
	fs.StringVar(&r.Auth, "auth", "", "require credentials: a nats-server configuration file of accounts and users (deploy/nats/accounts.conf,\n"+
		"with its passwords in the environment); clients get their users' permissions; empty: no authentication (loopback)")
	r.Matcher.Register(fs)
	r.Pipeline.Register(fs)
	r.Refresh.Register(fs, "refresh")
	r.Trust.Register(fs)
	r.Console.Register(fs, "")
	r.A2A.Register(fs, "")
	return fs, r
}

// Running is the all-in-one pipeline of `skillmatch run`.
type Running struct {
	// ClientURL is where NATS clients connect.
	ClientURL string
	// CardsDir is the folder the catalog was loaded from.
	CardsDir string
	Agents   int
	Skills   int
	// Fingerprint names the catalog snapshot the stages match on.
	Fingerprint string
	// HealthAddr is where /healthz, /readyz and /metrics are served
	// ("" when --health-listen is off).
	HealthAddr string
	// ConsoleAddr is where the operator console is served ("" when
	// --console-listen is off).
	ConsoleAddr string
	// A2AURL is the A2A front door's base URL ("" when --a2a-listen is off).
	A2AURL string
	stop   []func()
}

// Stop stops the stages, the refresher and the server, in that order.
func (r *Running) Stop() {
	for i := len(r.stop) - 1; i >= 0; i-- {
		r.stop[i]()
	}
	r.stop = nil
}

// StartRun starts the embedded server, the streams, the catalog and every
// stage as the flags say; Stop ends them.
func StartRun(ctx context.Context, rf *RunFlags, log *zap.Logger) (_ *Running, err error) {
	cfg, err := rf.Pipeline.Config()
	if err != nil {
		return nil, err
	}
	if err := checkListen("--nats-listen", rf.Listen); err != nil {
		return nil, err
	}
	listens := []listenFlag{{"--nats-listen", rf.Listen}, {"--health-listen", rf.Pipeline.HealthListen}, {"--a2a-listen", rf.A2A.Listen}}
	if rf.Console.Listen != "" {
		listens = append(listens, listenFlag{"--console-listen", console.ListenAddr(rf.Console.Listen)})
	}
	if err := distinctListens(listens...); err != nil {
		return nil, err
	}
	doorFiles, err := rf.A2A.Files()
	if err != nil {
		return nil, err
	}
	if err := rf.Refresh.Files(); err != nil {
		return nil, err
	}
	var consoleIn consoleFiles
	if rf.Console.Listen != "" {
		if consoleIn, err = rf.Console.files(rf.Matcher.Grants, cfg.Callers); err != nil {
			return nil, err
		}
	}
	if rf.Matcher.Retrieval == nil {
		return nil, errors.New("app: run shortlists: make its flags with app/retrieval.NewRunFlags")
	}
	cfg.Log = log
	// A server that syncs every write fsyncs each message alone unless
	// the deciders' writes share their fsyncs.
	cfg.GroupCommit = cfg.GroupCommit || rf.SyncAlways
	metrics := NewMetrics()
	cfg.Observer = metrics
	rf.Matcher.OnDegraded = metrics.Degraded
	build, err := rf.Matcher.Builder(log)
	if err != nil {
		return nil, err
	}
	run := &Running{CardsDir: rf.Cards}
	defer func() {
		if err != nil {
			run.Stop()
		}
	}()
	tp, shutdownTracing, err := tracerProvider(ctx, rf.Pipeline.OTLPEndpoint, "skillmatch")
	if err != nil {
		return nil, err
	}
	// Stopped last: the stages' spans are flushed after the stages end.
	run.stop = append(run.stop, func() { _ = shutdownTracing(context.Background()) })
	cfg.Tracer = tp
	if run.CardsDir == "" {
		if run.CardsDir, err = FindExampleCatalog(); err != nil {
			return nil, err
		}
	}
	files, errs := pipeline.ReadCards(run.CardsDir)
	for _, e := range errs {
		log.Warn("card skipped", zap.Error(e))
	}
	if len(files) == 0 {
		return nil, BadInput(fmt.Errorf("no usable card in %s", run.CardsDir))
	}
	if fi, err := os.Stat(rf.Data); err == nil && !fi.IsDir() {
		return nil, BadInput(fmt.Errorf("--data %s is a file; give a folder for the store", rf.Data))
	}
	srv, err := natsbox.Start(natsbox.Config{DataDir: rf.Data, Listen: rf.Listen, SyncAlways: rf.SyncAlways, AuthFile: rf.Auth, Log: log})
	if errors.Is(err, natsbox.ErrAuthFile) {
		return nil, BadInput(fmt.Errorf("--auth: %w", err))
	}
	if errors.Is(err, natsbox.ErrListen) {
		return nil, fmt.Errorf("%w; another skillmatch run may hold it: give --nats-listen HOST:PORT", err)
	}
	if errors.Is(err, natsbox.ErrDataDirInUse) {
		return nil, fmt.Errorf("%w; another skillmatch run stores there: give --data DIR", err)
	}
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, srv.Shutdown)
	run.ClientURL = srv.ClientURL()
	nc, err := srv.Connect(pipeline.AsyncErrors(log))
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, func() {
		if err := nc.Drain(); err != nil {
			log.Warn("drain", zap.Error(err))
		}
	})
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	setup, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := pipeline.SetupStreams(setup, js, cfg); err != nil {
		return nil, err
	}
	// The folder's cards go into the catalog bucket (unchanged ones are
	// left alone); cards added earlier with `skillmatch cards add` stay.
	kv, err := pipeline.CatalogKV(setup, js, rf.Pipeline.CatalogBucket)
	if err != nil {
		return nil, err
	}
	trust, err := rf.Trust.Trust(setup)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if _, _, _, err := PutChecked(setup, kv, f, trust); err != nil {
			log.Warn("card skipped", zap.String("file", f.Path), zap.Error(err))
		}
	}
	learned, err := learnedExamples(setup, js, &rf.Matcher, rf.Pipeline, log)
	if err != nil {
		return nil, err
	}
	snaps := pipeline.NewSnapshots(nil)
	watch, err := snaps.WatchCatalog(setup, kv, build, log, learned)
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, watch.Stop)
	mkv, err := pipeline.ModelKV(setup, js, rf.Pipeline.ModelBucket)
	if err != nil {
		return nil, err
	}
	stopRefresh, err := rf.Refresh.StartRefresher(ctx, kv, mkv, rf.Matcher.ID(), trust, build, log)
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, stopRefresh)
	g, err := pipeline.StartAll(setup, js, snaps, cfg)
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, g.Stop)
	// The request-reply front door: `nats req skillmatch.match '<task>'`.
	// The front doors submit like the deciders store: grouped when the
	// server syncs every write.
	sub := submitter(js, cfg.GroupCommit)
	door, err := ServeMatch(ctx, nc, sub, 15*time.Second, metrics, log)
	if err != nil {
		return nil, err
	}
	run.stop = append(run.stop, func() { _ = door.Stop() })
	if rf.Console.Listen != "" {
		addr, stopConsole, err := rf.Console.start(ctx, js, &rf.Pipeline, consoleIn, snaps.Matcher, log)
		if err != nil {
			return nil, err
		}
		run.stop = append(run.stop, stopConsole)
		run.ConsoleAddr = addr
	}
	// The A2A front door: `--a2a-listen 127.0.0.1:8080`.
	a2a, err := rf.A2A.Serve(doorFiles, sub, metrics, log)
	if err != nil {
		return nil, err
	}
	if a2a != nil {
		run.A2AURL = a2a.URL()
		run.stop = append(run.stop, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = a2a.Stop(ctx)
		})
	}
	if rf.Pipeline.HealthListen != "" {
		addr, err := serveHealth(ctx, rf.Pipeline.HealthListen, nc, g, snaps, true, metrics)
		if err != nil {
			return nil, err
		}
		log.Info("health probes and metrics", zap.String("addr", addr))
		run.HealthAddr = addr
	}
	cat := snaps.Matcher().Catalog()
	run.Agents, run.Skills, run.Fingerprint = len(cat.Agents), len(cat.Skills()), snaps.Fingerprint()
	return run, nil
}

// defaultDataDir is the user's cache folder, or a temporary one.
func defaultDataDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "skillmatch", "data")
	}
	return filepath.Join(os.TempDir(), "skillmatch-data")
}

// FindExampleCatalog looks for the example catalog in the working folder
// and its parents, then beside the executable (bin/../examples/catalog).
func FindExampleCatalog() (string, error) {
	var tried []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			tried = append(tried, filepath.Join(d, ExampleCatalog))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		tried = append(tried, filepath.Join(filepath.Dir(exe), "..", ExampleCatalog))
	}
	for _, p := range tried {
		if fi, err := os.Stat(filepath.Join(p, "cards")); err == nil && fi.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("example catalog not found: run from the repository or pass --cards DIR")
}
