package eval

import (
	"sort"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
)

// Group holds the figures of one group of tasks: the tasks of a category,
// or those whose right skill's card is of one kind. A user reads it to
// see where the lift over plain BM25 is lost and what to change: the
// overall figures of a catalog whose description-only skills rank first
// far less often than the others (0.588 of 148 against 0.775 of 356
// over the ten hostile sets, by this breakdown, 2026-12-06) hide it.
type Group struct {
	Name         string `json:"name"`
	Tasks        int    `json:"tasks"`
	WithExpected int    `json:"with_expected"`
	// Top1 and BM25Top1 are over the tasks with a right skill (BM25Top1
	// nil when the baseline was not computed or no task has one).
	Top1     float64  `json:"top1"`
	BM25Top1 *float64 `json:"bm25_top1,omitempty"`
	// Delegated counts the delegations, Precision the share of them that
	// went to a right skill.
	Delegated int     `json:"delegated"`
	Precision float64 `json:"precision"`
	// MeanProb is the top candidate's mean reported probability and
	// TopRight how often that candidate is right, over every task of the
	// group (a task with nothing ranked counts 0 and wrong, as for ECE):
	// the group's calibration gap, the sign telling over- from
	// under-confidence.
	MeanProb float64 `json:"mean_probability"`
	TopRight float64 `json:"top_right"`
}

// Card kinds of ByCard.
const (
	WithExamples    = "with examples"
	DescriptionOnly = "description only"
)

// ByCategory groups the outcomes by their task's category, in name order;
// tasks without one are left out. nil when no task has a category.
func ByCategory(outs []Outcome) []Group {
	return groups(outs, func(o *Outcome) string { return o.Task.Category })
}

// ByCard groups the outcomes with a right skill by whether the card of
// their expected skill gives examples (hasExamples). nil unless both
// kinds are present: a catalog of one kind has nothing to compare.
func ByCard(outs []Outcome, hasExamples func(key string) bool) []Group {
	gs := groups(outs, func(o *Outcome) string {
		switch {
		case o.Task.NoMatch():
			return ""
		case hasExamples(o.Task.Expected):
			return WithExamples
		default:
			return DescriptionOnly
		}
	})
	if len(gs) < 2 {
		return nil
	}
	return gs
}

// CardExamples reports whether a skill key of cat names a skill whose card
// gives examples.
func CardExamples(cat *catalog.Catalog) func(key string) bool {
	return func(key string) bool {
		r, ok := cat.Skill(key)
		return ok && len(r.Skill.Examples) > 0
	}
}

// groups scores the outcomes by the name each is given ("" leaves it
// out), in name order: Score's figures over each group's tasks.
func groups(outs []Outcome, name func(*Outcome) string) []Group {
	by := map[string][]Outcome{}
	for i := range outs {
		if n := name(&outs[i]); n != "" {
			by[n] = append(by[n], outs[i])
		}
	}
	if len(by) == 0 {
		return nil
	}
	out := make([]Group, 0, len(by))
	for n, in := range by {
		r := score(in)
		g := Group{Name: n, Tasks: r.Tasks, WithExpected: r.WithExpected, Top1: r.Top1,
			Delegated: r.Delegated, Precision: r.Precision}
		if r.BM25 != nil {
			b := r.BM25.Top1
			g.BM25Top1 = &b
		}
		var probs, right float64
		for i := range in {
			p, ok := in[i].top()
			probs += p
			if ok {
				right++
			}
		}
		g.MeanProb, g.TopRight = share(probs, g.Tasks), share(right, g.Tasks)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
