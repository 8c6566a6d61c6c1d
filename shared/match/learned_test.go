package match_test

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
)

// A learned example makes its skill the first candidate for wording the
// card never uses; without it another skill comes first.
func TestLearnedExamplesAreIndexed(t *testing.T) {
	cat := buildCatalog(t, honest()...)
	tk := textTask("t-learned", "glorbnax the quarterly zentrifax")
	learned := map[string][]string{
		"babel-desk/translate": {"glorbnax the quarterly zentrifax"},
		"nobody/none":          {"a skill that is not in the catalog is ignored"},
	}
	with := rankedKeys(mustMatch(t, newMatcher(t, cat, match.WithLearnedExamples(learned)), tk))
	if len(with) == 0 || with[0] != "babel-desk/translate" {
		t.Fatalf("with the learned example the ranking is %v, want babel-desk/translate first", with)
	}
	without := rankedKeys(mustMatch(t, newMatcher(t, cat), tk))
	if len(without) > 0 && without[0] == "babel-desk/translate" {
		t.Errorf("without the learned example translate still comes first (%v): the test shows nothing", without)
	}
}
