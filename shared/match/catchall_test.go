package match_test

import (
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// moreAgents widens the honest fleet to eleven agents, each with a job of
// its own.
func moreAgents() []agentSpec {
	return []agentSpec{
		{ID: "sky-fly", Name: "Sky Fly", Desc: "Air travel desk.",
			Skills: []skillSpec{{ID: "book-flight", Name: "Book a flight", Desc: "Books airline seats between cities.",
				Tags: []string{"flights", "airline"}, Examples: []string{"book me a flight to Rome on Friday"}}}},
		{ID: "inn-keeper", Name: "Inn Keeper", Desc: "Accommodation desk.",
			Skills: []skillSpec{{ID: "book-hotel", Name: "Book a hotel", Desc: "Reserves hotel rooms for given nights.",
				Tags: []string{"hotel", "rooms"}, Examples: []string{"a hotel room in Vienna for two nights"}}}},
		{ID: "claims-desk", Name: "Claims Desk", Desc: "Travel and expense claims.",
			Skills: []skillSpec{{ID: "expenses", Name: "File expenses", Desc: "Files expense claims from receipts.",
				Tags: []string{"expenses", "receipts"}, Examples: []string{"claim back my taxi receipts"}}}},
		{ID: "time-off", Name: "Time Off", Desc: "Leave management.",
			Skills: []skillSpec{{ID: "vacation", Name: "Request vacation", Desc: "Books vacation days and reports leave balances.",
				Tags: []string{"vacation", "leave"}, Examples: []string{"I'd like Friday off"}}}},
	}
}

// omni claims every job of the fleet in one skill's text.
func omni() agentSpec {
	return agentSpec{ID: "a-omni", Name: "Omni Pro", Desc: "Does everything.",
		Skills: []skillSpec{{ID: "everything", Name: "Does everything: weather translation code invoices meetings",
			Desc: "Forecasts weather, translates text, reviews code diffs, reconciles invoices, releases payments, schedules meetings, " +
				"summarises notes and documents, books flights and hotels, files expenses and vacation.",
			Tags:     []string{"weather", "translation", "code-review", "invoices", "meeting", "summary", "flights", "hotel", "expenses", "vacation"},
			Examples: []string{"weather tomorrow", "book a flight", "translate this"}}}}
}

// A skill whose text names the jobs of most of the catalog's agents is a
// catch-all: ranked last at probability 0 with the reason, never delegated
// to, even by a policy that always delegates; the agents whose jobs it
// names keep their tasks.
func TestCatchAllSkillNeverWins(t *testing.T) {
	cat := buildCatalog(t, append(append(honest(), moreAgents()...), omni())...)
	m := newMatcher(t, cat, match.WithPolicy(delegateAlways))
	for _, tc := range []struct{ text, want string }{
		{"weather forecast for Lisbon tomorrow", "atlas-weather/forecast"},
		{"book a flight to Rome", "sky-fly/book-flight"},
		{"book a hotel room in Oslo", "inn-keeper/book-hotel"},
	} {
		res := mustMatch(t, m, textTask("c", tc.text))
		keys := rankedKeys(res)
		seen := false
		for i, r := range res.Ranked {
			if r.Entry.AgentID != "a-omni" {
				if r.Prob == 0 && strings.Contains(r.Reason, "many other agents") {
					t.Errorf("%q: honest %s taken for a catch-all", tc.text, r.Entry.Key)
				}
				continue
			}
			seen = true
			if r.Prob != 0 || i != len(res.Ranked)-1 || !strings.Contains(r.Reason, "many other agents") {
				t.Errorf("%q: catch-all at %d of %v, probability %v, reason %q", tc.text, i, keys, r.Prob, r.Reason)
			}
		}
		if !seen {
			t.Fatalf("%q: the catch-all is not shortlisted (%v): the test checks nothing", tc.text, keys)
		}
		if d := res.Decision; d.Action != decide.Delegate || d.Chosen.Key != tc.want {
			t.Errorf("%q: %s %v, want %s delegated", tc.text, d.Action, decisionKeys(d), tc.want)
		}
	}
}
