package index

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/skillmatch/skillmatch/shared/retrieval/quant"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// The dense retriever returns the depth docs with the highest best cosine
// over their vectors, and the k vectors nearest to the query. Both are
// exact, whichever way they are computed:
//
//   - few vectors to score (a small catalog, or a filter that keeps
//     little), or no SIMD kernel on this CPU: every allowed vector is
//     scored in float32;
//   - otherwise a first pass estimates every cosine from int8 codes
//     (package quant) with a proven error bound, keeps each doc and
//     vector whose upper bound still reaches the depth-th (k-th) best
//     lower bound, and scores only those in float32. A doc left out is
//     below depth docs for certain, so the answer is the exact scan's,
//     ties included (broken by doc number).
const (
	// quantMinVectors is the number of allowed vectors from which the
	// quantized pass pays for itself.
	quantMinVectors = 1024
	// parallelMinVectors is the number of vectors from which splitting
	// the first pass across goroutines pays for itself.
	parallelMinVectors = 40000
	// block is how many vectors one kernel call estimates: their codes
	// and bounds stay in the L1 cache while the docs are checked.
	block = 256
)

// Dense is the exact dense retriever over a Vectors, with its int8 codes.
type Dense struct {
	vs    *Vectors
	codes *quant.Set
	// widest is the most vectors one doc has (the scratch a block needs).
	widest  int
	workers int
	// scratch holds *searchScratch for quantized searches to reuse.
	scratch sync.Pool
}

// searchScratch is a quantized search's working memory, reused from
// search to search: at 1,000 skills it was a fifth of the bytes a
// decision allocated, and fresh memory costs a decision cache misses on
// top of the garbage collection.
type searchScratch struct {
	parts       []part
	floors      [2]floor // every part's docs' and vectors'
	cands, vecs []bound
	ids         []int32
	sims        []float32
	keys        []uint64 // sortByBound's
	top, near   topK
}

// NewDense quantizes vs for searches on up to workers goroutines.
func NewDense(vs *Vectors, workers int) *Dense {
	d := &Dense{vs: vs, workers: max(workers, 1)}
	docs := len(vs.First) - 1
	for i := range docs {
		d.widest = max(d.widest, int(vs.First[i+1]-vs.First[i]))
	}
	d.codes = quant.Encode(vs.Vecs, vs.Dim, workers)
	return d
}

// Bytes is the memory the codes take beside the float32 vectors.
func (d *Dense) Bytes() int { return d.codes.Bytes() }

// Search returns the ids of the depth best allowed docs (best first, ties
// by id) and the k nearest allowed vectors. allowed is how many docs allow
// keeps (all when allow is nil).
func (d *Dense) Search(qv []float32, allow []bool, allowed, depth, k int) ([]int, []Neighbor) {
	docs := len(d.vs.First) - 1
	if docs == 0 || allowed == 0 || len(qv) != d.vs.Dim {
		return nil, nil
	}
	vectors := len(d.vs.Owner)
	if allowed*vectors/docs < quantMinVectors || !quant.Accelerated() {
		return d.exact(qv, allow, depth, k)
	}
	return d.quantized(qv, allow, depth, k)
}

// Exact is the reference: every allowed vector scored in float32.
func (d *Dense) Exact(qv []float32, allow []bool, depth, k int) ([]int, []Neighbor) {
	if len(d.vs.First) <= 1 || len(qv) != d.vs.Dim {
		return nil, nil
	}
	return d.exact(qv, allow, depth, k)
}

