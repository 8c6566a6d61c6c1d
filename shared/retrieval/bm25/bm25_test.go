package bm25

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

func text(ws ...string) Field { return Field{Text: strings.Join(ws, " "), Weight: 1} }

// threeDocs is the corpus of the hand-computed tests:
//
//	1: cat dog        dl=2
//	2: cat cat fish   dl=3
//	3: bird           dl=1
//
// N=3, avgdl=2.
func threeDocs() *Index {
	ix := New()
	ix.Add(1, text("cat", "dog"))
	ix.Add(2, text("cat", "cat", "fish"))
	ix.Add(3, text("bird"))
	return ix
}

func TestScoreHandComputed(t *testing.T) {
	// idf(cat)  = ln(1 + (3-2+0.5)/(2+0.5)) = ln 1.6
	// idf(bird) = ln(1 + (3-1+0.5)/(1+0.5)) = ln(8/3)
	// doc 1, cat: tf=1, norm = 1.2·(0.25+0.75·2/2) = 1.2   → 1·2.2/(1+1.2)  = 1
	// doc 2, cat: tf=2, norm = 1.2·(0.25+0.75·3/2) = 1.65  → 2·2.2/(2+1.65) = 4.4/3.65
	// doc 3, bird: tf=1, norm = 1.2·(0.25+0.75·1/2) = 0.75 → 2.2/1.75
	catIDF, birdIDF := math.Log(1.6), math.Log(8.0/3)
	tests := []struct {
		query []string
		want  map[int]float64
	}{
		{[]string{"cat"}, map[int]float64{1: catIDF, 2: catIDF * 4.4 / 3.65}},
		{[]string{"bird"}, map[int]float64{3: birdIDF * 2.2 / 1.75}},
		{[]string{"cat", "bird"}, map[int]float64{1: catIDF, 2: catIDF * 4.4 / 3.65, 3: birdIDF * 2.2 / 1.75}},
		{[]string{"cat", "cat"}, map[int]float64{1: 2 * catIDF, 2: 2 * catIDF * 4.4 / 3.65}},
		{[]string{"unicorn"}, map[int]float64{}},
		{nil, map[int]float64{}},
	}
	ix := threeDocs()
	for _, tt := range tests {
		t.Run(strings.Join(tt.query, "+"), func(t *testing.T) {
			got := map[int]float64{42: 1} // stale entry Scores must clear
			ix.Scores(tt.query, got)
			assertScores(t, got, tt.want, 1e-12)
			for doc := 1; doc <= 3; doc++ {
				if s := ix.Score(tt.query, doc); math.Abs(s-tt.want[doc]) > 1e-12 {
					t.Errorf("Score(doc %d) = %v, want %v", doc, s, tt.want[doc])
				}
			}
			docs := []int{3, 7, 1, 2, 1} // an unknown doc, a repeat
			each := make([]float64, len(docs))
			ix.ScoreEach(tt.query, docs, each)
			for i, doc := range docs {
				if s := ix.Score(tt.query, doc); each[i] != s {
					t.Errorf("ScoreEach: doc %d scores %v, Score %v", doc, each[i], s)
				}
			}
			hits := ix.Search(tt.query, 10, nil)
			if len(hits) != len(tt.want) {
				t.Fatalf("Search returned %v, want %d hits", hits, len(tt.want))
			}
			for i, h := range hits {
				if h.Score != got[h.Doc] {
					t.Errorf("hit %v disagrees with Scores %v", h, got[h.Doc])
				}
				if i > 0 && !better(hits[i-1], h) {
					t.Errorf("hits not sorted: %v", hits)
				}
			}
		})
	}
}

