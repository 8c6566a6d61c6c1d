package eval

import (
	"math"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

func TestByCategory(t *testing.T) {
	plain := func(exp string) *golden.Task { return &golden.Task{Expected: exp, Category: "plain"} }
	vague := &golden.Task{Category: "vague"}
	outs := []Outcome{
		// plain: right first by both, delegated right at 0.9
		{Task: plain("a/x"), Rank: 1, BM25Rank: 1, BM25Ranked: true, TopKey: "a/x", Prob: 0.9, Action: decide.Delegate, Chosen: "a/x", Delegated: []string{"a/x"}},
		// plain: second for skillmatch, first for BM25, delegated wrong at 0.8
		{Task: plain("a/y"), Rank: 2, BM25Rank: 1, BM25Ranked: true, TopKey: "a/x", Prob: 0.8, Action: decide.Delegate, Chosen: "a/x", Delegated: []string{"a/x"}},
		// plain: nothing ranked at all
		{Task: plain("a/z"), BM25Ranked: true},
		// vague: no right skill, abstained at 0.3
		{Task: vague, TopKey: "a/x", Prob: 0.3, Action: decide.Abstain, BM25Ranked: true},
		// no category: left out
		{Task: &golden.Task{Expected: "a/x"}, Rank: 1, TopKey: "a/x", Prob: 1},
	}
	got := ByCategory(outs)
	bm := 2.0 / 3
	want := []Group{
		{Name: "plain", Tasks: 3, WithExpected: 3, Top1: 1.0 / 3, BM25Top1: &bm, Delegated: 2, Precision: 0.5,
			MeanProb: 1.7 / 3, TopRight: 1.0 / 3},
		{Name: "vague", Tasks: 1, MeanProb: 0.3},
	}
	if len(got) != len(want) {
		t.Fatalf("groups %+v, want %+v", got, want)
	}
	for i := range want {
		if !sameGroup(got[i], want[i]) {
			t.Errorf("group %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := ByCategory(outs[4:]); got != nil {
		t.Errorf("no category anywhere: %+v, want nil", got)
	}
}

func TestByCard(t *testing.T) {
	cat := catalog.New(catalog.Agent{Card: &card.Card{ID: "a", Skills: []card.Skill{
		{ID: "ex", Examples: []string{"an example"}},
		{ID: "bare"},
	}}})
	has := CardExamples(cat)
	if !has("a/ex") || has("a/bare") || has("b/none") {
		t.Fatalf("CardExamples: a/ex %v, a/bare %v, b/none %v", has("a/ex"), has("a/bare"), has("b/none"))
	}
	ex := &golden.Task{Expected: "a/ex"}
	bare := &golden.Task{Expected: "a/bare"}
	outs := []Outcome{
		{Task: ex, Rank: 1, TopKey: "a/ex", Prob: 0.9},
		{Task: ex, Rank: 1, TopKey: "a/ex", Prob: 0.7},
		{Task: bare, Rank: 2, TopKey: "a/ex", Prob: 0.6},
		{Task: &golden.Task{}, TopKey: "a/ex", Prob: 0.5}, // no right skill: neither kind
	}
	got := ByCard(outs, has)
	if len(got) != 2 || got[0].Name != DescriptionOnly || got[1].Name != WithExamples {
		t.Fatalf("groups %+v, want description only, then with examples", got)
	}
	if got[0].Tasks != 1 || got[0].Top1 != 0 || got[1].Tasks != 2 || got[1].Top1 != 1 || got[1].BM25Top1 != nil {
		t.Errorf("groups %+v", got)
	}
	if got := ByCard(outs[:2], has); got != nil {
		t.Errorf("one kind only: %+v, want nil", got)
	}
}

func sameGroup(a, b Group) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	if (a.BM25Top1 == nil) != (b.BM25Top1 == nil) || a.BM25Top1 != nil && !near(*a.BM25Top1, *b.BM25Top1) {
		return false
	}
	return a.Name == b.Name && a.Tasks == b.Tasks && a.WithExpected == b.WithExpected && a.Delegated == b.Delegated &&
		near(a.Top1, b.Top1) && near(a.Precision, b.Precision) && near(a.MeanProb, b.MeanProb) && near(a.TopRight, b.TopRight)
}
