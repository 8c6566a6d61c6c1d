package index

import (
	"context"
	"runtime"
	"slices"
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
	exLex *bm25.Index
	// dense finds the nearest docs and vectors, exactly.
	dense *Dense
	// exact makes dense score every vector (ExactDense).
	exact bool
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
	m := &Memory{docs: docs, lex: st.Lex, exLex: st.ExLex, vs: st.Vectors, emb: emb}
	m.dense = NewDense(&m.vs, workers)
	return m, nil
}

// ExactDense returns a view of the index whose dense retriever scores
// every allowed vector in float32, skipping the int8 first pass: the
// reference that tests and benchmarks compare shortlists with.
func (m *Memory) ExactDense() *Memory {
	c := *m
	c.exact = true
	return &c
}

// CodeBytes is the memory the int8 codes of the dense first pass take,
// beside the float32 vectors.
func (m *Memory) CodeBytes() int { return m.dense.Bytes() }

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
	res := &Result{Allowed: n}
	if res.Allowed == 0 {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Both lexical searches run beside the dense one in a large index:
	// they take one core, and the dense scan streams its codes on as many
	// as it finds free, so the two no longer add up. In a small one they
	// run in line, without a closure and its captures on the heap.
	var lx lexical
	var denseIDs []int
	if len(m.vs.Owner) >= parallelMinVectors && len(q.Vector) == m.vs.Dim {
		var lexDone sync.WaitGroup
		p, qp := new(lexical), &Query{}
		*qp = q // the goroutine's copy: q itself stays off the heap
		lexDone.Go(func() { *p = m.lexical(qp, false) })
		denseIDs, res.Neighbors = m.denseSearch(&q, n)
		lexDone.Wait()
		lx = *p
	} else {
		lx = m.lexical(&q, true)
		denseIDs, res.Neighbors = m.denseSearch(&q, n)
	}
	hits, exHits := lx.hits, lx.exHits
	lexIDs := make([]int, len(hits))
	for i, h := range hits {
		lexIDs[i] = h.Doc
	}

	fused := fusion.TopRRF(q.K, q.Shortlist, lexIDs, denseIDs)
	res.Candidates = make([]Candidate, len(fused))
	var unranked []int // candidates the lexical list did not reach
	for i, f := range fused {
		c := Candidate{Doc: f.ID, Entry: &m.docs[f.ID], Fused: f.Score, FusedRank: i + 1,
			BM25Rank: f.Ranks[0], DenseRank: f.Ranks[1], BestExample: -1}
		if c.BM25Rank > 0 {
			c.BM25 = hits[c.BM25Rank-1].Score
		} else {
			unranked = append(unranked, i)
		}
		if len(q.Vector) == m.vs.Dim {
			m.vs.Detail(q.Vector, &c)
		}
		res.Candidates[i] = c
	}
	m.lexScores(&q, &lx, res.Candidates, unranked)
	if len(exHits) > 0 {
		res.LexNeighbors = make([]Neighbor, 0, len(exHits))
	}
	for _, h := range exHits {
		res.LexNeighbors = append(res.LexNeighbors, Neighbor{Doc: int(m.vs.Owner[h.Doc]), Sim: float32(h.Score)})
	}
	res.TermWeights = make([]float64, len(q.Terms))
	for i, t := range q.Terms {
		res.TermWeights[i] = m.lex.IDF(t)
	}
	return res, nil
}

// lexical is what the two BM25 searches found. In a small index they
// hold every doc's and example's score (and their indexes' read locks;
// neither is written once built) until the candidates' scores are read
// from them (lexScores), instead of searching each term's postings for
// each candidate again. A large index's searches clear their scores
// beside the dense scan, as they always did: the megabytes of a hundred
// thousand skills' scores cleared after it would lengthen the decision.
type lexical struct {
	hits, exHits []bm25.Hit
	held, exHeld bm25.Held
	holds        bool
}

// lexical runs both BM25 searches of q, holding their scores when hold.
func (m *Memory) lexical(q *Query, hold bool) lexical {
	lx := lexical{holds: hold}
	var allow, exAllow func(int) bool
	if a := q.Allow; a != nil {
		owner := m.vs.Owner
		allow = func(d int) bool { return a[d] }
		exAllow = func(v int) bool { return a[owner[v]] }
	}
	if !hold {
		lx.hits = m.lex.Search(q.Terms, q.Depth, allow)
		lx.exHits = m.exLex.Search(q.Terms, q.Neighbors, exAllow)
		return lx
	}
	lx.hits, lx.held = m.lex.SearchHeld(q.Terms, q.Depth, allow)
	lx.exHits, lx.exHeld = m.exLex.SearchHeld(q.Terms, q.Neighbors, exAllow)
	return lx
}

// denseSearch runs the dense retriever for q (nothing without a vector
// of the index's length); allowed is how many docs q allows.
func (m *Memory) denseSearch(q *Query, allowed int) ([]int, []Neighbor) {
	switch {
	case len(q.Vector) != m.vs.Dim:
		return nil, nil
	case m.exact:
		return m.dense.Exact(q.Vector, q.Allow, q.Depth, q.Neighbors)
	}
	return m.dense.Search(q.Vector, q.Allow, allowed, q.Depth, q.Neighbors)
}

// lexScores fills the BM25 of the candidates at unranked, which the
// lexical list did not reach, and every candidate's best single-example
// BM25 score, from the scores the searches held (then released) or else
// each index asked once for all of them.
func (m *Memory) lexScores(q *Query, lx *lexical, cands []Candidate, unranked []int) {
	scoreEach := func(ix *bm25.Index, h bm25.Held, docs []int, out []float64) {
		if lx.holds {
			h.ScoreEach(docs, out)
			h.Release()
		} else {
			ix.ScoreEach(q.Terms, docs, out)
		}
	}
	docs := make([]int, 0, max(len(unranked), 4*len(cands)))
	for _, i := range unranked {
		docs = append(docs, cands[i].Doc)
	}
	scores := make([]float64, cap(docs))
	scoreEach(m.lex, lx.held, docs, scores[:len(docs)])
	for k, i := range unranked {
		cands[i].BM25 = scores[k]
	}
	docs = docs[:0]
	for _, c := range cands {
		for v := m.vs.First[c.Doc] + 1; v < m.vs.First[c.Doc+1]; v++ {
			docs = append(docs, int(v))
		}
	}
	scores = slices.Grow(scores[:0], len(docs))[:len(docs)]
	scoreEach(m.exLex, lx.exHeld, docs, scores)
	for i := range cands {
		c := &cands[i]
		for v := m.vs.First[c.Doc] + 1; v < m.vs.First[c.Doc+1]; v++ {
			c.ExampleBM25 = max(c.ExampleBM25, scores[0])
			scores = scores[1:]
		}
	}
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
