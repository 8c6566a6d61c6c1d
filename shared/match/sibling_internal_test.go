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
