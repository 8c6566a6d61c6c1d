package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
)

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval --set DIR [--split dev] [--model FILE] [--json FILE]",
		"Matches every task of a golden set's split and prints the figures: recall@20, top-1,\n"+
			"MRR, delegation precision, coverage, no-match refusal, ECE and per-task latency.", stderr)
	set := fs.String("set", "", "golden set folder (cards/, optional registry.json, tasks.jsonl)")
	split := fs.String("split", "dev", "split to evaluate: train, dev, test or all")
	mf := matcherFlags(fs)
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file")
	quiet := fs.Bool("quiet", false, "no progress output")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *set == "" {
		return fmt.Errorf("%w: eval needs --set DIR", errUsage)
	}
	gs, err := golden.Load(*set)
	if err != nil {
		return err
	}
	for _, e := range gs.CardErrors {
		fmt.Fprintln(stderr, "warning:", e)
	}
	tasks := gs.Split(*split)
	if len(tasks) == 0 {
		return fmt.Errorf("%w: split %q of %s has no tasks", errUsage, *split, *set)
	}
	build, err := mf.Builder(nil)
	if err != nil {
		return err
	}
	m, err := build(gs.Catalog)
	if err != nil {
		return err
	}
	var prog func(int, int)
	if !*quiet {
		prog = newProgress(stderr, "eval").update
	}
	rep, _, err := eval.Run(ctx, m, tasks, prog)
	if err != nil {
		return err
	}
	printReport(stdout, *set, *split, len(gs.Catalog.Agents), countSkills(m), rep)
	if *jsonOut != "" {
		data, _ := json.Marshal(struct {
			Tasks     int     `json:"tasks"`
			RecallAt  float64 `json:"recall_at_20"`
			Top1      float64 `json:"top1"`
			MRR       float64 `json:"mrr"`
			Precision float64 `json:"precision"`
			Coverage  float64 `json:"coverage"`
			Refusal   float64 `json:"refusal"`
			ECE       float64 `json:"ece"`
			P50       float64 `json:"p50_us"`
			P99       float64 `json:"p99_us"`
		}{rep.Tasks, rep.RecallAt, rep.Top1, rep.MRR, rep.Precision, rep.Coverage, rep.Refusal, rep.ECE, rep.P50us, rep.P99us})
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", *jsonOut, err)
		}
	}
	return nil
}

func countSkills(m *match.Matcher) int { return m.Index().Len() }

func printReport(w io.Writer, set, split string, agents, skills int, r *eval.Report) {
	fmt.Fprintf(w, "set %s, split %s: %d tasks (%d with an expected skill, %d no-match); catalog %d agents, %d skills\n",
		set, split, r.Tasks, r.WithExpected, r.NoMatch, agents, skills)
	fmt.Fprintf(w, "  recall@20            %.3f\n", r.RecallAt)
	fmt.Fprintf(w, "  top-1                %.3f\n", r.Top1)
	fmt.Fprintf(w, "  MRR                  %.3f\n", r.MRR)
	fmt.Fprintf(w, "  delegation precision %.3f  (%d delegated)\n", r.Precision, r.Delegated)
	fmt.Fprintf(w, "  coverage             %.3f\n", r.Coverage)
	if r.NoMatch > 0 {
		fmt.Fprintf(w, "  no-match refusal     %.3f\n", r.Refusal)
	} else {
		fmt.Fprintf(w, "  no-match refusal     n/a (no no-match tasks)\n")
	}
	fmt.Fprintf(w, "  ECE (10 bins)        %.3f\n", r.ECE)
	fmt.Fprintf(w, "  decisions            %d delegate, %d clarify, %d abstain\n", r.Delegated, r.Clarified, r.Abstained)
	fmt.Fprintf(w, "  latency per task     p50 %.0f µs, p99 %.0f µs\n", r.P50us, r.P99us)
}
