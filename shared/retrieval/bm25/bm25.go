// Package bm25 is an in-memory BM25 index over documents made of weighted
// text fields: the lexical retriever of skillmatch, where a document is one
// skill of an agent card.
//
// Fields are combined BM25F-style (Robertson, Zaragoza and Taylor 2004, with
// one shared length normalisation): a term's frequency in a document is the
// weighted sum of its counts in the fields, and the document's length is the
// weighted sum of the field lengths. A word in a skill's name thus counts as
// several words of its description without a second scoring pass per field.
//
//	idf(t)    = ln(1 + (N - df + 0.5) / (df + 0.5))
//	score(q,d) = Σ_{t∈q} idf(t) · tf·(k1+1) / (tf + k1·(1 - b + b·dl/avgdl))
//
// The ln(1+…) form (as in Lucene) keeps the idf positive even for a term in
// every document, so adding a matching term can never lower a score.
package bm25

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Default BM25 parameters, the usual ones from the literature.
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// Field is one weighted text field of a document, such as a skill's name
// (weight 3) or its description (weight 1). Text is run through
// analyze.Terms when the document is added.
type Field struct {
	Text string
	// Words, when not nil, are analyze.AppendWords of Text, split by the
	// caller (an index build splits each card text once for every index
	// and the vectors); Text is then not read.
	Words  []string
	Weight float64
}

// Hit is one search result.
type Hit struct {
	Doc   int
	Score float64
}

// Option configures an Index.
type Option func(*Index)

// WithParams sets the BM25 parameters: k1 ≥ 0 controls how fast repeated
// terms saturate, b in [0, 1] how strongly long documents are penalised.
// New panics on values outside those ranges.
func WithParams(k1, b float64) Option {
	return func(ix *Index) { ix.k1, ix.b = k1, b }
}

// posting is one document in a term's postings list. Slots are internal,
// dense document numbers, so the search can score into a flat array. The
// weighted tf is a float32 to keep a posting at 8 bytes; field weights and
// counts are small numbers that float32 holds exactly or to 1e-7.
type posting struct {
	slot uint32
	tf   float32
}

// doc is what the index keeps per slot.
type doc struct {
	id   int
	live bool
	// terms[start:end] in Index.terms are the distinct term ids of the
	// document, needed to update document frequencies on removal.
	start, end uint32
}

// Index is an in-memory BM25 index. It is safe for concurrent use: any
// number of searches run in parallel, Add and Remove take an exclusive lock.
type Index struct {
	k1, b float64

	mu sync.RWMutex

	dict     map[string]uint32 // term → term id
	vocab    []string          // term id → term
	postings [][]posting       // term id → postings, ascending by slot
	df       []int32           // term id → live documents containing it

	slots  map[int]uint32 // live document id → slot
	docs   []doc          // slot → document
	lens   []float64      // slot → weighted length; apart from docs for cache locality while scoring
	terms  []uint32       // arena of each slot's distinct term ids
	live   int            // documents in the index (N)
	dead   int            // removed slots still present in postings
	sumLen float64        // Σ lens over live slots

	acc []float64 // Add's scratch: term id → weighted tf of the document being added

	wordIDs map[string][]uint32 // word → its term ids, see wordTerms

	scratch  sync.Pool // *scratch, one per concurrent search
	wordBufs sync.Pool // *wordBuf, one per concurrent Add
}

// scratch is a search's working memory: a dense score per slot, reused
// across queries and left all zero after each, and the slots a sparse query
// touched (see accumulate).
type scratch struct {
	score   []float64
	touched []uint32 // slots with a score, unless dense
	dense   bool     // scan score[:n] instead of touched
	n       int
	query   []qterm
}

// qterm is a distinct known query term and how often the query repeats it.
type qterm struct {
	id uint32
	n  float64
}

