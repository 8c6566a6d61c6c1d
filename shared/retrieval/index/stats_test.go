package index

import (
	"fmt"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// remoteOnly hides the Local interface, so BuildStats takes the batch path.
type remoteOnly struct{ vector.Embedder }

// localOnly hides EmbedInto, so BuildStats allocates each vector and
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
		{"local without EmbedInto", localOnly{emb}, 2}, {"batch", remoteOnly{emb}, 2}} {
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
