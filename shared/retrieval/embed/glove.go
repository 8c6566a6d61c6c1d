package embed

import (
	"context"
	_ "embed" // for the shipped vectors
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed/internal/vecfile"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// gloveData is the shipped vector table; PROVENANCE.md says where it comes
// from and how to regenerate it. Embedding it as a string lets the parsed
// table point into the binary's read-only data instead of copying 8 MB.
//
//go:embed glove100.bin
var gloveData string

// BuiltinID is the ID of Default and of NewGloVe without options. The
// version suffix changes whenever the shipped vectors or the way they are
// combined change, so that stored vectors get re-embedded.
const BuiltinID = "glove-sif-100d-v1"

// builtinChecksum is the CRC-32 of the shipped table. A test compares it
// with glove100.bin, so a regenerated file cannot slip in under the old id:
// whoever changes the file updates this constant and BuiltinID's version.
const builtinChecksum = 0x20991dc2

// builtinDim is the dimension of the shipped vectors.
const builtinDim = 100

// GloVe is the SIF sentence embedder over quantized GloVe word vectors. It is
// immutable and safe for concurrent use.
type GloVe struct {
	t  *table
	id string
	// factor[i] is word i's SIF weight a/(a+p(w)) times its dequantization
	// scale, so that embedding a word is one multiply-add per coordinate.
	factor   []float32
	common   []float32
	skipStop bool
	// catalog holds the words of one catalog the vectors lack, by stem
	// (LearnCatalog); nil for the embedder of no catalog.
	catalog map[string]*catalogWord
}

// Option configures NewGloVe.
type Option func(*options) error

type options struct {
	sifA     float64 // 0: the value the table was built with
	path     string  // "": the shipped table
	skipStop bool    // leave out analyze's stopwords
}

func defaultOptions() options { return options{skipStop: false} }

// WithSIFWeight sets SIF's a in the word weight a/(a+p(w)), where p(w) is
// the word's estimated corpus probability. A smaller a suppresses frequent
// words harder; the default, 1e-3, is the value the shipped common component
// was computed with and the middle of the range Arora et al. found robust.
func WithSIFWeight(a float64) Option {
	return func(o *options) error {
		if !(a > 0) || math.IsInf(a, 0) {
			return fmt.Errorf("SIF weight a must be positive and finite, got %g", a)
		}
		o.sifA = a
		return nil
	}
}

// WithVectorsFile uses a vector table written by cmd/glovepack instead of
// the shipped one, for example one with a larger vocabulary.
func WithVectorsFile(path string) Option {
	return func(o *options) error {
		if path == "" {
			return errors.New("vectors file path is empty")
		}
		o.path = path
		return nil
	}
}

// WithSkipStopwords sets whether Embed leaves out analyze's stopwords
// (default false). Dense retrieval alone ranks better without them (top-1
// 65% → 68% on the CLINC150 dev set), but the whole matcher does worse
// (top-1 after reranking 0.884 → 0.864): short requests such as "are you
// from here" or "how much is my salary" lose the words that tell them apart, and
// the reranker reads example similarities that then tie at 1.0. A text
// made only of stopwords is always embedded with them.
func WithSkipStopwords(skip bool) Option {
	return func(o *options) error {
		o.skipStop = skip
		return nil
	}
}

// NewGloVe returns a GloVe SIF embedder. Without options it is the same
// embedder as Default.
func NewGloVe(opts ...Option) (*GloVe, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
	}
	if o.path == "" {
		t, def, err := loadBuiltin()
		if err != nil {
			return nil, err
		}
		if o == defaultOptions() {
			return def, nil
		}
		return newGloVe(t, o), nil
	}
	data, err := os.ReadFile(o.path)
	if err != nil {
		return nil, fmt.Errorf("embed: read vectors: %w", err)
	}
	t, err := parseTable(string(data), false)
	if err != nil {
		return nil, fmt.Errorf("embed: vectors %s: %w", o.path, err)
	}
	return newGloVe(t, o), nil
}

