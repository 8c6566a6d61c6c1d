package match_test

import (
	"testing"
)

// travelDesk is an invented catalog written like a dialogue system's
// services: several agents that each find and then book or buy in their
// own domain, cards with no examples.
func travelDesk() []agentSpec {
	return []agentSpec{
		{ID: "stay", Name: "Stay Hotels", Desc: "Hotel rooms to look up and to book.",
			Skills: []skillSpec{
				{ID: "search-hotel", Name: "Search Hotel", Desc: "Look up hotels in a chosen place", Tags: []string{"destination", "search"}},
				{ID: "reserve-hotel", Name: "Reserve Hotel", Desc: "Reserve rooms at the chosen hotel for some dates", Tags: []string{"hotel name", "check in date", "number of days"}}}},
		{ID: "dine", Name: "Dine Out", Desc: "Restaurant search and reservations.",
			Skills: []skillSpec{
				{ID: "find-restaurants", Name: "Find Restaurants", Desc: "Find restaurants in a city that serve a chosen cuisine", Tags: []string{"city", "cuisine"}},
				{ID: "reserve-restaurant", Name: "Reserve Restaurant", Desc: "Make a reservation for a table at the chosen restaurant", Tags: []string{"restaurant name", "time", "party size"}}}},
		{ID: "tunes", Name: "Tunes", Desc: "Music to find and play.",
			Skills: []skillSpec{
				{ID: "lookup-song", Name: "Lookup Song", Desc: "Search for a song by artist or album", Tags: []string{"artist", "album"}},
				{ID: "play-song", Name: "Play Song", Desc: "Play the selected song on a device", Tags: []string{"song name", "device"}}}},
		{ID: "shows", Name: "Shows", Desc: "Concerts, games and other events.",
			Skills: []skillSpec{
				{ID: "find-events", Name: "Find Events", Desc: "Find events such as concerts and games in a city", Tags: []string{"category", "city"}},
				{ID: "buy-event-tickets", Name: "Buy Event Tickets", Desc: "Buy seats for a chosen event", Tags: []string{"event name", "number of tickets", "date"}}}},
		{ID: "cinema", Name: "Cinema", Desc: "Movies in theatres near you.",
			Skills: []skillSpec{
				{ID: "find-movies", Name: "Find Movies", Desc: "Find movies playing at a theatre by genre", Tags: []string{"location", "genre"}},
				{ID: "buy-movie-tickets", Name: "Buy Movie Tickets", Desc: "Buy tickets to a chosen showing of a film", Tags: []string{"movie name", "number of tickets", "show time"}}}},
	}
}

// A follow-up that names no domain ("yes, make a reservation") goes to the
// domain its conversation is about, through the whole matcher with the
// built-in model; a turn that names its own new domain is not pulled back
// to the earlier one.
func TestFollowUpCarriesTopic(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, travelDesk()...))
	tests := []struct {
		name    string
		text    string
		history []string
		want    string
	}{
		// Each follow-up below goes to another domain's skill when the
		// earlier turns are not read (checked when the rule was written).
		{"reserve after a restaurant search", "Great, let's reserve that one.",
			[]string{"Find me a sushi restaurant in Tokyo."}, "dine/reserve-restaurant"},
		{"book after a restaurant search", "Please make a booking for Friday.",
			[]string{"Find me a sushi restaurant in Tokyo.", "Is it expensive?"}, "dine/reserve-restaurant"},
		{"tickets after an event search", "Sounds fun, I'll buy some tickets then.",
			[]string{"Are there any events in Chicago this weekend?"}, "shows/buy-event-tickets"},
		{"book after a movie search", "Please make a booking for Friday.",
			[]string{"What movies are on in Boston tonight?", "Anything else?"}, "cinema/buy-movie-tickets"},
		// A turn that names its own domain is not pulled back.
		{"songs named after a hotel", "Now I want to find songs by Adele.",
			[]string{"I'm after a hotel room in Paris.", "Is there wifi in the rooms?"}, "tunes/lookup-song"},
		{"a restaurant named after movies", "Now find me a sushi restaurant nearby.",
			[]string{"What movies are on in Boston tonight?"}, "dine/find-restaurants"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBest(t, mustMatch(t, m, withHistory(textTask("f", tt.text), tt.history...)), tt.want)
		})
	}
}

