package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Defaults of the calibration refit; see RefitConfig.
const (
	DefaultRefitInterval = 10 * time.Minute
	DefaultRefitWindow   = 20_000
)

// RefitConfig sets the feedback stage's calibration refit.
type RefitConfig struct {
	// Streams are where the decisions and outcomes are read.
	Streams Streams
	// Interval between refits (default 10 min).
	Interval time.Duration
	// Window is how many of the latest decisions, and of the latest
	// outcomes, a refit reads (default 20,000).
	Window int
	// Options of feedback.Refit (min labels, held-out share, tolerance).
	Options []feedback.RefitOption
	// MaxStep bounds how far one refit may move the calibration: a new
	// model whose probability for some logged decision's score differs by
	// more from the probability that decision was given is not published
	// (default DefaultRefitMaxStep; negative: no bound).
	MaxStep float64
}

// DefaultRefitMaxStep is the refit's bounded step unless configured.
const DefaultRefitMaxStep = 0.25

// StartRefit refits the calibration every cfg.Interval (until Close) from
// the latest decisions joined with their labelled outcomes; see Refit.
// Call it once, before the stage handles outcomes.
func (f *FeedbackStage) StartRefit(js jetstream.JetStream, cfg RefitConfig) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultRefitInterval
	}
	rctx, cancel := context.WithCancel(context.Background())
	f.refitCancel, f.refitDone = cancel, make(chan struct{})
	go func() {
		defer close(f.refitDone)
		t := time.NewTicker(cfg.Interval)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(rctx, cfg.Interval)
				_, _ = f.Refit(ctx, js, cfg) // logged
				cancel()
			}
		}
	}()
}

// Refit reads the latest decisions (their Top candidate, whatever the
// action) and outcomes from their streams, refits the calibration
// (feedback.Refit, against the probabilities the decisions were given) and
// puts the new model under wire.ModelKeyCalibration only when it is
// accepted: no worse on the held-out slice. The reason is logged either
// way.
func (f *FeedbackStage) Refit(ctx context.Context, js jetstream.JetStream, cfg RefitConfig) (feedback.RefitResult, error) {
	cfg.Streams = cfg.Streams.withDefaults()
	if cfg.Window <= 0 {
		cfg.Window = DefaultRefitWindow
	}
	if cfg.MaxStep == 0 {
		cfg.MaxStep = DefaultRefitMaxStep
	}
	var decisions []feedback.LoggedDecision
	// Whose each decision was: the caller token of its subject, which
	// only the decider may publish on.
	owner := map[string]string{}
	err := ReadStream(ctx, js, cfg.Streams.Decisions, Range{Latest: cfg.Window}, func(m jetstream.Msg, _ *jetstream.MsgMetadata) {
		d, err := wire.DecodeDecision(m.Data())
		if err != nil || d.Top == nil {
			return // not decodable, or decided before Top was recorded
		}
		if strings.Contains(d.Degraded, match.DegradedReranker) {
			// Ranked by the fallback of a remote reranker: its score is on
			// another scale than the scores the refit calibrates.
			return
		}
		caller, ok := wire.CallerOfDecision(m.Subject())
		if !ok {
			return
		}
		owner[d.DecisionID] = caller
		decisions = append(decisions, feedback.LoggedDecision{DecisionID: d.DecisionID, TaskID: d.TaskID,
			TopKey: d.Top.Key, TopScore: d.Top.Score, Prob: d.Top.Prob, At: d.DecidedAt})
	})
	if err != nil {
		return feedback.RefitResult{}, err
	}
	// Labels the operator trusts only: an outcome counts when it comes
	// from the caller its decision was delivered to, and that caller is
	// trusted (FeedbackConfig.Callers). Anyone else's are evidence.
	var outcomes []feedback.Outcome
	untrusted := 0
	err = ReadStream(ctx, js, cfg.Streams.Outcomes, Range{Latest: cfg.Window}, func(m jetstream.Msg, _ *jetstream.MsgMetadata) {
		o, err := wire.DecodeOutcome(m.Data())
		if err != nil {
			return
		}
		caller, err := wire.CallerOf(wire.SubjectOutcome, m.Subject())
		if mine, ok := owner[o.DecisionID]; err != nil || !ok || mine != caller || !f.cfg.trusted(caller) {
			untrusted++
			return
		}
		outcomes = append(outcomes, toFeedback(o))
	})
	if err != nil {
		return feedback.RefitResult{}, err
	}
	res, err := feedback.Refit(decisions, outcomes, nil, cfg.Options...)
	if err != nil {
		f.log.Warn("calibration refit failed", zap.Error(err))
		return res, err
	}
	if res.Accepted && res.Model != nil && cfg.MaxStep > 0 {
		if step := maxStep(res.Model, decisions); step > cfg.MaxStep {
			res.Accepted = false
			res.Reason = fmt.Sprintf("moves a probability by %.2f, more than the bounded step %.2f per refit", step, cfg.MaxStep)
		}
	}
	lf := []zap.Field{zap.Bool("accepted", res.Accepted), zap.String("reason", res.Reason),
		zap.Int("decisions", len(decisions)), zap.Int("outcomes", len(outcomes)), zap.Int("untrusted outcomes", untrusted),
		zap.Int("labelled", res.N)}
	if !res.Accepted || res.Model == nil {
		f.log.Info("calibration refit not published", lf...)
		return res, nil
	}
	data, err := json.Marshal(res.Model)
	if err != nil {
		return res, err
	}
	rev, err := f.kv.Put(ctx, wire.ModelKeyCalibration, data)
	if err != nil {
		return res, fmt.Errorf("pipeline: feedback: put calibration: %w", err)
	}
	f.log.Info("calibration refit published", append(lf, zap.Uint64("revision", rev))...)
	return res, nil
}

// maxStep is the largest difference between the probability model gives a
// logged decision's top score and the probability it was given.
func maxStep(model calibrate.Calibrator, decisions []feedback.LoggedDecision) float64 {
	step := 0.0
	for _, d := range decisions {
		step = max(step, math.Abs(model.Prob(d.TopScore)-d.Prob))
	}
	return step
}

// toFeedback converts a wire outcome.
func toFeedback(o *wire.Outcome) feedback.Outcome {
	fo := feedback.Outcome{DecisionID: o.DecisionID, TaskID: o.TaskID, Skill: o.Skill, Success: o.Success,
		Cost: o.Cost, RightSkill: o.RightSkill, At: o.At}
	if o.LatencyMS > 0 && o.LatencyMS < float64(1<<62)/float64(time.Millisecond) {
		fo.Latency = time.Duration(o.LatencyMS * float64(time.Millisecond))
	}
	return fo
}
