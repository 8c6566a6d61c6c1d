// Package eval scores a matcher on labelled tasks with the figures every
// evaluation reports: recall@20, top-1, MRR, delegation precision,
// coverage, no-match refusal, ECE and per-task latency.
package eval

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// Report holds the figures; the JSON names are the documented ones.
type Report struct {
	Tasks     int     `json:"tasks"`
	RecallAt  float64 `json:"recall_at_20"`
	Top1      float64 `json:"top1"`
	MRR       float64 `json:"mrr"`
	Precision float64 `json:"precision"`
	Coverage  float64 `json:"coverage"`
	Refusal   float64 `json:"refusal"`
	ECE       float64 `json:"ece"`
	P50us     float64 `json:"p50_us"`
	P99us     float64 `json:"p99_us"`

	// Counts behind the shares, for the printed report.
	WithExpected int `json:"with_expected"`
	NoMatch      int `json:"no_match"`
	Delegated    int `json:"delegated"`
	Clarified    int `json:"clarified"`
	Abstained    int `json:"abstained"`
	// Planned counts the tasks given a multi-skill plan.
	Planned int `json:"planned,omitempty"`
	// Plan figures over the tasks with an expected plan (PlanTasks): a
	// step is right when its skill is in the task's expected plan; recall
	// is the share of expected skills delegated (by a plan's steps or a
	// single delegation), precision the share of delegated skills that
	// are right.
	PlanTasks     int     `json:"plan_tasks,omitempty"`
	PlanRecall    float64 `json:"plan_recall,omitempty"`
	PlanPrecision float64 `json:"plan_precision,omitempty"`
	// Degraded counts the tasks decided without a remote embedder or
	// reranker (match.Result.Degraded): figures of a run with many are
	// the built-in path's, not the remote model's.
	Degraded int `json:"degraded,omitempty"`

	// BM25 ranks the same filtered catalog by BM25 alone, for scale: what
	// skillmatch adds over the plainest retriever. Nil when not computed.
	BM25 *Baseline `json:"bm25,omitempty"`

	// ByCategory and ByCard break the figures down by the tasks'
	// categories and by the kind of card their right skill has (see
	// ByCategory, ByCard); nil when the set has none to break down.
	ByCategory []Group `json:"by_category,omitempty"`
	ByCard     []Group `json:"by_card,omitempty"`
}

// Baseline holds the ranking figures of a retriever with no model.
type Baseline struct {
	RecallAt float64 `json:"recall_at_20"`
	Top1     float64 `json:"top1"`
	MRR      float64 `json:"mrr"`
}

// Outcome is what the matcher did with one labelled task.
type Outcome struct {
	Task     *golden.Task
	InList   bool // an expected or acceptable skill is in the shortlist
	Rank     int  // 1-based rank of the first right skill after reranking, 0 if absent
	Action   decide.Action
	Reason   string  // the decision's reason
	Chosen   string  // delegated skill key
	TopKey   string  // top-ranked skill key
	Prob     float64 // the probability the decision reports for the top candidate (decide.Policy.Reported)
	TopScore float64 // reranker fit of the top candidate
	// Lead says whether the top candidate passes the margin rule (it leads
	// the runner-up by the margin, or the runner-up is the same agent), so
	// that a threshold sweep can replay the decision.
	Lead bool
	// Weighed, when not 0, is what the decider weighs against a threshold
	// where it is not Prob: a sibling pair whose best one is under the
	// clarify floor reports its pooled probability, but only the best
	// one's own is weighed.
	Weighed float64
	Latency time.Duration
	// BM25Rank is the 1-based rank of the first right skill when the
	// filtered catalog is ranked by BM25 alone, 0 if absent; BM25Ranked
	// says it was computed.
	BM25Rank   int
	BM25Ranked bool
	// Degraded is the task's match.Result.Degraded.
	Degraded string
	// Delegated lists the skill keys the decision delegates to: a plan's
	// steps in order, or the one chosen skill.
	Delegated []string
	// Fallbacks are a delegation's fallbacks, Asked a question's
	// candidates, in the decision's order.
	Fallbacks, Asked []string
	// DecisionProb is the probability the decision itself reports: for a
	// plan its weakest step's, where Prob stays the top candidate's.
	DecisionProb float64
}

// Run matches every task and scores the outcomes. progress, when not nil,
// is called after each task.
func Run(ctx context.Context, m *match.Matcher, tasks []golden.Task, progress func(done, total int)) (*Report, []Outcome, error) {
	outs := make([]Outcome, 0, len(tasks))
	base := NewPlainBM25(m)
	for i := range tasks {
		gt := &tasks[i]
		start := time.Now()
		res, err := m.Match(ctx, gt.ToTask())
		if err != nil {
			return nil, nil, fmt.Errorf("eval task %s: %w", gt.ID, err)
		}
		o := OutcomeOf(m.Policy(), gt, res, time.Since(start))
		o.BM25Rank, o.BM25Ranked = base.Rank(&res.Requirement, gt), true
		outs = append(outs, o)
		if progress != nil {
			progress(i+1, len(tasks))
		}
	}
	rep := Score(outs)
	rep.ByCard = ByCard(outs, CardExamples(m.Catalog()))
	return rep, outs, nil
}

