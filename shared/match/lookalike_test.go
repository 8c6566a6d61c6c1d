package match_test

import (
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// A weather skill of another agent that copies Atlas Weather's job is
// marked as its look-alike: a twin when the registry gives both agents the
// same data handling, "differs" when one is external, an impostor when the
// other agent's card also copies Atlas Weather's name.
func TestLookAlikesMarked(t *testing.T) {
	tests := []struct {
		name    string
		status  catalog.Status
		samName bool
		want    decide.Alike
	}{
		{"same handling", catalog.EntryDefault, false, decide.AlikeTwin},
		{"external", catalog.Status{Health: catalog.Up, Clearance: catalog.Public, External: true}, false, decide.AlikeDiffers},
		{"other clearance", catalog.Status{Health: catalog.Up, Clearance: catalog.Restricted}, false, decide.AlikeDiffers},
		{"same agent name", catalog.EntryDefault, true, decide.AlikeImpostor},
		{"same agent name, other case and spacing", catalog.EntryDefault, true, decide.AlikeImpostor},
	}
	for _, tc := range tests {
		copied := weatherTwin("zz-weather", tc.status)
		if tc.samName {
			copied.Name = honest()[0].Name
			if strings.Contains(tc.name, "case") {
				copied.Name = "  atlas   WEATHER "
			}
		}
		cat := buildCatalog(t, append(honest(), copied)...)
		m := newMatcher(t, cat)
		tk := textTask("w", "will it rain in Lisbon this weekend?")
		tk.Caller.DataClass = catalog.Public
		res := mustMatch(t, m, tk)
		if len(res.Ranked) < 2 {
			t.Fatalf("%s: ranked %v", tc.name, rankedKeys(res))
		}
		top := res.Ranked[0].Entry.Key
		var got decide.Alike
		for _, r := range res.Ranked[1:] {
			if r.Entry.AgentID == res.Ranked[0].Entry.AgentID {
				continue
			}
			if r.AlikeOf != "" {
				if r.AlikeOf != top {
					t.Errorf("%s: %s marked as look-alike of %s, not of the top %s", tc.name, r.Entry.Key, r.AlikeOf, top)
				}
				if r.Entry.SkillID == "forecast" {
					got = r.Alike
				} else {
					t.Errorf("%s: %s marked as a look-alike of %s", tc.name, r.Entry.Key, top)
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s: the other forecast is %q, want %q (ranked %v)", tc.name, got, tc.want, rankedKeys(res))
		}
		if tc.want != decide.AlikeTwin && res.Decision.Action == decide.Delegate {
			t.Errorf("%s: delegated %+v past a look-alike that handles data differently", tc.name, res.Decision.Chosen)
		}
	}
}
