package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Defaults of the feedback stage; see Config.
const (
	DefaultFeedbackEvery    = 50
	DefaultFeedbackInterval = 10 * time.Second
)

// setupModel creates the model bucket, or updates it to this config.
func setupModel(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	return setupBucket(ctx, js, cfg, "model", jetstream.KeyValueConfig{Bucket: cfg.ModelBucket,
		Description: "skillmatch model state: posteriors (feedback.Snapshot), calibration, the last evaluation"})
}

// ModelKV opens the model bucket (wire.BucketModel if bucket is "").
func ModelKV(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.KeyValue, error) {
	return openBucket(ctx, js, "model", bucket, wire.BucketModel)
}

// FeedbackStage is the feedback stage: it counts outcomes into per-skill
// Beta posteriors and publishes their snapshot to the model bucket (key
// wire.ModelKeyPosteriors) every few counted outcomes and on a timer.
//
// An outcome is acked only once a published snapshot counts it
// (Result.Defer), so a crash loses none: what was not published is
// redelivered and counted by the next process.
//
// Replicas can share the durable consumer: a snapshot is published only
// over the revision this stage last read or wrote (compare-and-set). When
// another replica published in between, this one takes that snapshot,
// counts its own unpublished outcomes again on top of it (the other
// replica's are recognised as seen) and publishes that.
type FeedbackStage struct {
	kv   jetstream.KeyValue
	cfg  FeedbackConfig
	opts []feedback.PosteriorOption
	// mu guards p and rev: Handle counts under the read lock, a reload
	// after a conflict swaps them under the write lock.
	mu      sync.RWMutex
	p       *feedback.Posteriors
	rev     uint64 // revision last read or written; 0: the key is absent
	every   int64
	log     *zap.Logger
	pending atomic.Int64 // counted since the last publish
	flushMu sync.Mutex
	// waiters are the outcomes handled since the last publish, each
	// waiting for the publish that counts it.
	waitMu  sync.Mutex
	waiters []waiter
	kick    chan struct{} // asks the publisher to publish now
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	// The calibration refit (StartRefit).
	refitCancel context.CancelFunc
	refitDone   chan struct{}
}

// FeedbackConfig configures the feedback stage.
type FeedbackConfig struct {
	// Every: publish the posteriors after this many counted outcomes
	// (default DefaultFeedbackEvery); Interval: this often while outcomes
	// come in (default DefaultFeedbackInterval).
	Every    int
	Interval time.Duration
	// Delegations is the decider's record of delegations: an outcome
	// teaches the posteriors only when it reports on the skill its task
	// was delegated to, from the caller it was delegated for (the
	// outcome's subject), and one from any other caller is dead-lettered.
	// Nil: outcomes are counted unverified (offline tools and tests).
	Delegations settle.Store
	// Callers says whose outcomes are trusted (identity.Directory.Trusted);
	// nil, the zero-configuration mode, trusts every verified outcome.
	Callers *identity.Directory
	// Examples, when set, learns from outcomes: a counted success (a
	// trusted caller, verified against its delegation) makes its task's
	// request an example of the skill. Nil: outcomes teach no examples.
	Examples *Examples
	// ExampleObserver, when set with Examples, hears what became of each
	// verified success that could have taught an example (a metric).
	ExampleObserver ExampleObserver
	// Posteriors are the posteriors' options.
	Posteriors []feedback.PosteriorOption
	Log        *zap.Logger
}

// ExampleObserver hears what became of each verified success reported
// on the skill its task was delegated to: one of the Example* results. A
// Config.Observer that implements it (the metrics) is told.
type ExampleObserver interface {
	ExampleOutcome(result string)
}

// What became of a verified success, for an ExampleObserver.
const (
	// ExampleLearned: its request became an example of the skill.
	ExampleLearned = "learned"
	// ExampleKnown: the request was an example already (or cleans to
	// nothing).
	ExampleKnown = "known"
	// ExampleUntrusted: refused, the caller is not trusted to teach.
	ExampleUntrusted = "untrusted"
	// ExampleWithheld: refused, the task's data is confidential or
	// restricted, so no text of it was kept to learn from.
	ExampleWithheld = "withheld"
)

func (c FeedbackConfig) exampleOutcome(result string) {
	if c.Examples != nil && c.ExampleObserver != nil {
		c.ExampleObserver.ExampleOutcome(result)
	}
}

// trusted says whether a caller's verified outcomes may teach the model.
func (c FeedbackConfig) trusted(caller string) bool {
	return c.Callers == nil || c.Callers.Trusted(caller)
}

