package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/app/retrieval"
	"github.com/skillmatch/skillmatch/shared/learn/fit"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/model"
)

func cmdFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fit", "fit --set DIR [--set DIR...] [--split train] -o model.json",
		"Fits the reranker's weights and the calibration of its top score on a golden set's\n"+
			"training split, and writes a model file for eval, match and run (--model). Several\n"+
			"--set fit one model on all their training tasks, each matched against its own catalog.\n"+
			"With --embedder openai the weights are fitted on the remote embedder's vectors. With\n"+
			"--reranker llm or systemone only that reranker's calibration is fitted (every training\n"+
			"task is sent to it, which takes a while); the learned weights and calibration are those\n"+
			"of --model (default: built in), which rank when the remote reranker is unavailable.", stderr)
	var sets listFlag
	fs.Var(&sets, "set", "golden set folder (repeatable: one model across several sets)")
	split := fs.String("split", "train", "split to fit on")
	out := fs.String("o", "model.json", "model file to write")
	examples := fs.Bool("examples", true, "keep the training texts in the model as extra examples of their skills\n(turn off for a domain-neutral model: weights and calibration only)")
	folds := fs.Int("folds", 5, "cross-fitting folds when --examples is on")
	l2 := fs.Float64("l2", 1, "ridge penalty on the reranker's standardised weights")
	noMatch := fs.Float64("no-match-weight", 10, "weight of a task no skill should take in the reranker's loss (training sets hold few of them;\na delegation that should have been an abstention is the costliest mistake)")
	cardExamples := fs.Int("card-examples", 0, "also fit each set whose cards give more examples than this a skill with each cut to its first N\n(cards written by hand give one or two; 0: not)")
	bare := fs.Bool("bare-too", false, "also fit each set whose cards give examples with those examples removed\n(the description-only regime most catalogs are in)")
	mixed := fs.Int("mixed-too", 0, "also fit each set whose cards give examples with every other skill's examples removed\nand the rest cut to their first N (catalogs written by hand mix the two; 0: not)")
	few := fs.Int("few-texts", 0, "also fit each set with at most this many of its training texts a skill indexed as examples\n(cross-fitted): weights for catalogs whose cards give a handful of examples (0: not)")
	both := fs.Bool("both-text-regimes", false, "fit each set both with its training texts indexed as extra examples (cross-fitted)\nand without, whatever --examples keeps: weights for catalogs with many examples and with none")
	dialogues := fs.Bool("dialogues", false, "also fit dialogue tasks made from the training tasks (an earlier turn from another skill\nof the same agent or from another agent), so the history features learn from single-turn sets")
	calNoMatch := fs.Float64("calibration-no-match-weight", 1, "weight of a task no skill should take in the calibration alone: 1 calibrates at the share of them\nthe labelled tasks hold; more (whole copies) for traffic that holds more of them than the training split;\nalso the weight of a remote reranker's calibration (--reranker)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "rerankers trained at once (a fit trains four; the model is the same whatever N);\neach adds a copy of the training pairs' features (clinc150: 0.87 GB peak with 1, 1.33 GB with 2)")
	quiet := fs.Bool("quiet", false, "no progress output")
	mf := matcherFlags(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("%w: fit needs --set DIR", errUsage)
	}
	if *few < 0 {
		return fmt.Errorf("%w: --few-texts must be 0 or more", errUsage)
	}
	if *cardExamples < 0 {
		return fmt.Errorf("%w: --card-examples must be 0 or more", errUsage)
	}
	if *noMatch <= 0 {
		return fmt.Errorf("%w: --no-match-weight must be above 0", errUsage)
	}
	if *workers < 1 {
		return fmt.Errorf("%w: --workers must be 1 or more", errUsage)
	}
	if *calNoMatch < 1 {
		// The calibration counts a task in whole copies.
		return fmt.Errorf("%w: --calibration-no-match-weight must be 1 or more", errUsage)
	}
	if err := checkOutput("-o", *out); err != nil {
		return err
	}
	var gss []*golden.Set
	for _, dir := range sets {
		gs, err := golden.Load(dir)
		if err != nil {
			return err
		}
		warnSet(stderr, gs)
		gss = append(gss, gs)
	}
	if err := mf.Validate(); err != nil {
		return err
	}
	if mf.Reranker != "learned" {
		return fitRemote(ctx, gss, mf, *split, *calNoMatch, *out, *quiet, sets, stdout, stderr)
	}
	emb, err := retrieval.Embedder(mf)
	if err != nil {
		return err
	}
	cfg := fit.Config{Split: *split, Examples: *examples, Folds: *folds, L2: *l2, NoMatchWeight: *noMatch, Embedder: emb,
		CalibrationNoMatchWeight: *calNoMatch, BareToo: *bare, MixedToo: *mixed, CardExamples: *cardExamples, BothTextRegimes: *both, FewTexts: *few, Dialogues: *dialogues,
		Workers: *workers}
	if !*quiet {
		cfg.Progress = newProgress(stderr, "fit").stage
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
	if m.SiblingsCalibrated {
		fmt.Fprintln(stdout, "the calibration already counts a best skill's sibling right (held-out tasks say so): the decider will not pool siblings again")
	}
	return nil
}

// fitRemote fits the calibration of --reranker llm or systemone into a
// copy of the base model (--model, or the built-in one).
func fitRemote(ctx context.Context, gss []*golden.Set, mf *app.MatcherFlags, split string, noMatch float64, out string,
	quiet bool, sets []string, stdout, stderr io.Writer) error {
	mdl := model.Default()
	if mf.Model != "" {
		var err error
		if mdl, err = model.Load(mf.Model); err != nil {
			return app.BadInput(err)
		}
	}
	build, err := mf.Builder(nil)
	if err != nil {
		return err
	}
	cfg := fit.RemoteConfig{Build: build, Split: split, NoMatchWeight: noMatch}
	if !quiet {
		cfg.Progress = newProgress(stderr, "fit "+mf.Reranker).update
	}
	rf, err := fit.FitRemote(ctx, gss, cfg)
	if err != nil {
		return err
	}
	if mdl.Remote == nil {
		mdl.Remote = map[string]*calibrate.Model{}
	}
	mdl.Remote[mf.Reranker] = rf.Calibration
	if err := mdl.Save(out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fitted the %s reranker's calibration (%s) on %d tasks of %s (split %s; %d left out, not ranked by it): wrote %s\n",
		mf.Reranker, rf.Calibration.Method(), rf.Tasks, strings.Join(sets, ", "), split, rf.Degraded, out)
	return nil
}
