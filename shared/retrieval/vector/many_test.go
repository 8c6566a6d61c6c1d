package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Cosines is Cosine bit for bit, at every length (with and without a tail
// past the last multiple of four), any number of vectors (the kernel's
// groups of four, its leftovers, more than one batch) and odd values.
func TestCosinesIsCosine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	odd := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -1e-40, 3e38, -3e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, dim := range []int{1, 3, 4, 5, 8, 16, 50, 99, 100, 101, 300} {
		for _, n := range []int{0, 1, 3, 4, 5, 7, 9, 16, 17, 64, 65, 130} {
			q := make([]float32, dim)
			vecs := make([]float32, n*dim)
			for i := range q {
				q[i] = float32(rng.NormFloat64())
			}
			for i := range vecs {
				vecs[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
				if rng.IntN(200) == 0 {
					vecs[i] = odd[rng.IntN(len(odd))]
				}
			}
			out := make([]float32, n)
			Cosines(q, vecs, out)
			for i := range out {
				want := Cosine(q, vecs[i*dim:(i+1)*dim])
				if math.Float32bits(out[i]) != math.Float32bits(want) && !(want != want && out[i] != out[i]) {
					t.Fatalf("dim %d, %d vectors: vector %d: Cosines %v (%#x), Cosine %v (%#x)",
						dim, n, i, out[i], math.Float32bits(out[i]), want, math.Float32bits(want))
				}
			}
			if n == 0 {
				continue
			}
			// The same vectors by id, in any order, some twice.
			ids := make([]int32, n+n/2)
			for i := range ids {
				ids[i] = int32(rng.IntN(n))
			}
			at := make([]float32, len(ids))
			CosinesAt(q, vecs, ids, at)
			for i, id := range ids {
				if math.Float32bits(at[i]) != math.Float32bits(out[id]) && !(at[i] != at[i] && out[id] != out[id]) {
					t.Fatalf("dim %d: CosinesAt of vector %d: %v, Cosine %v", dim, id, at[i], out[id])
				}
			}
		}
	}
}

func TestCosinesAtPanicsOutside(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for vector 2 of 2")
		}
	}()
	CosinesAt(make([]float32, 4), make([]float32, 8), []int32{0, 2}, make([]float32, 2))
}

func TestCosinesPanicsOnBadLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for 7 floats as 2 vectors of 4")
		}
	}()
	Cosines(make([]float32, 4), make([]float32, 7), make([]float32, 2))
}

func BenchmarkCosines(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 256
	q, vecs := make([]float32, 100), make([]float32, n*100)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	for i := range vecs {
		vecs[i] = float32(r.NormFloat64())
	}
	out := make([]float32, n)
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = Cosine(q, vecs[i*100:(i+1)*100])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vector")
	})
	b.Run("batched", func(b *testing.B) {
		for b.Loop() {
			Cosines(q, vecs, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vector")
	})
	// By id, scattered over an array of 16 times as many vectors (6 MB),
	// as a shortlist's vectors and a request's words are.
	many := make([]float32, 16*n*100)
	for i := range many {
		many[i] = float32(r.NormFloat64())
	}
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(r.IntN(16 * n))
	}
	b.Run("by-id", func(b *testing.B) {
		for b.Loop() {
			CosinesAt(q, many, ids, out)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vector")
	})
}
