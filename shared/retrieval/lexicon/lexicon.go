// Package lexicon gives the words related to a word, as stems
// (analyze.Stem): its synonyms, direct hypernyms and derivationally
// related forms in WordNet 3.1 (see
// PROVENANCE.md), so that a request can meet a skill whose card uses
// another word for the same thing ("film" for "movie", "booking" for
// "reserve") without a model. The table ships inside the binary
// (wordnet.txt.gz, about 0.3 MB) and is read once, on first use.
package lexicon

import (
	"bufio"
	"compress/gzip"
	_ "embed" // for the shipped table
	"fmt"
	"strings"
	"sync"
)

//go:embed wordnet.txt.gz
var wordnetData string

// Lexicon maps a lower-case word to the stems of its related words. It is immutable
// and safe for concurrent use.
type Lexicon struct {
	related map[string][]string
}

var builtin struct {
	once sync.Once
	lex  *Lexicon
}

// WordNet returns the shipped WordNet table. A table that cannot be read
// (a broken build, which the package's tests rule out) gives an empty
// lexicon: no word is related to another, the features it feeds are 0.
func WordNet() *Lexicon {
	builtin.once.Do(func() {
		lex, err := Parse(strings.NewReader(wordnetData))
		if err != nil {
			lex = &Lexicon{related: map[string][]string{}}
		}
		builtin.lex = lex
	})
	return builtin.lex
}

// Parse reads a gzip-compressed table of lines "word stem stem ...".
func Parse(r interface{ Read([]byte) (int, error) }) (*Lexicon, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	defer zr.Close()
	lex := &Lexicon{related: make(map[string][]string, 1<<15)}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			return nil, fmt.Errorf("lexicon: line %q has no related word", sc.Text())
		}
		lex.related[fs[0]] = fs[1:]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	return lex, nil
}

// RelatedStems returns the stems of the words related to w (nil for
// none). The slice is shared: do not modify it.
func (l *Lexicon) RelatedStems(w string) []string { return l.related[w] }

// Len is the number of words with related words.
func (l *Lexicon) Len() int { return len(l.related) }
