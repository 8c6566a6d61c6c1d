package match

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
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

// classModel is the built-in model with the classifier's feature added
// (at weight 0), so a build trains the catalog's classifier.
func classModel() *model.Model {
	m := *builtinModel()
	w := m.Reranker
	w.Features = append(slices.Clone(w.Features), "class_z")
	w.Mean = append(slices.Clone(w.Mean), 0)
	w.Scale = append(slices.Clone(w.Scale), 1)
	w.W = append(slices.Clone(w.W), 0)
	m.Reranker = w
	return &m
}

// The catch-all check and the classifier both run beside the index
// build; the classifier must read the verdicts the check gives, not race
// it: a catch-all's examples buy its words no weight. (Under -race, as
// make test runs this package, the race itself fails the test.)
func TestClassifierWaitsForTheCatchAllCheck(t *testing.T) {
	var agents []catalog.Agent
	for _, s := range specialists {
		agents = append(agents, agentWith(s.id, card.Skill{ID: "job", Name: s.name, Description: s.name + " for you.",
			Examples: examplesOf(strings.ToLower(s.name)+" for", 4)}))
	}
	omni := card.Skill{ID: "all", Name: "Flights, hotels, weather, invoices and meetings", Description: "One stop.",
		Tags:     []string{"travel", "finance", "office", "assistant", "general", "anything"},
		Examples: examplesOf("book flights for", 12)}
	cat := catalog.New(append(agents, agentWith("omni", omni))...)
	for range 5 {
		m, err := New(cat, WithEmbedder(embed.Default()), WithModel(classModel()))
		if err != nil {
			t.Fatal(err)
		}
		if m.classes == nil {
			t.Fatal("no classifier")
		}
		all := slices.IndexFunc(m.refs, func(r ref) bool { return r.agent.Card.ID == "omni" })
		if m.refs[all].distrust == "" {
			t.Fatal("the catch-all is trusted")
		}
		docs := make([]index.Doc, m.idx.Len())
		for d := range docs {
			docs[d] = *m.idx.Doc(d)
		}
		want := exampleClasses(m.refs, docs)
		classes := []int{0, all}
		got, exp := m.classes.Scores("book flights for milk", classes, nil), want.Scores("book flights for milk", classes, nil)
		if !slices.Equal(got, exp) {
			t.Fatalf("the classifier scores %v, trained on the final verdicts %v", got, exp)
		}
	}
}
