package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Weights are what fitting learned: a logistic model over standardised
// features. Fit = 10 · σ(bias + Σ w_i · (x_i − mean_i) / scale_i).
type Weights struct {
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	W        []float64 `json:"w"`
	Bias     float64   `json:"bias"`
	// Trees are boosted on top of the linear logit to catch what a line
	// cannot (interactions, thresholds); their features index Features.
	Trees []Tree `json:"trees,omitempty"`
	// Stack, when set, turns each candidate's logit into its fit given its
	// rivals in the shortlist.
	Stack *Stack `json:"stack,omitempty"`
}

// ErrBadWeights is returned for weights that do not fit the feature set.
var ErrBadWeights = errors.New("invalid reranker weights")

// Learned is the built-in reranker: a fitted logistic model over features
// that read the task and each candidate together.
type Learned struct {
	w Weights
	// pos[i] is where weight i's feature sits in a Features vector.
	pos []int
	// kinds[i] is how reason words weight i's contribution.
	kinds []evidence
	// forest is the weights' trees laid out for Logit (see compile).
	forest forest
	// scratch holds *rerankScratch for Rerank's feature vectors and
	// reasons, which it drops once the shortlist is scored: 7 KB a
	// decision, reused.
	scratch sync.Pool
}

// NewLearned checks the weights against the known features. Features the
// weights do not name get weight zero; a weight for an unknown feature is
// an error (a model from a newer skillmatch).
func NewLearned(w Weights) (*Learned, error) {
	n := len(w.Features)
	if len(w.Mean) != n || len(w.Scale) != n || len(w.W) != n {
		return nil, fmt.Errorf("%w: %d features but %d means, %d scales, %d weights",
			ErrBadWeights, n, len(w.Mean), len(w.Scale), len(w.W))
	}
	l := &Learned{w: w, pos: make([]int, n), kinds: make([]evidence, n)}
	for i, name := range w.Features {
		l.kinds[i] = evidenceOf(name)
		l.pos[i] = -1
		for j, known := range FeatureNames {
			if known == name {
				l.pos[i] = j
			}
		}
		if l.pos[i] < 0 {
			return nil, fmt.Errorf("%w: unknown feature %q", ErrBadWeights, name)
		}
		if w.Scale[i] <= 0 || math.IsNaN(w.W[i]) || math.IsInf(w.W[i], 0) {
			return nil, fmt.Errorf("%w: feature %q has scale %v, weight %v", ErrBadWeights, name, w.Scale[i], w.W[i])
		}
	}
	for i := range w.Trees {
		if err := w.Trees[i].check(n); err != nil {
			return nil, fmt.Errorf("%w: tree %d: %v", ErrBadWeights, i, err)
		}
	}
	l.forest = compile(w.Trees, l.pos)
	return l, nil
}

// Weights returns the model's weights.
func (l *Learned) Weights() Weights { return l.w }

// Logit is the model's log-odds for one feature vector.
func (l *Learned) Logit(f []float64) float64 {
	return l.forest.add(l.linear(f), f)
}

// linear is the logit's linear part.
func (l *Learned) linear(f []float64) float64 {
	z := l.w.Bias
	for i, p := range l.pos {
		z += l.w.W[i] * (f[p] - l.w.Mean[i]) / l.w.Scale[i]
	}
	return z
}

// logits sets z[i] to Logit(feats[i]), the trees walked for two vectors
// at once (see forest.add2).
func (l *Learned) logits(feats [][]float64, z []float64) {
	i := 0
	for ; i+2 <= len(feats); i += 2 {
		z[i], z[i+1] = l.forest.add2(l.linear(feats[i]), l.linear(feats[i+1]), feats[i], feats[i+1])
	}
	if i < len(feats) {
		z[i] = l.Logit(feats[i])
	}
}

// Fits maps the feature vectors of one shortlist to 0-10 fit scores.
func (l *Learned) Fits(feats [][]float64) []float64 { return l.fits(feats, nil) }

