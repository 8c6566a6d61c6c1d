package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestECEHandComputed(t *testing.T) {
	probs := []float64{0.1, 0.2, 0.9, 0.8}
	labels := []bool{false, true, true, true}
	tests := []struct {
		name   string
		probs  []float64
		labels []bool
		bins   int
		want   float64
	}{
		// One example per bin: (0.1 + 0.8 + 0.1 + 0.2) / 4.
		{"10 bins", probs, labels, 10, 0.3},
		// [0, 0.5): mean p 0.15, rate 0.5 → 2/4·0.35; [0.5, 1]: 0.85 vs 1 → 2/4·0.15.
		{"2 bins", probs, labels, 2, 0.25},
		// One bin: mean p 0.5, rate 0.75.
		{"1 bin", probs, labels, 1, 0.25},
		{"edges", []float64{0, 0.5, 1}, []bool{false, true, true}, 2, (0 + math.Abs(1.5-2)) / 3},
		{"outside [0,1] clamps", []float64{-0.5, 1.5}, []bool{false, true}, 10, (0.5 + 0.5) / 2},
		{"perfect", []float64{0, 1, 0.5, 0.5}, []bool{false, true, true, false}, 10, 0},
		{"empty", nil, nil, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ECE(tt.probs, tt.labels, tt.bins); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("ECE = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestECESynthetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	const n = 100000
	probs, labels := make([]float64, n), make([]bool, n)
	over, constant := make([]float64, n), make([]float64, n)
	for i := range probs {
		p := rng.Float64()
		probs[i], labels[i] = p, rng.Float64() < p
		over[i] = math.Round(p) // overconfident: always 0 or 1
		constant[i] = 0.9       // base rate is 0.5
	}
	if e := ECE(probs, labels, 10); e > 0.01 {
		t.Errorf("calibrated ECE %v, want ≈ 0", e)
	}
	// E|round(p) − p| = 1/4.
	if e := ECE(over, labels, 10); math.Abs(e-0.25) > 0.01 {
		t.Errorf("overconfident ECE %v, want ≈ 0.25", e)
	}
	if e := ECE(constant, labels, 10); math.Abs(e-0.4) > 0.01 {
		t.Errorf("constant 0.9 ECE %v, want ≈ 0.4", e)
	}
}

func TestBrier(t *testing.T) {
	tests := []struct {
		probs  []float64
		labels []bool
		want   float64
	}{
		{[]float64{0.1, 0.2, 0.9, 0.8}, []bool{false, true, true, true}, (0.01 + 0.64 + 0.01 + 0.04) / 4},
		{[]float64{1, 0}, []bool{true, false}, 0},
		{[]float64{0, 1}, []bool{true, false}, 1},
		{[]float64{0.5}, []bool{true}, 0.25},
		{nil, nil, 0},
	}
	for _, tt := range tests {
		if got := Brier(tt.probs, tt.labels); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Brier(%v, %v) = %v, want %v", tt.probs, tt.labels, got, tt.want)
		}
	}
}

func TestMetricPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"ECE length mismatch", func() { ECE([]float64{0.5}, nil, 10) }},
		{"ECE zero bins", func() { ECE([]float64{0.5}, []bool{true}, 0) }},
		{"ECE NaN", func() { ECE([]float64{math.NaN()}, []bool{true}, 10) }},
		{"Brier length mismatch", func() { Brier(nil, []bool{true}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
}
