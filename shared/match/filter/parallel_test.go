package filter

import (
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// On a catalog large enough to be split across goroutines, Keep and
// Explain give what one pass over the agents in order gives.
func TestParallelEqualsOnePass(t *testing.T) {
	cat := benchCatalog()
	n := 0
	for _, a := range cat.Agents {
		n += len(a.Card.Skills)
	}
	if n < parallelMinSkills {
		t.Fatalf("%d skills: too few to split", n)
	}
	cat.Agents[3].Card = nil // an agent without a card has no skills
	for _, req := range []extract.Requirement{
		{},
		{InputTypes: []string{pdf}, OutputTypes: []string{js}, DataClass: catalog.Internal, Scopes: []string{"finance.read"}},
		{InputTypes: []string{pdf, csv}, OutputTypes: []string{csv}, Streaming: true, DataClass: catalog.Confidential, Scopes: []string{}},
	} {
		got := Keep(&req, cat)
		got.Explain(&req, cat)

		want := Result{Keep: make([]bool, len(got.Keep)), Demoted: make([]bool, len(got.Keep))}
		want.Kept = keepRange(&req, cat.Agents, collect(nil), want.Keep, want.Demoted)
		want.Rejections = make([]Rejection, len(want.Keep)-want.Kept)
		explainRange(&req, cat.Agents, want.Keep, collect(nil), want.Rejections)
		if len(want.Rejections) == 0 {
			want.Rejections = got.Rejections // Explain leaves nil when nothing was removed
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: kept %d, rejected %d; one pass kept %d, rejected %d (or the flags or reasons differ)",
				req, got.Kept, len(got.Rejections), want.Kept, len(want.Rejections))
		}
		if got.Kept == 0 || got.Kept == len(got.Keep) && req.InputTypes != nil {
			t.Errorf("%+v: kept %d of %d: the case tests nothing", req, got.Kept, len(got.Keep))
		}
	}
}
