package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/runtime"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// DefaultTieSeed seeds the decider's per-task tie-break random source
// unless configured.
const DefaultTieSeed = 1

// DeciderConfig configures the decider.
type DeciderConfig struct {
	// Ties is the near-tie treatment, TieSeed the seed of its per-task
	// random source (decide.TieRand(seed, task id): every replica,
	// redelivery and replay of a task breaks its ties the same way; 0:
	// DefaultTieSeed).
	Ties    decide.TieConfig
	TieSeed uint64
	// Followups records delegations for follow-ups (nil: none; a task
	// that continues another is then refused).
	Followups settle.Store
	// Now stamps decisions (nil: time.Now).
	Now func() time.Time
	// Decided publishes each task's one decision (TaskIDs; nil: none,
	// the runner publishes it, and a redelivery after the streams' dedup
	// window decides again).
	Decided DecisionStore
}

// DecisionStore publishes each caller's task's one decision (TaskIDs).
type DecisionStore interface {
	Decide(ctx context.Context, caller, taskID, fingerprint string, seq uint64, d wire.StoredMessage, h nats.Header) (Decided, error)
}

// Decider is the fourth stage: it applies the policy to the ranked
// candidates, settles the decision (settle: follow-ups, named skills,
// grants, the hard filters checked again on what is sent) and, for a
// delegation, builds the A2A request for the chosen agent; for a request
// with several intents it may make a plan (match.Matcher.Plan), with one
// A2A request per step.
type Decider struct {
	snaps   *Snapshots
	cfg     DeciderConfig
	post    atomic.Pointer[feedback.Posteriors]
	postRev atomic.Uint64
}

