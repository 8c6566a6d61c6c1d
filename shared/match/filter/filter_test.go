package filter

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

const (
	pdf  = "application/pdf"
	csv  = "text/csv"
	js   = "application/json"
	txt  = "text/plain"
	png  = "image/png"
	anyT = "*/*"
)

func strs(s ...string) []string { return s }

// checkCase is one skill of one agent against one requirement. The card
// starts as: id "a", defaults text/plain in and out, no streaming, open.
type checkCase struct {
	name    string
	card    func(*card.Card)
	skill   card.Skill
	status  catalog.Status
	req     extract.Requirement
	opts    []Option
	rule    Rule   // "" for kept
	demoted bool   // kept and demoted
	reason  string // checked when non-empty
}

func runChecks(t *testing.T, tests []checkCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &card.Card{ID: "a", DefaultInputModes: strs(txt), DefaultOutputModes: strs(txt)}
			if tt.card != nil {
				tt.card(c)
			}
			s := tt.skill
			if s.ID == "" {
				s.ID = "s"
			}
			c.Skills = []card.Skill{s}
			a := &catalog.Agent{Card: c, Status: tt.status}
			v := Check(&tt.req, a, &c.Skills[0], tt.opts...)

			if tt.rule == "" {
				if !v.OK || v.Rejection != nil {
					t.Fatalf("rejected: %+v", v.Rejection)
				}
			} else {
				if v.OK || v.Rejection == nil {
					t.Fatalf("kept, want rejection by %s", tt.rule)
				}
				r := v.Rejection
				if r.Rule != tt.rule || r.Agent != "a" || r.Skill != "s" {
					t.Errorf("rejection %+v, want rule %s for a/s", r, tt.rule)
				}
				if r.Reason == "" {
					t.Error("empty reason")
				}
				if tt.reason != "" && r.Reason != tt.reason {
					t.Errorf("reason\n got %q\nwant %q", r.Reason, tt.reason)
				}
			}
			if v.Demoted != tt.demoted {
				t.Errorf("Demoted = %v, want %v", v.Demoted, tt.demoted)
			}

			// Apply over a one-skill catalog must agree with Check.
			res := apply(&tt.req, &catalog.Catalog{Agents: []catalog.Agent{*a}}, tt.opts...)
			if res.Keep[0] != v.OK || res.Demoted[0] != v.Demoted || (res.Kept == 1) != v.OK {
				t.Errorf("Apply disagrees with Check: %+v vs %+v", res, v)
			}
			if !v.OK && (len(res.Rejections) != 1 || res.Rejections[0] != *v.Rejection) {
				t.Errorf("Apply rejections %+v, Check %+v", res.Rejections, v.Rejection)
			}
		})
	}
}

