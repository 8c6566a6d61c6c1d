package pipeline

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Reranker is the third stage: it scores the shortlist, and each part's
// of a request with several intents, and calibrates each fit, with the calibration from the model bucket when one is loaded
// (WatchModel) and each matcher's own otherwise.
type Reranker struct {
	snaps  *Snapshots
	cal    atomic.Pointer[calibration]
	calRev atomic.Uint64
}

// calibration is a calibrator loaded from the model bucket.
type calibration struct{ c calibrate.Calibrator }

// NewReranker returns the reranker over snaps.
func NewReranker(snaps *Snapshots) *Reranker { return &Reranker{snaps: snaps} }

// Handle implements Handler.
func (r *Reranker) Handle(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeShortlisted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap := r.snaps.snapshotFor(m.Catalog)
	if snap == nil {
		return res, fmt.Errorf("%w: shortlist over catalog %s, reranker has %s", ErrCatalogMismatch, m.Catalog, r.snaps.Fingerprint())
	}
	sl, err := shortlistFromWire(&m.Shortlist, snap.m.Index())
	if err != nil {
		return res, badInput(err)
	}
	ranked, note, err := snap.m.RankDegraded(ctx, &m.Requirement, sl, r.Calibrator())
	if err != nil {
		return res, err
	}
	out := wire.Ranked{V: wire.Version, TaskID: m.TaskID, Caller: m.Caller, Task: m.Task, Catalog: m.Catalog, Candidates: match.Options(ranked),
		Degraded: match.JoinDegraded(sl.Degraded, note)}
	if out.Candidates == nil {
		out.Candidates = []decide.Option{}
	}
	for _, p := range m.Parts {
		psl, err := shortlistFromWire(&p.Shortlist, snap.m.Index())
		if err != nil {
			return res, badInput(fmt.Errorf("plan part %q: %w", p.Part, err))
		}
		preq := match.PartRequirement(&m.Requirement, p.Part)
		pranked, _, err := snap.m.RankDegraded(ctx, &preq, psl, r.Calibrator())
		if err != nil {
			return res, fmt.Errorf("plan part %q: %w", p.Part, err)
		}
		pr := wire.PartRanked{Part: p.Part, Candidates: match.Options(pranked)}
		if pr.Candidates == nil {
			pr.Candidates = []decide.Option{}
		}
		out.Parts = append(out.Parts, pr)
	}
	data, err := wire.EncodeRanked(&out)
	return res.EmitEncoded(wire.SubjectRanked, MsgID(m.Caller, m.TaskID, "ranked"), data, err)
}

// SetCalibrator swaps in the calibration applied to every catalog
// snapshot, current and later ones, for the tasks ranked from now on (nil:
// each matcher's own, as it was built), with its model bucket revision.
func (r *Reranker) SetCalibrator(c calibrate.Calibrator, rev uint64) {
	if c == nil {
		r.cal.Store(nil)
	} else {
		r.cal.Store(&calibration{c: c})
	}
	r.calRev.Store(rev)
}

// Calibrator returns the calibration loaded with SetCalibrator (nil: each
// matcher's own).
func (r *Reranker) Calibrator() calibrate.Calibrator {
	if c := r.cal.Load(); c != nil {
		return c.c
	}
	return nil
}

// CalibrationRevision is the model bucket revision of the calibration
// applied (0: none loaded, each matcher's own).
func (r *Reranker) CalibrationRevision() uint64 { return r.calRev.Load() }