// New returns an empty index.
func New(opts ...Option) *Index {
	ix := &Index{
		k1:      DefaultK1,
		b:       DefaultB,
		dict:    make(map[string]uint32),
		slots:   make(map[int]uint32),
		wordIDs: make(map[string][]uint32),
	}
	for _, o := range opts {
		o(ix)
	}
	if !(ix.k1 >= 0) || math.IsInf(ix.k1, 1) || !(ix.b >= 0 && ix.b <= 1) {
		panic(fmt.Sprintf("bm25: invalid parameters k1=%v b=%v", ix.k1, ix.b))
	}
	ix.scratch.New = func() any { return new(scratch) }
	return ix
}

// Len is the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// AvgLen is the mean weighted document length, 0 for an empty index.
func (ix *Index) AvgLen() float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.avgLen()
}

func (ix *Index) avgLen() float64 {
	if ix.live == 0 {
		return 0
	}
	return ix.sumLen / float64(ix.live)
}

// Add indexes document doc, replacing any document already stored under
// that id. Fields of weight 0 are skipped; Add panics on a negative or
// non-finite weight, which would make scores meaningless. A document without
// terms still counts towards N and the average length.
//
// Each field's text becomes the terms analyze.Terms would give; queries
// must be analysed the same way.
func (ix *Index) Add(doc int, fields ...Field) {
	for i, f := range fields {
		if !(f.Weight >= 0) || math.IsInf(f.Weight, 1) {
			panic(fmt.Sprintf("bm25: field %d of doc %d has weight %v", i, doc, f.Weight))
		}
	}

	// Splitting into words needs no shared state, so it happens before
	// taking the lock, into a buffer reused from document to document;
	// stemming is memoised under the lock.
	buf, _ := ix.wordBufs.Get().(*wordBuf)
	if buf == nil {
		buf = &wordBuf{}
	}
	w, ends := buf.words[:0], buf.ends[:0]
	for _, f := range fields {
		switch {
		case f.Weight == 0:
		case f.Words != nil:
			w = append(w, f.Words...)
		default:
			w = analyze.AppendWords(w, f.Text)
		}
		ends = append(ends, len(w))
	}
	words := buf.fields[:0]
	for i := range fields {
		lo := 0
		if i > 0 {
			lo = ends[i-1]
		}
		words = append(words, w[lo:ends[i]])
	}

	func() {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if s, ok := ix.slots[doc]; ok {
			ix.removeSlot(s)
		}
		ix.addWords(doc, fields, words)
		ix.maybeCompact()
	}()

	clear(w) // the buffer must not keep the texts alive
	clear(words)
	buf.words, buf.ends, buf.fields = w[:0], ends[:0], words[:0]
	ix.wordBufs.Put(buf)
}

// wordBuf is Add's scratch: the words of every field, where each field's
// end, and the fields' word lists.
type wordBuf struct {
	words  []string
	ends   []int
	fields [][]string
}

// addWords appends a document in a new slot. The distinct term ids go
// straight into the arena, which doubles as the list of acc entries to
// read and reset.
func (ix *Index) addWords(id int, fields []Field, words [][]string) {
	slot := uint32(len(ix.docs))
	start := len(ix.terms)
	var length float64
	for i, f := range fields {
		if f.Weight == 0 {
			continue
		}
		n := 0
		for _, w := range words[i] {
			for _, tid := range ix.wordTerms(w) {
				if ix.acc[tid] == 0 {
					ix.terms = append(ix.terms, tid)
				}
				ix.acc[tid] += f.Weight
				n++
			}
		}
		length += f.Weight * float64(n)
	}
	for _, tid := range ix.terms[start:] {
		ix.postings[tid] = append(ix.postings[tid], posting{slot: slot, tf: float32(ix.acc[tid])})
		ix.df[tid]++
		ix.acc[tid] = 0
	}
	ix.docs = append(ix.docs, doc{id: id, live: true, start: uint32(start), end: uint32(len(ix.terms))})
	ix.lens = append(ix.lens, length)
	ix.slots[id] = slot
	ix.live++
	ix.sumLen += length
}

