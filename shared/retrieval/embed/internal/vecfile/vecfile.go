// Package vecfile reads and writes the compact quantized word-vector table
// that the embed package ships and the glovepack converter produces. It is
// internal so that the format has exactly one reader and one writer.
//
// Layout, all integers little-endian:
//
//	magic       "GLVQ"
//	version     uint8 (1)
//	bits        uint8: 8 (int8) or 6 (6-bit two's complement, 4 values in 3 bytes)
//	dim         uint16
//	count       uint32: words in the table
//	sourceVocab uint32: words in the source vocabulary, for Zipf normalisation
//	sifA        float32: SIF parameter a the common component was computed with
//	zipfK       float32: Zipf–Mandelbrot shift k of p(r) ∝ 1/(r+k)
//	common      dim × float32: unit common component for SIF removal
//	words       count × (uint8 length, bytes), most frequent first
//	ranks       count × uvarint: delta of the 1-based source frequency rank
//	scales      count × float32: per-word dequantization scale
//	rows        count × RowBytes(dim, bits): quantized vectors
//	crc         uint32: CRC-32 (IEEE) of every byte before it
//
// The sections are columnar rather than one record per word so that a reader
// can keep the rows as one slice of the original bytes: loading only has to
// walk the word list, and the vectors are never copied.
package vecfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Magic starts every table file.
const Magic = "GLVQ"

// Version is the format version this package reads and writes.
const Version = 1

const headerLen = 4 + 1 + 1 + 2 + 4 + 4 + 4 + 4

// Table is a decoded (or to-be-encoded) vector table.
type Table struct {
	Bits        int // 8 or 6
	Dim         int
	SourceVocab int
	SIFA        float32
	ZipfK       float32
	Common      []float32 // Dim values
	Words       []string  // unique, most frequent first
	Ranks       []uint32  // 1-based source frequency rank, strictly increasing
	Scales      []float32
	Rows        string // len(Words) × RowBytes(Dim, Bits)

	// Checksum is the file's trailing CRC-32; Decode fills it in. It doubles
	// as a content id: two files with the same checksum hold the same table.
	Checksum uint32
}

// RowBytes is the size of one quantized vector.
func RowBytes(dim, bits int) int {
	if bits == 6 {
		return dim / 4 * 3
	}
	return dim
}

// maxQ is the largest quantized magnitude: the range is kept symmetric so
// that negating a vector negates its code exactly.
func maxQ(bits int) float64 {
	if bits == 6 {
		return 31
	}
	return 127
}

func checkShape(bits, dim int) error {
	switch {
	case bits != 8 && bits != 6:
		return fmt.Errorf("vecfile: unsupported bit width %d (want 8 or 6)", bits)
	case dim <= 0 || dim > math.MaxUint16:
		return fmt.Errorf("vecfile: dimension %d out of range", dim)
	case bits == 6 && dim%4 != 0:
		return fmt.Errorf("vecfile: 6-bit rows need a dimension divisible by 4, got %d", dim)
	}
	return nil
}

// Quantize encodes v into dst (RowBytes(len(v), bits) bytes) with one scale
// per vector and returns that scale: v[i] ≈ scale·q[i]. The scale maps the
// largest magnitude onto the largest code, so nothing is clipped; measured on
// GloVe, clipping outliers to buy resolution made cosines worse, because a
// word's few large coordinates carry much of its direction.
func Quantize(dst []byte, v []float32, bits int) float32 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	if m == 0 {
		clear(dst[:RowBytes(len(v), bits)])
		return 0
	}
	lim := maxQ(bits)
	scale := m / lim
	code := func(x float32) int8 {
		q := math.Round(float64(x) / scale)
		return int8(math.Max(-lim, math.Min(lim, q)))
	}
	if bits == 8 {
		for i, x := range v {
			dst[i] = byte(code(x))
		}
		return float32(scale)
	}
	for g := 0; g < len(v)/4; g++ {
		a := uint32(byte(code(v[4*g])) & 63)
		b := uint32(byte(code(v[4*g+1])) & 63)
		c := uint32(byte(code(v[4*g+2])) & 63)
		d := uint32(byte(code(v[4*g+3])) & 63)
		p := a | b<<6 | c<<12 | d<<18
		dst[3*g] = byte(p)
		dst[3*g+1] = byte(p >> 8)
		dst[3*g+2] = byte(p >> 16)
	}
	return float32(scale)
}

// Len is the number of words in the table.
func (t *Table) Len() int { return len(t.Words) }

