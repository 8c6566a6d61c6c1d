package filter

import (
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

func TestGrantsFilter(t *testing.T) {
	g, err := grants.Parse([]byte(`{"grants": [
		{"caller": "alice", "agent": "billing"},
		{"caller": "bob", "agent": "support", "skill": "triage"},
		{"caller": "bob", "agent": "billing", "skill": "refund"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	billing := &card.Card{ID: "billing", Name: "Billing", Skills: []card.Skill{{ID: "invoice", Name: "Invoice"}, {ID: "refund", Name: "Refund"}}}
	support := &card.Card{ID: "support", Name: "Support", Extensions: []card.Extension{{URI: routing.URI}},
		Skills: []card.Skill{{ID: "triage", Name: "Triage"}, {ID: "reply", Name: "Reply"}}}
	cat := catalog.New(catalog.Agent{Card: billing, Status: catalog.DefaultStatus}, catalog.Agent{Card: support, Status: catalog.DefaultStatus})
	tests := []struct {
		caller string
		kept   []string
	}{
		{"alice", []string{"billing/invoice", "billing/refund"}}, // whole-agent grant
		{"bob", []string{"support/triage"}},                      // skill grant on a cooperating agent; billing does not advertise routing
		{"mallory", nil},                                         // no grant at all
	}
	plan := NewPlan(cat)
	for _, tt := range tests {
		req := &extract.Requirement{CallerID: tt.caller}
		res := apply(req, cat, WithGrants(g))
		// The plan, which decisions use, denies the same skills for the
		// same reasons.
		fast := plan.Keep(req, WithGrants(g))
		plan.Explain(&fast, req, WithGrants(g))
		if !reflect.DeepEqual(fast, res) {
			t.Errorf("%s: plan kept %v %+v, Keep %v %+v", tt.caller, fast.Keep, fast.Rejections, res.Keep, res.Rejections)
		}
		var kept []string
		for i, ref := range cat.Skills() {
			if res.Keep[i] {
				kept = append(kept, ref.Key())
			}
		}
		if len(kept) != len(tt.kept) {
			t.Errorf("%s: kept %v, want %v", tt.caller, kept, tt.kept)
			continue
		}
		for i := range kept {
			if kept[i] != tt.kept[i] {
				t.Errorf("%s: kept %v, want %v", tt.caller, kept, tt.kept)
			}
		}
		for _, rj := range res.Rejections {
			if rj.Rule != RuleGrant || rj.Reason == "" || rj.Reason == "-" {
				t.Errorf("%s: rejection %+v, want a grant rule with a reason", tt.caller, rj)
			}
		}
	}
	// Without grants configured every caller gets everything.
	if res := apply(&extract.Requirement{CallerID: "mallory"}, cat); res.Kept != 4 {
		t.Errorf("no grants: kept %d of 4", res.Kept)
	}
}
