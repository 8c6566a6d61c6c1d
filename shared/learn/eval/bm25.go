package eval

import (
	"strings"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// PlainBM25 ranks a matcher's catalog by BM25 alone: the same docs the
// matcher indexes (with any extra examples of its model), the same field
// weights and the same hard filters, but no dense retrieval, fusion, model
// or calibration. It is the baseline a user compares skillmatch with.
type PlainBM25 struct {
	m  *match.Matcher
	ix *bm25.Index
}

// NewPlainBM25 indexes the matcher's docs in a BM25 index of their own.
func NewPlainBM25(m *match.Matcher) *PlainBM25 {
	src := m.Index()
	ix := bm25.New()
	w := index.DefaultFieldWeights
	for i := 0; i < src.Len(); i++ {
		d := src.Doc(i)
		ix.Add(i,
			bm25.Field{Text: d.Name, Weight: w.Name},
			bm25.Field{Text: strings.Join(d.Tags, "\n"), Weight: w.Tags},
			bm25.Field{Text: d.Description, Weight: w.Description},
			bm25.Field{Text: d.AgentName, Weight: w.AgentName},
			bm25.Field{Text: strings.Join(d.Examples, "\n"), Weight: w.Examples},
		)
	}
	return &PlainBM25{m: m, ix: ix}
}

// Rank returns the 1-based rank of the first right skill of gt in the BM25
// ranking of the skills the filters keep for req, 0 when it is absent (no
// query term in it, or filtered out). It searches with match.QueryText:
// the words the matcher's retrievers start from, without the topic a
// follow-up carries from its conversation.
func (p *PlainBM25) Rank(req *extract.Requirement, gt *golden.Task) int {
	if gt.NoMatch() {
		return 0
	}
	terms := analyze.Terms(match.QueryText(req))
	keep := filter.Keep(req, p.m.Catalog(), p.m.Filters()...).Keep
	hits := p.ix.Search(terms, 0, func(d int) bool { return keep == nil || keep[d] })
	for i, h := range hits {
		if gt.Correct(p.m.Index().Doc(h.Doc).Key) {
			return i + 1
		}
	}
	return 0
}
