package app

import (
	"context"
	"flag"
	"fmt"
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
)

// TrustFlags are the signature flags of the commands that put cards.
type TrustFlags struct {
	Keys, Unsigned, Bad string
}

// Register defines --trust-keys, --unsigned and --bad-signature.
func (o *TrustFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&o.Keys, "trust-keys", "", "JWKS file or https URL of the keys trusted to sign agent cards; cards are then verified")
	fs.StringVar(&o.Unsigned, "unsigned", "", "unsigned cards: refuse, flag or accept (default flag when cards are verified;\n"+
		"setting it turns verification on, even without --trust-keys)")
	fs.StringVar(&o.Bad, "bad-signature", "", "cards whose signatures do not verify: refuse, flag or accept (default refuse when\n"+
		"cards are verified; setting it turns verification on)")
}

// Trust returns the signature check, or nil when no signature flag is
// set: cards are then put unverified, rather than refused for want of
// keys nobody configured.
func (o *TrustFlags) Trust(ctx context.Context) (*refresh.Trust, error) {
	if o.Keys == "" && o.Unsigned == "" && o.Bad == "" {
		return nil, nil
	}
	p := signature.DefaultPolicy
	for _, a := range []struct {
		flag, val string
		dst       *signature.Action
	}{{"--unsigned", o.Unsigned, &p.Unsigned}, {"--bad-signature", o.Bad, &p.Invalid}} {
		if a.val == "" {
			continue
		}
		act, err := signature.ParseAction(a.val)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUsage, a.flag, err)
		}
		*a.dst = act
	}
	var (
		ks  signature.KeySet
		err error
	)
	switch k := o.Keys; {
	case k == "":
	case strings.HasPrefix(k, "https://") || strings.HasPrefix(k, "http://"):
		// A fetch that fails may work on a second try: not bad input.
		if ks, err = signature.LoadJWKSURL(ctx, k, nil); err != nil {
			return nil, fmt.Errorf("--trust-keys: %w", err)
		}
	default:
		if ks, err = signature.LoadJWKSFile(k); err != nil {
			return nil, BadInput(fmt.Errorf("--trust-keys: %w", err))
		}
	}
	if o.Keys != "" && ks.Len() == 0 {
		// Every signed card would be refused or flagged: surely not meant.
		return nil, BadInput(fmt.Errorf("--trust-keys %s: no usable signing key (skipped: %s)", o.Keys, strings.Join(ks.Skipped, "; ")))
	}
	return &refresh.Trust{Keys: ks, Policy: p}, nil
}

// PutChecked puts a card file after the signature check
// (refresh.PutVerified, as the refresher does): with the file's status,
// else the agent's current one, so a re-added card keeps what the
// registry or an operator set.
func PutChecked(ctx context.Context, kv jetstream.KeyValue, f pipeline.CardFile, trust *refresh.Trust) (rev uint64, changed bool, sig catalog.Signature, err error) {
	rev, changed, _, sig, err = refresh.PutVerified(ctx, refresh.KV(kv), trust, f.ID, f.Data, func(cur catalog.Status, _ bool) catalog.Status {
		if f.Status != nil {
			return *f.Status
		}
		return cur
	})
	return rev, changed, sig, err
}

// CredentialsFlag is --agent-credentials: a file of extended card
// credentials per agent URL (discover.LoadCredentials).
type CredentialsFlag struct{ Path string }

// Register defines --agent-credentials.
func (c *CredentialsFlag) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.Path, "agent-credentials", "", "JSON file of credentials per agent URL for authenticated extended cards:\n"+
		`{"https://agent.example.com": {"bearer": "TOKEN"}} or {"...": {"header": {"X-Api-Key": "KEY"}}}`)
}

// Add appends the credentials option when the flag is set.
func (c *CredentialsFlag) Add(opts []discover.Option) ([]discover.Option, error) {
	if c.Path == "" {
		return opts, nil
	}
	byURL, err := discover.LoadCredentials(c.Path)
	if err != nil {
		return nil, BadInput(fmt.Errorf("--agent-credentials: %w", err))
	}
	return append(opts, discover.WithCredentials(byURL)), nil
}

// RefreshFlags are the flags of the catalog refresher, shared by `run`
// and `cards refresh`.
type RefreshFlags struct {
	Registry     string
	Every        time.Duration
	AllowPrivate bool
	Failures     int
	Grace        time.Duration
	EvalSet      string
	EvalSplit    string
	Credentials  CredentialsFlag
}