func TestWeightedFieldsHandComputed(t *testing.T) {
	ix := New()
	// tf(cat) = 3·1 + 1·1 = 4, dl = 3·1 + 1·2 = 5.
	ix.Add(1, Field{Text: "cat", Weight: 3}, Field{Text: "cat dog", Weight: 1})
	// dl = 0.5·1 + 1·1 = 1.5; the zero-weight field counts for nothing.
	ix.Add(2, Field{Text: "dog", Weight: 0.5}, Field{Text: "fish", Weight: 1}, Field{Text: "cat cat cat", Weight: 0})
	if got, want := ix.AvgLen(), (5+1.5)/2; got != want {
		t.Fatalf("AvgLen = %v, want %v", got, want)
	}
	// avgdl = 3.25. cat: df=1, idf = ln(1+1.5/1.5) = ln 2.
	// doc 1: 4·2.2 / (4 + 1.2·(0.25 + 0.75·5/3.25))
	// dog: df=2, idf = ln(1+0.5/2.5) = ln 1.2.
	// doc 1: 1·2.2 / (1 + 1.2·(0.25+0.75·5/3.25)); doc 2: 0.5·2.2/(0.5 + 1.2·(0.25+0.75·1.5/3.25))
	norm1, norm2 := 1.2*(0.25+0.75*5/3.25), 1.2*(0.25+0.75*1.5/3.25)
	want := map[int]float64{
		1: math.Log(2)*4*2.2/(4+norm1) + math.Log(1.2)*2.2/(1+norm1),
		2: math.Log(1.2) * 0.5 * 2.2 / (0.5 + norm2),
	}
	got := map[int]float64{}
	ix.Scores([]string{"cat", "dog"}, got)
	assertScores(t, got, want, 1e-12)
}

func TestFieldWeightsChangeRanking(t *testing.T) {
	tests := []struct {
		name         string
		nameW, descW float64
		want         []int
	}{
		{"name heavier", 3, 1, []int{2, 1}},
		{"description heavier", 1, 3, []int{1, 2}},
		// Equal weights make the documents symmetric: a tie, broken by id.
		{"equal", 1, 1, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := New()
			ix.Add(1, Field{Text: "invoice", Weight: tt.nameW}, Field{Text: "payment reminder", Weight: tt.descW})
			ix.Add(2, Field{Text: "payment", Weight: tt.nameW}, Field{Text: "invoice reminder", Weight: tt.descW})
			ix.Add(3, Field{Text: "weather", Weight: tt.nameW}, Field{Text: "forecast today", Weight: tt.descW})
			hits := ix.Search(analyze.Terms("payments"), 10, nil)
			if got := docs(hits); !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v (hits %v)", got, tt.want, hits)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	ix := threeDocs()
	cat := []string{"cat"}
	before := ix.Score(cat, 1)

	ix.Remove(2)
	if ix.Len() != 2 || ix.AvgLen() != 1.5 {
		t.Fatalf("after Remove: Len=%d AvgLen=%v, want 2 and 1.5", ix.Len(), ix.AvgLen())
	}
	if s := ix.Score(cat, 2); s != 0 {
		t.Errorf("removed doc still scores %v", s)
	}
	if got := docs(ix.Search([]string{"fish"}, 10, nil)); len(got) != 0 {
		t.Errorf("removed doc's only term still finds %v", got)
	}
	// N=2, df(cat)=1, avgdl=1.5: idf = ln 2, norm = 1.2·(0.25+0.75·2/1.5) = 1.5.
	want := math.Log(2) * 2.2 / 2.5
	if s := ix.Score(cat, 1); math.Abs(s-want) > 1e-12 || s == before {
		t.Errorf("doc 1 scores %v after removal, want %v (was %v)", s, want, before)
	}
	if got := docs(ix.Search(cat, 10, nil)); !slices.Equal(got, []int{1}) {
		t.Errorf("Search(cat) = %v, want [1]", got)
	}

	ix.Remove(2) // unknown now: no-op
	ix.Remove(99)
	if ix.Len() != 2 {
		t.Fatalf("no-op Remove changed Len to %d", ix.Len())
	}

	// Removing the rest leaves an empty but usable index.
	ix.Remove(1)
	ix.Remove(3)
	if ix.Len() != 0 || ix.AvgLen() != 0 {
		t.Fatalf("empty index: Len=%d AvgLen=%v", ix.Len(), ix.AvgLen())
	}
	if hits := ix.Search(cat, 10, nil); len(hits) != 0 {
		t.Errorf("empty index found %v", hits)
	}
	ix.Add(2, text("cat", "cat", "fish"))
	if got := docs(ix.Search(cat, 10, nil)); !slices.Equal(got, []int{2}) {
		t.Errorf("re-added doc: Search = %v, want [2]", got)
	}
}

func TestAddReplaces(t *testing.T) {
	ix := threeDocs()
	ix.Add(2, text("bird", "song")) // card replaced: cat and fish are gone
	if ix.Len() != 3 {
		t.Fatalf("Len = %d, want 3", ix.Len())
	}
	if got, want := ix.AvgLen(), (2.0+2+1)/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("AvgLen = %v, want %v", got, want)
	}
	if got := docs(ix.Search([]string{"cat"}, 10, nil)); !slices.Equal(got, []int{1}) {
		t.Errorf("Search(cat) = %v, want [1]", got)
	}
	if got := docs(ix.Search([]string{"bird"}, 10, nil)); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("Search(bird) = %v, want [3 2] (shorter doc first)", got)
	}
}

