package refresh

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
)

// EvalFunc scores the matcher a catalog gives. The refresher calls it
// after a refresh that changed the catalog, so a card update that hurts
// matching shows up in the log next to the figures before it.
type EvalFunc func(ctx context.Context, cat *catalog.Catalog) (*eval.Report, error)

// GoldenEval runs labelled tasks (a golden set's split) against the
// matcher build makes for the catalog. The tasks' expected skills must be
// keys of the live catalog ("<agent id>/<skill id>").
func GoldenEval(tasks []golden.Task, build func(*catalog.Catalog) (*match.Matcher, error)) EvalFunc {
	return func(ctx context.Context, cat *catalog.Catalog) (*eval.Report, error) {
		m, err := build(cat)
		if err != nil {
			return nil, fmt.Errorf("refresh: build matcher for evaluation: %w", err)
		}
		rep, _, err := eval.Run(ctx, m, tasks, nil)
		if err != nil {
			return nil, fmt.Errorf("refresh: evaluation: %w", err)
		}
		return rep, nil
	}
}

// Evaluation is the evaluation after one refresh, with the one before it
// (nil for the first).
type Evaluation struct {
	Report   *eval.Report
	Previous *eval.Report
}

// fields are the figures as one log line: the new ones, and the previous
// ones with the deltas when there is a previous run.
func (e Evaluation) fields() []zap.Field {
	r := e.Report
	fs := []zap.Field{zap.Int("tasks", r.Tasks), zap.Float64("top1", r.Top1),
		zap.Float64("precision", r.Precision), zap.Float64("coverage", r.Coverage)}
	if p := e.Previous; p != nil {
		fs = append(fs,
			zap.Float64("prev_top1", p.Top1), zap.Float64("prev_precision", p.Precision), zap.Float64("prev_coverage", p.Coverage),
			zap.Float64("delta_top1", r.Top1-p.Top1), zap.Float64("delta_precision", r.Precision-p.Precision),
			zap.Float64("delta_coverage", r.Coverage-p.Coverage))
	}
	return fs
}

// EvalRecord is an evaluation as kept across restarts.
type EvalRecord struct {
	// Matcher names what made the matcher besides the catalog: the
	// embedder's id and the model.
	Matcher string       `json:"matcher"`
	At      time.Time    `json:"at"`
	Report  *eval.Report `json:"report"`
}

// EvalStore keeps the last evaluation. Last returns nil when there is
// none.
type EvalStore interface {
	Last(ctx context.Context) (*EvalRecord, error)
	Save(ctx context.Context, rec EvalRecord) error
}

// WithEvalStore keeps the last evaluation in s with matcherID (the
// embedder's id and the model, say): the first refresh of a process
// evaluates even when no card changed if there is no evaluation yet or it
// was made with another matcher (the embedder changed), and every
// evaluation is logged next to the last one, across restarts.
func WithEvalStore(s EvalStore, matcherID string) Option {
	return func(c *config) { c.evalStore, c.matcher = s, matcherID }
}