// NewFeedbackStage restores the posteriors from the model bucket (empty
// ones when it holds none) and starts publishing them every interval
// while some outcome was counted since the last publish. Close stops it.
func NewFeedbackStage(ctx context.Context, kv jetstream.KeyValue, cfg FeedbackConfig) (*FeedbackStage, error) {
	if cfg.Every <= 0 {
		cfg.Every = DefaultFeedbackEvery
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultFeedbackInterval
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	interval, log := cfg.Interval, cfg.Log
	f := &FeedbackStage{kv: kv, cfg: cfg, opts: cfg.Posteriors, every: int64(cfg.Every), log: log, done: make(chan struct{}),
		kick: make(chan struct{}, 1)}
	var err error
	if f.p, f.rev, err = f.load(ctx); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go func() {
		defer close(f.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-t.C:
			case <-f.kick:
			}
			if err := f.flushTimeout(); err != nil {
				log.Warn("posteriors not published; retrying", zap.Error(err))
			}
		}
	}()
	return f, nil
}

// load reads the posteriors from the model bucket (empty ones when it
// holds none) and their revision.
func (f *FeedbackStage) load(ctx context.Context) (*feedback.Posteriors, uint64, error) {
	e, err := f.kv.Get(ctx, wire.ModelKeyPosteriors)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted):
		return feedback.NewPosteriors(f.opts...), 0, nil
	case err != nil:
		return nil, 0, fmt.Errorf("pipeline: feedback: read posteriors: %w", err)
	}
	p, snap, err := decodePosteriors(e.Value(), f.opts...)
	if err != nil {
		return nil, 0, fmt.Errorf("pipeline: feedback: posteriors revision %d: %w", e.Revision(), err)
	}
	f.log.Info("posteriors restored", zap.Uint64("revision", e.Revision()),
		zap.Int64("observed", snap.Observed), zap.Int("skills", len(snap.Skills)))
	return p, e.Revision(), nil
}

// waiter is an outcome waiting for the publish that counts it.
type waiter struct {
	o    feedback.Outcome
	done chan error
}

// decodePosteriors reads a posteriors snapshot from the model bucket.
func decodePosteriors(data []byte, opts ...feedback.PosteriorOption) (*feedback.Posteriors, feedback.Snapshot, error) {
	var snap feedback.Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, snap, err
	}
	p := feedback.NewPosteriors(opts...)
	if err := p.Restore(snap); err != nil {
		return nil, snap, err
	}
	return p, snap, nil
}

// Posteriors are the stage's posteriors.
func (f *FeedbackStage) Posteriors() *feedback.Posteriors {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.p
}

// Handle counts one outcome and defers its ack to the next publish of the
// posteriors (every `every` counted outcomes, or the interval). An outcome
// that does not decode, that the posteriors refuse
// (feedback.ErrBadOutcome) or that comes from a caller its decision was
// not delivered to is bad input: dead-lettered. A verified outcome from an
// untrusted caller, or about a skill its task was not delegated to, is
// kept as evidence (in the stream) and not counted. A redelivered outcome
// (same decision and skill) is not counted again.
func (f *FeedbackStage) Handle(ctx context.Context, in Msg) (Result, error) {
	caller, err := wire.CallerOf(wire.SubjectOutcome, in.Subject)
	if err != nil {
		return Result{}, badInput(err)
	}
	o, err := wire.DecodeOutcome(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: o.TaskID}
	rec, count, err := f.verify(ctx, caller, o)
	if err == nil && !count && o.Success && rec.TaskID != "" {
		// Verified against its delegation, but from a caller that is not
		// trusted: evidence, never an example.
		f.cfg.exampleOutcome(ExampleUntrusted)
	}
	if err != nil || !count {
		return res, err
	}
	// Before the posteriors count it: a failed write is redelivered, and
	// an example already there is not added twice.
	if f.cfg.Examples != nil && o.Success && rec.Need == "" && rec.TaskID != "" {
		f.cfg.exampleOutcome(ExampleWithheld)
	}
	if f.cfg.Examples != nil && o.Success && rec.Need != "" {
		added, err := f.cfg.Examples.Add(ctx, o.Skill, rec.Need)
		if err != nil {
			return res, err
		}
		if added {
			f.log.Debug("example learned", zap.String("task_id", o.TaskID), zap.String("skill", o.Skill))
			f.cfg.exampleOutcome(ExampleLearned)
		} else {
			f.cfg.exampleOutcome(ExampleKnown)
		}
	}
	fo := toFeedback(o)
	f.mu.RLock()
	counted, err := f.p.Observe(fo)
	if err != nil {
		f.mu.RUnlock()
		return res, badInput(err)
	}
	// Counted as pending, then registered, both after Observe: the
	// publish that takes this waiter reads the pending count and
	// snapshots the posteriors after that, so it publishes the outcome.
	var pending int64
	if counted {
		pending = f.pending.Add(1)
	}
	w := waiter{o: fo, done: make(chan error, 1)}
	f.waitMu.Lock()
	f.waiters = append(f.waiters, w)
	f.waitMu.Unlock()
	f.mu.RUnlock()
	res.Defer = w.done
	if pending >= f.every {
		select {
		case f.kick <- struct{}{}:
		default: // a publish is already asked for
		}
	}
	return res, nil
}

