package match

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// examplesOf makes n examples of a pattern, one per item.
func examplesOf(pattern string, n int) []string {
	items := []string{"milk", "eggs", "bread", "rice", "apples", "tea", "soap", "butter", "jam", "flour", "salt", "honey"}
	out := make([]string, n)
	for i := range out {
		out[i] = pattern + " " + items[i%len(items)]
	}
	return out
}

// The classifier learns from trusted skills' examples only: an untrusted
// card's examples buy its words no weight, and the candidates' Class is
// the classifier's score for their own skill.
func TestExampleClassesTrustedOnly(t *testing.T) {
	docs := []index.Doc{
		{Key: "lists/add", Examples: examplesOf("add to my shopping list some", 12)},
		{Key: "spam/any", Examples: examplesOf("add to my shopping list some", 12)},
		{Key: "lists/read", Examples: examplesOf("what is on my shopping list, any", 12)},
		{Key: "plain/none"},
	}
	refs := []ref{{}, {distrust: "card claims any task (catch-all); not trusted. "}, {}, {}}
	m := &Matcher{classes: exampleClasses(refs, docs), refs: refs}
	if m.classes == nil {
		t.Fatal("no classifier for 12 examples a skill")
	}
	cands := []index.Candidate{{Doc: 1}, {Doc: 0}, {Doc: 2}, {Doc: 3}}
	m.fillClasses("add to my shopping list some grapes", cands)
	if cands[3].Class != 0 {
		t.Errorf("a skill without examples scored %v, want 0", cands[3].Class)
	}
	if cands[1].Class <= cands[2].Class {
		t.Errorf("add scored %v, read %v: want add above", cands[1].Class, cands[2].Class)
	}
	// The untrusted card copies the add skill's examples: it gets the
	// shortlist's lowest score, never above a skill counted against.
	if low := min(cands[1].Class, cands[2].Class, cands[3].Class); cands[0].Class != low {
		t.Errorf("untrusted skill scored %v, want the lowest, %v", cands[0].Class, low)
	}
}

// A catalog whose trusted skills give no examples gets no classifier.
func TestExampleClassesNeedExamples(t *testing.T) {
	tests := []struct {
		name string
		docs []index.Doc
		refs []ref
		want bool
	}{
		{"none", []index.Doc{{Key: "a/b"}}, []ref{{}}, false},
		{"one example", []index.Doc{{Examples: []string{"add milk"}}, {}}, []ref{{}, {}}, true},
		{"untrusted examples only", []index.Doc{{}, {Examples: examplesOf("read", 50)}},
			[]ref{{}, {distrust: "card text repeats its words (keyword spam); not trusted. "}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exampleClasses(tt.refs, tt.docs) != nil; got != tt.want {
				t.Errorf("classifier %v, want %v", got, tt.want)
			}
		})
	}
}
