package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// The assembly kernel and the portable loop must agree bit for bit on the
// same codes: every vector count around the kernel's block of four, short
// and long strides, and the extreme codes.
func TestDotsKernelsAgree(t *testing.T) {
	if !useAVX2 {
		t.Log("no AVX2 here: the portable kernel is compared with itself")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, stride := range []int{16, 32, 112, 128, 304} {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 33, 100} {
			for _, fill := range []string{"random", "max", "min", "zero"} {
				q := make([]int16, stride)
				codes := make([]int8, n*stride)
				for i := range q {
					q[i] = int16(r.IntN(255) - 127)
				}
				for i := range codes {
					switch fill {
					case "random":
						codes[i] = int8(r.IntN(256) - 128)
					case "max":
						codes[i], q[i%stride] = 127, 127
					case "min":
						codes[i], q[i%stride] = -128, -128
					}
				}
				want := make([]int32, n)
				dotsGeneric(q, codes, stride, want)
				got := make([]int32, n)
				Dots(q, codes, stride, got)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("stride %d, %d vectors, %s: dot %d = %d, portable %d", stride, n, fill, i, got[i], want[i])
					}
					var exact int64
					for j := range stride {
						exact += int64(q[j]) * int64(codes[i*stride+j])
					}
					if int64(want[i]) != exact {
						t.Fatalf("stride %d, %s: portable dot %d = %d, want %d", stride, fill, i, want[i], exact)
					}
				}
			}
		}
	}
}

