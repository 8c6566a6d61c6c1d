package pipeline

import (
	"context"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Retriever is the second stage: hard filters, then hybrid retrieval of
// the shortlist over the current catalog snapshot.
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
	return res.Emit(wire.SubjectShortlisted, MsgID(m.Caller, m.TaskID, "shortlisted"), &out)
}

// Ready is the stage's readiness (Stage.Ready): its index answers.
func (r *Retriever) Ready(ctx context.Context) error { return r.snaps.Ready(ctx) }
