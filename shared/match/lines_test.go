package match_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// filmDesk is two lines of numbered services that all find films: a
// streaming line and a cinema line, every card written apart. Renamed,
// the same four agents are four services of no line.
func filmDesk(names [4]string) []agentSpec {
	film := func(desc string) skillSpec {
		return skillSpec{ID: "find-films", Name: "Find Films", Desc: desc, Tags: []string{"genre", "find"}}
	}
	return []agentSpec{
		{ID: "stream-1", Name: names[0], Desc: "Films to stream at home.", Skills: []skillSpec{
			film("Look up films by genre or director"),
			{ID: "watch-film", Name: "Watch Film", Desc: "Start streaming a chosen film", Tags: []string{"title", "play"}}}},
		{ID: "stream-2", Name: names[1], Desc: "Rent films online at low prices.", Skills: []skillSpec{
			film("Search the rental library for films by genre, director or cast"),
			{ID: "rent-film", Name: "Rent Film", Desc: "Rent a chosen film for two days", Tags: []string{"title", "rent"}}}},
		{ID: "cinema-1", Name: names[2], Desc: "Showtimes and tickets at local cinemas.", Skills: []skillSpec{
			film("Find films showing near you by genre"),
			{ID: "buy-tickets", Name: "Buy Tickets", Desc: "Buy tickets for a screening", Tags: []string{"title", "seats"}},
			{ID: "watch-trailer", Name: "Watch Trailer", Desc: "Play the trailer of a film showing soon", Tags: []string{"title", "play"}}}},
		{ID: "cinema-2", Name: names[3], Desc: "Reviews and facts about every film ever made.", Skills: []skillSpec{
			film("Browse films by genre, director and cast")}},
	}
}

// One skill offered by two lines of a catalog's numbered services is a
// question, not a pick: which kind of service the request means only the
// caller can say. Without the numbers the same cards are twins, delegated
// with a fallback as before.
func TestLinesOfServicesAsk(t *testing.T) {
	const text = "find me a thriller directed by Christopher Nolan"
	t.Run("two lines", func(t *testing.T) {
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"})...)...))
		res := mustMatch(t, m, textTask("l", text))
		d := res.Decision
		if d.Action != decide.Clarify || len(d.Candidates) != 2 {
			t.Fatalf("decision %s (%s), want a question between two lines", d.Action, d.Reason)
		}
		a, b := d.Candidates[0], d.Candidates[1]
		if a.SkillID != "find-films" || b.SkillID != "find-films" || lineOf(a.AgentID) == lineOf(b.AgentID) {
			t.Errorf("asks between %s and %s, want one film search of each line", a.Key, b.Key)
		}
		if !strings.Contains(d.Reason, "different lines") {
			t.Errorf("reason %q does not say why", d.Reason)
		}
	})
	// A numbered name says its line even where the catalog holds one
	// service of it.
	t.Run("one service of each line", func(t *testing.T) {
		desk := filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"})
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), desk[1], desk[3])...))
		d := mustMatch(t, m, textTask("l", text)).Decision
		if d.Action != decide.Clarify || !strings.Contains(d.Reason, "different lines") {
			t.Errorf("decision %s (%s), want a question between the two lines", d.Action, d.Reason)
		}
	})
	// Each card may word the skill's name its own way: one id, and names
	// that end in the thing searched.
	t.Run("names worded apart", func(t *testing.T) {
		desk := filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"})
		for i, name := range map[int]string{0: "Look Up Films", 3: "Browse Films"} {
			desk[i].Skills = slices.Clone(desk[i].Skills)
			desk[i].Skills[0].Name = name
		}
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), desk[0], desk[3])...))
		d := mustMatch(t, m, textTask("l", text)).Decision
		if d.Action != decide.Clarify || !strings.Contains(d.Reason, "different lines") {
			t.Errorf("decision %s (%s), want a question between the two lines", d.Action, d.Reason)
		}
	})
	t.Run("no lines", func(t *testing.T) {
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), filmDesk([4]string{"StreamHouse", "RentAFilm", "CinemaNow", "FilmFacts"})...)...))
		res := mustMatch(t, m, textTask("l", text))
		for _, r := range res.Ranked {
			if r.Alike == decide.AlikeOtherLine {
				t.Errorf("%s marked as another line of %s in a catalog of none", r.Entry.Key, r.AlikeOf)
			}
		}
		if d := res.Decision; d.Action != decide.Delegate || d.Chosen.SkillID != "find-films" ||
			len(d.Fallbacks) == 0 || d.Fallbacks[0].SkillID != "find-films" {
			t.Errorf("decision %s (%s), want a film search delegated with another as fallback", d.Action, d.Reason)
		}
	})
	// One generic id under names that end alike is no skill of two
	// lines: a flight search and a hotel search, both "search".
	t.Run("one generic id", func(t *testing.T) {
		air := agentSpec{ID: "air-1", Name: "Air 1", Desc: "Cheap flights everywhere.", Skills: []skillSpec{
			{ID: "search", Name: "Flight Search", Desc: "Search flights between two cities on a date", Tags: []string{"origin", "destination", "date"}}}}
		stays := agentSpec{ID: "stays-1", Name: "Stays 1", Desc: "Rooms for every budget.", Skills: []skillSpec{
			{ID: "search", Name: "Hotel Search", Desc: "Search hotels in a city for given nights", Tags: []string{"city", "nights"}}}}
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), air, stays)...))
		res := mustMatch(t, m, textTask("l", "find me a flight from Boston to Denver on Friday"))
		if res.Ranked[0].Entry.Key != "air-1/search" {
			t.Fatalf("best match %s, want the flight search", res.Ranked[0].Entry.Key)
		}
		near := false
		for i, r := range res.Ranked {
			near = near || i < 5 && r.Entry.Key == "stays-1/search"
			if r.Alike == decide.AlikeOtherLine {
				t.Errorf("%s marked another line's %s", r.Entry.Key, r.AlikeOf)
			}
		}
		if !near {
			t.Fatal("the hotel search is not among the top five: the test checks nothing")
		}
	})
	// Only one skill offered by two lines is asked about: watching a film
	// and watching its trailer are tagged alike, but are not one skill.
	t.Run("another job of another line", func(t *testing.T) {
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"})...)...))
		res := mustMatch(t, m, textTask("l", "play the trailer of Dune"))
		if d := res.Decision; d.Action == decide.Clarify && strings.Contains(d.Reason, "different lines") {
			t.Errorf("asks %q (%s) about a job one line alone offers", d.Question, d.Reason)
		}
	})
}

