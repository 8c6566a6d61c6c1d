package index

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

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
// embedder on workers goroutines, any other in batches — while two more
// goroutines build the BM25 indexes, which need only the texts.
func BuildStats(docs []Doc, emb vector.Embedder, w FieldWeights, workers int) (Stats, error) {
	for i := range docs {
		if docs[i].Key == "" {
			return Stats{}, fmt.Errorf("index doc %d: missing key", i)
		}
	}
	// Vector numbers are known before any vector: each doc's description,
	// then its examples. The example BM25 index is numbered alike.
	first := make([]int32, len(docs)+1)
	for i := range docs {
		first[i+1] = first[i] + 1 + int32(len(docs[i].Examples))
	}
	prepare(docs, workers)
	defer func() {
		for i := range docs {
			docs[i].split = nil
		}
	}()
	st := Stats{Lex: bm25.New(), ExLex: bm25.New()}
	var wg sync.WaitGroup
	wg.Go(func() {
		// A field per tag and per example, of the tags' and examples'
		// weight, counts as the tags or examples joined would, without a
		// joined copy of them per doc: the same additions in the same
		// order, and a length that sums weight × words tag by tag, exact
		// for weights in eighths (the defaults; the Weaviate index
		// requires them).
		var fields []bm25.Field
		for i := range docs {
			d := &docs[i]
			if d.Untrusted {
				continue
			}
			fields = append(fields[:0], bm25.Field{Text: d.Name, Words: d.text(0), Weight: w.Name})
			for j, t := range d.Tags {
				fields = append(fields, bm25.Field{Text: t, Words: d.text(1 + j), Weight: w.Tags})
			}
			fields = append(fields, bm25.Field{Text: d.Description, Words: d.text(d.descText()), Weight: w.Description},
				bm25.Field{Text: d.AgentName, Words: d.text(d.agentText()), Weight: w.AgentName})
			for j, e := range d.Examples {
				fields = append(fields, bm25.Field{Text: e, Words: d.text(d.exampleText(j)), Weight: w.Examples})
			}
			st.Lex.Add(i, fields...)
		}
	})
	wg.Go(func() {
		for i := range docs {
			if docs[i].Untrusted {
				continue
			}
			d := &docs[i]
			for j, ex := range d.Examples {
				st.ExLex.Add(int(first[i])+1+j, bm25.Field{Text: ex, Words: d.text(d.exampleText(j)), Weight: 1})
			}
		}
	})
	st.Vectors = newVectorsFor(emb.Dim(), first)
	var err error
	if local, ok := emb.(vector.Local); ok {
		embedLocal(docs, local, &st.Vectors, workers)
	} else {
		err = embedRemote(docs, emb, &st.Vectors)
	}
	wg.Wait()
	if err != nil {
		return Stats{}, err
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

// embedLocal embeds every doc on workers goroutines, each writing its
// docs' vectors in place, which is most of an index build and needs no
// shared state.
func embedLocal(docs []Doc, emb vector.Local, vs *Vectors, workers int) {
	const chunk = 64
	var next atomic.Int64
	into, _ := emb.(vector.LocalInto)
	if into != nil && into.Dim() != vs.Dim {
		into = nil // put panics with the reason
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			var ex [][]float32
			var scratch []string
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(docs) {
					return
				}
				for i := lo; i < min(lo+chunk, len(docs)); i++ {
					d := &docs[i]
					if into != nil {
						// Straight into the array from the words split
						// once: no vector allocated and copied per text.
						// The description's text is the name's words,
						// then its own (DescriptionText).
						v := int(vs.First[i])
						scratch = append(append(scratch[:0], d.text(0)...), d.text(d.descText())...)
						into.EmbedWordsInto(vs.Vec(v), scratch)
						for j := range d.Examples {
							into.EmbedWordsInto(vs.Vec(v+1+j), d.text(d.exampleText(j)))
						}
						vs.placed(i)
						continue
					}
					ex = ex[:0]
					for _, e := range d.Examples {
						ex = append(ex, emb.EmbedText(e))
					}
					vs.put(i, emb.EmbedText(DescriptionText(d)), ex)
				}
			}
		})
	}
	wg.Wait()
}

// embedRemote embeds every doc's texts in one call, which a remote
// embedder batches and caches (vector.EmbedDocuments). The build has no
// context of its own: the embedder's timeouts and retry budget bound it.
func embedRemote(docs []Doc, emb vector.Embedder, vs *Vectors) error {
	var texts []string
	for i := range docs {
		d := &docs[i]
		texts = append(texts, DescriptionText(d))
		texts = append(texts, d.Examples...)
	}
	all, err := vector.EmbedDocuments(context.Background(), emb, texts)
	if err != nil {
		return fmt.Errorf("index: embed %d texts: %w", len(texts), err)
	}
	for i := range docs {
		n := 1 + len(docs[i].Examples)
		vs.put(i, all[0], all[1:n])
		all = all[n:]
	}
	return nil
}

// prepare analyzes, on workers goroutines, each doc that was not
// analyzed yet (nor had its term sets filled by its caller), and splits
// the texts of any other doc whose words are not kept: every reader of
// the build then has each doc's words. After AnalyzeAll, which keeps
// them, it does nothing.
func prepare(docs []Doc, workers int) {
	missing := false
	for i := range docs { // by index: a Doc is too big to copy per look
		if docs[i].split == nil {
			missing = true
			break
		}
	}
	if !missing {
		return
	}
	split := make([]docWords, len(docs))
	eachDoc(docs, workers, func(i int, s *scratch) {
		switch d := &docs[i]; {
		case d.split != nil:
		case !d.analyzed && d.NameTerms == nil && d.DescTerms == nil:
			d.analyze(s, &split[i])
		default:
			d.splitOnly(s, &split[i])
		}
	})
}
