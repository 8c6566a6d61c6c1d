package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// memFollowups is a settle.Store in memory; err makes every call fail,
// as an unreachable store does.
type memFollowups struct {
	mu   sync.Mutex
	recs map[string]settle.Record
	err  error
}

func newMemFollowups(recs ...settle.Record) *memFollowups {
	f := &memFollowups{recs: map[string]settle.Record{}}
	for _, r := range recs {
		f.recs[memKey(r.CallerID, r.TaskID)] = r
	}
	return f
}

// memKey is a record's key: task ids are per caller.
func memKey(caller, taskID string) string { return caller + "/" + taskID }

func (f *memFollowups) Get(_ context.Context, caller, id string) (settle.Record, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.recs[memKey(caller, id)]
	return r, ok, f.err
}

func (f *memFollowups) Put(_ context.Context, r settle.Record) (settle.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return settle.Record{}, f.err
	}
	if old, ok := f.recs[memKey(r.CallerID, r.TaskID)]; ok {
		return old, nil
	}
	f.recs[memKey(r.CallerID, r.TaskID)] = r
	return r, nil
}

// grantsMatcher is a matcher over the example catalog with grants:
// support-triage advertises the skill-routing extension, travel-concierge
// does not.
func grantsMatcher(t *testing.T) *match.Matcher {
	t.Helper()
	g, err := grants.New(grants.File{Grants: []grants.Grant{
		{Caller: "alice", Agent: "support-triage", Skill: "triage-ticket"},
		{Caller: "alice", Agent: "travel-concierge", Skill: "book-flight"},
		{Caller: "bob", Agent: "support-triage"},
		{Caller: "carol", Agent: "travel-concierge"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := catalog.LoadDir(exampleDir())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithGrants(g))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A skill grant is only a grant on an agent that enforces the route: on
// travel-concierge, which does not advertise it, alice's skill grant
// leaves book-flight out of the candidates.
func TestSkillGrantNeedsRouting(t *testing.T) {
	m := grantsMatcher(t)
	tk := &task.Task{ID: "g-1", Caller: task.Caller{ID: "alice"},
		Message: task.Message{Parts: []task.Part{{Text: "book a flight from Berlin to Lisbon on Friday"}}}}
	req := extract.FromTask(tk)
	sl, err := m.Shortlist(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range shortlistToWire(sl).Keys {
		if c != "support-triage/triage-ticket" {
			t.Errorf("candidate %s: alice may only reach support-triage/triage-ticket", c)
		}
	}
	found := false
	for _, r := range m.Rejections(&req) {
		if r.Agent == "travel-concierge" && r.Skill == "book-flight" {
			found = r.Rule == grants.Rule && strings.Contains(r.Reason, "cannot be enforced")
		}
	}
	if !found {
		t.Error("book-flight is not rejected by the grant rule as unenforceable")
	}
}

func TestDecideFollowups(t *testing.T) {
	m := grantsMatcher(t)
	const triage, reply, flight = "support-triage/triage-ticket", "support-triage/draft-reply", "travel-concierge/book-flight"
	// The policy on its own would delegate to world-info: a task that
	// fixes its skill must not follow it.
	weather := decide.Option{Key: "world-info/weather-forecast", AgentID: "world-info", SkillID: "weather-forecast", Score: 9, Prob: 0.97}
	triageOpt := decide.Option{Key: triage, AgentID: "support-triage", SkillID: "triage-ticket", Score: 9, Prob: 0.95}
	rec := func(id, key, ctxID, caller string) settle.Record {
		agent, skill, _ := strings.Cut(key, "/")
		return settle.Record{TaskID: id, DecisionID: wire.DecisionID(caller, id), AgentID: agent, SkillID: skill, ContextID: ctxID, CallerID: caller}
	}
	earlier := []settle.Record{
		rec("t-alice", triage, "", "alice"),
		rec("t-bob", triage, "agent-ctx", "bob"),
		rec("t-carol", triage, "", "carol"), // carol's grant on support-triage is gone
	}
	tests := []struct {
		name       string
		task       string
		candidates []decide.Option
		noStore    bool
		storeErr   error
		want       decide.Action
		wantSkill  string
		wantReason string
		// wantContext is the request's contextId (nil: none).
		wantContext any
		routed      bool
		record      *settle.Record
	}{
		{name: "skill grant, named skill: routed, caller's context dropped",
			task:       `{"id":"n-1","message":{"contextId":"c-own","parts":[{"text":"triage this ticket"}]},"caller":{"id":"alice"},"constraints":{"skillId":"support-triage/triage-ticket"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: triage, wantReason: "the caller named skill " + triage,
			routed: true, record: &settle.Record{TaskID: "n-1", AgentID: "support-triage", SkillID: "triage-ticket", CallerID: "alice"}},
		{name: "skill grant, policy's choice: caller's context dropped",
			task:       `{"id":"n-2","message":{"contextId":"c-own","parts":[{"text":"triage this ticket"}]},"caller":{"id":"alice"}}`,
			candidates: []decide.Option{triageOpt}, want: decide.Delegate, wantSkill: triage, routed: true},
		{name: "whole grant keeps the caller's context",
			task:       `{"id":"n-3","message":{"contextId":"c-own","parts":[{"text":"draft a reply"}]},"caller":{"id":"bob"},"constraints":{"skillId":"support-triage/draft-reply"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: reply, wantContext: "c-own", routed: true,
			record: &settle.Record{TaskID: "n-3", AgentID: "support-triage", SkillID: "draft-reply", ContextID: "c-own", CallerID: "bob"}},
		{name: "whole grant on a non-routing agent: sent unrouted, context kept",
			task:       `{"id":"n-4","message":{"contextId":"c-own","parts":[{"text":"book a flight"}]},"caller":{"id":"carol"},"constraints":{"skillId":"travel-concierge/book-flight"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: flight, wantContext: "c-own"},
		{name: "skill grant on a non-routing agent grants nothing",
			task:       `{"id":"n-5","message":{"parts":[{"text":"book a flight"}]},"caller":{"id":"alice"},"constraints":{"skillId":"travel-concierge/book-flight"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: "cannot be enforced"},
		{name: "named skill outside the grant",
			task:       `{"id":"n-6","message":{"parts":[{"text":"draft a reply"}]},"caller":{"id":"alice"},"constraints":{"skillId":"support-triage/draft-reply"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: `granted only skill "triage-ticket"`},
		{name: "named skill not in the catalog",
			task:       `{"id":"n-7","message":{"parts":[{"text":"x"}]},"caller":{"id":"bob"},"constraints":{"skillId":"support-triage/refund"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: `lists no skill "refund"`},
		{name: "policy's choice not granted to the caller",
			task:       `{"id":"n-8","message":{"parts":[{"text":"weather in Lisbon"}]},"caller":{"id":"bob"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: "is not granted"},
		{name: "follow-up keeps skill and context",
			task:       `{"id":"f-1","message":{"taskId":"t-bob","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"bob"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: triage, wantContext: "agent-ctx", routed: true,
			wantReason: "follow-up of task t-bob keeps its skill " + triage,
			record:     &settle.Record{TaskID: "f-1", AgentID: "support-triage", SkillID: "triage-ticket", ContextID: "agent-ctx", CallerID: "bob"}},
		{name: "follow-up naming its own skill",
			task:       `{"id":"f-2","message":{"taskId":"t-bob","contextId":"agent-ctx","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"bob"},"constraints":{"skillId":"support-triage/triage-ticket"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: triage, wantContext: "agent-ctx", routed: true},
		{name: "scoped follow-up continues the context the agent gave",
			task:       `{"id":"f-3","message":{"taskId":"t-alice","contextId":"agent-made","parts":[{"text":"any update?"}]},"caller":{"id":"alice"}}`,
			candidates: []decide.Option{weather}, want: decide.Delegate, wantSkill: triage, wantContext: "agent-made", routed: true},
		{name: "follow-up naming another skill is refused",
			task:       `{"id":"f-4","message":{"taskId":"t-bob","parts":[{"text":"now draft a reply"}]},"caller":{"id":"bob"},"constraints":{"skillId":"support-triage/draft-reply"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: "task skill cannot be changed"},
		{name: "follow-up naming another agent is refused",
			task:       `{"id":"f-5","message":{"taskId":"t-bob","parts":[{"text":"weather?"}]},"caller":{"id":"bob"},"constraints":{"skillId":"world-info/triage-ticket"}}`,
			candidates: []decide.Option{weather}, want: decide.Abstain, wantReason: "task skill cannot be changed"},
		{name: "follow-up from another caller is refused",
			task:       `{"id":"f-6","message":{"taskId":"t-bob","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"alice"}}`,
			candidates: []decide.Option{triageOpt}, want: decide.Abstain, wantReason: "unknown to this caller"},
		{name: "follow-up in another context is refused",
			task:       `{"id":"f-7","message":{"taskId":"t-bob","contextId":"elsewhere","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"bob"}}`,
			candidates: []decide.Option{triageOpt}, want: decide.Abstain, wantReason: `names context "elsewhere"`},
		{name: "follow-up of an unknown task",
			task:       `{"id":"f-8","message":{"taskId":"t-nobody","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"bob"}}`,
			candidates: []decide.Option{triageOpt}, want: decide.Abstain, wantReason: "which is unknown"},
		{name: "kept skill must still be granted",
			task:       `{"id":"f-9","message":{"taskId":"t-carol","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"carol"}}`,
			candidates: []decide.Option{triageOpt}, want: decide.Abstain, wantReason: `has no grant for agent "support-triage"`},
		{name: "follow-up without a store is refused",
			task:       `{"id":"f-10","message":{"taskId":"t-bob","parts":[{"text":"and mark it urgent"}]},"caller":{"id":"bob"}}`,
			candidates: []decide.Option{triageOpt}, noStore: true, want: decide.Abstain, wantReason: "no follow-up store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newMemFollowups(earlier...)
			cfg := DeciderConfig{Followups: store}
			if tt.noStore {
				cfg.Followups = nil
			}
			s := NewDecider(NewSnapshots(m), cfg)
			var id struct {
				ID     string `json:"id"`
				Caller struct {
					ID string `json:"id"`
				} `json:"caller"`
			}
			_ = json.Unmarshal([]byte(tt.task), &id)
			d := decideRanked(t, s, id.ID, tt.task, tt.candidates)
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.wantReason) {
				t.Fatalf("decision %s %q, want %s with %q", d.Action, d.Reason, tt.want, tt.wantReason)
			}
			got, stored := store.recs[memKey(id.Caller.ID, id.ID)]
			if tt.want != decide.Delegate {
				if d.Request != nil || d.Chosen != nil || len(d.Fallbacks) > 0 {
					t.Errorf("refused task carries a choice: %+v", d)
				}
				if stored {
					t.Errorf("refused task recorded: %+v", got)
				}
				return
			}
			if d.Chosen == nil || d.Chosen.Key != tt.wantSkill {
				t.Fatalf("chosen %+v, want %s", d.Chosen, tt.wantSkill)
			}
			params := requestParamsOf(t, d.Request)
			msg := params["message"].(map[string]any)
			if msg["contextId"] != tt.wantContext {
				t.Errorf("request contextId %v, want %v", msg["contextId"], tt.wantContext)
			}
			md, _ := params["metadata"].(map[string]any)
			route, _ := md[routing.URI].(map[string]any)
			if tt.routed != (route != nil) || (route != nil && route["skillId"] != strings.SplitN(tt.wantSkill, "/", 2)[1]) {
				t.Errorf("routed %v, want %v: metadata %v", route != nil, tt.routed, md)
			}
			if !stored {
				t.Fatal("delegation not recorded")
			}
			if tt.record != nil {
				want := *tt.record
				want.DecisionID = wire.DecisionID(want.CallerID, want.TaskID)
				if !got.SameDelegation(want) {
					t.Errorf("record %+v, want %+v", got, want)
				}
			}
			ctxID, _ := tt.wantContext.(string)
			if got.ContextID != ctxID {
				t.Errorf("recorded context %q, request carried %q", got.ContextID, ctxID)
			}
		})
	}
}

// The store decides what a redelivery publishes, and an unreachable store
// is a transient error, never a decision.
func TestDecideFollowupStore(t *testing.T) {
	m := grantsMatcher(t)
	taskJSON := `{"id":"r-1","message":{"contextId":"c-1","parts":[{"text":"triage this"}]},"caller":{"id":"bob"}}`
	triage := decide.Option{Key: "support-triage/triage-ticket", AgentID: "support-triage", SkillID: "triage-ticket", Score: 9, Prob: 0.95}
	reply := decide.Option{Key: "support-triage/draft-reply", AgentID: "support-triage", SkillID: "draft-reply", Score: 9, Prob: 0.95}

	store := newMemFollowups()
	s := NewDecider(NewSnapshots(m), DeciderConfig{Followups: store})
	first := decideRanked(t, s, "r-1", taskJSON, []decide.Option{triage})
	if first.Action != decide.Delegate || first.Chosen.Key != triage.Key {
		t.Fatalf("first delivery: %+v", first.Decision)
	}
	// A redelivery after the ranking moved keeps the recorded skill.
	again := decideRanked(t, s, "r-1", taskJSON, []decide.Option{reply})
	if again.Action != decide.Delegate || again.Chosen.Key != triage.Key || !strings.Contains(again.Reason, "earlier delivery") {
		t.Errorf("redelivery: %+v", again.Decision)
	}
	if len(store.recs) != 1 || store.recs[memKey("bob", "r-1")].SkillID != "triage-ticket" {
		t.Errorf("records %+v", store.recs)
	}
	// The same task id from another caller is that caller's own task: it
	// is decided on its own and leaves bob's record alone.
	other := strings.Replace(taskJSON, `"bob"`, `"alice"`, 1)
	if d := decideRanked(t, s, "r-1", other, []decide.Option{triage}); d.Action != decide.Delegate || d.DecisionID == first.DecisionID {
		t.Errorf("alice's r-1: %+v", d)
	}
	if len(store.recs) != 2 || store.recs[memKey("bob", "r-1")].DecisionID != first.DecisionID {
		t.Errorf("records %+v", store.recs)
	}

	store.err = errors.New("nats: timeout")
	for _, tk := range []string{taskJSON, `{"id":"r-2","message":{"taskId":"r-1","parts":[{"text":"more"}]},"caller":{"id":"bob"}}`} {
		var id struct{ ID string }
		_ = json.Unmarshal([]byte(tk), &id)
		in, _ := json.Marshal(wire.Ranked{V: wire.Version, TaskID: id.ID, Task: json.RawMessage(tk), Catalog: s.snaps.Fingerprint(), Candidates: []decide.Option{triage}})
		res, err := s.Handle(context.Background(), Msg{Data: in})
		if err == nil || errors.Is(err, ErrBadInput) || len(res.Out) != 0 {
			t.Errorf("%s with the store down: err %v, outputs %d; want a transient error and nothing published", id.ID, err, len(res.Out))
		}
	}
}

// decideRanked runs the decider on a ranking of the task.
func decideRanked(t *testing.T, s *Decider, id, taskJSON string, candidates []decide.Option) *wire.Decision {
	t.Helper()
	in, err := json.Marshal(wire.Ranked{V: wire.Version, TaskID: id, Task: json.RawMessage(taskJSON), Catalog: s.snaps.Fingerprint(), Candidates: candidates})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Handle(context.Background(), Msg{Data: in})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Out) != 1 {
		t.Fatalf("outputs %+v", res.Out)
	}
	d, err := wire.DecodeDecision(res.Out[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := wire.ActionOfDecision(res.Out[0].Subject); !ok || a != string(d.Action) || !strings.HasSuffix(res.Out[0].Subject, "."+wire.TaskToken(d.TaskID)) {
		t.Errorf("%s decision on %s", d.Action, res.Out[0].Subject)
	}
	return d
}

// requestParamsOf is the SendMessageRequest of a delegation's request.
func requestParamsOf(t *testing.T, r *wire.A2ARequest) map[string]any {
	t.Helper()
	if r == nil {
		t.Fatal("delegation without a request")
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if _, rpc := body["jsonrpc"]; rpc {
		return body["params"].(map[string]any)
	}
	return body
}

// Through the embedded pipeline: a delegation is recorded in the
// follow-up bucket; a follow-up naming another skill is refused, and one
// naming none goes to the same skill in the same context.
func TestPipelineFollowups(t *testing.T) {
	m := testMatcher(t)
	cfg := testConfig(t)
	js, ctx := embedded(t, cfg)
	store, err := OpenFollowups(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()

	caller := task.Caller{ID: "alice"}
	submit := func(tk *task.Task) *wire.Decision {
		t.Helper()
		a, err := Submit(ctx, js, Streams{}, tk)
		if err != nil {
			t.Fatal(err)
		}
		if a.Decision == nil {
			t.Fatalf("task %s: no decision: %+v", tk.ID, a.DeadLetter)
		}
		return a.Decision
	}
	first := submit(&task.Task{ID: "p-1", Caller: caller,
		Message:     task.Message{ContextID: "c-1", Parts: []task.Part{{Text: "triage this ticket: the customer cannot log in"}}},
		Constraints: task.Constraints{SkillID: "support-triage/triage-ticket"}})
	if first.Action != decide.Delegate || first.Chosen.Key != "support-triage/triage-ticket" {
		t.Fatalf("first task: %+v", first.Decision)
	}
	rec, ok, err := store.Get(ctx, "alice", "p-1")
	if err != nil || !ok || rec.AgentID != "support-triage" || rec.SkillID != "triage-ticket" || rec.ContextID != "c-1" ||
		rec.CallerID != "alice" || rec.DecisionID != first.DecisionID {
		t.Fatalf("record %+v, %v, %v", rec, ok, err)
	}

	refused := submit(&task.Task{ID: "p-2", Caller: caller,
		Message:     task.Message{TaskID: "p-1", Parts: []task.Part{{Text: "now draft a reply to the customer"}}},
		Constraints: task.Constraints{SkillID: "support-triage/draft-reply"}})
	if refused.Action != decide.Abstain || !strings.Contains(refused.Reason, "task skill cannot be changed") || refused.Request != nil {
		t.Errorf("follow-up naming another skill: %+v", refused.Decision)
	}

	// Text the matcher would send elsewhere: the follow-up still goes to
	// the task's skill.
	kept := submit(&task.Task{ID: "p-3", Caller: caller,
		Message: task.Message{TaskID: "p-1", Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}}})
	if kept.Action != decide.Delegate || kept.Chosen.Key != "support-triage/triage-ticket" {
		t.Fatalf("follow-up without a skill: %+v", kept.Decision)
	}
	params := requestParamsOf(t, kept.Request)
	if msg := params["message"].(map[string]any); msg["contextId"] != "c-1" {
		t.Errorf("follow-up request context %v, want c-1", msg["contextId"])
	}
	if kept.Request.Headers["A2A-Extensions"] != routing.URI {
		t.Errorf("follow-up request not routed: headers %v", kept.Request.Headers)
	}
	if rec, ok, err := store.Get(ctx, "alice", "p-3"); err != nil || !ok || rec.SkillID != "triage-ticket" || rec.ContextID != "c-1" {
		t.Errorf("follow-up record %+v, %v, %v", rec, ok, err)
	}
	if _, ok, _ := store.Get(ctx, "alice", "p-2"); ok {
		t.Error("refused follow-up recorded")
	}
}