// NewDecider returns the decider over snaps.
func NewDecider(snaps *Snapshots, cfg DeciderConfig) *Decider {
	if cfg.TieSeed == 0 {
		cfg.TieSeed = DefaultTieSeed
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Decider{snaps: snaps, cfg: cfg}
}

// SetPosteriors swaps in the success-rate posteriors near-ties are broken
// with (nil: none, near-ties keep the policy's order), with their model
// bucket revision.
func (d *Decider) SetPosteriors(p *feedback.Posteriors, rev uint64) {
	d.post.Store(p)
	d.postRev.Store(rev)
}

// Posteriors returns the current posteriors (nil if none).
func (d *Decider) Posteriors() *feedback.Posteriors { return d.post.Load() }

// PosteriorsRevision is the model bucket revision of the posteriors in use
// (0: none).
func (d *Decider) PosteriorsRevision() uint64 { return d.postRev.Load() }

// priors is the current posteriors as decide.Priors: an untyped nil when
// there are none.
func (d *Decider) priors() decide.Priors {
	if p := d.post.Load(); p != nil {
		return p
	}
	return nil
}

// Handle implements Handler.
func (d *Decider) Handle(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeRanked(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap := d.snaps.snapshotFor(m.Catalog)
	if snap == nil {
		// The A2A request needs the chosen agent's card from the same
		// catalog the candidates came from.
		return res, fmt.Errorf("%w: ranked over catalog %s, decider has %s", ErrCatalogMismatch, m.Catalog, d.snaps.Fingerprint())
	}
	var t task.Task
	if err := json.Unmarshal(m.Task, &t); err != nil {
		return res, badInput(fmt.Errorf("ranked task %s: %w", m.TaskID, err))
	}
	p := snap.m.Policy()
	opts, note := p.BreakTies(m.Candidates, d.priors(), decide.TieRand(d.cfg.TieSeed, m.TaskID), d.cfg.Ties)
	out := wire.Decision{V: wire.Version, TaskID: m.TaskID, DecisionID: wire.DecisionID(t.Caller.ID, m.TaskID),
		Catalog: m.Catalog, DecidedAt: d.cfg.Now().UTC()}
	decision, err := d.plan(ctx, snap.m, &t, p.Decide(opts), m.Parts)
	if errors.Is(err, settle.ErrRejected) {
		return res, badInput(fmt.Errorf("ranked task %s: %w", m.TaskID, err))
	}
	if err != nil {
		return res, err
	}
	settler := snap.m.Settler(d.cfg.Followups)
	settler.Now = d.cfg.Now
	st, err := settler.Settle(ctx, &t, nil, decision, opts, out.DecisionID)
	if errors.Is(err, settle.ErrRejected) {
		return res, badInput(fmt.Errorf("ranked task %s: %w", m.TaskID, err))
	}
	if err != nil {
		return res, err
	}
	out.Decision = st.Decision
	out.Degraded = m.Degraded
	if st.Decision.Action == decide.Plan {
		// One ready request per step, as a delegation carries one.
		if out.StepRequests, err = wire.StepRequests(snap.m.Catalog(), st.Decision, &t, out.DecisionID, snap.m.PrivateEndpoints()); err != nil {
			return res, badInput(err)
		}
	}
	if st.Decision.Action == decide.Delegate && st.Decision.Chosen != nil {
		if a, ok := snap.m.Catalog().Agent(st.Decision.Chosen.AgentID); ok {
			if out.Request, err = wire.NewA2ARequest(a.Card, st.Decision.Chosen.SkillID, &t, out.DecisionID,
				wire.WithContextID(st.ContextID), wire.WithAllowPrivate(a.Status.AllowPrivate || snap.m.PrivateEndpoints())); err != nil {
				return res, badInput(err)
			}
		}
	}
	// Top and Tie describe the policy's choice. A skill the task fixed
	// is not one, and the calibration refit must not learn from it.
	if !st.Pinned {
		if len(opts) > 0 {
			top := opts[0]
			out.Top = &top
		}
		if len(note.Candidates) > 0 {
			out.Tie = &note
		}
	}
	res, err = res.Emit(wire.SubjectDecision(t.Caller.ID, string(out.Action), m.TaskID), MsgID(t.Caller.ID, m.TaskID, "decision"), &out)
	if err != nil || d.cfg.Decided == nil {
		return res, err
	}
	return d.once(ctx, in, res, t.Caller.ID)
}

// plan decides each ranked part of a request with several intents and
// returns the plan Match would make of them (match.Matcher.Plan), or
// whole when the request gets none: no parts, plans off in this
// decider's matcher, or one skill covering every part. A follow-up or a
// named skill is settled over the plan like over any decision.
func (d *Decider) plan(ctx context.Context, m *match.Matcher, t *task.Task, whole decide.Decision, parts []wire.PartRanked) (decide.Decision, error) {
	if len(parts) == 0 {
		return whole, nil
	}
	req := extract.FromTask(t)
	decided := make([]match.PartDecision, 0, len(parts))
	for _, p := range parts {
		preq := match.PartRequirement(&req, p.Part)
		pd, err := m.DecidePart(ctx, t, &preq, p.Part, p.Candidates)
		if err != nil {
			return whole, err
		}
		decided = append(decided, pd)
	}
	if pl := m.Plan(whole, decided); pl != nil {
		return *pl, nil
	}
	return whole, nil
}

// once publishes res's decision only if it is the task's first, through
// the decision store, whose write is the task's record: the result then
// reports it as Stored, not as an output left for the runner to publish. A
// delivery that finds another decision stored publishes nothing; a
// decision stored for another task under the same id (reused), or for
// another identical submission (a retry), turns this one into a dead
// letter, as the extractor would have, had the decision been there when it
// looked.
func (d *Decider) once(ctx context.Context, in Msg, res Result, caller string) (Result, error) {
	o := res.Out[0]
	fp := nats.Header(in.Header).Get(HeaderFingerprint)
	seq := runtime.OriginSeq(in.Header)
	// The decision goes out here, not through the runner's tracing
	// middleware: it carries this delivery's trace context itself.
	h := nats.Header{}
	runtime.InjectTrace(ctx, h)
	done := Result{TaskID: res.TaskID}
	dec, err := d.cfg.Decided.Decide(ctx, caller, res.TaskID, fp, seq, wire.StoredMessage{Subject: o.Subject, MsgID: o.MsgID, Data: o.Data}, h)
	switch {
	case err != nil:
		return done, err
	case dec.First:
		done.Stored = res.Out
		return done, nil
	}
	return done, checkRecord(dec.Record, res.TaskID, caller, fp, seq)
}
