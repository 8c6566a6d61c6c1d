package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/discovery/discover"
	"github.com/skillmatch/skillmatch/shared/discovery/refresh"
	"github.com/skillmatch/skillmatch/shared/discovery/signature"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// trustOpts are the signature flags of the commands that put cards.
type trustOpts struct {
	keys, unsigned, bad *string
}

func trustFlags(fs *flag.FlagSet) *trustOpts {
	return &trustOpts{
		keys: fs.String("trust-keys", "", "JWKS file or https URL of the keys trusted to sign agent cards; cards are then verified"),
		unsigned: fs.String("unsigned", "", "unsigned cards: refuse, flag or accept (default flag when cards are verified;\n"+
			"setting it turns verification on, even without --trust-keys)"),
		bad: fs.String("bad-signature", "", "cards whose signatures do not verify: refuse, flag or accept (default refuse when\n"+
			"cards are verified; setting it turns verification on)"),
	}
}

// trust returns the signature check, or nil when no signature flag is
// set: cards are then put unverified, as before signatures were checked,
// rather than refused for want of keys nobody configured.
func (o *trustOpts) trust(ctx context.Context) (*refresh.Trust, error) {
	if *o.keys == "" && *o.unsigned == "" && *o.bad == "" {
		return nil, nil
	}
	p := signature.DefaultPolicy
	for _, a := range []struct {
		flag, val string
		dst       *signature.Action
	}{{"--unsigned", *o.unsigned, &p.Unsigned}, {"--bad-signature", *o.bad, &p.Invalid}} {
		if a.val == "" {
			continue
		}
		act, err := signature.ParseAction(a.val)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, a.flag, err)
		}
		*a.dst = act
	}
	var (
		ks  signature.KeySet
		err error
	)
	switch k := *o.keys; {
	case k == "":
	case strings.HasPrefix(k, "https://") || strings.HasPrefix(k, "http://"):
		ks, err = signature.LoadJWKSURL(ctx, k, nil)
	default:
		ks, err = signature.LoadJWKSFile(k)
	}
	if err != nil {
		return nil, fmt.Errorf("--trust-keys: %w", err)
	}
	if *o.keys != "" && ks.Len() == 0 {
		// Every signed card would be refused or flagged: surely not meant.
		return nil, fmt.Errorf("--trust-keys %s: no usable signing key (skipped: %s)", *o.keys, strings.Join(ks.Skipped, "; "))
	}
	return &refresh.Trust{Keys: ks, Policy: p}, nil
}

// putChecked puts a card after the signature check. The verdict joins the
// card's status: the file's, else the agent's current one, so a re-added
// card keeps what the registry or an operator set.
func putChecked(ctx context.Context, kv jetstream.KeyValue, f pipeline.CardFile, trust *refresh.Trust) (rev uint64, changed bool, sig catalog.Signature, err error) {
	if trust == nil {
		rev, changed, err = pipeline.PutCard(ctx, kv, f.ID, f.Data, f.Status)
		return rev, changed, sig, err
	}
	if sig, err = trust.Check(f.Data); err != nil {
		return 0, false, sig, err
	}
	st := catalog.DefaultStatus
	if f.Status != nil {
		st = *f.Status
	} else {
		_, cur, err := pipeline.GetCard(ctx, kv, f.ID)
		switch {
		case err != nil && !errors.Is(err, pipeline.ErrNoAgent):
			return 0, false, sig, err
		case cur != nil:
			st = *cur
		}
	}
	st.Signature = sig
	rev, changed, err = pipeline.PutCard(ctx, kv, f.ID, f.Data, &st)
	return rev, changed, sig, err
}

// refreshOpts are the flags of the catalog refresher, shared by `run` and
// `cards refresh`.
type refreshOpts struct {
	registry     *string
	every        *time.Duration
	allowPrivate *bool
	failures     *int
	grace        *time.Duration
	evalSet      *string
	evalSplit    *string
	creds        credsFlag
}

func refreshFlags(fs *flag.FlagSet, everyName string) *refreshOpts {
	return &refreshOpts{
		registry: fs.String("registry", "", "registry file listing the agents to discover and keep fresh:\n"+
			`{"agents": [{"url": "https://agent.example.com", "id": "optional", "allowPrivate": false}]}`),
		every:        fs.Duration(everyName, refresh.DefaultInterval, "how often the registry's agents' cards are refreshed"),
		allowPrivate: fs.Bool("allow-private", false, "allow agents on private, loopback and link-local addresses"),
		failures:     fs.Int("failures", discover.DefaultFailureThreshold, "consecutive failed refreshes after which an agent is down (fewer: degraded)"),
		grace:        fs.Duration("grace", discover.DefaultGracePeriod, "how long after its first failure a down agent is removed from the catalog"),
		evalSet:      fs.String("eval-set", "", "golden set to evaluate the catalog on after every refresh that changes it"),
		evalSplit:    fs.String("eval-split", "dev", "split of --eval-set to evaluate"),
		creds:        credentialsFlag(fs),
	}
}