func TestInputTypes(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "no input types: no constraint", card: func(c *card.Card) { c.DefaultInputModes = strs(png) }},
		{name: "exact", req: extract.Requirement{InputTypes: strs(txt)}},
		{name: "wildcard image/* takes image/png", skill: card.Skill{InputModes: strs("image/*")}, req: extract.Requirement{InputTypes: strs(png)}},
		{name: "wildcard image/* refuses text/plain", skill: card.Skill{InputModes: strs("image/*")}, req: extract.Requirement{InputTypes: strs(txt)},
			rule: RuleInputType, reason: "skill accepts image/*; task attaches text/plain"},
		{name: "*/* takes anything", skill: card.Skill{InputModes: strs(anyT)}, req: extract.Requirement{InputTypes: strs(pdf, png, "application/octet-stream")}},
		{name: "legacy word text", skill: card.Skill{InputModes: strs("text")}, req: extract.Requirement{InputTypes: strs(txt)}},
		{name: "legacy word data", skill: card.Skill{InputModes: strs("data")}, req: extract.Requirement{InputTypes: strs(js)}},
		{name: "legacy word file", skill: card.Skill{InputModes: strs("file")}, req: extract.Requirement{InputTypes: strs(pdf)}},
		{name: "legacy word data refuses pdf", skill: card.Skill{InputModes: strs("data")}, req: extract.Requirement{InputTypes: strs(pdf)}, rule: RuleInputType},
		{name: "every type: all accepted", skill: card.Skill{InputModes: strs(pdf, csv)}, req: extract.Requirement{InputTypes: strs(pdf, csv)}},
		{name: "every type: one missing", skill: card.Skill{InputModes: strs(txt, "image/*", pdf)}, req: extract.Requirement{InputTypes: strs(pdf, csv)},
			rule: RuleInputType, reason: "skill accepts text/plain, image/*, application/pdf; task attaches text/csv"},
		{name: "every type: all missing named", req: extract.Requirement{InputTypes: strs(pdf, csv)},
			rule: RuleInputType, reason: "skill accepts text/plain; task attaches application/pdf and text/csv"},
		{name: "skill modes replace wider defaults", card: func(c *card.Card) { c.DefaultInputModes = strs(anyT) },
			skill: card.Skill{InputModes: strs(txt)}, req: extract.Requirement{InputTypes: strs(pdf)}, rule: RuleInputType},
		{name: "skill modes replace narrower defaults", skill: card.Skill{InputModes: strs(pdf)}, req: extract.Requirement{InputTypes: strs(pdf)}},
		{name: "skill modes do not add to defaults", skill: card.Skill{InputModes: strs(pdf)}, req: extract.Requirement{InputTypes: strs(txt)}, rule: RuleInputType},
		{name: "no modes declared anywhere: accept", card: func(c *card.Card) { c.DefaultInputModes = nil }, req: extract.Requirement{InputTypes: strs(pdf)}},
		{name: "skill declares an empty list: accept", skill: card.Skill{InputModes: []string{}}, req: extract.Requirement{InputTypes: strs(pdf)}},
		{name: "only words that are not media types: accept", skill: card.Skill{InputModes: strs("banana")}, req: extract.Requirement{InputTypes: strs(pdf)}},
		{name: "non-media words beside real modes are ignored", skill: card.Skill{InputModes: strs("banana", txt)}, req: extract.Requirement{InputTypes: strs(pdf)},
			rule: RuleInputType},
	})
}

func TestOutputTypes(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "no output types: no constraint", card: func(c *card.Card) { c.DefaultOutputModes = strs(png) }},
		{name: "produces one of two", skill: card.Skill{OutputModes: strs(csv)}, req: extract.Requirement{OutputTypes: strs(js, csv)}},
		{name: "produces none", req: extract.Requirement{OutputTypes: strs(js)},
			rule: RuleOutputType, reason: "skill produces text/plain; task wants application/json"},
		{name: "produces none of two", req: extract.Requirement{OutputTypes: strs(js, csv)},
			rule: RuleOutputType, reason: "skill produces text/plain; task wants application/json or text/csv"},
		{name: "wildcard output", skill: card.Skill{OutputModes: strs("image/*")}, req: extract.Requirement{OutputTypes: strs(png)}},
		{name: "wildcard output refuses other family", skill: card.Skill{OutputModes: strs("image/*")}, req: extract.Requirement{OutputTypes: strs(csv)}, rule: RuleOutputType},
		{name: "legacy data output", skill: card.Skill{OutputModes: strs("data")}, req: extract.Requirement{OutputTypes: strs(js)}},
		{name: "skill outputs replace defaults", card: func(c *card.Card) { c.DefaultOutputModes = strs(js) },
			skill: card.Skill{OutputModes: strs(txt)}, req: extract.Requirement{OutputTypes: strs(js)}, rule: RuleOutputType},
		{name: "no output modes declared: accept", card: func(c *card.Card) { c.DefaultOutputModes = nil }, req: extract.Requirement{OutputTypes: strs(js)}},
		{name: "input and output together", skill: card.Skill{InputModes: strs(pdf), OutputModes: strs(js, txt)},
			req: extract.Requirement{InputTypes: strs(pdf), OutputTypes: strs(js)}},
	})
}

func TestStreaming(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "needed and offered", card: func(c *card.Card) { c.Streaming = true }, req: extract.Requirement{Streaming: true}},
		{name: "needed, not offered", req: extract.Requirement{Streaming: true},
			rule: RuleStreaming, reason: "task needs streaming; agent does not offer it"},
		{name: "not needed", req: extract.Requirement{}},
	})
}

