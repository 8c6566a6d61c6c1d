package rerank

import (
	"slices"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// WordVectors is the word-level view of an embedder that soft alignment
// reads (embed.GloVe is one): a unit vector and a corpus weight per word.
type WordVectors interface {
	Dim() int
	WordVector(dst []float32, w string) (weight float32, ok bool)
}

// alignment scores paraphrase word by word, which one averaged vector per
// text blurs: each word of one side is matched to its most similar word
// on the other side (cosine, negatives as 0), and the matches are averaged
// with the words' corpus weights, so "cash" meets "payment" without the
// two texts sharing a word, and rare words count more than common ones.
type alignment struct {
	wv   WordVectors
	dim  int
	task []wordVec
	// taskVecs holds the task words' unit vectors back to back.
	taskVecs []float32
	// sim caches each skill word's cosine with every task word; rowAt
	// and rowSlab do the same by WordCache row (rowAt[r] is where row r's
	// cosines start in rowSlab, -1 before they are computed).
	sim     map[string]skillWord
	rowAt   []int32
	rowSlab []float32
	// touched lists the rows rowAt holds, to reset it for the next
	// request (WordCache.release).
	touched []int32
	// col is allRows' scratch; rows is the WordCache scratch that
	// rowAt, rowSlab, touched and col were borrowed from.
	col  []float32
	rows *rowScratch
	buf  []float32
}

type skillWord struct {
	sims   []float32 // nil when the word has no vector
	weight float64
}

type wordVec struct {
	word   string
	weight float64
}

// Lexicon gives the stems of the words related to a word
// (lexicon.WordNet is one): synonyms, hypernyms, derived forms.
type Lexicon interface {
	RelatedStems(w string) []string
}

// newAlignment prepares the task's content words; nil when there are none
// with vectors (every alignment feature is then 0).
func newAlignment(wv WordVectors, need string) *alignment {
	if wv == nil {
		return nil
	}
	a := &alignment{wv: wv, dim: wv.Dim()}
	words := analyze.AppendContentWords(nil, 0, analyze.Words(need))
	a.taskVecs = make([]float32, 0, len(words)*a.dim)
	a.task = make([]wordVec, 0, len(words))
	for _, w := range words {
		n := len(a.taskVecs)
		a.taskVecs = a.taskVecs[:n+a.dim]
		if wt, ok := wv.WordVector(a.taskVecs[n:], w); ok {
			a.task = append(a.task, wordVec{w, float64(wt)})
		} else {
			a.taskVecs = a.taskVecs[:n]
		}
	}
	if len(a.task) == 0 {
		return nil
	}
	return a
}

// sims sets out[i] to the cosine of v with task word i, negatives as 0.
func (a *alignment) sims(v, out []float32) []float32 {
	vector.Cosines(v, a.taskVecs, out)
	for i, s := range out {
		out[i] = max(s, 0)
	}
	return out
}

// word is skill word w's cosine with each task word, and its weight.
func (a *alignment) word(w string) skillWord {
	if s, ok := a.sim[w]; ok {
		return s
	}
	var s skillWord
	v, wt, ok := a.vector(w)
	if ok {
		s.weight = float64(wt)
		s.sims = a.sims(v, make([]float32, len(a.task)))
	}
	if a.sim == nil {
		a.sim = map[string]skillWord{}
	}
	a.sim[w] = s
	return s
}

// vector is w's unit vector: read in place from a WordCache, else
// looked up into the scratch buffer.
func (a *alignment) vector(w string) ([]float32, float32, bool) {
	if c, ok := a.wv.(*WordCache); ok {
		if r, ok := c.at[w]; ok {
			if r < 0 {
				return nil, 0, false
			}
			return c.vecs[int(r)*c.dim : (int(r)+1)*c.dim], c.weight[r], true
		}
	}
	if a.buf == nil {
		a.buf = make([]float32, a.dim)
	}
	wt, ok := a.wv.WordVector(a.buf, w)
	return a.buf, wt, ok
}

// toSkill is the weighted mean over task words of each one's best match
// among the skill's words: how much of the task the skill's text speaks to.
func (a *alignment) toSkill(words []string) float64 {
	return a.coverTask(len(words), func(i int) []float32 { return a.word(words[i]).sims })
}

// fromSkill is the weighted mean over the skill's words of each one's best
// match among the task's words: how much of the skill's label the task
// asks for.
func (a *alignment) fromSkill(words []string) float64 {
	return coverSkill(len(words), func(i int) ([]float32, float64) {
		s := a.word(words[i])
		return s.sims, s.weight
	})
}

// coverTask is toSkill over n skill words whose similarities to the task
// words sims gives (nil for a word without a vector).
func (a *alignment) coverTask(n int, sims func(i int) []float32) float64 {
	best := make([]float32, len(a.task))
	for w := range n {
		for i, s := range sims(w) {
			best[i] = max(best[i], s)
		}
	}
	num, den := 0.0, 0.0
	for i, t := range a.task {
		num += t.weight * float64(best[i])
		den += t.weight
	}
	return num / den
}

// coverSkill is fromSkill over n skill words whose similarities to the
// task words and corpus weight at gives.
func coverSkill(n int, at func(i int) ([]float32, float64)) float64 {
	num, den := 0.0, 0.0
	for w := range n {
		sims, wt := at(w)
		if sims == nil {
			continue
		}
		var b float32
		for _, x := range sims {
			b = max(b, x)
		}
		num += wt * float64(b)
		den += wt
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// Align fills the Align, AlignLabel and Lex of every candidate for the
// need (0 without word vectors or content words; Lex 0 without a
// lexicon). It runs where the shortlist is made, so that a reranker that
// only reads the shortlist sees them.
func Align(wv WordVectors, lex Lexicon, need string, cands []index.Candidate) {
	a := newAlignment(wv, need)
	wc, cached := wv.(*WordCache)
	if cached && a != nil {
		wc.borrow(a)
		defer wc.release(a)
		a.allRows(wc, cands)
	}
	var cover map[string]uint64
	if a != nil && lex != nil {
		cover = a.lexicalStems(lex)
	}
	for i := range cands {
		c := &cands[i]
		c.Align, c.AlignLabel, c.Lex = 0, 0, 0
		if a != nil && c.Entry != nil {
			if cached && c.Doc >= 0 && c.Doc < len(wc.text) {
				// The cache was built from the index's docs: its rows
				// are this doc's words, already looked up.
				c.Align = float32(a.toSkillRows(wc, wc.text[c.Doc]))
				c.AlignLabel = float32(a.fromSkillRows(wc, wc.label[c.Doc]))
			} else {
				c.Align = float32(a.toSkill(c.Entry.TextWords))
				c.AlignLabel = float32(a.fromSkill(c.Entry.LabelWords))
			}
			if cover != nil {
				c.Lex = float32(a.lexCover(cover, c.Entry))
			}
		}
	}
}

// lexicalStems maps each stem that covers a task word (the word's own, or
// a related word's) to the set of task words it covers, as bits: the
// first 64 task words count.
func (a *alignment) lexicalStems(lex Lexicon) map[string]uint64 {
	out := map[string]uint64{}
	for i, t := range a.task[:min(len(a.task), 64)] {
		bit := uint64(1) << i
		out[analyze.Stem(t.word)] |= bit
		for _, r := range lex.RelatedStems(t.word) {
			out[r] |= bit
		}
	}
	return out
}

// lexCover is the weighted share of task words the skill's name, tags or
// description hold, as the word itself or a related word.
func (a *alignment) lexCover(cover map[string]uint64, d *index.Doc) float64 {
	var hit uint64
	for _, terms := range [][]string{d.NameTerms, d.TagTerms, d.DescTerms} {
		for _, t := range terms {
			hit |= cover[t]
		}
	}
	num, den := 0.0, 0.0
	for i, t := range a.task {
		if i < 64 && hit&(uint64(1)<<i) != 0 {
			num += t.weight
		}
		den += t.weight
	}
	return num / den
}

// alignFeatures reads align, align_label and lex_cover, each followed by
// its standardisation over the shortlist.
func alignFeatures(rows []float64, cands []index.Candidate) [6][]float64 {
	n := len(cands)
	var out [6][]float64
	for k := range out {
		out[k] = rows[k*n : (k+1)*n : (k+1)*n]
	}
	for i := range cands {
		out[0][i], out[2][i], out[4][i] = float64(cands[i].Align), float64(cands[i].AlignLabel), float64(cands[i].Lex)
	}
	for k := 0; k < 6; k += 2 {
		standardiseInto(out[k+1], out[k])
	}
	return out
}

// WordCache holds the unit vectors and weights of a catalog's skill
// words, read once when the matcher is built, so that aligning a request
// costs the dot products and not a table lookup, dequantisation and
// normalisation per word. Words it does not hold (the request's) are
// looked up in the underlying vectors, or in those WithRequestWords
// gives. Immutable once built.
type WordCache struct {
	*wordRows
	// requests are the vectors a request's words are read from when
	// the cache has none for them (nil: wv's).
	requests WordVectors
	// scratch holds *rowScratch for alignments to borrow: a catalog's
	// vocabulary is too large to allocate and fill a row index per
	// request, and the cosines' buffers were a ninth of the bytes a
	// decision allocated.
	scratch sync.Pool
}

// wordRows is what a WordCache read from the skills' words, shared by
// the caches WithRequestWords makes.
type wordRows struct {
	wv     WordVectors
	dim    int
	at     map[string]int32 // word → row; -1: no vector
	vecs   []float32
	weight []float32
	// text and label are each doc's TextWords and LabelWords as rows
	// (-1: no vector), in order, by doc number.
	text, label [][]int32
}

// rowScratch is what an alignment borrows from a WordCache for one
// request: a row index of the cache's size (all -1 between requests)
// and the buffers of the rows' cosines.
type rowScratch struct {
	at, touched []int32
	slab, col   []float32
}

// borrow lends a its row index and buffers.
func (c *WordCache) borrow(a *alignment) {
	s, ok := c.scratch.Get().(*rowScratch)
	if !ok {
		s = &rowScratch{at: make([]int32, len(c.weight))}
		for i := range s.at {
			s.at[i] = -1
		}
	}
	a.rows, a.rowAt, a.touched, a.rowSlab, a.col = s, s.at, s.touched[:0], s.slab[:0], s.col
}

// release resets the rows a touched and returns its scratch to the pool.
func (c *WordCache) release(a *alignment) {
	s := a.rows
	if s == nil {
		return
	}
	for _, r := range a.touched {
		a.rowAt[r] = -1
	}
	s.touched, s.slab, s.col = a.touched[:0], a.rowSlab[:0], a.col[:0]
	a.rows, a.rowAt, a.touched, a.rowSlab, a.col = nil, nil, nil, nil, nil
	c.scratch.Put(s)
}

// NewWordCache reads the vectors of every word of docs' TextWords and
// LabelWords.
func NewWordCache(wv WordVectors, docs []index.Doc) *WordCache {
	c := &WordCache{wordRows: &wordRows{wv: wv, dim: wv.Dim(), at: map[string]int32{},
		text: make([][]int32, len(docs)), label: make([][]int32, len(docs))}}
	buf := make([]float32, c.dim)
	row := func(w string) int32 {
		if r, ok := c.at[w]; ok {
			return r
		}
		wt, ok := wv.WordVector(buf, w)
		if !ok {
			c.at[w] = -1
			return -1
		}
		r := int32(len(c.weight))
		c.at[w] = r
		c.vecs = append(c.vecs, buf...)
		c.weight = append(c.weight, wt)
		return r
	}
	// Every doc's rows sit in one array, which never grows (a label's
	// rows at most apart from its text's); a doc's label rows are the
	// start of its text rows when its LabelWords start its TextWords, as
	// Analyze makes them. Growing two lists per doc, and looking the
	// label words up twice, was half of building the cache.
	n := 0
	for i := range docs {
		n += len(docs[i].LabelWords) + len(docs[i].TextWords)
	}
	rows := make([]int32, 0, n)
	for i := range docs {
		text, label := docs[i].TextWords, docs[i].LabelWords
		prefix := len(label) <= len(text) && slices.Equal(label, text[:len(label)])
		if !prefix {
			lo := len(rows)
			for _, w := range label {
				rows = append(rows, row(w))
			}
			c.label[i] = rows[lo:len(rows):len(rows)]
		}
		lo := len(rows)
		for _, w := range text {
			rows = append(rows, row(w))
		}
		c.text[i] = rows[lo:len(rows):len(rows)]
		if prefix {
			c.label[i] = c.text[i][:len(label):len(label)]
		}
	}
	return c
}

// rowSims is the cosine of cache row r with each task word (nil for a
// word without a vector), computed once per request.
func (a *alignment) rowSims(c *WordCache, r int32) []float32 {
	if r < 0 {
		return nil
	}
	if at := a.rowAt[r]; at >= 0 {
		return a.rowSlab[int(at) : int(at)+len(a.task)]
	}
	at := len(a.rowSlab)
	a.rowSlab = slices.Grow(a.rowSlab, len(a.task))[:at+len(a.task)]
	a.rowAt[r] = int32(at)
	a.touched = append(a.touched, r)
	return a.sims(c.vecs[int(r)*c.dim:(int(r)+1)*c.dim], a.rowSlab[at:])
}

// allRows works out the cosines of every distinct word of the
// candidates (a label's words are among its text's) with every task word
// at once, a task word against all the rows, which keeps the kernel's
// four chains busy, rather than a row against a handful of task words.
func (a *alignment) allRows(c *WordCache, cands []index.Candidate) {
	for i := range cands {
		if d := cands[i].Doc; d >= 0 && d < len(c.text) {
			for _, r := range c.text[d] {
				if r >= 0 && a.rowAt[r] < 0 {
					a.rowAt[r] = int32(len(a.touched) * len(a.task))
					a.touched = append(a.touched, r)
				}
			}
		}
	}
	n, k := len(a.touched), len(a.task)
	a.rowSlab = slices.Grow(a.rowSlab[:0], (n+8)*k)[:n*k] // room for a few strays
	a.col = slices.Grow(a.col[:0], n)[:n]
	col := a.col
	for t := range k {
		vector.CosinesAt(a.taskVecs[t*a.dim:(t+1)*a.dim], c.vecs, a.touched, col)
		for i, s := range col {
			a.rowSlab[i*k+t] = max(s, 0)
		}
	}
}

// toSkillRows is toSkill over cache rows.
func (a *alignment) toSkillRows(c *WordCache, rows []int32) float64 {
	return a.coverTask(len(rows), func(i int) []float32 { return a.rowSims(c, rows[i]) })
}

// fromSkillRows is fromSkill over cache rows.
func (a *alignment) fromSkillRows(c *WordCache, rows []int32) float64 {
	return coverSkill(len(rows), func(i int) ([]float32, float64) {
		r := rows[i]
		if r < 0 {
			return nil, 0 // a word without a vector
		}
		return a.rowSims(c, r), float64(c.weight[r])
	})
}

// WithRequestWords returns a cache of the same rows that reads a
// request's words it has no vector for from wv: an embedder that learned
// the catalog's own words (vector.CatalogLearner) gives a request's
// trade word the meaning of the skills that use it, while each skill's
// own words keep their rows, so that a request without such a word
// aligns as before.
func (c *WordCache) WithRequestWords(wv WordVectors) *WordCache {
	return &WordCache{wordRows: c.wordRows, requests: wv}
}

// Lacking appends to dst the words of doc i that have no vector, given
// the doc's TextWords as the cache read them: the words a catalog's
// learner may give one (vector.CatalogLearner), found without looking
// any word up again.
func (c *WordCache) Lacking(dst []string, i int, textWords []string) []string {
	if i < 0 || i >= len(c.text) || len(c.text[i]) != len(textWords) {
		return append(dst, textWords...) // not the words the cache read: all of them
	}
	for j, r := range c.text[i] {
		if r < 0 {
			dst = append(dst, textWords[j])
		}
	}
	return dst
}

// Dim implements WordVectors.
func (c *WordCache) Dim() int { return c.dim }

// WordVector implements WordVectors.
func (c *WordCache) WordVector(dst []float32, w string) (float32, bool) {
	r, ok := c.at[w]
	switch {
	case (!ok || r < 0) && c.requests != nil:
		return c.requests.WordVector(dst, w)
	case !ok:
		return c.wv.WordVector(dst, w)
	case r < 0:
		return 0, false
	}
	copy(dst, c.vecs[int(r)*c.dim:(int(r)+1)*c.dim])
	return c.weight[r], true
}