// estateServices is an invented catalog of a landlord's services, written
// as such teams write their cards: each skill in its own trade's words.
func estateServices() []agentSpec {
	return []agentSpec{
		{ID: "gas", Name: "Gas Team", Desc: "Gas safety and heating for every tenanted home.",
			Skills: []skillSpec{
				{ID: "safety-check", Name: "Annual gas safety check", Desc: "Book the yearly landlord gas safety inspection and certificate for a property", Tags: []string{"CP12", "landlord certificate"}},
				{ID: "breakdown", Name: "Heating breakdown", Desc: "Send an engineer when the boiler, radiators or hot water stop working", Tags: []string{"boiler", "no heat"}}}},
		{ID: "lettings", Name: "Lettings", Desc: "Empty homes and new tenancies.",
			Skills: []skillSpec{
				{ID: "viewing", Name: "Property viewing", Desc: "Show an empty home to the next applicant on the list (keys at the office next door)", Tags: []string{"viewing", "applicant"}},
				{ID: "sign-up", Name: "Tenancy sign-up", Desc: "Sign a new tenancy agreement with the incoming tenant", Tags: []string{"tenancy", "keys"}}}},
		{ID: "adapt", Name: "Adaptations", Desc: "Changes to homes for residents with mobility needs.",
			Skills: []skillSpec{
				{ID: "minor", Name: "Minor adaptations", Desc: "Fit grab rails, handrails, lever taps and key safes", Tags: []string{"grab rail", "handrail"}},
				{ID: "major", Name: "Major adaptations", Desc: "Level-access showers, stairlifts and ramps after an OT assessment", Tags: []string{"stairlift", "ramp"}}}},
		{ID: "people", Name: "People Team", Desc: "Staff matters.",
			Skills: []skillSpec{
				{ID: "leave", Name: "Holiday request", Desc: "Book days of annual leave for a member of staff", Tags: []string{"annual leave", "days off"}},
				{ID: "sickness", Name: "Sickness absence", Desc: "Record a member of staff off sick and their fit note", Tags: []string{"sick", "fit note"}}}},
		{ID: "grounds", Name: "Grounds", Desc: "Communal gardens and outside spaces.",
			Skills: []skillSpec{
				{ID: "grass", Name: "Grass cutting", Desc: "Cut the grass and hedges in communal gardens", Tags: []string{"mowing", "hedges"}},
				{ID: "fences", Name: "Fence repair", Desc: "Mend or replace a broken fence or gate", Tags: []string{"fence", "gate"}}}},
	}
}

// A follow-up that adds to the turn before it ("same for number 7 next
// door", "and another by the back door while they're there") is about
// that turn's job: read alone, its words ("next door", "door") point at
// other skills. A continuing turn that names another job goes to it.
func TestFollowUpContinuesTheTurnBefore(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, estateServices()...))
	tests := []struct {
		name    string
		text    string
		history []string
		want    string
	}{
		{"the same for next door", "Same for number 7 next door please, theirs runs out the week after",
			[]string{"Please book the yearly gas check at 5 Elm Road, the certificate expires on 2 May"}, "gas/safety-check"},
		{"another while they're there", "and another one by the back door step while they're there",
			[]string{"Can Mr Patel at 12 Ash Close have a grab rail put up beside his bath?"}, "adapt/minor"},
		{"make it longer", "actually, can you make it the whole of that week instead?",
			[]string{"I'd like the 3rd and 4th of June off please"}, "people/leave"},
		// A continuing turn naming another job is not pulled back.
		{"another job named", "and the grass at the front needs cutting and the hedges trimming",
			[]string{"Please book the yearly gas check at 5 Elm Road, the certificate expires on 2 May"}, "grounds/grass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBest(t, mustMatch(t, m, withHistory(textTask("c", tt.text), tt.history...)), tt.want)
		})
	}
}