// verify says whether an outcome from caller may be counted: it must
// name its task, whose decision id it carries, and when the task was
// delegated, come from the caller it was delegated for (else it is bad
// input) and report on that skill; the caller must be trusted.
func (f *FeedbackStage) verify(ctx context.Context, caller string, o *wire.Outcome) (settle.Record, bool, error) {
	if f.cfg.Delegations == nil {
		return settle.Record{}, true, nil
	}
	if o.TaskID == "" {
		return settle.Record{}, false, badInput(fmt.Errorf("%w: outcome %s names no taskId, so it cannot be checked against its decision", wire.ErrBadMessage, o.DecisionID))
	}
	if o.DecisionID != wire.DecisionID(caller, o.TaskID) && !wire.StepOf(o.DecisionID, wire.DecisionID(caller, o.TaskID)) {
		// Decision ids are bound to their caller: an outcome naming
		// another caller's decision, or none, is refused.
		return settle.Record{}, false, badInput(fmt.Errorf("%w: outcome %s from caller %q: not the decision of its task %s, or delivered to another caller",
			wire.ErrBadMessage, o.DecisionID, identity.Token(caller), o.TaskID))
	}
	rec, ok, err := f.cfg.Delegations.Get(ctx, caller, o.TaskID)
	switch {
	case err != nil:
		return settle.Record{}, false, err
	case !ok || o.DecisionID != wire.DecisionID(caller, o.TaskID):
		// Not a delegation (or expired), or a step of a plan, which is
		// recorded nowhere to be checked against: evidence, not counted;
		// the refit checks a label against the decision stream.
		return settle.Record{}, false, nil
	case rec.CallerID != caller:
		return settle.Record{}, false, badInput(fmt.Errorf("outcome for task %s from caller %q: its decision was delivered to another caller", o.TaskID, identity.Token(caller)))
	case o.Skill != rec.AgentID+"/"+rec.SkillID:
		return settle.Record{}, false, nil // a fallback or another skill: not what was delegated
	}
	return rec, f.cfg.trusted(caller), nil
}

// Flush publishes the posteriors if an outcome was handled since the last
// publish, and releases the acks of the outcomes it counts.
func (f *FeedbackStage) Flush(ctx context.Context) error {
	f.flushMu.Lock()
	defer f.flushMu.Unlock()
	f.waitMu.Lock()
	ws := f.waiters
	f.waiters = nil
	f.waitMu.Unlock()
	for attempt := 1; ; attempt++ {
		n := f.pending.Load()
		var err error
		if n > 0 {
			err = f.publish(ctx)
		}
		if (errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)) && attempt < maxRebases {
			if err = f.rebase(ctx, ws); err == nil {
				continue
			}
		}
		if err != nil {
			// Kept for the next publish; their deliveries are kept
			// alive meanwhile.
			f.waitMu.Lock()
			f.waiters = append(ws, f.waiters...)
			f.waitMu.Unlock()
			return err
		}
		f.pending.Add(-n)
		for _, w := range ws {
			w.done <- nil
		}
		return nil
	}
}

// maxRebases bounds the publish attempts of one Flush that lose the
// compare-and-set to another replica; the next Flush goes on.
const maxRebases = 8

// rebase takes the posteriors another replica published and counts on top
// of them every outcome this stage has not published: those of ws and
// those handled since ws was taken.
func (f *FeedbackStage) rebase(ctx context.Context, ws []waiter) error {
	f.mu.Lock() // no Handle runs: f.waiters cannot change
	defer f.mu.Unlock()
	p, rev, err := f.load(ctx)
	if err != nil {
		return err
	}
	var n int64
	for _, list := range [][]waiter{ws, f.waiters} {
		for _, w := range list {
			if counted, _ := p.Observe(w.o); counted {
				n++
			}
		}
	}
	f.p, f.rev = p, rev
	f.pending.Store(n)
	f.log.Debug("posteriors published by another replica; counting this one's on top",
		zap.Uint64("revision", rev), zap.Int64("outcomes", n))
	return nil
}

// publish stores the posteriors over the revision last read or written.
func (f *FeedbackStage) publish(ctx context.Context) error {
	f.mu.RLock()
	data, err := json.Marshal(f.p.Snapshot())
	rev := f.rev
	f.mu.RUnlock()
	if err != nil {
		return err
	}
	if rev == 0 {
		rev, err = f.kv.Create(ctx, wire.ModelKeyPosteriors, data)
	} else {
		rev, err = f.kv.Update(ctx, wire.ModelKeyPosteriors, data, rev)
	}
	if err != nil {
		return fmt.Errorf("pipeline: feedback: put posteriors: %w", err)
	}
	f.mu.Lock()
	f.rev = rev
	f.mu.Unlock()
	return nil
}

