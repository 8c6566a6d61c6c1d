package rerank

import (
	"math/rand/v2"
	"testing"
)

// synthetic groups where one feature separates the right candidate.
func synthetic(n int, seed uint64) []Group {
	r := rand.New(rand.NewPCG(seed, 1))
	var gs []Group
	for range n {
		g := Group{}
		right := r.IntN(5)
		for c := range 5 {
			f := make([]float64, NumFeatures)
			for j := range f {
				f[j] = r.Float64()
			}
			f[8] = 0.3 * r.Float64() // example_sim
			if c == right {
				f[8] += 0.5
			}
			g.Features = append(g.Features, f)
			g.Labels = append(g.Labels, c == right)
		}
		gs = append(gs, g)
	}
	return gs
}

func TestTrainLearnsTheInformativeFeature(t *testing.T) {
	w, err := Train(synthetic(400, 7))
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLearned(w)
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range w.Features {
		if name != "example_sim" && abs(w.W[j]) > abs(w.W[8])/3 {
			t.Errorf("noise feature %s has weight %.2f against example_sim %.2f", name, w.W[j], w.W[8])
		}
	}
	right := 0
	test := synthetic(200, 99)
	for _, g := range test {
		best, bi := -1.0, -1
		for i, s := range l.Fits(g.Features) {
			if s > best {
				best, bi = s, i
			}
		}
		if g.Labels[bi] {
			right++
		}
	}
	if right < 190 {
		t.Errorf("top-1 on held-out synthetic groups %d/200", right)
	}
}

func TestTrainRejectsOneClass(t *testing.T) {
	gs := synthetic(10, 1)
	for i := range gs {
		for j := range gs[i].Labels {
			gs[i].Labels[j] = false
		}
	}
	if _, err := Train(gs); err == nil {
		t.Fatal("no positive pairs: want an error")
	}
}

func TestNewLearnedChecksWeights(t *testing.T) {
	w, _ := Train(synthetic(50, 3))
	bad := w
	bad.Features = append([]string{"from_the_future"}, w.Features[1:]...)
	if _, err := NewLearned(bad); err == nil {
		t.Error("unknown feature accepted")
	}
	short := w
	short.W = w.W[:3]
	if _, err := NewLearned(short); err == nil {
		t.Error("length mismatch accepted")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
