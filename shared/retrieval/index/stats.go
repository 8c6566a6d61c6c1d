package index

import (
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

// BuildStats analyses (when not done yet) and embeds every doc on workers
// goroutines, which is most of the work and needs no shared state, then
// indexes them in order.
func BuildStats(docs []Doc, emb vector.Embedder, w FieldWeights, workers int) (Stats, error) {
	for i := range docs {
		if docs[i].Key == "" {
			return Stats{}, fmt.Errorf("index doc %d: missing key", i)
		}
	}
	vecs := make([][][]float32, len(docs)) // per doc: description, then examples
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
				v[0] = emb.Embed(DescriptionText(d))
				for j, ex := range d.Examples {
					v[j+1] = emb.Embed(ex)
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
