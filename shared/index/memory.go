package index

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/skillmatch/skillmatch/shared/bm25"
	"github.com/skillmatch/skillmatch/shared/embed"
	"github.com/skillmatch/skillmatch/shared/fusion"
)

// FieldWeights weight a skill's text in its BM25 document: the skill's own
// text counts more than the agent's name so a generic agent name cannot
// pull every one of its skills up.
type FieldWeights struct {
	Name, Tags, Description, AgentName, Examples float64
}

// DefaultFieldWeights favour the skill's name and tags.
var DefaultFieldWeights = FieldWeights{Name: 3, Tags: 2, Description: 1.5, AgentName: 0.5, Examples: 1}

// MemoryOption configures a Memory index.
type MemoryOption func(*memoryConfig)

type memoryConfig struct {
	weights FieldWeights
	workers int
}

// WithFieldWeights sets the BM25 field weights.
func WithFieldWeights(w FieldWeights) MemoryOption {
	return func(c *memoryConfig) { c.weights = w }
}

// WithWorkers sets how many goroutines scan vectors on large indexes
// (default GOMAXPROCS).
func WithWorkers(n int) MemoryOption {
	return func(c *memoryConfig) { c.workers = n }
}

// Memory is the embedded in-process index. It is immutable once built and
// safe for concurrent searches; a catalog change builds a new one.
type Memory struct {
	docs []Doc
	lex  *bm25.Index
	emb  embed.Embedder
	dim  int
	// vecs holds every vector (each doc's description first, then its
	// examples) back to back; owner and example say whose each one is.
	vecs    []float32
	owner   []int32
	example []int32 // -1 for the description vector
	// first[d] is the index of doc d's first vector; first[len(docs)] = total.
	first []int32
	// centroid holds each doc's prototype vector back to back.
	centroid []float32
	// exLex indexes every example alone, numbered like the vectors.
	exLex   *bm25.Index
	workers int
}

// NewMemory builds an in-memory index of docs with the embedder.
func NewMemory(docs []Doc, emb embed.Embedder, opts ...MemoryOption) (*Memory, error) {
	cfg := memoryConfig{weights: DefaultFieldWeights, workers: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		o(&cfg)
	}
	m := &Memory{
		docs:    docs,
		lex:     bm25.New(),
		exLex:   bm25.New(),
		emb:     emb,
		dim:     emb.Dim(),
		first:   make([]int32, len(docs)+1),
		workers: max(cfg.workers, 1),
	}
	total := 0
	for i := range docs {
		total += 1 + len(docs[i].Examples)
	}
	m.vecs = make([]float32, 0, total*m.dim)
	m.owner = make([]int32, 0, total)
	m.example = make([]int32, 0, total)
	w := cfg.weights
	for i := range docs {
		d := &docs[i]
		if d.Key == "" {
			return nil, fmt.Errorf("index doc %d: missing key", i)
		}
		if d.NameTerms == nil && d.DescTerms == nil {
			d.Analyze()
		}
		m.lex.Add(i,
			bm25.Field{Text: d.Name, Weight: w.Name},
			bm25.Field{Text: joinAll(d.Tags), Weight: w.Tags},
			bm25.Field{Text: d.Description, Weight: w.Description},
			bm25.Field{Text: d.AgentName, Weight: w.AgentName},
			bm25.Field{Text: joinAll(d.Examples), Weight: w.Examples},
		)
		m.first[i] = int32(len(m.owner))
		desc := emb.Embed(DescriptionText(d))
		m.push(i, -1, desc)
		cen := make([]float32, m.dim)
		for j, ex := range d.Examples {
			v := emb.Embed(ex)
			m.exLex.Add(len(m.owner), bm25.Field{Text: ex, Weight: 1})
			m.push(i, j, v)
			for k := range cen {
				cen[k] += v[k]
			}
		}
		if len(d.Examples) == 0 {
			copy(cen, desc)
		}
		m.centroid = append(m.centroid, normalize(cen)...)
	}
	m.first[len(docs)] = int32(len(m.owner))
	return m, nil
}

