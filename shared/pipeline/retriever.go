package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/plan"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Retriever is the second stage: hard filters, then hybrid retrieval of
// the shortlist over the current catalog snapshot, and, for a request
// with several intents, of each part's shortlist (match.PlanParts), so
// that the decider can make the plan Match makes.
type Retriever struct {
	snaps *Snapshots
}

// NewRetriever returns the retriever over snaps.
func NewRetriever(snaps *Snapshots) *Retriever { return &Retriever{snaps: snaps} }

// Handle implements Handler.
func (r *Retriever) Handle(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeExtracted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap, err := r.snaps.current()
	if err != nil {
		return res, err
	}
	sl, err := snap.m.Shortlist(ctx, &m.Requirement)
	if err != nil {
		return res, err
	}
	out := wire.Shortlisted{V: wire.Version, TaskID: m.TaskID, Caller: m.Caller, Requirement: m.Requirement, Task: m.Task,
		Catalog: snap.fingerprint, Shortlist: shortlistToWire(sl)}
	parts, err := planParts(snap.m, m)
	if err != nil {
		return res, err
	}
	for _, part := range parts {
		preq := match.PartRequirement(&m.Requirement, part)
		psl, err := snap.m.Shortlist(ctx, &preq)
		if err != nil {
			return res, fmt.Errorf("plan part %q: %w", part, err)
		}
		out.Parts = append(out.Parts, wire.PartShortlist{Part: part, Shortlist: shortlistToWire(psl)})
	}
	data, err := wire.EncodeShortlisted(&out)
	return res.EmitEncoded(wire.SubjectShortlisted, MsgID(m.Caller, m.TaskID, "shortlisted"), data, err)
}

// planParts is m's request split into its intents when it gets a plan
// (match.Matcher.PlanParts), nil when it is kept whole. Most requests
// have one intent, which the requirement alone tells: the task, which
// the rest of the question needs, is decoded only for the others.
func planParts(mt *match.Matcher, m *wire.Extracted) ([]string, error) {
	if len(plan.SplitLoose(m.Requirement.Need)) < 2 {
		return nil, nil
	}
	var t task.Task
	if err := json.Unmarshal(m.Task, &t); err != nil {
		return nil, badInput(fmt.Errorf("extracted task %s: %w", m.TaskID, err))
	}
	return mt.PlanParts(&t, &m.Requirement), nil
}

// Ready is the stage's readiness (Stage.Ready): its index answers.
func (r *Retriever) Ready(ctx context.Context) error { return r.snaps.Ready(ctx) }