func TestSecurity(t *testing.T) {
	oauth := func(scopes ...string) card.Requirement { return card.Requirement{"oauth": scopes} }
	locked := func(reqs ...card.Requirement) func(*card.Card) {
		return func(c *card.Card) { c.Security = reqs }
	}
	runChecks(t, []checkCase{
		{name: "nil caller scopes: not filtered", card: locked(oauth("admin")), req: extract.Requirement{Scopes: nil}},
		{name: "open card, caller with no scopes", req: extract.Requirement{Scopes: []string{}}},
		{name: "locked card, caller with no scopes", card: locked(oauth("finance.read")), req: extract.Requirement{Scopes: []string{}},
			rule: RuleSecurity, reason: "skill requires oauth [finance.read]; caller has no scopes"},
		{name: "scheme without scopes: any caller", card: locked(card.Requirement{"apiKey": nil}), req: extract.Requirement{Scopes: []string{}}},
		{name: "scheme with empty scope list: any caller", card: locked(card.Requirement{"apiKey": {}}), req: extract.Requirement{Scopes: []string{}}},
		{name: "empty entry: satisfied", card: locked(card.Requirement{}), req: extract.Requirement{Scopes: []string{}}},
		{name: "all scopes of a scheme needed", card: locked(oauth("read", "write")), req: extract.Requirement{Scopes: strs("read")},
			rule: RuleSecurity, reason: "skill requires oauth [read write]; caller has read"},
		{name: "all scopes held", card: locked(oauth("read", "write")), req: extract.Requirement{Scopes: strs("write", "x", "read")}},
		{name: "multi-scheme entry satisfied", card: locked(card.Requirement{"oauth": {"read"}, "mtls": nil}), req: extract.Requirement{Scopes: strs("read")}},
		{name: "multi-scheme entry: every scheme", card: locked(card.Requirement{"oauth": {"read"}, "apiKey": {"admin"}}), req: extract.Requirement{Scopes: strs("read")},
			rule: RuleSecurity, reason: "skill requires apiKey [admin] + oauth [read]; caller has read"},
		{name: "any-of: second entry", card: locked(oauth("admin"), card.Requirement{"apiKey": nil}), req: extract.Requirement{Scopes: []string{}}},
		{name: "any-of: none", card: locked(oauth("admin"), oauth("root")), req: extract.Requirement{Scopes: strs("read", "write")},
			rule: RuleSecurity, reason: "skill requires oauth [admin] or oauth [root]; caller has read, write"},
		{name: "skill open while card locked", card: locked(oauth("admin")), skill: card.Skill{HasSecurity: true}, req: extract.Requirement{Scopes: []string{}}},
		{name: "skill locked while card open", skill: card.Skill{HasSecurity: true, Security: []card.Requirement{oauth("admin")}}, req: extract.Requirement{Scopes: strs("read")},
			rule: RuleSecurity},
		{name: "skill requirement replaces, not adds", card: locked(oauth("admin")), skill: card.Skill{HasSecurity: true, Security: []card.Requirement{oauth("read")}},
			req: extract.Requirement{Scopes: strs("read")}},
		{name: "skill replaces with stricter", card: locked(oauth("read")), skill: card.Skill{HasSecurity: true, Security: []card.Requirement{oauth("admin")}},
			req: extract.Requirement{Scopes: strs("read")}, rule: RuleSecurity},
		{name: "scope match is exact", card: locked(oauth("finance.read")), req: extract.Requirement{Scopes: strs("Finance.Read", "finance")}, rule: RuleSecurity},
	})
}

func TestDataPolicy(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "no class: no constraint, even external", status: catalog.Status{External: true, Clearance: catalog.Public}},
		{name: "external, public data", status: catalog.Status{External: true, Clearance: catalog.Restricted}, req: extract.Requirement{DataClass: "public"}},
		{name: "external, internal data", status: catalog.Status{External: true, Clearance: catalog.Restricted}, req: extract.Requirement{DataClass: "internal"},
			rule: RuleDataPolicy, reason: "agent is external and receives public data only; task data is internal"},
		// An empty clearance is the unvetted default's: public.
		{name: "empty clearance is public: public ok", req: extract.Requirement{DataClass: "public"}},
		{name: "empty clearance is public: internal refused", req: extract.Requirement{DataClass: "internal"},
			rule: RuleDataPolicy, reason: "task data is internal; agent is cleared for public only"},
		{name: "internal clearance: confidential refused", status: catalog.Status{Clearance: catalog.Internal}, req: extract.Requirement{DataClass: "confidential"},
			rule: RuleDataPolicy, reason: "task data is confidential; agent is cleared for internal only"},
		{name: "the default status gets public data only", status: catalog.DefaultStatus, req: extract.Requirement{DataClass: "internal"},
			rule: RuleDataPolicy, reason: "agent is external and receives public data only; task data is internal"},
		{name: "unknown task class fails closed", status: catalog.Status{Clearance: catalog.Restricted}, req: extract.Requirement{DataClass: "secret"}, rule: RuleDataPolicy},
		{name: "unknown clearance reads as public", status: catalog.Status{Clearance: "top"}, req: extract.Requirement{DataClass: "internal"},
			rule: RuleDataPolicy, reason: `agent clearance "top" is unknown, so it receives public data only; task data is internal`},
		{name: "unknown clearance, public data", status: catalog.Status{Clearance: "top"}, req: extract.Requirement{DataClass: "public"}},
		{name: "class case is ignored", status: catalog.Status{Clearance: "Confidential"}, req: extract.Requirement{DataClass: "Confidential"}},
	})
}

