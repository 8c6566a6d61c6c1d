// Package feedback learns from what happened after a decision: per-skill
// Beta posteriors of the success rate (with mean latency and cost), and
// refits of the score calibration from logged decisions joined with
// labelled outcomes.
//
// It is a pure library: the feedback stage feeds it outcomes and publishes
// Posteriors.Snapshot and RefitResult.Model to the model KV; the decider
// reads the snapshot back (Restore) and passes the Posteriors to
// decide.Policy.BreakTies as its decide.Priors.
package feedback

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
)

// Outcome is what a caller reports after acting on a decision.
type Outcome struct {
	DecisionID string `json:"decisionId"`
	TaskID     string `json:"taskId,omitempty"`
	// Skill is the key ("agent/skill") of the skill that was tried.
	Skill   string `json:"skill"`
	Success bool   `json:"success"`
	// Latency ≤ 0 means not reported.
	Latency time.Duration `json:"latency,omitempty"`
	// Cost is counted as reported; a caller that omits it reports 0.
	Cost float64 `json:"cost,omitempty"`
	// RightSkill is, when known, the key of the skill that should have
	// been chosen ("" unknown, NoSkill when no skill fits).
	RightSkill string    `json:"rightSkill,omitempty"`
	At         time.Time `json:"at,omitzero"`
}

// NoSkill as an Outcome's RightSkill says no skill of the catalog fitted
// the task (the wire contract's "none").
const NoSkill = "none"

// Defaults of Posteriors.
const (
	// DefaultPriorWeight is what the prior is worth, in tasks.
	DefaultPriorWeight = 10.0
	// DefaultFleetMean is the fleet success rate assumed before any
	// outcome. It also smooths the pooled rate, as DefaultPriorWeight
	// pseudo-outcomes, so the first few outcomes cannot drive the prior
	// to 0 or 1.
	DefaultFleetMean = 0.8
	// DefaultEWMA is the weight of a new latency or cost in its
	// exponentially weighted moving average.
	DefaultEWMA = 0.1
	// DefaultSeenCapacity is how many recent outcome ids are remembered
	// to drop redeliveries.
	DefaultSeenCapacity = 100_000
	// DefaultSnapshotSeen is how many of the most recent outcome ids a
	// Snapshot carries, so a restored process still drops the
	// redelivery of an outcome it counted but had not acked.
	DefaultSnapshotSeen = 4096
)

// SnapshotVersion is the version of Snapshot this package writes and reads.
const SnapshotVersion = 1

// Errors.
var (
	ErrBadOutcome = errors.New("feedback: bad outcome")
	ErrSnapshot   = errors.New("feedback: bad snapshot")
)

// PosteriorOption configures NewPosteriors.
type PosteriorOption func(*postConfig)

type postConfig struct {
	priorWeight  float64
	fleetMean    float64
	ewma         float64
	seenCap      int
	snapshotSeen int
	maxWeight    float64
}

// WithPriorWeight sets what the prior is worth in tasks (default 10).
func WithPriorWeight(w float64) PosteriorOption { return func(c *postConfig) { c.priorWeight = w } }

// WithFleetMean sets the success rate assumed before any outcome
// (default 0.8).
func WithFleetMean(m float64) PosteriorOption { return func(c *postConfig) { c.fleetMean = m } }

// WithEWMA sets the weight of a new latency or cost (default 0.1).
func WithEWMA(a float64) PosteriorOption { return func(c *postConfig) { c.ewma = a } }

// WithSeenCapacity sets how many recent outcome ids are remembered to drop
// redeliveries (default 100,000; the oldest are forgotten first).
func WithSeenCapacity(n int) PosteriorOption { return func(c *postConfig) { c.seenCap = n } }

// WithSnapshotSeen sets how many recent outcome ids a Snapshot carries
// (default 4096; 0 none).
func WithSnapshotSeen(n int) PosteriorOption { return func(c *postConfig) { c.snapshotSeen = n } }

// WithMaxWeight caps the evidence per skill at n outcomes: beyond it, the
// success and failure counts are scaled down together, so an old record
// cannot outweigh a recent change for ever (0, the default, keeps every
// outcome at full weight).
func WithMaxWeight(n float64) PosteriorOption { return func(c *postConfig) { c.maxWeight = n } }