// fits is Fits for a shortlist whose kin (see Input.Kin) are known.
func (l *Learned) fits(feats [][]float64, kin [][]int) []float64 {
	z := make([]float64, len(feats))
	l.logits(feats, z)
	if l.w.Stack != nil {
		for i, sf := range stackFeatures(z, kin) {
			z[i] = l.w.Stack.logit(sf)
		}
	}
	for i := range z {
		z[i] = 10 / (1 + math.Exp(-z[i]))
	}
	return z
}

// Rerank scores and orders the shortlist.
func (l *Learned) Rerank(ctx context.Context, in *Input) ([]Scored, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc, _ := l.scratch.Get().(*rerankScratch)
	if sc == nil {
		sc = new(rerankScratch)
	}
	defer l.scratch.Put(sc)
	feats := features(in, &sc.feats)
	fits := l.fits(feats, in.Kin)
	cands := in.Result.Candidates
	order := make([]int, len(feats))
	for i := range order {
		order[i] = i
	}
	// Best fit first; a tie keeps the fused order. slices.SortStableFunc
	// runs sort.SliceStable's algorithm (one template), asking only
	// whether a sorts before b, without the reflection.
	slices.SortStableFunc(order, func(i, j int) int {
		if fits[i] != fits[j] {
			if fits[i] > fits[j] {
				return -1
			}
			return 0
		}
		if cands[i].FusedRank < cands[j].FusedRank {
			return -1
		}
		return 0
	})
	sorted := make([]Scored, len(order))
	for rank, i := range order {
		sorted[rank] = Scored{Candidate: cands[i], Score: fits[i]}
		// Reasons are sentences: write them only for the candidates a
		// decision can name (top, fallbacks, the clarifying pair), unless
		// the caller explains the whole shortlist.
		if rank < ReasonsFor || in.Explain {
			sorted[rank].Reason = l.reason(feats[i], &sorted[rank], &sc.reason)
		}
	}
	return sorted, nil
}

// ReasonsFor is how many of the best candidates get a reason by default.
const ReasonsFor = 4

// contrib is one feature's share of a logit, with its absolute value
// (the sort key) and how describe words it.
type contrib struct {
	v, abs float64
	kind   evidence
}

// rerankScratch is Rerank's working memory, reused from shortlist to
// shortlist.
type rerankScratch struct {
	feats  []float64
	reason reasonScratch
}

// reasonScratch is the working memory of one shortlist's reasons.
type reasonScratch struct {
	cs   []contrib
	word []byte
	out  []byte
}

