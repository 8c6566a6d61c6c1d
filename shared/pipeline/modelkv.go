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

	"github.com/skillmatch/skillmatch/shared/calibrate"
	"github.com/skillmatch/skillmatch/shared/feedback"
	"github.com/skillmatch/skillmatch/shared/wire"
)

// Defaults of the feedback stage; see Config.
const (
	DefaultFeedbackEvery    = 50
	DefaultFeedbackInterval = 10 * time.Second
)

// setupModel creates the model bucket, or updates it to this config.
func setupModel(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	return setupBucket(ctx, js, cfg, "model", cfg.ModelBucket,
		"skillmatch model state: posteriors (feedback.Snapshot), calibration")
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
// Run one replica: each replica keeps its own posteriors and would
// overwrite the others' snapshot.
type FeedbackStage struct {
	kv      jetstream.KeyValue
	p       *feedback.Posteriors
	every   int64
	log     *zap.Logger
	pending atomic.Int64 // counted since the last publish
	flushMu sync.Mutex
	// waiters are the outcomes handled since the last publish, each
	// waiting for the publish that counts it.
	waitMu  sync.Mutex
	waiters []chan error
	kick    chan struct{} // asks the publisher to publish now
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	// The calibration refit (StartRefit).
	refitCancel context.CancelFunc
	refitDone   chan struct{}
}

// NewFeedbackStage restores the posteriors from the model bucket (empty
// ones when it holds none) and starts publishing them every interval
// while some outcome was counted since the last publish. every ≤ 0 and
// interval ≤ 0 take the defaults. Close stops it.
func NewFeedbackStage(ctx context.Context, kv jetstream.KeyValue, every int, interval time.Duration, log *zap.Logger,
	opts ...feedback.PosteriorOption) (*FeedbackStage, error) {
	if every <= 0 {
		every = DefaultFeedbackEvery
	}
	if interval <= 0 {
		interval = DefaultFeedbackInterval
	}
	if log == nil {
		log = zap.NewNop()
	}
	p := feedback.NewPosteriors(opts...)
	e, err := kv.Get(ctx, wire.ModelKeyPosteriors)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted):
	case err != nil:
		return nil, fmt.Errorf("pipeline: feedback: read posteriors: %w", err)
	default:
		var snap feedback.Snapshot
		if err := json.Unmarshal(e.Value(), &snap); err != nil {
			return nil, fmt.Errorf("pipeline: feedback: posteriors revision %d: %w", e.Revision(), err)
		}
		if err := p.Restore(snap); err != nil {
			return nil, fmt.Errorf("pipeline: feedback: posteriors revision %d: %w", e.Revision(), err)
		}
		log.Info("posteriors restored", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()),
			zap.Int64("observed", snap.Observed), zap.Int("skills", len(snap.Skills)))
	}
	wctx, cancel := context.WithCancel(context.Background())
	f := &FeedbackStage{kv: kv, p: p, every: int64(every), log: log, cancel: cancel, done: make(chan struct{}),
		kick: make(chan struct{}, 1)}
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
				log.Warn("posteriors not published; retrying", zap.String("task_id", ""), zap.Error(err))
			}
		}
	}()
	return f, nil
}

// Posteriors are the stage's posteriors.
func (f *FeedbackStage) Posteriors() *feedback.Posteriors { return f.p }

