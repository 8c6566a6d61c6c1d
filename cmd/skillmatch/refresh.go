package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

const cardsRefreshUsage = "cards refresh --registry FILE [--once] [--every 5m] [--nats URL] [--allow-private]\n" +
	"       [--trust-keys FILE|URL] [--unsigned refuse|flag|accept] [--bad-signature refuse|flag|accept]\n" +
	"       [--eval-set DIR --eval-split dev]"

// cmdCardsRefresh is "skillmatch cards refresh": the catalog refresher of
// `skillmatch run --registry`, against a pipeline's NATS server.
func cmdCardsRefresh(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cards refresh", cardsRefreshUsage,
		"Keeps the catalog bucket "+wire.BucketCatalog+" in step with the agents a registry file lists:\n"+
			"fetches each agent's card from its well-known URL now and every --every, and\n"+
			"  - puts a new or changed card (a new revision; the stages re-embed it before serving it),\n"+
			"    after checking its signatures when --trust-keys, --unsigned or --bad-signature is set\n"+
			"    (a refused card is not put; the verdict is kept with the card otherwise);\n"+
			"  - leaves an unchanged card alone (same version and content);\n"+
			"  - marks an agent that fails degraded, then down after --failures failures, keeping its card;\n"+
			"  - removes an agent down for longer than --grace, or dropped from the registry.\n"+
			"The registry file is read again before every refresh. Each change is one log line. With\n"+
			"--eval-set, a refresh that changed the catalog is followed by an evaluation on the set's\n"+
			"tasks, logged next to the previous one (top-1, precision, coverage and their deltas).\n"+
			"--once refreshes once and prints what changed.", stderr)
	nf := addNATSFlags(fs)
	bucket := fs.String("bucket", wire.BucketCatalog, "catalog KV bucket")
	var rf app.RefreshFlags
	rf.Register(fs, "every")
	var tf app.TrustFlags
	tf.Register(fs)
	once := fs.Bool("once", false, "refresh once and exit")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	mf := matcherFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: cards refresh takes no arguments (got %q)", errUsage, pos[0])
	}
	if rf.Registry == "" {
		return fmt.Errorf("%w: cards refresh needs --registry FILE", errUsage)
	}
	if err := rf.Files(); err != nil {
		return err
	}
	log, err := app.NewLogger(*logLevel, stderr, app.LogConsole)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	trust, err := tf.Trust(ctx)
	if err != nil {
		return err
	}
	nc, js, kv, err := nf.connectCatalog(ctx, "skillmatch cards refresh", *bucket)
	if err != nil {
		return err
	}
	defer nc.Close()
	mkv, err := pipeline.ModelKV(ctx, js, "")
	if err != nil {
		return err
	}
	build, err := mf.Builder(log)
	if err != nil {
		return err
	}
	r, closeFetcher, err := rf.Refresher(kv, mkv, mf.ID(), trust, build, log)
	if err != nil {
		return err
	}
	defer closeFetcher()
	if !*once {
		fmt.Fprintf(stdout, "refreshing the agents of %s every %s; Ctrl-C to stop.\n", rf.Registry, rf.Every)
		r.Run(ctx)
		return nil
	}
	sum, err := r.Once(ctx)
	fmt.Fprintf(stdout, "refreshed %s: %d put, %d unchanged, %d health changes, %d removed, %d refused, %d failed\n",
		rf.Registry, sum.Put, sum.Unchanged, sum.Health, sum.Removed, sum.Refused, sum.Failed)
	if ev := sum.Eval; ev != nil {
		fmt.Fprintf(stdout, "evaluation: top-1 %.3f, precision %.3f, coverage %.3f", ev.Report.Top1, ev.Report.Precision, ev.Report.Coverage)
		if p := ev.Previous; p != nil {
			fmt.Fprintf(stdout, " (before: %.3f, %.3f, %.3f)", p.Top1, p.Precision, p.Coverage)
		}
		fmt.Fprintln(stdout)
	}
	return err
}
