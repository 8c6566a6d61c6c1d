package filter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

var someURLs = [][]string{nil, {"https://agents.example.com/a2a"}, {"http://127.0.0.1:6379/"},
	{"file:///etc/passwd", "https://agents.example.com/a2a"}, {"http://10.0.0.8/a2a"}, {"gopher://x"}}

// A plan's Keep says what Keep says, flag for flag, over random catalogs
// (modes that are nil, empty, wildcards, not media types, with
// parameters; security lists open, empty, alternative) and requirements.
func TestPlanKeepEqualsKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		cat := randomCatalog(rng, 20, 8)
		for ai := range cat.Agents { // endpoints refused, allowed as private, fine
			at(pick(rng, someURLs)...)(cat.Agents[ai].Card)
			cat.Agents[ai].Status.AllowPrivate = rng.IntN(3) == 0
		}
		if round%7 == 0 {
			cat.Agents[rng.IntN(len(cat.Agents))].Card = nil
		}
		for ai := range cat.Agents { // some agents enforce skill grants
			if cd := cat.Agents[ai].Card; cd != nil && rng.IntN(2) == 0 {
				cd.Extensions = []card.Extension{{URI: routing.URI}}
			}
		}
		p := NewPlan(cat)
		g := randomGrants(t, rng, cat)
		for range 5 {
			req := randomRequirement(rng)
			req.CallerID = pick(rng, someCallers)
			var opts []Option
			if rng.IntN(4) == 0 {
				opts = append(opts, WithPrivateEndpoints(true))
			}
			if rng.IntN(3) > 0 {
				opts = append(opts, WithGrants(g))
			}
			got, want := p.Keep(&req, opts...), Keep(&req, cat, opts...)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d %+v: plan kept %d %v, Keep %d %v", round, req, got.Kept, got.Keep, want.Kept, want.Keep)
			}
			p.Explain(&got, &req, opts...)
			want.Explain(&req, cat, opts...)
			if !reflect.DeepEqual(got.Rejections, want.Rejections) {
				t.Fatalf("round %d %+v: plan explains %+v, Explain %+v", round, req, got.Rejections, want.Rejections)
			}
		}
	}
}

// Across the cores too (a catalog large enough to be split), and with the
// options that make it check the catalog itself.
func TestPlanKeepEqualsKeepLarge(t *testing.T) {
	cat := benchCatalog()
	for ai := range cat.Agents { // half enforce skill grants
		if ai%2 == 0 {
			cat.Agents[ai].Card.Extensions = []card.Extension{{URI: routing.URI}}
		}
	}
	p := NewPlan(cat)
	for _, tc := range []struct {
		name string
		req  extract.Requirement
		opts []Option
	}{
		{"none", extract.Requirement{}, nil},
		{"all rules", extract.Requirement{InputTypes: []string{pdf}, OutputTypes: []string{js}, DataClass: catalog.Internal, Scopes: []string{"finance.read"}}, nil},
		{"streaming, no scopes", extract.Requirement{InputTypes: []string{pdf, csv}, OutputTypes: []string{csv}, Streaming: true, DataClass: catalog.Confidential, Scopes: []string{}}, nil},
		{"audio, which few accept", extract.Requirement{InputTypes: []string{"audio/mpeg"}}, nil},
		{"strict", extract.Requirement{InputTypes: []string{pdf}, Scopes: []string{"finance.read"}}, []Option{WithStrict(true)}},
		{"private endpoints", extract.Requirement{OutputTypes: []string{txt}}, []Option{WithPrivateEndpoints(true)}},
		{"grants", extract.Requirement{CallerID: "alice", OutputTypes: []string{txt}}, []Option{WithGrants(largeGrants(t, cat))}},
		{"grants, group member", extract.Requirement{CallerID: "bob", InputTypes: []string{pdf}}, []Option{WithGrants(largeGrants(t, cat))}},
		{"grants, no caller", extract.Requirement{}, []Option{WithGrants(largeGrants(t, cat))}},
	} {
		got, want := p.Keep(&tc.req, tc.opts...), Keep(&tc.req, cat, tc.opts...)
		p.Explain(&got, &tc.req, tc.opts...)
		want.Explain(&tc.req, cat, tc.opts...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan kept %d, rejected %d; Keep %d, %d (or the flags or reasons differ)",
				tc.name, got.Kept, len(got.Rejections), want.Kept, len(want.Rejections))
		}
	}
}

