package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// cardJSON is a small valid card with the given skill ids.
func cardJSON(name string, skills ...string) string {
	var s []string
	for _, id := range skills {
		s = append(s, `{"id": "`+id+`", "name": "Skill `+id+`", "description": "Does `+id+`."}`)
	}
	return `{"name": "` + name + `", "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [` + strings.Join(s, ", ") + `]}`
}

// writeTree writes files (path relative to the returned dir -> content).
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ids(c *Catalog) []string {
	var out []string
	for _, a := range c.Agents {
		out = append(out, a.Card.ID)
	}
	return out
}

func errStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestLoadDirLayouts(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		ids   []string
	}{
		{
			name: "cards folder",
			files: map[string]string{
				"cards/tide-tables.json":  cardJSON("Tide Tables", "high-tide"),
				"cards/atlas-maps.json":   cardJSON("Atlas Maps", "route", "geocode"),
				"cards/README.md":         "not a card",
				"cards/.draft.json":       "{broken",
				"cards/nested.json/x":     "a directory named like a card",
				"atlas-ignored.json":      cardJSON("Ignored", "x"), // beside cards/: not read
				"tasks.jsonl":             "{}",
				"cards/atlas-maps.json~":  "backup",
				"cards/atlas.maps-2.json": cardJSON("Atlas Maps 2", "route"),
			},
			ids: []string{"atlas-maps", "atlas.maps-2", "tide-tables"},
		},
		{
			name: "flat folder",
			files: map[string]string{
				"tide-tables.json": cardJSON("Tide Tables", "high-tide"),
				"atlas-maps.json":  cardJSON("Atlas Maps", "route"),
				"registry.json":    `{}`,
				"build.py":         "print()",
			},
			ids: []string{"atlas-maps", "tide-tables"},
		},
		{
			// File order and id order differ: "a-b.json" < "a.json" but
			// "a" < "a-b".
			name:  "sorted by id, not file name",
			files: map[string]string{"a-b.json": cardJSON("AB", "x"), "a.json": cardJSON("A", "x")},
			ids:   []string{"a", "a-b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, errs := LoadDir(writeTree(t, tt.files))
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if got := ids(c); !reflect.DeepEqual(got, tt.ids) {
				t.Errorf("ids %q, want %q", got, tt.ids)
			}
			for _, a := range c.Agents {
				if a.Status != DefaultStatus {
					t.Errorf("%s: status %+v", a.Card.ID, a.Status)
				}
			}
		})
	}
}

func TestLoadDirBadCards(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"cards/good.json":         cardJSON("Good", "a"),
		"cards/no-skill-id.json":  `{"name": "Bad", "skills": [{"id": "a", "name": "A"}, {"name": "B"}]}`,
		"cards/broken.json":       `{"name": "Broken",`,
		"cards/Upper Case.json":   cardJSON("Upper", "a"),
		"cards/dup-skills.json":   cardJSON("Dup", "a", "a"),
		"cards/zz-also-good.json": cardJSON("Also good", "b"),
	})
	c, errs := LoadDir(dir)
	if got, want := ids(c), []string{"good", "zz-also-good"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids %q, want %q", got, want)
	}
	cards := filepath.Join(dir, "cards")
	want := []string{
		filepath.Join(cards, "Upper Case.json") + `: invalid card "Upper Case": id: want 1-128 characters of [a-z0-9._-]`,
		filepath.Join(cards, "broken.json") + `: invalid card "broken": invalid JSON: unexpected end of JSON input`,
		filepath.Join(cards, "dup-skills.json") + `: invalid card "dup-skills": skills[1].id: "a" already used by skills[0]`,
		filepath.Join(cards, "no-skill-id.json") + `: invalid card "no-skill-id": skills[1].id: missing`,
	}
	if got := errStrings(errs); !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n%q\nwant\n%q", got, want)
	}
	for _, err := range errs {
		if !errors.Is(err, card.ErrInvalidCard) {
			t.Errorf("%v does not wrap card.ErrInvalidCard", err)
		}
	}
}

