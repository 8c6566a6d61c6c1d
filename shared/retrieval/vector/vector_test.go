package vector

import (
	"math"
	"math/rand"
	"testing"
)

func TestCosine(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for n := 0; n <= 19; n++ {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		if got := Cosine(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("len %d: Cosine = %g, want %g", n, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Cosine of different lengths did not panic")
		}
	}()
	Cosine(make([]float32, 3), make([]float32, 4))
}

func BenchmarkCosine(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := make([]float32, 100), make([]float32, 100)
	for i := range x {
		x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	var sink float32
	for b.Loop() {
		sink += Cosine(x, y)
	}
	_ = sink
}
