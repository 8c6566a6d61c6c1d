// Package pipeline runs the matcher as the event-driven pipeline: each stage
// is a plain function from one message to the messages it publishes
// (stages.go), and run.go wires those functions to NATS JetStream durable
// pull consumers with explicit acks, retries and dead letters.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Stage names: durable consumer names, dead-letter subject suffixes and
// the step part of message ids.
const (
	StageExtractor = "extractor"
	StageRetriever = "retriever"
	StageReranker  = "reranker"
	StageDecider   = "decider"
	StageFeedback  = "feedback"
)

// Msg is one input message.
type Msg struct {
	Subject string
	Data    []byte
}

// Output is one message to publish. MsgID becomes Nats-Msg-Id, so that a
// redelivered input publishes nothing new.
type Output struct {
	Subject string
	Data    []byte
	MsgID   string
}

// Result is what a handler did with a message. TaskID is set as soon as
// the handler could read it, also when it fails, for logs and dead letters.
//
// Defer, when set, holds the input's ack until the handler's effect is
// durable: the runner acks the input when Defer yields nil and Naks it
// (for redelivery) when it yields an error or the stage stops; the worker
// goes on meanwhile. The feedback stage acks an outcome only once the
// posteriors that count it are stored.
type Result struct {
	TaskID string
	Out    []Output
	Defer  <-chan error
}

// Handler processes one message. An error wrapping ErrBadInput is
// permanent (the message goes to the dead letters and is not redelivered);
// any other error is transient (retried).
type Handler func(ctx context.Context, in Msg) (Result, error)

// ErrBadInput marks a message no retry can process.
var ErrBadInput = errors.New("bad input")

// badInput wraps err as permanent.
func badInput(err error) error {
	if errors.Is(err, ErrBadInput) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadInput, err)
}

// Stages holds the matcher the stage handlers wrap. A deployment where the
// stages run as separate services gives each its own Stages over the same
// catalog: the retriever and the reranker pass doc numbers and check that
// their catalogs agree (Fingerprint).
//
// The matcher can be swapped while messages are being handled
// (SetMatcher, or WatchCatalog): a handler works on the snapshot it loaded
// at its start, and the reranker and decider keep the last few snapshots,
// so a task shortlisted just before a catalog change finishes on the
// catalog it was shortlisted over.
type Stages struct {
	cur    atomic.Pointer[snapshot]
	mu     sync.Mutex // serialises SetMatcher
	recent atomic.Pointer[[]*snapshot]
	limits []task.Option
	now    func() time.Time

	// Near-tie break of the decider: settings, the seed of the per-task
	// random source, and the posteriors (nil until some are loaded).
	ties    decide.TieConfig
	tieSeed uint64
	post    atomic.Pointer[feedback.Posteriors]
	postRev atomic.Uint64
	// The reranker's calibration from the model bucket (nil: each
	// matcher's own), swapped in by WatchModel.
	cal       atomic.Pointer[calibration]
	calRev    atomic.Uint64
	feedbackH *FeedbackStage
	// followups records the decider's delegations for follow-ups (nil:
	// none; see SetFollowups).
	followups FollowupStore
}

// calibration is a calibrator loaded from the model bucket.
type calibration struct{ c calibrate.Calibrator }

// snapshot is one matcher and the name of its catalog.
type snapshot struct {
	m           *match.Matcher
	fingerprint string
}

// keepSnapshots is how many catalog snapshots the reranker and decider
// can still serve after a change (the current one included).
const keepSnapshots = 4

// NewStages wraps a matcher. Task limits are task.DefaultLimits unless
// given. A nil matcher is allowed for a process that runs only the
// feedback stage, or that sets its matcher later (WatchCatalog).
func NewStages(m *match.Matcher, limits ...task.Option) *Stages {
	s := &Stages{limits: limits, now: time.Now, ties: decide.DefaultTieConfig, tieSeed: DefaultTieSeed}
	if m != nil {
		s.SetMatcher(m)
	}
	return s
}

// SetMatcher swaps in a matcher (a new catalog snapshot) and returns its
// fingerprint. Handlers already running finish on the matcher they
// started with.
func (s *Stages) SetMatcher(m *match.Matcher) string {
	snap := &snapshot{m: m, fingerprint: wire.SnapshotFingerprint(m)}
	s.mu.Lock()
	defer s.mu.Unlock()
	var list []*snapshot
	if old := s.recent.Load(); old != nil {
		for _, o := range *old {
			if o.fingerprint != snap.fingerprint {
				list = append(list, o)
			}
		}
	}
	list = append(list, snap)
	if len(list) > keepSnapshots {
		list = list[len(list)-keepSnapshots:]
	}
	s.recent.Store(&list)
	s.cur.Store(snap)
	return snap.fingerprint
}

