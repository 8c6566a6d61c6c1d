package vecfile

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func randomTable(t *testing.T, bits, dim, n int) (*Table, [][]float32) {
	t.Helper()
	r := rand.New(rand.NewSource(int64(bits*1000 + dim)))
	tb := &Table{
		Bits: bits, Dim: dim, SourceVocab: 3 * n, SIFA: 1e-3, ZipfK: 2.7,
		Common: make([]float32, dim),
	}
	tb.Common[0] = 1
	rb := RowBytes(dim, bits)
	rows := make([]byte, n*rb)
	var orig [][]float32
	for i := 0; i < n; i++ {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		orig = append(orig, v)
		tb.Words = append(tb.Words, strings.Repeat("w", i%5+1)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		tb.Ranks = append(tb.Ranks, uint32(2*i+1+i*i%3))
		tb.Scales = append(tb.Scales, Quantize(rows[i*rb:(i+1)*rb], v, bits))
	}
	tb.Rows = string(rows)
	return tb, orig
}

func encode(t *testing.T, tb *Table) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, tb); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.String()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ bits, dim, n int }{
		{8, 100, 300},
		{6, 100, 300},
		{6, 4, 1},
		{8, 3, 2},
	} {
		tb, orig := randomTable(t, tc.bits, tc.dim, tc.n)
		got, err := Decode(encode(t, tb))
		if err != nil {
			t.Fatalf("bits=%d dim=%d: Decode: %v", tc.bits, tc.dim, err)
		}
		if got.Bits != tc.bits || got.Dim != tc.dim || got.Len() != tc.n || got.SourceVocab != tb.SourceVocab ||
			got.SIFA != tb.SIFA || got.ZipfK != tb.ZipfK || got.Rows != tb.Rows || got.Checksum == 0 {
			t.Fatalf("bits=%d dim=%d: header or rows differ after round trip", tc.bits, tc.dim)
		}
		for i := range tb.Words {
			if got.Words[i] != tb.Words[i] || got.Ranks[i] != tb.Ranks[i] || got.Scales[i] != tb.Scales[i] {
				t.Fatalf("bits=%d: word %d: got %q/%d/%g, want %q/%d/%g", tc.bits, i,
					got.Words[i], got.Ranks[i], got.Scales[i], tb.Words[i], tb.Ranks[i], tb.Scales[i])
			}
			// Rounding to the nearest code errs by at most half a step.
			v := got.Vector(i)
			for j, x := range orig[i] {
				if d := math.Abs(float64(v[j] - x)); d > float64(got.Scales[i])/2*1.0001 {
					t.Fatalf("bits=%d: word %d dim %d: dequantized %g, want %g ± %g", tc.bits, i, j, v[j], x, got.Scales[i]/2)
				}
			}
		}
		for j := range tb.Common {
			if got.Common[j] != tb.Common[j] {
				t.Fatalf("common component differs at %d", j)
			}
		}
	}
}

func TestQuantizeExtremes(t *testing.T) {
	for _, bits := range []int{8, 6} {
		// The largest magnitude must map onto the largest code exactly, and
		// signs must survive packing, including the most negative code.
		v := []float32{-2, 1, 0, 2, -1, 0.5, -0.5, 0}
		row := make([]byte, RowBytes(len(v), bits))
		s := Quantize(row, v, bits)
		tb := &Table{Bits: bits, Dim: len(v), Rows: string(row), Scales: []float32{s}}
		got := tb.Vector(0)
		for j := range v {
			if math.Abs(float64(got[j]-v[j])) > float64(s)/2 {
				t.Errorf("bits=%d: coordinate %d = %g, want %g", bits, j, got[j], v[j])
			}
		}
		if got[0] != -got[3] {
			t.Errorf("bits=%d: ±max not symmetric: %g vs %g", bits, got[0], got[3])
		}
		zero := make([]byte, RowBytes(len(v), bits))
		if s := Quantize(zero, make([]float32, len(v)), bits); s != 0 {
			t.Errorf("bits=%d: zero vector scale %g, want 0", bits, s)
		}
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	tb, _ := randomTable(t, 6, 8, 20)
	good := encode(t, tb)
	flip := func(i int) string {
		b := []byte(good)
		b[i] ^= 0x40
		return string(b)
	}
	for name, data := range map[string]string{
		"empty":           "",
		"bad magic":       "XXXX" + good[4:],
		"truncated":       good[:len(good)-10],
		"flipped header":  flip(9),
		"flipped row":     flip(len(good) - 20),
		"flipped trailer": flip(len(good) - 1),
	} {
		if _, err := Decode(data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Decode error %v, want ErrFormat", name, err)
		}
	}
}

func TestEncodeValidates(t *testing.T) {
	for name, mutate := range map[string]func(*Table){
		"bits":             func(t *Table) { t.Bits = 4 },
		"6-bit odd dim":    func(t *Table) { t.Dim = 6; t.Common = t.Common[:6] },
		"ranks not rising": func(t *Table) { t.Ranks[3] = t.Ranks[2] },
		"empty word":       func(t *Table) { t.Words[1] = "" },
		"short rows":       func(t *Table) { t.Rows = t.Rows[1:] },
		"small source":     func(t *Table) { t.SourceVocab = 3 },
	} {
		tb, _ := randomTable(t, 6, 8, 10)
		mutate(tb)
		if err := Encode(&bytes.Buffer{}, tb); err == nil {
			t.Errorf("%s: Encode accepted an invalid table", name)
		}
	}
}

func TestProbs(t *testing.T) {
	tb := &Table{SourceVocab: 1000, ZipfK: 2.7, Ranks: make([]uint32, 1000)}
	for i := range tb.Ranks {
		tb.Ranks[i] = uint32(i + 1)
	}
	p := Probs(tb)
	var sum float64
	for i, x := range p {
		sum += x
		if i > 0 && x >= p[i-1] {
			t.Fatalf("p not decreasing at rank %d", i+1)
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("probabilities over the whole source vocabulary sum to %g, want 1", sum)
	}
	if want := (1 + 2.7) / (10 + 2.7); math.Abs(p[9]/p[0]-want) > 1e-6 {
		t.Fatalf("p(10)/p(1) = %g, want %g", p[9]/p[0], want)
	}
}
