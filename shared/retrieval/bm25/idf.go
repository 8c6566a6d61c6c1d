package bm25

import "math"

// IDF is the inverse document frequency of an analysed term, the weight
// BM25 gives it: ln(1 + (N − df + 0.5)/(df + 0.5)). An unknown term gets
// the weight of a term in no document.
func (ix *Index) IDF(term string) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	df := 0.0
	if id, ok := ix.dict[term]; ok {
		df = float64(ix.df[id])
	}
	n := float64(ix.live)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}
