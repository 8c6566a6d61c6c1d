package index

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/fusion"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// FieldWeights weight a skill's text in its BM25 document: the skill's own
// text counts more than the agent's name so a generic agent name cannot
// pull every one of its skills up.
type FieldWeights struct {
	Name, Tags, Description, AgentName, Examples float64
}

// DefaultFieldWeights favour the skill's name and tags.
var DefaultFieldWeights = FieldWeights{Name: 3, Tags: 2, Description: 1.5, AgentName: 0.5, Examples: 1}

// Memory is the embedded in-process index. It is immutable once built and
// safe for concurrent searches; a catalog change builds a new one.
type Memory struct {
	docs []Doc
	lex  *bm25.Index
	emb  vector.Embedder
	// vs holds every doc's vectors and prototype.
	vs Vectors
	// exLex indexes every example alone, numbered like the vectors.
	exLex   *bm25.Index
	workers int
}

// NewMemory builds an in-memory index of docs with the embedder.
// It weighs fields with DefaultFieldWeights and scans with GOMAXPROCS
// goroutines.
func NewMemory(docs []Doc, emb vector.Embedder) (*Memory, error) {
	workers := runtime.GOMAXPROCS(0)
	st, err := BuildStats(docs, emb, DefaultFieldWeights, workers)
	if err != nil {
		return nil, err
	}
	m := &Memory{docs: docs, lex: st.Lex, exLex: st.ExLex, vs: st.Vectors, emb: emb, workers: max(workers, 1)}
	return m, nil
}

// DescriptionText is the text embedded as a skill's description vector.
func DescriptionText(d *Doc) string {
	return d.Name + ". " + d.Description
}

// Doc returns doc i.
func (m *Memory) Doc(i int) *Doc { return &m.docs[i] }

// Len is the number of docs.
func (m *Memory) Len() int { return len(m.docs) }

// Embedder returns the embedder the index was built with.
func (m *Memory) Embedder() vector.Embedder { return m.emb }

// Search runs both retrievers over the allowed docs and fuses them.
func (m *Memory) Search(ctx context.Context, q Query) (*Result, error) {
	q, n, err := Prepare(q, len(m.docs))
	if err != nil {
		return nil, err
	}
	allowed := func(d int) bool { return q.Allow == nil || q.Allow[d] }
	res := &Result{Allowed: n}
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
	if len(q.Vector) == m.vs.Dim {
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
		if len(q.Vector) == m.vs.Dim {
			m.vs.Detail(q.Vector, &c)
		}
		res.Candidates[i] = c
	}
	m.exampleLex(q.Terms, res.Candidates)
	var exAllow func(int) bool
	if q.Allow != nil {
		exAllow = func(v int) bool { return q.Allow[m.vs.Owner[v]] }
	}
	for _, h := range m.exLex.Search(q.Terms, q.Neighbors, exAllow) {
		res.LexNeighbors = append(res.LexNeighbors, Neighbor{Doc: int(m.vs.Owner[h.Doc]), Sim: float32(h.Score)})
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
		for v := m.vs.First[c.Doc] + 1; v < m.vs.First[c.Doc+1]; v++ {
			c.ExampleBM25 = max(c.ExampleBM25, m.exLex.Score(terms, int(v)))
		}
	}
}

// scan computes every allowed doc's best cosine (-2 for disallowed docs)
// and the nearest vectors, splitting the work by doc ranges on large
// indexes.
func (m *Memory) scan(qv []float32, allow []bool, k int) ([]float32, []Neighbor) {
	best := make([]float32, len(m.docs))
	n := len(m.vs.Owner)
	workers := m.workers
	if n < 40000 {
		workers = 1
	}
	parts := make([]neighborHeap, workers)
	part := func(w, lo, hi int) {
		h := make(neighborHeap, 0, k+1)
		for d := lo; d < hi; d++ {
			if allow != nil && !allow[d] {
				best[d] = -2
				continue
			}
			b := float32(-2)
			for v := m.vs.First[d]; v < m.vs.First[d+1]; v++ {
				s := vector.Cosine(qv, m.vs.Vec(int(v)))
				if s > b {
					b = s
				}
				h.offer(Neighbor{Doc: d, Sim: s}, k)
			}
			best[d] = b
		}
		parts[w] = h
	}
	if workers == 1 {
		part(0, 0, len(m.docs)) // small index: a goroutine costs more than it saves
	} else {
		var wg sync.WaitGroup
		step := (len(m.docs) + workers - 1) / workers
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				part(w, w*step, min((w+1)*step, len(m.docs)))
			}()
		}
		wg.Wait()
	}
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
// best first, ties by id. A bounded min-heap keeps the worst kept entry on
// top, so most docs cost one comparison.
func topDocs(scores []float32, n int) []int {
	h := make([]scored, 0, n)
	for d, s := range scores {
		if s <= -2 {
			continue
		}
		e := scored{d, s}
		switch {
		case len(h) < n:
			h = append(h, e)
			siftUp(h, len(h)-1)
		case better(e, h[0]):
			h[0] = e
			siftDown(h, 0)
		}
	}
	slices.SortFunc(h, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
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

// siftUp and siftDown keep h a min-heap under better (worst on top).
func siftUp(h []scored, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []scored, i int) {
	for {
		l, worst := 2*i+1, i
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r := l + 1; r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// neighborHeap is a min-heap by similarity: the weakest kept neighbour on
// top.
type neighborHeap []Neighbor

func (h *neighborHeap) offer(n Neighbor, k int) {
	a := *h
	if len(a) < k {
		a = append(a, n)
		for i := len(a) - 1; i > 0; {
			p := (i - 1) / 2
			if a[p].Sim <= a[i].Sim {
				break
			}
			a[p], a[i] = a[i], a[p]
			i = p
		}
		*h = a
		return
	}
	if n.Sim <= a[0].Sim {
		return
	}
	a[0] = n
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(a) && a[l].Sim < a[m].Sim {
			m = l
		}
		if r := l + 1; r < len(a) && a[r].Sim < a[m].Sim {
			m = r
		}
		if m == i {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

func sortStrings(s []string) { sort.Strings(s) }
