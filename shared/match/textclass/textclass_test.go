package textclass

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Two skills whose examples share most of their words: only "add",
// "put" and "remove" on one side and "what", "show" on the other tell
// them apart, which nearest-neighbour votes weigh like any other word.
var lists = []Example{
	{"add oat milk to the grocery list", 0},
	{"put eggs on the shopping list", 0},
	{"remove the bread from our grocery list", 0},
	{"add bananas to the list for shopping", 0},
	{"what have i put on the grocery list", 1},
	{"show me the grocery list", 1},
	{"what do i have on the shopping list", 1},
	{"read the grocery list out to me", 1},
	{"how many minutes should the rice cook", 2},
	{"cooking time for a boiled egg", 2},
}

func TestTrainSeparates(t *testing.T) {
	m := Train(lists, 3)
	tests := []struct {
		text string
		want int
	}{
		{"add some apples to the grocery list", 0},
		{"remove the milk from the shopping list", 0},
		{"what's on the grocery list now", 1},
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
	for _, protos := range []bool{false, true} {
		whole := train(lists, 3, maxTrainWork, protos)
		_, full := whole.Size()
		a, b := train(lists, 3, 20, protos), train(lists, 3, 20, protos)
		if _, cut := a.Size(); cut == 0 || cut > full {
			t.Errorf("prototypes %v: %d weights under a budget of 20 reads, %d without: want some, not more", protos, cut, full)
		}
		differs := false
		for _, text := range []string{"add milk", "what is on the list", "show me", "cook rice"} {
			sa, sb := a.Scores(text, []int{0, 1, 2}, nil), b.Scores(text, []int{0, 1, 2}, nil)
			if !slices.Equal(sa, sb) {
				t.Errorf("prototypes %v, %q: %v then %v under one budget", protos, text, sa, sb)
			}
			differs = differs || !slices.Equal(sa, whole.Scores(text, []int{0, 1, 2}, nil))
		}
		// From the prototypes the perceptron makes no mistake on these
		// examples, so only the run without them has more to learn.
		if !differs && !protos {
			t.Error("a budget of 20 reads learned what the whole run did")
		}
	}
}

// With a handful of examples a skill, every word of a skill's examples
// counts for it: a single word found only in one skill's examples scores
// that skill first, above 0. The perceptron alone learns only from its
// mistakes, and leaves words of examples it already got right at 0.
func TestPrototypesWeighEveryWord(t *testing.T) {
	// The second example of each skill seen is right at first sight (it
	// shares "book table" or "weather"), so the perceptron never weighs
	// its other words.
	few := []Example{
		{"book a table for two", 0},
		{"book a table near the window", 0},
		{"weather in paris", 1},
		{"weather forecast for rome", 1},
	}
	classOf := map[string]int{} // an example's term, as a feature, and its skill
	for _, ex := range few {
		for _, w := range features(nil, ex.Text) {
			if strings.ContainsAny(w, " ^") {
				continue
			}
			if c, ok := classOf[w]; ok && c != ex.Class {
				classOf[w] = -1
			} else if !ok {
				classOf[w] = ex.Class
			}
		}
	}
	if !fewPerClass(few, 2) {
		t.Fatal("want a catalog of few examples a skill")
	}
	withProtos, alone := Train(few, 2), train(few, 2, maxTrainWork, false)
	missed := 0
	for w, c := range classOf {
		if c < 0 {
			continue
		}
		if s := withProtos.Scores(w, []int{0, 1}, nil); argmax(s) != c || s[c] <= 0 {
			t.Errorf("%q, only in skill %d's examples: scores %v", w, c, s)
		}
		if s := alone.Scores(w, []int{0, 1}, nil); s[c] <= 0 {
			missed++
		}
	}
	if missed == 0 {
		t.Error("the perceptron alone weighed every word too: the test shows nothing")
	}
}

// With many examples a skill the model is the perceptron's alone.
func TestManyExamplesStartFromNothing(t *testing.T) {
	var many []Example
	for i := range fewExamples + 1 {
		for _, ex := range lists[:8] { // classes 0 and 1, 4 examples each
			many = append(many, Example{fmt.Sprintf("%s %d", ex.Text, i), ex.Class})
		}
	}
	if fewPerClass(many, 2) {
		t.Fatalf("%d examples over 2 skills counted as few", len(many))
	}
	a, b := Train(many, 2), train(many, 2, maxTrainWork, false)
	for _, text := range []string{"add milk", "what is on the list", "show 3"} {
		if sa, sb := a.Scores(text, []int{0, 1}, nil), b.Scores(text, []int{0, 1}, nil); !slices.Equal(sa, sb) {
			t.Errorf("%q: %v, the perceptron alone %v", text, sa, sb)
		}
	}
	// Examples of classes out of range do not count: counted, these
	// would put lists' 3 skills past fewExamples each.
	withOut := slices.Clone(lists)
	for i := range 3 * fewExamples {
		withOut = append(withOut, Example{"x", 3 + i%2}, Example{"y", -1})
	}
	if !fewPerClass(withOut, 3) {
		t.Error("out-of-range examples made the catalog count as one of many")
	}
}

// Scores come back in the order of the classes asked for, a class no
// example had and an unknown text score 0, and nil scores nothing.
func TestScores(t *testing.T) {
	m := Train(lists, 5) // classes 3 and 4 have no examples
	s := m.Scores("add oat milk to the grocery list", []int{1, 0, 4}, []float64{9, 9, 9, 9, 9})
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

// A prototype weighs each of its skill's features by tf-idf, at unit
// length, times the feature's idf again and prototypeWeight; a feature of
// more than maxPrototypeSkills skills starts from nothing.
func TestStartFromPrototypes(t *testing.T) {
	const skills = maxPrototypeSkills + 1
	// Feature 0 is in every skill's example, feature 1+k in skill k's
	// only; skill 0 has a second example with feature 1 again.
	var samples []sample
	for k := range skills {
		samples = append(samples, sample{feats: []int32{0, int32(1 + k)}, class: int32(k)})
	}
	samples = append(samples, sample{feats: []int32{1}, class: 0})
	accs := make([]accRow, 1+skills)
	startFromPrototypes(accs, samples, skills)
	if accs[0] != nil {
		t.Errorf("a feature of %d skills has prototype weights %v", skills, accs[0])
	}
	n := float64(len(samples))
	idf0, idf1, idfK := math.Log(1+n/float64(skills)), math.Log(1+n/2), math.Log(1+n/1)
	// Skill 0: feature 1 twice, feature 0 once (left out, but part of
	// the length). Skill 5: features 0 and 6 once each.
	len0 := math.Hypot(2*idf1, idf0)
	lenK := math.Hypot(idfK, idf0)
	for _, tt := range []struct {
		feat, class int
		want        float64
	}{
		{1, 0, prototypeWeight * 2 * idf1 * idf1 / len0},
		{6, 5, prototypeWeight * idfK * idfK / lenK},
	} {
		a := accs[tt.feat][int32(tt.class)]
		if a == nil || math.Abs(a.w-tt.want) > 1e-12 || a.u != 0 {
			t.Errorf("feature %d, skill %d: %+v, want w %.6f", tt.feat, tt.class, a, tt.want)
		}
	}
}

// Card examples and requests are untrusted text: whatever they hold,
// training and scoring end, give finite scores and give the same scores
// twice.
func FuzzTrainScores(f *testing.F) {
	f.Add("add milk to my list", "what is on my list", "", "add eggs")
	f.Add("", "   ", "\xff\xfe", "!!!")
	f.Add(strings.Repeat("a b ", 300), "ÄÖÜ ß ǅ", "stop", "a b")
	f.Fuzz(func(t *testing.T, a, b, c, query string) {
		exs := []Example{{a, 0}, {b, 1}, {c, 0}, {query, 2}}
		m1, m2 := Train(exs, 3), Train(exs, 3)
		s1, s2 := m1.Scores(query, []int{0, 1, 2}, nil), m2.Scores(query, []int{0, 1, 2}, nil)
		for i, v := range s1 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("score %d of %q is %v", i, query, v)
			}
		}
		if !slices.Equal(s1, s2) {
			t.Fatalf("%q: %v then %v", query, s1, s2)
		}
	})
}
