package rerank

import (
	"fmt"
	"math"
	"slices"
)

// Stack is the listwise last layer: how good a candidate is depends on
// its rivals too. It reads the candidate's logit z, its lead over the best
// other candidate, and its softmax share of the shortlist.
type Stack struct {
	Z     float64 `json:"z"`
	Lead  float64 `json:"lead"`
	Share float64 `json:"share"`
	Bias  float64 `json:"bias"`
}

// stackFeatures computes the stack's inputs for every candidate of a list.
// A candidate's lead is over the best other candidate that is not its kin
// (see Input.Kin; nil: none are).
func stackFeatures(z []float64, kin [][]int) [][]float64 {
	out := make([][]float64, len(z))
	if len(z) == 0 {
		return out
	}
	rows := make([]float64, 3*len(z)) // one array for every candidate's

	best, second := math.Inf(-1), math.Inf(-1)
	for _, v := range z {
		if v > best {
			best, second = v, best
		} else if v > second {
			second = v
		}
	}
	sum := 0.0
	for _, v := range z {
		sum += math.Exp(v - best)
	}
	for i, v := range z {
		other := best
		if v == best {
			other = second
		}
		if len(kinOf(kin, i)) > 0 {
			other = bestRival(z, kinOf(kin, i), i)
		}
		lead := 0.0
		if !math.IsInf(other, -1) {
			lead = v - other
		} else {
			lead = 5 // alone in the shortlist
		}
		lead = max(min(lead, 10), -10)
		f := rows[3*i : 3*i+3 : 3*i+3]
		f[0], f[1], f[2] = v, lead, math.Exp(v-best)/sum
		out[i] = f
	}
	return out
}

// kinOf is candidate i's kin (see Input.Kin).
func kinOf(kin [][]int, i int) []int {
	if i < len(kin) {
		return kin[i]
	}
	return nil
}

// bestRival is the highest logit among the candidates other than i and
// its kin, -Inf when there is none.
func bestRival(z []float64, kin []int, i int) float64 {
	other := math.Inf(-1)
	for j, v := range z {
		if j != i && v > other && !slices.Contains(kin, j) {
			other = v
		}
	}
	return other
}

func (s *Stack) logit(f []float64) float64 {
	return s.Bias + s.Z*f[0] + s.Lead*f[1] + s.Share*f[2]
}

// FitStack fits the listwise layer on logits the model gave tasks it was
// not trained on (cross-fitting), so they are as fresh as a new task's.
// logits[i] holds one logit per candidate of groups[i].
func FitStack(logits [][]float64, groups []Group) (Stack, error) {
	var xs [][]float64
	var ys, ws []float64
	for gi, g := range groups {
		for i, sf := range stackFeatures(logits[gi], g.Kin) {
			xs = append(xs, sf)
			y := 0.0
			if g.Labels[i] {
				y = 1
			}
			ys = append(ys, y)
			ws = append(ws, g.weight())
		}
	}
	if len(xs) == 0 {
		return Stack{}, fmt.Errorf("%w: no held-out pairs for the stack", ErrNoTrainingData)
	}
	beta, err := logistic(xs, ys, ws, 0.1, 50)
	if err != nil {
		return Stack{}, fmt.Errorf("fit stack: %w", err)
	}
	return Stack{Bias: beta[0], Z: beta[1], Lead: beta[2], Share: beta[3]}, nil
}

// Apply maps one shortlist's logits to 0-10 fits; kin as Input.Kin.
func (s *Stack) Apply(z []float64, kin [][]int) []float64 {
	out := make([]float64, len(z))
	for i, sf := range stackFeatures(z, kin) {
		out[i] = 10 / (1 + math.Exp(-s.logit(sf)))
	}
	return out
}

// logistic fits an L2-regularised logistic regression by Newton's method on
// raw (unstandardised) features; beta[0] is the unpenalised bias.
func logistic(xs [][]float64, ys, ws []float64, l2 float64, iters int) ([]float64, error) {
	d := len(xs[0]) + 1
	beta := make([]float64, d)
	row := make([]float64, d)
	prev := math.Inf(1)
	for range iters {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for j := range hess {
			hess[j] = make([]float64, d)
		}
		loss := 0.0
		for i, x := range xs {
			row[0] = 1
			copy(row[1:], x)
			p := 1 / (1 + math.Exp(-dot(beta, row)))
			loss -= ws[i] * (ys[i]*logSafe(p) + (1-ys[i])*logSafe(1-p))
			r, v := ws[i]*(p-ys[i]), ws[i]*math.Max(p*(1-p), 1e-9)
			for a := range d {
				grad[a] += r * row[a]
				for b := a; b < d; b++ {
					hess[a][b] += v * row[a] * row[b]
				}
			}
		}
		for a := 1; a < d; a++ {
			loss += 0.5 * l2 * beta[a] * beta[a]
			grad[a] += l2 * beta[a]
			hess[a][a] += l2
		}
		for a := range d {
			for b := 0; b < a; b++ {
				hess[a][b] = hess[b][a]
			}
		}
		step, err := solve(hess, grad)
		if err != nil {
			return nil, err
		}
		for a := range d {
			beta[a] -= step[a]
		}
		if math.Abs(prev-loss) < 1e-9*math.Max(1, math.Abs(loss)) {
			break
		}
		prev = loss
	}
	return beta, nil
}
