package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skillmatch/skillmatch/shared/learn/fit"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
)

func cmdFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", "fit --set DIR [--set DIR...] [--split train] -o model.json",
		"Fits the reranker's weights and the calibration of its top score on a golden set's\n"+
			"training split, and writes a model file for eval, match and run (--model). Several\n"+
			"--set fit one model on all their training tasks, each matched against its own catalog.", stderr)
	var sets listFlag
	fs.Var(&sets, "set", "golden set folder (repeatable: one model across several sets)")
	split := fs.String("split", "train", "split to fit on")
	out := fs.String("o", "model.json", "model file to write")
	examples := fs.Bool("examples", true, "keep the training texts in the model as extra examples of their skills\n(turn off for a domain-neutral model: weights and calibration only)")
	folds := fs.Int("folds", 5, "cross-fitting folds when --examples is on")
	l2 := fs.Float64("l2", 1, "ridge penalty on the reranker's standardised weights")
	noMatch := fs.Float64("no-match-weight", 10, "weight of a task no skill should take, in the loss and the calibration\n(training sets hold few of them; real traffic holds many)")
	bare := fs.Bool("bare-too", false, "also fit each set whose cards give examples with those examples removed\n(the description-only regime most catalogs are in)")
	both := fs.Bool("both-text-regimes", false, "fit each set both with its training texts indexed as extra examples (cross-fitted)\nand without, whatever --examples keeps: weights for catalogs with many examples and with none")
	calNoMatch := fs.Float64("calibration-no-match-weight", 0, "weight of a task no skill should take in the calibration alone (default: --no-match-weight)")
	quiet := fs.Bool("quiet", false, "no progress output")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("%w: fit needs --set DIR", errUsage)
	}
	var gss []*golden.Set
	for _, dir := range sets {
		gs, err := golden.Load(dir)
		if err != nil {
			return err
		}
		for _, e := range gs.CardErrors {
			fmt.Fprintln(stderr, "warning:", e)
		}
		gss = append(gss, gs)
	}
	cfg := fit.Config{Split: *split, Examples: *examples, Folds: *folds, L2: *l2, NoMatchWeight: *noMatch, CalibrationNoMatchWeight: *calNoMatch, BareToo: *bare, BothTextRegimes: *both}
	if !*quiet {
		p := newProgress(stderr, "fit")
		cfg.Progress = func(_ string, done, total int) { p.update(done, total) }
	}
	m, err := fit.FitSets(ctx, gss, cfg)
	if err != nil {
		return err
	}
	if err := m.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fitted on %d tasks of %s (split %s, %d folds, examples %v): wrote %s\n",
		m.Fitted.Tasks, strings.Join(sets, ", "), *split, m.Fitted.Folds, *examples, *out)
	return nil
}
