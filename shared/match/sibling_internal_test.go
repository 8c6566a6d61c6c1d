package match

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Only a skill of the same name whose description was written apart is a
// sibling: a pasted card is no evidence that two agents do one job.
func TestSibling(t *testing.T) {
	doc := func(name string, desc ...string) *index.Doc { return &index.Doc{Name: name, DescTerms: desc} }
	cars := doc("Get Cars Available", "avail", "car", "citi", "date", "rental", "search")
	tests := []struct {
		name string
		b    *index.Doc
		want bool
	}{
		{"same name, own wording", doc("get cars available ", "avail", "car", "citi", "date", "particular", "rental", "see"), true},
		{"same name, copied description", doc("Get Cars Available", "avail", "car", "citi", "date", "rental", "search"), false},
		{"same name, one word changed", doc("Get Cars Available", "avail", "car", "citi", "date", "rental", "search", "fast"), false},
		{"another name", doc("Rentals Available", "avail", "car", "citi", "date", "particular", "rental", "see"), false},
		{"no name", doc("", "avail"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := cars
			if tt.name == "no name" {
				a = doc("", "avail", "car")
			}
			if got := sibling(a, tt.b); got != tt.want {
				t.Errorf("sibling = %v, want %v", got, tt.want)
			}

		})
	}
}

// A pasted card shares its examples; twins write their own, and cards
// without examples are never judged copies.
func TestSharedExamples(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want bool
	}{
		{"the same examples", []string{"where is parcel 1Z99", "status of waybill 7781"}, []string{"Where is  parcel 1Z99", "status of waybill 7781"}, true},
		{"half of the shorter list", []string{"track my parcel", "where is it"}, []string{"track my parcel", "find my box", "eta please"}, true},
		{"their own examples", []string{"find a sushi place near the office"}, []string{"cheap pizza places open now"}, false},
		{"one of three", []string{"a", "b", "c"}, []string{"a", "x", "y"}, false},
		{"punctuation added to a paste", []string{"where is parcel 1Z99?", "Status of waybill 7781."}, []string{"where is parcel 1Z99", "status of waybill 7781"}, true},
		{"a repeated example counts once", []string{"hi", "hi", "hi", "x", "y"}, []string{"hi", "a", "b", "c", "d"}, false},
		{"a paste reworded by a word", []string{"book Mr Silva in with Dr Patel on Monday morning", "find a slot for a blood pressure check next week"},
			[]string{"book Mr Silva in with Dr Patel Monday morning", "find a slot for a blood pressure check next week please"}, true},
		{"twins' own examples alike in form", []string{"book a table for two tonight", "a quiet place for lunch"},
			[]string{"book a table for four tonight", "somewhere for dinner near work"}, false},
		{"no examples", nil, nil, false},
		{"one side without", []string{"a"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sharedExamples(tt.a, tt.b); got != tt.want {
				t.Errorf("sharedExamples = %v, want %v", got, tt.want)
			}
		})
	}
}

// One name may be written with or without articles and plural endings;
// another word, or a word missing, makes another name.
func TestSameName(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Find Restaurant", "find restaurant ", true},
		{"Find A Restaurant", "Find Restaurant", true},
		{"Find Routes", "Find Route", true},
		{"Search One Way Flight", "Search Oneway Flights", true}, // sgd-x1's cards
		{"Packshot cut-out", "Packshot cutout", true},
		{"Search Oneway Flight", "Search Way One Flight", false}, // the same letters in another order
		{"Pay Roll", "Payroll Report", false},
		{"Check Bank Balance", "Check Account Balance", false},
		{"Buy Event Ticket", "Buy Tickets", false},
		{"Translate", "Translate securely", false},
		{"", "", false},
		{"The", "A", false}, // no terms at all: no name to share
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			a, b := analyzed(index.Doc{Name: tt.a}), analyzed(index.Doc{Name: tt.b})
			if got := sameName(a, b); got != tt.want {
				t.Errorf("sameName(%q, %q) = %v, want %v (terms %q, %q)", tt.a, tt.b, got, tt.want, a.NameTerms, b.NameTerms)
			}
		})
	}
}

// Two agents list one skill when its id is the same and half its name
// terms or more are shared; a shared id under another name is not enough.
func TestSameSkill(t *testing.T) {
	doc := func(id, name string) *index.Doc { return analyzed(index.Doc{SkillID: id, Name: name}) }
	tests := []struct {
		a, b *index.Doc
		want bool
	}{
		{doc("checkbalance", "Check Bank Balance"), doc("checkbalance", "Check Account Balance"), true},
		{doc("buyeventtickets", "Buy Event Ticket"), doc("BuyEventTickets", "Buy Tickets"), true},
		{doc("search", "Search Flights"), doc("search", "Search Hotels"), false},
		{doc("getride", "Get A Ride"), doc("getride", "Book Ride"), false},
		{doc("checkbalance", "Check Bank Balance"), doc("balance", "Check Bank Balance"), false},
		{doc("", "Check Balance"), doc("", "Check Balance"), false},
	}
	for _, tt := range tests {
		if got := sameSkill(tt.a, tt.b); got != tt.want {
			t.Errorf("sameSkill(%s %q, %s %q) = %v, want %v", tt.a.SkillID, tt.a.Name, tt.b.SkillID, tt.b.Name, got, tt.want)
		}
	}
}
