package bm25

import (
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// maxCachedWords bounds the word cache: card text is untrusted, and a
// stream of unique junk words must not grow it without limit. When full the
// cache is simply dropped; a real catalogue's vocabulary refills it within a
// few thousand documents.
const maxCachedWords = 1 << 17

// wordTerms returns the term ids that a word from analyze.Words contributes,
// creating ids for new terms. It memoises analyze.Terms per word: Snowball
// stemming costs microseconds a word and would dominate indexing, while a
// catalogue repeats the same few thousand words endlessly. Mapping a word
// straight to ids also saves the term dictionary lookup.
//
// This relies on analyze.Terms being word-local: Terms(text) is the
// concatenation of Terms(w) for w in Words(text). TestIndexedTermsMatchAnalyze
// guards that assumption. The caller holds the write lock; compaction, which
// renumbers terms, clears the cache.
func (ix *Index) wordTerms(w string) []uint32 {
	if ids, ok := ix.wordIDs[w]; ok {
		return ids
	}
	var ids []uint32
	for _, t := range analyze.Terms(w) {
		ids = append(ids, ix.termID(t))
	}
	if len(ix.wordIDs) >= maxCachedWords {
		clear(ix.wordIDs)
	}
	ix.wordIDs[strings.Clone(w)] = ids // w may be a substring of a long text
	return ids
}
