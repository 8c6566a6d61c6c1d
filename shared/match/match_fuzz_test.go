package match_test

import (
	"context"
	"math"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// FuzzMatch sends any request text, with any earlier turns, to the
// example catalog: the matcher answers a decision, never a panic, whose
// probability is a probability and whose every named skill is one of the
// catalog's. Requests are untrusted text: every stage between the task
// and the decision (extraction, framing, topic carry, plans, retrieval,
// reranking, the look-alike and catch-all rules) reads it.
func FuzzMatch(f *testing.F) {
	cat := exampleCatalog(f)
	m := newMatcher(f, cat)
	keys := map[string]bool{}
	for _, s := range cat.Skills() {
		keys[s.Key()] = true
	}
	for _, seed := range [][2]string{
		{"convert 100 dollars to euros", ""},
		{"book a flight to Lisbon on Friday, then rent a car there", "what's the weather in Lisbon"},
		{"yes, book it", "find me a hotel in Rome"},
		{"İstanbul İzmir, and then Ⱥ; also ǅ", ""},
		{"", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, turn string) {
		tk := &task.Task{ID: "fuzz-1", Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
		if turn != "" {
			tk.History = []task.Message{{Role: "user", Parts: []task.Part{{Text: turn}}}}
		}
		res, err := m.Match(context.Background(), tk)
		if err != nil {
			return // refused with a reason: the callers report it
		}
		d := res.Decision
		if p := d.Probability; math.IsNaN(p) || p < 0 || p > 1 {
			t.Fatalf("probability %v for %q", p, text)
		}
		var named []*decide.Option
		if d.Chosen != nil {
			named = append(named, d.Chosen)
		}
		for i := range d.Fallbacks {
			named = append(named, &d.Fallbacks[i])
		}
		for i := range d.Candidates {
			named = append(named, &d.Candidates[i])
		}
		for i := range d.Steps {
			named = append(named, &d.Steps[i].Chosen)
			if p := d.Steps[i].Probability; math.IsNaN(p) || p < 0 || p > 1 {
				t.Fatalf("step probability %v for %q", p, text)
			}
		}
		for _, o := range named {
			if !keys[o.Key] {
				t.Fatalf("decision names %q, no skill of the catalog, for %q", o.Key, text)
			}
		}
	})
}