func newGloVe(t *table, o options) *GloVe {
	// The table's a is a float32; an option that rounds to it is the
	// default, so that it yields the same vectors and the same id.
	a := float64(t.SIFA)
	if o.sifA != 0 && float32(o.sifA) != t.SIFA {
		a = o.sifA
	}
	g := &GloVe{t: t, factor: make([]float32, t.Len()), skipStop: o.skipStop}
	for i, p := range t.prob {
		g.factor[i] = float32(a/(a+p)) * t.Scales[i]
	}
	g.common = t.Common

	// The id names everything that changes the vectors, so two embedders
	// with equal ids are interchangeable.
	var id strings.Builder
	fmt.Fprintf(&id, "glove-sif-%dd-v1", t.Dim)
	if !t.builtin {
		fmt.Fprintf(&id, "-%08x", t.Checksum)
	}
	if a != float64(t.SIFA) {
		id.WriteString("-a" + strconv.FormatFloat(a, 'g', -1, 64))
	}
	if o.skipStop {
		id.WriteString("-nostop")
	}
	g.id = id.String()
	return g
}

// ID implements vector.Embedder.
func (g *GloVe) ID() string { return g.id }

// Dim implements vector.Embedder.
func (g *GloVe) Dim() int { return g.t.Dim }

// Len is the number of words in the vocabulary.
func (g *GloVe) Len() int { return g.t.Len() }

// Embed implements vector.Embedder: EmbedText of each text. It never
// fails; ctx is not consulted, a text takes microseconds.
func (g *GloVe) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = g.EmbedText(t)
	}
	return out, nil
}

// EmbedText implements vector.Local: the SIF sentence vector of text,
//
//	v = Σ_w a/(a+p(w))·v(w),   v ← v − (v·u)u,   v ← v/|v|
//
// over the words of analyze.Words(text) that have vectors (after a stemming
// fallback), where u is the stored common component. SIF averages the sum;
// the average is skipped because the projection and the normalisation
// cancel any positive scale.
func (g *GloVe) EmbedText(text string) []float32 {
	out := make([]float32, g.t.Dim)
	g.embedWords(out, analyze.Words(text))
	return out
}

// EmbedWordsInto implements vector.LocalInto: EmbedText of the text words
// were split from, written into out.
func (g *GloVe) EmbedWordsInto(out []float32, words []string) {
	out = out[:g.t.Dim]
	clear(out)
	g.embedWords(out, words)
}

// embedWords is EmbedText of words into out, which is all zero.
func (g *GloVe) embedWords(out []float32, words []string) {
	found := g.accumulate(out, words, g.skipStop)
	if !found && g.skipStop {
		// A text of nothing but function words ("how are you") still says
		// something; SIF's weights are the better zero-information default
		// than the zero vector.
		found = g.accumulate(out, words, false)
	}
	if !found {
		return
	}
	if g.common != nil {
		var dot float32
		for j, u := range g.common {
			dot += out[j] * u
		}
		for j, u := range g.common {
			out[j] -= dot * u
		}
	}
	// A text whose only words lie along the common component has nothing
	// left; returning it as the zero vector keeps the unit-or-zero promise.
	if !vector.Normalize(out) {
		clear(out)
	}
}

// accumulate adds the weighted vectors of words to acc and reports whether
// any word was known.
func (g *GloVe) accumulate(acc []float32, words []string, skipStop bool) bool {
	found := false
	for _, w := range words {
		if skipStop && analyze.IsStopword(w) {
			continue
		}
		if i, ok := g.t.lookup(w); ok {
			g.t.AddScaled(acc, i, g.factor[i])
			found = true
		} else if c := g.catalogWord(w); c != nil {
			for j, x := range c.vec {
				acc[j] += x
			}
			found = true
		}
	}
	return found
}

