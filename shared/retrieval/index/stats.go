package index

import (
	"context"
	"fmt"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Stats is what an index keeps in process to score its docs exactly: the
// skill-level BM25 (each field weighted as FieldWeights says), every
// example alone in a BM25 index numbered like the vectors, and the
// vectors. The memory and the Weaviate index both build it with
// BuildStats, so that they score alike.
type Stats struct {
	Lex     *bm25.Index
	ExLex   *bm25.Index
	Vectors Vectors
}

// BuildStats analyses (when not done yet) and embeds every doc — a Local
// embedder on workers goroutines, any other in batches — then indexes them
// in order.
func BuildStats(docs []Doc, emb vector.Embedder, w FieldWeights, workers int) (Stats, error) {
	for i := range docs {
		if docs[i].Key == "" {
			return Stats{}, fmt.Errorf("index doc %d: missing key", i)
		}
	}
	vecs := make([][][]float32, len(docs)) // per doc: description, then examples
	if local, ok := emb.(vector.Local); ok {
		embedLocal(docs, local, vecs, workers)
	} else if err := embedRemote(docs, emb, vecs); err != nil {
		return Stats{}, err
	}
	total := 0
	for i := range docs {
		total += 1 + len(docs[i].Examples)
	}
	st := Stats{Lex: bm25.New(), ExLex: bm25.New(), Vectors: NewVectors(emb.Dim(), len(docs), total)}
	for i := range docs {
		d := &docs[i]
		st.Lex.Add(i,
			bm25.Field{Text: d.Name, Weight: w.Name},
			bm25.Field{Text: joinAll(d.Tags), Weight: w.Tags},
			bm25.Field{Text: d.Description, Weight: w.Description},
			bm25.Field{Text: d.AgentName, Weight: w.AgentName},
			bm25.Field{Text: joinAll(d.Examples), Weight: w.Examples},
		)
		st.Vectors.AddDoc(i, vecs[i][0], vecs[i][1:])
		for j, ex := range d.Examples {
			st.ExLex.Add(int(st.Vectors.First[i])+1+j, bm25.Field{Text: ex, Weight: 1})
		}
		vecs[i] = nil // copied into Vectors
	}
	return st, nil
}

// DocVectors returns doc d's vectors: its description's, then each
// example's (views into vs, not copies).
func (vs *Vectors) DocVectors(d int) [][]float32 {
	lo, hi := int(vs.First[d]), int(vs.First[d+1])
	out := make([][]float32, 0, hi-lo)
	for v := lo; v < hi; v++ {
		out = append(out, vs.Vec(v))
	}
	return out
}

// embedLocal analyses and embeds every doc on workers goroutines, which is
// most of an index build and needs no shared state.
func embedLocal(docs []Doc, emb vector.Local, vecs [][][]float32, workers int) {
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d := &docs[i]
				if d.NameTerms == nil && d.DescTerms == nil {
					d.Analyze()
				}
				v := make([][]float32, 1+len(d.Examples))
				v[0] = emb.EmbedText(DescriptionText(d))
				for j, ex := range d.Examples {
					v[j+1] = emb.EmbedText(ex)
				}
				vecs[i] = v
			}
		}()
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
}

// embedRemote embeds every doc's texts in one call, which a remote
// embedder batches and caches (vector.EmbedDocuments). The build has no
// context of its own: the embedder's timeouts and retry budget bound it.
func embedRemote(docs []Doc, emb vector.Embedder, vecs [][][]float32) error {
	var texts []string
	for i := range docs {
		d := &docs[i]
		if d.NameTerms == nil && d.DescTerms == nil {
			d.Analyze()
		}
		texts = append(texts, DescriptionText(d))
		texts = append(texts, d.Examples...)
	}
	all, err := vector.EmbedDocuments(context.Background(), emb, texts)
	if err != nil {
		return fmt.Errorf("index: embed %d texts: %w", len(texts), err)
	}
	for i := range docs {
		n := 1 + len(docs[i].Examples)
		vecs[i], all = all[:n:n], all[n:]
	}
	return nil
}
