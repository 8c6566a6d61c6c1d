package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
)

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval --set DIR [--split dev] [--model FILE] [--learn-from train [--learn-tasks N] [--learn-as trusted|untrusted]] [--json FILE] [--pertask FILE] [--plot FILE]",
		"Matches every task of a golden set's split and prints the figures: recall@20, top-1,\n"+
			"MRR, delegation precision, coverage, no-match refusal, ECE and per-task latency,\n"+
			"beside the top-1, recall@20 and MRR of plain BM25 over the same filtered catalog;\n"+
			"then top-1, delegations and calibration by task category (when the set gives\n"+
			"categories) and by whether the right skill's card gives examples (when both kinds occur).", stderr)
	set := fs.String("set", "", "golden set folder (cards/, optional registry.json, tasks.jsonl)")
	split := fs.String("split", "dev", "split to evaluate: train, dev, test or all")
	mf := matcherFlags(fs)
	// Evaluation measures matching: golden sets are specifications, often
	// of development agents on localhost, not a deployment to guard.
	if f := fs.Lookup("allow-private-endpoints"); f != nil {
		f.DefValue = "true"
		_ = f.Value.Set("true")
	}
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file (-: stdout, and the printed figures go to stderr;\nlikewise for --pertask and --plot, one of the three at most)")
	perTask := fs.String("pertask", "", "also write one JSON line per task to this file: id, expected, acceptable,\ntop, decision, chosen, probability, rank, bm25_rank, category, reason,\nand fallbacks, candidates, steps and plan_probability as the decision has them")
	plot := fs.String("plot", "", "also write an SVG to this file (a name ending .png, .jpg or .pdf is refused): the reliability\ndiagram and the precision/coverage curve over the delegation threshold")
	learnFrom := fs.String("learn-from", "", "before evaluating, report tasks of this split (e.g. train) as verified successes of their\n"+
		"expected skill through the feedback stage (in process, on an embedded NATS server), and\n"+
		"evaluate with the examples the catalog learned from them")
	learnTasks := fs.Int("learn-tasks", 2000, "--learn-from: how many tasks, spread evenly over the split (deterministic)")
	learnAs := fs.String("learn-as", "trusted", "--learn-from: report as a trusted or an untrusted caller (whose outcomes teach nothing)")
	quiet := fs.Bool("quiet", false, "no progress output")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *set == "" {
		return fmt.Errorf("%w: eval needs --set DIR", errUsage)
	}
	// "-" is stdout, for one of the outputs; the printed figures then go
	// to stderr, so that stdout holds that output alone.
	report, dashes := stdout, 0
	for _, o := range []struct{ flag, path string }{{"--json", *jsonOut}, {"--pertask", *perTask}, {"--plot", *plot}} {
		if o.path == "-" {
			report, dashes = stderr, dashes+1
			continue
		}
		if err := checkOutput(o.flag, o.path); err != nil {
			return err
		}
	}
	if dashes > 1 {
		return fmt.Errorf("%w: only one of --json, --pertask and --plot may be - (stdout)", errUsage)
	}
	if ext := strings.ToLower(filepath.Ext(*plot)); rasterExt[ext] {
		// The plot is SVG: a viewer expecting a PNG cannot open it.
		return fmt.Errorf("%w: --plot %s: the plot is an SVG; name the file .svg", errUsage, *plot)
	}
	gs, err := golden.Load(*set)
	if err != nil {
		return err
	}
	warnSet(stderr, gs)
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
	if *learnFrom != "" {
		if *learnFrom == "test" || *learnFrom == "all" {
			return fmt.Errorf("%w: --learn-from %s: learning is fitting, and nothing is fitted on a test split", errUsage, *learnFrom)
		}
		if *learnFrom == *split || *split == "all" {
			return fmt.Errorf("%w: --learn-from %s would teach the tasks being evaluated", errUsage, *learnFrom)
		}
		taught := pickSpread(gs.Split(*learnFrom), *learnTasks)
		learned, err := learnFromOutcomes(ctx, taught, *learnAs)
		if err != nil {
			return err
		}
		n := 0
		for _, v := range learned {
			n += len(v)
		}
		fmt.Fprintf(report, "learned from %d %s tasks reported by a%s caller: %d examples of %d skills\n",
			len(taught), *learnFrom, map[bool]string{true: " trusted", false: "n untrusted"}[*learnAs == "trusted"], n, len(learned))
		lb, err := mf.LearnedBuilder(nil)
		if err != nil {
			return err
		}
		if m, err = lb(gs.Catalog, learned); err != nil {
			return err
		}
	}
	var prog func(int, int)
	if !*quiet {
		prog = newProgress(stderr, "eval").update
	}
	rep, outs, err := eval.Run(ctx, m, tasks, prog)
	if err != nil {
		return err
	}
	printReport(report, *set, *split, len(gs.Catalog.Agents), countSkills(m), rep)
	if sc := m.SelfCalibration(); sc != nil {
		fmt.Fprintf(report, "self-calibration: %d no-match pseudo-requests, 90th percentile probability %.3f, threshold %.3f\n",
			sc.Queries, sc.NoMatchProb, sc.Threshold)
	}
	if *jsonOut != "" {
		if err := writeOutput(*jsonOut, stdout, func(w io.Writer) error { return writeReportJSON(w, rep) }); err != nil {
			return err
		}
	}
	if *perTask != "" {
		if err := writeOutput(*perTask, stdout, func(w io.Writer) error { return eval.WritePerTask(w, outs) }); err != nil {
			return err
		}
	}
	if *plot != "" {
		title := fmt.Sprintf("%s, split %s: %d tasks", *set, *split, rep.Tasks)
		if err := writeOutput(*plot, stdout, func(w io.Writer) error { return eval.WritePlot(w, title, outs, m.Policy()) }); err != nil {
			return err
		}
	}
	return nil
}

