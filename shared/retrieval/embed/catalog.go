package embed

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// catalogWord is a word of a catalog that the vectors lack, given the
// meaning of the catalog texts that use it.
type catalogWord struct {
	vec    []float32 // what a text's sum adds for it, as for a known word
	unit   []float32
	weight float32
}

// LearnCatalog implements vector.CatalogLearner: a *GloVe that also
// knows the words of one catalog's skills that its vectors lack. A card's
// trade words ("chargeback", "cxl") are often the ones that say its job,
// and GloVe, cut at its most frequent words, has no vector for them, so a
// request that names the job in them got no dense evidence for it. Each
// such word is given the normalised sum of the SIF vectors of the skills
// whose text uses it, as long as those texts' known words' vectors, and
// weighed down the more skills use it, as idf does: a word of one skill's
// text stands for that skill's meaning. Only words written in lower case
// or in capitals somewhere are learned (writtenPlain). g itself is left
// as it was; with nothing to learn, LearnCatalog returns g. The result
// keeps g's ID and is meant for requests: the catalog's own texts stay
// embedded by g, as an index stores them, so a card's vector never
// depends on the other cards.
func (g *GloVe) LearnCatalog(skills []vector.CatalogText) vector.Local {
	// A distinct word the table lacks is looked up once, and a skill's
	// text is embedded again only when it holds a word to learn: most
	// catalogs have few, and this runs in every index build.
	unknown := map[string]bool{}   // the words the vectors lack, by their lookup
	learnable := map[string]bool{} // unknown words written plain somewhere
	var holds []int                // the skills holding an unknown word
	for i, sk := range skills {
		held := false
		for _, w := range sk.Words {
			if _, ok := g.t.find(w); ok {
				continue // most words: one probe of the table, no map
			}
			u, seen := unknown[w]
			if !seen {
				_, known := g.t.lookup(w)
				u = !known && catalogCandidate(w)
				unknown[w] = u
			}
			if !u {
				continue
			}
			held = true
			if !learnable[w] && writtenPlain(sk.Texts, w) {
				learnable[w] = true
			}
		}
		if held {
			holds = append(holds, i)
		}
	}
	if len(learnable) == 0 {
		return g
	}
	type sum struct {
		vec    []float32
		length float64 // the known words' mean vector length, summed
		df     int
	}
	dim := g.t.Dim
	sums := map[string]*sum{}
	text := make([]float32, dim)
	var learn []string
	for _, i := range holds {
		// The whole text, function words too, embedded as EmbedText does.
		ws := analyze.Words(strings.Join(skills[i].Texts, ". "))
		learn = learn[:0]
		for _, w := range ws {
			if learnable[w] {
				learn = append(learn, analyze.Stem(w))
			}
		}
		if len(learn) == 0 {
			continue
		}
		clear(text)
		g.embedWords(text, ws)
		size := g.knownLength(ws)
		if size == 0 || vector.Norm(text) == 0 {
			continue
		}
		slices.Sort(learn)
		for _, s := range slices.Compact(learn) {
			c := sums[s]
			if c == nil {
				c = &sum{vec: make([]float32, dim)}
				sums[s] = c
			}
			for j, x := range text {
				c.vec[j] += x
			}
			c.length += size
			c.df++
		}
	}
	if len(sums) == 0 {
		return g
	}
	out := *g
	out.catalog = make(map[string]*catalogWord, len(sums))
	n := float64(len(skills))
	for s, c := range sums {
		unit := c.vec // the sum, made unit in place: not needed after
		if !vector.Normalize(unit) {
			continue
		}
		weight := float32(math.Log((n+1)/float64(c.df)) / math.Log(n+1))
		scale := weight * float32(c.length/float64(c.df))
		vec := make([]float32, dim)
		for j, x := range unit {
			vec[j] = x * scale
		}
		out.catalog[s] = &catalogWord{vec: vec, unit: unit, weight: weight}
	}
	return &out
}

// knownLength is the mean length of the vectors of the known words of
// words: how long a learned word's vector is made, so that it weighs in a
// request as a known word of its texts does.
func (g *GloVe) knownLength(words []string) float64 {
	lengths := g.t.lengths()
	var sum float64
	n := 0
	for _, w := range words {
		if i, ok := g.t.lookup(w); ok {
			sum += float64(lengths[i])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// catalogWord is what the catalog taught g about word w, which its
// vectors lack; nil when nothing.
func (g *GloVe) catalogWord(w string) *catalogWord {
	if g.catalog == nil || !catalogCandidate(w) {
		return nil
	}
	return g.catalog[analyze.Stem(w)]
}

// catalogCandidate says whether w may be learned from a catalog: a word
// of three letters or more, neither a stopword nor holding a digit (a
// number or a code names an instance, not a job).
func catalogCandidate(w string) bool {
	return len(w) >= 3 && !analyze.IsStopword(w) && strings.IndexFunc(w, unicode.IsDigit) < 0
}

// writtenPlain says whether one of texts writes word w (lower case, as
// analyze.Words gives it) in lower case or in capitals (a plural's "s"
// aside), whole and not
// as part of a code: a trade word ("chargebacks", "BEOs"). A word only
// ever written capitalised is a name ("Saltmarsh House", a hotel in
// every other example), which says where, not what: learned from the
// texts that name it, it pulled a request naming the hotel towards every
// skill whose example did.
func writtenPlain(texts []string, w string) bool {
	upper := strings.ToUpper(w)
	forms := []string{w}
	if len(w) > 1 && upper != w {
		forms = append(forms, upper)
		if base, ok := strings.CutSuffix(w, "s"); ok && len(base) > 1 {
			forms = append(forms, strings.ToUpper(base)+"s") // a plural acronym
		}
	}
	for _, t := range texts {
		for _, f := range forms {
			if wholeIn(t, f) {
				return true
			}
		}
	}
	return false
}

// wholeIn says whether t holds w as a whole word that is not part of a
// code (inCode).
func wholeIn(t, w string) bool {
	if w == "" {
		return false
	}
	for from := 0; ; {
		k := strings.Index(t[from:], w)
		if k < 0 {
			return false
		}
		i, j := from+k, from+k+len(w)
		if !wordByte(t, i-1) && !wordByte(t, j) && !inCode(t, i, j) {
			return true
		}
		from = i + 1
	}
}

// wordByte says whether t[k] is part of a word: a letter, a digit or a
// byte of a multi-byte character (which a word may hold); false outside t.
func wordByte(t string, k int) bool {
	if k < 0 || k >= len(t) {
		return false
	}
	c := t[k]
	return c >= utf8.RuneSelf || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// inCode says whether the word t[i:j] is part of a code, joined by a
// hyphen or slash to a number ("CWE-3302148", "PO 88-1032"): an account
// or order prefix names an instance, as a number does.
func inCode(t string, i, j int) bool {
	digitAt := func(k int) bool { return k >= 0 && k < len(t) && '0' <= t[k] && t[k] <= '9' }
	joint := func(k int) bool { return k >= 0 && k < len(t) && (t[k] == '-' || t[k] == '/') }
	return joint(j) && digitAt(j+1) || joint(i-1) && digitAt(i-2)
}
