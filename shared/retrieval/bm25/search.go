package bm25

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Search returns the k best documents for query, a list of terms as
// analyze.Terms produces them, by score descending and doc id ascending on
// ties. Documents scoring 0 (no query term) are never returned. k ≤ 0 returns
// every matching document. allow, when not nil, filters documents before
// ranking, so a filter never leaves the result short of k when enough
// allowed documents match; it runs under the index's read lock and must not
// call Add or Remove.
//
// A term repeated in the query counts once per occurrence, as in standard
// BM25 and Lucene: "pay pay invoice" weighs pay twice.
func (ix *Index) Search(query []string, k int, allow func(doc int) bool) []Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.scratch.Get().(*scratch)

	ix.accumulate(query, sc)
	hits := ix.top(sc, k, allow, true)
	// Not deferred: if allow panics, the half-drained scratch is dropped
	// rather than handed, dirty, to the next search.
	ix.scratch.Put(sc)
	return hits
}

// Held is a search that keeps every document's score, read by its
// ScoreEach, until Release. It holds the index's read lock until then.
type Held struct {
	ix *Index
	sc *scratch
}

// SearchHeld is Search that also keeps every document's score: Held's
// ScoreEach gives what the index's ScoreEach gives for the same query, bit
// for bit (each score is the same products added in the same order), by
// reading them instead of searching each term's postings for each
// document. The caller must call Release, and no other method of the
// index before it.
func (ix *Index) SearchHeld(query []string, k int, allow func(doc int) bool) ([]Hit, Held) {
	ix.mu.RLock()
	sc := ix.scratch.Get().(*scratch)
	ix.accumulate(query, sc)
	return ix.top(sc, k, allow, false), Held{ix: ix, sc: sc}
}

// ScoreEach sets out[i] to the held query's score of docs[i] (0 for a
// document the index does not hold).
func (h Held) ScoreEach(docs []int, out []float64) {
	if len(out) != len(docs) {
		panic(fmt.Sprintf("bm25: ScoreEach of %d docs into %d scores", len(docs), len(out)))
	}
	for i, doc := range docs {
		out[i] = 0
		if slot, ok := h.ix.slots[doc]; ok && int(slot) < h.sc.n {
			out[i] = h.sc.score[slot]
		}
	}
}

// Release clears the held scores and lets the index change again.
func (h Held) Release() {
	h.sc.reset()
	h.ix.scratch.Put(h.sc)
	h.ix.mu.RUnlock()
}

// top drains sc's scores into the k best allowed hits; clearing false
// leaves the scores in place (SearchHeld).
func (ix *Index) top(sc *scratch, k int, allow func(doc int) bool, clearing bool) []Hit {
	top := topK{k: k}
	if k > 0 {
		top.heap = make([]Hit, 0, min(k, ix.live))
	}
	// A score below the worst kept hit cannot enter, whatever its doc:
	// once the heap is full most slots cost that one comparison (floor),
	// not a look at the doc and a call of allow (at 100,000 skills with
	// common query words, nearly every slot has a score).
	floor := math.Inf(-1)
	keep := func(s uint32, v float64) {
		if v <= 0 || top.loses(v) {
			return
		}
		if d := &ix.docs[s]; d.live && (allow == nil || allow(d.id)) {
			top.push(Hit{Doc: d.id, Score: v})
			if k > 0 && len(top.heap) == k {
				floor = top.heap[0].Score
			}
		}
	}
	if clearing {
		sc.drain(&floor, keep)
	} else {
		sc.visit(&floor, keep)
	}
	return top.sorted()
}

// Scores clears dst, then sets dst[doc] to the score of every document with
// a positive score for query. Reusing dst across queries avoids allocating.
func (ix *Index) Scores(query []string, dst map[int]float64) {
	clear(dst)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)

	ix.accumulate(query, sc)
	sc.drain(nil, func(s uint32, v float64) {
		if d := &ix.docs[s]; d.live && v > 0 {
			dst[d.id] = v
		}
	})
}

// Score is the score of one document for query, 0 when the document is
// unknown or matches no term. It binary-searches each term's postings
// instead of scoring the whole corpus, for rerankers that need a handful of
// documents.
func (ix *Index) Score(query []string, doc int) float64 {
	var out [1]float64
	ix.ScoreEach(query, []int{doc}, out[:])
	return out[0]
}

// ScoreEach sets out[i] to Score(query, docs[i]) for every i, looking the
// query's terms up and taking the lock once for all of them.
func (ix *Index) ScoreEach(query []string, docs []int, out []float64) {
	if len(out) != len(docs) {
		panic(fmt.Sprintf("bm25: ScoreEach of %d docs into %d scores", len(docs), len(out)))
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)

	sc.query = ix.lookup(query, sc.query[:0])
	p := ix.params()
	for i, doc := range docs {
		slot, ok := ix.slots[doc]
		if !ok {
			out[i] = 0
			continue
		}
		var sum float64
		for _, q := range sc.query {
			ps := ix.postings[q.id]
			j, found := slices.BinarySearchFunc(ps, slot, func(p posting, s uint32) int {
				return cmp.Compare(p.slot, s)
			})
			if found {
				sum += p.termWeight(q, ix.df[q.id]) * p.saturate(float64(ps[j].tf), ix.lens[slot])
			}
		}
		out[i] = sum
	}
}

// params holds what every posting's score needs, computed once per query.
type params struct {
	n      float64 // live documents
	k1p1   float64 // k1 + 1
	c1, c2 float64 // k1·(1-b) and k1·b/avgdl: the length norm is c1 + c2·dl
}