// Matcher returns the current matcher (nil before the first).
func (s *Stages) Matcher() *match.Matcher {
	if c := s.cur.Load(); c != nil {
		return c.m
	}
	return nil
}

// Fingerprint names the catalog snapshot the stages currently match on.
func (s *Stages) Fingerprint() string {
	if c := s.cur.Load(); c != nil {
		return c.fingerprint
	}
	return ""
}

// errNoCatalog is transient: a process watching the catalog bucket has
// not built its first matcher yet.
var errNoCatalog = errors.New("no catalog loaded yet")

// current is the snapshot new work starts on.
func (s *Stages) current() (*snapshot, error) {
	if c := s.cur.Load(); c != nil {
		return c, nil
	}
	return nil, errNoCatalog
}

// snapshotFor is the snapshot with the given fingerprint, the current one
// or a recent one; nil if there is none.
func (s *Stages) snapshotFor(fp string) *snapshot {
	if c := s.cur.Load(); c != nil && c.fingerprint == fp {
		return c
	}
	if l := s.recent.Load(); l != nil {
		for _, o := range *l {
			if o.fingerprint == fp {
				return o
			}
		}
	}
	return nil
}

// MsgID is the Nats-Msg-Id of a stage's output for a task.
func MsgID(taskID, step string) string { return taskID + "/" + step }

// Extract validates a submitted task and extracts its requirement.
func (s *Stages) Extract(_ context.Context, in Msg) (Result, error) {
	sub, err := wire.DecodeTaskSubmitted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	t, err := task.Parse(sub.Task, s.limits...)
	if err != nil {
		var te *task.Error
		r := Result{}
		if errors.As(err, &te) {
			r.TaskID = te.TaskID
		}
		if r.TaskID == "" {
			// The id itself is invalid: keep what the caller sent, if it
			// is printable, so that they can find their dead letter.
			r.TaskID = printable(TaskIDOf(sub.Task))
		}
		return r, badInput(err)
	}
	res := Result{TaskID: t.ID}
	raw, err := json.Marshal(t)
	if err != nil {
		return res, badInput(err)
	}
	// The requirement does not depend on the catalog.
	out := wire.Extracted{V: wire.Version, TaskID: t.ID, Requirement: extract.FromTask(t), Task: raw}
	return res.emit(wire.SubjectExtracted, MsgID(t.ID, "extracted"), &out)
}

// Retrieve filters the catalog and retrieves the shortlist.
func (s *Stages) Retrieve(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeExtracted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap, err := s.current()
	if err != nil {
		return res, err
	}
	sl, err := snap.m.Shortlist(ctx, &m.Requirement)
	if err != nil {
		return res, err
	}
	out := wire.Shortlisted{V: wire.Version, TaskID: m.TaskID, Requirement: m.Requirement, Task: m.Task,
		Catalog: snap.fingerprint, Shortlist: wire.FromShortlist(sl)}
	return res.emit(wire.SubjectShortlisted, MsgID(m.TaskID, "shortlisted"), &out)
}

// ErrCatalogMismatch is returned (as a transient error) when a shortlist
// was made over another catalog snapshot than the reranker's: retried, in
// case the reranker is about to load the same catalog, then dead-lettered.
var ErrCatalogMismatch = errors.New("catalog mismatch")

