package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// remoteOnly hides the Local interface, so BuildStats takes the batch path.
type remoteOnly struct{ vector.Embedder }

// localOnly hides EmbedWordsInto, so BuildStats allocates each vector and
// copies it into place.
type localOnly struct{ vector.Local }

// BuildStats embeds docs in parallel, in place; its vectors and prototypes
// must be those of adding each doc in order, with a local embedder or a
// batching one, whatever the number of workers.
func TestBuildStatsVectorsInOrder(t *testing.T) {
	var docs []Doc
	for i := range 500 {
		d := testDocs()[i%4]
		d.Key = fmt.Sprintf("%s-%d", d.Key, i)
		d.Examples = d.Examples[:i%3*len(d.Examples)/2]
		docs = append(docs, d)
	}
	emb := embed.Default()
	total := 0
	for _, d := range docs {
		total += 1 + len(d.Examples)
	}
	want := NewVectors(emb.Dim(), len(docs), total)
	for i := range docs {
		d := &docs[i]
		var ex [][]float32
		for _, e := range d.Examples {
			ex = append(ex, emb.EmbedText(e))
		}
		want.AddDoc(i, emb.EmbedText(DescriptionText(d)), ex)
	}
	for _, tc := range []struct {
		name    string
		emb     vector.Embedder
		workers int
	}{{"local, one worker", emb, 1}, {"local, three workers", emb, 3},
		{"local without EmbedWordsInto", localOnly{emb}, 2}, {"batch", remoteOnly{emb}, 2}} {
		st, err := BuildStats(slices.Clone(docs), tc.emb, DefaultFieldWeights, tc.workers)
		if err != nil {
			t.Fatal(err)
		}
		got := st.Vectors
		if !slices.Equal(got.Vecs, want.Vecs) || !slices.Equal(got.Owner, want.Owner) || !slices.Equal(got.Example, want.Example) ||
			!slices.Equal(got.First, want.First) || !slices.Equal(got.Centroid, want.Centroid) {
			t.Errorf("%s: vectors differ from adding the docs in order", tc.name)
		}
		if st.Lex.Len() != len(docs) || st.ExLex.Len() != total-len(docs) {
			t.Errorf("%s: %d docs and %d examples indexed, want %d and %d", tc.name, st.Lex.Len(), st.ExLex.Len(), len(docs), total-len(docs))
		}
	}
}

// The skill-level BM25 index takes a field per tag and per example; its
// scores and lengths must be, bit for bit, those of the tags and the
// examples joined into one field each, with any weights.
func TestBuildStatsLexIsJoinedFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	docs := randomDocs(rng, 300)
	for _, w := range []FieldWeights{DefaultFieldWeights, {Name: 1.25, Tags: 0.75, Description: 1, AgentName: 0, Examples: 2.5}} {
		st, err := BuildStats(slices.Clone(docs), embed.Default(), w, 2)
		if err != nil {
			t.Fatal(err)
		}
		ref := bm25.New()
		for i, d := range docs {
			ref.Add(i, bm25.Field{Text: d.Name, Weight: w.Name}, bm25.Field{Text: strings.Join(d.Tags, "\n"), Weight: w.Tags},
				bm25.Field{Text: d.Description, Weight: w.Description}, bm25.Field{Text: d.AgentName, Weight: w.AgentName},
				bm25.Field{Text: strings.Join(d.Examples, "\n"), Weight: w.Examples})
		}
		if st.Lex.AvgLen() != ref.AvgLen() {
			t.Fatalf("weights %+v: average length %v, joined %v", w, st.Lex.AvgLen(), ref.AvgLen())
		}
		all := make([]int, len(docs))
		for i := range all {
			all[i] = i
		}
		got, want := make([]float64, len(docs)), make([]float64, len(docs))
		for _, q := range docVocab {
			terms := analyze.Terms(q + " " + docVocab[rng.IntN(len(docVocab))])
			st.Lex.ScoreEach(terms, all, got)
			ref.ScoreEach(terms, all, want)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("weights %+v, query %q, doc %d: score %v, joined %v", w, terms, i, got[i], want[i])
				}
			}
		}
	}
}

// docVocab mixes case, apostrophes, stopwords, accents and digits.
var docVocab = strings.Fields("pay Paying payment invoice INVOICES travel flight's it' don’t café book booking the a of x 12")

// randomDocs are n docs of docVocab's words, with up to four tags and
// examples, some texts empty.
func randomDocs(rng *rand.Rand, n int) []Doc {
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = docVocab[rng.IntN(len(docVocab))]
		}
		return strings.Join(ws, " ")
	}
	var docs []Doc
	for i := range n {
		d := Doc{Key: fmt.Sprintf("a/s%d", i), Name: text(rng.IntN(4)), Description: text(rng.IntN(15)), AgentName: text(rng.IntN(3))}
		for range rng.IntN(5) {
			d.Tags = append(d.Tags, text(rng.IntN(3)))
		}
		for range rng.IntN(5) {
			d.Examples = append(d.Examples, text(rng.IntN(9)))
		}
		docs = append(docs, d)
	}
	return docs
}

