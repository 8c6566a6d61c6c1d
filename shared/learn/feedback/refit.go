package feedback

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/skillmatch/skillmatch/shared/match/calibrate"
)

// LoggedDecision is what Refit needs of a logged decision: its top
// candidate (whatever the action was) with the raw fit score and the
// probability it was given.
type LoggedDecision struct {
	DecisionID string `json:"decisionId"`
	TaskID     string `json:"taskId"`
	// TopKey is the top candidate's key ("agent/skill").
	TopKey string `json:"topKey"`
	// TopScore is the top candidate's raw reranker fit, 0-10.
	TopScore float64 `json:"topScore"`
	// Prob is the calibrated probability the decision gave it.
	Prob float64   `json:"probability"`
	At   time.Time `json:"at,omitzero"`
}

// Defaults of Refit.
const (
	// DefaultMinLabels is the fewest labelled decisions Refit fits on.
	DefaultMinLabels = 200
	// DefaultHoldout is the share of tasks held out to compare models.
	DefaultHoldout = 0.2
	// DefaultBins is the number of ECE bins, as in skillmatch's reports.
	DefaultBins = 10
)

// RefitOption configures Refit.
type RefitOption func(*refitConfig)

type refitConfig struct {
	minLabels int
	holdout   float64
	bins      int
	tolerance float64
}

// WithMinLabels sets the fewest labelled decisions a refit needs (default
// 200).
func WithMinLabels(n int) RefitOption { return func(c *refitConfig) { c.minLabels = n } }

// WithHoldout sets the share of tasks, in (0, 1), held out to compare the
// models (default 0.2).
func WithHoldout(f float64) RefitOption { return func(c *refitConfig) { c.holdout = f } }

// WithBins sets the number of ECE bins (default 10).
func WithBins(n int) RefitOption { return func(c *refitConfig) { c.bins = n } }

// WithTolerance lets the new model be worse than the current one by up to
// tol in held-out ECE and Brier score and still be accepted (default 0:
// no worse on either).
func WithTolerance(tol float64) RefitOption { return func(c *refitConfig) { c.tolerance = tol } }

// RefitResult is the outcome of a refit. Model is the new model whenever
// one could be fitted, accepted or not; publish it only when Accepted.
type RefitResult struct {
	Model    *calibrate.Model `json:"model,omitempty"`
	Accepted bool             `json:"accepted"`
	// OldECE and OldBrier are the current calibrator's on the held-out
	// slice (the logged probabilities' when there is no current one);
	// NewECE and NewBrier the new model's.
	OldECE   float64 `json:"oldEce"`
	NewECE   float64 `json:"newEce"`
	OldBrier float64 `json:"oldBrier"`
	NewBrier float64 `json:"newBrier"`
	// N is the number of labelled decisions, NFit and NHeldOut how they
	// were split.
	N        int `json:"n"`
	NFit     int `json:"nFit"`
	NHeldOut int `json:"nHeldOut"`
	// Unlabelled counts decisions with an outcome but no label for the
	// top candidate.
	Unlabelled int    `json:"unlabelled"`
	Reason     string `json:"reason"`
}

// Example is one labelled decision: the top candidate's raw score and
// probability, and whether it was the right skill.
type Example struct {
	TaskID string
	Score  float64
	Prob   float64
	Right  bool
}

// Label says whether a decision's top candidate was right, from the
// decision's outcomes, and whether a label could be given at all. An
// outcome naming the right skill labels the top candidate directly (a
// RightSkill of NoSkill says it was wrong); otherwise the success of the
// top candidate, when it was the skill tried, is the label. Outcomes naming
// the right skill win over success labels, and the latest of each kind
// wins over earlier ones.
func Label(top string, outcomes []Outcome) (right, ok bool) {
	var bestRight, bestSucc *Outcome
	for i := range outcomes {
		o := &outcomes[i]
		switch {
		case o.RightSkill != "":
			if bestRight == nil || !o.At.Before(bestRight.At) {
				bestRight = o
			}
		case o.Skill == top:
			if bestSucc == nil || !o.At.Before(bestSucc.At) {
				bestSucc = o
			}
		}
	}
	switch {
	case bestRight != nil:
		return bestRight.RightSkill == top, true
	case bestSucc != nil:
		return bestSucc.Success, true
	}
	return false, false
}

// Join pairs each decision (the first of each decision id) with the label
// of its outcomes, in the decisions' order. It also returns how many
// decisions had outcomes but no label. Outcomes of decisions not given
// are ignored.
func Join(decisions []LoggedDecision, outcomes []Outcome) (examples []Example, unlabelled int) {
	byDecision := make(map[string][]Outcome)
	for _, o := range outcomes {
		if o.DecisionID != "" {
			byDecision[o.DecisionID] = append(byDecision[o.DecisionID], o)
		}
	}
	done := make(map[string]bool, len(decisions))
	for _, d := range decisions {
		if d.DecisionID == "" || d.TopKey == "" || done[d.DecisionID] {
			continue
		}
		done[d.DecisionID] = true
		outs, has := byDecision[d.DecisionID]
		if !has {
			continue
		}
		right, ok := Label(d.TopKey, outs)
		if !ok {
			unlabelled++
			continue
		}
		examples = append(examples, Example{TaskID: d.TaskID, Score: d.TopScore, Prob: d.Prob, Right: right})
	}
	return examples, unlabelled
}

