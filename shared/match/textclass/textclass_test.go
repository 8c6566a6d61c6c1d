package textclass

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Two skills whose examples share most of their words: only "add",
// "put" and "remove" on one side and "what", "show" on the other tell
// them apart, which nearest-neighbour votes weigh like any other word.
var lists = []Example{
	{"add milk to my shopping list", 0},
	{"put eggs on the shopping list", 0},
	{"remove bread from my shopping list", 0},
	{"add bananas to the list for shopping", 0},
	{"what is on my shopping list", 1},
	{"show me my shopping list", 1},
	{"what do i have on the shopping list", 1},
	{"read my shopping list to me", 1},
	{"how long should i cook the rice", 2},
	{"cooking time for a boiled egg", 2},
}

func TestTrainSeparates(t *testing.T) {
	m := Train(lists, 3)
	tests := []struct {
		text string
		want int
	}{
		{"add apples to my shopping list", 0},
		{"remove the milk from the shopping list", 0},
		{"what's on the shopping list", 1},
		{"show the shopping list", 1},
		{"how long do i cook pasta", 2},
	}
	for _, tt := range tests {
		s := m.Scores(tt.text, []int{0, 1, 2}, nil)
		if best := argmax(s); best != tt.want {
			t.Errorf("%q: scores %v, best %d, want %d", tt.text, s, best, tt.want)
		}
	}
}

// The same examples give the same model, whatever ran before.
func TestTrainDeterministic(t *testing.T) {
	a, b := Train(lists, 3), Train(slices.Clone(lists), 3)
	for _, text := range []string{"add milk", "what is on it", "cook", "unknown words only"} {
		sa, sb := a.Scores(text, []int{2, 0, 1}, nil), b.Scores(text, []int{2, 0, 1}, nil)
		if !slices.Equal(sa, sb) {
			t.Errorf("%q: %v then %v", text, sa, sb)
		}
	}
}

// Training stops once it has read its budget of weights, at the same
// example every run, and keeps what it learned by then.
func TestTrainBudget(t *testing.T) {
	_, full := Train(lists, 3).Size()
	a, b := train(lists, 3, 20), train(lists, 3, 20)
	_, cut := a.Size()
	if cut == 0 || cut >= full {
		t.Errorf("%d weights under a budget of 20 reads, %d without: want fewer, not none", cut, full)
	}
	for _, text := range []string{"add milk", "what is on the list"} {
		if sa, sb := a.Scores(text, []int{0, 1, 2}, nil), b.Scores(text, []int{0, 1, 2}, nil); !slices.Equal(sa, sb) {
			t.Errorf("%q: %v then %v under one budget", text, sa, sb)
		}
	}
}

// Scores come back in the order of the classes asked for, a class no
// example had and an unknown text score 0, and nil scores nothing.
func TestScores(t *testing.T) {
	m := Train(lists, 5) // classes 3 and 4 have no examples
	s := m.Scores("add milk to my shopping list", []int{1, 0, 4}, []float64{9, 9, 9, 9, 9})
	if len(s) != 3 || s[1] <= s[0] || s[2] != 0 {
		t.Errorf("scores %v: want 3, the second above the first, the third 0", s)
	}
	if s := m.Scores("zzz qqq", []int{0, 1}, nil); s[0] != 0 || s[1] != 0 {
		t.Errorf("unknown words: %v, want zeros", s)
	}
	var none *Model
	if s := none.Scores("add milk", []int{0, 1}, nil); len(s) != 2 || s[0] != 0 || s[1] != 0 {
		t.Errorf("nil model: %v", s)
	}
	if f, w := none.Size(); f != 0 || w != 0 {
		t.Errorf("nil model size %d, %d", f, w)
	}
}

// Examples of classes out of range teach nothing.
func TestTrainSkipsOutOfRange(t *testing.T) {
	m := Train([]Example{{"add milk", -1}, {"add milk", 7}}, 2)
	if f, w := m.Size(); w != 0 {
		t.Errorf("%d features, %d weights from out-of-range examples, want no weights", f, w)
	}
}

// A text of any length yields at most maxFeatures features.
func TestFeaturesBounded(t *testing.T) {
	long := strings.Repeat("word ", 10_000)
	if n := len(features(nil, long)); n > maxFeatures {
		t.Errorf("%d features, want at most %d", n, maxFeatures)
	}
	got := features(nil, "How do I add Eggs")
	want := []string{"^how", "how", "how do", "do", "do i", "i", "i add", "add", "add egg", "egg"}
	if !slices.Equal(got, want) {
		t.Errorf("features %q, want %q", got, want)
	}
}

func argmax(s []float64) int {
	b := 0
	for i, v := range s {
		if v > s[b] {
			b = i
		}
	}
	return b
}

func BenchmarkScores(b *testing.B) {
	var exs []Example
	for c := range 150 {
		for i := range 100 {
			exs = append(exs, Example{fmt.Sprintf("please do task %d with option %d now", c, i%7), c})
		}
	}
	m := Train(exs, 150)
	cls := make([]int, 20)
	for i := range cls {
		cls[i] = i * 7
	}
	var dst []float64
	b.ResetTimer()
	for b.Loop() {
		dst = m.Scores("please do task 42 with option 3", cls, dst)
	}
}
