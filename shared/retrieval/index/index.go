// Package index retrieves skills for a need: BM25 and dense retrieval per
// skill, fused by reciprocal rank fusion into a shortlist.
package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Doc is one skill as the retrievers see it. Doc numbers are positions in
// the slice an index was built from; callers keep that numbering (the
// matcher uses catalog order) so filters can be passed as a []bool.
type Doc struct {
	Key         string   // "<agent>/<skillId>"
	AgentID     string   // agent id in the catalog
	SkillID     string   // skill id within the card
	AgentName   string   // the card's name
	Name        string   // the skill's name
	Description string   // the skill's description
	Tags        []string // the skill's tags
	// Examples are the card's examples plus any extra examples a fitted
	// model supplies for this skill.
	Examples []string
	// Untrusted leaves the doc out of the BM25 statistics (document
	// frequencies, the average length): a card the matcher does not trust
	// is never a candidate, and its words must not move the scores of
	// those that are (a spam card's "deploy deploy deploy" halved the
	// word's weight for the real deploy skill beside it).
	Untrusted bool

	// InputModes and OutputModes are the skill's effective media types
	// (the reranker rewards an exact format match over a wildcard).
	InputModes  []string
	OutputModes []string

	// Term sets, filled by Analyze, read by the reranker.
	NameTerms    []string
	TagTerms     []string
	DescTerms    []string
	ExampleTerms []string
	// Content words (lower-cased, stopwords out, first occurrence kept),
	// for the reranker's word-by-word soft alignment: LabelWords of the
	// name and tags, TextWords of those plus the description and the
	// agent's name (a service's domain is often only there).
	LabelWords []string
	TextWords  []string
	// JoinedName is the name's words, each as its term (a stopword as
	// itself), run together: names split into words at other places
	// ("One Way", "Oneway"; "cut-out", "cutout") join alike.
	JoinedName string

	// analyzed is set by Analyze: an index build does not analyze the doc
	// again, even when its term sets are empty, so others may read them
	// while it runs.
	analyzed bool

	// split holds the doc's texts split into words from AnalyzeAll until
	// BuildStats has read them: splitting each text once for the term
	// sets, both BM25 indexes and the vectors, not four times, was a
	// sixth of an index build. A pointer, into one array for the whole
	// catalog: two slice headers more per doc were 4.8 MB more heap at
	// 100,000 skills for as long as the index lives.
	split *docWords
}

// docWords are a doc's texts split by analyze.AppendWords, and where each
// text's words end (see Doc.text).
type docWords struct {
	words []string
	ends  []int32
}

// Text numbers for Doc.text: the name, then each tag, the description,
// the agent's name and each example.
func (d *Doc) descText() int         { return 1 + len(d.Tags) }
func (d *Doc) agentText() int        { return 2 + len(d.Tags) }
func (d *Doc) exampleText(j int) int { return 3 + len(d.Tags) + j }

// text is the words of text k (see descText), from d.split.
func (d *Doc) text(k int) []string {
	sw := d.split
	lo := int32(0)
	if k > 0 {
		lo = sw.ends[k-1]
	}
	return sw.words[lo:sw.ends[k]:sw.ends[k]]
}

// appendWords appends the words of d's texts to w and where each ends
// to ends, in text order.
func (d *Doc) appendWords(w []string, ends []int32) ([]string, []int32) {
	w = analyze.AppendWords(w, d.Name)
	ends = append(ends, int32(len(w)))
	for _, t := range d.Tags {
		w = analyze.AppendWords(w, t)
		ends = append(ends, int32(len(w)))
	}
	w = analyze.AppendWords(w, d.Description)
	ends = append(ends, int32(len(w)))
	w = analyze.AppendWords(w, d.AgentName)
	ends = append(ends, int32(len(w)))
	for _, e := range d.Examples {
		w = analyze.AppendWords(w, e)
		ends = append(ends, int32(len(w)))
	}
	return w, ends
}

// keepWords stores words and ends (scratch) in into, in exact-size
// copies, as d's split words.
func (d *Doc) keepWords(w []string, ends []int32, into *docWords) {
	into.words, into.ends = slices.Clone(w), slices.Clone(ends)
	if into.words == nil {
		into.words = []string{} // split, into no words
	}
	d.split = into
}

// splitOnly keeps d's words in into without analyzing it, for a doc whose
// term sets its caller filled or that was analyzed alone (Analyze).
func (d *Doc) splitOnly(s *scratch, into *docWords) {
	w, ends := d.appendWords(s.words[:0], s.ends[:0])
	d.keepWords(w, ends, into)
	clear(w[:cap(w)])
	s.words, s.ends = w[:0], ends[:0]
}

// AnalyzeAll analyzes every doc on workers goroutines: a catalog's term
// sets are a fifth of its index build and need no shared state. Each doc
// keeps its texts' words until an index build (BuildStats) has read them.
func AnalyzeAll(docs []Doc, workers int) {
	split := make([]docWords, len(docs))
	eachDoc(docs, workers, func(i int, s *scratch) { docs[i].analyze(s, &split[i]) })
}

