package embed

import (
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed/internal/vecfile"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestBuiltinTable(t *testing.T) {
	tb, _, err := loadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	// The id promises that equal ids mean equal vectors; this is what keeps
	// that promise when glove100.bin is regenerated.
	if tb.Checksum != builtinChecksum {
		t.Fatalf("glove100.bin checksum %08x, builtinChecksum says %08x: a changed table needs a new BuiltinID version and an updated builtinChecksum",
			tb.Checksum, builtinChecksum)
	}
	if tb.Dim != builtinDim || tb.Len() < 50000 {
		t.Fatalf("shipped table has dim %d and %d words", tb.Dim, tb.Len())
	}
	if n := norm(tb.Common); math.Abs(n-1) > 1e-5 {
		t.Fatalf("common component has norm %g, want 1", n)
	}
	d := Default()
	if _, ok := d.(*GloVe); !ok || d.ID() != BuiltinID || d.Dim() != builtinDim {
		t.Fatalf("Default() = %T with id %q dim %d, want *GloVe %q dim %d", d, d.ID(), d.Dim(), BuiltinID, builtinDim)
	}
}

func TestSimilarBeatsUnrelated(t *testing.T) {
	e := Default()
	for _, tc := range []struct{ anchor, similar, unrelated string }{
		{"transfer money to my savings account", "move funds between accounts", "what's the weather in paris"},
		{"what's the weather in paris", "will it rain in london tomorrow", "transfer money to my savings account"},
		{"book a flight to london next tuesday", "reserve plane tickets", "translate this sentence into french"},
		{"translate this sentence into french", "how do you say hello in spanish", "book a flight to london next tuesday"},
		{"summarize this pdf report", "create a short summary of a document", "play some jazz music"},
		{"play some jazz music", "put on a song by my favourite band", "summarize this pdf report"},
		{"my credit card was declined", "why was my payment rejected", "set an alarm for six am"},
		{"find a recipe for chicken curry", "how do i cook rice", "what is my account balance"},
	} {
		a := e.EmbedText(tc.anchor)
		sim, unrel := vector.Cosine(a, e.EmbedText(tc.similar)), vector.Cosine(a, e.EmbedText(tc.unrelated))
		// A margin, not just an order: a near tie would mean the embedder
		// barely separates the topics.
		t.Logf("%.3f vs %.3f  %s", sim, unrel, tc.anchor)
		if sim < unrel+0.15 {
			t.Errorf("%q: similar %q scores %.3f, unrelated %q scores %.3f; want a margin of 0.15",
				tc.anchor, tc.similar, sim, tc.unrelated, unrel)
		}
	}
}

func TestZeroVectorForUnknownText(t *testing.T) {
	e := Default()
	for _, text := range []string{"", "   ", "!!! ??? ...", "zqxjvw blorfinax", "—"} {
		v := e.EmbedText(text)
		if len(v) != e.Dim() || norm(v) != 0 {
			t.Errorf("Embed(%q): len %d norm %g, want the zero vector of len %d", text, len(v), norm(v), e.Dim())
		}
	}
}

func TestUnitLength(t *testing.T) {
	e := Default()
	for _, text := range []string{
		"hello",
		"how are you", // stopwords only: embedded with them rather than zero
		"Transfer $500 to my SAVINGS account, please!",
		"invoices invoicing invoiced",
		"a very long text about mountains rivers forests deserts oceans and the weather over them all year round",
	} {
		if n := norm(e.EmbedText(text)); math.Abs(n-1) > 1e-5 {
			t.Errorf("Embed(%q) has norm %g, want 1", text, n)
		}
	}
}