func TestLoadDirRegistry(t *testing.T) {
	cards := map[string]string{
		"cards/alpha.json": cardJSON("Alpha", "a"),
		"cards/beta.json":  cardJSON("Beta", "b"),
		"cards/gamma.json": cardJSON("Gamma", "c"),
	}
	tests := []struct {
		name     string
		registry string
		status   map[string]Status // agents expected, with status
		errs     []string          // substrings, one per error, in order
	}{
		{
			name:     "entries and defaults",
			registry: `{"alpha": {"health": "degraded", "clearance": "restricted", "external": true}, "beta": {"health": "down"}}`,
			status: map[string]Status{
				"alpha": {Health: Degraded, Clearance: Restricted, External: true},
				"beta":  {Health: Down, Clearance: Internal},
				"gamma": DefaultStatus,
			},
		},
		{
			// Listed means vetted: an empty entry is internal, not the
			// external default of an agent the registry does not know.
			name:     "empty entry is the entry default",
			registry: `{"alpha": {}}`,
			status:   map[string]Status{"alpha": EntryDefault, "beta": DefaultStatus, "gamma": DefaultStatus},
		},
		{
			name:     "unlisted agents are external and public",
			registry: `{"alpha": {"clearance": "confidential"}}`,
			status: map[string]Status{
				"alpha": {Health: Up, Clearance: Confidential},
				"beta":  {Health: Up, Clearance: Public, External: true},
				"gamma": {Health: Up, Clearance: Public, External: true},
			},
		},
		{
			name:     "allowPrivate",
			registry: `{"alpha": {"allowPrivate": true}, "beta": {"allowPrivate": false, "external": true}}`,
			status: map[string]Status{
				"alpha": {Health: Up, Clearance: Internal, AllowPrivate: true},
				"beta":  {Health: Up, Clearance: Internal, External: true},
				"gamma": DefaultStatus,
			},
		},
		{
			name:     "invalid entries drop their agent",
			registry: `{"alpha": {"health": "dwn"}, "beta": {"clearance": "secret"}, "gamma": {"clearence": "public"}}`,
			status:   map[string]Status{},
			errs: []string{
				`invalid registry: agent "alpha": health "dwn": want up, degraded or down; agent not loaded`,
				`invalid registry: agent "beta": clearance "secret": want public, internal, confidential or restricted; agent not loaded`,
				`invalid registry: agent "gamma": unknown field "clearence"; agent not loaded`,
			},
		},
		{
			name:     "wrong types",
			registry: `{"alpha": {"external": "yes"}, "beta": null, "gamma": ["up"], "delta": {"health": 1}, "epsilon": {"allowPrivate": "true"}}`,
			status:   map[string]Status{},
			errs: []string{
				`agent "alpha": external: want a boolean, got string; agent not loaded`,
				`agent "beta": want an object; agent not loaded`,
				`agent "gamma": want an object; agent not loaded`,
				`agent "delta": health: want a string, got number; agent not loaded`,
				`agent "epsilon": allowPrivate: want a boolean, got string; agent not loaded`,
			},
		},
		{
			name:     "entry without a card",
			registry: `{"alpah": {"health": "down"}, "Bad Id": {}}`,
			status:   map[string]Status{"alpha": DefaultStatus, "beta": DefaultStatus, "gamma": DefaultStatus},
			errs: []string{
				`invalid registry: agent "Bad Id": id: want [a-z0-9._-]; agent not loaded`,
				`invalid registry: agent "alpah" has no card; entry ignored`,
			},
		},
		{
			name:     "unreadable registry loads nothing",
			registry: `{"alpha": `,
			status:   map[string]Status{},
			errs:     []string{`registry.json: invalid registry: want a JSON object of agent entries`},
		},
		{
			name:     "registry not an object",
			registry: `[]`,
			status:   map[string]Status{},
			errs:     []string{`registry.json: invalid registry: want a JSON object of agent entries`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"registry.json": tt.registry}
			for k, v := range cards {
				files[k] = v
			}
			c, errs := LoadDir(writeTree(t, files))
			if c == nil {
				t.Fatal("nil catalog")
			}
			got := map[string]Status{}
			for _, a := range c.Agents {
				got[a.Card.ID] = a.Status
			}
			if !reflect.DeepEqual(got, tt.status) {
				t.Errorf("status %+v, want %+v", got, tt.status)
			}
			if len(errs) != len(tt.errs) {
				t.Fatalf("errors %q, want %d", errStrings(errs), len(tt.errs))
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tt.errs[i]) || !strings.Contains(err.Error(), "registry.json") {
					t.Errorf("error %d: %v, want it to contain %q", i, err, tt.errs[i])
				}
				if !errors.Is(err, ErrInvalidRegistry) {
					t.Errorf("%v does not wrap ErrInvalidRegistry", err)
				}
			}
		})
	}
}

func TestLoadDirMissing(t *testing.T) {
	c, errs := LoadDir(filepath.Join(t.TempDir(), "nope"))
	if c == nil || len(c.Agents) != 0 || len(errs) != 1 || !errors.Is(errs[0], os.ErrNotExist) {
		t.Errorf("got %v, %v", c, errs)
	}
	dir := writeTree(t, map[string]string{"cards": "a file, not a folder"})
	if c, errs := LoadDir(dir); len(c.Agents) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "not a directory") {
		t.Errorf("cards file: %v, %v", c, errs)
	}
}

