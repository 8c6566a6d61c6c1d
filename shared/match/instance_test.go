package match_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// TestInstanceNotNamedIsNotChosen: a vendor listing one job once per venue
// ("Room hire - <venue>", one template filled in, tagged alike or each
// with its venue too) has not been chosen by a request that names no
// venue, however well its example reads; one that names the venue chooses
// it. Skills tagged alike whose descriptions are their own are no such
// list.
func TestInstanceNotNamedIsNotChosen(t *testing.T) {
	hall := func(id, venue, example string) skillSpec {
		return skillSpec{ID: id, Name: "Room hire - " + venue,
			Desc:     "Book the main hall at " + venue + " by the hour for groups, classes, meetings and parties.",
			Tags:     []string{"room hire", "hall booking", "community room"},
			Examples: []string{example}}
	}
	flood := agentSpec{ID: "hallhop", Name: "HallHop", Desc: "Halls for hire across the valley.",
		Skills: []skillSpec{
			hall("pennock", "St Pennock's Scout Hut", "book the hall for a toddler group on Tuesday mornings"),
			hall("hallowby", "Hallowby Institute", "book the hall for a residents' meeting"),
			hall("wendlow", "Wendlow Riverside Centre", "book the hall for a weekly exercise class"),
		}}
	// The same list with each hall tagged with its venue as well, as a
	// sixteenth set's MOT bookings were ("MOT", "online booking",
	// "Castlebridge").
	tagged := flood
	tagged.Skills = nil
	for _, sk := range flood.Skills {
		sk.Tags = append(slices.Clone(sk.Tags), strings.TrimPrefix(sk.Name, "Room hire - "))
		tagged.Skills = append(tagged.Skills, sk)
	}
	// Or tagged with its name over again, each tag a part of it, as an
	// eighteenth set's pallet bookings were ("pallet booking", "Pennock
	// Trade Park").
	named := flood
	named.Skills = nil
	for _, sk := range flood.Skills {
		sk.Tags = []string{"room hire", strings.TrimPrefix(sk.Name, "Room hire - ")}
		named.Skills = append(named.Skills, sk)
	}
	rooms := agentSpec{ID: "community", Name: "Community Rooms", Desc: "The landlord's own community rooms.",
		Skills: []skillSpec{{ID: "room-hire", Name: "Community room bookings",
			Desc: "Book one of our community rooms for a resident group, a one-off event or a regular class.",
			Tags: []string{"community room", "room hire", "resident groups"}}}}
	for _, tc := range []struct {
		name, need string
		delegated  string // "" when nothing is to be delegated to a hall
	}{
		{"no venue named", "our toddler group needs a hall on Tuesday mornings", ""},
		// "St" is a word of St Pennock's, too short to choose it.
		{"a short word of a venue named", "St Brendan's toddler group wants room hire on Tuesday mornings", ""},
		{"the venue named", "hire a room at Wendlow Riverside Centre for our weekly exercise class", "hallhop/wendlow"},
		// The place is named, the list's job is not: the hall was chosen
		// by the place alone.
		{"the venue named, not the job", "where can I get my dog's stitches out near Wendlow Riverside Centre", ""},
	} {
		for _, list := range []struct {
			name  string
			halls agentSpec
		}{{"tagged alike", flood}, {"tagged with their venues", tagged}, {"tagged with their names", named}} {
			t.Run(list.name+"/"+tc.name, func(t *testing.T) {
				m := newMatcher(t, buildCatalog(t, append(honest(), list.halls, rooms)...))
				res := mustMatch(t, m, textTask("h", tc.need))
				if !strings.HasPrefix(res.Ranked[0].Entry.Key, "hallhop/") {
					t.Fatalf("ranked %v, want a hall first; the test checks nothing", rankedKeys(res))
				}
				d := res.Decision
				chosen := ""
				if d.Chosen != nil {
					chosen = d.Chosen.Key
				}
				switch {
				case tc.delegated == "" && d.Action == decide.Delegate && strings.HasPrefix(chosen, "hallhop/"):
					t.Errorf("delegated to %s at %.2f (%s), want no hall chosen for the caller", chosen, d.Probability, d.Reason)
				case tc.delegated != "" && (d.Action != decide.Delegate || chosen != tc.delegated):
					t.Errorf("%s %s (%s), want %s delegated", d.Action, chosen, d.Reason, tc.delegated)
				}
			})
		}
	}
	// Tagged alike, described each in its own words: no template.
	own := agentSpec{ID: "hallhop", Name: "HallHop", Desc: "Halls for hire across the valley.",
		Skills: []skillSpec{
			{ID: "pennock", Name: "Room hire - Pennock Scout Hut", Desc: "A timber scout hut with a kitchen, good for toddler groups.", Tags: []string{"room hire", "hall booking"}},
			{ID: "hallowby", Name: "Room hire - Hallowby Institute", Desc: "The old miners' institute: a big stage, seats for 120.", Tags: []string{"room hire", "hall booking"}},
			{ID: "wendlow", Name: "Room hire - Wendlow Riverside Centre", Desc: "A modern centre by the river with a sprung floor for classes.", Tags: []string{"room hire", "hall booking"}},
		}}
	m := newMatcher(t, buildCatalog(t, append(honest(), own)...), match.WithPolicy(delegateAlways))
	res := mustMatch(t, m, textTask("o", "a timber scout hut with a kitchen for our toddler group"))
	if strings.Contains(res.Ranked[0].Reason, "names none of what sets it apart") {
		t.Errorf("%s read as an instance of a list: %s", res.Ranked[0].Entry.Key, res.Ranked[0].Reason)
	}
}