// A card replaced or given more skills after the plan was built is still
// filtered on what it says now.
func TestPlanStaleCatalog(t *testing.T) {
	req := extract.Requirement{InputTypes: []string{pdf}}
	for _, tc := range []struct {
		name   string
		change func(*catalog.Catalog)
		kept   int
	}{
		{"unchanged", func(*catalog.Catalog) {}, 0},
		{"card replaced", func(c *catalog.Catalog) {
			c.Agents[0].Card = &card.Card{ID: "a", Skills: []card.Skill{{ID: "s", InputModes: []string{pdf}}}}
		}, 1},
		{"skill added", func(c *catalog.Catalog) {
			c.Agents[0].Card.Skills = append(c.Agents[0].Card.Skills, card.Skill{ID: "t", InputModes: []string{pdf}})
		}, 1},
		{"agent added", func(c *catalog.Catalog) {
			c.Agents = append(c.Agents, catalog.Agent{Card: &card.Card{ID: "b", Skills: []card.Skill{{ID: "s"}}}})
		}, 1},
	} {
		cat := catalog.New(catalog.Agent{Card: &card.Card{ID: "a", DefaultInputModes: []string{txt},
			Skills: []card.Skill{{ID: "s"}}}, Status: catalog.DefaultStatus})
		p := NewPlan(cat)
		tc.change(cat)
		got, want := p.Keep(&req), Keep(&req, cat)
		p.Explain(&got, &req)
		want.Explain(&req, cat)
		if got.Kept != tc.kept || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan kept %d, want %d, and the reasons Explain gives", tc.name, got.Kept, tc.kept)
		}
	}
}

// Mode and security lists are told apart by content, whatever bytes a
// card puts in them: a list must not pass for another that the task fits.
func TestPlanKeysAreExact(t *testing.T) {
	for _, tc := range []struct {
		name         string
		fits, forged card.Skill
		req          extract.Requirement
	}{
		{"modes", card.Skill{ID: "s", InputModes: []string{pdf, txt, png}},
			card.Skill{ID: "s", InputModes: []string{pdf, txt + "\x00" + png}}, extract.Requirement{InputTypes: []string{png}}},
		{"scopes", card.Skill{ID: "s", HasSecurity: true, Security: []card.Requirement{{"oauth": {"a", "b"}}}},
			card.Skill{ID: "s", HasSecurity: true, Security: []card.Requirement{{"oauth": {"a\x00b"}}}}, extract.Requirement{Scopes: []string{"a", "b"}}},
		{"schemes", card.Skill{ID: "s", HasSecurity: true, Security: []card.Requirement{{"oauth": {"a"}}, {"key": nil}}},
			card.Skill{ID: "s", HasSecurity: true, Security: []card.Requirement{{"oauth": {"a"}, "key": nil}}}, extract.Requirement{Scopes: []string{}}},
	} {
		cat := catalog.New(
			catalog.Agent{Card: &card.Card{ID: "fits", Skills: []card.Skill{tc.fits}}, Status: catalog.DefaultStatus},
			catalog.Agent{Card: &card.Card{ID: "forged", Skills: []card.Skill{tc.forged}}, Status: catalog.DefaultStatus})
		got := NewPlan(cat).Keep(&tc.req)
		if want := Keep(&tc.req, cat); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got.Keep, []bool{true, false}) {
			t.Errorf("%s: plan keeps %v, Keep %v; want the fitting skill alone", tc.name, got.Keep, want.Keep)
		}
	}
}

var someCallers = []string{"", "alice", "bob", "carol", "mallory"}

// randomGrants grants alice, bob and the group of bob and carol whole
// agents and single skills (some of which do not exist) of cat at random.
func randomGrants(t *testing.T, rng *rand.Rand, cat *catalog.Catalog) *grants.Grants {
	t.Helper()
	f := grants.File{Groups: map[string][]string{"team": {"bob", "carol"}}}
	for range 1 + rng.IntN(3*len(cat.Agents)) {
		gr := grants.Grant{Agent: fmt.Sprintf("agent-%d", rng.IntN(len(cat.Agents)+2))}
		switch rng.IntN(3) {
		case 0:
			gr.Caller = "alice"
		case 1:
			gr.Caller = "bob"
		default:
			gr.Group = "team"
		}
		if rng.IntN(3) > 0 {
			gr.Skill = fmt.Sprintf("skill-%d", rng.IntN(10))
		}
		f.Grants = append(f.Grants, gr)
	}
	g, err := grants.New(f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// largeGrants gives alice every third agent of the bench catalog whole and
// a skill of every fifth, and bob's group a skill of every seventh.
func largeGrants(t *testing.T, cat *catalog.Catalog) *grants.Grants {
	t.Helper()
	f := grants.File{Groups: map[string][]string{"team": {"bob"}}}
	for ai, a := range cat.Agents {
		if a.Card == nil || len(a.Card.Skills) == 0 {
			continue
		}
		s := a.Card.Skills[ai%len(a.Card.Skills)].ID
		switch {
		case ai%3 == 0:
			f.Grants = append(f.Grants, grants.Grant{Caller: "alice", Agent: a.Card.ID})
		case ai%5 == 0:
			f.Grants = append(f.Grants, grants.Grant{Caller: "alice", Agent: a.Card.ID, Skill: s})
		case ai%7 == 0:
			f.Grants = append(f.Grants, grants.Grant{Group: "team", Agent: a.Card.ID, Skill: s})
		}
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := grants.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
