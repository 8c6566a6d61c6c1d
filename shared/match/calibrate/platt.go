package calibrate

import "math"

// Platt is Platt scaling (Platt 1999): p = 1/(1+exp(A·s + B)). A is
// negative when higher scores mean a likelier match.
type Platt struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Prob maps a score to a probability. The two branches keep exp from
// overflowing for scores far from the decision boundary.
func (p Platt) Prob(score float64) float64 {
	f := p.A*score + p.B
	if f >= 0 {
		e := math.Exp(-f)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(f))
}

// Settings of the Lin-Lin-Weng Newton iteration, as in LIBSVM.
const (
	plattMaxIter = 100
	plattMinStep = 1e-10
	plattSigma   = 1e-12 // added to the Hessian's diagonal to keep it positive definite
	plattEps     = 1e-5  // gradient norm at which the fit has converged
)

// FitPlatt fits A and B by maximum likelihood with Platt's smoothed targets,
// using Newton's method with backtracking line search as in Lin, Lin and
// Weng, "A note on Platt's probabilistic outputs for support vector
// machines" (2007).
//
// The targets are (N₊+1)/(N₊+2) for positives and 1/(N₋+2) for negatives
// rather than 1 and 0: with separable data the unsmoothed likelihood has no
// maximum (A runs to infinity), and the smoothing is the Bayesian estimate
// of a label under a uniform prior, which keeps probabilities away from 0
// and 1 when data is scarce. The fitted model is the one whose log-loss
// against these targets is smallest.
//
// It returns an error when the input is empty, mismatched, non-finite, or
// has only one class. If the iteration does not converge within 100 steps
// it returns the best parameters found, which is what LIBSVM does as well.
func FitPlatt(scores []float64, labels []bool) (Platt, error) {
	pos, neg, err := check(scores, labels)
	if err != nil {
		return Platt{}, err
	}
	hi := (float64(pos) + 1) / (float64(pos) + 2)
	lo := 1 / (float64(neg) + 2)
	target := make([]float64, len(labels))
	for i, l := range labels {
		target[i] = lo
		if l {
			target[i] = hi
		}
	}

	// Start from A=0 and the smoothed prior odds, a flat model at the base
	// rate.
	a, b := 0.0, math.Log((float64(neg)+1)/(float64(pos)+1))
	f := plattLoss(scores, target, a, b)
	for iter := 0; iter < plattMaxIter; iter++ {
		g1, g2, h11, h22, h21 := plattDerivatives(scores, target, a, b)
		if math.Abs(g1) < plattEps && math.Abs(g2) < plattEps {
			break
		}
		// Newton direction −H⁻¹g.
		det := h11*h22 - h21*h21
		da := -(h22*g1 - h21*g2) / det
		db := -(-h21*g1 + h11*g2) / det
		gd := g1*da + g2*db

		// Backtrack until the Armijo condition holds.
		step := 1.0
		for ; step >= plattMinStep; step /= 2 {
			na, nb := a+step*da, b+step*db
			if nf := plattLoss(scores, target, na, nb); nf < f+1e-4*step*gd {
				a, b, f = na, nb, nf
				break
			}
		}
		if step < plattMinStep {
			break // no further progress possible in floating point
		}
	}
	return Platt{A: a, B: b}, nil
}

// plattLoss is the cross-entropy of the model against the targets, written
// as t·f + log(1+e^−f) or (t−1)·f + log(1+e^f) so neither exp overflows.
func plattLoss(scores []float64, target []float64, a, b float64) float64 {
	var sum float64
	for i, s := range scores {
		f, t := a*s+b, target[i]
		if f >= 0 {
			sum += t*f + math.Log1p(math.Exp(-f))
		} else {
			sum += (t-1)*f + math.Log1p(math.Exp(f))
		}
	}
	return sum
}

// plattDerivatives returns the gradient (g1, g2) of plattLoss in (A, B) and
// its Hessian (h11, h22, h21), regularised by plattSigma.
func plattDerivatives(scores []float64, target []float64, a, b float64) (g1, g2, h11, h22, h21 float64) {
	h11, h22 = plattSigma, plattSigma
	for i, s := range scores {
		f := a*s + b
		var p, q float64 // p = P(positive), q = 1−p
		if f >= 0 {
			e := math.Exp(-f)
			p, q = e/(1+e), 1/(1+e)
		} else {
			e := math.Exp(f)
			p, q = 1/(1+e), e/(1+e)
		}
		d2 := p * q
		h11 += s * s * d2
		h22 += d2
		h21 += s * d2
		d1 := target[i] - p
		g1 += s * d1
		g2 += d1
	}
	return g1, g2, h11, h22, h21
}
