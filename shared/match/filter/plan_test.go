package filter

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
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
		p := NewPlan(cat)
		for range 5 {
			req := randomRequirement(rng)
			var opts []Option
			if rng.IntN(4) == 0 {
				opts = append(opts, WithPrivateEndpoints(true))
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