func (d *Dense) exact(qv []float32, allow []bool, depth, k int) ([]int, []Neighbor) {
	vs := d.vs
	top, near := newTopK(depth), newTopK(k)
	sims := make([]float32, max(block, d.widest))
	docs := len(vs.First) - 1
	// Runs of allowed docs are scored a block of vectors at a time.
	for lo := 0; lo < docs; {
		for allow != nil && lo < docs && !allow[lo] {
			lo++
		}
		if lo == docs {
			break
		}
		hi := lo + 1
		for hi < docs && (allow == nil || allow[hi]) && int(vs.First[hi+1]-vs.First[lo]) <= len(sims) {
			hi++
		}
		v0 := int(vs.First[lo])
		vs.cosines(qv, v0, sims[:int(vs.First[hi])-v0])
		for doc := lo; doc < hi; doc++ {
			b := float32(math.Inf(-1))
			for _, s := range sims[int(vs.First[doc])-v0 : int(vs.First[doc+1])-v0] {
				if s > b { // a NaN from a broken vector never counts
					b = s
				}
				if s == s {
					near.offer(scored{doc, s})
				}
			}
			if b > float32(math.Inf(-1)) {
				top.offer(scored{doc, b})
			}
		}
		lo = hi
	}
	return top.docs(), near.neighbors()
}

// bound is a doc or vector the first pass could not rule out, with the
// upper bound of its score.
type bound struct {
	id int32
	up float32
}

// part is one goroutine's share of the first pass, with its scratch.
type part struct {
	docFloor, vecFloor floor
	docs, vecs         []bound
	dots               []int32
	lower, upper       []float32
}

func (d *Dense) quantized(qv []float32, allow []bool, depth, k int) ([]int, []Neighbor) {
	vs := d.vs
	q := d.codes.Query(qv)
	docs := len(vs.First) - 1
	workers := 1
	if len(vs.Owner) >= parallelMinVectors {
		workers = d.workers
	}
	sc, _ := d.scratch.Get().(*searchScratch)
	if sc == nil {
		sc = &searchScratch{}
	}
	defer d.scratch.Put(sc)
	if len(sc.parts) < workers {
		sc.parts = make([]part, workers)
	}
	parts := sc.parts[:workers]
	for w := range parts {
		parts[w].reset(depth, k)
	}
	if workers == 1 {
		d.firstPass(q, allow, 0, docs, &parts[0])
	} else {
		// The workers take chunks of docs as they go, each keeping its
		// own part (and floors) across its chunks: a worker that shares
		// its core with another process scans less, instead of the
		// search waiting for its fixed half.
		var wg sync.WaitGroup
		var next atomic.Int64
		chunk := max(1, docs/(8*workers))
		for w := range workers {
			wg.Go(func() {
				for {
					lo := int(next.Add(int64(chunk))) - chunk
					if lo >= docs {
						return
					}
					d.firstPass(q, allow, lo, min(lo+chunk, docs), &parts[w])
				}
			})
		}
		wg.Wait()
	}
	// The global thresholds: the depth-th best doc lower bound and k-th
	// best vector lower bound over every part.
	docFloor, vecFloor := &sc.floors[0], &sc.floors[1]
	docFloor.reset(depth)
	vecFloor.reset(k)
	for i := range parts {
		for _, x := range parts[i].docFloor.h {
			docFloor.offer(x)
		}
		for _, x := range parts[i].vecFloor.h {
			vecFloor.offer(x)
		}
	}
	dt, vt := docFloor.min(), vecFloor.min()
	cands, vecs := sc.cands[:0], sc.vecs[:0]
	for i := range parts {
		for _, c := range parts[i].docs {
			if c.up >= dt {
				cands = append(cands, c)
			}
		}
		for _, c := range parts[i].vecs {
			if c.up >= vt {
				vecs = append(vecs, c)
			}
		}
	}
	// Re-scored best bound first: once depth exact scores are in, a
	// candidate whose upper bound is below the worst of them cannot enter.
	sc.keys = sortByBound(cands, sc.keys)
	sc.keys = sortByBound(vecs, sc.keys)
	sc.cands, sc.vecs = cands, vecs
	top, near := &sc.top, &sc.near
	top.reset(depth)
	near.reset(k)
	// Re-scored a few docs' vectors at a time (one kernel call keeps its
	// four chains busy), in bound order all the same: a batch's docs past
	// the point where the loop would have stopped are scored for nothing
	// and offered to no one.
	limit := max(rescoreBatch, d.widest)
	if len(sc.sims) < limit {
		sc.ids, sc.sims = make([]int32, 0, limit), make([]float32, limit)
	}
	ids, sims := sc.ids[:0], sc.sims[:limit]
	for lo := 0; lo < len(cands); {
		if top.full() && cands[lo].up < top.h[0].s {
			break
		}
		hi := lo
		ids = ids[:0]
		for hi < len(cands) && (hi == lo || len(ids)+int(vs.First[cands[hi].id+1]-vs.First[cands[hi].id]) <= limit) {
			for v := vs.First[cands[hi].id]; v < vs.First[cands[hi].id+1]; v++ {
				ids = append(ids, v)
			}
			hi++
		}
		vector.CosinesAt(qv, vs.Vecs, ids, sims[:len(ids)])
		at := 0
		for _, c := range cands[lo:hi] {
			if top.full() && c.up < top.h[0].s {
				break
			}
			b := float32(math.Inf(-1))
			n := int(vs.First[c.id+1] - vs.First[c.id])
			for _, s := range sims[at : at+n] {
				if s > b {
					b = s
				}
			}
			at += n
			if b > float32(math.Inf(-1)) {
				top.offer(scored{int(c.id), b})
			}
		}
		lo = hi
	}
	for lo := 0; lo < len(vecs); lo += rescoreBatch {
		batch := vecs[lo:min(lo+rescoreBatch, len(vecs))]
		if near.full() && batch[0].up < near.h[0].s {
			break
		}
		ids = ids[:0]
		for _, c := range batch {
			ids = append(ids, c.id)
		}
		vector.CosinesAt(qv, vs.Vecs, ids, sims[:len(ids)])
		for i, c := range batch {
			if near.full() && c.up < near.h[0].s {
				break
			}
			if s := sims[i]; s == s {
				near.offer(scored{int(vs.Owner[c.id]), s})
			}
		}
	}
	return top.docs(), near.neighbors()
}

