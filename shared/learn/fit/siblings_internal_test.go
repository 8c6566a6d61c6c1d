package fit

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
)

// ownBeatsPooled keeps a best candidate's own probability beside its
// sibling only where the held-out tasks say it already is the pair's.
func TestOwnBeatsPooled(t *testing.T) {
	// Every task's two candidates are kin with equal logits; the stack
	// and the calibration map each to 0.5, which pooling makes 0.75.
	stack := rerank.Stack{Z: 1}
	cal, err := calibrate.NewPlatt(calibrate.Platt{A: -1, B: 5})
	if err != nil {
		t.Fatal(err)
	}
	tasks := func(n, rightEvery int, kin bool) ([][]float64, []rerank.Group, [][]bool, []bool) {
		var logits [][]float64
		var groups []rerank.Group
		var correct [][]bool
		var made []bool
		for i := range n {
			g := rerank.Group{Features: [][]float64{{0}, {0}}}
			if kin {
				g.Kin = [][]int{{1}, {0}}
			}
			right := i%rightEvery != 0
			logits = append(logits, []float64{0, 0})
			groups = append(groups, g)
			correct = append(correct, []bool{right, right})
			made = append(made, false)
		}
		return logits, groups, correct, made
	}
	tests := []struct {
		name      string
		n, every  int // every'th task wrong
		kin, want bool
	}{
		{"right half the time: the own 0.5 is the truth", 200, 2, true, true},
		{"right three times in four: the pooled 0.75 is", 200, 4, true, false},
		{"too few tasks with a sibling to judge", minKinTops - 1, 2, true, false},
		{"no siblings at all", 200, 2, false, false},
	}
	for _, tt := range tests {
		logits, groups, correct, made := tasks(tt.n, tt.every, tt.kin)
		if got := ownBeatsPooled(cal, logits, groups, correct, made, stack); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// Dialogue tasks made from others do not count.
	logits, groups, correct, made := tasks(200, 2, true)
	for i := range made {
		made[i] = true
	}
	if ownBeatsPooled(cal, logits, groups, correct, made, stack) {
		t.Error("judged by made dialogue tasks")
	}
}