// DescriptionText is the text embedded as a skill's description vector.
func DescriptionText(d *Doc) string {
	return d.Name + ". " + d.Description
}

func (m *Memory) push(doc, example int, v []float32) {
	m.vecs = append(m.vecs, v...)
	m.owner = append(m.owner, int32(doc))
	m.example = append(m.example, int32(example))
}

// Doc returns doc i.
func (m *Memory) Doc(i int) *Doc { return &m.docs[i] }

// Len is the number of docs.
func (m *Memory) Len() int { return len(m.docs) }

// Embedder returns the embedder the index was built with.
func (m *Memory) Embedder() embed.Embedder { return m.emb }

// Search runs both retrievers over the allowed docs and fuses them.
func (m *Memory) Search(ctx context.Context, q Query) (*Result, error) {
	q = q.withDefaults()
	if len(q.Terms) == 0 && len(q.Vector) == 0 {
		return nil, ErrEmptyQuery
	}
	if q.Allow != nil && len(q.Allow) != len(m.docs) {
		return nil, fmt.Errorf("index search: allow has %d entries for %d docs", len(q.Allow), len(m.docs))
	}
	allowed := func(d int) bool { return q.Allow == nil || q.Allow[d] }
	res := &Result{}
	for d := range m.docs {
		if allowed(d) {
			res.Allowed++
		}
	}
	if res.Allowed == 0 {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var lexIDs []int
	var allowFn func(int) bool
	if q.Allow != nil {
		allowFn = allowed
	}
	hits := m.lex.Search(q.Terms, q.Depth, allowFn)
	lexIDs = make([]int, len(hits))
	for i, h := range hits {
		lexIDs[i] = h.Doc
	}

	var denseIDs []int
	var best []float32
	if len(q.Vector) == m.dim {
		best, res.Neighbors = m.scan(q.Vector, q.Allow, q.Neighbors)
		denseIDs = topDocs(best, q.Depth)
	}

	fused := fusion.RRF(q.K, lexIDs, denseIDs)
	if len(fused) > q.Shortlist {
		fused = fused[:q.Shortlist]
	}
	res.Candidates = make([]Candidate, len(fused))
	for i, f := range fused {
		c := Candidate{Doc: f.ID, Entry: &m.docs[f.ID], Fused: f.Score, FusedRank: i + 1,
			BM25Rank: f.Ranks[0], DenseRank: f.Ranks[1], BestExample: -1}
		if c.BM25Rank > 0 {
			c.BM25 = hits[c.BM25Rank-1].Score
		} else {
			c.BM25 = m.lex.Score(q.Terms, f.ID)
		}
		if len(q.Vector) == m.dim {
			m.detail(q.Vector, &c)
		}
		res.Candidates[i] = c
	}
	m.exampleLex(q.Terms, res.Candidates)
	var exAllow func(int) bool
	if q.Allow != nil {
		exAllow = func(v int) bool { return q.Allow[m.owner[v]] }
	}
	for _, h := range m.exLex.Search(q.Terms, q.Neighbors, exAllow) {
		res.LexNeighbors = append(res.LexNeighbors, Neighbor{Doc: int(m.owner[h.Doc]), Sim: float32(h.Score)})
	}
	res.TermWeights = make([]float64, len(q.Terms))
	for i, t := range q.Terms {
		res.TermWeights[i] = m.lex.IDF(t)
	}
	return res, nil
}

// exampleLex fills each candidate's best single-example BM25 score.
func (m *Memory) exampleLex(terms []string, cands []Candidate) {
	for i := range cands {
		c := &cands[i]
		for v := m.first[c.Doc] + 1; v < m.first[c.Doc+1]; v++ {
			c.ExampleBM25 = max(c.ExampleBM25, m.exLex.Score(terms, int(v)))
		}
	}
}

func normalize(v []float32) []float32 {
	var n float32
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return v
	}
	inv := 1 / float32(math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// detail fills the dense fields of one candidate.
func (m *Memory) detail(qv []float32, c *Candidate) {
	lo, hi := m.first[c.Doc], m.first[c.Doc+1]
	c.Dense = -2
	c.ExampleSim = -1
	for v := lo; v < hi; v++ {
		s := embed.Cosine(qv, m.vecs[int(v)*m.dim:int(v+1)*m.dim])
		if s > c.Dense {
			c.Dense = s
		}
		if ex := m.example[v]; ex < 0 {
			c.DescSim = s
		} else if s > c.ExampleSim {
			c.ExampleSim, c.BestExample = s, int(ex)
		}
	}
	if c.ExampleSim < 0 {
		c.ExampleSim = c.DescSim
	}
	c.CentroidSim = embed.Cosine(qv, m.centroid[c.Doc*m.dim:(c.Doc+1)*m.dim])
}

// scan computes every allowed doc's best cosine (-2 for disallowed docs)
// and the nearest vectors, splitting the work by doc ranges on large
// indexes.
func (m *Memory) scan(qv []float32, allow []bool, k int) ([]float32, []Neighbor) {
	best := make([]float32, len(m.docs))
	n := len(m.owner)
	workers := m.workers
	if n < 40000 {
		workers = 1
	}
	parts := make([]neighborHeap, workers)
	var wg sync.WaitGroup
	step := (len(m.docs) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*step, min((w+1)*step, len(m.docs))
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			h := make(neighborHeap, 0, k+1)
			for d := lo; d < hi; d++ {
				if allow != nil && !allow[d] {
					best[d] = -2
					continue
				}
				b := float32(-2)
				for v := m.first[d]; v < m.first[d+1]; v++ {
					s := embed.Cosine(qv, m.vecs[int(v)*m.dim:int(v+1)*m.dim])
					if s > b {
						b = s
					}
					if len(h) < k {
						heap.Push(&h, Neighbor{Doc: d, Sim: s})
					} else if s > h[0].Sim {
						h[0] = Neighbor{Doc: d, Sim: s}
						heap.Fix(&h, 0)
					}
				}
				best[d] = b
			}
			parts[w] = h
		}(w, lo, hi)
	}
	wg.Wait()
	var all []Neighbor
	for _, p := range parts {
		all = append(all, p...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Sim != all[j].Sim {
			return all[i].Sim > all[j].Sim
		}
		return all[i].Doc < all[j].Doc
	})
	if len(all) > k {
		all = all[:k]
	}
	return best, all
}

// topDocs returns the ids of the n docs with the highest scores (> -2),
// best first, ties by id.
func topDocs(scores []float32, n int) []int {
	h := make(scoreHeap, 0, n+1)
	for d, s := range scores {
		if s <= -2 {
			continue
		}
		if len(h) < n {
			heap.Push(&h, scored{d, s})
		} else if better(scored{d, s}, h[0]) {
			h[0] = scored{d, s}
			heap.Fix(&h, 0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return better(h[i], h[j]) })
	out := make([]int, len(h))
	for i, e := range h {
		out[i] = e.doc
	}
	return out
}

type scored struct {
	doc int
	s   float32
}

func better(a, b scored) bool {
	if a.s != b.s {
		return a.s > b.s
	}
	return a.doc < b.doc
}

// scoreHeap is a min-heap: the worst kept entry on top.
type scoreHeap []scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type neighborHeap []Neighbor

func (h neighborHeap) Len() int           { return len(h) }
func (h neighborHeap) Less(i, j int) bool { return h[i].Sim < h[j].Sim }
func (h neighborHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *neighborHeap) Push(x any)        { *h = append(*h, x.(Neighbor)) }
func (h *neighborHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func sortStrings(s []string) { sort.Strings(s) }
