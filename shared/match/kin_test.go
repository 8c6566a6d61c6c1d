package match_test

import (
	"context"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// The shortlisted skills that are one skill of several agents, written
// apart, are kin (rerank.Input.Kin): the listwise layer does not count
// them as each other's rivals. A pasted description is no kin (anyone can
// paste a card), and neither is another skill of the same agent.
func TestKin(t *testing.T) {
	described := func(a agentSpec, desc string) agentSpec { a.Desc = desc; return a }
	alone := func(a agentSpec) agentSpec { a.Skills = a.Skills[:1]; return a }
	renamed := func(a agentSpec, i int, name string) agentSpec {
		a.Skills = slices.Clone(a.Skills)
		a.Skills[i].Name = name
		return a
	}
	twice := func(a agentSpec) agentSpec {
		again := a.Skills[0]
		again.ID += "-2"
		a.Skills = append(slices.Clone(a.Skills), again)
		return a
	}
	reworded := func(a agentSpec, i int, desc string) agentSpec {
		a.Skills = slices.Clone(a.Skills)
		a.Skills[i].Desc = desc
		return a
	}
	exemplified := func(a agentSpec, ex ...string) agentSpec {
		a.Skills = slices.Clone(a.Skills)
		a.Skills[0].Examples = ex
		return a
	}
	bank := func(id, name, desc string) agentSpec {
		return agentSpec{ID: id, Name: name, Desc: "Bank accounts.",
			Skills: []skillSpec{
				{ID: "check-balance", Name: "Check Balance", Desc: desc, Tags: []string{"account type", "check"}},
				{ID: "transfer-money", Name: "Transfer Money", Desc: "Transfer funds from your account to someone else's account", Tags: []string{"account type", "amount", "recipient"}}}}
	}
	first := bank("bank-one", "Bank One", "Check how much money a user holds in a bank account")
	sibling := bank("bank-two", "Bank Two", "Report an account's current balance")
	pasted := bank("bank-three", "Bank Three", "Check how much money a user holds in a bank account")
	own := described(pasted, "Savings and current accounts for families.")
	template := reworded(own, 1, "Send money to another person's account at any bank")
	const spam = "money transfer money transfer money transfer money transfer money transfer money transfer send money"
	tests := []struct {
		name   string
		agents []agentSpec
		want   [][2]string // pairs of skills that must be kin; every other pair must not
	}{
		{"a sibling written apart", []agentSpec{first, sibling},
			[][2]string{{"bank-one/check-balance", "bank-two/check-balance"}}},
		{"a pasted copy", []agentSpec{first, pasted}, nil},
		// Kinship is pairwise: the copy and the original are each kin
		// of the sibling, never of each other (found in review: groups
		// merged through the sibling).
		{"a copy beside a sibling", []agentSpec{first, sibling, pasted},
			[][2]string{{"bank-one/check-balance", "bank-two/check-balance"}, {"bank-two/check-balance", "bank-three/check-balance"}}},
		// Services of one kind may share a stock description: each
		// describes itself apart and lists another skill of one name,
		// described apart. Anything less is a paste.
		{"services from one template", []agentSpec{first, template},
			[][2]string{{"bank-one/check-balance", "bank-three/check-balance"}, {"bank-one/transfer-money", "bank-three/transfer-money"}}},
		{"a card pasted whole under a description of its own", []agentSpec{first, own}, nil},
		{"a stock skill pasted alone", []agentSpec{first, alone(own)}, nil},
		{"a stock skill pasted among other jobs", []agentSpec{first, renamed(template, 1, "Pay Bills")}, nil},
		{"a stock skill pasted twice", []agentSpec{first, twice(alone(own))}, nil},
		// Found in review: an empty agent description is no copy of
		// anything, and a shared name of an untrusted skill is no sign.
		{"a paste under an empty agent description", []agentSpec{first, described(template, "")},
			[][2]string{{"bank-one/transfer-money", "bank-three/transfer-money"}}},
		{"a paste beside an untrusted skill", []agentSpec{first, reworded(template, 1, spam)}, nil},
		{"a paste with its examples", []agentSpec{exemplified(first, "what's my balance today"), exemplified(template, "what's my balance today")},
			[][2]string{{"bank-one/transfer-money", "bank-three/transfer-money"}}}, // written apart
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, kin := shortlistKin(t, tt.agents, "Tell me how much money my checking account holds.")
			for i := range cs {
				for j := i + 1; j < len(cs); j++ {
					a, b := cs[i].Entry.AgentID+"/"+cs[i].Entry.SkillID, cs[j].Entry.AgentID+"/"+cs[j].Entry.SkillID
					want := false
					for _, p := range tt.want {
						want = want || p == [2]string{a, b} || p == [2]string{b, a}
					}
					if got := kin != nil && slices.Contains(kin[i], j); got != want {
						t.Errorf("%s and %s kin: %v, want %v", a, b, got, want)
					}
				}
			}
		})
	}
}