func TestClearanceOrdering(t *testing.T) {
	classes := []string{catalog.Public, catalog.Internal, catalog.Confidential, catalog.Restricted}
	for ci, class := range classes {
		for li, clearance := range classes {
			for _, external := range []bool{false, true} {
				a := &catalog.Agent{Card: &card.Card{ID: "a"}, Status: catalog.Status{Clearance: clearance, External: external}}
				v := Check(&extract.Requirement{DataClass: class}, a, &card.Skill{ID: "s"})
				want := ci <= li && (!external || class == catalog.Public)
				if v.OK != want {
					t.Errorf("data %s, clearance %s, external %v: OK = %v, want %v", class, clearance, external, v.OK, want)
				}
			}
		}
	}
}

func TestHealth(t *testing.T) {
	runChecks(t, []checkCase{
		{name: "up", status: catalog.Status{Health: catalog.Up}},
		{name: "empty health is up", status: catalog.Status{}},
		{name: "down removed", status: catalog.Status{Health: catalog.Down}, rule: RuleHealth, reason: "agent is down"},
		{name: "degraded kept and demoted", status: catalog.Status{Health: catalog.Degraded}, demoted: true},
		{name: "degraded is never filtered for health", status: catalog.Status{Health: catalog.Degraded, Clearance: catalog.Restricted},
			req: extract.Requirement{DataClass: "restricted", InputTypes: strs(txt)}, demoted: true},
		{name: "degraded but rejected: not demoted", status: catalog.Status{Health: catalog.Degraded}, req: extract.Requirement{InputTypes: strs(pdf)}, rule: RuleInputType},
		{name: "unknown health demotes", status: catalog.Status{Health: "maintenance"}, demoted: true},
	})
}

func TestRuleOrder(t *testing.T) {
	everythingWrong := extract.Requirement{DataClass: "restricted", Streaming: true, InputTypes: strs(pdf), OutputTypes: strs(js), Scopes: []string{}}
	locked := func(c *card.Card) { c.Security = []card.Requirement{{"oauth": {"admin"}}} }
	runChecks(t, []checkCase{
		{name: "health first", card: locked, status: catalog.Status{Health: catalog.Down}, req: everythingWrong, rule: RuleHealth},
		{name: "then data policy", card: locked, req: everythingWrong, rule: RuleDataPolicy},
		{name: "then streaming", card: locked, status: catalog.Status{Clearance: catalog.Restricted}, req: everythingWrong, rule: RuleStreaming},
		{name: "then input type", card: func(c *card.Card) { locked(c); c.Streaming = true }, status: catalog.Status{Clearance: catalog.Restricted},
			req: everythingWrong, rule: RuleInputType},
		{name: "then output type", card: func(c *card.Card) { locked(c); c.Streaming = true; c.DefaultInputModes = strs(pdf) },
			status: catalog.Status{Clearance: catalog.Restricted}, req: everythingWrong, rule: RuleOutputType},
		{name: "then security", card: func(c *card.Card) {
			locked(c)
			c.Streaming = true
			c.DefaultInputModes = strs(pdf)
			c.DefaultOutputModes = strs(js)
		},
			status: catalog.Status{Clearance: catalog.Restricted}, req: everythingWrong, rule: RuleSecurity},
	})
}

// apply is Keep with every rejection explained, as a caller asking why
// gets it.
func apply(req *extract.Requirement, cat *catalog.Catalog, opts ...Option) Result {
	res := Keep(req, cat, opts...)
	res.Explain(req, cat, opts...)
	return res
}