// eachDoc calls f with every doc number on workers goroutines (fewer for
// a small catalog), each with a scratch of its own.
func eachDoc(docs []Doc, workers int, f func(i int, s *scratch)) {
	workers = max(1, min(workers, len(docs)/256))
	var wg sync.WaitGroup
	step := (len(docs) + workers - 1) / workers
	for w := range workers {
		wg.Go(func() {
			var s scratch
			for i := w * step; i < min((w+1)*step, len(docs)); i++ {
				f(i, &s)
			}
		})
	}
	wg.Wait()
}

// Analyze fills the doc's term sets (sorted, unique) and content words.
func (d *Doc) Analyze() { d.analyze(&scratch{}, nil) }

// scratch is the buffers analyze reuses from doc to doc, and its memo of
// each word's term.
type scratch struct {
	words, out []string
	ends       []int32
	terms      map[string]term
}

// term is a word's BM25 term; stop marks a stopword, which has none.
type term struct {
	stem string
	stop bool
}

// maxMemoWords bounds a scratch's memo: card text is untrusted, and a
// stream of unique junk words must not grow it without limit.
const maxMemoWords = 1 << 16

// appendTermSet appends the terms of words, sorted and unique. A
// catalog repeats its words endlessly: one lookup in the worker's own map
// replaced the stopword check and the shared stem cache (a sync.Map) of
// every word, a tenth of analyzing a doc.
func (s *scratch) appendTermSet(b, words []string) []string {
	n := len(b)
	for _, w := range words {
		if t := s.term(w); !t.stop {
			b = append(b, t.stem)
		}
	}
	slices.Sort(b[n:])
	return b[:n+len(slices.Compact(b[n:]))]
}

// term is word w's term, from the memo or made and memoised.
func (s *scratch) term(w string) term {
	if t, ok := s.terms[w]; ok {
		return t
	}
	if s.terms == nil {
		s.terms = make(map[string]term)
	}
	t := term{stop: analyze.IsStopword(w)}
	if !t.stop {
		t.stem = analyze.Stem(w)
	}
	if len(s.terms) >= maxMemoWords {
		clear(s.terms)
	}
	s.terms[strings.Clone(w)] = t // w may be a substring of a long text
	return t
}

// joined runs words together, each as its term or, a stopword, as
// itself.
func (s *scratch) joined(words []string) string {
	n := 0
	for _, w := range words {
		n += len(w)
	}
	var b strings.Builder
	b.Grow(n)
	for _, w := range words {
		if t := s.term(w); t.stop {
			b.WriteString(w)
		} else {
			b.WriteString(t.stem)
		}
	}
	return b.String()
}

// analyze is Analyze with scratch buffers. Each text is split into words
// once; its terms and its content words are both read from them.
// The six lists share one backing array of their exact size, each a full
// slice of its part (an append to one copies it rather than overwrite the
// next), and LabelWords is the start of TextWords: at 100,000 skills six
// separately grown buffers per doc were a fifth of the heap and most of
// the objects a garbage collection walks. With keep, the words are kept
// there for an index build.
func (d *Doc) analyze(s *scratch, keep *docWords) {
	w, te := d.appendWords(s.words[:0], s.ends[:0])
	name, tags := int(te[0]), int(te[d.descText()-1])
	desc, agent := int(te[d.descText()]), int(te[d.agentText()])
	if keep != nil {
		d.keepWords(w, te, keep)
	}
	b := s.out[:0]
	var ends [5]int
	b = s.appendTermSet(b, w[:name])
	ends[0] = len(b)
	b = s.appendTermSet(b, w[name:tags])
	ends[1] = len(b)
	b = s.appendTermSet(b, w[tags:desc])
	ends[2] = len(b)
	b = s.appendTermSet(b, w[agent:])
	ends[3] = len(b)
	b = analyze.AppendContentWords(b, ends[3], w[:tags])
	ends[4] = len(b)
	b = analyze.AppendContentWords(b, ends[3], w[tags:agent])
	all := slices.Clone(b)
	part := func(lo, hi int) []string {
		if lo == hi {
			return nil
		}
		return all[lo:hi:hi]
	}
	d.NameTerms = part(0, ends[0])
	d.TagTerms = part(ends[0], ends[1])
	d.DescTerms = part(ends[1], ends[2])
	d.ExampleTerms = part(ends[2], ends[3])
	d.LabelWords = part(ends[3], ends[4])
	d.TextWords = part(ends[3], len(all))
	d.JoinedName = s.joined(w[:name])
	d.analyzed = true
	// The scratch must not keep the doc's strings alive.
	clear(w[:cap(w)])
	clear(b[:cap(b)])
	s.words, s.out, s.ends = w[:0], b[:0], te[:0]
}

