package settle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

func exampleCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 || cat == nil {
		t.Fatalf("example catalog: %v", errs)
	}
	return cat
}

func opt(key string, prob float64) decide.Option {
	agent, skill, _ := strings.Cut(key, "/")
	return decide.Option{Key: key, AgentID: agent, SkillID: skill, Score: 10 * prob, Prob: prob}
}

func delegate(o decide.Option, fallbacks ...decide.Option) decide.Decision {
	return decide.Decision{Action: decide.Delegate, Chosen: &o, Probability: o.Prob, Fallbacks: fallbacks, Reason: "policy"}
}

// pooled is a delegation whose probability was pooled with its sibling,
// the first fallback.
func pooled(o, sibling decide.Option) decide.Decision {
	d := delegate(o, sibling)
	d.Probability = 1 - (1-o.Prob)*(1-sibling.Prob)
	return d
}

func newTask(id, text string, edit func(*task.Task)) *task.Task {
	t := &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
	if edit != nil {
		edit(t)
	}
	return t
}

func TestSettle(t *testing.T) {
	cat := exampleCatalog(t)
	g, err := grants.New(grants.File{Grants: []grants.Grant{
		{Caller: "alice", Agent: "world-info"},
		{Caller: "alice", Agent: "diff-reviewer"},
		{Caller: "bob", Agent: "support-triage", Skill: "triage-ticket"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	weather := opt("world-info/weather-forecast", 0.97)
	currency := opt("world-info/convert-currency", 0.40)
	explain := opt("diff-reviewer/explain-code", 0.02)
	triage := opt("support-triage/triage-ticket", 0.9)
	tests := []struct {
		name    string
		grants  *grants.Grants
		task    *task.Task
		d       decide.Decision
		opts    []decide.Option
		action  decide.Action
		chosen  string
		pinned  bool
		reason  string // part of the reason
		errIs   error
		fallbks int
		prob    float64 // the decision's probability, when set
	}{
		{name: "policy choice passes", task: newTask("t1", "weather in Lisbon", nil),
			d: delegate(weather, currency), opts: []decide.Option{weather, currency},
			action: decide.Delegate, chosen: weather.Key, fallbks: 1},
		{name: "named skill wins over the policy", task: newTask("t2", "what's the weather in Lisbon", func(t *task.Task) {
			t.Constraints.SkillID = "diff-reviewer/explain-code"
		}), d: delegate(weather), opts: []decide.Option{weather, explain},
			action: decide.Delegate, chosen: explain.Key, pinned: true, reason: "named skill"},
		{name: "named skill not in the catalog", task: newTask("t3", "hi", func(t *task.Task) {
			t.Constraints.SkillID = "nobody/nothing"
		}), d: delegate(weather), opts: []decide.Option{weather},
			action: decide.Abstain, pinned: true, reason: "not in the catalog"},
		{name: "named skill not granted", grants: g, task: newTask("t4", "weather", func(t *task.Task) {
			t.Caller.ID = "bob"
			t.Constraints.SkillID = "world-info/weather-forecast"
		}), d: delegate(weather), opts: []decide.Option{weather},
			action: decide.Abstain, pinned: true, reason: "grant"},
		{name: "named skill fails a hard filter", task: newTask("t5", "weather", func(t *task.Task) {
			t.Caller.DataClass = "restricted"
			t.Constraints.SkillID = "world-info/weather-forecast"
		}), d: decide.Decision{Action: decide.Abstain}, action: decide.Abstain, pinned: true, reason: "cannot take the task"},
		{name: "chosen skill not granted abstains", grants: g, task: newTask("t6", "weather", func(t *task.Task) { t.Caller.ID = "bob" }),
			d: delegate(weather), opts: []decide.Option{weather}, action: decide.Abstain, reason: "not granted"},
		{name: "fallback not granted is dropped", grants: g, task: newTask("t7", "triage this ticket", func(t *task.Task) { t.Caller.ID = "bob" }),
			d: delegate(triage, weather), opts: []decide.Option{triage, weather}, action: decide.Delegate, chosen: triage.Key, fallbks: 0},
		{name: "pooled with a sibling not granted, too weak alone", grants: g, task: newTask("t11", "triage this ticket", func(t *task.Task) { t.Caller.ID = "bob" }),
			d:      pooled(opt("support-triage/triage-ticket", 0.6), opt("world-info/weather-forecast", 0.5)),
			opts:   []decide.Option{opt("support-triage/triage-ticket", 0.6), opt("world-info/weather-forecast", 0.5)},
			action: decide.Abstain, reason: "sibling world-info/weather-forecast is not granted"},
		{name: "pooled with a sibling not granted, enough alone", grants: g, task: newTask("t12", "triage this ticket", func(t *task.Task) { t.Caller.ID = "bob" }),
			d:      pooled(opt("support-triage/triage-ticket", 0.8), opt("world-info/weather-forecast", 0.5)),
			opts:   []decide.Option{opt("support-triage/triage-ticket", 0.8), opt("world-info/weather-forecast", 0.5)},
			action: decide.Delegate, chosen: "support-triage/triage-ticket", reason: "at 0.80", prob: 0.8},
		{name: "forged option for restricted data", task: newTask("t8", "weather", func(t *task.Task) { t.Caller.DataClass = "restricted" }),
			d: decide.Decision{Action: decide.Clarify, Reason: "two fit"}, opts: []decide.Option{weather}, errIs: ErrRejected},
		// Outputs read loosely from the words give way in the shortlist
		// when no skill passes with them: no reason to call a candidate
		// forged. Asked for as a format, they still are.
		{name: "a loose output the shortlist dropped", task: newTask("t13", "we need photos of the weather in Lisbon", nil),
			d: delegate(weather), opts: []decide.Option{weather}, action: decide.Delegate, chosen: weather.Key},
		{name: "a format asked for", task: newTask("t14", "the weather in Lisbon as a png", nil),
			d: delegate(weather), opts: []decide.Option{weather}, errIs: ErrRejected},
		{name: "forged option not in the catalog", task: newTask("t9", "weather", nil),
			d: delegate(opt("ghost/skill", 0.99)), opts: []decide.Option{opt("ghost/skill", 0.99)}, errIs: ErrRejected},
		{name: "follow-up without a store", task: newTask("t10", "and tomorrow?", func(t *task.Task) { t.Message.TaskID = "t1" }),
			d: delegate(weather), opts: []decide.Option{weather}, action: decide.Abstain, pinned: true, reason: "no follow-up store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Settler{Catalog: cat, Grants: tt.grants, Threshold: decide.DefaultPolicy.Threshold}
			st, err := s.Settle(context.Background(), tt.task, nil, tt.d, tt.opts, tt.task.ID)
			if tt.errIs != nil {
				if !errors.Is(err, tt.errIs) {
					t.Fatalf("err %v, want %v", err, tt.errIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := st.Decision
			if d.Action != tt.action || st.Pinned != tt.pinned || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("got %s pinned=%v %q; want %s pinned=%v with %q", d.Action, st.Pinned, d.Reason, tt.action, tt.pinned, tt.reason)
			}
			if tt.action == decide.Delegate {
				if d.Chosen == nil || d.Chosen.Key != tt.chosen {
					t.Fatalf("chosen %+v, want %s", d.Chosen, tt.chosen)
				}
				if len(d.Fallbacks) != tt.fallbks {
					t.Errorf("fallbacks %v, want %d", d.Fallbacks, tt.fallbks)
				}
				if tt.prob != 0 && d.Probability != tt.prob {
					t.Errorf("probability %v, want %v", d.Probability, tt.prob)
				}
			} else if d.Chosen != nil {
				t.Errorf("%s carries a chosen skill %+v", d.Action, d.Chosen)
			}
		})
	}
}

// A delegation is recorded; its follow-up keeps the skill for the same
// caller only, in either store.
func TestSettleFollowups(t *testing.T) {
	cat := exampleCatalog(t)
	weather := opt("world-info/weather-forecast", 0.97)
	currency := opt("world-info/convert-currency", 0.95)
	stores := map[string]Store{"memory": NewMemory(), "file": NewFile(filepath.Join(t.TempDir(), "sub", "followups.json"))}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			s := &Settler{Catalog: cat, Store: store}
			ctx := context.Background()
			first := newTask("w-1", "weather in Lisbon", func(t *task.Task) { t.Caller.ID = "ana"; t.Message.ContextID = "c-1" })
			st, err := s.Settle(ctx, first, nil, delegate(weather), []decide.Option{weather}, "d-1")
			if err != nil || st.Decision.Action != decide.Delegate {
				t.Fatalf("first: %+v %v", st, err)
			}
			// The ranking of the follow-up prefers another skill: the
			// task's skill is kept, in its context.
			next := newTask("w-2", "and in euros?", func(t *task.Task) { t.Caller.ID = "ana"; t.Message.TaskID = "w-1" })
			st, err = s.Settle(ctx, next, nil, delegate(currency), []decide.Option{currency, weather}, "d-2")
			if err != nil || st.Decision.Action != decide.Delegate || st.Decision.Chosen.Key != weather.Key || st.ContextID != "c-1" || !st.Pinned {
				t.Fatalf("follow-up: %+v %v", st, err)
			}
			if st.Decision.Probability != weather.Prob {
				t.Errorf("follow-up probability %v, want the ranked %v", st.Decision.Probability, weather.Prob)
			}
			// Another caller cannot continue it.
			eve := newTask("w-3", "and in euros?", func(t *task.Task) { t.Caller.ID = "eve"; t.Message.TaskID = "w-1" })
			st, err = s.Settle(ctx, eve, nil, delegate(currency), []decide.Option{currency}, "d-3")
			if err != nil || st.Decision.Action != decide.Abstain || !strings.Contains(st.Decision.Reason, "unknown to this caller") {
				t.Fatalf("other caller: %+v %v", st, err)
			}
			// Task ids are per caller: another caller's w-1 is its own
			// task, and does not touch ana's record.
			reuse := newTask("w-1", "convert 10 dollars", func(t *task.Task) { t.Caller.ID = "eve" })
			st, err = s.Settle(ctx, reuse, nil, delegate(currency), []decide.Option{currency}, "d-4")
			if err != nil || st.Decision.Action != decide.Delegate || st.Decision.Chosen.Key != currency.Key {
				t.Fatalf("eve's own w-1: %+v %v", st, err)
			}
			if rec, ok, _ := store.Get(ctx, "eve", "w-1"); !ok || rec.SkillID != "convert-currency" {
				t.Fatalf("eve's record %+v", rec)
			}
			rec, ok, err := store.Get(ctx, "ana", "w-1")
			if err != nil || !ok || rec.CallerID != "ana" || rec.SkillID != "weather-forecast" {
				t.Fatalf("record %+v %v %v", rec, ok, err)
			}
		})
	}
}

func TestFileStoreSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	ctx := context.Background()
	if _, err := NewFile(path).Put(ctx, Record{TaskID: "a", AgentID: "x", SkillID: "y", CallerID: "c"}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := NewFile(path).Get(ctx, "c", "a")
	if err != nil || !ok || got.SkillID != "y" || got.CallerID != "c" {
		t.Fatalf("reopened: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := NewFile(path).Get(ctx, "c", "b"); ok {
		t.Error("unknown task found")
	}
}

// Only public and internal data (or a task that names no class) leave
// words a verified success may teach; the rest leave none.
func TestLearnableNeed(t *testing.T) {
	long := strings.Repeat("é", MaxNeed) // two bytes a character
	for _, tc := range []struct {
		class, need, want string
	}{
		{"", "book a hotel", "book a hotel"},
		{"public", "book a hotel", "book a hotel"},
		{"internal", "book a hotel", "book a hotel"},
		{"confidential", "merge with Acme", ""},
		{"restricted", "patient 4711", ""},
		{"secret-ish", "unknown class", ""},
		{"internal", long, long[:MaxNeed]},
	} {
		if got := learnableNeed(&extract.Requirement{DataClass: tc.class, Need: tc.need}); got != tc.want {
			t.Errorf("class %q: %q, want %q", tc.class, got, tc.want)
		}
	}
}