// Handle counts one outcome and defers its ack to the next publish of the
// posteriors (every `every` counted outcomes, or the interval). An outcome
// that does not decode or that the posteriors refuse
// (feedback.ErrBadOutcome) is bad input: dead-lettered. A redelivered
// outcome (same decision and skill) is not counted again.
func (f *FeedbackStage) Handle(_ context.Context, in Msg) (Result, error) {
	o, err := wire.DecodeOutcome(in.Data)
	if err != nil {
		return Result{}, badInput(err)
	}
	res := Result{TaskID: o.TaskID}
	counted, err := f.p.Observe(toFeedback(o))
	if err != nil {
		return res, badInput(err)
	}
	// Registered after Observe: the publish that takes this waiter
	// snapshots the posteriors after it, so it counts the outcome.
	w := make(chan error, 1)
	f.waitMu.Lock()
	f.waiters = append(f.waiters, w)
	f.waitMu.Unlock()
	res.Defer = w
	if counted && f.pending.Add(1) >= f.every {
		select {
		case f.kick <- struct{}{}:
		default: // a publish is already asked for
		}
	}
	return res, nil
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
	n := f.pending.Load()
	var err error
	if n > 0 {
		err = f.publish(ctx)
	}
	if err != nil {
		// Keep them for the next publish: their deliveries are kept
		// alive meanwhile.
		f.waitMu.Lock()
		f.waiters = append(ws, f.waiters...)
		f.waitMu.Unlock()
		return err
	}
	f.pending.Add(-n)
	for _, w := range ws {
		w <- nil
	}
	return nil
}

func (f *FeedbackStage) publish(ctx context.Context) error {
	data, err := json.Marshal(f.p.Snapshot())
	if err != nil {
		return err
	}
	if _, err := f.kv.Put(ctx, wire.ModelKeyPosteriors, data); err != nil {
		return fmt.Errorf("pipeline: feedback: put posteriors: %w", err)
	}
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
			f.log.Warn("posteriors not published at stop", zap.String("task_id", ""), zap.Error(err))
		}
	})
}

// ModelWatch keeps a Stages' posteriors and calibration current with the
// model bucket.
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

// PosteriorsRevision is the model bucket revision of the posteriors the
// decider uses (0: none).
func (s *Stages) PosteriorsRevision() uint64 { return s.postRev.Load() }

// WatchModel loads the model state from the model bucket into the stages
// and swaps in every new value put there:
//
//   - the posteriors (wire.ModelKeyPosteriors, SetPosteriors), which the
//     decider breaks near-ties with;
//   - the calibration (wire.ModelKeyCalibration, the JSON of a
//     calibrate.Model as the feedback refit puts it, SetCalibrator), which
//     the reranker applies to the tasks it ranks from then on, whatever
//     the catalog snapshot.
//
// A deleted key drops the value (for the calibration: back to each
// matcher's own). A value that does not decode is skipped with a logged
// reason and the previous one is kept. It returns once the bucket's
// current values are loaded.
func (s *Stages) WatchModel(ctx context.Context, kv jetstream.KeyValue, log *zap.Logger) (*ModelWatch, error) {
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
		if e.Operation() != jetstream.KeyValuePut {
			s.SetPosteriors(nil)
			s.postRev.Store(e.Revision())
			log.Info("posteriors removed", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()))
			return
		}
		var snap feedback.Snapshot
		p := feedback.NewPosteriors()
		if err := json.Unmarshal(e.Value(), &snap); err == nil {
			err = p.Restore(snap)
		}
		if err != nil {
			log.Warn("posteriors skipped; keeping the previous ones", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()), zap.Error(err))
			return
		}
		s.SetPosteriors(p)
		s.postRev.Store(e.Revision())
		log.Debug("posteriors loaded", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()), zap.Int64("observed", snap.Observed))
	}
	applyCalibration := func(e jetstream.KeyValueEntry) {
		if e.Operation() != jetstream.KeyValuePut {
			s.SetCalibrator(nil)
			s.calRev.Store(e.Revision())
			log.Info("calibration removed; back to the model's own", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()))
			return
		}
		var cal calibrate.Model
		// UnmarshalJSON validates the model (finite Platt parameters, a
		// monotone isotonic map of probabilities).
		if err := json.Unmarshal(e.Value(), &cal); err != nil {
			log.Warn("calibration skipped; keeping the previous one", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()), zap.Error(err))
			return
		}
		s.SetCalibrator(cal)
		s.calRev.Store(e.Revision())
		log.Info("calibration loaded", zap.String("task_id", ""), zap.Uint64("revision", e.Revision()), zap.String("method", cal.Method()))
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