func TestDeterministic(t *testing.T) {
	tb, _, err := loadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	// A separately built embedder over the same table must agree bit for bit
	// with the shared default, and repeated calls must too.
	fresh := newGloVe(tb, defaultOptions())
	text := "schedule a meeting with the finance team about the quarterly budget"
	want := Default().EmbedText(text)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				got := fresh.EmbedText(text)
				for j := range want {
					if got[j] != want[j] {
						errs <- "embedding differs between calls"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if fresh.ID() != Default().ID() {
		t.Fatalf("same options, different ids: %q vs %q", fresh.ID(), Default().ID())
	}
}

func TestStopwords(t *testing.T) {
	skip, err := NewGloVe(WithSkipStopwords(true))
	if err != nil {
		t.Fatal(err)
	}
	// With stopwords skipped, adding them changes nothing.
	if c := vector.Cosine(skip.EmbedText("the bank of the river"), skip.EmbedText("bank river")); c < 0.9999 {
		t.Errorf("stopwords changed the embedding: cosine %g", c)
	}
	if skip.ID() == BuiltinID {
		t.Errorf("WithSkipStopwords(true) kept the default id")
	}
	keep := Default()
	if c := vector.Cosine(keep.EmbedText("the bank of the river"), keep.EmbedText("bank river")); c > 0.9999 {
		t.Errorf("the default embedder ignored stopwords: cosine %g", c)
	}
}

func TestOptions(t *testing.T) {
	same, err := NewGloVe(WithSIFWeight(1e-3), WithSkipStopwords(false))
	if err != nil {
		t.Fatal(err)
	}
	if same.ID() != BuiltinID {
		t.Errorf("explicit default options give id %q, want %q", same.ID(), BuiltinID)
	}
	other, err := NewGloVe(WithSIFWeight(1e-2))
	if err != nil {
		t.Fatal(err)
	}
	if other.ID() == BuiltinID {
		t.Errorf("a different SIF weight kept the default id")
	}
	text := "the quick brown fox jumps over the lazy dog"
	if c := vector.Cosine(other.EmbedText(text), same.EmbedText(text)); c > 0.99999 {
		t.Errorf("WithSIFWeight had no effect (cosine %g)", c)
	}

	bad := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(bad, []byte("not a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]Option{
		"zero a":       WithSIFWeight(0),
		"negative a":   WithSIFWeight(-1),
		"NaN a":        WithSIFWeight(math.NaN()),
		"infinite a":   WithSIFWeight(math.Inf(1)),
		"empty path":   WithVectorsFile(""),
		"missing file": WithVectorsFile(filepath.Join(t.TempDir(), "missing.bin")),
		"corrupt file": WithVectorsFile(bad),
	} {
		if _, err := NewGloVe(opt); err == nil {
			t.Errorf("%s: NewGloVe accepted it", name)
		}
	}
	if _, err := NewGloVe(WithVectorsFile(bad)); !errors.Is(err, vecfile.ErrFormat) {
		t.Errorf("corrupt file: error %v does not wrap vecfile.ErrFormat", err)
	}
}

// writeTable writes a small table of the given words, each with its own
// random direction, and returns an embedder over it.
func writeTable(t *testing.T, words ...string) *GloVe {
	t.Helper()
	const dim = 8
	r := rand.New(rand.NewSource(1))
	tb := &vecfile.Table{Bits: 8, Dim: dim, SourceVocab: 1000, SIFA: 1e-3, ZipfK: 2.7,
		Common: []float32{1, 0, 0, 0, 0, 0, 0, 0}}
	rows := make([]byte, len(words)*dim)
	for i, w := range words {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		tb.Words = append(tb.Words, w)
		tb.Ranks = append(tb.Ranks, uint32(100*(i+1)))
		tb.Scales = append(tb.Scales, vecfile.Quantize(rows[i*dim:(i+1)*dim], v, 8))
	}
	tb.Rows = string(rows)
	path := filepath.Join(t.TempDir(), "t.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := vecfile.Encode(f, tb); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := NewGloVe(WithVectorsFile(path))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFallbackLookup(t *testing.T) {
	g := writeTable(t, "invoice", "company", "plan", "deploy", "summarize", "color", "organize", "box", "quick", "summarizes")
	if g.Dim() != 8 || g.Len() != 10 {
		t.Fatalf("dim %d len %d, want 8 and 10", g.Dim(), g.Len())
	}
	if g.ID() == BuiltinID {
		t.Fatalf("a custom table reused the built-in id")
	}
	for _, tc := range []struct{ word, want string }{
		{"invoice", "invoice"},
		{"invoices", "invoice"},
		{"invoicing", "invoice"},
		{"invoiced", "invoice"},
		{"companies", "company"},
		{"planned", "plan"},
		{"planning", "plan"},
		{"deploying", "deploy"},
		{"deployed", "deploy"},
		{"summarization", "summarize"},
		{"colour", "color"},
		{"organise", "organize"},
		{"summarises", "summarizes"},
		{"organisation", ""}, // "organization" is not in this table
		{"boxes", "box"},
		{"quickly", "quick"},
		{"plans", "plan"},
		{"xylophones", ""},
		{"pla", ""}, // too short to strip anything
	} {
		i, ok := g.t.lookup(tc.word)
		got := ""
		if ok {
			got = g.t.Words[i]
		}
		if got != tc.want {
			t.Errorf("lookup(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	// An inflected form embeds like its base.
	if c := vector.Cosine(g.EmbedText("invoices"), g.EmbedText("invoice")); c < 0.9999 {
		t.Errorf("invoices vs invoice: cosine %g, want 1", c)
	}
}

func TestCommonComponentRemoved(t *testing.T) {
	g := writeTable(t, "alpha", "beta", "gamma")
	// The synthetic table's common component is the first axis.
	for _, text := range []string{"alpha", "beta gamma", "alpha beta gamma"} {
		if v := g.EmbedText(text); math.Abs(float64(v[0])) > 1e-6 {
			t.Errorf("Embed(%q)[0] = %g, want 0 after removing the common component", text, v[0])
		}
	}
}

func TestCosineOfItself(t *testing.T) {
	v := Default().EmbedText("open the pod bay doors")
	if c := vector.Cosine(v, v); math.Abs(float64(c)-1) > 1e-5 {
		t.Errorf("Cosine(v, v) = %g, want 1", c)
	}
}

func BenchmarkEmbed(b *testing.B) {
	e := Default()
	const text = "please transfer five hundred dollars from my checking account to savings tomorrow" // 12 words
	e.EmbedText(text)
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedText(text)
	}
}

// BenchmarkLoad measures what the first use of Default pays: decoding and
// indexing the embedded table.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseTable(gloveData, true); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWordVector(t *testing.T) {
	g := Default().(*GloVe)
	dst := make([]float32, g.Dim())
	cos := func(a, b string) float64 {
		va := make([]float32, g.Dim())
		if _, ok := g.WordVector(va, a); !ok {
			t.Fatalf("no vector for %q", a)
		}
		if _, ok := g.WordVector(dst, b); !ok {
			t.Fatalf("no vector for %q", b)
		}
		var d float64
		for i := range va {
			d += float64(va[i]) * float64(dst[i])
		}
		return d
	}
	if c := cos("cash", "cash"); c < 0.999 || c > 1.001 {
		t.Errorf("a word's cosine with itself = %v, want 1 (unit vectors)", c)
	}
	if near, far := cos("cash", "money"), cos("cash", "weather"); near <= far {
		t.Errorf("cos(cash, money) = %v not above cos(cash, weather) = %v", near, far)
	}
	rare, _ := g.WordVector(dst, "invoice")
	common, _ := g.WordVector(dst, "the")
	if !(rare > common && rare <= 1 && common > 0) {
		t.Errorf("weights invoice %v, the %v: want 0 < the < invoice <= 1", rare, common)
	}
	if _, ok := g.WordVector(dst, "qzxqzxqzx"); ok {
		t.Error("a vector for a word not in the vocabulary")
	}
	if _, ok := g.WordVector(dst, "invoicing"); !ok {
		t.Error("no vector for an inflection whose base form is known")
	}
}

// TestEmbedWordsIntoMatchesEmbedText checks that writing a text's words
// into a dirty vector gives EmbedText's vector bit for bit.
func TestEmbedWordsIntoMatchesEmbedText(t *testing.T) {
	g, ok := Default().(vector.LocalInto)
	if !ok {
		t.Fatalf("the built-in embedder is a %T, which does not embed into a given vector", Default())
	}
	out := make([]float32, g.Dim())
	for _, text := range []string{"", "how are you", "Book a flight to Paris tomorrow", "zzqx qqzv",
		"ÉCOLE café, don’t STOP", "the", "transfer money between my checking and savings accounts", "Book a flight to Paris tomorrow"} {
		for i := range out {
			out[i] = float32(i) - 7 // whatever it held
		}
		g.EmbedWordsInto(out, analyze.Words(text))
		want := g.EmbedText(text)
		for i := range want {
			if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%q: component %d is %v, EmbedText says %v", text, i, out[i], want[i])
			}
		}
	}
}
