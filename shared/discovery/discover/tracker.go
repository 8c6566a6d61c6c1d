package discover

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
)

// Tracker defaults.
const (
	DefaultFailureThreshold = 3
	DefaultGracePeriod      = 24 * time.Hour
)

// Outcome of one refresh.
type Outcome string

const (
	// Unchanged: same version and content hash as the card already held;
	// nothing to re-index.
	Unchanged Outcome = "unchanged"
	// Changed: a new card (first fetch, or a different version or
	// content). It must be re-embedded and re-indexed before it is served,
	// and the old card's vectors dropped.
	Changed Outcome = "changed"
	// Failed: the fetch failed; the card held before, if any, is kept and
	// the failure counted.
	Failed Outcome = "failed"
	// Removed: the agent has failed for longer than the grace period; the
	// tracker has forgotten it and its card must leave the catalog.
	Removed Outcome = "removed"
)

// Result is the outcome of one refresh.
type Result struct {
	URL     string // the normalised base URL
	ID      string
	Outcome Outcome
	// Card is the card to serve after the refresh: the new one when
	// Changed, the held one otherwise; nil when Removed or never fetched.
	Card    *card.Card
	Version string
	Hash    string
	// Raw is the card's JSON as the agent served it when the fetch read
	// it (always when Changed); nil when revalidated or failed.
	Raw    []byte
	Health catalog.Health
	// Failures is the number of consecutive failed refreshes.
	Failures int
	// Err is the refresh's error (also returned by Refresh).
	Err error `json:"-"`
}

// AgentState is what the tracker keeps per agent.
type AgentState struct {
	Agent        Agent // URL normalised, ID resolved
	Card         *card.Card
	Source       string
	ETag         string
	Expires      time.Time
	Extended     bool
	Hash         string
	Version      string
	Health       catalog.Health
	Failures     int
	FirstFailure time.Time
	LastSuccess  time.Time
	LastError    string
}

// TrackerOption configures a Tracker.
type TrackerOption func(*Tracker)

// WithFailureThreshold sets after how many consecutive failures an agent
// is down (default 3). Fewer failures make it degraded.
func WithFailureThreshold(n int) TrackerOption {
	return func(t *Tracker) {
		if n > 0 {
			t.threshold = n
		}
	}
}

// DefaultParallel is how many agents RefreshAll fetches at once unless
// configured: a slow agent holds up only its own slot.
const DefaultParallel = 8

// WithParallel sets how many agents RefreshAll fetches at once (default
// DefaultParallel).
func WithParallel(n int) TrackerOption {
	return func(t *Tracker) {
		if n > 0 {
			t.parallel = n
		}
	}
}

// WithGracePeriod sets how long after its first consecutive failure a down
// agent is removed (default 24 h).
func WithGracePeriod(d time.Duration) TrackerOption {
	return func(t *Tracker) {
		if d >= 0 {
			t.grace = d
		}
	}
}

// Tracker keeps agents' cards fresh. Its clock is the Fetcher's
// (WithClock). It is safe for concurrent use; refreshes of one agent are
// serialised.
type Tracker struct {
	f         *Fetcher
	threshold int
	grace     time.Duration
	parallel  int

	mu     sync.Mutex
	agents map[string]*entry // by normalised URL
}

type entry struct {
	mu    sync.Mutex // held for a whole refresh
	state AgentState
}

// NewTracker returns a Tracker that fetches with f.
func NewTracker(f *Fetcher, opts ...TrackerOption) *Tracker {
	t := &Tracker{f: f, threshold: DefaultFailureThreshold, grace: DefaultGracePeriod, agents: map[string]*entry{}}
	for _, o := range opts {
		o(t)
	}
	return t
}

// resolveAgent normalises the URL and resolves the id.
func resolveAgent(a Agent) (Agent, error) {
	u, err := NormalizeURL(a.URL)
	if err != nil {
		return a, err
	}
	a.URL = u.String()
	if a.ID == "" {
		if a.ID, err = DeriveID(u); err != nil {
			return a, err
		}
	} else if !card.ValidID(a.ID) {
		return a, errBadID(a.ID)
	}
	return a, nil
}

// Track adds an agent, or updates the id and address policy of one
// already tracked (its state is kept).
func (t *Tracker) Track(a Agent) error {
	a, err := resolveAgent(a)
	if err != nil {
		return err
	}
	t.mu.Lock()
	e := t.agents[a.URL]
	if e == nil {
		t.agents[a.URL] = &entry{state: AgentState{Agent: a, Health: catalog.Up}}
		t.mu.Unlock()
		return nil
	}
	t.mu.Unlock()
	e.mu.Lock()
	e.state.Agent = a
	e.mu.Unlock()
	return nil
}

