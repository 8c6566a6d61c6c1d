package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// scopesFlag tells "not given" (no security filter) from "given empty" (a
// caller with no scopes).
type scopesFlag struct {
	set    bool
	scopes []string
}

func (s *scopesFlag) String() string { return strings.Join(s.scopes, ",") }

func (s *scopesFlag) Set(v string) error {
	s.set = true
	if s.scopes == nil {
		s.scopes = []string{}
	}
	return (*listFlag)(&s.scopes).Set(v)
}

func cmdMatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("match", `match --cards DIR "task text" [--file x.pdf] [--accept application/json] [--scopes a,b]
       [--caller ID] [--skill AGENT/SKILL] [--continue TASK] [--explain] [--json]`,
		"Matches one task against a folder of agent cards (optionally with registry.json) and\n"+
			"prints the decision; --explain shows the whole path. The decision is settled as the\n"+
			"pipeline's decider settles it: a named skill (--skill) is taken or refused with the reason,\n"+
			"grants are checked, and a delegation is recorded in --followups so that a later\n"+
			"`match --continue TASK` keeps that task's agent, skill and context.", stderr)
	cards := fs.String("cards", "", "folder of agent cards (cards/*.json or *.json, optional registry.json)")
	tf := newTaskFlags(fs)
	id := fs.String("id", "", "task id (default: a new random id, printed with the decision)")
	followups := fs.String("followups", defaultFollowupsFile(), "file recording this command's delegations for --continue; empty: none kept")
	explain := fs.Bool("explain", false, "show filters (why each removed skill was removed), retrieval ranks, rerank scores and probabilities;\nwith --json, as the decision's \"explain\" object")
	var asJSON jsonFlag
	asJSON.Register(fs, "print the decision")
	mf := matcherFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *cards == "" || len(pos) == 0 {
		return fmt.Errorf("%w: match needs --cards DIR and the task text", errUsage)
	}
	// Checked first, as submit checks it, so that both refuse a bad task
	// the same way before any work.
	t, err := tf.validTask(*id, pos)
	if err != nil {
		return err
	}
	cat, errs := catalog.LoadDir(*cards)
	for _, e := range errs {
		fmt.Fprintln(stderr, "warning:", e)
	}
	if cat == nil || len(cat.Agents) == 0 {
		return app.BadInput(fmt.Errorf("no usable card in %s", *cards))
	}
	mf.Explain = *explain
	if *followups != "" {
		mf.Followups = settle.NewFile(*followups)
	}
	build, err := mf.Builder(nil)
	if err != nil {
		return err
	}
	m, err := build(cat)
	if err != nil {
		return err
	}
	res, err := m.Match(ctx, t)
	if err != nil {
		return err
	}
	if asJSON.On() {
		// A plan carries one ready A2A request per step, as a pipeline
		// delegation carries its request.
		steps, err := wire.StepRequests(m.Catalog(), res.Decision, t, wire.DecisionID(t.Caller.ID, t.ID), m.PrivateEndpoints())
		if err != nil {
			return err
		}
		var ex *explained
		if *explain {
			ex = explainOf(res)
		}
		return asJSON.Write(stdout, struct {
			TaskID string `json:"taskId"`
			decide.Decision
			StepRequests []*wire.A2ARequest `json:"stepRequests,omitempty"`
			Explain      *explained         `json:"explain,omitempty"`
		}{t.ID, res.Decision, steps, ex})
	}
	printDecision(stdout, res.Decision)
	if res.Decision.Action == decide.Delegate && *followups != "" {
		fmt.Fprintf(stdout, "task %s (follow it up with --continue %s)\n", t.ID, t.ID)
	}
	if *explain {
		printExplain(stdout, res)
	}
	return nil
}

func printDecision(w io.Writer, d decide.Decision) {
	switch d.Action {
	case decide.Delegate:
		fmt.Fprintf(w, "delegate to %s (%s / %s), probability %.2f\n", d.Chosen.Key, d.Chosen.AgentName, d.Chosen.SkillName, d.Probability)
		for i, f := range d.Fallbacks {
			fmt.Fprintf(w, "  fallback %d: %s, probability %.2f\n", i+1, f.Key, f.Prob)
		}
	case decide.Clarify:
		fmt.Fprintf(w, "clarify: %s\n", d.Question)
	case decide.Plan:
		fmt.Fprintf(w, "plan of %d steps, probability %.2f\n", len(d.Steps), d.Probability)
		for i, s := range d.Steps {
			fmt.Fprintf(w, "  step %d: %s (%s / %s), probability %.2f: %q\n", i+1, s.Chosen.Key, s.Chosen.AgentName, s.Chosen.SkillName, s.Probability, s.Part)
		}
	default:
		fmt.Fprintf(w, "abstain\n")
	}
	fmt.Fprintf(w, "reason: %s\n", d.Reason)
	if d.Degraded != "" {
		fmt.Fprintf(w, "degraded: %s (the built-in path decided)\n", d.Degraded)
	}
}

