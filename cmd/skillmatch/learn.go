package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// The callers of eval --learn-from: one trusted, one not.
const (
	learnTrusted   = "trusted-orchestrator"
	learnUntrusted = "untrusted-orchestrator"
)

// pickSpread picks n tasks with an expected skill, spread evenly over
// the split in file order: the same n always give the same tasks.
func pickSpread(tasks []golden.Task, n int) []golden.Task {
	var labelled []golden.Task
	for _, t := range tasks {
		if !t.NoMatch() {
			labelled = append(labelled, t)
		}
	}
	if n <= 0 || n >= len(labelled) {
		return labelled
	}
	out := make([]golden.Task, n)
	for i := range n {
		out[i] = labelled[i*len(labelled)/n]
	}
	return out
}

// learnFromOutcomes reports each task as a verified success of its
// expected skill, as caller as ("trusted" or "untrusted"), through the
// feedback stage on an embedded NATS server, and returns the examples the
// catalog learned. Each task gets the delegation record the decider
// writes when it delegates a task to a skill (its need included): the
// outcomes are checked against those records, and counted only from a
// trusted caller, as in a running pipeline.
func learnFromOutcomes(ctx context.Context, tasks []golden.Task, as string) (map[string][]string, error) {
	caller := map[string]string{"trusted": learnTrusted, "untrusted": learnUntrusted}[as]
	if caller == "" {
		return nil, fmt.Errorf("%w: --learn-as %q: want trusted or untrusted", errUsage, as)
	}
	dir, err := os.MkdirTemp("", "skillmatch-learn-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := natsbox.Start(natsbox.Config{DataDir: dir, InProcess: true})
	if err != nil {
		return nil, err
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := pipeline.SetupStreams(ctx, js, pipeline.Config{}); err != nil {
		return nil, err
	}
	ekv, err := pipeline.ExamplesKV(ctx, js, "")
	if err != nil {
		return nil, err
	}
	mkv, err := pipeline.ModelKV(ctx, js, "")
	if err != nil {
		return nil, err
	}
	callers, err := identity.New(identity.File{Callers: map[string]identity.Identity{
		learnTrusted: {Trusted: true}, learnUntrusted: {}}})
	if err != nil {
		return nil, err
	}
	delegations := settle.NewMemory()
	store := pipeline.NewExamples(ekv, "", 0)
	fb, err := pipeline.NewFeedbackStage(ctx, mkv, pipeline.FeedbackConfig{Delegations: delegations, Callers: callers, Examples: store})
	if err != nil {
		return nil, err
	}
	defer fb.Close()
	for i, gt := range tasks {
		agent, skill, ok := strings.Cut(gt.Expected, "/")
		if !ok {
			return nil, fmt.Errorf("task %s: expected %q is not AGENT/SKILL", gt.ID, gt.Expected)
		}
		t := gt.ToTask()
		t.Caller.ID = caller
		req := extract.FromTask(t)
		id := fmt.Sprintf("learn-%d-%s", i, gt.ID)
		did := wire.DecisionID(caller, id)
		if _, err := delegations.Put(ctx, settle.Record{TaskID: id, DecisionID: did, AgentID: agent, SkillID: skill,
			CallerID: caller, Need: settle.CapNeed(req.Need), At: time.Now().UTC()}); err != nil {
			return nil, err
		}
		data, err := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: did, TaskID: id, Skill: gt.Expected, Success: true})
		if err != nil {
			return nil, err
		}
		if _, err := fb.Handle(ctx, pipeline.Msg{Subject: wire.SubjectOutcomeBy(caller), Data: data}); err != nil {
			return nil, fmt.Errorf("outcome of task %s: %w", gt.ID, err)
		}
	}
	ex, errs, err := store.List(ctx)
	if err != nil {
		return nil, err
	}
	return ex, errors.Join(errs...)
}
