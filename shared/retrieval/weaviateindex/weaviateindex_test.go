package weaviateindex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// The Weaviate tests run against a server started by scripts/weaviate.sh
// (which builds it on first use), or against WEAVIATE_URL when set.
var (
	weaviateURL  string
	weaviateGRPC string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if u := os.Getenv("WEAVIATE_URL"); u != "" {
		weaviateURL, weaviateGRPC = u, os.Getenv("WEAVIATE_GRPC")
		return m.Run()
	}
	script, err := filepath.Abs("../../../scripts/weaviate.sh")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	state := filepath.Join(os.TempDir(), fmt.Sprintf("skillmatch-weaviate-test-%d.state", os.Getpid()))
	env := append(os.Environ(), "WEAVIATE_STATE="+state)
	start := exec.Command(script, "start")
	start.Env, start.Stderr = env, os.Stderr
	out, err := start.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "weaviateindex tests: %s start: %v\n", script, err)
		return 1
	}
	defer func() {
		stop := exec.Command(script, "stop")
		stop.Env, stop.Stdout, stop.Stderr = env, os.Stderr, os.Stderr
		if err := stop.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "weaviateindex tests: %s stop: %v\n", script, err)
		}
	}()
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "WEAVIATE_URL="); ok {
			weaviateURL = v
		}
		if v, ok := strings.CutPrefix(line, "WEAVIATE_GRPC="); ok {
			weaviateGRPC = v
		}
	}
	if weaviateURL == "" {
		fmt.Fprintf(os.Stderr, "weaviateindex tests: no WEAVIATE_URL in %q\n", out)
		return 1
	}
	return m.Run()
}

// fixture is a doc set and queries to compare both indexes on.
type fixture struct {
	name    string
	docs    func(t testing.TB) []index.Doc
	queries func(t testing.TB, docs []index.Doc) []string
}

// catalogDocs are the docs the matcher builds for the catalog in dir.
func catalogDocs(t testing.TB, dir string) []index.Doc {
	t.Helper()
	cat, errs := catalog.LoadDir(dir)
	if len(errs) > 0 {
		t.Fatalf("load %s: %v", dir, errs)
	}
	var docs []index.Doc
	_, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithIndex(func(d []index.Doc, e vector.Embedder) (index.Index, error) {
		docs = d
		return index.NewMemory(d, e)
	}))
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

var exampleQueries = []string{
	"reconcile the vendor invoices against last month's payments",
	"schedule a meeting with the design team next tuesday",
	"review this pull request diff for bugs",
	"summarize this pdf report",
	"make a bar chart of quarterly revenue",
	"my laptop will not connect to the vpn",
	"file my travel expenses from the conference",
	"generate an image of a lighthouse at sunset",
	"is this contract clause enforceable",
	"who is the manager of the people team",
	"translate the onboarding guide into german",
	"book a room",
	"xylophone quasar",
	"the and of",
}

// goldenDir is where the team's golden sets live, beside the repository.
func goldenDir() string {
	if d := os.Getenv("SKILLMATCH_GOLDEN"); d != "" {
		return d
	}
	return "../../../../shared/golden"
}

