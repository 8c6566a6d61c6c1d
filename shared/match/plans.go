package match

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/plan"
)

// DefaultPlanSteps is the usual cap of a multi-skill plan: the default of
// the commands' --plan-steps.
const DefaultPlanSteps = 3

// coverDepth is how near the top of a part's ranking the skill chosen for
// the whole request must be to count as covering that part.
const coverDepth = 3

// WithPlanSteps lets Match answer a request with several intents with a
// plan of at most n steps (DefaultPlanSteps is the usual cap). Off by
// default (below 2): a matcher decides single skills, as the pipeline's
// decider does, unless its composition asks for plans.
func WithPlanSteps(n int) Option { return func(c *config) { c.planSteps = n } }

// partMatch is how one part of a request matched on its own.
type partMatch struct {
	part string
	d    decide.Decision
	opts []decide.Option
}

// planFor decides whether a request with several intents gets a plan: nil
// keeps the single decision whole. It returns nil for a request the
// splitter keeps whole, so a single-intent request takes exactly the usual
// path. A plan is made when the skill chosen for the whole request does
// not cover every part (one skill that does several parts is preferred)
// and at least two parts each delegate confidently to different skills.
func (m *Matcher) planFor(ctx context.Context, t *task.Task, req *extract.Requirement, whole decide.Decision) (*decide.Decision, error) {
	if m.cfg.planSteps < 2 || m.cfg.noSearch || t.Message.TaskID != "" {
		return nil, nil
	}
	if _, _, named := t.Constraints.Skill(); named {
		return nil, nil
	}
	parts := plan.Split(req.Need)
	if len(parts) < 2 {
		return nil, nil
	}
	matches := make([]partMatch, 0, len(parts))
	for _, p := range parts {
		pm, err := m.matchPart(ctx, t, req, p)
		if err != nil {
			return nil, err
		}
		matches = append(matches, pm)
	}
	if whole.Action == decide.Delegate && whole.Chosen != nil && covers(whole.Chosen.Key, matches, m.policy.Threshold) {
		return nil, nil
	}
	var steps []decide.Step
	for _, pm := range matches {
		if pm.d.Action != decide.Delegate || pm.d.Chosen == nil {
			continue // a part no skill takes confidently is dropped
		}
		merged := false
		for i := range steps {
			if steps[i].Chosen.Key == pm.d.Chosen.Key {
				// One skill doing several parts is one step.
				steps[i].Part += "; " + pm.part
				steps[i].Probability = min(steps[i].Probability, pm.d.Probability)
				merged = true
				break
			}
		}
		if !merged {
			steps = append(steps, decide.Step{Part: pm.part, Chosen: *pm.d.Chosen, Probability: pm.d.Probability})
		}
	}
	if len(steps) < 2 {
		return nil, nil
	}
	steps = capSteps(steps, m.cfg.planSteps)
	d := &decide.Decision{Action: decide.Plan, Steps: steps, Probability: steps[0].Probability}
	keys := make([]string, len(steps))
	for i, s := range steps {
		d.Probability = min(d.Probability, s.Probability)
		keys[i] = s.Chosen.Key
	}
	d.Reason = fmt.Sprintf("%d parts, %d delegated: %s", len(parts), len(steps), strings.Join(keys, " then "))
	return d, nil
}

// matchPart shortlists, ranks and decides one part of a request with the
// whole request's constraints; its delegation is settled (grants, hard
// filters) but recorded nowhere: a plan is not a follow-up target.
func (m *Matcher) matchPart(ctx context.Context, t *task.Task, req *extract.Requirement, part string) (partMatch, error) {
	preq := *req
	preq.Need, preq.History = part, nil
	sl, err := m.Shortlist(ctx, &preq)
	if err != nil {
		return partMatch{}, fmt.Errorf("plan part %q: %w", part, err)
	}
	ranked, _, err := m.RankDegraded(ctx, &preq, sl, nil)
	if err != nil {
		return partMatch{}, fmt.Errorf("plan part %q: %w", part, err)
	}
	d, opts := m.Decide(ranked)
	s := m.Settler(nil)
	s.Store = nil
	st, err := s.Settle(ctx, t, &preq, d, opts, "")
	if err != nil {
		return partMatch{}, fmt.Errorf("plan part %q: %w", part, err)
	}
	return partMatch{part: part, d: st.Decision, opts: opts}, nil
}

// covers says whether skill key does every part: it is the part's choice,
// or near the top of the part's ranking (the first coverDepth) while the
// part delegates to no other skill or key itself is confident for it.
func covers(key string, parts []partMatch, threshold float64) bool {
	for _, pm := range parts {
		if pm.d.Action == decide.Delegate && pm.d.Chosen != nil && pm.d.Chosen.Key == key {
			continue
		}
		found := false
		for i := 0; i < min(coverDepth, len(pm.opts)); i++ {
			o := pm.opts[i]
			if o.Key == key && (pm.d.Action != decide.Delegate || o.Prob >= threshold) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// capSteps keeps the n most probable steps, in the request's order.
func capSteps(steps []decide.Step, n int) []decide.Step {
	if len(steps) <= n {
		return steps
	}
	keep := make([]bool, len(steps))
	for k := 0; k < n; k++ {
		best := -1
		for i, s := range steps {
			if !keep[i] && (best < 0 || s.Probability > steps[best].Probability) {
				best = i
			}
		}
		keep[best] = true
	}
	out := make([]decide.Step, 0, n)
	for i, s := range steps {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out
}
