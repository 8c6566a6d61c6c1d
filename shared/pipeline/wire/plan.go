package wire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/plan"
)

// StepRequests builds one A2A request per step of a plan decision, in
// order, with NewA2ARequest: each carries its step's part of the request
// as the message text (the task's files and metadata travel with every
// step but one that only hands an earlier step's result on, plan.HandsOn)
// and a decision id of its own (decisionID + "-s<n>"), so outcomes
// are reported per step. A step's agent not in cat, or a card with no
// interface, is an error: a plan's steps come from cat's filters.
// allowPrivate is the matcher's WithPrivateEndpoints.
func StepRequests(cat *catalog.Catalog, d decide.Decision, t *task.Task, decisionID string, allowPrivate bool) ([]*A2ARequest, error) {
	if d.Action != decide.Plan {
		return nil, nil
	}
	out := make([]*A2ARequest, 0, len(d.Steps))
	for i, s := range d.Steps {
		a, ok := cat.Agent(s.Chosen.AgentID)
		if !ok {
			return nil, fmt.Errorf("wire: plan step %d: agent %q is not in the catalog", i+1, s.Chosen.AgentID)
		}
		st := *t
		st.Message.Parts = []task.Part{{Text: s.Part}}
		for _, p := range t.Message.Parts {
			if p.File != nil && (i == 0 || !plan.HandsOn(s.Part)) {
				st.Message.Parts = append(st.Message.Parts, p)
			}
		}
		r, err := NewA2ARequest(a.Card, s.Chosen.SkillID, &st, StepDecisionID(decisionID, i+1),
			WithAllowPrivate(a.Status.AllowPrivate || allowPrivate))
		if err != nil {
			return nil, fmt.Errorf("wire: plan step %d: %w", i+1, err)
		}
		if r == nil {
			return nil, fmt.Errorf("wire: plan step %d: agent %q declares no interface", i+1, s.Chosen.AgentID)
		}
		out = append(out, r)
	}
	return out, nil
}

// StepDecisionID is the decision id of step n (from 1) of the plan
// decisionID: what the step's A2A request carries and its outcome names.
func StepDecisionID(decisionID string, n int) string { return fmt.Sprintf("%s-s%d", decisionID, n) }

// StepOf says whether id is the decision id of a step of the plan
// decisionID (StepDecisionID, n from 1 to MaxPlanSteps).
func StepOf(id, decisionID string) bool {
	rest, ok := strings.CutPrefix(id, decisionID+"-s")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(rest)
	return err == nil && n >= 1 && n <= MaxPlanSteps && strconv.Itoa(n) == rest
}
