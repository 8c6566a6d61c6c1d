package index

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// analyzeReference is Analyze as it was first written: each list built
// on its own from the joined texts. The shared-array Analyze must give
// the same lists, nil where empty.
func analyzeReference(d *Doc) {
	set := func(text string) []string {
		terms := analyze.Terms(text)
		if len(terms) == 0 {
			return nil
		}
		slices.Sort(terms)
		return slices.Compact(terms)
	}
	content := func(base []string, texts ...string) []string {
		out := append([]string(nil), base...)
		for _, t := range texts {
			for _, w := range analyze.Words(t) {
				if !analyze.IsStopword(w) && !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
		return out
	}
	d.NameTerms = set(d.Name)
	d.TagTerms = set(strings.Join(d.Tags, "\n"))
	d.DescTerms = set(d.Description)
	d.ExampleTerms = set(strings.Join(d.Examples, "\n"))
	d.LabelWords = content(nil, d.Name, strings.Join(d.Tags, "\n"))
	d.TextWords = content(d.LabelWords, d.Description, d.AgentName)
}

func analyzed(d Doc) [6][]string {
	return [6][]string{d.NameTerms, d.TagTerms, d.DescTerms, d.ExampleTerms, d.LabelWords, d.TextWords}
}

func TestAnalyzeMatchesReference(t *testing.T) {
	tests := []Doc{
		{},
		{Name: "the", Tags: []string{"a", "of"}, Description: "and the", AgentName: "it"},
		{Name: "Book a flight", Tags: []string{"flights", "booking"}, Description: "Books plane tickets between two cities.",
			AgentName: "Travel", Examples: []string{"book me a flight to Paris", "I'd like to fly"}},
		{Name: "ÉCOLE café", Tags: []string{"Straße", "don’t STOP"}, Description: "naïve façade x\xffy", AgentName: "İstanbul Ltd"},
		{Name: "pay pay pay", Tags: []string{"pay", "payment", "pay"}, Description: "pay the payments", Examples: []string{"pay", "pay"}},
		{Name: "weather", Tags: nil, Description: "", AgentName: "Weather", Examples: nil},
	}
	// Random docs over a small vocabulary with stopwords, repeats and case.
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("the a of Pay paying payment invoice INVOICES travel flights it's don't café Über ab x 12 book booking books")
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	for range 300 {
		d := Doc{Name: words(rng.IntN(4)), Description: words(rng.IntN(20)), AgentName: words(rng.IntN(3))}
		for range rng.IntN(4) {
			d.Tags = append(d.Tags, words(1+rng.IntN(2)))
		}
		for range rng.IntN(4) {
			d.Examples = append(d.Examples, words(rng.IntN(10)))
		}
		tests = append(tests, d)
	}
	var buf scratch
	for i, d := range tests {
		want, got, again := d, d, d
		analyzeReference(&want)
		got.Analyze()
		again.analyze(&buf, nil) // a reused scratch gives the same
		if !reflect.DeepEqual(analyzed(got), analyzed(want)) {
			t.Fatalf("doc %d %+v:\n got %q\nwant %q", i, d, analyzed(got), analyzed(want))
		}
		if !reflect.DeepEqual(analyzed(again), analyzed(want)) {
			t.Fatalf("doc %d with a reused buffer:\n got %q\nwant %q", i, analyzed(again), analyzed(want))
		}
	}
}

// TestAnalyzedListsAreIndependent checks that the lists sharing one
// backing array do not write over each other when a caller appends.
func TestAnalyzedListsAreIndependent(t *testing.T) {
	d := Doc{Name: "book flight", Tags: []string{"travel"}, Description: "books plane tickets", AgentName: "Skyways"}
	d.Analyze()
	before := analyzed(d)
	for i := range before {
		before[i] = slices.Clone(before[i])
	}
	_ = append(d.NameTerms, "x")
	_ = append(d.TagTerms, "x")
	_ = append(d.LabelWords, "x")
	if got := analyzed(d); !reflect.DeepEqual(got, before) {
		t.Errorf("an append changed another list: %q, was %q", got, before)
	}
}

// TestBuildStatsAnalyzesOnlyUnanalyzedDocs checks that an index build
// analyzes a doc nobody analyzed and leaves an analyzed one alone, even
// when its term sets are empty: the matcher reads the docs' words on
// another goroutine while the index is built.
func TestBuildStatsAnalyzesOnlyUnanalyzedDocs(t *testing.T) {
	for _, emb := range []struct {
		name string
		e    vector.Embedder
	}{{"local", embed.Default()}, {"batch", remoteOnly{embed.Default()}}} {
		fresh := Doc{Key: "a/fresh", Name: "Book a flight", Description: "Books plane tickets."}
		empty := Doc{Key: "a/empty", Name: "the", Description: "of a"}
		empty.Analyze()
		if empty.NameTerms != nil || empty.DescTerms != nil {
			t.Fatalf("the empty doc has terms %q %q", empty.NameTerms, empty.DescTerms)
		}
		empty.TextWords = []string{"marker"} // analysis would clear it
		docs := []Doc{fresh, empty}
		if _, err := BuildStats(docs, emb.e, DefaultFieldWeights, 2); err != nil {
			t.Fatal(err)
		}
		if len(docs[0].NameTerms) == 0 || len(docs[0].DescTerms) == 0 {
			t.Errorf("%s: the unanalyzed doc was not analyzed: %q %q", emb.name, docs[0].NameTerms, docs[0].DescTerms)
		}
		if !slices.Equal(docs[1].TextWords, []string{"marker"}) {
			t.Errorf("%s: the analyzed doc was analyzed again: %q", emb.name, docs[1].TextWords)
		}
	}
}
