package grants_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
)

func agent(t *testing.T, id string, routed bool, skills ...string) catalog.Agent {
	t.Helper()
	var ss []string
	for _, s := range skills {
		ss = append(ss, `{"id":"`+s+`","name":"Skill `+s+`","description":"Does `+s+`.","tags":["`+s+`"]}`)
	}
	caps := `{}`
	if routed {
		caps = `{"extensions":[{"uri":"` + routing.URI + `"}]}`
	}
	raw := `{"name":"Agent ` + id + `","description":"All about ` + strings.Join(skills, ", ") + `.","capabilities":` + caps + `,"skills":[` + strings.Join(ss, ",") + `]}`
	c, err := card.Parse(id, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return catalog.Agent{Card: c, Status: catalog.DefaultStatus}
}

const grantsJSON = `{
  "grants": [
    {"caller": "alice", "agent": "billing"},
    {"group": "finance", "agent": "ap", "skill": "reconcile"},
    {"caller": "carol", "agent": "ap", "skill": "pay"},
    {"caller": "carol", "agent": "ap", "skill": "pay"},
    {"caller": "dave", "agent": "legacy", "skill": "export"},
    {"caller": "erin", "agent": "ap", "skill": "reconcile"},
    {"caller": "erin", "agent": "ap"},
    {"caller": "frank", "agent": "ap", "skill": "ghost"}
  ],
  "groups": {"finance": ["alice", "bob", "bob"]}
}`

func testCatalog(t *testing.T) *catalog.Catalog {
	return catalog.New(
		agent(t, "billing", false, "invoice", "refund"),
		agent(t, "ap", true, "reconcile", "pay", "approve"),
		agent(t, "legacy", false, "export", "import"),
	)
}

func TestCheck(t *testing.T) {
	g, err := grants.Parse([]byte(grantsJSON))
	if err != nil {
		t.Fatal(err)
	}
	cat := testCatalog(t)
	tests := []struct {
		name   string
		g      *grants.Grants
		caller string
		key    string
		ok     bool
		scoped bool
		reason string
	}{
		{"whole grant allows every skill", g, "alice", "billing/invoice", true, false, `granted all of agent "billing"`},
		{"whole grant allows every skill (2)", g, "alice", "billing/refund", true, false, ""},
		{"whole grant on a non-cooperating agent works", g, "alice", "billing/refund", true, false, ""},
		{"skill grant via group", g, "bob", "ap/reconcile", true, true, `via group "finance"`},
		{"group member also gets group skill beside own whole grant", g, "alice", "ap/reconcile", true, true, ""},
		{"skill grant gives only that skill", g, "bob", "ap/pay", false, true, `only skill "reconcile" of agent "ap", not "pay"`},
		{"skill grant gives only that skill, not other agents", g, "bob", "billing/invoice", false, false, `no grant for agent "billing"`},
		{"direct skill grant", g, "carol", "ap/pay", true, true, `granted skill "pay" of agent "ap"; requests carry the route`},
		{"direct skill grant, other skill", g, "carol", "ap/approve", false, true, `only skill "pay"`},
		{"skill grant on a non-cooperating agent grants nothing", g, "dave", "legacy/export", false, true, "cannot be enforced"},
		{"skill grant on a non-cooperating agent, other skill", g, "dave", "legacy/import", false, true, ""},
		{"whole grant wins over skill grant", g, "erin", "ap/approve", true, false, "granted all"},
		{"skill grant for a skill the card lacks", g, "frank", "ap/pay", false, true, `only skill "ghost"`},
		{"caller with no grants: default deny", g, "mallory", "ap/reconcile", false, false, "default deny"},
		{"anonymous caller: default deny", g, "", "billing/invoice", false, false, "anonymous"},
		{"caller ids are case-sensitive", g, "Alice", "billing/invoice", false, false, ""},
		{"no grants file: everything allowed", nil, "mallory", "legacy/import", true, false, "no grants are configured"},
		{"no grants file: anonymous allowed", nil, "", "ap/pay", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, ok := cat.Skill(tt.key)
			if !ok {
				t.Fatalf("no skill %s", tt.key)
			}
			d := tt.g.Access(tt.caller, ref.Agent, ref.Skill)
			if d.OK != tt.ok || d.Scoped != tt.scoped {
				t.Errorf("got %+v, want ok %v scoped %v", d, tt.ok, tt.scoped)
			}
			if !strings.Contains(d.Reason, tt.reason) || d.Reason == "" {
				t.Errorf("reason %q, want it to contain %q", d.Reason, tt.reason)
			}
			ok2, reason := tt.g.Check(tt.caller, ref.Agent, ref.Skill)
			if ok2 != d.OK || reason != d.Reason {
				t.Errorf("Check disagrees with Access: %v %q", ok2, reason)
			}
			fast, _ := tt.g.Allowed(tt.caller, ref.Agent, ref.Skill)
			if fast != d.OK {
				t.Errorf("Allowed %v, Access %v", fast, d.OK)
			}
		})
	}
}