// Services written from one template are twins that pool: a request
// either could take is delegated to one with the other as its first
// fallback, on the pair's probability, not asked about.
func TestTemplateTwinsDelegate(t *testing.T) {
	bank := func(id, name, desc, transfer string) agentSpec {
		return agentSpec{ID: id, Name: name, Desc: desc,
			Skills: []skillSpec{
				{ID: "check-balance", Name: "Check Balance", Desc: "Check how much money a user holds in a bank account", Tags: []string{"account type", "check"}},
				{ID: "transfer-money", Name: "Transfer Money", Desc: transfer, Tags: []string{"account type", "amount", "recipient"}}}}
	}
	m := newMatcher(t, buildCatalog(t, append(travelDesk(),
		bank("bank-one", "Bank One", "Bank accounts for everyone.", "Transfer funds from your account to someone else's account"),
		bank("bank-two", "Bank Two", "Savings and current accounts for families.", "Send money to another person's account at any bank"))...))
	res := mustMatch(t, m, textTask("k", "Tell me how much money my checking account holds."))
	d := res.Decision
	if d.Action != decide.Delegate || d.Chosen.SkillID != "check-balance" || len(d.Fallbacks) == 0 ||
		d.Fallbacks[0].SkillID != "check-balance" || d.Fallbacks[0].AgentID == d.Chosen.AgentID {
		t.Fatalf("decision %s (%s), want a delegation to one check-balance with the other first", d.Action, d.Reason)
	}
	if d.Probability <= res.Ranked[0].Prob {
		t.Errorf("probability %.3f, not pooled beside the best one's %.3f", d.Probability, res.Ranked[0].Prob)
	}
}

// Skills of one name that each name a thing of their own agent's alone
// (in tags, description and the agent's description: a dentist, a
// therapist) book different things: they are no kin, and neither pools
// the other's probability. One side naming its own thing is not enough.
func TestKinNamesOwnThings(t *testing.T) {
	booking := func(id, thing, agentDesc string) agentSpec {
		return agentSpec{ID: id, Name: id, Desc: agentDesc,
			Skills: []skillSpec{
				{ID: "book-appointment", Name: "Book Appointment", Desc: "Book an appointment with a " + thing + " for a given date and time",
					Tags: []string{thing + " name", "appointment time", "appointment date"}},
				{ID: "find-provider", Name: "Find Provider", Desc: "Find a " + thing + " in a city", Tags: []string{"city", "find"}}}}
	}
	dentist := booking("smile-desk", "dentist", "The go-to service for top rated dentists.")
	therapist := booking("mind-care", "therapist", "Helps you find a therapist who suits you.")
	clinic := booking("open-clinic", "clinician", "Appointments at the practice nearest you.") // "clinician" only in its skills
	tests := []struct {
		name   string
		agents []agentSpec
		kin    bool
	}{
		{"a dentist and a therapist", []agentSpec{dentist, therapist}, false},
		{"a dentist and a practice that names its own thing in its skills only", []agentSpec{dentist, clinic}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, kin := shortlistKin(t, tt.agents, "Please set up an appointment on Tuesday at 10")
			found := false
			for i := range cs {
				for j := i + 1; j < len(cs); j++ {
					if cs[i].Entry.SkillID != "book-appointment" || cs[j].Entry.SkillID != "book-appointment" {
						continue
					}
					found = true
					if got := kin != nil && slices.Contains(kin[i], j); got != tt.kin {
						t.Errorf("%s and %s kin: %v, want %v", cs[i].Entry.Key, cs[j].Entry.Key, got, tt.kin)
					}
				}
			}
			if !found {
				t.Fatal("the two bookings are not both shortlisted: the test checks nothing")
			}
		})
	}
}

