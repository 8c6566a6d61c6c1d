// Package refresh keeps the catalog bucket in step with the agents a
// registry lists: it refreshes their cards (discover.Tracker) on an
// interval, checks each new card's signatures (Trust), and turns every
// outcome into a catalog change:
//
//   - a new or changed card is verified and put (a new revision, which the
//     stages re-embed before serving it); a card whose content is already
//     the bucket's is not put again;
//   - an agent that fails is kept with health degraded, then down once the
//     tracker says so, and back up when it answers again;
//   - an agent down for longer than the tracker's grace period, or dropped
//     from the registry, is removed;
//   - a card the signature policy refuses is not put; the catalog keeps
//     what it had.
//
// Every change is one log line (agent, url, outcome, revision). When an
// evaluation is configured (WithEval), a refresh that changed the catalog
// is followed by one, logged next to the previous one's figures.
package refresh

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/discovery/discover"
	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

// DefaultInterval is how often Run refreshes.
const DefaultInterval = 5 * time.Minute

// Tracker is what the refresher needs of a *discover.Tracker.
type Tracker interface {
	TrackRegistry(r *discover.Registry) (gone []string, err error)
	RefreshAll(ctx context.Context) []discover.Result
	State(rawURL string) (discover.AgentState, bool)
}

// Fetcher is what the refresher needs of a *discover.Fetcher: the catalog
// stores (and signatures cover) the card as the agent served it, which a
// refresh result carries only when that refresh read it; a card whose put
// failed is read once more when it is retried.
type Fetcher interface {
	Fetch(ctx context.Context, a discover.Agent, prev *discover.Cached) (*discover.Fetched, error)
}

// Catalog is the store the refresher writes: KV adapts the catalog
// bucket. Get and Remove wrap pipeline.ErrNoAgent for an unknown id; Put
// reports changed=false when the entry is already the current one.
type Catalog interface {
	Get(ctx context.Context, id string) (cardJSON []byte, st *catalog.Status, err error)
	Put(ctx context.Context, id string, cardJSON []byte, st *catalog.Status) (rev uint64, changed bool, err error)
	Remove(ctx context.Context, id string) error
	Load(ctx context.Context) (*catalog.Catalog, error)
}

// Option configures a Refresher.
type Option func(*config)

type config struct {
	interval time.Duration
	registry string
	trust    *Trust
	eval     EvalFunc
	// evalStore keeps the last evaluation (with what made the matcher)
	// across restarts; nil: in memory only.
	evalStore EvalStore
	matcher   string
	log       *zap.Logger
}

// WithInterval sets how often Run refreshes (default 5 min; d <= 0 keeps
// it).
func WithInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.interval = d
		}
	}
}

// WithRegistryFile reads the agents to track from a registry file (see
// discover.Registry) before every refresh, so editing the file adds and
// drops agents without a restart. A file that does not load is logged and
// the agents already tracked are still refreshed.
func WithRegistryFile(path string) Option { return func(c *config) { c.registry = path } }

// WithTrust checks every new card's signatures (default: no check).
func WithTrust(t *Trust) Option { return func(c *config) { c.trust = t } }

// WithEval evaluates the catalog after every refresh that changed it.
func WithEval(f EvalFunc) Option { return func(c *config) { c.eval = f } }

