package match

import (
	"context"
	"fmt"
	"slices"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// SelfCalibration is what a matcher learned about its own catalog at load
// time: how confident it is on requests no skill of the catalog takes.
// Every skill's own words are such a request once that skill (and any
// skill doing the same job) is left out: its card examples, or for a
// description-only card its description. The delegation threshold is
// raised until at most Tolerance of those pseudo-requests would be
// delegated, so that a catalog in which the model is over-confident on
// unknown requests gets a stricter operating point, and one in which it
// is not keeps the default.
type SelfCalibration struct {
	// Queries is how many pseudo-requests were asked.
	Queries int `json:"queries"`
	// NoMatchProb is the top candidates' calibrated probability on them,
	// at the tolerated quantile.
	NoMatchProb float64 `json:"noMatchProb"`
	// Threshold is the delegation threshold in force (never below the
	// policy's).
	Threshold float64 `json:"threshold"`
}

// Self-calibration limits: load time stays bounded at any catalog size,
// and a handful of pseudo-requests cannot move the threshold far.
const (
	selfCalMaxSkills  = 400  // skills sampled, evenly over the catalog
	selfCalPerSkill   = 2    // pseudo-requests per skill
	selfCalMinQueries = 12   // fewer: keep the policy as it is
	selfCalTolerance  = 0.1  // share of no-match pseudo-requests allowed through
	selfCalMaxRaise   = 0.15 // most the threshold rises
)

// WithSelfCalibration turns load-time self-calibration on or off
// (default off).
func WithSelfCalibration(on bool) Option { return func(c *config) { c.selfCal = on } }

// SelfCalibration returns what load-time self-calibration found (nil when
// it is off or the catalog was too small to say).
func (m *Matcher) SelfCalibration() *SelfCalibration { return m.selfCal }

// selfCalibrate asks the catalog's own pseudo-requests with their skill
// left out and adapts the policy's threshold. Deterministic: the same
// catalog and model give the same threshold.
func (m *Matcher) selfCalibrate(ctx context.Context) error {
	docs := m.idx.Len()
	if docs < 3 || m.cfg.noSearch {
		return nil
	}
	step := max(1, (docs+selfCalMaxSkills-1)/selfCalMaxSkills)
	var probs []float64
	for d := 0; d < docs; d += step {
		e := m.idx.Doc(d)
		queries := m.refs[d].skill.Examples
		if len(queries) == 0 {
			queries = []string{e.Description}
		}
		allow := make([]bool, docs)
		kept := 0
		for o := range allow {
			if o != d && !sameJob(e, m.idx.Doc(o)) {
				allow[o] = true
				kept++
			}
		}
		if kept == 0 {
			continue
		}
		for _, q := range queries[:min(len(queries), selfCalPerSkill)] {
			if len(analyze.Terms(q)) == 0 {
				continue
			}
			p, err := m.noMatchProb(ctx, q, allow)
			if err != nil {
				return fmt.Errorf("self-calibration: %w", err)
			}
			probs = append(probs, p)
		}
	}
	if len(probs) < selfCalMinQueries {
		return nil
	}
	slices.Sort(probs)
	q := probs[min(len(probs)-1, int(float64(len(probs))*(1-selfCalTolerance)))]
	sc := &SelfCalibration{Queries: len(probs), NoMatchProb: q, Threshold: m.policy.Threshold}
	if q > sc.Threshold {
		sc.Threshold = min(q, m.policy.Threshold+selfCalMaxRaise)
	}
	m.policy.Threshold = sc.Threshold
	m.selfCal = sc
	return nil
}

// noMatchProb is the calibrated probability of the best skill the allowed
// docs offer for text.
func (m *Matcher) noMatchProb(ctx context.Context, text string, allow []bool) (float64, error) {
	req := extract.Requirement{Need: text}
	sl := &Shortlist{Terms: analyze.Terms(text)}
	v, err := m.embedQuery(ctx, &req, text)
	if err != nil {
		return 0, err
	}
	sl.Vector = v
	res, err := m.idx.Search(ctx, index.Query{Text: text, Terms: sl.Terms, Vector: v, Allow: allow,
		Shortlist: m.cfg.shortlist, K: m.cfg.rrfK})
	if err != nil {
		return 0, err
	}
	rerank.Align(m.cfg.words, m.cfg.lexicon, text, res.Candidates)
	m.fillClasses(text, res.Candidates)
	sl.Retrieval = res
	ranked, err := m.RankCalibrated(ctx, &req, sl, nil)
	if err != nil || len(ranked) == 0 {
		return 0, err
	}
	best := 0.0
	for _, r := range ranked {
		best = max(best, r.Prob)
	}
	return best, nil
}