// Query is one retrieval request.
type Query struct {
	Text   string
	Terms  []string  // analyze.Terms(Text)
	Vector []float32 // the embedder's vector of Text
	// Allow[doc] says whether the filters kept the doc; nil allows all.
	Allow []bool
	// Shortlist is how many fused candidates to return (default 20).
	Shortlist int
	// K is the reciprocal rank fusion constant (default 60).
	K float64
	// Depth is how deep each retriever's list goes before fusion
	// (default max(5 × Shortlist, 100)).
	Depth int
	// Neighbors is how many nearest example vectors to report (default 20).
	Neighbors int
}

// Candidate is a skill that made the shortlist, with what each retriever
// said of it.
type Candidate struct {
	Doc   int
	Entry *Doc
	// BM25 is the lexical score; BM25Rank its 1-based rank, 0 when the
	// lexical retriever did not return it.
	BM25     float64
	BM25Rank int
	// Dense is the max cosine over the description and each example.
	Dense     float32
	DenseRank int
	// DescSim is the cosine with the description vector; ExampleSim with
	// the best example (BestExample indexes Entry.Examples, -1 if none).
	DescSim     float32
	ExampleSim  float32
	BestExample int
	// CentroidSim is the cosine with the mean of the skill's example
	// vectors (its description vector when it has no example): a prototype
	// that many examples make reliable.
	CentroidSim float32
	// ExampleBM25 is the best BM25 score of a single example against the
	// query: the lexical twin of ExampleSim.
	ExampleBM25 float64
	// Align and AlignLabel are the word-by-word soft alignment of the
	// query with the skill's text and of the skill's name and tags with
	// the query (0-1, the matcher fills them after retrieval when it has
	// word vectors): paraphrase that one averaged vector per text blurs.
	Align      float32
	AlignLabel float32
	// Lex is the share of the query's words (weighted as for Align) that
	// the skill's name, tags or description hold, the word itself or one
	// a lexicon relates to it (WordNet synonyms, hypernyms, derived forms).
	Lex float32
	// Class is the catalog's text classifier's score of the query for the
	// skill (the matcher fills it after retrieval when its model weighs
	// it; 0 otherwise): how its examples, learned together, tell it from
	// the others.
	Class float32
	// Fused is the RRF score, FusedRank its 1-based rank.
	Fused     float64
	FusedRank int
}

// Neighbor is one of the example vectors nearest to the query.
type Neighbor struct {
	Doc int
	Sim float32
}

// Result is a retrieval answer.
type Result struct {
	Candidates []Candidate
	// Neighbors are the nearest example vectors among allowed docs, best
	// first: a k-nearest-neighbour view the reranker votes with.
	Neighbors []Neighbor
	// LexNeighbors are the examples nearest to the query by BM25 (Sim is
	// the BM25 score), best first: the lexical twin of Neighbors.
	LexNeighbors []Neighbor
	// Allowed is how many docs the filters left to search.
	Allowed int
	// TermWeights[i] is the inverse document frequency of query term i in
	// this index: rare words (jargon) weigh more in the reranker's
	// coverage features.
	TermWeights []float64
}

// Index is what the matcher needs from a retrieval backend.
type Index interface {
	Search(ctx context.Context, q Query) (*Result, error)
	// Doc returns the doc with the given number.
	Doc(i int) *Doc
	Len() int
}

// ErrEmptyQuery is returned for a query with neither terms nor a vector.
var ErrEmptyQuery = errors.New("empty query")

// ErrUnavailable is wrapped by a remote index's errors when its backend
// cannot be reached. A retriever holds its work until the index is ready
// again (see Readier) instead of failing it: the task is not at fault.
var ErrUnavailable = errors.New("index unavailable")

// Readier is implemented by indexes that depend on a remote backend.
// Ready returns nil when a search can be answered now, and an error
// wrapping ErrUnavailable while the backend cannot be reached.
type Readier interface {
	Ready(ctx context.Context) error
}

// Prepare applies a query's defaults and checks it against an index of
// docs docs, returning the query and how many docs its filter allows.
// Every Index's Search starts with it, so that all read a query alike.
func Prepare(q Query, docs int) (Query, int, error) {
	q = q.withDefaults()
	if len(q.Terms) == 0 && len(q.Vector) == 0 {
		return q, 0, ErrEmptyQuery
	}
	if q.Allow != nil && len(q.Allow) != docs {
		return q, 0, fmt.Errorf("index search: allow has %d entries for %d docs", len(q.Allow), docs)
	}
	allowed := docs
	if q.Allow != nil {
		allowed = 0
		for _, ok := range q.Allow {
			if ok {
				allowed++
			}
		}
	}
	return q, allowed, nil
}

func (q *Query) withDefaults() Query {
	out := *q
	if out.Shortlist <= 0 {
		out.Shortlist = 20
	}
	if out.K <= 0 {
		out.K = 60
	}
	if out.Depth <= 0 {
		out.Depth = max(5*out.Shortlist, 100)
	}
	if out.Neighbors <= 0 {
		out.Neighbors = 10
	}
	return out
}
