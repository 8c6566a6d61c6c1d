package fit

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
)

// RemoteConfig configures FitRemote.
type RemoteConfig struct {
	// Build builds a matcher that ranks with the remote reranker
	// (app.MatcherFlags.Builder with --reranker llm or systemone).
	Build func(*catalog.Catalog) (*match.Matcher, error)
	// Split is the split fitted on (default "train").
	Split string
	// NoMatchWeight weighs tasks no skill should take in the calibration,
	// as Config's CalibrationNoMatchWeight does (default 1: at the share
	// the labelled tasks hold).
	NoMatchWeight float64
	// Progress, when set, is called after each task.
	Progress func(done, total int)
}

// RemoteFit is what FitRemote learned.
type RemoteFit struct {
	Calibration *calibrate.Model
	// Tasks were used; Degraded were left out because the remote reranker
	// did not rank them (down, over budget, a refused answer).
	Tasks, Degraded int
}

// ErrTooDegraded is returned when the remote reranker ranked too few
// tasks to fit on (under half of them).
var ErrTooDegraded = errors.New("fit: the remote reranker ranked too few tasks")

// FitRemote fits the calibration of a remote reranker's top fit: every
// task of the split is matched with it, and its top fit is labelled by
// whether that skill is the expected (or an acceptable) one. The remote
// reranker has no weights to learn; tasks it did not rank are left out,
// so the learned reranker's scores never leak into its calibration.
func FitRemote(ctx context.Context, sets []*golden.Set, cfg RemoteConfig) (*RemoteFit, error) {
	if cfg.Split == "" {
		cfg.Split = "train"
	}
	if cfg.NoMatchWeight <= 0 {
		cfg.NoMatchWeight = 1
	}
	total := 0
	for _, s := range sets {
		total += len(s.Split(cfg.Split))
	}
	if total == 0 {
		return nil, fmt.Errorf("%w: split %q has no tasks", ErrNothingToFit, cfg.Split)
	}
	var scores []float64
	var labels []bool
	out := &RemoteFit{}
	done := 0
	for _, s := range sets {
		m, err := cfg.Build(s.Catalog)
		if err != nil {
			return nil, fmt.Errorf("fit: %w", err)
		}
		for _, t := range s.Split(cfg.Split) {
			res, err := m.Match(ctx, t.ToTask())
			if err != nil {
				return nil, fmt.Errorf("fit: task %s: %w", t.ID, err)
			}
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total)
			}
			if res.Degraded != "" {
				out.Degraded++
				continue
			}
			score, key := 0.0, ""
			if len(res.Ranked) > 0 {
				score, key = res.Ranked[0].Score, res.Ranked[0].Entry.Key
			}
			// The weight of a no-match task is whole repetitions: the
			// calibration fit takes plain labels.
			n := 1
			if t.NoMatch() {
				n = int(cfg.NoMatchWeight + 0.5)
			}
			for range n {
				scores = append(scores, score)
				labels = append(labels, t.Correct(key))
			}
			out.Tasks++
		}
	}
	if out.Tasks*2 < total {
		return nil, fmt.Errorf("%w: %d of %d", ErrTooDegraded, out.Tasks, total)
	}
	cal, err := calibrate.Fit(scores, labels)
	if err != nil {
		return nil, fmt.Errorf("fit: remote calibration: %w", err)
	}
	out.Calibration = cal
	return out, nil
}