func TestApply(t *testing.T) {
	cat := &catalog.Catalog{Agents: []catalog.Agent{
		{Card: &card.Card{ID: "up", DefaultInputModes: strs(pdf), DefaultOutputModes: strs(js), Skills: []card.Skill{
			{ID: "keep"}, {ID: "text-only", InputModes: strs(txt)}, {ID: "keep-2", OutputModes: strs(csv, js)},
		}}},
		{Card: &card.Card{ID: "down", Skills: []card.Skill{{ID: "x"}, {ID: "y"}}}, Status: catalog.Status{Health: catalog.Down}},
		{Card: nil}, // skipped: no card, no skills
		{Card: &card.Card{ID: "slow", DefaultInputModes: strs(anyT), Skills: []card.Skill{{ID: "z"}}}, Status: catalog.Status{Health: catalog.Degraded}},
		{Card: &card.Card{ID: "empty"}},
	}}
	got := apply(&extract.Requirement{InputTypes: strs(pdf)}, cat)
	want := Result{
		Keep:    []bool{true, false, true, false, false, true},
		Demoted: []bool{false, false, false, false, false, true},
		Rejections: []Rejection{
			{Agent: "up", Skill: "text-only", Rule: RuleInputType, Reason: "skill accepts text/plain; task attaches application/pdf"},
			{Agent: "down", Skill: "x", Rule: RuleHealth, Reason: "agent is down"},
			{Agent: "down", Skill: "y", Rule: RuleHealth, Reason: "agent is down"},
		},
		Kept: 3,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	if got := apply(nil, cat); got.Kept != 4 || len(got.Rejections) != 2 {
		t.Errorf("nil requirement: %+v", got)
	}
	if got := apply(&extract.Requirement{}, nil); got.Kept != 0 || got.Keep != nil {
		t.Errorf("nil catalog: %+v", got)
	}
}

// TestApplyMatchesCheck guards the per-agent caching in Apply: over random
// catalogs and requirements, it must say exactly what Check says skill by
// skill.
func TestApplyMatchesCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		cat := randomCatalog(rng, 20, 8)
		req := randomRequirement(rng)
		res := apply(&req, cat)
		i, r := 0, 0
		for ai := range cat.Agents {
			a := &cat.Agents[ai]
			for si := range a.Card.Skills {
				v := Check(&req, a, &a.Card.Skills[si])
				if res.Keep[i] != v.OK || res.Demoted[i] != v.Demoted {
					t.Fatalf("round %d skill %d: Apply keep=%v demoted=%v, Check %+v", round, i, res.Keep[i], res.Demoted[i], v)
				}
				if !v.OK {
					if res.Rejections[r] != *v.Rejection {
						t.Fatalf("round %d skill %d: Apply %+v, Check %+v", round, i, res.Rejections[r], *v.Rejection)
					}
					r++
				}
				i++
			}
		}
		if r != len(res.Rejections) || i-r != res.Kept {
			t.Fatalf("round %d: %d rejections, %d kept; Apply says %d, %d", round, r, i-r, len(res.Rejections), res.Kept)
		}
	}
}

func TestApplyAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cat := randomCatalog(rng, 50, 20)
	for ai := range cat.Agents {
		cat.Agents[ai].Status = catalog.Status{}
	}
	// Nothing constrains: every skill kept, and the only allocation is the
	// one for Keep and Demoted.
	if n := testing.AllocsPerRun(10, func() { apply(&extract.Requirement{}, cat) }); n != 1 {
		t.Errorf("Apply with every skill kept: %v allocations, want 1", n)
	}
	// Reasons for skills on the card's defaults are made once per agent.
	req := &extract.Requirement{InputTypes: strs("video/mp4")}
	for ai := range cat.Agents {
		cat.Agents[ai].Card.DefaultInputModes = strs(txt)
		for si := range cat.Agents[ai].Card.Skills {
			cat.Agents[ai].Card.Skills[si].InputModes = nil
		}
	}
	if n := testing.AllocsPerRun(10, func() { apply(req, cat) }); n > 50*2+20 {
		t.Errorf("Apply rejecting 1000 skills on defaults: %v allocations", n)
	}
}

