package embed

import "math"

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
		return 0, false
	}
	clear(dst[:g.t.Dim])
	g.t.AddScaled(dst, i, g.t.Scales[i])
	var n float64
	for _, x := range dst[:g.t.Dim] {
		n += float64(x) * float64(x)
	}
	if n < 1e-12 {
		return 0, false
	}
	inv := float32(1 / math.Sqrt(n))
	for j := range dst[:g.t.Dim] {
		dst[j] *= inv
	}
	return g.factor[i] / g.t.Scales[i], true
}
