// Package analyze splits text into the word and term streams that the
// lexical and dense retrievers and the reranker share.
package analyze

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Words returns the lower-cased word tokens of text: runs of letters and
// digits. An apostrophe inside a word is dropped with what follows it
// ("what's" → "what", "don't" → "don"), because GloVe and BM25 both do
// better with the stem than with clitics.
func Words(text string) []string {
	var out []string
	var b strings.Builder
	skip := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
		skip = false
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !skip {
				b.WriteRune(unicode.ToLower(r))
			}
		case (r == '\'' || r == '’') && b.Len() > 0:
			skip = true
		default:
			flush()
		}
	}
	flush()
	return out
}

// Stem returns the English Snowball stem of a lower-cased word.
func Stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	if s, ok := stems.Load(word); ok {
		return s.(string)
	}
	s := english.Stem(word, false)
	// Stemming is most of the cost of indexing a catalog, and a catalog
	// repeats its words; the memo is bounded so that untrusted text cannot
	// grow it without end.
	if stemCount.Load() < maxStems {
		if _, loaded := stems.LoadOrStore(word, s); !loaded {
			stemCount.Add(1)
		}
	}
	return s
}

const maxStems = 1 << 18

var (
	stems     sync.Map // word → stem
	stemCount atomic.Int64
)

// Terms returns the stemmed words of text without stopwords: the terms BM25
// indexes and matches.
func Terms(text string) []string {
	words := Words(text)
	out := words[:0]
	for _, w := range words {
		if IsStopword(w) {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}

// IsStopword reports whether w is a common English function word.
func IsStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
	because been before being below between both but by can could did do does doing down during each
	few for from further had has have having he her here hers herself him himself his how i if in into
	is it its itself just me more most my myself no nor not of off on once only or other our ours
	ourselves out over own same she should so some such than that the their theirs them themselves
	then there these they this those through to too under until up very was we were what when where
	which while who whom why will with would you your yours yourself yourselves let lets please
	s t d ll m re ve don doesn didn isn aren wasn weren won can't also may might must shall`) {
		m[w] = struct{}{}
	}
	return m
}()