func TestDotsRejectsBadLengths(t *testing.T) {
	for name, f := range map[string]func(){
		"stride not a multiple of 16": func() { Dots(make([]int16, 20), make([]int8, 20), 20, make([]int32, 1)) },
		"short codes":                 func() { Dots(make([]int16, 16), make([]int8, 16), 16, make([]int32, 2)) },
		"short query":                 func() { Dots(make([]int16, 8), make([]int8, 16), 16, make([]int32, 1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	Dots(nil, nil, 16, nil) // no vectors: nothing to do
}

func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// Every exact score lies within its bounds, whatever the dimension
// (multiples of the kernel's width or not) and shape of the vectors.
func TestBoundsHoldTheExactScore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shapes := map[string]func(dim int) []float32{
		"unit":  func(dim int) []float32 { return unit(r, dim) },
		"zero":  func(dim int) []float32 { return make([]float32, dim) },
		"spike": func(dim int) []float32 { v := make([]float32, dim); v[r.IntN(dim)] = 1; return v },
		"spike and dust": func(dim int) []float32 {
			v := unit(r, dim)
			for i := range v {
				v[i] *= 1e-3
			}
			v[0] = 1
			return v
		},
		"long": func(dim int) []float32 { // not unit: the bound scales with the norms
			v := unit(r, dim)
			for i := range v {
				v[i] *= 37
			}
			return v
		},
	}
	for _, dim := range []int{1, 3, 16, 17, 100, 128} {
		for qname, qshape := range shapes {
			for vname, vshape := range shapes {
				s := New(dim, 64)
				var vecs [][]float32
				for range 64 {
					v := vshape(dim)
					vecs = append(vecs, v)
					s.Add(v)
				}
				for range 8 {
					qv := qshape(dim)
					q := s.Query(qv)
					lower, upper := make([]float32, s.Len()), make([]float32, s.Len())
					s.Bounds(q, 0, make([]int32, s.Len()), lower, upper)
					for i, v := range vecs {
						if exact := vector.Cosine(qv, v); exact < lower[i] || exact > upper[i] {
							t.Fatalf("dim %d, query %s, vector %s: exact %g outside [%g, %g]", dim, qname, vname, exact, lower[i], upper[i])
						}
						if qname == "zero" || vname == "zero" {
							if lower[i] != 0 || upper[i] != 0 {
								t.Fatalf("dim %d: zero vector bounds [%g, %g], want exactly 0", dim, lower[i], upper[i])
							}
						}
					}
				}
			}
		}
	}
}

// The bounds are tight enough to prune: for unit vectors of 100
// dimensions the interval is a few hundredths wide, while scores spread
// over [-1, 1].
func TestBoundsAreTight(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := New(100, 1000)
	for range 1000 {
		s.Add(unit(r, 100))
	}
	q := s.Query(unit(r, 100))
	lower, upper := make([]float32, s.Len()), make([]float32, s.Len())
	s.Bounds(q, 0, make([]int32, s.Len()), lower, upper)
	var widest float32
	for i := range lower {
		widest = max(widest, upper[i]-lower[i])
	}
	if widest > 0.05 {
		t.Errorf("widest interval %g, want ≤ 0.05", widest)
	}
}

// Encoding in parallel gives the codes of adding one vector at a time.
func TestEncodeInParallelEqualsAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, dim := range []int{0, 5, 100} {
		var all []float32
		one := New(dim, 0)
		for range 20000 {
			v := unit(r, dim)
			all = append(all, v...)
			one.Add(v)
		}
		if dim == 0 {
			one = New(0, 0) // no vector has zero dimensions
		}
		s := Encode(all, dim, 3)
		if !slices.Equal(s.codes, one.codes) || !slices.Equal(s.scale, one.scale) ||
			!slices.Equal(s.errCoef, one.errCoef) || !slices.Equal(s.normCoef, one.normCoef) {
			t.Errorf("dim %d: Encode differs from Add", dim)
		}
	}
}

// Bounds of a window of the set are those of the same vectors scored alone.
func TestBoundsWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var all []float32
	for range 50 {
		all = append(all, unit(r, 100)...)
	}
	s := Encode(all, 100, 4)
	if s.Len() != 50 {
		t.Fatalf("Encode kept %d vectors, want 50", s.Len())
	}
	q := s.Query(unit(r, 100))
	lo, hi := make([]float32, 50), make([]float32, 50)
	s.Bounds(q, 0, make([]int32, 50), lo, hi)
	wlo, whi := make([]float32, 7), make([]float32, 7)
	s.Bounds(q, 40, make([]int32, 7), wlo, whi)
	for i := range wlo {
		if wlo[i] != lo[40+i] || whi[i] != hi[40+i] {
			t.Fatalf("window vector %d: [%g, %g], whole set [%g, %g]", i, wlo[i], whi[i], lo[40+i], hi[40+i])
		}
	}
}

// A vector that is not finite can be bounded by nothing: it is always a
// candidate, so the exact scoring decides about it.
func TestBoundsOfNonFiniteVectors(t *testing.T) {
	s := New(3, 2)
	s.Add([]float32{float32(math.NaN()), 0, 0})
	s.Add([]float32{float32(math.Inf(1)), 0, 0})
	for _, qv := range [][]float32{{1, 0, 0}, {0, 0, 0}} {
		lower, upper := make([]float32, 2), make([]float32, 2)
		s.Bounds(s.Query(qv), 0, make([]int32, 2), lower, upper)
		for i := range lower {
			if !math.IsInf(float64(lower[i]), -1) || !math.IsInf(float64(upper[i]), 1) {
				t.Errorf("query %v, vector %d: bounds [%g, %g], want (-∞, ∞)", qv, i, lower[i], upper[i])
			}
		}
	}
}

func BenchmarkDots(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 4096
	s := New(100, n)
	for range n {
		s.Add(unit(r, 100))
	}
	q := s.Query(unit(r, 100))
	out := make([]int32, n)
	for _, k := range []struct {
		name string
		avx  bool
	}{{"avx2", true}, {"portable", false}} {
		if k.avx && !useAVX2 {
			continue
		}
		b.Run(k.name, func(b *testing.B) {
			defer func(old bool) { useAVX2 = old }(useAVX2)
			useAVX2 = k.avx
			for b.Loop() {
				Dots(q.codes, s.codes, s.stride, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vector")
		})
	}
	b.Run("float32", func(b *testing.B) {
		vecs := make([][]float32, n)
		for i := range vecs {
			vecs[i] = unit(r, 100)
		}
		qv := unit(r, 100)
		var sink float32
		for b.Loop() {
			for _, v := range vecs {
				sink += vector.Cosine(qv, v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vector")
	})
}

// round is math.Round over the codes' range and past it, halves and the
// floats beside them included.
func TestRoundIsMathRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	check := func(x float64) {
		if got, want := float64(round(x)), math.Round(x); got != want {
			t.Fatalf("round(%v) = %v, math.Round %v", x, got, want)
		}
	}
	for k := -300.0; k <= 300; k++ {
		for _, x := range []float64{k, k + 0.5, k - 0.5} {
			check(x)
			check(math.Nextafter(x, math.Inf(1)))
			check(math.Nextafter(x, math.Inf(-1)))
		}
	}
	for range 1_000_000 {
		check((rng.Float64()*2 - 1) * 130)
	}
	check(0.49999999999999994)
	check(-0.49999999999999994)
	check(1 << 52)
	check(-(1 << 52) - 0.5)
}

// BenchmarkEncode quantizes the vectors of a 10,000-skill catalog.
func BenchmarkEncode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, dim = 35000, 100
	vecs := make([]float32, n*dim)
	for i := range vecs {
		vecs[i] = float32(r.NormFloat64())
	}
	for b.Loop() {
		Encode(vecs, dim, 1)
	}
}