// TrackRegistry tracks every agent of r and forgets agents r no longer
// lists; it returns the URLs forgotten, whose cards must leave the
// catalog.
func (t *Tracker) TrackRegistry(r *Registry) ([]string, error) {
	keep := map[string]bool{}
	for _, a := range r.Agents {
		if err := t.Track(a); err != nil {
			return nil, err
		}
		a, _ = resolveAgent(a)
		keep[a.URL] = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []string
	for u := range t.agents {
		if !keep[u] {
			delete(t.agents, u)
			gone = append(gone, u)
		}
	}
	slices.Sort(gone)
	return gone, nil
}

// Untrack forgets an agent; it reports whether it was tracked.
func (t *Tracker) Untrack(rawURL string) bool {
	u, err := NormalizeURL(rawURL)
	if err != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.agents[u.String()]
	delete(t.agents, u.String())
	return ok
}

// State returns what the tracker holds for an agent.
func (t *Tracker) State(rawURL string) (AgentState, bool) {
	u, err := NormalizeURL(rawURL)
	if err != nil {
		return AgentState{}, false
	}
	t.mu.Lock()
	e := t.agents[u.String()]
	t.mu.Unlock()
	if e == nil {
		return AgentState{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state, true
}

// URLs lists the tracked agents' normalised URLs, sorted.
func (t *Tracker) URLs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.agents))
	for u := range t.agents {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// RefreshAll refreshes every tracked agent in turn, in URL order.
func (t *Tracker) RefreshAll(ctx context.Context) []Result {
	urls := t.URLs()
	out := make([]Result, len(urls))
	done := make([]bool, len(urls))
	n := t.parallel
	if n <= 0 {
		n = DefaultParallel
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, u := range urls {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], _ = t.Refresh(ctx, u)
			done[i] = true
		}()
	}
	wg.Wait()
	// In the URLs' order; agents not reached before ctx ended are left out.
	kept := out[:0]
	for i := range out {
		if done[i] {
			kept = append(kept, out[i])
		}
	}
	return kept
}

// Refresh fetches one agent's card (tracking it first if needed, with the
// default id and address policy) and says what changed. A fetch
// abandoned because ctx ended is not counted as the agent's failure.
func (t *Tracker) Refresh(ctx context.Context, rawURL string) (Result, error) {
	a, err := resolveAgent(Agent{URL: rawURL})
	if err != nil {
		return Result{URL: rawURL, Outcome: Failed, Err: err}, err
	}
	t.mu.Lock()
	e := t.agents[a.URL]
	if e == nil {
		e = &entry{state: AgentState{Agent: a, Health: catalog.Up}}
		t.agents[a.URL] = e
	}
	t.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	s := &e.state
	var prev *Cached
	if s.Card != nil {
		prev = &Cached{Card: s.Card, Source: s.Source, ETag: s.ETag, Expires: s.Expires, Extended: s.Extended}
	}
	log := t.f.cfg.log.With(zap.String("agent", s.Agent.ID), zap.String("url", s.Agent.URL))
	fetched, err := t.f.Fetch(ctx, s.Agent, prev)
	now := t.f.now()
	if err != nil {
		res := Result{URL: s.Agent.URL, ID: s.Agent.ID, Outcome: Failed, Card: s.Card, Version: s.Version, Hash: s.Hash, Err: err}
		if ctx.Err() != nil {
			res.Health, res.Failures = s.Health, s.Failures
			return res, err
		}
		s.Failures++
		if s.Failures == 1 {
			s.FirstFailure = now
		}
		s.LastError = err.Error()
		if s.Failures >= t.threshold {
			s.Health = catalog.Down
		} else {
			s.Health = catalog.Degraded
		}
		res.Health, res.Failures = s.Health, s.Failures
		if s.Failures >= t.threshold && now.Sub(s.FirstFailure) >= t.grace {
			t.mu.Lock()
			if t.agents[s.Agent.URL] == e {
				delete(t.agents, s.Agent.URL)
			}
			t.mu.Unlock()
			res.Outcome, res.Card = Removed, nil
			log.Info("agent removed", zap.Int("failures", s.Failures), zap.Time("firstFailure", s.FirstFailure), zap.Error(err))
			return res, err
		}
		log.Warn("card refresh failed", zap.Int("failures", s.Failures), zap.String("health", string(s.Health)), zap.Error(err))
		return res, err
	}

	outcome := Changed
	if s.Card != nil && fetched.Card.Version == s.Version && fetched.Hash == s.Hash {
		outcome = Unchanged
	}
	s.Card, s.Source, s.ETag, s.Expires, s.Extended = fetched.Card, fetched.Source, fetched.ETag, fetched.Expires, fetched.Extended
	s.Hash, s.Version = fetched.Hash, fetched.Card.Version
	s.Health, s.Failures, s.FirstFailure, s.LastError, s.LastSuccess = catalog.Up, 0, time.Time{}, "", now
	if outcome == Changed {
		log.Info("card changed", zap.String("version", s.Version), zap.String("hash", s.Hash))
	}
	return Result{
		URL: s.Agent.URL, ID: s.Agent.ID, Outcome: outcome, Card: s.Card,
		Version: s.Version, Hash: s.Hash, Raw: fetched.Raw, Health: s.Health,
	}, nil
}