// table is a decoded vector table with its lookup index.
type table struct {
	*vecfile.Table
	// slots is an open-addressing hash index: slot h holds word index+1, or
	// 0 when empty. Building it is several times faster than filling a Go
	// map of 90k strings, and load time is paid by the first query.
	slots   []int32
	mask    uint64
	prob    []float64 // Zipf estimate of each word's corpus probability
	builtin bool
	// lengths are the lengths of the words' vectors, worked out when a
	// catalog's words are first learned (LearnCatalog).
	lengths func() []float32
}

func parseTable(data string, builtin bool) (*table, error) {
	vt, err := vecfile.Decode(data)
	if err != nil {
		return nil, err
	}
	// At most half full, so that probe sequences stay short (1.2 probes per
	// hit on average for the shipped table).
	size := 1
	for size < 2*vt.Len() {
		size *= 2
	}
	t := &table{
		Table:   vt,
		slots:   make([]int32, size),
		mask:    uint64(size - 1),
		prob:    vecfile.Probs(vt),
		builtin: builtin,
	}
	t.lengths = sync.OnceValue(func() []float32 {
		out := make([]float32, vt.Len())
		v := make([]float32, vt.Dim)
		for i := range out {
			clear(v)
			vt.AddScaled(v, i, vt.Scales[i])
			out[i] = float32(vector.Norm(v))
		}
		return out
	})
	for i, w := range vt.Words {
		h := hashWord(w) & t.mask
		for t.slots[h] != 0 {
			if vt.Words[t.slots[h]-1] == w {
				return nil, fmt.Errorf("word %q appears twice", w)
			}
			h = (h + 1) & t.mask
		}
		t.slots[h] = int32(i + 1)
	}
	return t, nil
}

// hashWord is FNV-1a with a final avalanche step, so that the low bits used
// as the slot number depend on every byte.
func hashWord(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= h >> 32
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// find returns the index of w in the vocabulary.
func (t *table) find(w string) (int, bool) {
	for h := hashWord(w) & t.mask; ; h = (h + 1) & t.mask {
		i := t.slots[h]
		if i == 0 {
			return 0, false
		}
		if t.Words[i-1] == w {
			return int(i - 1), true
		}
	}
}

// lookup finds w, or failing that a simpler form of it. GloVe's vocabulary
// is cut at the most frequent words, so a rare inflection ("invoicing") is
// often missing while its base form ("invoice") is present; a known base
// form carries the meaning better than dropping the word.
func (t *table) lookup(w string) (int, bool) {
	if i, ok := t.find(w); ok {
		return i, true
	}
	if len(w) < 4 {
		return 0, false
	}
	try := t.find
	// The rules turn inflected and British forms into forms GloVe more
	// likely knows, tried in order. The list is short on purpose: each rule
	// is a guess, and a wrong guess maps a word onto an unrelated one.
	rules := [...]struct {
		from, to string
		undouble bool
	}{
		{"ies", "y", false},
		{"s", "", false},
		{"es", "", false},
		{"ied", "y", false},
		{"ed", "", true},
		{"ed", "e", false},
		{"ing", "", true},
		{"ing", "e", false},
		{"isation", "ization", false},
		{"isations", "izations", false},
		{"ization", "ize", false},
		{"isation", "ise", false},
		{"ise", "ize", false},
		{"ises", "izes", false},
		{"ised", "ized", false},
		{"ising", "izing", false},
		{"iser", "izer", false},
		{"ly", "", false},
		{"our", "or", false},
	}
	for _, r := range rules {
		if !strings.HasSuffix(w, r.from) || len(w)-len(r.from) < 3 {
			continue
		}
		base := w[:len(w)-len(r.from)]
		if i, ok := try(base + r.to); ok {
			return i, true
		}
		// "planned" → "plann" → "plan": undo a doubled final consonant.
		if r.undouble && len(base) >= 4 && base[len(base)-1] == base[len(base)-2] {
			if i, ok := try(base[:len(base)-1]); ok {
				return i, true
			}
		}
	}
	s := analyze.Stem(w)
	if s == w {
		return 0, false
	}
	if i, ok := try(s); ok {
		return i, true
	}
	return try(s + "e")
}
