package match

import (
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/lexicon"
)

func TestIsForm(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"rent", "rental", true},
		{"rental", "rent", true}, // either order
		{"fli", "flight", true},
		{"direct", "director", true},
		{"act", "activ", true},
		{"decid", "decis", true}, // all but the last letter
		{"sell", "sale", false},
		{"rent", "leas", false},
		{"ab", "abc", false}, // under three letters shared
		{"applic", "appoint", false},
		{"park", "parcel", false},   // WordNet relates them; one letter short of a four-letter stem is another word
		{"cab", "cabriolet", false}, // a kind of cab, not its form: more than a suffix added
		{"bar", "barricad", false},
	}
	for _, tt := range tests {
		if got := isForm(tt.a, tt.b); got != tt.want {
			t.Errorf("isForm(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// formDocs is a description-only catalog where a movie service holds
// "rent" and two car services "rental", with one card that has examples
// and one untrusted card.
func formDocs() []index.Doc {
	docs := []index.Doc{
		{AgentID: "films", AgentName: "Films", Name: "Rent Movie", Description: "Rent a movie to watch", Tags: []string{"rent"}},
		{AgentID: "cars", AgentName: "Cars", Name: "Find Cars", Description: "List rental cars free in a city"},
		{AgentID: "autos", AgentName: "Autos", Name: "Find Cars", Description: "Show which cars are free for rental in a city"},
		{AgentID: "flights", AgentName: "Flights", Name: "Search Flight", Description: "Search for flights to a destination"},
		// A skill with examples: its words widen nothing.
		{AgentID: "shows", AgentName: "Shows", Name: "Find Director", Description: "Films by their director", Examples: []string{"films by a director"}},
		// Untrusted: its words widen nothing.
		{AgentID: "spam", AgentName: "Spam", Name: "Everything", Description: "departure departures departing"},
	}
	index.AnalyzeAll(docs, 1)
	return docs
}

// The relation is listed one way only, as in WordNet's table: "rental"
// lists "rent", "rent" does not list "rental"; "fly" lists "flight";
// "depart" lists "departur"; "direct" lists "director"; "rent" lists
// "leas" (a synonym, not a form).
var formLex = relatives{
	"rental": {"leas", "rent"},
	"rent":   {"leas", "renter"},
	"fly":    {"flight", "pilot"},
	"direct": {"director"},
	"depart": {"departur"},
}

func TestWiden(t *testing.T) {
	docs := formDocs()
	skip := func(d int) bool { return docs[d].AgentID == "spam" }
	loaded := false
	cf := newCardForms(func() rerank.Lexicon { loaded = true; return formLex },
		func(i int) *index.Doc { return &docs[i] }, len(docs), skip)
	if !loaded || cf == nil {
		t.Fatal("a catalog with description-only skills has no forms")
	}
	tests := []struct {
		text string
		want []string // the added terms, in order
	}{
		// "rent" (one skill) is widened to "rental" (two), read from the
		// card word's side.
		{"we want to rent a car", []string{"rental"}},
		// "rental" (two skills) is not widened to "rent" (one): an added
		// form never weighs more than the caller's own word.
		{"we need a rental car", nil},
		{"I want to fly to Boston", []string{"flight"}},
		// A form that only a skill with examples ("director") or an
		// untrusted one ("departure") holds adds nothing.
		{"who will direct the film", nil},
		{"when do we depart", nil},
		// A synonym is not a form.
		{"lease a car", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			terms := analyze.Terms(tt.text)
			before := slices.Clone(terms)
			got := cf.widen(terms, tt.text)
			if !slices.Equal(terms, before) {
				t.Fatalf("widen changed the caller's terms: %v → %v", before, terms)
			}
			if !slices.Equal(got[:len(terms)], terms) {
				t.Fatalf("widen = %v, want %v first", got, terms)
			}
			if added := got[len(terms):]; !slices.Equal(added, tt.want) && len(added)+len(tt.want) > 0 {
				t.Errorf("added %v, want %v", added, tt.want)
			}
		})
	}
}

// A catalog whose every skill has examples (or is untrusted) has no
// forms, and does not load the lexicon.
func TestWidenNeedsDescriptionOnlySkills(t *testing.T) {
	docs := formDocs()[4:]
	skip := func(d int) bool { return docs[d].AgentID == "spam" }
	cf := newCardForms(func() rerank.Lexicon { t.Fatal("lexicon loaded"); return nil },
		func(i int) *index.Doc { return &docs[i] }, len(docs), skip)
	if cf != nil {
		t.Fatalf("forms %+v for a catalog with no description-only skill", cf)
	}
	terms := analyze.Terms("rent a car")
	if got := cf.widen(terms, "rent a car"); !slices.Equal(got, terms) {
		t.Errorf("nil forms widened %v to %v", terms, got)
	}
}

// BenchmarkWiden is the cost a request pays for word forms on a
// description-only catalog, with the shipped WordNet table.
func BenchmarkWiden(b *testing.B) {
	docs := formDocs()
	cf := newCardForms(func() rerank.Lexicon { return lexicon.WordNet() },
		func(i int) *index.Doc { return &docs[i] }, len(docs), func(int) bool { return false })
	text := "Hi, we'd like to rent a small car in Denver for the 14th, picking it up at ten"
	terms := analyze.Terms(text)
	b.ReportAllocs()
	for b.Loop() {
		cf.widen(terms, text)
	}
}