// reportJSON is the documented shape of eval --json. Refusal is null when
// the set has no no-match tasks: 0 would read as "never refused".
type reportJSON struct {
	Tasks     int            `json:"tasks"`
	RecallAt  float64        `json:"recall_at_20"`
	Top1      float64        `json:"top1"`
	MRR       float64        `json:"mrr"`
	Precision float64        `json:"precision"`
	Coverage  float64        `json:"coverage"`
	Refusal   *float64       `json:"refusal"`
	ECE       float64        `json:"ece"`
	P50       float64        `json:"p50_us"`
	P99       float64        `json:"p99_us"`
	BM25      *eval.Baseline `json:"bm25,omitempty"`
	// ByCategory and ByCard are eval.Report's breakdowns.
	ByCategory []eval.Group `json:"by_category,omitempty"`
	ByCard     []eval.Group `json:"by_card,omitempty"`
}

func writeReportJSON(w io.Writer, r *eval.Report) error {
	out := reportJSON{r.Tasks, r.RecallAt, r.Top1, r.MRR, r.Precision, r.Coverage, nil, r.ECE, r.P50us, r.P99us, r.BM25, r.ByCategory, r.ByCard}
	if r.NoMatch > 0 {
		out.Refusal = &r.Refusal
	}
	data, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// writeOutput creates path ("-": stdout) and writes it with write, reporting either error
// with the path.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
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
	fmt.Fprintf(w, "  decisions            %d delegate, %d clarify, %d abstain", r.Delegated, r.Clarified, r.Abstained)
	if r.Planned > 0 {
		fmt.Fprintf(w, ", %d plan", r.Planned)
	}
	fmt.Fprintln(w)
	if r.PlanTasks > 0 {
		fmt.Fprintf(w, "  plan recall          %.3f  (%d tasks with an expected plan)\n", r.PlanRecall, r.PlanTasks)
		fmt.Fprintf(w, "  plan precision       %.3f\n", r.PlanPrecision)
	}
	fmt.Fprintf(w, "  latency per task     p50 %.0f µs, p99 %.0f µs\n", r.P50us, r.P99us)
	if r.Degraded > 0 {
		fmt.Fprintf(w, "  degraded             %d tasks decided without the remote model\n", r.Degraded)
	}
	if r.BM25 != nil {
		// The same tasks ranked by BM25 alone over the same filtered
		// catalog: what the model and the dense retriever add.
		fmt.Fprintf(w, "plain BM25 (same tasks, same filtered catalog, no model):\n")
		fmt.Fprintf(w, "  recall@20            %.3f  (skillmatch %.3f)\n", r.BM25.RecallAt, r.RecallAt)
		fmt.Fprintf(w, "  top-1                %.3f  (skillmatch %.3f)\n", r.BM25.Top1, r.Top1)
		fmt.Fprintf(w, "  MRR                  %.3f  (skillmatch %.3f)\n", r.BM25.MRR, r.MRR)
	}
	if len(r.ByCategory) > 0 {
		fmt.Fprintf(w, "by category (top-1 over the tasks with a right skill, plain BM25's beside it; the top\n"+
			"candidate's mean probability against how often it is right, over every task):\n")
		printGroups(w, "category", r.ByCategory)
	}
	if len(r.ByCard) > 0 {
		fmt.Fprintf(w, "by the right skill's card (tasks with a right skill):\n")
		printGroups(w, "card", r.ByCard)
	}
}