// Rerank scores the shortlist and calibrates each fit.
func (s *Stages) Rerank(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeShortlisted(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap := s.snapshotFor(m.Catalog)
	if snap == nil {
		return res, fmt.Errorf("%w: shortlist over catalog %s, reranker has %s", ErrCatalogMismatch, m.Catalog, s.Fingerprint())
	}
	sl, err := m.Shortlist.Matcher(snap.m.Index())
	if err != nil {
		return res, badInput(err)
	}
	ranked, err := snap.m.RankCalibrated(ctx, &m.Requirement, sl, s.Calibrator())
	if err != nil {
		return res, err
	}
	out := wire.Ranked{V: wire.Version, TaskID: m.TaskID, Task: m.Task, Catalog: m.Catalog, Candidates: match.Options(ranked)}
	if out.Candidates == nil {
		out.Candidates = []decide.Option{}
	}
	return res.emit(wire.SubjectRanked, MsgID(m.TaskID, "ranked"), &out)
}

// DefaultTieSeed seeds the decider's per-task tie-break random source
// unless configured.
const DefaultTieSeed = 1

// SetTies sets the decider's near-tie treatment and the seed of its
// per-task random source (decide.TieRand(seed, task id): every replica,
// redelivery and replay of a task breaks its ties the same way). Call it
// before the decider runs.
func (s *Stages) SetTies(cfg decide.TieConfig, seed uint64) {
	s.ties, s.tieSeed = cfg, seed
}

// SetPosteriors swaps in the success-rate posteriors the decider breaks
// near-ties with (nil: none, near-ties keep the policy's order).
func (s *Stages) SetPosteriors(p *feedback.Posteriors) { s.post.Store(p) }

// Posteriors returns the decider's current posteriors (nil if none).
func (s *Stages) Posteriors() *feedback.Posteriors { return s.post.Load() }

// priors is the decider's current posteriors as decide.Priors: an untyped
// nil when there are none.
func (s *Stages) priors() decide.Priors {
	if p := s.post.Load(); p != nil {
		return p
	}
	return nil
}

// SetCalibrator swaps in the calibration the reranker applies to every
// catalog snapshot, current and later ones, for the tasks it ranks from
// now on (nil: each matcher's own, as it was built).
func (s *Stages) SetCalibrator(c calibrate.Calibrator) {
	if c == nil {
		s.cal.Store(nil)
		return
	}
	s.cal.Store(&calibration{c: c})
}

// Calibrator returns the calibration loaded with SetCalibrator (nil: each
// matcher's own).
func (s *Stages) Calibrator() calibrate.Calibrator {
	if c := s.cal.Load(); c != nil {
		return c.c
	}
	return nil
}

// CalibrationRevision is the model bucket revision of the calibration the
// reranker applies (0: none loaded, each matcher's own).
func (s *Stages) CalibrationRevision() uint64 { return s.calRev.Load() }

// SetFeedback makes StageSpecs run f as the feedback stage instead of the
// stateless Feedback (which only validates outcomes).
func (s *Stages) SetFeedback(f *FeedbackStage) { s.feedbackH = f }

// Decide applies the policy to the ranked candidates and, for a
// delegation, builds the A2A request for the chosen agent. A task that
// continues another (message.taskId) or names a skill
// (constraints.skillId) goes to that skill or is refused, and a delegation
// is recorded for follow-ups when the stages have a FollowupStore
// (followup.go).
func (s *Stages) Decide(ctx context.Context, in Msg) (Result, error) {
	m, err := wire.DecodeRanked(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: m.TaskID}
	snap := s.snapshotFor(m.Catalog)
	if snap == nil {
		// The A2A request needs the chosen agent's card from the same
		// catalog the candidates came from.
		return res, fmt.Errorf("%w: ranked over catalog %s, decider has %s", ErrCatalogMismatch, m.Catalog, s.Fingerprint())
	}
	p := snap.m.Policy()
	// decide.Policy.DecideTies, keeping the tie-broken order for Top.
	opts, note := p.BreakTies(m.Candidates, s.priors(), decide.TieRand(s.tieSeed, m.TaskID), s.ties)
	d := p.Decide(opts)
	var t task.Task
	if err := json.Unmarshal(m.Task, &t); err != nil {
		return res, badInput(fmt.Errorf("ranked task %s: %w", m.TaskID, err))
	}
	out := wire.Decision{V: wire.Version, TaskID: m.TaskID, DecisionID: wire.DecisionID(m.TaskID),
		Catalog: m.Catalog, DecidedAt: s.now().UTC()}
	st, err := s.delegation(ctx, snap.m, &t, d, opts, out.DecisionID)
	if err != nil {
		return res, err
	}
	out.Decision, out.Request = st.d, st.request
	// Top and Tie describe the policy's choice. A skill the task fixed
	// is not one, and the calibration refit must not learn from it.
	if !st.pinned {
		if len(opts) > 0 {
			top := opts[0]
			out.Top = &top
		}
		if len(note.Candidates) > 0 {
			out.Tie = &note
		}
	}
	return res.emit(wire.SubjectDecision(string(out.Action)), MsgID(m.TaskID, "decision"), &out)
}

// Feedback only validates outcomes and publishes nothing: the feedback
// stage of a Stages without a FeedbackStage (SetFeedback), which is what
// StartAll and the feedback service set up.
func Feedback(_ context.Context, in Msg) (Result, error) {
	o, err := wire.DecodeOutcome(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	return Result{TaskID: o.TaskID}, nil
}

func (r Result) emit(subject, id string, msg any) (Result, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return r, badInput(err) // NaN scores, say: the same input fails the same way
	}
	r.Out = append(r.Out, Output{Subject: subject, Data: data, MsgID: id})
	return r, nil
}

// printable returns s if it is valid UTF-8 without control characters,
// else "".
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return ""
	}
	return s
}
