package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", `report --decision ID --task ID --skill AGENT/SKILL (--success | --failure) [--latency-ms N] [--cost X] [--caller ID] [--nats URL]`,
		"Reports what came of acting on a decision: an outcome on skillmatch.outcome.<caller>. Outcomes are\n"+
			"evidence, not commands: the feedback stage counts one into the skill's success posterior only when\n"+
			"it names its task, comes from the caller the task was delegated for and reports on the delegated\n"+
			"skill (and that caller is trusted); others are kept as evidence or dead-lettered with the reason.\n"+
			"A decision id that is not the task's for this caller (decision ids are made from both) is refused\n"+
			"here, with exit status 2, before anything is published.", stderr)
	decision := fs.String("decision", "", "the decision id (decisionId of the decision)")
	taskID := fs.String("task", "", "the task id (the decision's taskId): the feedback stage checks the outcome against its delegation")
	skill := fs.String("skill", "", "the skill that was tried, AGENT/SKILL")
	success := fs.Bool("success", false, "the skill did the task")
	failure := fs.Bool("failure", false, "the skill failed the task")
	latency := fs.Float64("latency-ms", 0, "how long the skill took, in milliseconds")
	cost := fs.Float64("cost", 0, "what the skill cost, in any unit")
	right := fs.String("right-skill", "", `the skill that should have been chosen, AGENT/SKILL ("none": no skill fits)`)
	caller := fs.String("caller", "", "who reports (the caller the task was submitted as; the server decides whether this connection may)")
	nf := addNATSFlags(fs)
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the server to store the outcome")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: report takes no arguments (got %q)", errUsage, pos[0])
	}
	if *success == *failure {
		return fmt.Errorf("%w: say --success or --failure", errUsage)
	}
	if *taskID == "" {
		// The feedback stage dead-letters an outcome it cannot check
		// against its task's delegation.
		return fmt.Errorf("%w: report needs --task ID, the task the decision was made for", errUsage)
	}
	if *caller != "" {
		if err := identity.Valid(*caller); err != nil {
			return fmt.Errorf("%w: --caller: %v", errUsage, err)
		}
	}
	o := client.Outcome{DecisionID: *decision, TaskID: *taskID, Skill: *skill, Success: *success,
		LatencyMS: *latency, Cost: *cost, RightSkill: *right, At: time.Now().UTC()}
	// Checked here as the feedback stage checks it, for a quick answer.
	data, _ := json.Marshal(struct {
		V int `json:"v"`
		client.Outcome
	}{wire.Version, o})
	if _, err := wire.DecodeOutcome(data); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	// A decision id is made from its caller and task id: one that is not
	// this task's for this caller is dead-lettered by the feedback stage.
	// Said here, before connecting, so a mistyped id or a missing --caller
	// is not reported as done.
	if err := client.CheckOutcome(*caller, o); err != nil {
		return fmt.Errorf("%w: %v: give the decisionId and taskId of one decision, and --caller as the task was submitted", errUsage, err)
	}
	nc, js, err := nf.connect("skillmatch report")
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := client.New(js).Report(ctx, *caller, o); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "outcome of decision %s reported (%s, success %v)\n", o.DecisionID, o.Skill, o.Success)
	return nil
}