// SkillStats is what is known of one skill.
type SkillStats struct {
	// Successes and Failures are the observed counts (fractional once
	// WithMaxWeight scales them down).
	Successes float64 `json:"successes"`
	Failures  float64 `json:"failures"`
	// LatencyMS is the moving average of reported latencies, over
	// LatencyN reports.
	LatencyMS float64 `json:"latencyMs,omitempty"`
	LatencyN  int64   `json:"latencyN,omitempty"`
	// Cost is the moving average of costs, over CostN reports.
	Cost  float64   `json:"cost,omitempty"`
	CostN int64     `json:"costN,omitempty"`
	Last  time.Time `json:"last,omitzero"`
}

// Snapshot is the JSON-serialisable state of Posteriors, for the model KV.
type Snapshot struct {
	V           int                   `json:"v"`
	PriorWeight float64               `json:"priorWeight"`
	FleetMean   float64               `json:"fleetMean"`
	Skills      map[string]SkillStats `json:"skills"`
	// Seen are the most recent outcome ids, oldest first.
	Seen []string `json:"seen,omitempty"`
	// Observed counts the outcomes ever counted; Duplicates those dropped.
	Observed   int64     `json:"observed"`
	Duplicates int64     `json:"duplicates"`
	TakenAt    time.Time `json:"takenAt,omitzero"`
}

// Posteriors keeps a Beta posterior of the success rate of each skill,
// keyed by "<agent>/<skill>". The prior of every skill is worth
// PriorWeight tasks at the fleet mean μ: α0 = w·μ, β0 = w·(1−μ), where μ
// is the success rate pooled over every counted outcome, smoothed towards
// DefaultFleetMean by w pseudo-outcomes: μ = (S + w·m0)/(N + w). The
// prior moves as the fleet learns, so it is applied when a mean or an
// interval is asked for, never stored.
//
// Duplicates: an outcome is identified by its DecisionID and Skill. A
// second outcome with the same pair is a redelivery and is ignored; an
// outcome for another skill under the same decision (a fallback that was
// tried after the chosen skill failed) is counted.
//
// Posteriors is safe for concurrent use.
type Posteriors struct {
	cfg postConfig

	mu         sync.RWMutex
	skills     map[string]*SkillStats
	succ, fail float64 // pooled over skills: the sums of their counts
	observed   int64
	duplicates int64
	seen       map[string]struct{}
	seenOrder  []string // ring of seen ids, oldest at seenHead
	seenHead   int
}