func lineOf(agentID string) string { return strings.TrimRight(agentID, "-0123456789") }

// Two lines' film searches are still one skill: kin, which the listwise
// layer does not weigh as rivals (see the decider for which line).
func TestLinesAreKin(t *testing.T) {
	cs, kin := shortlistKin(t, filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"}), "find me a thriller directed by Christopher Nolan")
	pairs := 0
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if cs[i].Entry.SkillID != "find-films" || cs[j].Entry.SkillID != "find-films" || lineOf(cs[i].Entry.AgentID) == lineOf(cs[j].Entry.AgentID) {
				continue
			}
			pairs++
			if kin == nil || !slices.Contains(kin[i], j) {
				t.Errorf("%s and %s are not kin", cs[i].Entry.Key, cs[j].Entry.Key)
			}
		}
	}
	if pairs != 4 {
		t.Fatalf("%d pairs of film searches across lines shortlisted, want 4", pairs)
	}
}

// A card pasted under a numbered name of its own is a copy, asked about
// as one, not another line's service; and a service of another line that
// handles data differently is asked about for that.
func TestLinesKeepCopiesAndDataHandling(t *testing.T) {
	desk := filmDesk([4]string{"Stream 1", "Stream 2", "Cinema 1", "Cinema 2"})
	examples := []string{"any good sci-fi films by Denis Villeneuve", "horror films with Toni Collette"}
	desk[0].Skills = slices.Clone(desk[0].Skills)
	desk[0].Skills[0].Examples = examples
	paste := agentSpec{ID: "paste-1", Name: "Paste 1", Desc: "Films, fast.", Skills: []skillSpec{
		{ID: "find-films", Name: "Find Films", Desc: "Finds films by genre, director or cast for you", Tags: []string{"films"}, Examples: examples}}}
	other := agentSpec{ID: "paste-2", Name: "Paste 2", Desc: "Weather, fast.", Skills: []skillSpec{
		{ID: "forecast", Name: "Forecast", Desc: "Tomorrow's weather in a city", Tags: []string{"weather"}}}}
	t.Run("a copy", func(t *testing.T) {
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), append(desk, paste, other)...)...))
		res := mustMatch(t, m, textTask("l", examples[0]))
		pair := map[string]bool{"stream-1/find-films": true, "paste-1/find-films": true}
		if !pair[res.Ranked[0].Entry.Key] {
			t.Fatalf("best match %s, want the film search or its paste", res.Ranked[0].Entry.Key)
		}
		found := false
		for _, r := range res.Ranked[1:] {
			if pair[r.Entry.Key] && r.AlikeOf == res.Ranked[0].Entry.Key {
				found = true
				if r.Alike != decide.AlikeCopy {
					t.Errorf("%s marked %q beside %s, want a copy", r.Entry.Key, r.Alike, r.AlikeOf)
				}
			}
		}
		if !found {
			t.Fatal("the paste is not marked beside its original: the test checks nothing")
		}
	})
	t.Run("other data handling", func(t *testing.T) {
		external := slices.Clone(desk)
		external[3].Status = catalog.Status{External: true}
		m := newMatcher(t, buildCatalog(t, append(travelDesk(), external...)...))
		res := mustMatch(t, m, textTask("l", "find me a thriller directed by Christopher Nolan"))
		for _, r := range res.Ranked[1:] {
			if r.Entry.Key == "cinema-2/find-films" && r.AlikeOf != "" && r.Alike != decide.AlikeDiffers {
				t.Errorf("the external film search marked %q beside %s, want differs", r.Alike, r.AlikeOf)
			}
		}
		if d := res.Decision; d.Action != decide.Clarify {
			t.Errorf("decision %s (%s), want a question", d.Action, d.Reason)
		}
	})
}