func printExplain(w io.Writer, r *match.Result) {
	req := r.Requirement
	fmt.Fprintf(w, "\nrequirement: need %q", req.Need)
	if len(req.InputTypes) > 0 {
		fmt.Fprintf(w, ", inputs %v", req.InputTypes)
	}
	if len(req.OutputTypes) > 0 {
		fmt.Fprintf(w, ", outputs %v", req.OutputTypes)
	}
	if req.Streaming {
		fmt.Fprint(w, ", streaming")
	}
	if req.Scopes != nil {
		fmt.Fprintf(w, ", scopes %v", req.Scopes)
	}
	if req.DataClass != "" {
		fmt.Fprintf(w, ", data class %s", req.DataClass)
	}
	fmt.Fprintln(w)
	if dropped := r.Requirement.DroppedOutputs; len(dropped) > 0 {
		fmt.Fprintf(w, "  outputs %v, read from the words, dropped: no skill passes with them\n", dropped)
	}
	for i, h := range req.History { // the turns it was read after, so a caller sees how many
		fmt.Fprintf(w, "  earlier turn %d: %q\n", i+1, h)
	}
	sl := r.Shortlist
	fmt.Fprintf(w, "\nfilters: %d skills searched, %d removed\n", sl.Retrieval.Allowed, sl.Rejected)
	for _, rj := range sl.Rejections {
		fmt.Fprintf(w, "  - %s/%s: %s: %s\n", rj.Agent, rj.Skill, rj.Rule, rj.Reason)
	}
	fmt.Fprintf(w, "\nshortlist (fused rank, BM25 rank, dense rank, rerank fit, probability):\n")
	for i, c := range r.Ranked {
		demoted := ""
		if c.Demoted {
			demoted = " (degraded agent, demoted)"
		}
		fmt.Fprintf(w, "  %2d. %-40s fused #%-2d bm25 %s dense %s fit %4.1f p %.2f%s\n", i+1, c.Entry.Key, c.FusedRank,
			rank(c.BM25Rank), rank(c.DenseRank), c.Score, c.Prob, demoted)
		fmt.Fprintf(w, "      %s\n", c.Reason)
	}
	fmt.Fprintf(w, "\ntimings: extract %v, filter+retrieve %v, rerank %v, decide %v\n",
		r.Timings.Extract, r.Timings.Retrieve, r.Timings.Rerank, r.Timings.Decide)
}

// explained is what --explain prints, for --json: the requirement, why
// each removed skill was removed, and the shortlist as ranked.
type explained struct {
	// Requirement.DroppedOutputs are outputs read loosely from the words
	// that no skill passes with.
	Requirement extract.Requirement `json:"requirement"`
	Searched    int                 `json:"searched"`
	Rejections  []filter.Rejection  `json:"rejections"`
	Shortlist   []explainedSkill    `json:"shortlist"`
}

type explainedSkill struct {
	Key         string  `json:"key"`
	FusedRank   int     `json:"fusedRank"`
	BM25Rank    int     `json:"bm25Rank,omitempty"`
	DenseRank   int     `json:"denseRank,omitempty"`
	Fit         float64 `json:"fit"`
	Probability float64 `json:"probability"`
	Demoted     bool    `json:"demoted,omitempty"`
	Reason      string  `json:"reason"`
}

func explainOf(r *match.Result) *explained {
	ex := &explained{Requirement: r.Requirement, Rejections: r.Shortlist.Rejections, Shortlist: []explainedSkill{}}
	if ex.Rejections == nil {
		ex.Rejections = []filter.Rejection{}
	}
	if r.Shortlist.Retrieval != nil {
		ex.Searched = r.Shortlist.Retrieval.Allowed
	}
	for _, c := range r.Ranked {
		ex.Shortlist = append(ex.Shortlist, explainedSkill{Key: c.Entry.Key, FusedRank: c.FusedRank, BM25Rank: c.BM25Rank,
			DenseRank: c.DenseRank, Fit: c.Score, Probability: c.Prob, Demoted: c.Demoted, Reason: c.Reason})
	}
	return ex
}

func rank(r int) string {
	if r == 0 {
		return "—  "
	}
	return fmt.Sprintf("#%-3d", r)
}
