package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Eps bounds isotonic probabilities to [Eps, 1-Eps]. A block of only
// negatives (or only positives) estimates 0 (or 1), but a few hundred
// examples never justify certainty, and downstream log-odds and log-loss
// must stay finite.
const Eps = 1e-3

// Isotonic is a monotone non-decreasing map from score to probability,
// fitted by pool-adjacent-violators (PAV). X holds block centres (the mean
// score of each block), strictly increasing; Y each block's positive rate,
// non-decreasing and inside [Eps, 1-Eps].
//
// Plain PAV gives a step function: probabilities are flat across each
// block and jump at block edges, so two scores a hair apart can get very
// different probabilities, and the blocks at the ends or in sparse score
// ranges hold a handful of examples whose rates are mostly noise. Two
// changes smooth it, both keeping it monotone and cheap:
//
//   - Blocks smaller than √n examples are pooled with their neighbours
//     (see poolSmall), bounding each rate's standard error and keeping
//     centres apart, so no interpolated segment is a cliff.
//   - Prob interpolates linearly between block centres instead of
//     returning steps ("centred isotonic regression", Oron and Flournoy
//     2017), which keeps each fitted rate at the score where it was
//     measured and makes the map continuous.
//
// Blending with Platt was considered and rejected: the blend weight is one
// more knob to tune, and where the two disagree Platt's logistic shape is
// exactly what isotonic is there to avoid. Outside [X[0], X[last]] Prob
// clamps to the end values, since there is no data to extrapolate from.
type Isotonic struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// Prob maps a score to a probability. NaN maps to NaN.
func (m Isotonic) Prob(score float64) float64 {
	if math.IsNaN(score) || len(m.X) == 0 {
		return math.NaN()
	}
	i := sort.SearchFloat64s(m.X, score) // first centre ≥ score
	switch {
	case i == 0:
		return m.Y[0]
	case i == len(m.X):
		return m.Y[len(m.Y)-1]
	}
	x0, x1, y0, y1 := m.X[i-1], m.X[i], m.Y[i-1], m.Y[i]
	return y0 + (y1-y0)*(score-x0)/(x1-x0)
}

// validate checks the invariants Prob relies on, for models read from JSON.
func (m Isotonic) validate() error {
	if len(m.X) == 0 || len(m.X) != len(m.Y) {
		return fmt.Errorf("calibrate: isotonic model needs equal, non-zero numbers of x and y, got %d and %d", len(m.X), len(m.Y))
	}
	for i := range m.X {
		if math.IsNaN(m.X[i]) || math.IsInf(m.X[i], 0) {
			return fmt.Errorf("calibrate: isotonic x[%d] = %v is not finite", i, m.X[i])
		}
		if !(m.Y[i] >= 0 && m.Y[i] <= 1) {
			return fmt.Errorf("calibrate: isotonic y[%d] = %v is not a probability", i, m.Y[i])
		}
		if i > 0 && !(m.X[i] > m.X[i-1]) {
			return fmt.Errorf("calibrate: isotonic x must be strictly increasing at %d", i)
		}
		if i > 0 && m.Y[i] < m.Y[i-1] {
			return fmt.Errorf("calibrate: isotonic y must be non-decreasing at %d", i)
		}
	}
	return nil
}

// block is a run of consecutive scores pooled by PAV. lo and hi are its
// smallest and largest score.
type block struct {
	sumX, sumY, n float64
	lo, hi        float64
}

// centre is the block's mean score, clamped into [lo, hi]: blocks cover
// disjoint score ranges, and the clamp keeps rounding in a long sum from
// pushing two neighbouring centres onto or past each other.
func (b block) centre() float64 { return min(max(b.sumX/b.n, b.lo), b.hi) }

func (b block) meanY() float64 { return b.sumY / b.n }

// FitIsotonic fits an Isotonic map: PAV over the scores sorted ascending,
// small blocks pooled, then block centres and rates stored for Prob to
// interpolate. It runs in O(n log n), the sort dominating.
//
// It returns an error when the input is empty, mismatched, non-finite, or
// has only one class.
func FitIsotonic(scores []float64, labels []bool) (Isotonic, error) {
	if _, _, err := check(scores, labels); err != nil {
		return Isotonic{}, err
	}
	blocks := poolSmall(pav(scores, labels), math.Ceil(math.Sqrt(float64(len(scores)))))
	m := Isotonic{X: make([]float64, len(blocks)), Y: make([]float64, len(blocks))}
	for i, b := range blocks {
		m.X[i] = b.centre()
		m.Y[i] = min(max(b.meanY(), Eps), 1-Eps)
	}
	return m, nil
}

// pav returns the blocks of the least-squares non-decreasing fit of the
// labels (1 positive, 0 negative) ordered by score. Equal scores are pooled
// first: they must get one probability whatever order they came in.
func pav(scores []float64, labels []bool) []block {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(scores[i], scores[j]) })

	var stack []block
	for k := 0; k < len(order); {
		x := scores[order[k]]
		b := block{lo: x, hi: x}
		for ; k < len(order) && scores[order[k]] == x; k++ {
			b.sumX += x
			b.n++
			if labels[order[k]] {
				b.sumY++
			}
		}
		// Merge backwards while the order is violated. Merging equal rates
		// too leaves strictly increasing rates.
		for len(stack) > 0 && stack[len(stack)-1].meanY() >= b.meanY() {
			b = merge(stack[len(stack)-1], b)
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, b)
	}
	return stack
}

// poolSmall merges consecutive PAV blocks, left to right, until each holds
// at least minN examples; a short remainder joins the last full group.
//
// PAV alone fits noise: at the ends and in sparse score ranges it leaves
// blocks of a handful of examples whose rates jump by tenths between
// centres a hair apart, and interpolation turns each jump into a cliff.
// With ≥ √n examples a block's rate has a standard error of at most
// 0.5/n^¼ (0.04 at n = 20,000), while up to √n blocks keep the resolution.
// Averages of consecutive runs of a non-decreasing sequence are themselves
// non-decreasing, so the result is still monotone and the groups still
// cover disjoint, ordered score ranges.
func poolSmall(blocks []block, minN float64) []block {
	out := blocks[:0]
	var cur block
	for _, b := range blocks {
		if cur.n == 0 {
			cur = b
		} else {
			cur = merge(cur, b)
		}
		if cur.n >= minN {
			out = append(out, cur)
			cur = block{}
		}
	}
	if cur.n > 0 {
		if len(out) == 0 {
			return append(out, cur)
		}
		out[len(out)-1] = merge(out[len(out)-1], cur)
	}
	return out
}

// merge pools two adjacent blocks, a before b.
func merge(a, b block) block {
	return block{sumX: a.sumX + b.sumX, sumY: a.sumY + b.sumY, n: a.n + b.n, lo: a.lo, hi: b.hi}
}