// refresher builds the catalog refresher for the catalog bucket; build
// makes the matcher the evaluation scores. The returned close releases
// the fetcher's connections.
func (o *refreshOpts) refresher(kv, mkv jetstream.KeyValue, matcherID string, trust *refresh.Trust, build pipeline.BuildFunc, log *zap.Logger) (*refresh.Refresher, func(), error) {
	// Read once now so a missing or malformed file stops the command
	// instead of leaving an empty refresher logging errors forever.
	if _, err := discover.LoadRegistry(*o.registry); err != nil {
		return nil, nil, fmt.Errorf("--registry: %w", err)
	}
	if *o.every <= 0 {
		return nil, nil, fmt.Errorf("%w: the refresh interval must be positive", errUsage)
	}
	fopts, err := o.creds.add([]discover.Option{discover.WithAllowPrivate(*o.allowPrivate), discover.WithLogger(log)})
	if err != nil {
		return nil, nil, err
	}
	f := discover.NewFetcher(fopts...)
	tr := discover.NewTracker(f, discover.WithFailureThreshold(*o.failures), discover.WithGracePeriod(*o.grace))
	opts := []refresh.Option{refresh.WithRegistryFile(*o.registry), refresh.WithInterval(*o.every),
		refresh.WithTrust(trust), refresh.WithLogger(log)}
	if *o.evalSet != "" {
		gs, err := golden.Load(*o.evalSet)
		if err != nil {
			return nil, nil, fmt.Errorf("--eval-set: %w", err)
		}
		tasks := gs.Split(*o.evalSplit)
		if len(tasks) == 0 {
			return nil, nil, fmt.Errorf("%w: split %q of %s has no tasks", errUsage, *o.evalSplit, *o.evalSet)
		}
		opts = append(opts, refresh.WithEval(refresh.GoldenEval(tasks, build)))
		if mkv != nil {
			opts = append(opts, refresh.WithEvalStore(refresh.KVEvalStore(mkv), matcherID))
		}
	}
	return refresh.New(tr, f, refresh.KV(kv), opts...), f.CloseIdleConnections, nil
}

// start runs the refresher in the background when --registry is set; the
// returned stop ends it and waits for it.
func (o *refreshOpts) start(ctx context.Context, kv, mkv jetstream.KeyValue, matcherID string, trust *refresh.Trust, build pipeline.BuildFunc, log *zap.Logger) (stop func(), err error) {
	if *o.registry == "" {
		return func() {}, nil
	}
	r, closeFetcher, err := o.refresher(kv, mkv, matcherID, trust, build, log)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	return func() {
		cancel()
		wg.Wait()
		closeFetcher()
	}, nil
}

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
	rf := refreshFlags(fs, "every")
	tf := trustFlags(fs)
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
	if *rf.registry == "" {
		return fmt.Errorf("%w: cards refresh needs --registry FILE", errUsage)
	}
	log, err := newLogger(*logLevel, stderr)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	trust, err := tf.trust(ctx)
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
	r, closeFetcher, err := rf.refresher(kv, mkv, mf.id(), trust, mf.matcher, log.With(zap.String("task_id", "")))
	if err != nil {
		return err
	}
	defer closeFetcher()
	if !*once {
		fmt.Fprintf(stdout, "refreshing the agents of %s every %s; Ctrl-C to stop.\n", *rf.registry, *rf.every)
		r.Run(ctx)
		return nil
	}
	sum, err := r.Once(ctx)
	fmt.Fprintf(stdout, "refreshed %s: %d put, %d unchanged, %d health changes, %d removed, %d refused, %d failed\n",
		*rf.registry, sum.Put, sum.Unchanged, sum.Health, sum.Removed, sum.Refused, sum.Failed)
	if ev := sum.Eval; ev != nil {
		fmt.Fprintf(stdout, "evaluation: top-1 %.3f, precision %.3f, coverage %.3f", ev.Report.Top1, ev.Report.Precision, ev.Report.Coverage)
		if p := ev.Previous; p != nil {
			fmt.Fprintf(stdout, " (before: %.3f, %.3f, %.3f)", p.Top1, p.Precision, p.Coverage)
		}
		fmt.Fprintln(stdout)
	}
	return err
}