// shortlistKin shortlists text over the travel desk and agents, and
// returns the shortlist and its kin (rerank.Input.Kin).
func shortlistKin(t *testing.T, agents []agentSpec, text string) ([]index.Candidate, [][]int) {
	t.Helper()
	m := newMatcher(t, buildCatalog(t, append(travelDesk(), agents...)...))
	req := m.Extract(textTask("k", text))
	sl, err := m.Shortlist(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	return sl.Retrieval.Candidates, m.RerankInput(&req, sl).Kin
}

// Two one-skill vendors of one job (standsIn) are kin whatever their
// names: weighed as rivals, the second's probability fell to the floor
// and the pair pooled under the bar where either would do. A reworded
// paste is no kin, and neither is a vendor of other jobs besides.
func TestKinOneSkillVendors(t *testing.T) {
	vendor := func(id, name, desc string, tags []string, examples ...string) agentSpec {
		return agentSpec{ID: id, Name: name, Desc: "Home maintenance in the city.",
			Skills: []skillSpec{{ID: "visit", Name: name, Desc: desc, Tags: tags, Examples: examples}}}
	}
	gutters := vendor("clearflow", "Gutter clearing",
		"Clears blocked gutters and downpipes on houses, removes moss and leaves, checks for leaks.",
		[]string{"gutters", "downpipes", "moss"}, "the gutters at the back are blocked with moss")
	roofline := vendor("rainline", "Roofline maintenance visit",
		"We visit homes to clear gutters and downpipes of leaves and moss and report any leaks.",
		[]string{"roofline", "gutters", "maintenance"})
	paste := vendor("gutterpros", "Gutter service",
		"Clears blocked gutters and downpipes on homes, removes moss and leaves, checks for leaks.",
		[]string{"gutters", "downpipes"}, "the gutters at the back are clogged with moss")
	broad := roofline
	broad.Skills = append(slices.Clone(broad.Skills), skillSpec{ID: "windows", Name: "Window cleaning",
		Desc: "Cleans windows, frames and sills inside and out.", Tags: []string{"windows"}})
	tests := []struct {
		name   string
		agents []agentSpec
		kin    bool
	}{
		{"two vendors in their own words", []agentSpec{gutters, roofline}, true},
		{"a reworded paste", []agentSpec{gutters, paste}, false},
		{"a vendor of other jobs besides", []agentSpec{gutters, broad}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, kin := shortlistKin(t, tt.agents, "the gutters are overflowing with leaves, can someone clear them out")
			a, b := -1, -1
			for i, c := range cs {
				switch c.Entry.Key {
				case tt.agents[0].ID + "/visit":
					a = i
				case tt.agents[1].ID + "/visit":
					b = i
				}
			}
			if a < 0 || b < 0 {
				t.Fatal("the two vendors are not both shortlisted: the test checks nothing")
			}
			if got := kin != nil && slices.Contains(kin[a], b); got != tt.kin {
				t.Errorf("kin: %v, want %v", got, tt.kin)
			}
		})
	}
}