// AddScaled adds f·q to acc, where q is row i's integer code: with f set to
// weight·Scales[i] it accumulates weight times the word's vector. Taking the
// scale folded into f lets callers precompute one factor per word.
func (t *Table) AddScaled(acc []float32, i int, f float32) {
	rb := RowBytes(t.Dim, t.Bits)
	row := t.Rows[i*rb : (i+1)*rb]
	if t.Bits == 8 {
		acc = acc[:len(row)]
		for j := 0; j < len(row); j++ {
			acc[j] += f * float32(int8(row[j]))
		}
		return
	}
	addScaled6(acc[:len(row)/3*4], row, f)
}

// addScaled6Generic adds f·q to acc for the 6-bit codes q of row, 4 in
// each 3 bytes.
func addScaled6Generic(acc []float32, row string, f float32) {
	for g, j := 0, 0; j+2 < len(row); g, j = g+4, j+3 {
		p := uint32(row[j]) | uint32(row[j+1])<<8 | uint32(row[j+2])<<16
		// Shifting each 6-bit field to the top of an int32 and back sign-
		// extends it.
		acc[g] += f * float32(int32(p<<26)>>26)
		acc[g+1] += f * float32(int32(p<<20)>>26)
		acc[g+2] += f * float32(int32(p<<14)>>26)
		acc[g+3] += f * float32(int32(p<<8)>>26)
	}
}

// Vector returns row i dequantized.
func (t *Table) Vector(i int) []float32 {
	v := make([]float32, t.Dim)
	t.AddScaled(v, i, t.Scales[i])
	return v
}

func (t *Table) validate() error {
	if err := checkShape(t.Bits, t.Dim); err != nil {
		return err
	}
	n := len(t.Words)
	if len(t.Ranks) != n || len(t.Scales) != n {
		return fmt.Errorf("vecfile: %d words but %d ranks and %d scales", n, len(t.Ranks), len(t.Scales))
	}
	if len(t.Rows) != n*RowBytes(t.Dim, t.Bits) {
		return fmt.Errorf("vecfile: rows hold %d bytes, want %d", len(t.Rows), n*RowBytes(t.Dim, t.Bits))
	}
	if len(t.Common) != t.Dim {
		return fmt.Errorf("vecfile: common component has %d values, want %d", len(t.Common), t.Dim)
	}
	if t.SourceVocab < n {
		return fmt.Errorf("vecfile: source vocabulary %d smaller than table (%d words)", t.SourceVocab, n)
	}
	var prev uint32
	for i, w := range t.Words {
		if w == "" || len(w) > math.MaxUint8 {
			return fmt.Errorf("vecfile: word %d has length %d (want 1..255)", i, len(w))
		}
		if t.Ranks[i] <= prev || int(t.Ranks[i]) > t.SourceVocab {
			return fmt.Errorf("vecfile: rank %d of %q is not increasing within 1..%d", t.Ranks[i], w, t.SourceVocab)
		}
		prev = t.Ranks[i]
	}
	return nil
}

// Encode writes t to w.
func Encode(w io.Writer, t *Table) error {
	if err := t.validate(); err != nil {
		return err
	}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, crc))
	le := binary.LittleEndian

	hdr := make([]byte, 0, headerLen)
	hdr = append(hdr, Magic...)
	hdr = append(hdr, Version, byte(t.Bits))
	hdr = le.AppendUint16(hdr, uint16(t.Dim))
	hdr = le.AppendUint32(hdr, uint32(len(t.Words)))
	hdr = le.AppendUint32(hdr, uint32(t.SourceVocab))
	hdr = le.AppendUint32(hdr, math.Float32bits(t.SIFA))
	hdr = le.AppendUint32(hdr, math.Float32bits(t.ZipfK))
	bw.Write(hdr)

	var buf []byte
	for _, x := range t.Common {
		buf = le.AppendUint32(buf, math.Float32bits(x))
	}
	for _, word := range t.Words {
		buf = append(buf, byte(len(word)))
		buf = append(buf, word...)
	}
	var prev uint32
	for _, r := range t.Ranks {
		buf = binary.AppendUvarint(buf, uint64(r-prev))
		prev = r
	}
	for _, s := range t.Scales {
		buf = le.AppendUint32(buf, math.Float32bits(s))
	}
	bw.Write(buf)
	bw.WriteString(t.Rows)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("vecfile: write: %w", err)
	}
	if _, err := w.Write(le.AppendUint32(nil, crc.Sum32())); err != nil {
		return fmt.Errorf("vecfile: write checksum: %w", err)
	}
	return nil
}