// OutcomeOf records what the matcher did with one labelled task; policy
// orders the ranked candidates as the decider saw them.
func OutcomeOf(policy decide.Policy, gt *golden.Task, res *match.Result, latency time.Duration) Outcome {
	o := Outcome{Task: gt, Latency: latency, Action: res.Decision.Action, Reason: res.Decision.Reason, Degraded: res.Degraded}
	if res.Shortlist != nil && res.Shortlist.Retrieval != nil {
		for _, c := range res.Shortlist.Retrieval.Candidates {
			if gt.Correct(c.Entry.Key) {
				o.InList = true
				break
			}
		}
	}
	for r, c := range res.Ranked {
		if gt.Correct(c.Entry.Key) {
			o.Rank = r + 1
			break
		}
	}
	if len(res.Ranked) > 0 {
		opts := match.Options(res.Ranked)
		policy.Order(opts)
		o.TopKey, o.Prob, o.TopScore = opts[0].Key, policy.Reported(opts), opts[0].Score
		// A question between look-alikes is asked at any threshold.
		o.Lead = !policy.AsksLookAlikes(opts) &&
			(len(opts) < 2 || opts[0].Prob-opts[1].Prob >= policy.Margin || opts[1].AgentID == opts[0].AgentID)
		if _, ok := policy.Pooled(opts); ok {
			// The best skill and its sibling pool their probability
			// (decide), which the decision reports and the calibration
			// figures read. From the clarify floor up the decider weighs
			// the pooled one against any threshold, so a sweep does too;
			// under it, the best one's own under the margin rule.
			if opts[0].Prob >= policy.ClarifyFloor {
				o.Lead = true
			} else {
				o.Weighed = opts[0].Prob
			}
		}
	}
	if res.Decision.Chosen != nil {
		o.Chosen = res.Decision.Chosen.Key
		o.Delegated = []string{o.Chosen}
	}
	for _, s := range res.Decision.Steps {
		o.Delegated = append(o.Delegated, s.Chosen.Key)
	}
	for _, f := range res.Decision.Fallbacks {
		o.Fallbacks = append(o.Fallbacks, f.Key)
	}
	for _, c := range res.Decision.Candidates {
		o.Asked = append(o.Asked, c.Key)
	}
	o.DecisionProb = res.Decision.Probability
	return o
}

// Score computes the figures from outcomes, with their breakdown by
// category.
func Score(outs []Outcome) *Report {
	r := score(outs)
	r.ByCategory = ByCategory(outs)
	return r
}

// top is the top candidate's reported probability and whether it is
// right, as the calibration figures read them.
func (o *Outcome) top() (float64, bool) {
	if o.TopKey == "" {
		return 0, false // nothing ranked: the matcher is sure nothing fits
	}
	return o.Prob, o.Task.Correct(o.TopKey)
}

// score is Score without the breakdown.
func score(outs []Outcome) *Report {
	r := &Report{Tasks: len(outs)}
	var inList, top1, delegatedRight int
	var rr float64
	var expected, foundExpected, emitted, rightSteps int
	var bm Baseline
	bmRanked := false
	var probs []float64
	var labels []bool
	lat := make([]float64, 0, len(outs))
	for _, o := range outs {
		lat = append(lat, float64(o.Latency.Microseconds()))
		switch o.Action {
		case decide.Delegate:
			r.Delegated++
			if o.Task.Correct(o.Chosen) {
				delegatedRight++
			}
		case decide.Clarify:
			r.Clarified++
		case decide.Abstain:
			r.Abstained++
		case decide.Plan:
			r.Planned++
		}
		if len(o.Task.ExpectedPlan) > 0 {
			r.PlanTasks++
			want := make(map[string]bool, len(o.Task.ExpectedPlan))
			for _, k := range o.Task.ExpectedPlan {
				want[k] = true
			}
			expected += len(want)
			emitted += len(o.Delegated)
			found := map[string]bool{}
			for _, k := range o.Delegated {
				if want[k] {
					rightSteps++
					found[k] = true
				}
			}
			foundExpected += len(found)
		}
		if o.Degraded != "" {
			r.Degraded++
		}
		p, right := o.top()
		probs = append(probs, p)
		labels = append(labels, right)
		if o.Task.NoMatch() {
			r.NoMatch++
			if o.Action != decide.Delegate && o.Action != decide.Plan {
				r.Refusal++
			}
			continue
		}
		r.WithExpected++
		if o.BM25Ranked {
			bmRanked = true
			if o.BM25Rank == 1 {
				bm.Top1++
			}
			if o.BM25Rank > 0 && o.BM25Rank <= 20 {
				bm.RecallAt++
			}
			if o.BM25Rank > 0 {
				bm.MRR += 1 / float64(o.BM25Rank)
			}
		}
		if o.InList {
			inList++
		}
		if o.Rank == 1 {
			top1++
		}
		if o.Rank > 0 {
			rr += 1 / float64(o.Rank)
		}
		if o.Action == decide.Delegate {
			r.Coverage++
		}
	}
	r.RecallAt = share(float64(inList), r.WithExpected)
	r.Top1 = share(float64(top1), r.WithExpected)
	r.MRR = share(rr, r.WithExpected)
	r.Precision = share(float64(delegatedRight), r.Delegated)
	r.Coverage = share(r.Coverage, r.WithExpected)
	r.Refusal = share(r.Refusal, r.NoMatch)
	r.ECE = calibrate.ECE(probs, labels, 10)
	r.PlanRecall = share(float64(foundExpected), expected)
	r.PlanPrecision = share(float64(rightSteps), emitted)
	r.P50us, r.P99us = percentile(lat, 50), percentile(lat, 99)
	if bmRanked {
		r.BM25 = &Baseline{RecallAt: share(bm.RecallAt, r.WithExpected), Top1: share(bm.Top1, r.WithExpected),
			MRR: share(bm.MRR, r.WithExpected)}
	}
	return r
}

func share(n float64, of int) float64 {
	if of == 0 {
		return 0
	}
	return n / float64(of)
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(p/100*float64(len(s)-1) + 0.5)
	return s[i]
}