func goldenQueries(t testing.TB, set string, n int) []string {
	f, err := os.Open(filepath.Join(goldenDir(), set, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var task struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(sc.Bytes(), &task) == nil && task.Text != "" {
			all = append(all, task.Text)
		}
	}
	step := max(len(all)/n, 1)
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out
}

// synthDocs makes n skills out of the example catalog's words: a catalog
// past the retrieval depth, with many shared words (and so BM25 ties).
func synthDocs(t testing.TB, n int) []index.Doc {
	base := catalogDocs(t, "../../../examples/catalog")
	var vocab []string
	seen := map[string]bool{}
	for _, d := range base {
		for _, w := range analyze.Words(d.Name + " " + d.Description + " " + strings.Join(d.Examples, " ")) {
			if !seen[w] {
				seen[w] = true
				vocab = append(vocab, w)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	docs := make([]index.Doc, n)
	for i := range docs {
		agent := fmt.Sprintf("agent%03d", i/5)
		docs[i] = index.Doc{
			Key: fmt.Sprintf("%s/s%d", agent, i%5), AgentID: agent, SkillID: fmt.Sprintf("s%d", i%5),
			AgentName: "Agent " + words(1), Name: words(2 + r.IntN(2)), Description: words(6 + r.IntN(10)),
			Tags: []string{words(1), words(1)},
		}
		for range r.IntN(5) {
			docs[i].Examples = append(docs[i].Examples, words(4+r.IntN(6)))
		}
		docs[i].Analyze()
	}
	return docs
}

func synthQueries(n int) func(testing.TB, []index.Doc) []string {
	return func(t testing.TB, docs []index.Doc) []string {
		r := rand.New(rand.NewPCG(3, 5))
		out := make([]string, n)
		for i := range out {
			d := &docs[r.IntN(len(docs))]
			text := d.Description
			if len(d.Examples) > 0 && i%2 == 0 {
				text = d.Examples[0]
			}
			ws := strings.Fields(text)
			out[i] = strings.Join(ws[:min(len(ws), 3+i%4)], " ")
		}
		return out
	}
}

func fixtures(t *testing.T) []fixture {
	fs := []fixture{
		{"examples", func(t testing.TB) []index.Doc { return catalogDocs(t, "../../../examples/catalog") },
			func(testing.TB, []index.Doc) []string { return exampleQueries }},
		{"synth600", func(t testing.TB) []index.Doc { return synthDocs(t, 600) }, synthQueries(30)},
	}
	// A larger catalog on demand: SKILLMATCH_CONFORMANCE_SKILLS=10000.
	if n, err := strconv.Atoi(os.Getenv("SKILLMATCH_CONFORMANCE_SKILLS")); err == nil && n > 0 {
		fs = append(fs, fixture{fmt.Sprintf("synth%d", n), func(t testing.TB) []index.Doc { return synthDocs(t, n) }, synthQueries(30)})
	}
	for _, set := range []string{"clinc150", "a2a-samples"} {
		if _, err := os.Stat(filepath.Join(goldenDir(), set, "cards")); err != nil {
			t.Logf("golden set %s not found beside the repository: not compared", set)
			continue
		}
		fs = append(fs, fixture{set,
			func(t testing.TB) []index.Doc { return catalogDocs(t, filepath.Join(goldenDir(), set, "cards")) },
			func(t testing.TB, _ []index.Doc) []string { return goldenQueries(t, set, 30) }})
	}
	return fs
}

// allows are the filters each query runs with: none, one agent's skills,
// a scattered half, a single doc, and nothing.
func allows(docs []index.Doc) map[string][]bool {
	agent := make([]bool, len(docs))
	half := make([]bool, len(docs))
	one := make([]bool, len(docs))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range docs {
		agent[i] = docs[i].AgentID == docs[len(docs)/2].AgentID
		half[i] = r.IntN(2) == 0
	}
	one[len(docs)/3] = true
	return map[string][]bool{"all": nil, "agent": agent, "half": half, "one": one, "none": make([]bool, len(docs))}
}

func newWeaviate(t testing.TB, ctx context.Context, name string, docs []index.Doc, cfg Config) *Index {
	t.Helper()
	cfg.URL, cfg.GRPC, cfg.Catalog = weaviateURL, weaviateGRPC, name
	x, err := New(ctx, cfg, docs, embed.Default())
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestConformance: both indexes give the same shortlist, the same scores
// and details, and the same neighbours, with and without filters, with the
// filter pushed down to Weaviate and applied after.
func TestConformance(t *testing.T) {
	ctx := context.Background()
	emb := embed.Default()
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			docs := fx.docs(t)
			mem, err := index.NewMemory(slices.Clone(docs), emb)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			wv := newWeaviate(t, ctx, "conf-"+fx.name, slices.Clone(docs), Config{Rebuild: true})
			t.Logf("%d docs stored in %v", len(docs), time.Since(t0).Round(time.Millisecond))
			// The same collections, the filter always applied here.
			post := newWeaviate(t, ctx, "conf-"+fx.name, slices.Clone(docs), Config{PushDownMax: 1, PushDownRuns: 1})
			if !post.Reused() {
				t.Errorf("second index over the same catalog re-imported it")
			}
			filters := allows(docs)
			queries := fx.queries(t, docs)
			compared := 0
			for _, text := range queries {
				for fname, allow := range filters {
					q := index.Query{Text: text, Terms: analyze.Terms(text), Vector: emb.EmbedText(text), Allow: allow}
					switch {
					case fx.name != "examples":
					case strings.HasPrefix(text, "book"):
						q.Vector = nil // lexical only
					case strings.HasPrefix(text, "my laptop"):
						q.Terms = nil // dense only
					case strings.HasPrefix(text, "xylophone"):
						q.Vector = make([]float32, emb.Dim()) // no known word
					case strings.HasPrefix(text, "review"):
						q.Shortlist, q.Depth, q.K, q.Neighbors = 5, 7, 10, 3
					}
					want, werr := mem.Search(ctx, q)
					for _, x := range []*Index{wv, post} {
						got, gerr := x.Search(ctx, q)
						if (werr != nil) != (gerr != nil) {
							t.Fatalf("%q [%s]: memory error %v, weaviate error %v", text, fname, werr, gerr)
						}
						if werr != nil {
							continue
						}
						if diff := compare(want, got); diff != "" {
							t.Errorf("%q [%s, pushdown=%v]: %s", text, fname, x == wv, diff)
						}
						compared++
					}
				}
			}
			t.Logf("%d searches compared", compared)
		})
	}
}

// compare returns how got differs from want, "" when they agree: the same
// candidates in the same order (up to equal fused scores) with the same
// ranks and details, the same neighbours and term weights.
func compare(want, got *index.Result) string {
	if want.Allowed != got.Allowed {
		return fmt.Sprintf("allowed %d, want %d", got.Allowed, want.Allowed)
	}
	if len(want.Candidates) != len(got.Candidates) {
		return fmt.Sprintf("%d candidates, want %d:\n got  %v\n want %v", len(got.Candidates),
			len(want.Candidates), docsOf(got), docsOf(want))
	}
	for i := range want.Candidates {
		w, g := want.Candidates[i], got.Candidates[i]
		if w.Doc != g.Doc {
			if w.Fused == g.Fused {
				continue // a tie
			}
			return fmt.Sprintf("shortlist differs at %d:\n got  %v\n want %v", i+1, docsOf(got), docsOf(want))
		}
		g.Entry, w.Entry = nil, nil
		if !close64(w.BM25, g.BM25) || !close64(w.Fused, g.Fused) || w.BM25Rank != g.BM25Rank ||
			w.DenseRank != g.DenseRank || w.Dense != g.Dense || w.DescSim != g.DescSim ||
			w.ExampleSim != g.ExampleSim || w.BestExample != g.BestExample || w.CentroidSim != g.CentroidSim ||
			!close64(w.ExampleBM25, g.ExampleBM25) || w.FusedRank != g.FusedRank {
			return fmt.Sprintf("candidate %d (doc %d) differs:\n got  %+v\n want %+v", i+1, w.Doc, g, w)
		}
	}
	if !sameNeighbors(want.Neighbors, got.Neighbors) {
		return fmt.Sprintf("neighbors:\n got  %v\n want %v", got.Neighbors, want.Neighbors)
	}
	if !sameNeighbors(want.LexNeighbors, got.LexNeighbors) {
		return fmt.Sprintf("lex neighbors:\n got  %v\n want %v", got.LexNeighbors, want.LexNeighbors)
	}
	if !slices.Equal(want.TermWeights, got.TermWeights) {
		return fmt.Sprintf("term weights %v, want %v", got.TermWeights, want.TermWeights)
	}
	return ""
}

func close64(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a)) }

