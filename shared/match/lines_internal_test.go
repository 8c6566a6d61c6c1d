package match

import (
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

func TestLineKey(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Media 2", "media"},
		{"Banks 11", "banks"},
		{"Sheet Converter 4", "sheet converter"},
		{"RentalCars-2", "rentalcars"},
		{"TableScout", ""},       // not numbered: no line
		{"LabelKit for DPD", ""}, // one carrier's kit is no number
		{"2", ""},                // nothing but the number
		{"", ""},
		{"Web3 Wallet", ""}, // a number inside a word is no number
		{"Web3 Wallet 2", "web3 wallet"},
		{"Translator 2.0", "translator"},
		{"GPT-4 Translator", ""}, // a number inside a name is part of it
		{"Formula 1 Stats", ""},
		{"24/7 Support", ""},
		{"Claude 3.5 Sonnet", ""},
	}
	for _, tt := range tests {
		if got := lineKey(tt.name); got != tt.want {
			t.Errorf("lineKey(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestServiceLines(t *testing.T) {
	refsOf := func(agents ...string) []ref {
		var refs []ref
		for n, name := range agents {
			a := &catalog.Agent{Card: &card.Card{Name: name}}
			// Two skills an agent: a line numbers docs, not agents.
			refs = append(refs, ref{agent: a, agentN: int32(n)}, ref{agent: a, agentN: int32(n)})
		}
		return refs
	}
	tests := []struct {
		name   string
		agents []string
		want   []int32 // per agent; nil: no lines
	}{
		{"two lines", []string{"Media 1", "Media 2", "Movies 1", "Movies 2"}, []int32{0, 0, 1, 1}},
		{"lines and agents in none", []string{"Media 1", "TableScout", "Movies 1", "Media 2", "Movies 2", "Weather 1"},
			[]int32{0, -1, 1, 0, 1, 2}},
		{"a line of one", []string{"Media 1", "Media 2", "Movies 3"}, []int32{0, 0, 1}},
		{"every line of one", []string{"Media 1", "Movies 1", "Weather 1"}, []int32{0, 1, 2}},
		{"one line", []string{"Media 1", "TableScout", "Media 2"}, nil},
		{"not numbered", []string{"DineFinder", "TableScout", "Media", "Media"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serviceLines(refsOf(tt.agents...))
			var want []int32
			for _, l := range tt.want {
				want = append(want, l, l)
			}
			if !slices.Equal(got, want) {
				t.Errorf("lines %v, want %v", got, want)
			}
		})
	}
}

// Of two lines, one skill is one name, or one id under names that end in
// the same word: the thing the skill works on, not how it goes about it.
func TestOneSkill(t *testing.T) {
	doc := func(id, name string) *index.Doc { return analyzed(index.Doc{SkillID: id, Name: name}) }
	tests := []struct {
		a, b *index.Doc
		want bool
	}{
		{doc("findmovies", "Find Movies"), doc("findmovies", "Find Movies"), true},
		{doc("findmovies", "Get Movies"), doc("findmovies", "Find New Movies"), true},
		{doc("findmovies", "Search Movies"), doc("FindMovies", "Filter Movie"), true},
		{doc("book", "Book Flight"), doc("book", "Book Hotel"), false},
		{doc("search", "Search Flights"), doc("search", "Search Hotels"), false},
		{doc("findmovies", "Get Movies"), doc("findfilms", "Get Movies"), true}, // one name
		{doc("findmovies", "Get Movies"), doc("findfilms", "Search Movies"), false},
		{doc("", "Get Movies"), doc("", "Search Movies"), false},
		{doc("x", "The"), doc("x", "A"), false}, // names of stopwords end in nothing
		// An id of one word names no thing: other jobs.
		{doc("search", "Flight Search"), doc("search", "Hotel Search"), false},
		{doc("booking", "Flight Booking"), doc("booking", "Hotel Booking"), false},
		{doc("image", "Generate Image"), doc("image", "Edit Image"), false},
		{doc("translate", "Translate Text"), doc("translate", "Summarize Text"), false},
		{doc("find_movies", "Search Movies"), doc("find_movies", "Filter Movie"), true},
		{doc("searchflights", "Search Cheap Flights 24 7"), doc("searchflights", "Find Flights"), true}, // numbers end nothing
		{doc("search", "Search Cheap Flights 24 7"), doc("search", "Search Luxury Hotels 24 7"), false},
	}
	for _, tt := range tests {
		if got := oneSkill(tt.a, tt.b); got != tt.want {
			t.Errorf("oneSkill(%s %q, %s %q) = %v, want %v", tt.a.SkillID, tt.a.Name, tt.b.SkillID, tt.b.Name, got, tt.want)
		}
	}
}
