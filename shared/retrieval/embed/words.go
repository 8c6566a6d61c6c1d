package embed

import "github.com/skillmatch/skillmatch/shared/retrieval/vector"

// WordVector writes the unit vector of word w (or of a simpler form of it,
// as EmbedText finds words) into dst, which must hold Dim values, and
// returns the word's SIF weight a/(a+p(w)): near 1 for rare words, small
// for frequent ones. ok is false for a word without a vector. It is the
// word-level view of the embedder, for soft alignment of texts word by
// word; the weight depends on the corpus the vectors came from, not on
// any catalog.
func (g *GloVe) WordVector(dst []float32, w string) (weight float32, ok bool) {
	i, ok := g.t.lookup(w)
	if !ok {
		if c := g.catalogWord(w); c != nil {
			copy(dst[:g.t.Dim], c.unit)
			return c.weight, true
		}
		return 0, false
	}
	clear(dst[:g.t.Dim])
	g.t.AddScaled(dst, i, g.t.Scales[i])
	if !vector.Normalize(dst[:g.t.Dim]) {
		return 0, false
	}
	return g.factor[i] / g.t.Scales[i], true
}