// sameNeighbors compares neighbour lists up to the order of equal scores.
func sameNeighbors(a, b []index.Neighbor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Sim != b[i].Sim {
			return false
		}
		if a[i].Doc != b[i].Doc && (i+1 >= len(a) || a[i+1].Sim != a[i].Sim) && (i == 0 || a[i-1].Sim != a[i].Sim) {
			return false
		}
	}
	return true
}

func docsOf(r *index.Result) []string {
	out := make([]string, len(r.Candidates))
	for i, c := range r.Candidates {
		out[i] = fmt.Sprintf("%d:%.5f", c.Doc, c.Fused)
	}
	return out
}

// TestMatcher runs the whole matcher on both indexes: same decisions.
func TestMatcher(t *testing.T) {
	cat, errs := catalog.LoadDir("../../../examples/catalog")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	mem, err := match.New(cat, match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	wv, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithIndex(Builder(Config{URL: weaviateURL, GRPC: weaviateGRPC, Catalog: "matcher"})))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, text := range exampleQueries {
		for _, out := range [][]string{nil, {"image/png"}, {"application/pdf"}} {
			want, err := mem.Shortlist(ctx, reqOf(text, out...))
			if err != nil {
				t.Fatal(err)
			}
			got, err := wv.Shortlist(ctx, reqOf(text, out...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := compare(want.Retrieval, got.Retrieval); diff != "" {
				t.Errorf("%q %v: %s", text, out, diff)
			}
		}
	}
}

// TestLexTextScores: Weaviate's view of a skill (each term repeated
// scale·weight times, whitespace tokens, k1 scaled; its BM25 formula
// without the (k1+1) factor) orders and scores skills as the in-memory
// BM25F does, up to a constant factor.
func TestLexTextScores(t *testing.T) {
	docs := catalogDocs(t, "../../../examples/catalog")
	w := index.DefaultFieldWeights
	s, err := weightScale(w)
	if err != nil || s != 2 {
		t.Fatalf("scale %d, %v; want 2", s, err)
	}
	mem := bm25.New()
	tf := make([]map[string]float64, len(docs))
	dl := make([]float64, len(docs))
	df := map[string]float64{}
	var sum float64
	for i := range docs {
		d := &docs[i]
		mem.Add(i, bm25.Field{Text: d.Name, Weight: w.Name}, bm25.Field{Text: strings.Join(d.Tags, "\n"), Weight: w.Tags},
			bm25.Field{Text: d.Description, Weight: w.Description}, bm25.Field{Text: d.AgentName, Weight: w.AgentName},
			bm25.Field{Text: strings.Join(d.Examples, "\n"), Weight: w.Examples})
		tf[i] = map[string]float64{}
		for _, tok := range strings.Fields(lexText(d, w, s)) { // Weaviate's whitespace tokenization
			if tf[i][tok] == 0 {
				df[tok]++
			}
			tf[i][tok]++
			dl[i]++
		}
		sum += dl[i]
	}
	n, avg, k1, b := float64(len(docs)), sum/float64(len(docs)), bm25.DefaultK1*float64(s), bm25.DefaultB
	for _, q := range exampleQueries {
		terms := analyze.Terms(q)
		for _, h := range mem.Search(terms, 0, nil) {
			var score float64 // segment_blockmax.go: idf · tf/(tf + k1·(1-b+b·dl/avgdl))
			for _, term := range terms {
				if f := tf[h.Doc][term]; f > 0 {
					idf := math.Log(1 + (n-df[term]+0.5)/(df[term]+0.5))
					score += idf * f / (f + k1*(1-b+b*dl[h.Doc]/avg))
				}
			}
			if want := h.Score / (bm25.DefaultK1 + 1); math.Abs(score-want) > 1e-9*want {
				t.Fatalf("%q: doc %d scores %v in Weaviate's formula, want %v", q, h.Doc, score, want)
			}
		}
	}
	if _, err := weightScale(index.FieldWeights{Name: 0.3}); err == nil {
		t.Error("weight 0.3 accepted")
	}
}

func TestUnreachable(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	_, err := New(ctx, Config{URL: "http://127.0.0.1:1", Retry: 300 * time.Millisecond}, catalogDocs(t, "../../../examples/catalog"), embed.Default())
	if err == nil || !strings.Contains(err.Error(), ErrUnreachable.Error()) {
		t.Fatalf("err = %v, want %v", err, ErrUnreachable)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
	t.Log(err)
}

// reqOf is a requirement for a need; an output type makes the matcher's
// filters keep only some skills, so the filter reaches the index.
func reqOf(text string, outputs ...string) *extract.Requirement {
	return &extract.Requirement{Need: text, OutputTypes: outputs}
}