func (ix *Index) params() params {
	p := params{n: float64(ix.live), k1p1: ix.k1 + 1, c1: ix.k1 * (1 - ix.b)}
	if avg := ix.avgLen(); avg > 0 {
		p.c2 = ix.k1 * ix.b / avg
	}
	return p
}

// termWeight is the query-side factor of a term: idf times how often the
// query repeats it, times k1+1.
func (p params) termWeight(q qterm, df int32) float64 {
	d := float64(df)
	return q.n * math.Log(1+(p.n-d+0.5)/(d+0.5)) * p.k1p1
}

// saturate is the document-side factor tf / (tf + k1·(1-b+b·dl/avgdl)).
func (p params) saturate(tf, dl float64) float64 {
	return tf / (tf + p.c1 + p.c2*dl)
}

// accumulate scores every document containing a query term into sc.score.
// Dead slots are scored too; skipping them here would cost a lookup per
// posting, while callers drop them once per matching slot.
//
// When the query's postings are few, each touched slot is recorded once so
// that draining visits only those. When they cover a good part of the
// corpus, as frequent terms do, recording is skipped and drain scans the
// whole score array instead: a sequential scan beats an append per posting
// followed by random reads.
func (ix *Index) accumulate(query []string, sc *scratch) {
	if len(sc.score) < len(ix.docs) {
		sc.score = make([]float64, len(ix.docs), cap(ix.docs))
	}
	sc.n, sc.dense = len(ix.docs), false
	if ix.live == 0 {
		return
	}
	sc.query = ix.lookup(query, sc.query[:0])
	total := 0
	for _, q := range sc.query {
		total += len(ix.postings[q.id])
	}
	sc.dense = total >= sc.n/8
	p := ix.params()
	score, lens := sc.score, ix.lens
	for _, q := range sc.query {
		df := ix.df[q.id]
		if df == 0 {
			continue // only dead documents have it
		}
		w := p.termWeight(q, df)
		if sc.dense {
			for _, post := range ix.postings[q.id] {
				score[post.slot] += w * p.saturate(float64(post.tf), lens[post.slot])
			}
			continue
		}
		for _, post := range ix.postings[q.id] {
			if score[post.slot] == 0 {
				sc.touched = append(sc.touched, post.slot)
			}
			score[post.slot] += w * p.saturate(float64(post.tf), lens[post.slot])
		}
	}
}

// drain calls visit for every slot with a non-zero score of at least
// *floor (nil: any), which visit may raise as it goes (a top k's worst
// kept score), and resets the score array for the next query.
func (sc *scratch) drain(floor *float64, visit func(slot uint32, v float64)) {
	if sc.dense {
		score := sc.score[:sc.n]
		for s, v := range score {
			if v != 0 && (floor == nil || v >= *floor) {
				visit(uint32(s), v)
			}
		}
		clear(score)
		return
	}
	for _, s := range sc.touched {
		v := sc.score[s]
		sc.score[s] = 0
		if floor == nil || v >= *floor {
			visit(s, v)
		}
	}
	sc.touched = sc.touched[:0]
}

// reset zeroes the scores for the next query, as drain leaves them.
func (sc *scratch) reset() {
	if sc.dense {
		clear(sc.score[:sc.n])
		return
	}
	for _, s := range sc.touched {
		sc.score[s] = 0
	}
	sc.touched = sc.touched[:0]
}

// visit is drain without the reset: the scores stay for Held.
func (sc *scratch) visit(floor *float64, visit func(slot uint32, v float64)) {
	if sc.dense {
		for s, v := range sc.score[:sc.n] {
			if v != 0 && (floor == nil || v >= *floor) {
				visit(uint32(s), v)
			}
		}
		return
	}
	for _, s := range sc.touched {
		if v := sc.score[s]; floor == nil || v >= *floor {
			visit(s, v)
		}
	}
}

// lookup maps query terms to term ids, merging repeats into a count and
// dropping unknown terms. Queries are a few terms long, so a linear scan
// beats a map.
func (ix *Index) lookup(query []string, dst []qterm) []qterm {
next:
	for _, t := range query {
		id, ok := ix.dict[t]
		if !ok {
			continue
		}
		for i := range dst {
			if dst[i].id == id {
				dst[i].n++
				continue next
			}
		}
		dst = append(dst, qterm{id: id, n: 1})
	}
	return dst
}

// topK keeps the k best hits in a min-heap whose root is the worst kept
// hit, so each candidate costs O(1) when it loses and O(log k) when it
// enters. k ≤ 0 keeps everything.
type topK struct {
	k    int
	heap []Hit
}

// better orders hits as Search returns them.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

// loses says whether a hit of score v would be turned away whatever its
// doc: the heap is full and its worst hit scores more.
func (t *topK) loses(v float64) bool {
	return t.k > 0 && len(t.heap) == t.k && v < t.heap[0].Score
}

func (t *topK) push(h Hit) {
	if t.k <= 0 {
		t.heap = append(t.heap, h)
		return
	}
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		t.up(len(t.heap) - 1)
		return
	}
	if better(h, t.heap[0]) {
		t.heap[0] = h
		t.down(0)
	}
}

func (t *topK) up(i int) {
	h := t.heap
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func (t *topK) down(i int) {
	h := t.heap
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

func (t *topK) sorted() []Hit {
	slices.SortFunc(t.heap, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return t.heap
}