var (
	someModes = [][]string{nil, {}, {txt}, {pdf, txt}, {"image/*"}, {anyT}, {"text"}, {"data"}, {"banana"}, {csv, js}, {"Application/PDF; q=1"}}
	someTypes = [][]string{nil, {pdf}, {txt}, {png}, {pdf, csv}, {js}, {js, csv}}
	someReqs  = [][]card.Requirement{nil, {}, {{"oauth": {"read"}}}, {{"oauth": {"admin"}}, {"key": nil}}, {{"oauth": {"read"}, "mtls": {"x"}}}}
	someScope = [][]string{nil, {}, {"read"}, {"read", "x"}}
	classes   = []string{"", "public", "internal", "confidential", "restricted", "bogus"}
	healths   = []catalog.Health{"", catalog.Up, catalog.Degraded, catalog.Down, "odd"}
)

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func randomCatalog(rng *rand.Rand, agents, skills int) *catalog.Catalog {
	cat := &catalog.Catalog{}
	for ai := range agents {
		c := &card.Card{
			ID:                 fmt.Sprintf("agent-%d", ai),
			DefaultInputModes:  pick(rng, someModes),
			DefaultOutputModes: pick(rng, someModes),
			Security:           pick(rng, someReqs),
			Streaming:          rng.IntN(2) == 0,
		}
		for si := range 1 + rng.IntN(skills) {
			s := card.Skill{ID: fmt.Sprintf("skill-%d", si)}
			if rng.IntN(3) == 0 {
				s.InputModes = pick(rng, someModes)
			}
			if rng.IntN(3) == 0 {
				s.OutputModes = pick(rng, someModes)
			}
			if rng.IntN(4) == 0 {
				s.HasSecurity, s.Security = true, pick(rng, someReqs)
			}
			c.Skills = append(c.Skills, s)
		}
		cat.Agents = append(cat.Agents, catalog.Agent{Card: c, Status: catalog.Status{
			Health: pick(rng, healths), Clearance: pick(rng, classes), External: rng.IntN(5) == 0,
		}})
	}
	return cat
}

func randomRequirement(rng *rand.Rand) extract.Requirement {
	return extract.Requirement{
		InputTypes:  pick(rng, someTypes),
		OutputTypes: pick(rng, someTypes),
		Streaming:   rng.IntN(4) == 0,
		DataClass:   pick(rng, classes),
		Scopes:      pick(rng, someScope),
	}
}

// TestDataPolicyWithoutReason checks that deciding without reasons
// refuses exactly the agents the explained check refuses.
func TestDataPolicyWithoutReason(t *testing.T) {
	classes := []string{"", catalog.Public, catalog.Internal, " Confidential ", catalog.Restricted, "secret"}
	clearances := []string{"", catalog.Public, catalog.Internal, catalog.Confidential, "RESTRICTED", "unknown"}
	for _, class := range classes {
		for _, clearance := range clearances {
			for _, external := range []bool{false, true} {
				for _, strict := range []bool{false, true} {
					st := catalog.DefaultStatus
					st.Clearance, st.External = clearance, external
					why := dataPolicy(class, st, strict)
					quiet := dataPolicyWhy(class, st, strict, false)
					if (why == "") != (quiet == "") || quiet != "" && quiet != "-" {
						t.Errorf("class %q clearance %q external %v strict %v: reason %q, without reason %q",
							class, clearance, external, strict, why, quiet)
					}
				}
			}
		}
	}
}

// TestCheckerRemembersDataPolicyRight runs one checker over agents of
// random clearances for changing classes, with and without reasons: the
// remembered verdict must be the one worked out afresh every time.
func TestCheckerRemembersDataPolicyRight(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	classes := []string{"", catalog.Public, catalog.Internal, catalog.Confidential, catalog.Restricted, "secret"}
	clearances := []string{"", catalog.Public, catalog.Internal, catalog.Confidential, catalog.Restricted, "unknown"}
	for _, strict := range []bool{false, true} {
		c := checker{opts: options{strict: strict}}
		for i := range 2000 {
			a := &catalog.Agent{Card: &card.Card{ID: "a"}, Status: catalog.DefaultStatus}
			a.Status.Clearance = clearances[rng.IntN(len(clearances))]
			a.Status.External = rng.IntN(4) == 0
			req := &extract.Requirement{DataClass: classes[rng.IntN(len(classes))]}
			why := rng.IntN(2) == 0
			c.reset(req, a, why, &[2]string{})
			want := dataPolicyWhy(req.DataClass, a.Status, strict, why)
			if got := c.reason; c.rule == RuleDataPolicy && got != want || c.rule == "" && want != "" {
				t.Fatalf("step %d (strict %v, why %v, class %q, status %+v): rule %q reason %q, want reason %q",
					i, strict, why, req.DataClass, a.Status, c.rule, got, want)
			}
		}
	}
}