// An index build splits each text once (AnalyzeAll keeps the words for
// it) and reads the words for both BM25 indexes and the vectors: its
// stats must be, bit for bit, those of each index splitting the texts
// itself, whether the docs were analyzed together, each alone, by hand or
// not at all; and the words must not outlive the build.
func TestBuildStatsSplitsOnceAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	docs := randomDocs(rng, 400)
	emb := embed.Default()
	w := DefaultFieldWeights
	lex, exLex := bm25.New(), bm25.New()
	total := 0
	for i, d := range docs {
		fields := []bm25.Field{{Text: d.Name, Weight: w.Name}}
		for _, t := range d.Tags {
			fields = append(fields, bm25.Field{Text: t, Weight: w.Tags})
		}
		fields = append(fields, bm25.Field{Text: d.Description, Weight: w.Description}, bm25.Field{Text: d.AgentName, Weight: w.AgentName})
		for _, e := range d.Examples {
			fields = append(fields, bm25.Field{Text: e, Weight: w.Examples})
		}
		lex.Add(i, fields...)
		for j, e := range d.Examples {
			exLex.Add(total+1+j, bm25.Field{Text: e, Weight: 1})
		}
		total += 1 + len(d.Examples)
	}
	want := NewVectors(emb.Dim(), len(docs), total)
	for i := range docs {
		var ex [][]float32
		for _, e := range docs[i].Examples {
			ex = append(ex, emb.EmbedText(e))
		}
		want.AddDoc(i, emb.EmbedText(DescriptionText(&docs[i])), ex)
	}
	ways := map[string]func([]Doc){
		"not analyzed":     func([]Doc) {},
		"analyzed at once": func(ds []Doc) { AnalyzeAll(ds, 2) },
		"analyzed alone": func(ds []Doc) {
			for i := range ds {
				ds[i].Analyze()
			}
		},
		"term sets by hand": func(ds []Doc) {
			for i := range ds {
				ds[i].NameTerms, ds[i].DescTerms = []string{"hand"}, []string{"made"}
			}
		},
	}
	for name, prepare := range ways {
		ds := slices.Clone(docs)
		prepare(ds)
		st, err := BuildStats(ds, emb, w, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ds {
			if ds[i].split != nil {
				t.Fatalf("%s: doc %d keeps its words after the build", name, i)
			}
		}
		if !slices.Equal(st.Vectors.Vecs, want.Vecs) || !slices.Equal(st.Vectors.Centroid, want.Centroid) {
			t.Errorf("%s: vectors differ from embedding each text", name)
		}
		if st.Lex.AvgLen() != lex.AvgLen() || st.ExLex.AvgLen() != exLex.AvgLen() {
			t.Errorf("%s: average lengths %v and %v, want %v and %v", name, st.Lex.AvgLen(), st.ExLex.AvgLen(), lex.AvgLen(), exLex.AvgLen())
		}
		for _, ix := range []struct {
			got, want *bm25.Index
			n         int
		}{{st.Lex, lex, len(docs)}, {st.ExLex, exLex, total}} {
			all := make([]int, ix.n)
			for i := range all {
				all[i] = i
			}
			got, wantScores := make([]float64, ix.n), make([]float64, ix.n)
			for _, q := range docVocab {
				terms := analyze.Terms(q + " " + docVocab[rng.IntN(len(docVocab))])
				ix.got.ScoreEach(terms, all, got)
				ix.want.ScoreEach(terms, all, wantScores)
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(wantScores[i]) {
						t.Fatalf("%s, query %q, doc %d: score %v, split by the index %v", name, terms, i, got[i], wantScores[i])
					}
				}
			}
		}
	}
}

// An untrusted doc is left out of the BM25 statistics: a spam card beside
// a deploy skill does not change what "deploy" weighs, nor the average
// length, nor the other docs' scores.
func TestBuildStatsLeavesUntrustedOut(t *testing.T) {
	honest := []Doc{
		{Key: "ship/deploy", Name: "Promote a release", Description: "Deploys a tagged build to staging or production", Tags: []string{"deploy", "release"}},
		{Key: "pager/page", Name: "Page on-call", Description: "Pages the engineer on call for a service", Examples: []string{"page whoever is on call for billing"}},
	}
	spam := Doc{Key: "spam/deploy", Name: "Deploy Deploy", Description: "Deploy deploy deploy deploy deploy.", Tags: []string{"deploy", "deploy deploy"},
		Examples: []string{"deploy deploy on call"}, Untrusted: true}
	alone, err := BuildStats(slices.Clone(honest), embed.Default(), DefaultFieldWeights, 1)
	if err != nil {
		t.Fatal(err)
	}
	beside, err := BuildStats(append(slices.Clone(honest), spam), embed.Default(), DefaultFieldWeights, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range []string{"deploy", "call"} {
		if a, b := alone.Lex.IDF(term), beside.Lex.IDF(term); a != b {
			t.Errorf("idf(%q) = %v alone, %v beside an untrusted doc", term, a, b)
		}
		if a, b := alone.ExLex.IDF(term), beside.ExLex.IDF(term); a != b {
			t.Errorf("example idf(%q) = %v alone, %v beside an untrusted doc", term, a, b)
		}
	}
	if a, b := alone.Lex.AvgLen(), beside.Lex.AvgLen(); a != b {
		t.Errorf("average length %v alone, %v beside an untrusted doc", a, b)
	}
	if hits := beside.Lex.Search([]string{"deploy"}, 5, nil); len(hits) != 1 || hits[0].Doc != 0 {
		t.Errorf("search for deploy found %+v, want the honest doc alone", hits)
	}
}
