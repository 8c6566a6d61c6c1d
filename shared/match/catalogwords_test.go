package match_test

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// tradeWordFleet is an invented hotel group whose finance team names one
// job in a trade word the built-in vectors lack ("chargebacks"), on a
// card without examples, beside skills whose examples name the group's
// hotels.
func tradeWordFleet() []agentSpec {
	return []agentSpec{
		{ID: "finance", Name: "Finance Shared Services", Desc: "The group's finance team.",
			Skills: []skillSpec{
				{ID: "chargeback", Name: "Chargebacks", Tags: []string{"dispute", "evidence"},
					Desc: "Answers card-scheme chargebacks and retrieval requests with evidence: the folio, the signed terms, the check-in record."},
				{ID: "deposit", Name: "Deposits", Tags: []string{"deposit", "payment link"},
					Desc:     "Takes deposits by payment link for bookings and weddings.",
					Examples: []string{"send a payment link for a 500 pound deposit, Mills wedding, Kestrel Hall"}},
			}},
		{ID: "loyalty", Name: "Loyalty", Desc: "The group's loyalty scheme.",
			Skills: []skillSpec{
				{ID: "missing-points", Name: "Missing points", Tags: []string{"points", "stay"},
					Desc:     "Adds the points a member should have earned for a stay.",
					Examples: []string{"member 4471 stayed at Kestrel Hall in March and got no points"}},
			}},
		{ID: "stays", Name: "Reservations", Desc: "Books the group's hotels.",
			Skills: []skillSpec{
				{ID: "new-booking", Name: "New booking", Tags: []string{"booking", "rooms"},
					Desc:     "Books rooms at any of the group's hotels.",
					Examples: []string{"two nights at Kestrel Hall from Friday for a couple"}},
			}},
	}
}

// TestCatalogWordsNameTheJob: a request that names a job in the card's
// trade word finds it by meaning too, not by its words alone. With the
// catalog's words off, the chargeback skill's dense score is that of a
// request about anything, and the loyalty team's "stay" takes the
// request at 0.86-0.95.
func TestCatalogWordsNameTheJob(t *testing.T) {
	cat := buildCatalog(t, tradeWordFleet()...)
	on, off := newMatcher(t, cat), newMatcher(t, cat, match.WithCatalogWords(false))
	dense := func(res *match.Result) float32 {
		for _, r := range res.Ranked {
			if r.Entry.Key == "finance/chargeback" {
				return r.Dense
			}
		}
		t.Fatalf("finance/chargeback not shortlisted: %v", rankingOf(res))
		return 0
	}
	for _, tt := range []struct {
		request string
		first   bool // the chargeback skill must rank first
	}{
		{"a guest's bank raised a chargeback for the March stay", true},
		{"chargeback from Amex on an August stay at Kestrel Hall", false},
	} {
		got, was := mustMatch(t, on, textTask("t", tt.request)), mustMatch(t, off, textTask("t", tt.request))
		if d, d0 := dense(got), dense(was); d < d0+0.2 {
			t.Errorf("%q: dense score of the chargeback skill %.3f with the catalog's words, %.3f without: want a rise of 0.2 or more", tt.request, d, d0)
		}
		if top := got.Ranked[0].Entry.Key; tt.first && top != "finance/chargeback" {
			t.Errorf("%q: best candidate %s, want finance/chargeback", tt.request, top)
		}
		if c := got.Decision.Chosen; got.Decision.Action == decide.Delegate && c != nil && c.Key != "finance/chargeback" {
			t.Errorf("%q: delegated to %s at %.2f", tt.request, c.Key, got.Decision.Probability)
		}
	}
}