// NewPosteriors returns empty posteriors.
func NewPosteriors(opts ...PosteriorOption) *Posteriors {
	cfg := postConfig{
		priorWeight:  DefaultPriorWeight,
		fleetMean:    DefaultFleetMean,
		ewma:         DefaultEWMA,
		seenCap:      DefaultSeenCapacity,
		snapshotSeen: DefaultSnapshotSeen,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if !(cfg.priorWeight > 0) || math.IsInf(cfg.priorWeight, 0) {
		cfg.priorWeight = DefaultPriorWeight
	}
	if !(cfg.fleetMean > 0 && cfg.fleetMean < 1) {
		cfg.fleetMean = DefaultFleetMean
	}
	if !(cfg.ewma > 0 && cfg.ewma <= 1) {
		cfg.ewma = DefaultEWMA
	}
	if cfg.seenCap < 1 {
		cfg.seenCap = 1
	}
	cfg.snapshotSeen = min(max(cfg.snapshotSeen, 0), cfg.seenCap)
	if !(cfg.maxWeight > 0) {
		cfg.maxWeight = 0
	}
	return &Posteriors{cfg: cfg, skills: map[string]*SkillStats{}, seen: map[string]struct{}{}}
}

func outcomeID(o *Outcome) string { return o.DecisionID + "\x00" + o.Skill }

// Observe counts an outcome. It reports whether the outcome was counted:
// false with a nil error for a redelivery, false with an error wrapping
// ErrBadOutcome for an outcome without a decision id or skill, or with a
// negative or non-finite cost.
func (p *Posteriors) Observe(o Outcome) (bool, error) {
	if o.DecisionID == "" {
		return false, fmt.Errorf("%w: no decision id", ErrBadOutcome)
	}
	if o.Skill == "" {
		return false, fmt.Errorf("%w: decision %s: no skill", ErrBadOutcome, o.DecisionID)
	}
	if !(o.Cost >= 0) || math.IsInf(o.Cost, 0) {
		return false, fmt.Errorf("%w: decision %s: cost %v", ErrBadOutcome, o.DecisionID, o.Cost)
	}
	id := outcomeID(&o)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.seen[id]; dup {
		p.duplicates++
		return false, nil
	}
	p.remember(id)
	p.observed++
	s := p.skills[o.Skill]
	if s == nil {
		s = &SkillStats{}
		p.skills[o.Skill] = s
	}
	if o.Success {
		s.Successes++
		p.succ++
	} else {
		s.Failures++
		p.fail++
	}
	if w := p.cfg.maxWeight; w > 0 {
		if n := s.Successes + s.Failures; n > w {
			p.succ -= s.Successes * (1 - w/n)
			p.fail -= s.Failures * (1 - w/n)
			s.Successes *= w / n
			s.Failures *= w / n
		}
	}
	if o.Latency > 0 {
		ms := float64(o.Latency) / float64(time.Millisecond)
		s.LatencyMS = p.ewma(s.LatencyMS, s.LatencyN, ms)
		s.LatencyN++
	}
	s.Cost = p.ewma(s.Cost, s.CostN, o.Cost)
	s.CostN++
	if o.At.After(s.Last) {
		s.Last = o.At
	}
	return true, nil
}

// ewma folds x into an average over n values: the running mean while n is
// below 1/α (so the first values are not dominated by the first one), the
// exponential average after.
func (p *Posteriors) ewma(avg float64, n int64, x float64) float64 {
	a := max(p.cfg.ewma, 1/float64(n+1))
	return avg + a*(x-avg)
}

// remember adds id to the ring of seen ids, forgetting the oldest when it
// is full. The caller holds the lock.
func (p *Posteriors) remember(id string) {
	if len(p.seenOrder) < p.cfg.seenCap {
		p.seenOrder = append(p.seenOrder, id)
	} else {
		delete(p.seen, p.seenOrder[p.seenHead])
		p.seenOrder[p.seenHead] = id
		p.seenHead = (p.seenHead + 1) % len(p.seenOrder)
	}
	p.seen[id] = struct{}{}
}

// fleetMean is μ. The caller holds the lock.
func (p *Posteriors) fleetMean() float64 {
	w := p.cfg.priorWeight
	return (p.succ + w*p.cfg.fleetMean) / (p.succ + p.fail + w)
}

// FleetMean is the pooled success rate μ the priors are centred on.
func (p *Posteriors) FleetMean() float64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.fleetMean()
}

// beta is the posterior (α, β) of a skill and whether it has outcomes.
func (p *Posteriors) beta(skill string) (a, b float64, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	mu, w := p.fleetMean(), p.cfg.priorWeight
	a, b = w*mu, w*(1-mu)
	if s := p.skills[skill]; s != nil {
		return a + s.Successes, b + s.Failures, true
	}
	return a, b, false
}

// Mean is the posterior mean success rate of a skill, and whether any
// outcome of it was counted; for a skill without outcomes it is the prior
// mean, the fleet mean. It implements decide.Priors.
func (p *Posteriors) Mean(skill string) (float64, bool) {
	a, b, ok := p.beta(skill)
	return a / (a + b), ok
}

// Interval is the equal-tailed credible interval of a skill's success rate
// holding the given probability mass (level in (0, 1), e.g. 0.95),
// computed from the Beta posterior's quantiles to about 1e-9. A level
// outside (0, 1) gives [0, 1].
func (p *Posteriors) Interval(skill string, level float64) (lo, hi float64) {
	if !(level > 0 && level < 1) {
		return 0, 1
	}
	a, b, _ := p.beta(skill)
	tail := (1 - level) / 2
	return BetaQuantile(a, b, tail), BetaQuantile(a, b, 1-tail)
}