// HeldOut says whether a task belongs to the held-out slice holding the
// given share of tasks. The split hashes the task id (FNV-1a), so a task
// stays on the same side in every refit and every process.
func HeldOut(taskID string, share float64) bool {
	h := fnv.New64a()
	h.Write([]byte(taskID))
	const buckets = 10_000
	return float64(h.Sum64()%buckets) < share*buckets
}

// Refit fits a new calibration on logged decisions joined with labelled
// outcomes (see Join and Label) and compares it with the current one.
//
// The examples are split by HeldOut into a fit slice and a held-out slice
// (80/20 by default). A new model is fitted with calibrate.Fit on the fit
// slice; the current calibrator and the new model are scored on the
// held-out slice by ECE and Brier score. The new model is accepted only
// when there are at least MinLabels labelled decisions, the held-out
// slice is not empty, and the new model is no worse on either measure
// (within the tolerance). Otherwise Accepted is false and Reason says why;
// that is not an error. current may be nil: the logged probabilities
// stand in for it.
//
// It returns an error only for invalid options or a non-finite score or
// probability in the labelled decisions.
func Refit(decisions []LoggedDecision, outcomes []Outcome, current calibrate.Calibrator, opts ...RefitOption) (RefitResult, error) {
	cfg := refitConfig{minLabels: DefaultMinLabels, holdout: DefaultHoldout, bins: DefaultBins}
	for _, o := range opts {
		o(&cfg)
	}
	if !(cfg.holdout > 0 && cfg.holdout < 1) {
		return RefitResult{}, fmt.Errorf("feedback: refit: held-out share %v not in (0, 1)", cfg.holdout)
	}
	if cfg.bins < 1 {
		return RefitResult{}, fmt.Errorf("feedback: refit: %d ECE bins", cfg.bins)
	}
	if !(cfg.tolerance >= 0) {
		return RefitResult{}, fmt.Errorf("feedback: refit: tolerance %v", cfg.tolerance)
	}
	examples, unlabelled := Join(decisions, outcomes)
	res := RefitResult{N: len(examples), Unlabelled: unlabelled}
	var fitS, heldS, heldP []float64
	var fitL, heldL []bool
	for _, e := range examples {
		if math.IsNaN(e.Score) || math.IsInf(e.Score, 0) {
			return res, fmt.Errorf("feedback: refit: task %s: score %v", e.TaskID, e.Score)
		}
		if HeldOut(e.TaskID, cfg.holdout) {
			if math.IsNaN(e.Prob) {
				return res, fmt.Errorf("feedback: refit: task %s: probability %v", e.TaskID, e.Prob)
			}
			heldS, heldP, heldL = append(heldS, e.Score), append(heldP, e.Prob), append(heldL, e.Right)
		} else {
			fitS, fitL = append(fitS, e.Score), append(fitL, e.Right)
		}
	}
	res.NFit, res.NHeldOut = len(fitS), len(heldS)
	if res.N < cfg.minLabels {
		res.Reason = fmt.Sprintf("only %d labelled decisions, need %d", res.N, cfg.minLabels)
		return res, nil
	}
	if res.NHeldOut == 0 {
		res.Reason = "no labelled decision in the held-out slice"
		return res, nil
	}
	m, err := calibrate.Fit(fitS, fitL)
	if err != nil {
		res.Reason = fmt.Sprintf("cannot fit on %d labelled decisions: %v", res.NFit, err)
		return res, nil
	}
	res.Model = m
	oldP := heldP
	if current != nil {
		oldP = make([]float64, len(heldS))
		for i, s := range heldS {
			oldP[i] = current.Prob(s)
		}
	}
	newP := make([]float64, len(heldS))
	for i, s := range heldS {
		newP[i] = m.Prob(s)
	}
	res.OldECE, res.NewECE = calibrate.ECE(oldP, heldL, cfg.bins), calibrate.ECE(newP, heldL, cfg.bins)
	res.OldBrier, res.NewBrier = calibrate.Brier(oldP, heldL), calibrate.Brier(newP, heldL)
	var worse []string
	if res.NewECE > res.OldECE+cfg.tolerance {
		worse = append(worse, fmt.Sprintf("ECE %.4f > %.4f", res.NewECE, res.OldECE))
	}
	if res.NewBrier > res.OldBrier+cfg.tolerance {
		worse = append(worse, fmt.Sprintf("Brier %.4f > %.4f", res.NewBrier, res.OldBrier))
	}
	if len(worse) > 0 {
		sort.Strings(worse)
		res.Reason = fmt.Sprintf("new %s model is worse on %d held-out decisions: %s", m.Method(), res.NHeldOut, strings.Join(worse, ", "))
		return res, nil
	}
	res.Accepted = true
	res.Reason = fmt.Sprintf("new %s model on %d labelled decisions: held-out ECE %.4f → %.4f, Brier %.4f → %.4f (%d held out)",
		m.Method(), res.NFit, res.OldECE, res.NewECE, res.OldBrier, res.NewBrier, res.NHeldOut)
	return res, nil
}
