package eval

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A threshold sweep replays the decider at every threshold, for a sibling
// pair over and under the clarify floor, alone or beside a close rival, and
// for a skill of two lines of services, which is asked about at any
// threshold from the floor up (found in review: a pair under the floor pooled its probability and the
// sweep never counted it, while the decider, at a threshold under the
// floor, delegates its best one on its own probability).
func TestSweepReplaysDecide(t *testing.T) {
	rk := func(agent string, p float64) match.Ranked {
		return match.Ranked{Scored: rerank.Scored{Candidate: index.Candidate{Entry: &index.Doc{Key: agent + "/x", AgentID: agent, SkillID: "x", Name: "X"}}}, Prob: p}
	}
	sibling := func(r match.Ranked) match.Ranked {
		r.AlikeOf, r.Alike, r.Sibling = "a/x", decide.AlikeTwin, true
		return r
	}
	otherLine := func(r match.Ranked) match.Ranked {
		r.AlikeOf, r.Alike = "a/x", decide.AlikeOtherLine
		return r
	}
	cases := map[string][]match.Ranked{
		"a pair under the floor":           {rk("a", 0.30), sibling(rk("b", 0.05))},
		"a pair under the floor, close":    {rk("a", 0.30), sibling(rk("b", 0.25))},
		"a pair over the floor":            {rk("a", 0.50), sibling(rk("b", 0.40))},
		"alone":                            {rk("a", 0.60)},
		"beside a close rival, no sibling": {rk("a", 0.60), rk("c", 0.55)},
		"another line of services":         {rk("a", 0.90), otherLine(rk("b", 0.30))},
		"another line, under the floor":    {rk("a", 0.30), otherLine(rk("b", 0.05))},
	}
	for name, ranked := range cases {
		for _, th := range []float64{0.1, 0.2, 0.25, 0.3, 0.32, 0.4, 0.5, 0.6, 0.7, 0.75, 0.9} {
			policy := decide.DefaultPolicy
			policy.Threshold = th
			opts := match.Options(ranked)
			policy.Order(opts)
			d := policy.Decide(opts)
			o := OutcomeOf(policy, &golden.Task{ID: "1", Expected: "a/x"}, &match.Result{Ranked: ranked, Decision: d}, 0)
			if got := o.delegatedAt(th); got != (d.Action == decide.Delegate) {
				t.Errorf("%s at threshold %.2f: the decider %s (p %.3f), the sweep delegated=%v", name, th, d.Action, d.Probability, got)
			}
		}
	}
}