func (ix *Index) termID(t string) uint32 {
	if id, ok := ix.dict[t]; ok {
		return id
	}
	id := uint32(len(ix.vocab))
	ix.dict[t] = id
	ix.vocab = append(ix.vocab, t)
	ix.postings = append(ix.postings, nil)
	ix.df = append(ix.df, 0)
	ix.acc = append(ix.acc, 0)
	return id
}

// Remove deletes document doc; removing an unknown id does nothing.
//
// The slot is only marked dead: its postings stay until more than half the
// slots are dead, when the index is compacted in one pass. That keeps
// Remove O(distinct terms) instead of rewriting long postings lists, and the
// amortised cost of compaction per removal is a few postings.
func (ix *Index) Remove(doc int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if s, ok := ix.slots[doc]; ok {
		ix.removeSlot(s)
		ix.maybeCompact()
	}
}

func (ix *Index) removeSlot(s uint32) {
	d := &ix.docs[s]
	for _, tid := range ix.terms[d.start:d.end] {
		ix.df[tid]--
	}
	delete(ix.slots, d.id)
	d.live = false
	ix.live--
	ix.dead++
	ix.sumLen -= ix.lens[s]
	if ix.live == 0 {
		ix.sumLen = 0 // drop accumulated rounding error
	}
}

func (ix *Index) maybeCompact() {
	if ix.dead > ix.live {
		ix.compact()
	}
}

// compact drops dead slots from every structure, renumbering slots and terms
// while keeping their order, so postings stay sorted by slot. Terms no live
// document uses are forgotten, so replacing cards does not grow the
// vocabulary forever.
func (ix *Index) compact() {
	const gone = math.MaxUint32

	slotMap := make([]uint32, len(ix.docs))
	docs := make([]doc, 0, ix.live)
	lens := make([]float64, 0, ix.live)
	for s, d := range ix.docs {
		if !d.live {
			slotMap[s] = gone
			continue
		}
		slotMap[s] = uint32(len(docs))
		docs = append(docs, d)
		lens = append(lens, ix.lens[s])
	}

	termMap := make([]uint32, len(ix.vocab))
	kept := 0
	for tid, w := range ix.vocab {
		if ix.df[tid] == 0 {
			termMap[tid] = gone
			delete(ix.dict, w)
			continue
		}
		termMap[tid] = uint32(kept)
		ix.dict[w] = uint32(kept)
		ix.vocab[kept] = w
		ix.df[kept] = ix.df[tid]
		ix.postings[kept] = compactPostings(ix.postings[tid], slotMap)
		kept++
	}
	clear(ix.vocab[kept:])
	clear(ix.postings[kept:])
	ix.vocab, ix.df, ix.postings = ix.vocab[:kept], ix.df[:kept], ix.postings[:kept]
	ix.acc = make([]float64, kept)
	clear(ix.wordIDs) // it holds old term ids

	terms := make([]uint32, 0, len(ix.terms))
	for i := range docs {
		d := &docs[i]
		start := len(terms)
		for _, tid := range ix.terms[d.start:d.end] {
			terms = append(terms, termMap[tid])
		}
		d.start, d.end = uint32(start), uint32(len(terms))
		ix.slots[d.id] = uint32(i)
	}

	ix.docs, ix.lens, ix.terms, ix.dead = docs, lens, terms, 0
	ix.sumLen = 0
	for _, l := range lens {
		ix.sumLen += l // recomputed to shed the drift of many subtractions
	}
}

// compactPostings filters dead slots out of ps in place and renumbers the
// rest; a list that shrank a lot is copied so its memory is released.
func compactPostings(ps []posting, slotMap []uint32) []posting {
	out := ps[:0]
	for _, p := range ps {
		if s := slotMap[p.slot]; s != math.MaxUint32 {
			out = append(out, posting{slot: s, tf: p.tf})
		}
	}
	if cap(out) > 2*len(out)+8 {
		out = slices.Clone(out)
	}
	return out
}