// Register defines the refresher flags; everyName names the interval flag
// (`run --refresh`, `cards refresh --every`).
func (o *RefreshFlags) Register(fs *flag.FlagSet, everyName string) {
	fs.StringVar(&o.Registry, "registry", "", "registry file listing the agents to discover and keep fresh:\n"+
		`{"agents": [{"url": "https://agent.example.com", "id": "optional", "allowPrivate": false}]}`)
	fs.DurationVar(&o.Every, everyName, refresh.DefaultInterval, "how often the registry's agents' cards are refreshed")
	fs.BoolVar(&o.AllowPrivate, "allow-private", false, "allow agents on private, loopback and link-local addresses")
	fs.IntVar(&o.Failures, "failures", discover.DefaultFailureThreshold, "consecutive failed refreshes after which an agent is down (fewer: degraded)")
	fs.DurationVar(&o.Grace, "grace", discover.DefaultGracePeriod, "how long after its first failure a down agent is removed from the catalog")
	fs.StringVar(&o.EvalSet, "eval-set", "", "golden set to evaluate the catalog on after every refresh that changes it")
	fs.StringVar(&o.EvalSplit, "eval-split", "dev", "split of --eval-set to evaluate")
	o.Credentials.Register(fs)
}

// Files reads the registry and the agent credentials the flags name, so
// that a command stops on a bad one before it starts anything (nil
// without --registry).
func (o *RefreshFlags) Files() error {
	if o.Registry == "" {
		return nil
	}
	if err := firstError(positive("--failures", o.Failures), positive("--grace", o.Grace)); err != nil {
		return err
	}
	if _, err := discover.LoadRegistry(o.Registry); err != nil {
		return BadInput(fmt.Errorf("--registry: %w", err))
	}
	_, err := o.Credentials.Add(nil)
	return err
}

// Refresher builds the catalog refresher for the catalog bucket, after
// the command has called Files; build makes the matcher the evaluation
// scores. The returned close releases the fetcher's connections.
func (o *RefreshFlags) Refresher(kv, mkv jetstream.KeyValue, matcherID string, trust *refresh.Trust, build BuildFunc, log *zap.Logger) (*refresh.Refresher, func(), error) {
	// The command read the files (Files) before it started anything, so
	// a missing or malformed one stopped it instead of leaving an empty
	// refresher logging errors forever.
	if o.Registry == "" {
		return nil, nil, fmt.Errorf("%w: no --registry", ErrUsage)
	}
	if o.Every <= 0 {
		return nil, nil, fmt.Errorf("%w: the refresh interval must be positive", ErrUsage)
	}
	fopts, err := o.Credentials.Add([]discover.Option{discover.WithAllowPrivate(o.AllowPrivate), discover.WithLogger(log)})
	if err != nil {
		return nil, nil, err
	}
	f := discover.NewFetcher(fopts...)
	tr := discover.NewTracker(f, discover.WithFailureThreshold(o.Failures), discover.WithGracePeriod(o.Grace))
	opts := []refresh.Option{refresh.WithRegistryFile(o.Registry), refresh.WithInterval(o.Every),
		refresh.WithTrust(trust), refresh.WithLogger(log)}
	if o.EvalSet != "" {
		gs, err := golden.Load(o.EvalSet)
		if err != nil {
			return nil, nil, fmt.Errorf("--eval-set: %w", err)
		}
		tasks := gs.Split(o.EvalSplit)
		if len(tasks) == 0 {
			return nil, nil, fmt.Errorf("%w: split %q of %s has no tasks", ErrUsage, o.EvalSplit, o.EvalSet)
		}
		opts = append(opts, refresh.WithEval(refresh.GoldenEval(tasks, build)))
		if mkv != nil {
			opts = append(opts, refresh.WithEvalStore(refresh.KVEvalStore(mkv), matcherID))
		}
	}
	return refresh.New(tr, f, refresh.KV(kv), opts...), f.CloseIdleConnections, nil
}

// StartRefresher runs the refresher in the background when --registry is
// set; the returned stop ends it and waits for it.
func (o *RefreshFlags) StartRefresher(ctx context.Context, kv, mkv jetstream.KeyValue, matcherID string, trust *refresh.Trust, build BuildFunc, log *zap.Logger) (stop func(), err error) {
	if o.Registry == "" {
		return func() {}, nil
	}
	r, closeFetcher, err := o.Refresher(kv, mkv, matcherID, trust, build, log)
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
