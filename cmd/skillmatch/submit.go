package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func cmdSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("submit", `submit "task text" [--file x.pdf] [--accept application/json] [--scopes a,b] [--nats URL]`,
		"Publishes a task to a running pipeline (`skillmatch run`, or the services) and prints its\n"+
			"decision; a task the pipeline rejects prints the dead letter's reason.", stderr)
	tf := newTaskFlags(fs)
	id := fs.String("id", "", "task id (default: a new random id); a repeated id returns the earlier decision")
	nf := addNATSFlags(fs)
	timeout := fs.Duration("timeout", 15*time.Second, "how long to wait for the decision")
	var asJSON jsonFlag
	asJSON.Register(fs, "print the decision message (or the dead letter)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: submit needs the task text", errUsage)
	}
	// Checked here too, for a quick answer; the pipeline checks again.
	t, err := tf.validTask(*id, pos)
	if err != nil {
		return err
	}
	nc, js, err := nf.connect("skillmatch submit")
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	a, err := client.New(js).Submit(ctx, t)
	if err != nil {
		return err
	}
	if asJSON.On() {
		// The pipeline's message as it is (the decision or the dead letter).
		if a.DeadLetter != nil {
			return asJSON.Write(stdout, json.RawMessage(a.DeadLetter.Raw))
		}
		return asJSON.Write(stdout, json.RawMessage(a.Decision.Raw))
	}
	if dl := a.DeadLetter; dl != nil {
		return fmt.Errorf("task %s rejected by the %s: %s", t.ID, dl.Stage, dl.Reason)
	}
	// The whole decision, for its chosen skill, fallbacks and request.
	d, err := wire.DecodeDecision(a.Decision.Raw)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "task %s, decision %s\n", d.TaskID, d.DecisionID)
	printDecision(stdout, d.Decision)
	if r := d.Request; r != nil {
		fmt.Fprintf(stdout, "A2A request: %s %s (%s)\n", r.Method, r.URL, r.ProtocolBinding)
		if r.Note != "" {
			fmt.Fprintf(stdout, "note: %s\n", r.Note)
		}
	}
	// A plan carries one request per step, each with its own decision id
	// (<decision>-s<n>) to report that step's outcome under.
	for i, r := range d.StepRequests {
		fmt.Fprintf(stdout, "A2A request, step %d (decision %s): %s %s (%s)\n", i+1, wire.StepDecisionID(d.DecisionID, i+1), r.Method, r.URL, r.ProtocolBinding)
		if r.Note != "" {
			fmt.Fprintf(stdout, "note: %s\n", r.Note)
		}
	}
	return nil
}