func TestFollowup(t *testing.T) {
	tests := []struct {
		name                 string
		taskSkill, requested string
		scoped, existing     bool
		keep                 string
		newContext           bool
		err                  error
	}{
		{"follow-up keeps the task's skill", "reconcile", "", true, false, "reconcile", false, nil},
		{"follow-up naming the same skill", "reconcile", "reconcile", true, true, "reconcile", false, nil},
		{"follow-up naming another skill is refused", "reconcile", "pay", true, false, "", false, grants.ErrSkillChange},
		{"follow-up naming another skill is refused for whole-agent callers too", "reconcile", "pay", false, false, "", false, grants.ErrSkillChange},
		{"whole-agent caller, follow-up keeps skill", "invoice", "", false, true, "invoice", false, nil},
		{"existing context with a skill-scoped caller starts a new context", "", "reconcile", true, true, "reconcile", true, nil},
		{"skill-scoped caller, new task, no context", "", "reconcile", true, false, "reconcile", true, nil},
		{"skill-scoped caller without a skill is refused", "", "", true, false, "", false, grants.ErrSkillRequired},
		{"whole-agent caller keeps its context", "", "invoice", false, true, "invoice", false, nil},
		{"whole-agent caller, generic send", "", "", false, true, "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keep, nc, err := grants.Followup(tt.taskSkill, tt.requested, tt.scoped, tt.existing)
			if keep != tt.keep || nc != tt.newContext || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Errorf("got (%q, %v, %v), want (%q, %v, %v)", keep, nc, err, tt.keep, tt.newContext, tt.err)
			}
		})
	}
}

func TestReduce(t *testing.T) {
	g, err := grants.Parse([]byte(grantsJSON))
	if err != nil {
		t.Fatal(err)
	}
	cat := testCatalog(t)
	ap, _ := cat.Agent("ap")
	billing, _ := cat.Agent("billing")
	legacy, _ := cat.Agent("legacy")

	r := g.Reduce(ap.Card, "bob")
	if r == nil || len(r.Skills) != 1 || r.Skills[0].ID != "reconcile" {
		t.Fatalf("bob sees %+v", r)
	}
	if strings.Contains(r.Description, "pay") || !strings.Contains(r.Description, "limited to") {
		t.Errorf("description not generic: %q", r.Description)
	}
	if len(ap.Card.Skills) != 3 {
		t.Error("Reduce changed the catalog's card")
	}
	r.Skills[0].Tags[0] = "changed"
	if ap.Card.Skills[0].Tags[0] != "reconcile" {
		t.Error("reduced card shares tags with the catalog's")
	}
	if full := g.Reduce(billing.Card, "alice"); full == nil || len(full.Skills) != 2 || full.Description != billing.Card.Description {
		t.Errorf("whole grant: %+v", full)
	}
	if g.Reduce(legacy.Card, "dave") != nil {
		t.Error("dave sees legacy, whose skill grant cannot be enforced")
	}
	if g.Reduce(ap.Card, "mallory") != nil {
		t.Error("mallory sees ap")
	}
	var none *grants.Grants
	if none.Reduce(ap.Card, "mallory") != ap.Card {
		t.Error("no grants: card not returned as is")
	}

	view := g.ReduceCatalog(cat, "bob")
	var keys []string
	for _, s := range view.Skills() {
		keys = append(keys, s.Key())
	}
	if !slices.Equal(keys, []string{"ap/reconcile"}) {
		t.Errorf("bob's catalog: %v", keys)
	}
	keys = nil
	for _, s := range g.ReduceCatalog(cat, "alice").Skills() {
		keys = append(keys, s.Key())
	}
	if !slices.Equal(keys, []string{"ap/reconcile", "billing/invoice", "billing/refund"}) {
		t.Errorf("alice's catalog: %v", keys)
	}
}

func TestParseRejects(t *testing.T) {
	tests := map[string]string{
		`{"grants":[{"caller":"a","agent":"x","skil":"y"}]}`:                       "unknown field",
		`{"grants":[{"caller":"a","group":"g","agent":"x"}],"groups":{"g":["a"]}}`: "both a caller and a group",
		`{"grants":[{"agent":"x"}]}`:                                               "neither a caller nor a group",
		`{"grants":[{"group":"nope","agent":"x"}]}`:                                "not defined",
		`{"grants":[{"caller":"a","agent":"X Y"}]}`:                                "not an agent id",
		`{"grants":[{"caller":"a","agent":""}]}`:                                   "not an agent id",
		`{"grants":[{"caller":"a","agent":"x","skill":"a/b"}]}`:                    "contains '/'",
		`{"grants":[{"caller":" a","agent":"x"}]}`:                                 "spaces",
		`{"grants":[],"groups":{"g":[""]}}`:                                        "empty",
		`{"grants":[{"caller":"a","agent":"x"}]} {}`:                               "data after",
		`{"grants":{}}`: "cannot unmarshal",
		`[]`:            "cannot unmarshal",
		`{"grants":[{"caller":"a","agent":"x","skill":"` + strings.Repeat("s", 200) + `"}]}`: "longer",
	}
	for in, want := range tests {
		_, err := grants.Parse([]byte(in))
		if err == nil || !errors.Is(err, grants.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	// An empty grants file is valid, and denies everything.
	g, err := grants.Parse([]byte(`{"grants":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := testCatalog(t).Skill("billing/invoice")
	if ok, _ := g.Check("alice", ref.Agent, ref.Skill); ok {
		t.Error("empty grants file allows")
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(path, []byte(grantsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := grants.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := testCatalog(t).Skill("billing/invoice")
	if ok, _ := g.Check("alice", ref.Agent, ref.Skill); !ok {
		t.Error("loaded grants: alice lost billing/invoice")
	}
	if _, err := grants.Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"grants":[{"caller":"a"}]}`), 0o644)
	if _, err := grants.Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad) {
		t.Errorf("bad file: %v", err)
	}
}
