package filter

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// A plan's Keep says what Keep says, flag for flag, over random catalogs
// (modes that are nil, empty, wildcards, not media types, with
// parameters; security lists open, empty, alternative) and requirements.
func TestPlanKeepEqualsKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		cat := randomCatalog(rng, 20, 8)
		if round%7 == 0 {
			cat.Agents[rng.IntN(len(cat.Agents))].Card = nil
		}
		p := NewPlan(cat)
		for range 5 {
			req := randomRequirement(rng)
			if got, want := p.Keep(&req), Keep(&req, cat); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d %+v: plan kept %d %v, Keep %d %v", round, req, got.Kept, got.Keep, want.Kept, want.Keep)
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
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan kept %d, Keep %d (or the flags differ)", tc.name, got.Kept, want.Kept)
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
		if got := p.Keep(&req); got.Kept != tc.kept || !reflect.DeepEqual(got, Keep(&req, cat)) {
			t.Errorf("%s: plan kept %d, want %d as Keep does", tc.name, got.Kept, tc.kept)
		}
	}
}