func TestSearchTopKAndAllow(t *testing.T) {
	ix := New()
	// Doc i holds "match" i times in a 10-term document, so scores rise
	// with i; docs 20 and 21 are copies of 5 to create ties.
	for i := 1; i <= 10; i++ {
		ix.Add(i, text(strings.Fields(strings.Repeat("match ", i)+strings.Repeat("filler ", 10-i))...))
	}
	ix.Add(20, text(strings.Fields(strings.Repeat("match ", 5)+strings.Repeat("filler ", 5))...))
	ix.Add(21, text(strings.Fields(strings.Repeat("match ", 5)+strings.Repeat("filler ", 5))...))
	ix.Add(30, text("unrelated"))
	q := []string{"match"}
	even := func(doc int) bool { return doc%2 == 0 }
	tests := []struct {
		name  string
		k     int
		allow func(int) bool
		want  []int
	}{
		{"top 3", 3, nil, []int{10, 9, 8}},
		{"ties by id", 8, nil, []int{10, 9, 8, 7, 6, 5, 20, 21}},
		{"k larger than matches", 100, nil, []int{10, 9, 8, 7, 6, 5, 20, 21, 4, 3, 2, 1}},
		{"k=0 means all", 0, nil, []int{10, 9, 8, 7, 6, 5, 20, 21, 4, 3, 2, 1}},
		{"k=1", 1, nil, []int{10}},
		{"filter before top-k", 3, even, []int{10, 8, 6}},
		{"filter keeps ties", 5, even, []int{10, 8, 6, 20, 4}},
		{"filter rejects all", 3, func(int) bool { return false }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := docs(ix.Search(q, tt.k, tt.allow)); !slices.Equal(got, tt.want) {
				t.Errorf("Search = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	corpus := randomCorpus(rand.New(rand.NewPCG(7, 7)), 300)
	build := func(order []int) *Index {
		ix := New()
		for _, d := range order {
			ix.Add(d, corpus[d]...)
		}
		return ix
	}
	order := make([]int, len(corpus))
	for i := range order {
		order[i] = i
	}
	a := build(order)
	rand.New(rand.NewPCG(8, 8)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	b := build(order)
	for _, q := range []string{"alpha beta", "gamma gamma delta", "omega", "kappa lambda mu nu"} {
		query := analyze.Terms(q)
		first := a.Search(query, 20, nil)
		if again := a.Search(query, 20, nil); !slices.Equal(first, again) {
			t.Errorf("%q: repeated search differs:\n%v\n%v", q, first, again)
		}
		// The field weights are dyadic, so lengths sum exactly in any
		// order and insertion order must not matter at all.
		if other := b.Search(query, 20, nil); !slices.Equal(first, other) {
			t.Errorf("%q: insertion order changed results:\n%v\n%v", q, first, other)
		}
	}
}

// TestMatchesReference runs random adds, replacements and removals (enough
// to trigger compaction several times) and compares every score with a
// direct, map-based BM25F computation over the surviving documents.
func TestMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	corpus := randomCorpus(rng, 400)
	ix := New(WithParams(1.5, 0.6))
	ref := map[int][]Field{}
	queries := [][]string{
		analyze.Terms("alpha"), analyze.Terms("beta gamma"), analyze.Terms("delta delta epsilon zeta"),
		analyze.Terms("omega psi chi phi kappa"), analyze.Terms("nothing matches zzz"),
	}
	for step := 0; step < 3000; step++ {
		d := rng.IntN(len(corpus))
		switch op := rng.IntN(10); {
		case op < 6:
			fields := corpus[rng.IntN(len(corpus))] // possibly replacing d
			ix.Add(d, fields...)
			ref[d] = fields
		default:
			ix.Remove(d)
			delete(ref, d)
		}
		if step%97 != 0 {
			continue
		}
		if ix.Len() != len(ref) {
			t.Fatalf("step %d: Len = %d, want %d", step, ix.Len(), len(ref))
		}
		for _, q := range queries {
			want := referenceScores(ref, q, 1.5, 0.6)
			got := map[int]float64{}
			ix.Scores(q, got)
			assertScores(t, got, want, 1e-6)
			hits := ix.Search(q, 0, nil)
			if len(hits) != len(want) {
				t.Fatalf("step %d %q: Search found %d docs, want %d", step, q, len(hits), len(want))
			}
			for i, h := range hits {
				if i > 0 && !better(hits[i-1], h) {
					t.Fatalf("step %d: unsorted hits %v", step, hits)
				}
				if s := ix.Score(q, h.Doc); s != h.Score {
					t.Fatalf("step %d: Score(%d) = %v, Search says %v", step, h.Doc, s, h.Score)
				}
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	corpus := randomCorpus(rand.New(rand.NewPCG(3, 3)), 200)
	ix := New()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := 0; i < 500; i++ {
				d := rng.IntN(len(corpus))
				switch rng.IntN(4) {
				case 0:
					ix.Add(d, corpus[d]...)
				case 1:
					ix.Remove(d)
				default:
					ix.Search(analyze.Terms("alpha beta gamma"), 5, nil)
				}
			}
		}(w)
	}
	wg.Wait()
	// Whatever survived must score as a freshly computed reference does.
	// Every corpus document has terms, so it survived iff it matches the
	// whole alphabet.
	all := analyze.Terms(strings.Join(greek, " "))
	survivors := map[int][]Field{}
	for d := range corpus {
		if ix.Score(all, d) > 0 {
			survivors[d] = corpus[d]
		}
	}
	if ix.Len() != len(survivors) {
		t.Fatalf("Len = %d, but %d documents are findable", ix.Len(), len(survivors))
	}
	q := analyze.Terms("alpha beta")
	got := map[int]float64{}
	ix.Scores(q, got)
	assertScores(t, got, referenceScores(survivors, q, DefaultK1, DefaultB), 1e-6)
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"negative weight", func() { New().Add(1, Field{Text: "x", Weight: -1}) }},
		{"NaN weight", func() { New().Add(1, Field{Text: "x", Weight: math.NaN()}) }},
		{"infinite weight", func() { New().Add(1, Field{Text: "x", Weight: math.Inf(1)}) }},
		{"negative k1", func() { New(WithParams(-1, 0.5)) }},
		{"b above 1", func() { New(WithParams(1.2, 1.5)) }},
		{"NaN b", func() { New(WithParams(1.2, math.NaN())) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
}

func TestEmptyDocumentsCount(t *testing.T) {
	ix := New()
	ix.Add(1, Field{Text: "cat", Weight: 1})
	ix.Add(2, Field{Text: "", Weight: 1})
	ix.Add(3, Field{Text: "the of and", Weight: 1}) // only stopwords
	if ix.Len() != 3 {
		t.Fatalf("Len = %d, want 3", ix.Len())
	}
	// N=3, df=1, avgdl=1/3, dl=1: idf = ln(1+2.5/1.5), norm = 1.2·(0.25+0.75·3) = 3.
	want := math.Log(1+2.5/1.5) * 2.2 / 4
	if s := ix.Score([]string{"cat"}, 1); math.Abs(s-want) > 1e-12 {
		t.Errorf("Score = %v, want %v", s, want)
	}
}

// referenceScores is BM25F computed the obvious way, in float64.
func referenceScores(docs map[int][]Field, query []string, k1, b float64) map[int]float64 {
	tfs := map[int]map[string]float64{}
	lens := map[int]float64{}
	df := map[string]float64{}
	var sum float64
	for d, fields := range docs {
		tf := map[string]float64{}
		for _, f := range fields {
			terms := analyze.Terms(f.Text)
			for _, t := range terms {
				tf[t] += f.Weight
			}
			lens[d] += f.Weight * float64(len(terms))
		}
		for t, v := range tf {
			if v > 0 {
				df[t]++
			}
		}
		tfs[d] = tf
		sum += lens[d]
	}
	n := float64(len(docs))
	out := map[int]float64{}
	for d, tf := range tfs {
		var s float64
		for _, t := range query {
			if tf[t] == 0 {
				continue
			}
			idf := math.Log(1 + (n-df[t]+0.5)/(df[t]+0.5))
			s += idf * tf[t] * (k1 + 1) / (tf[t] + k1*(1-b+b*lens[d]/(sum/n)))
		}
		if s > 0 {
			out[d] = s
		}
	}
	return out
}

var greek = strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")

// randomCorpus makes skill-like documents over the Greek alphabet with
// name, tags, description and agent-name fields of dyadic weights.
func randomCorpus(rng *rand.Rand, n int) [][]Field {
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			// Squaring skews towards the start of the alphabet, so some
			// terms are common and some rare.
			u := rng.Float64()
			ws[i] = greek[int(u*u*float64(len(greek)))]
		}
		return strings.Join(ws, " ")
	}
	corpus := make([][]Field, n)
	for i := range corpus {
		corpus[i] = []Field{
			{Text: words(1 + rng.IntN(3)), Weight: 3},
			{Text: words(rng.IntN(4)), Weight: 2},
			{Text: words(3 + rng.IntN(15)), Weight: 1},
			{Text: words(1 + rng.IntN(2)), Weight: 0.5},
		}
	}
	return corpus
}

func assertScores(t *testing.T, got, want map[int]float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d scores %v, want %d %v", len(got), got, len(want), want)
	}
	ids := make([]int, 0, len(want))
	for d := range want {
		ids = append(ids, d)
	}
	sort.Ints(ids)
	for _, d := range ids {
		g, ok := got[d]
		if !ok || math.Abs(g-want[d]) > tol*math.Max(1, math.Abs(want[d])) {
			t.Errorf("doc %d: score %v (present %v), want %v", d, g, ok, want[d])
		}
	}
}

func docs(hits []Hit) []int {
	var out []int
	for _, h := range hits {
		out = append(out, h.Doc)
	}
	return out
}

func ExampleIndex_Search() {
	ix := New()
	ix.Add(1, Field{Text: "Create invoice", Weight: 3}, Field{Text: "Creates an invoice for a customer", Weight: 1})
	ix.Add(2, Field{Text: "Weather forecast", Weight: 3}, Field{Text: "Tells tomorrow's weather", Weight: 1})
	for _, h := range ix.Search(analyze.Terms("invoice the customer"), 5, nil) {
		fmt.Printf("%d %.3f\n", h.Doc, h.Score)
	}
	// Output:
	// 1 1.866
}

// TestCompaction checks that removing most documents compacts the index:
// dead slots and unused terms disappear and search results do not change.
func TestCompaction(t *testing.T) {
	ix := New()
	for i := 0; i < 10; i++ {
		ix.Add(i, text("shared", fmt.Sprintf("only%c", 'a'+i)))
	}
	q := analyze.Terms("shared")
	ix.Remove(0)
	ix.Remove(1)
	if ix.dead != 2 || len(ix.docs) != 10 {
		t.Fatalf("2 of 10 removed: dead=%d slots=%d, want lazy removal", ix.dead, len(ix.docs))
	}
	for i := 2; i < 6; i++ {
		ix.Remove(i)
	}
	// 6 dead > 4 live triggered compaction.
	if ix.dead != 0 || len(ix.docs) != 4 || len(ix.vocab) != 5 || len(ix.dict) != 5 {
		t.Fatalf("after compaction: dead=%d slots=%d words=%d dict=%d, want 0 4 5 5",
			ix.dead, len(ix.docs), len(ix.vocab), len(ix.dict))
	}
	for w, id := range ix.dict {
		if ix.vocab[id] != w {
			t.Errorf("dict[%q]=%d but vocab[%d]=%q", w, id, id, ix.vocab[id])
		}
	}
	if got := docs(ix.Search(q, 0, nil)); !slices.Equal(got, []int{6, 7, 8, 9}) {
		t.Errorf("Search after compaction = %v", got)
	}
	if got := docs(ix.Search(analyze.Terms("onlyh"), 0, nil)); !slices.Equal(got, []int{7}) {
		t.Errorf("rare term after compaction = %v", got)
	}
	if got := docs(ix.Search(analyze.Terms("onlya"), 0, nil)); len(got) != 0 {
		t.Errorf("forgotten term still finds %v", got)
	}
}

// indexedTerms returns the term frequencies the index holds for doc.
func indexedTerms(ix *Index, doc int) map[string]float64 {
	out := map[string]float64{}
	slot, ok := ix.slots[doc]
	if !ok {
		return out
	}
	d := ix.docs[slot]
	for _, tid := range ix.terms[d.start:d.end] {
		for _, p := range ix.postings[tid] {
			if p.slot == slot {
				out[ix.vocab[tid]] = float64(p.tf)
			}
		}
	}
	return out
}

func termCounts(terms []string) map[string]float64 {
	out := map[string]float64{}
	for _, t := range terms {
		out[t]++
	}
	return out
}

// checkIndexedTerms adds text twice (the second time the word cache is
// warm) and compares the indexed terms and length with analyze.Terms.
func checkIndexedTerms(t *testing.T, ix *Index, text string) {
	t.Helper()
	want := termCounts(analyze.Terms(text))
	for _, doc := range []int{1, 2} {
		ix.Add(doc, Field{Text: text, Weight: 1})
		if got := indexedTerms(ix, doc); !maps.Equal(got, want) {
			t.Errorf("%q (doc %d): indexed %v, want %v", text, doc, got, want)
		}
		if l, want := ix.lens[ix.slots[doc]], float64(len(analyze.Terms(text))); l != want {
			t.Errorf("%q: length %v, want %v", text, l, want)
		}
	}
}

// TestIndexedTermsMatchAnalyze guards the word cache's assumption that
// analyze.Terms works word by word: if analyze ever adds cross-word
// features, documents would silently be indexed under terms that queries
// are not analysed into.
func TestIndexedTermsMatchAnalyze(t *testing.T) {
	texts := []string{
		"",
		"Please transfer the funds between my accounts",
		"What's the weather in São Paulo? Don't forget the UV-index!",
		"Creates invoices; sends payment reminders when an invoice is overdue.",
		"PO-7781 balance: 1,234.56 EUR — ÜNÏCODE naïve café’s menu",
		"running runs runner ran easily fairly generously",
		"the of and a an it is", // only stopwords
		strings.Repeat("agent skill matching ", 50),
	}
	ix := New()
	for _, text := range texts {
		checkIndexedTerms(t, ix, text)
	}
}

func FuzzIndexedTermsMatchAnalyze(f *testing.F) {
	f.Add("Please transfer the funds between my accounts")
	f.Add("what's up? don’t STOP")
	ix := New()
	f.Fuzz(func(t *testing.T, text string) {
		checkIndexedTerms(t, ix, text)
	})
}

// TestSparseAndDensePaths checks both ways of collecting scores: recording
// touched slots for rare terms and scanning the score array for common
// ones, alone and mixed, with a removed document in the postings.
func TestSparseAndDensePaths(t *testing.T) {
	ix := New()
	ref := map[int][]Field{}
	for d := 0; d < 1000; d++ {
		f := []Field{{Text: "common filler", Weight: 1}}
		if d%200 == 0 {
			f = append(f, Field{Text: "rare", Weight: 2})
		}
		ix.Add(d, f...)
		ref[d] = f
	}
	ix.Remove(400) // dead slot that still holds a "rare" posting
	delete(ref, 400)
	tests := []struct {
		query string
		dense bool
	}{
		{"rare", false},
		{"common", true},
		{"rare common", true},
		{"unknown", false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := analyze.Terms(tt.query)
			sc := &scratch{}
			ix.accumulate(q, sc)
			if sc.dense != tt.dense {
				t.Errorf("dense = %v, want %v", sc.dense, tt.dense)
			}
			above := math.Inf(1) // visits nothing, still resets every score
			sc.drain(&above, func(s uint32, v float64) { t.Errorf("visited slot %d (%v) below the floor", s, v) })
			if slices.ContainsFunc(sc.score, func(v float64) bool { return v != 0 }) {
				t.Error("drain left scores behind")
			}

			got := map[int]float64{}
			ix.Scores(q, got)
			assertScores(t, got, referenceScores(ref, q, DefaultK1, DefaultB), 1e-9)
			hits := ix.Search(q, 3, nil)
			for _, h := range hits {
				if h.Score != got[h.Doc] {
					t.Errorf("hit %v, Scores says %v", h, got[h.Doc])
				}
			}
		})
	}
}

// TestAllowPanicLeavesIndexUsable checks that a panicking filter does not
// leave stale scores behind for the next search.
func TestAllowPanicLeavesIndexUsable(t *testing.T) {
	ix := threeDocs()
	func() {
		defer func() { _ = recover() }()
		ix.Search([]string{"cat"}, 10, func(int) bool { panic("boom") })
	}()
	want := map[int]float64{1: math.Log(1.6), 2: math.Log(1.6) * 4.4 / 3.65}
	for i := 0; i < 3; i++ {
		got := map[int]float64{}
		ix.Scores([]string{"cat"}, got)
		assertScores(t, got, want, 1e-12)
	}
}

func TestIDF(t *testing.T) {
	ix := New()
	ix.Add(0, Field{Text: "invoice payment", Weight: 1})
	ix.Add(1, Field{Text: "invoice refund", Weight: 1})
	ix.Add(2, Field{Text: "weather forecast", Weight: 1})
	common, rare, unknown := ix.IDF("invoic"), ix.IDF("refund"), ix.IDF("zebra")
	if !(common < rare && rare < unknown) {
		t.Errorf("IDF invoice %.3f, refund %.3f, unknown %.3f: want increasing", common, rare, unknown)
	}
}

// TestSearchEqualsFullRanking checks Search's top k, with and without a
// filter, against every score ranked in full: the early cut of hits that
// score below the worst kept one must not change which docs come back or
// their order, ties included (the random corpus repeats documents, so
// equal scores are common, and ids are added out of order), on both the sparse and the dense path and
// with dead slots in the postings.
func TestSearchEqualsFullRanking(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	corpus := randomCorpus(rng, 60)
	ix := New()
	// Ids out of slot order, so ties at the cut are met in any id order.
	for _, d := range rng.Perm(3000) {
		ix.Add(d, corpus[rng.IntN(len(corpus))]...) // repeats: ties
	}
	for d := 0; d < 3000; d += 7 {
		ix.Remove(d)
	}
	filters := map[string]func(int) bool{
		"all":  nil,
		"odd":  func(d int) bool { return d%2 == 1 },
		"rare": func(d int) bool { return d%97 == 3 },
	}
	for _, q := range []string{"alpha", "omega", "psi chi", "alpha beta gamma", "omega omega psi", "zzz"} {
		query := analyze.Terms(q)
		all := map[int]float64{}
		ix.Scores(query, all)
		for name, allow := range filters {
			var want []Hit
			for d, s := range all {
				if allow == nil || allow(d) {
					want = append(want, Hit{Doc: d, Score: s})
				}
			}
			slices.SortFunc(want, func(a, b Hit) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			for _, k := range []int{1, 5, 20, 100, 0} {
				got := ix.Search(query, k, allow)
				w := want
				if k > 0 && len(w) > k {
					w = w[:k]
				}
				if !slices.Equal(got, w) {
					t.Errorf("%q, filter %s, k=%d:\n got %v\nwant %v", q, name, k, got, w)
				}
			}
		}
	}
}