// ErrFormat is wrapped by every error about malformed input.
var ErrFormat = errors.New("vecfile: malformed table")

// Decode parses a table. The returned table's Words and Rows are substrings
// of data, so a caller that decodes an embedded string copies nothing large.
func Decode(data string) (*Table, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	if len(data) < headerLen+4 || data[:4] != Magic {
		return nil, bad("no %q header", Magic)
	}
	le := binary.LittleEndian
	body := data[:len(data)-4]
	sum := le.Uint32([]byte(data[len(data)-4:]))
	if got := checksum(body); got != sum {
		return nil, bad("checksum %08x, file says %08x", got, sum)
	}
	if v := data[4]; v != Version {
		return nil, bad("version %d, this reader knows %d", v, Version)
	}
	hdr := []byte(data[:headerLen])
	t := &Table{
		Bits:        int(hdr[5]),
		Dim:         int(le.Uint16(hdr[6:])),
		SourceVocab: int(le.Uint32(hdr[12:])),
		SIFA:        math.Float32frombits(le.Uint32(hdr[16:])),
		ZipfK:       math.Float32frombits(le.Uint32(hdr[20:])),
		Checksum:    sum,
	}
	n := int(le.Uint32(hdr[8:]))
	if err := checkShape(t.Bits, t.Dim); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	rest := body[headerLen:]
	if len(rest) < 4*t.Dim {
		return nil, bad("truncated common component")
	}
	t.Common = make([]float32, t.Dim)
	for i := range t.Common {
		t.Common[i] = math.Float32frombits(le.Uint32([]byte(rest[4*i : 4*i+4])))
	}
	rest = rest[4*t.Dim:]

	// Every word takes at least 2 bytes of list, 1 of rank and 4 of scale;
	// checking that first keeps a corrupt count from causing a huge
	// allocation.
	if n > len(rest)/7 {
		return nil, bad("count %d does not fit in %d bytes", n, len(rest))
	}
	t.Words = make([]string, n)
	for i := range t.Words {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, bad("truncated word list at word %d", i)
		}
		l := int(rest[0])
		t.Words[i] = rest[1 : 1+l]
		rest = rest[1+l:]
	}
	t.Ranks = make([]uint32, n)
	var prev uint64
	for i := range t.Ranks {
		d, k := uvarint(rest)
		if k <= 0 {
			return nil, bad("bad rank at word %d", i)
		}
		prev += d
		if prev > math.MaxUint32 {
			return nil, bad("rank overflow at word %d", i)
		}
		t.Ranks[i] = uint32(prev)
		rest = rest[k:]
	}
	if len(rest) < 4*n {
		return nil, bad("truncated scales")
	}
	t.Scales = make([]float32, n)
	sb := []byte(rest[:4*n])
	for i := range t.Scales {
		t.Scales[i] = math.Float32frombits(le.Uint32(sb[4*i:]))
	}
	rest = rest[4*n:]
	t.Rows = rest
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return t, nil
}

// checksum is crc32.ChecksumIEEE(s) without converting all of s to a byte
// slice at once, which would copy the whole table.
func checksum(s string) uint32 {
	var buf [64 << 10]byte
	var crc uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		crc = crc32.Update(crc, crc32.IEEETable, buf[:n])
		s = s[n:]
	}
	return crc
}

// uvarint is binary.Uvarint over a string: the value and the bytes read, or
// k <= 0 when s does not start with a valid uvarint.
func uvarint(s string) (v uint64, k int) {
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, -1
			}
			return v | uint64(b)<<shift, i + 1
		}
		v |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// Probs estimates each word's corpus probability from its frequency rank by
// the Zipf–Mandelbrot law p(r) = 1/((r+k)·H), H = Σ_{r=1..V} 1/(r+k), over
// the whole source vocabulary V. The source ships ranks, not counts, and the
// law fits the head of English well enough for SIF, whose weights a/(a+p)
// only care about p's order of magnitude.
func Probs(t *Table) []float64 {
	k := float64(t.ZipfK)
	var h float64
	for r := t.SourceVocab; r >= 1; r-- { // smallest terms first, for accuracy
		h += 1 / (float64(r) + k)
	}
	p := make([]float64, len(t.Ranks))
	for i, r := range t.Ranks {
		p[i] = 1 / ((float64(r) + k) * h)
	}
	return p
}