// Latency is the moving average latency of a skill, false when none was
// reported. It implements decide.Costs.
func (p *Posteriors) Latency(skill string) (time.Duration, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := p.skills[skill]
	if s == nil || s.LatencyN == 0 {
		return 0, false
	}
	return time.Duration(s.LatencyMS * float64(time.Millisecond)), true
}

// Cost is the moving average cost of a skill, false when it has no
// outcomes. It implements decide.Costs.
func (p *Posteriors) Cost(skill string) (float64, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := p.skills[skill]
	if s == nil || s.CostN == 0 {
		return 0, false
	}
	return s.Cost, true
}

// Stats returns what is known of a skill.
func (p *Posteriors) Stats(skill string) (SkillStats, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := p.skills[skill]
	if s == nil {
		return SkillStats{}, false
	}
	return *s, true
}

// Skills lists the skills with outcomes, sorted.
func (p *Posteriors) Skills() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	keys := make([]string, 0, len(p.skills))
	for k := range p.skills {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Snapshot returns a copy of the state, stamped with the time it was taken.
func (p *Posteriors) Snapshot() Snapshot {
	p.mu.RLock()
	defer p.mu.RUnlock()
	snap := Snapshot{
		V:           SnapshotVersion,
		PriorWeight: p.cfg.priorWeight,
		FleetMean:   p.cfg.fleetMean,
		Skills:      make(map[string]SkillStats, len(p.skills)),
		Observed:    p.observed,
		Duplicates:  p.duplicates,
		TakenAt:     time.Now().UTC(),
	}
	for k, s := range p.skills {
		snap.Skills[k] = *s
	}
	// The ring in order oldest first, then its last snapshotSeen ids.
	ordered := append(append([]string(nil), p.seenOrder[p.seenHead:]...), p.seenOrder[:p.seenHead]...)
	if n := p.cfg.snapshotSeen; len(ordered) > n {
		ordered = ordered[len(ordered)-n:]
	}
	if len(ordered) > 0 {
		snap.Seen = ordered
	}
	return snap
}

// Restore replaces the state with a snapshot's. The snapshot's prior
// weight and fleet mean replace the configured ones, so every reader of a
// snapshot computes the same posteriors. The pooled rate is rebuilt from
// the skills' counts. It returns an error wrapping ErrSnapshot, and changes
// nothing, when the snapshot is of another version or holds invalid
// numbers.
func (p *Posteriors) Restore(s Snapshot) error {
	if s.V != SnapshotVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrSnapshot, s.V, SnapshotVersion)
	}
	if !(s.PriorWeight > 0) || math.IsInf(s.PriorWeight, 0) {
		return fmt.Errorf("%w: prior weight %v", ErrSnapshot, s.PriorWeight)
	}
	if !(s.FleetMean > 0 && s.FleetMean < 1) {
		return fmt.Errorf("%w: fleet mean %v", ErrSnapshot, s.FleetMean)
	}
	skills := make(map[string]*SkillStats, len(s.Skills))
	var succ, fail float64
	for k, st := range s.Skills {
		if k == "" || !count(st.Successes) || !count(st.Failures) || !count(st.LatencyMS) ||
			!count(st.Cost) || st.LatencyN < 0 || st.CostN < 0 {
			return fmt.Errorf("%w: skill %q: invalid stats %+v", ErrSnapshot, k, st)
		}
		st := st
		skills[k] = &st
		succ += st.Successes
		fail += st.Failures
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg.priorWeight, p.cfg.fleetMean = s.PriorWeight, s.FleetMean
	p.skills, p.succ, p.fail = skills, succ, fail
	p.observed, p.duplicates = s.Observed, s.Duplicates
	p.seen, p.seenOrder, p.seenHead = map[string]struct{}{}, nil, 0
	for _, id := range s.Seen {
		if _, dup := p.seen[id]; !dup {
			p.remember(id)
		}
	}
	return nil
}

// count reports whether x is a finite non-negative number.
func count(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