func (f *FeedbackStage) flushTimeout() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return f.Flush(ctx)
}

// Close stops the timer and publishes what was counted since the last
// publish. Stop the stage's consumer first.
func (f *FeedbackStage) Close() {
	f.once.Do(func() {
		f.cancel()
		<-f.done
		if f.refitCancel != nil {
			f.refitCancel()
			<-f.refitDone
		}
		if err := f.flushTimeout(); err != nil {
			f.log.Warn("posteriors not published at stop", zap.Error(err))
		}
	})
}

// ModelWatch keeps a decider's posteriors and a reranker's calibration
// current with the model bucket.
type ModelWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Stop stops watching; the stages keep their last posteriors.
func (w *ModelWatch) Stop() {
	w.once.Do(func() {
		w.cancel()
		<-w.done
	})
}

// WatchModel loads the model state from the model bucket into the stages
// given (either may be nil) and swaps in every new value put there:
//
//   - the posteriors (wire.ModelKeyPosteriors, SetPosteriors), which the
//     decider breaks near-ties with (Decider.SetPosteriors);
//   - the calibration (wire.ModelKeyCalibration, the JSON of a
//     calibrate.Model as the feedback refit puts it, Reranker.SetCalibrator), which
//     the reranker applies to the tasks it ranks from then on, whatever
//     the catalog snapshot.
//
// A deleted key drops the value (for the calibration: back to each
// matcher's own). A value that does not decode is skipped with a logged
// reason and the previous one is kept. It returns once the bucket's
// current values are loaded.
func WatchModel(ctx context.Context, kv jetstream.KeyValue, dec *Decider, rr *Reranker, log *zap.Logger) (*ModelWatch, error) {
	if log == nil {
		log = zap.NewNop()
	}
	wctx, cancel := context.WithCancel(context.Background())
	kw, err := kv.WatchFiltered(wctx, []string{wire.ModelKeyPosteriors, wire.ModelKeyCalibration})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("pipeline: watch model %s: %w", kv.Bucket(), err)
	}
	w := &ModelWatch{cancel: cancel, done: make(chan struct{})}
	applyPosteriors := func(e jetstream.KeyValueEntry) {
		if dec == nil {
			return
		}
		if e.Operation() != jetstream.KeyValuePut {
			dec.SetPosteriors(nil, e.Revision())
			log.Info("posteriors removed", zap.Uint64("revision", e.Revision()))
			return
		}
		p, snap, err := decodePosteriors(e.Value())
		if err != nil {
			log.Warn("posteriors skipped; keeping the previous ones", zap.Uint64("revision", e.Revision()), zap.Error(err))
			return
		}
		dec.SetPosteriors(p, e.Revision())
		log.Debug("posteriors loaded", zap.Uint64("revision", e.Revision()), zap.Int64("observed", snap.Observed))
	}
	applyCalibration := func(e jetstream.KeyValueEntry) {
		if rr == nil {
			return
		}
		if e.Operation() != jetstream.KeyValuePut {
			rr.SetCalibrator(nil, e.Revision())
			log.Info("calibration removed; back to the model's own", zap.Uint64("revision", e.Revision()))
			return
		}
		var cal calibrate.Model
		// UnmarshalJSON validates the model (finite Platt parameters, a
		// monotone isotonic map of probabilities).
		if err := json.Unmarshal(e.Value(), &cal); err != nil {
			log.Warn("calibration skipped; keeping the previous one", zap.Uint64("revision", e.Revision()), zap.Error(err))
			return
		}
		rr.SetCalibrator(cal, e.Revision())
		log.Info("calibration loaded", zap.Uint64("revision", e.Revision()), zap.String("method", cal.Method()))
	}
	apply := func(e jetstream.KeyValueEntry) {
		switch e.Key() {
		case wire.ModelKeyPosteriors:
			applyPosteriors(e)
		case wire.ModelKeyCalibration:
			applyCalibration(e)
		}
	}
	ready := make(chan error, 1)
	go func() {
		defer close(w.done)
		defer kw.Stop() //nolint:errcheck
		initial := true
		for {
			select {
			case <-wctx.Done():
				if initial {
					ready <- wctx.Err()
				}
				return
			case e, ok := <-kw.Updates():
				if !ok {
					if initial {
						ready <- errors.New("pipeline: model watch closed")
					}
					return
				}
				if e == nil {
					if initial {
						initial = false
						ready <- nil
					}
					continue
				}
				apply(e)
			}
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			w.Stop()
			return nil, err
		}
		return w, nil
	case <-ctx.Done():
		w.Stop()
		return nil, ctx.Err()
	}
}
