package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// exampleCatalog is the catalog that ships with the project, relative to
// the repository root.
const exampleCatalog = "examples/catalog"

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run [--data DIR] [--cards DIR] [--nats-listen 127.0.0.1:4222] [--registry FILE [--refresh 5m] [--allow-private]]\n"+
		"       [--trust-keys FILE|URL] [--unsigned refuse|flag|accept] [--bad-signature refuse|flag|accept]",
		"Runs the whole pipeline in this process: an embedded NATS server with JetStream (store\n"+
			"under --data, listening on --nats-listen so any NATS client can publish tasks), the\n"+
			"streams, and the five stages (extractor, retriever, reranker, decider, feedback) plus\n"+
			"the dead-letter watcher. Publish tasks on "+wire.SubjectSubmitted+" (or use `skillmatch\n"+
			"submit`); decisions appear on "+wire.SubjectDecisionPrefix+"<delegate|clarify|abstain>.\n"+
			"The --cards folder is loaded into the catalog KV bucket "+wire.BucketCatalog+" at start; change\n"+
			"it while running with `skillmatch cards add|remove` (the stages rebuild their index live).\n"+
			"With --registry the agents it lists are discovered and kept fresh every --refresh, as\n"+
			"`skillmatch cards refresh` does (see its --help); the signature flags apply to --cards too.\n"+
			"Retention: TASKS keeps tasks for --tasks-max-age (default 7 days, the range `skillmatch\n"+
			"replay` can cover); DEADLETTER keeps dead letters for --deadletters-max-age (30 days) up\n"+
			"to --deadletters-max-bytes (1 GiB, oldest dropped first); DECISIONS and OUTCOMES are kept.\n"+
			"Feedback: outcomes on "+wire.SubjectOutcome+" update per-skill Beta posteriors of the success\n"+
			"rate (with latency and cost), put in the model KV bucket "+wire.BucketModel+" (key "+wire.ModelKeyPosteriors+")\n"+
			"every 50 outcomes and every 10 s; the decider hot-reloads them and, among candidates within\n"+
			"--tie-epsilon of the best calibrated probability, prefers the better success rate, then\n"+
			"latency, then cost, exploring a random near-tie with probability --explore (seeded by\n"+
			"--tie-seed and the task id; recorded on the decision as \"tie\"). Every 10 min the\n"+
			"calibration is refitted from the logged decisions' top candidates joined with labelled\n"+
			"outcomes and put under key "+wire.ModelKeyCalibration+" only when no worse on a held-out slice\n"+
			"(the reranker does not load it yet).\n"+
			"Ctrl-C stops it cleanly; the store keeps tasks, decisions and consumer positions.", stderr)
	data := fs.String("data", defaultDataDir(), "data folder for the JetStream store")
	cards := fs.String("cards", "", "folder of agent cards (default: the example catalog, "+exampleCatalog+")")
	listen := fs.String("nats-listen", natsbox.DefaultListen, "host:port the embedded NATS server listens on (port -1: any free port)")
	workers := fs.Int("workers", 1, "concurrent workers per stage")
	tasksAge := fs.Duration("tasks-max-age", pipeline.DefaultTasksMaxAge,
		"how long the TASKS stream keeps tasks (replay range; must exceed any backlog); negative: forever")
	dlAge := fs.Duration("deadletters-max-age", pipeline.DefaultDeadLettersMaxAge, "how long the DEADLETTER stream keeps dead letters; negative: forever")
	dlBytes := fs.Int64("deadletters-max-bytes", pipeline.DefaultDeadLettersMaxBytes, "size cap of the DEADLETTER stream, oldest dropped first; negative: none")
	syncAlways := fs.Bool("sync-always", false, "fsync every JetStream write (safer against machine crashes, slower)")
	tieEps := fs.Float64("tie-epsilon", decide.DefaultTieConfig.Epsilon, "decider: candidates within this calibrated probability of the best are near-ties, ordered by success rate")
	explore := fs.Float64("explore", decide.DefaultTieConfig.Explore, "decider: probability of putting a random near-tie first; 0: never")
	tieSeed := fs.Uint64("tie-seed", pipeline.DefaultTieSeed, "decider: seed of the per-task tie-break random source")
	logLevel := fs.String("log-level", "info", "log level: debug (one line per message), info, warn, error")
	mf := matcherFlags(fs)
	rf := refreshFlags(fs, "refresh")
	tf := trustFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: run takes no arguments (got %q)", errUsage, pos[0])
	}
	log, err := newLogger(*logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck

	dir := *cards
	if dir == "" {
		if dir, err = findExampleCatalog(); err != nil {
			return err
		}
	}
	files, errs := pipeline.ReadCards(dir)
	for _, e := range errs {
		log.Warn("card skipped", zap.String("task_id", ""), zap.Error(e))
	}
	if len(files) == 0 {
		return fmt.Errorf("no usable card in %s", dir)
	}

	srv, err := natsbox.Start(natsbox.Config{DataDir: *data, Listen: *listen, SyncAlways: *syncAlways, Log: log})
	if err != nil {
		return err
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	setup, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cfg := pipeline.Config{Workers: *workers, Log: log, TasksMaxAge: *tasksAge,
		DeadLettersMaxAge: *dlAge, DeadLettersMaxBytes: *dlBytes,
		Ties: &decide.TieConfig{Epsilon: *tieEps, Explore: *explore}, TieSeed: *tieSeed}
	if err := pipeline.SetupStreams(setup, js, cfg); err != nil {
		return err
	}
	// The folder's cards go into the catalog bucket (unchanged ones are
	// left alone); cards added earlier with `skillmatch cards add` stay.
	kv, err := pipeline.CatalogKV(setup, js, "")
	if err != nil {
		return err
	}
	trust, err := tf.trust(setup)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, _, _, err := putChecked(setup, kv, f, trust); err != nil {
			log.Warn("card skipped", zap.String("task_id", ""), zap.String("file", f.Path), zap.Error(err))
		}
	}
	stages := pipeline.NewStages(nil)
	watch, err := stages.WatchCatalog(setup, kv, mf.matcher, log)
	if err != nil {
		return err
	}
	defer watch.Stop()
	mkv, err := pipeline.ModelKV(setup, js, "")
	if err != nil {
		return err
	}
	stopRefresh, err := rf.start(ctx, kv, mkv, mf.id(), trust, mf.matcher, log.With(zap.String("task_id", "")))
	if err != nil {
		return err
	}
	defer stopRefresh()
	g, err := pipeline.StartAll(setup, js, stages, cfg)
	if err != nil {
		return err
	}
	cat := stages.Matcher().Catalog()
	fmt.Fprintf(stdout, "skillmatch pipeline running: NATS on %s, store %s\n", srv.ClientURL(), *data)
	fmt.Fprintf(stdout, "catalog (bucket %s, loaded from %s): %d agents, %d skills (fingerprint %s)\n",
		wire.BucketCatalog, dir, len(cat.Agents), len(cat.Skills()), stages.Fingerprint())
	fmt.Fprintf(stdout, "try: skillmatch submit --nats %s \"book a flight to Lisbon on Friday\"\n", srv.ClientURL())
	fmt.Fprintln(stdout, "Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(stdout, "stopping...")
	g.Stop()
	if err := nc.Drain(); err != nil {
		log.Warn("drain", zap.String("task_id", ""), zap.Error(err))
	}
	return nil
}

// defaultDataDir is the user's cache folder, or a temporary one.
func defaultDataDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "skillmatch", "data")
	}
	return filepath.Join(os.TempDir(), "skillmatch-data")
}

// findExampleCatalog looks for the example catalog in the working folder
// and its parents, then beside the executable (bin/../examples/catalog).
func findExampleCatalog() (string, error) {
	var tried []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			tried = append(tried, filepath.Join(d, exampleCatalog))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		tried = append(tried, filepath.Join(filepath.Dir(exe), "..", exampleCatalog))
	}
	for _, p := range tried {
		if fi, err := os.Stat(filepath.Join(p, "cards")); err == nil && fi.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("example catalog not found: run from the repository or pass --cards DIR")
}

func newLogger(level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("%w: --log-level %q", errUsage, level)
	}
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(w), lvl)
	return zap.New(core), nil
}