// reason names the evidence that moved the score most, in words.
func (l *Learned) reason(f []float64, s *Scored, sc *reasonScratch) string {
	cs := sc.cs[:0]
	for i, p := range l.pos {
		v := l.w.W[i] * (f[p] - l.w.Mean[i]) / l.w.Scale[i]
		cs = append(cs, contrib{v: v, abs: math.Abs(v), kind: l.kinds[i]})
	}
	// The largest contributions first. slices.SortFunc runs the same
	// pattern-defeating quicksort as sort.Slice (both are generated from
	// one template), so ties come out in the same order, without
	// sort.Slice's reflection; the comparison is the one of |v| it always
	// was, only computed once per contribution.
	slices.SortFunc(cs, func(a, b contrib) int {
		switch {
		case a.abs > b.abs:
			return -1
		case b.abs > a.abs:
			return 1
		}
		return 0
	})
	sc.cs = cs
	// Written straight into one buffer: "fit 7.3/10: + word; - word".
	out := append(sc.out[:0], "fit "...)
	out = strconv.AppendFloat(out, s.Score, 'f', 1, 64)
	out = append(out, "/10: "...)
	var words [3][2]int // where each part's word is in out
	parts := 0
	for _, c := range cs {
		if parts == 3 {
			break
		}
		word := describe(sc.word[:0], c.kind, f, s)
		sc.word = word
		if len(word) == 0 {
			continue
		}
		dup := false
		for _, w := range words[:parts] {
			if string(out[w[0]:w[1]]) == string(word) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if parts > 0 {
			out = append(out, "; "...)
		}
		if c.v < 0 {
			out = append(out, "- "...)
		} else {
			out = append(out, "+ "...)
		}
		words[parts] = [2]int{len(out), len(out) + len(word)}
		out = append(out, word...)
		parts++
	}
	sc.out = out
	return string(out)
}

// evidence is the kind of sentence describe writes for a feature.
type evidence uint8

const (
	noEvidence evidence = iota
	ranksEvidence
	bm25Evidence
	denseEvidence
	exampleEvidence
	knnEvidence
	coverNameEvidence
	coverAllEvidence
	coverMissEvidence
	formatInEvidence
	formatOutEvidence
)

// evidenceOf is the sentence a feature's contribution is described by
// (noEvidence: none).
func evidenceOf(feature string) evidence {
	switch feature {
	case "fused_rr", "bm25_rr", "dense_rr":
		return ranksEvidence
	case "bm25_norm", "bm25_log", "bm25_gap":
		return bm25Evidence
	case "dense", "desc_sim", "dense_gap":
		return denseEvidence
	case "example_sim":
		return exampleEvidence
	case "knn_vote", "knn_top":
		return knnEvidence
	case "cover_name":
		return coverNameEvidence
	case "cover_desc", "cover_ex", "cover_all":
		return coverAllEvidence
	case "cover_miss":
		return coverMissEvidence
	case "format_in":
		return formatInEvidence
	case "format_out":
		return formatOutEvidence
	}
	return noEvidence
}

// Where describe reads features in a Features vector.
var (
	knnVoteAt   = slices.Index(FeatureNames, "knn_vote")
	coverNameAt = slices.Index(FeatureNames, "cover_name")
	coverAllAt  = slices.Index(FeatureNames, "cover_all")
	coverMissAt = slices.Index(FeatureNames, "cover_miss")
)

// describe appends to b the words for one kind of evidence (nothing for
// noEvidence). strconv writes what fmt's %d, %.Nf and %q would: fmt
// formats with these very calls (a float32 with bitSize 32).
func describe(b []byte, kind evidence, f []float64, s *Scored) []byte {
	switch kind {
	case ranksEvidence:
		b = append(b, "retrieval ranks BM25 #"...)
		b = strconv.AppendInt(b, int64(s.BM25Rank), 10)
		b = append(b, ", dense #"...)
		b = strconv.AppendInt(b, int64(s.DenseRank), 10)
	case bm25Evidence:
		b = append(b, "word match BM25 "...)
		b = strconv.AppendFloat(b, s.BM25, 'f', 1, 64)
	case denseEvidence:
		b = append(b, "meaning similarity "...)
		b = strconv.AppendFloat(b, float64(s.Dense), 'f', 2, 32)
	case exampleEvidence:
		b = append(b, "closest example "...)
		b = strconv.AppendFloat(b, float64(s.ExampleSim), 'f', 2, 32)
		if s.BestExample >= 0 && s.BestExample < len(s.Entry.Examples) {
			b = append(b, " ("...)
			b = strconv.AppendQuote(b, clip(s.Entry.Examples[s.BestExample], 60))
			b = append(b, ')')
		}
	case knnEvidence:
		b = strconv.AppendFloat(b, 100*f[knnVoteAt], 'f', 0, 64)
		b = append(b, "% of the nearest examples are this skill's"...)
	case coverNameEvidence:
		b = append(b, "name and tags cover "...)
		b = strconv.AppendFloat(b, 100*f[coverNameAt], 'f', 0, 64)
		b = append(b, "% of the need"...)
	case coverAllEvidence:
		b = append(b, "skill text covers "...)
		b = strconv.AppendFloat(b, 100*f[coverAllAt], 'f', 0, 64)
		b = append(b, "% of the need"...)
	case coverMissEvidence:
		b = strconv.AppendFloat(b, 100*f[coverMissAt], 'f', 0, 64)
		b = append(b, "% of the need is not in the skill's text"...)
	case formatInEvidence:
		b = append(b, "names the input type exactly"...)
	case formatOutEvidence:
		b = append(b, "names the output type exactly"...)
	}
	return b
}

// clip shortens s to n runes, the last one an ellipsis, counting runes
// as a conversion to []rune does (an invalid byte is one).
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n-1 {
			// Valid UTF-8 converts back byte for byte; an invalid byte
			// would come back as U+FFFD, so such a prefix takes the
			// conversion.
			if utf8.ValidString(s[:i]) {
				return s[:i] + "…"
			}
			break
		}
		k++
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