// sortByBound orders bs by upper bound, highest first (NaN last, as
// cmp.Compare has it), through keys: each bound packed with its id in one
// integer, so the sort compares integers instead of calling a comparison
// function, a tenth of the search at 1,000 skills. Equal bounds come out
// by id, where a comparison sort left them in any order: the search's
// answer does not depend on that order (every candidate that may enter
// is scored, whichever of equals comes first).
func sortByBound(bs []bound, keys []uint64) []uint64 {
	keys = keys[:0]
	for _, b := range bs {
		keys = append(keys, uint64(^boundKey(b.up))<<32|uint64(uint32(b.id)))
	}
	slices.Sort(keys)
	for i, k := range keys {
		bs[i] = bound{id: int32(uint32(k)), up: boundValue(^uint32(k >> 32))}
	}
	return keys
}

// boundKey maps a float32 to an integer in the same order (NaN lowest).
func boundKey(f float32) uint32 {
	b := math.Float32bits(f)
	switch {
	case f != f:
		return 0
	case b&(1<<31) != 0:
		return ^b
	}
	return b | 1<<31
}

// boundValue is the float32 boundKey mapped to k (a NaN for 0).
func boundValue(k uint32) float32 {
	if k&(1<<31) != 0 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// rescoreBatch is how many vectors the exact re-scoring hands the kernel
// at once.
const rescoreBatch = 32

// reset readies a part for a search of depth docs and k vectors,
// keeping its buffers.
func (p *part) reset(depth, k int) {
	p.docFloor.reset(depth)
	p.vecFloor.reset(k)
	p.docs, p.vecs = p.docs[:0], p.vecs[:0]
}

// firstPass bounds the scores of docs [lo, hi) and keeps those that may
// reach the top, block by block.
func (d *Dense) firstPass(q *quant.Query, allow []bool, lo, hi int, p *part) {
	vs := d.vs
	n := max(block, d.widest)
	if p.dots == nil {
		p.dots, p.lower, p.upper = make([]int32, n), make([]float32, n), make([]float32, n)
	}
	dots, lower, upper := p.dots, p.lower, p.upper
	for b := lo; b < hi; {
		// A doc the filters removed is never a candidate: its codes are
		// not read at all. Agent-level rules (data class, health) remove
		// whole agents, runs of docs, so a filtered task streams only
		// what it may choose from.
		for allow != nil && b < hi && !allow[b] {
			b++
		}
		if b == hi {
			break
		}
		e := b + 1
		for e < hi && (allow == nil || allow[e]) && int(vs.First[e+1]-vs.First[b]) <= block {
			e++
		}
		v0 := int(vs.First[b])
		nv := int(vs.First[e]) - v0
		d.codes.Bounds(q, v0, dots, lower[:nv], upper[:nv])
		// Most vectors fall below both floors: one comparison each. A
		// vector above sends its whole doc through the checks below.
		floor := min(p.docFloor.min(), p.vecFloor.min())
		for i := 0; i < nv; i++ {
			if upper[i] < floor {
				continue
			}
			doc := int(vs.Owner[v0+i])
			first, end := int(vs.First[doc])-v0, int(vs.First[doc+1])-v0
			i = end - 1 // the doc's other vectors are handled here
			up := maxOf(upper[first:end])
			if up >= p.docFloor.min() {
				p.docFloor.offer(maxOf(lower[first:end]))
				p.docs = append(p.docs, bound{int32(doc), up})
			}
			for j := first; j < end; j++ {
				if upper[j] >= p.vecFloor.min() {
					p.vecFloor.offer(lower[j])
					p.vecs = append(p.vecs, bound{int32(v0 + j), upper[j]})
				}
			}
			floor = min(p.docFloor.min(), p.vecFloor.min())
		}
		b = e
	}
}

// maxOf is the largest of xs (never NaN: bounds are not).
func maxOf(xs []float32) float32 {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

// floor keeps the n largest values offered; min is the smallest of them,
// -∞ until n were offered, and +∞ when n is 0 (nothing can enter).
type floor struct {
	h []float32
	n int
}

// reset empties f to keep the n largest values, reusing its buffer.
func (f *floor) reset(n int) {
	if cap(f.h) < n {
		f.h = make([]float32, 0, n)
	}
	f.h, f.n = f.h[:0], n
}

func (f *floor) min() float32 {
	if f.n == 0 {
		return float32(math.Inf(1))
	}
	if len(f.h) < f.n {
		return float32(math.Inf(-1))
	}
	return f.h[0]
}

func (f *floor) offer(x float32) {
	h := f.h
	switch {
	case f.n == 0:
		return
	case len(h) < f.n:
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		f.h = h
		return
	case x <= h[0]:
		return
	}
	h[0] = x
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(h) && h[l] < h[m] {
			m = l
		}
		if r := l + 1; r < len(h) && h[r] < h[m] {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// topK keeps the n best scored entries (highest score, ties by lower
// doc).
type topK struct {
	h []scored
	n int
}

func newTopK(n int) topK { return topK{h: make([]scored, 0, n), n: n} }

// reset empties t to keep the n best, reusing its buffer.
func (t *topK) reset(n int) {
	if cap(t.h) < n {
		t.h = make([]scored, 0, n)
	}
	t.h, t.n = t.h[:0], n
}

func (t *topK) full() bool { return len(t.h) >= t.n }

func (t *topK) offer(e scored) {
	switch {
	case t.n <= 0:
	case len(t.h) < t.n:
		t.h = append(t.h, e)
		siftUp(t.h, len(t.h)-1)
	case better(e, t.h[0]):
		t.h[0] = e
		siftDown(t.h, 0)
	}
}

// sorted returns the entries best first.
func (t *topK) sorted() []scored {
	slices.SortFunc(t.h, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return t.h
}

func (t *topK) docs() []int {
	s := t.sorted()
	out := make([]int, len(s))
	for i, e := range s {
		out[i] = e.doc
	}
	return out
}

func (t *topK) neighbors() []Neighbor {
	s := t.sorted()
	out := make([]Neighbor, len(s))
	for i, e := range s {
		out[i] = Neighbor{Doc: e.doc, Sim: e.s}
	}
	return out
}
