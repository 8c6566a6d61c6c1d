package rerank

import (
	"errors"
	"fmt"
	"math"
)

// Group is one training task: the features of its shortlist and which
// candidates are right for it (none for a task no skill should take).
type Group struct {
	Features [][]float64
	Labels   []bool
	// Kin groups the candidates as Input.Kin does, for the listwise layer.
	Kin [][]int
	// Weight of the task in the loss (0 means 1): fitting weighs rare
	// kinds of task, such as those no skill should take, up.
	Weight float64
}

func (g *Group) weight() float64 {
	if g.Weight > 0 {
		return g.Weight
	}
	return 1
}

// TrainOption configures Train.
type TrainOption func(*trainConfig)

type trainConfig struct {
	l2    float64
	iters int
	boost boostConfig
}

// WithL2 sets the ridge penalty on the standardised weights (default 1).
func WithL2(l2 float64) TrainOption { return func(c *trainConfig) { c.l2 = l2 } }

// ErrNoTrainingData is returned when the groups hold no positive or no
// negative example.
var ErrNoTrainingData = errors.New("no training data")

// Train fits the logistic reranker by Newton's method (iteratively
// reweighted least squares) on every (task, candidate) pair.
func Train(groups []Group, opts ...TrainOption) (Weights, error) {
	cfg := trainConfig{l2: 1, iters: 30, boost: defaultBoost}
	for _, o := range opts {
		o(&cfg)
	}
	n := NumFeatures
	var xs [][]float64
	var ys, ws []float64
	pos := 0
	for _, g := range groups {
		for i, f := range g.Features {
			if len(f) != n {
				return Weights{}, fmt.Errorf("train: feature vector of length %d, want %d", len(f), n)
			}
			xs = append(xs, f)
			y := 0.0
			if g.Labels[i] {
				y, pos = 1, pos+1
			}
			ys = append(ys, y)
			ws = append(ws, g.weight())
		}
	}
	if pos == 0 || pos == len(xs) {
		return Weights{}, fmt.Errorf("%w: %d pairs, %d positive", ErrNoTrainingData, len(xs), pos)
	}
	w := Weights{Features: append([]string(nil), FeatureNames...),
		Mean: make([]float64, n), Scale: make([]float64, n), W: make([]float64, n)}
	for _, x := range xs {
		for j := range n {
			w.Mean[j] += x[j]
		}
	}
	for j := range n {
		w.Mean[j] /= float64(len(xs))
	}
	for _, x := range xs {
		for j := range n {
			d := x[j] - w.Mean[j]
			w.Scale[j] += d * d
		}
	}
	for j := range n {
		w.Scale[j] = math.Sqrt(w.Scale[j] / float64(len(xs)))
		if w.Scale[j] < 1e-9 {
			w.Scale[j] = 1 // a constant feature: its weight stays ~0 under L2
		}
	}
	// Standardised design with a leading 1 for the bias.
	d := n + 1
	z := make([][]float64, len(xs))
	for i, x := range xs {
		row := make([]float64, d)
		row[0] = 1
		for j := range n {
			row[j+1] = (x[j] - w.Mean[j]) / w.Scale[j]
		}
		z[i] = row
	}
	beta := make([]float64, d)
	prev := math.Inf(1)
	for it := 0; it < cfg.iters; it++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for j := range hess {
			hess[j] = make([]float64, d)
		}
		loss := 0.0
		for i, row := range z {
			s := dot(beta, row)
			p := 1 / (1 + math.Exp(-s))
			loss -= ws[i] * (ys[i]*logSafe(p) + (1-ys[i])*logSafe(1-p))
			r := ws[i] * (p - ys[i])
			v := ws[i] * p * (1 - p)
			for a := range d {
				grad[a] += r * row[a]
				va := v * row[a]
				for b := a; b < d; b++ {
					hess[a][b] += va * row[b]
				}
			}
		}
		for a := 1; a < d; a++ { // no penalty on the bias
			loss += 0.5 * cfg.l2 * beta[a] * beta[a]
			grad[a] += cfg.l2 * beta[a]
			hess[a][a] += cfg.l2
		}
		for a := range d {
			for b := 0; b < a; b++ {
				hess[a][b] = hess[b][a]
			}
		}
		step, err := solve(hess, grad)
		if err != nil {
			return Weights{}, fmt.Errorf("train: %w", err)
		}
		for a := range d {
			beta[a] -= step[a]
		}
		if math.Abs(prev-loss) < 1e-7*math.Max(1, math.Abs(loss)) {
			break
		}
		prev = loss
	}
	w.Bias = beta[0]
	copy(w.W, beta[1:])
	if cfg.boost.trees > 0 {
		base := make([]float64, len(z))
		for i, row := range z {
			base[i] = dot(beta, row)
		}
		w.Trees = boost(xs, ys, ws, base, cfg.boost)
	}
	return w, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func logSafe(p float64) float64 { return math.Log(math.Max(p, 1e-15)) }

// solve solves A x = b for a symmetric positive definite A (Cholesky).
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
	}
	for i := range n {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := 0; k < j; k++ {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				if s <= 0 {
					return nil, errors.New("hessian not positive definite")
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k][i] * x[k]
		}
		x[i] = s / l[i][i]
	}
	return x, nil
}
