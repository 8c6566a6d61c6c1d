package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// PerTask is one line of a per-task file: what a user needs to find the
// tasks that went wrong and why.
type PerTask struct {
	ID         string   `json:"id"`
	Expected   *string  `json:"expected"` // null: no skill should take it
	Acceptable []string `json:"acceptable"`
	Top        string   `json:"top"`
	Decision   string   `json:"decision"`
	Chosen     string   `json:"chosen"`
	Prob       float64  `json:"probability"`
	Rank       int      `json:"rank"`
	BM25Rank   *int     `json:"bm25_rank,omitempty"`
	Category   string   `json:"category,omitempty"`
	// Reason is the decision's own reason: why it delegated, asked or
	// abstained.
	Reason string `json:"reason,omitempty"`
	// Fallbacks are a delegation's fallbacks, in order ("twins" tasks
	// want the other twin first).
	Fallbacks []string `json:"fallbacks,omitempty"`
	// Candidates are the skills a question names.
	Candidates []string `json:"candidates,omitempty"`
	// Steps are a plan's skills in order, and PlanProb the probability
	// the plan reports (its weakest step's); Prob stays the top
	// candidate's, which the calibration figures read.
	Steps    []string `json:"steps,omitempty"`
	PlanProb *float64 `json:"plan_probability,omitempty"`
}

// PerTaskOf turns an outcome into its per-task line.
func PerTaskOf(o *Outcome) PerTask {
	p := PerTask{ID: o.Task.ID, Acceptable: o.Task.Acceptable, Top: o.TopKey, Decision: string(o.Action),
		Chosen: o.Chosen, Prob: o.Prob, Rank: o.Rank, Category: o.Task.Category, Reason: o.Reason}
	if !o.Task.NoMatch() {
		e := o.Task.Expected
		p.Expected = &e
	}
	if p.Acceptable == nil {
		p.Acceptable = []string{} // a list either way, easier to read with jq
	}
	if o.BM25Ranked {
		r := o.BM25Rank
		p.BM25Rank = &r
	}
	p.Fallbacks, p.Candidates = o.Fallbacks, o.Asked
	if o.Action == decide.Plan {
		p.Steps = o.Delegated
		pp := o.DecisionProb
		p.PlanProb = &pp
	}
	return p
}

// WritePerTask writes one JSON line per outcome.
func WritePerTask(w io.Writer, outs []Outcome) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range outs {
		if err := enc.Encode(PerTaskOf(&outs[i])); err != nil {
			return fmt.Errorf("write per-task line %s: %w", outs[i].Task.ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write per-task lines: %w", err)
	}
	return nil
}
