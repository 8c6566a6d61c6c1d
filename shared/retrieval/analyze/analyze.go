// Package analyze splits text into the word and term streams that the
// lexical and dense retrievers and the reranker share.
package analyze

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Words returns the lower-cased word tokens of text: runs of letters and
// digits. An apostrophe inside a word is dropped with what follows it
// ("what's" → "what", "don't" → "don"), because GloVe and BM25 both do
// better with the stem than with clitics.
func Words(text string) []string {
	out := AppendWords(make([]string, 0, len(text)/6+1), text)
	if len(out) == 0 {
		return nil
	}
	return out
}

// AppendWords appends the words of text (see Words) to dst, for callers
// that tokenize many texts into one reused buffer.
func AppendWords(dst []string, text string) []string {
	// Words are substrings of text unless they need lower-casing: most
	// card text is lower-case ASCII, and an index build tokenizes every
	// text three times (term sets, BM25, GloVe), so a copy per word was
	// most of its allocations. Callers that keep a word beyond the text
	// (caches) clone it.
	out := dst
	start, end := -1, 0 // the current word is text[start:end]; -1 outside one
	plain := true       // the word needs no lower-casing
	skip := false       // after an apostrophe: drop the rest of the word
	for i := 0; i < len(text); {
		c, r, size := text[i], rune(text[i]), 1
		var isWord bool
		if c < utf8.RuneSelf {
			isWord = asciiWord[c]
		} else {
			r, size = utf8.DecodeRuneInString(text[i:])
			isWord = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case isWord:
			if !skip {
				if start < 0 {
					start, plain = i, true
				}
				if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
					plain = false
				}
				end = i + size
			}
		case (r == '\'' || r == '’') && start >= 0:
			skip = true
		default:
			if start >= 0 {
				out = append(out, word(text[start:end], plain))
				start = -1
			}
			skip = false
		}
		i += size
	}
	if start >= 0 {
		out = append(out, word(text[start:end], plain))
	}
	return out
}

// asciiWord says which ASCII bytes are letters or digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// word returns w lower-cased (w itself when plain).
func word(w string, plain bool) string {
	if plain {
		return w
	}
	var b strings.Builder
	b.Grow(len(w))
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			b.Reset()
			b.Grow(len(w))
			for _, r := range w {
				b.WriteRune(unicode.ToLower(r))
			}
			return b.String()
		}
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A' // unicode.ToLower's answer for ASCII
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Stem returns the English Snowball stem of a lower-cased word.
func Stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	if s, ok := stems.Load(word); ok {
		return s.(string)
	}
	s, ok := sibilantPlurals[word]
	if !ok {
		s = english.Stem(word, false)
	}
	// Stemming is most of the cost of indexing a catalog, and a catalog
	// repeats its words; the memo is bounded so that untrusted text cannot
	// grow it without end.
	if stemCount.Load() < maxStems {
		// Clones: word may be a substring of a long text (see Words).
		if _, loaded := stems.LoadOrStore(strings.Clone(word), strings.Clone(s)); !loaded {
			stemCount.Add(1)
		}
	}
	return s
}

const maxStems = 1 << 18

// sibilantPlurals stems the plurals of short words ending in s or z as
// their singulars. Snowball strips only the s of "buses", and keeps the e
// after a short syllable, so "buses" stemmed to "buse" and never met
// "bus": a card saying "Find buses that go from one town to the next" was
// not found by "find me a bus". Like Snowball's own exceptional forms ("skis", "news"),
// a short fixed list: no rule tells "buses" (bus) from "cases" (case).
var sibilantPlurals = map[string]string{
	"buses": "bus", "busses": "bus", "gases": "gas", "lenses": "len", "pluses": "plus",
	"quizzes": "quiz", "aliases": "alia", "canvases": "canva",
}

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

// AppendContentWords appends to dst the content words of words, which
// AppendWords split: those that are not stopwords, each once — neither
// already in dst[from:] nor earlier in words. The reranker aligns a task
// and a skill content word by content word (the index's LabelWords and
// TextWords, the task's own). words must not share dst's memory.
func AppendContentWords(dst []string, from int, words []string) []string {
	var seen map[string]struct{} // past a few words, instead of a scan
	for _, w := range words {
		if IsStopword(w) {
			continue
		}
		if seen == nil && len(dst)-from >= 32 {
			seen = make(map[string]struct{}, 2*(len(dst)-from))
			for _, x := range dst[from:] {
				seen[x] = struct{}{}
			}
		}
		if seen != nil {
			if _, dup := seen[w]; dup {
				continue
			}
			seen[w] = struct{}{}
		} else if slices.Contains(dst[from:], w) {
			continue
		}
		dst = append(dst, w)
	}
	return dst
}

// IsStopword reports whether w is a common English function word. "want"
// frames a request ("I want to…") and names no job; kept as a term it
// matched the one card that writes "the city you want" at a small
// catalog's full idf, and an apartment search went to a hotel search at
// 0.91.
func IsStopword(w string) bool {
	// Most words are ruled out by their length and first letter before
	// the map hashes them: every word of every card is asked, in an index
	// build, more than once.
	if len(w) >= len(stopStarts) || w == "" || w[0]-'a' >= 26 || stopStarts[len(w)]&(1<<(w[0]-'a')) == 0 {
		return false
	}
	_, ok := stopwords[w]
	return ok
}

// stopStarts holds, for each length, the first letters of the stopwords
// of that length (bit 0 for a).
var stopStarts = func() (t [11]uint32) {
	for w := range stopwords {
		if len(w) >= len(t) || w[0]-'a' >= 26 {
			panic("analyze: stopword " + w + " is not a short word of a lower-case letter")
		}
		t[len(w)] |= 1 << (w[0] - 'a')
	}
	return t
}()

var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
	because been before being below between both but by can could did do does doing down during each
	few for from further had has have having he her here hers herself him himself his how i if in into
	is it its itself just me more most my myself no nor not of off on once only or other our ours
	ourselves out over own same she should so some such than that the their theirs them themselves
	then there these they this those through to too under until up very was we were what when where
	which while who whom why will with would you your yours yourself yourselves let lets please
	s t d ll m re ve don doesn didn isn aren wasn weren won can't also may might must shall want wants wanted wanna`) {
		m[w] = struct{}{}
	}
	return m
}()