func TestLoadDirOptions(t *testing.T) {
	dir := writeTree(t, map[string]string{"cards/alpha.json": cardJSON("Alpha", "a", "b", "c")})
	c, errs := LoadDir(dir, card.WithLimits(card.Limits{MaxSkills: 2}))
	if len(errs) > 0 || len(c.Skills()) != 2 {
		t.Errorf("got %d skills, %v", len(c.Skills()), errs)
	}
	c, errs = LoadDir(dir, card.WithLimits(card.Limits{MaxBytes: 10}))
	if len(errs) != 1 || !errors.Is(errs[0], card.ErrTooLarge) || len(c.Agents) != 0 {
		t.Errorf("size cap: %v", errs)
	}
}

func mustParse(t *testing.T, id string, skills ...string) *card.Card {
	t.Helper()
	c, err := card.Parse(id, []byte(cardJSON(strings.ToUpper(id), skills...)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalogLookups(t *testing.T) {
	zeta := Agent{Card: mustParse(t, "zeta", "z1"), Status: Status{Health: Down}}
	alpha := Agent{Card: mustParse(t, "alpha", "a2", "a1"), Status: DefaultStatus}
	mid := Agent{Card: mustParse(t, "mid", "m")}
	c := New(zeta, alpha, mid)

	if got, want := ids(c), []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ids %q", got)
	}
	a, ok := c.Agent("zeta")
	if !ok || a.Status.Health != Down || a != &c.Agents[2] {
		t.Errorf("Agent(zeta) = %+v, %v", a, ok)
	}
	if _, ok := c.Agent("nope"); ok {
		t.Error("found a missing agent")
	}

	var keys []string
	for _, r := range c.Skills() {
		keys = append(keys, r.Key())
	}
	if want := []string{"alpha/a2", "alpha/a1", "mid/m", "zeta/z1"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("skills %q, want %q", keys, want)
	}

	r, ok := c.Skill("alpha/a1")
	if !ok || r.Skill.Name != "Skill a1" || r.Agent.Card.ID != "alpha" {
		t.Errorf("Skill(alpha/a1) = %+v, %v", r, ok)
	}
	for _, key := range []string{"alpha", "alpha/", "alpha/zz", "nope/a1", "/a1", ""} {
		if _, ok := c.Skill(key); ok {
			t.Errorf("Skill(%q) found", key)
		}
	}

	// A catalog built by hand, without New, still answers lookups.
	hand := &Catalog{Agents: []Agent{alpha, zeta}}
	if a, ok := hand.Agent("zeta"); !ok || a.Card.ID != "zeta" {
		t.Error("hand-built catalog lookup failed")
	}
	var nilCat *Catalog
	if _, ok := nilCat.Agent("a"); ok || nilCat.Skills() != nil {
		t.Error("nil catalog")
	}
}

func TestNewPanics(t *testing.T) {
	tests := map[string][]Agent{
		"nil card":     {{}},
		"duplicate id": {{Card: mustParse(t, "a", "x")}, {Card: mustParse(t, "a", "y")}},
	}
	for name, agents := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			New(agents...)
		})
	}
}

// Cards the registry does not list are unvetted (external, public) in a
// product catalog, and vetted (EntryDefault) in a golden set's spec.
func TestLoadDirUnlisted(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"cards/tide-tables.json": cardJSON("Tide Tables", "high-tide"),
		"cards/atlas-maps.json":  cardJSON("Atlas Maps", "route"),
		"registry.json":          `{"atlas-maps": {"clearance": "confidential"}}`,
	})
	for _, tc := range []struct {
		name     string
		load     func() (*Catalog, []error)
		unlisted Status
	}{
		{"product", func() (*Catalog, []error) { return LoadDir(dir) }, DefaultStatus},
		{"golden", func() (*Catalog, []error) { return LoadDirUnlisted(dir, EntryDefault) }, EntryDefault},
	} {
		cat, errs := tc.load()
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		tide, _ := cat.Agent("tide-tables")
		atlas, _ := cat.Agent("atlas-maps")
		if tide.Status != tc.unlisted {
			t.Errorf("%s: unlisted agent %+v, want %+v", tc.name, tide.Status, tc.unlisted)
		}
		if atlas.Status.Clearance != Confidential || atlas.Status.External {
			t.Errorf("%s: listed agent %+v", tc.name, atlas.Status)
		}
	}
}
