package vecfile

import (
	"math"
	"math/rand/v2"
	"testing"
)

// addScaled6 gives the generic loop's floats bit for bit, for rows of any
// length, any codes and factors of any size and sign, into sums that are
// not zero.
func TestAddScaled6IsGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for groups := 0; groups <= 80; groups++ {
		for range 20 {
			b := make([]byte, 3*groups)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			row := string(b)
			f := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-6)))
			got, want := make([]float32, 4*groups), make([]float32, 4*groups)
			for i := range got {
				got[i] = float32(rng.NormFloat64())
				want[i] = got[i]
			}
			addScaled6(got, row, f)
			addScaled6Generic(want, row, f)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d groups, f %v: acc[%d] = %v, generic %v", groups, f, i, got[i], want[i])
				}
			}
		}
	}
}

func BenchmarkAddScaled6(b *testing.B) {
	row := string(make([]byte, RowBytes(100, 6)))
	acc := make([]float32, 100)
	for b.Loop() {
		addScaled6(acc, row, 0.5)
	}
}
