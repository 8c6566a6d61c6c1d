package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Who asks is the subject a task arrived on, never the caller id in its
// payload: a caller refused an agent under the grants is still refused
// after claiming to be one that is granted, and its decision is published
// on its own subject; the directory narrows the payload's scopes.
func TestPipelineCallerFromSubject(t *testing.T) {
	m := grantsMatcher(t) // bob is granted support-triage, eve nothing
	cfg := testConfig(t)
	dir, err := identity.New(identity.File{Callers: map[string]identity.Identity{
		"bob": {Tenant: "acme", Scopes: []string{"support.tickets"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Callers = dir
	js, ctx := embedded(t, cfg)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	published := 0
	submitAs := func(as string, tk *task.Task) *wire.Decision {
		t.Helper()
		sub, err := wire.NewTaskSubmitted(tk, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(sub)
		if _, err := js.Publish(ctx, wire.SubjectSubmittedBy(as), data); err != nil {
			t.Fatal(err)
		}
		published++
		waitCount(t, js, DefaultStreams.Decisions, uint64(published), 20*time.Second)
		for _, msg := range readAll(t, js, DefaultStreams.Decisions) {
			if d, err := wire.DecodeDecision(msg.Data()); err == nil && d.TaskID == tk.ID {
				return d
			}
		}
		t.Fatalf("no decision for %s", tk.ID)
		return nil
	}
	text := task.Message{Parts: []task.Part{{Text: "triage this support ticket: the login page is down"}}}
	granted := submitAs("bob", &task.Task{ID: "id-bob", Message: text, Caller: task.Caller{ID: "bob"}})
	if granted.Action != decide.Delegate || granted.Chosen.AgentID != "support-triage" {
		t.Fatalf("bob: %s %+v (%s)", granted.Action, granted.Chosen, granted.Reason)
	}
	forged := submitAs("eve", &task.Task{ID: "id-eve", Message: text, Caller: task.Caller{ID: "bob"}})
	if forged.Action == decide.Delegate || forged.Request != nil {
		t.Fatalf("eve claiming to be bob was delegated: %+v", forged.Decision)
	}
	msgs := readAll(t, js, DefaultStreams.Decisions)
	subjects := map[string]string{}
	for _, msg := range msgs {
		d, _ := wire.DecodeDecision(msg.Data())
		subjects[d.TaskID] = msg.Subject()
	}
	if subjects["id-bob"] != "skillmatch.decision.bob.delegate" || !strings.HasPrefix(subjects["id-eve"], "skillmatch.decision.eve.") {
		t.Errorf("decision subjects %v", subjects)
	}
	// The task the decider saw carries the stamped caller: bob's tenant
	// from the directory, eve's claims cut to nothing.
	for _, msg := range readAll(t, js, DefaultStreams.Tasks) {
		if msg.Subject() != wire.SubjectRanked {
			continue
		}
		r, err := wire.DecodeRanked(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		var tk task.Task
		if err := json.Unmarshal(r.Task, &tk); err != nil {
			t.Fatal(err)
		}
		switch r.TaskID {
		case "id-bob":
			if tk.Caller.ID != "bob" || tk.Caller.Tenant != "acme" {
				t.Errorf("bob's task carries %+v", tk.Caller)
			}
		case "id-eve":
			if tk.Caller.ID != "eve" || tk.Caller.Tenant != "" || len(tk.Caller.Scopes) != 0 {
				t.Errorf("eve's task carries %+v", tk.Caller)
			}
		}
	}
}

// A group that cannot start stops what it started and returns the error.
func TestStartFailsCleanly(t *testing.T) {
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	if _, err := Start(ctx, js, nil, cfg, StageExtractor, "no-such-stage"); err == nil || !strings.Contains(err.Error(), "no stage") {
		t.Fatalf("err %v", err)
	}
	bad := cfg
	bad.Retry = 10 * bad.BackOff[0]
	if _, err := Start(ctx, js, nil, bad, StageExtractor); err == nil {
		t.Fatal("an invalid schedule started")
	}
}