// WithLogger sets the logger (default: none).
func WithLogger(l *zap.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// Refresher keeps a catalog in step with the tracked agents. It is safe
// for concurrent use; refreshes run one at a time.
type Refresher struct {
	tracker Tracker
	fetcher Fetcher
	cat     Catalog
	cfg     config

	mu sync.Mutex
	// ids maps the URL of every agent seen to its id, to remove the card
	// of an agent the registry drops (the tracker returns its URL only).
	ids map[string]string
	// stale holds agents whose changed card could not be stored: the
	// tracker already counts it as held, so the next refresh would call it
	// unchanged and it would never reach the catalog.
	stale map[string]bool
	prev  *eval.Report
	// evalLoaded: the last evaluation was read from the store, and
	// evalNow says the next refresh evaluates whether or not the catalog
	// changed (none yet, or another matcher's).
	evalLoaded, evalNow bool
	why                 string
}

// New returns a Refresher that refreshes through tracker (built on
// fetcher) into cat.
func New(tracker Tracker, fetcher Fetcher, cat Catalog, opts ...Option) *Refresher {
	c := config{interval: DefaultInterval, log: zap.NewNop()}
	for _, o := range opts {
		o(&c)
	}
	return &Refresher{tracker: tracker, fetcher: fetcher, cat: cat, cfg: c, ids: map[string]string{}, stale: map[string]bool{}}
}

// Summary counts what one refresh did.
type Summary struct {
	Put       int // new or changed cards stored (a new revision)
	Unchanged int // cards already current
	Health    int // health changes stored (degraded, down, up again)
	Removed   int // cards removed: down past the grace period, or dropped from the registry
	Refused   int // cards the signature policy kept out
	Failed    int // fetches that failed this time
	// Eval is the evaluation run after the refresh, when one is
	// configured and the catalog changed.
	Eval *Evaluation
}

// Changed reports whether the refresh changed the catalog.
func (s Summary) Changed() bool { return s.Put+s.Health+s.Removed > 0 }

// Run refreshes once now and then every interval until ctx ends. Errors
// are logged, not fatal: an agent or the bucket failing once must not stop
// the others being kept fresh.
func (r *Refresher) Run(ctx context.Context) {
	t := time.NewTicker(r.cfg.interval)
	defer t.Stop()
	for {
		if _, err := r.Once(ctx); err != nil && ctx.Err() == nil {
			r.cfg.log.Error("catalog refresh incomplete", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once refreshes every tracked agent (after reading the registry file,
// when configured) and applies the outcomes to the catalog. The error
// joins what could not be applied; the rest is applied regardless.
func (r *Refresher) Once(ctx context.Context) (Summary, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var (
		sum  Summary
		errs []error
	)
	if r.cfg.registry != "" {
		if err := r.trackRegistry(ctx, &sum); err != nil {
			r.cfg.log.Error("registry not read; refreshing the agents already tracked", zap.String("registry", r.cfg.registry), zap.Error(err))
			errs = append(errs, err)
		}
	}
	for _, res := range r.tracker.RefreshAll(ctx) {
		if ctx.Err() != nil {
			break
		}
		if err := r.apply(ctx, res, &sum); err != nil {
			errs = append(errs, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	r.cfg.log.Debug("catalog refreshed", zap.Int("put", sum.Put), zap.Int("unchanged", sum.Unchanged), zap.Int("health", sum.Health),
		zap.Int("removed", sum.Removed), zap.Int("refused", sum.Refused), zap.Int("failed", sum.Failed))
	if r.cfg.eval != nil && r.cfg.evalStore != nil && !r.evalLoaded {
		r.loadEval(ctx)
	}
	if r.cfg.eval != nil && (sum.Changed() || r.evalNow) {
		ev, err := r.evaluate(ctx)
		if err != nil {
			r.cfg.log.Error("evaluation after catalog change failed", zap.Error(err))
			errs = append(errs, err)
		}
		sum.Eval = ev
	}
	return sum, errors.Join(errs...)
}

// trackRegistry reads the registry, tracks its agents and removes the
// cards of those it no longer lists.
func (r *Refresher) trackRegistry(ctx context.Context, sum *Summary) error {
	reg, err := discover.LoadRegistry(r.cfg.registry)
	if err != nil {
		return err
	}
	gone, err := r.tracker.TrackRegistry(reg)
	if err != nil {
		return fmt.Errorf("%s: %w", r.cfg.registry, err)
	}
	var errs []error
	for _, u := range gone {
		id := r.ids[u]
		delete(r.ids, u)
		delete(r.stale, u)
		if id == "" {
			continue // never fetched, so never put
		}
		if err := r.remove(ctx, id, u, "dropped from registry", sum); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// apply turns one refresh result into a catalog change.
func (r *Refresher) apply(ctx context.Context, res discover.Result, sum *Summary) error {
	if res.ID == "" {
		sum.Failed++ // the URL did not even resolve to an agent
		return nil
	}
	r.ids[res.URL] = res.ID
	switch res.Outcome {
	case discover.Removed:
		delete(r.stale, res.URL)
		return r.remove(ctx, res.ID, res.URL, string(discover.Removed), sum)
	case discover.Changed:
		return r.putCard(ctx, res, sum)
	case discover.Unchanged:
		if r.stale[res.URL] {
			return r.putCard(ctx, res, sum)
		}
		sum.Unchanged++
	default:
		sum.Failed++
	}
	return r.putHealth(ctx, res, sum)
}

func (r *Refresher) logger(id, url string) *zap.Logger {
	return r.cfg.log.With(zap.String("agent", id), zap.String("url", url))
}

// remove takes an agent out of the catalog; one it does not hold is not a
// change.
func (r *Refresher) remove(ctx context.Context, id, url, outcome string, sum *Summary) error {
	err := r.cat.Remove(ctx, id)
	if errors.Is(err, pipeline.ErrNoAgent) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("refresh: remove %s: %w", id, err)
	}
	sum.Removed++
	r.logger(id, url).Info("catalog change", zap.String("outcome", outcome))
	return nil
}

// putCard stores a new or changed card after the signature check.
func (r *Refresher) putCard(ctx context.Context, res discover.Result, sum *Summary) error {
	log := r.logger(res.ID, res.URL)
	raw, err := r.raw(ctx, res)
	if err != nil {
		r.stale[res.URL] = true
		sum.Failed++
		log.Warn("changed card not read again; retrying next refresh", zap.Error(err))
		return nil
	}
	// A refresh keeps what an operator set (the clearance, say); the
	// agent answered, so it is up.
	rev, changed, isNew, sig, err := PutVerified(ctx, r.cat, r.cfg.trust, res.ID, raw, func(cur catalog.Status, _ bool) catalog.Status {
		cur.Health = catalog.Up
		return cur
	})
	if errors.Is(err, ErrRefused) {
		// The tracker now holds this content, so it is refused once, not
		// on every refresh; the catalog keeps whatever it had.
		delete(r.stale, res.URL)
		sum.Refused++
		log.Warn("catalog change", zap.String("outcome", "refused"), zap.String("version", res.Version),
			zap.String("signature", string(sig.Status)), zap.String("reason", sig.Reason))
		return nil
	}
	if err != nil {
		r.stale[res.URL] = true
		return err
	}
	delete(r.stale, res.URL)
	if !changed {
		sum.Unchanged++
		return nil
	}
	sum.Put++
	outcome := "changed"
	if isNew {
		outcome = "new"
	}
	log.Info("catalog change", zap.String("outcome", outcome), zap.Uint64("revision", rev), zap.String("version", res.Version),
		zap.String("signature", sig.String()))
	return nil
}

// raw is the agent's card as served: the bytes the tracker's fetch read,
// or, for a card whose put is retried (the tracker only revalidated it
// since), read again. A card read again may have changed since the
// tracker read it; the newer one is what the agent serves now, and the
// tracker catches up on its next fetch.
func (r *Refresher) raw(ctx context.Context, res discover.Result) ([]byte, error) {
	if res.Raw != nil {
		return res.Raw, nil
	}
	a := discover.Agent{URL: res.URL, ID: res.ID}
	if st, ok := r.tracker.State(res.URL); ok {
		a = st.Agent // keeps the registry's allowPrivate
	}
	f, err := r.fetcher.Fetch(ctx, a, nil)
	if err != nil {
		return nil, err
	}
	if f.Hash != res.Hash {
		r.logger(res.ID, res.URL).Debug("card changed again since the refresh; storing the newer one")
	}
	return f.Raw, nil
}

// putHealth stores the tracker's health for an agent whose card did not
// change: degraded or down while it fails, up again when it answers.
func (r *Refresher) putHealth(ctx context.Context, res discover.Result, sum *Summary) error {
	if res.Health == "" || ctx.Err() != nil {
		return nil // abandoned, not the agent's failure
	}
	raw, cur, err := r.cat.Get(ctx, res.ID)
	if errors.Is(err, pipeline.ErrNoAgent) {
		// Refused, never fetched, or removed by an operator: a refresh
		// of an unchanged card does not bring it back.
		return nil
	}
	if err != nil {
		return fmt.Errorf("refresh: get %s: %w", res.ID, err)
	}
	st := catalog.DefaultStatus
	if cur != nil {
		st = *cur
	}
	if st.Health == res.Health {
		return nil
	}
	st.Health = res.Health
	rev, changed, err := r.cat.Put(ctx, res.ID, raw, &st)
	if err != nil {
		return fmt.Errorf("refresh: put %s: %w", res.ID, err)
	}
	if changed {
		sum.Health++
		r.logger(res.ID, res.URL).Info("catalog change", zap.String("outcome", string(res.Health)), zap.Uint64("revision", rev),
			zap.Int("failures", res.Failures))
	}
	return nil
}

// evaluate runs the evaluation on the catalog as it now is and logs it
// next to the previous run.
func (r *Refresher) evaluate(ctx context.Context) (*Evaluation, error) {
	cat, err := r.cat.Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("refresh: load catalog for evaluation: %w", err)
	}
	rep, err := r.cfg.eval(ctx, cat)
	if err != nil {
		return nil, err
	}
	ev := &Evaluation{Report: rep, Previous: r.prev}
	r.prev = rep
	why := "catalog changed"
	if r.evalNow {
		why = r.why
	}
	r.evalNow = false
	r.cfg.log.Info("evaluation after catalog change", append([]zap.Field{zap.String("why", why), zap.Int("agents", len(cat.Agents)),
		zap.String("matcher", r.cfg.matcher)}, ev.fields()...)...)
	if r.cfg.evalStore != nil {
		if err := r.cfg.evalStore.Save(ctx, EvalRecord{Matcher: r.cfg.matcher, At: time.Now().UTC(), Report: rep}); err != nil {
			r.cfg.log.Warn("evaluation not kept", zap.Error(err))
		}
	}
	return ev, nil
}

// loadEval reads the last evaluation from the store, and asks for one now
// when there is none or another matcher (embedder, model) made it.
func (r *Refresher) loadEval(ctx context.Context) {
	last, err := r.cfg.evalStore.Last(ctx)
	if err != nil {
		r.cfg.log.Warn("last evaluation not read; comparing with this process's only", zap.Error(err))
		r.evalLoaded = true
		return
	}
	r.evalLoaded = true
	switch {
	case last == nil || last.Report == nil:
		r.evalNow, r.why = true, "no evaluation yet"
	case last.Matcher != r.cfg.matcher:
		r.prev = last.Report
		r.evalNow, r.why = true, fmt.Sprintf("matcher changed from %s", last.Matcher)
	default:
		r.prev = last.Report
	}
}