// printGroups prints a breakdown as a table, one group a row.
func printGroups(w io.Writer, kind string, gs []eval.Group) {
	width := len(kind)
	for _, g := range gs {
		width = max(width, len(g.Name))
	}
	fmt.Fprintf(w, "  %-*s  %5s  %5s  %5s  %9s  %9s  %11s  %5s\n", width, kind, "tasks", "top-1", "BM25", "delegated", "precision", "probability", "right")
	for _, g := range gs {
		// A share of nothing is no figure: "-", not 0.
		top, bm, prec := "    -", "    -", "        -"
		if g.WithExpected > 0 {
			top = fmt.Sprintf("%5.3f", g.Top1)
			if g.BM25Top1 != nil {
				bm = fmt.Sprintf("%5.3f", *g.BM25Top1)
			}
		}
		if g.Delegated > 0 {
			prec = fmt.Sprintf("%9.3f", g.Precision)
		}
		fmt.Fprintf(w, "  %-*s  %5d  %s  %s  %9d  %s  %11.3f  %5.3f\n", width, g.Name, g.Tasks, top, bm, g.Delegated, prec, g.MeanProb, g.TopRight)
	}
}

// shownLabelErrors is how many tasks with unknown labels a warning names:
// one card that failed to load can leave hundreds of them.
const shownLabelErrors = 5

// warnSet prints what of golden set gs did not load or does not add up:
// each card that failed, and the first tasks whose labels name no skill
// of its catalog, with how many more there are.
func warnSet(w io.Writer, gs *golden.Set) {
	for _, e := range gs.CardErrors {
		fmt.Fprintln(w, "warning:", e)
	}
	for i, e := range gs.LabelErrors {
		if i == shownLabelErrors {
			fmt.Fprintf(w, "warning: %s: %d more tasks name skills not in the catalog\n", gs.Dir, len(gs.LabelErrors)-i)
			break
		}
		fmt.Fprintf(w, "warning: %s: %v\n", gs.Dir, e)
	}
}

// rasterExt are the extensions of other image and document formats,
// which --plot refuses: it writes SVG only.
var rasterExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".pdf": true}

// checkOutput says whether a file a flag names can be written, before
// the work that makes it: its folder must exist, and the path must not be
// a folder ("": the flag is not set). A fit of minutes that cannot save
// its model should not start.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%w: %s %s is a folder; give a file", errUsage, flag, path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s %s: folder %s does not exist", errUsage, flag, path, dir)
	}
	return nil
}
