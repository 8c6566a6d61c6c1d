package calibrate

import (
	"fmt"
	"math"
)

// ECE is the expected calibration error of probabilities against labels:
// probabilities are put in equal-width bins over [0, 1], and the gaps
// between each bin's mean probability and its positive rate are averaged,
// weighted by the bin's share of examples (Naeini et al. 2015; skillmatch
// reports use 10 bins). Bin i holds [i/bins, (i+1)/bins), the last also 1;
// probabilities outside [0, 1] count in the end bins.
//
// ECE of no examples is 0, so reports over empty slices stay encodable as
// JSON. It panics when the lengths differ, bins < 1 or a probability is
// NaN: those are bugs in the caller, not properties of the data.
func ECE(probs []float64, labels []bool, bins int) float64 {
	checkMetric(probs, labels)
	if bins < 1 {
		panic(fmt.Sprintf("calibrate: ECE needs at least one bin, got %d", bins))
	}
	if len(probs) == 0 {
		return 0
	}
	type bin struct{ sumP, pos, n float64 }
	bs := make([]bin, bins)
	for i, p := range probs {
		k := min(max(int(p*float64(bins)), 0), bins-1)
		bs[k].sumP += p
		bs[k].n++
		if labels[i] {
			bs[k].pos++
		}
	}
	var ece float64
	for _, b := range bs {
		if b.n > 0 {
			// n/N · |Σp/n − pos/n| = |Σp − pos| / N
			ece += math.Abs(b.sumP - b.pos)
		}
	}
	return ece / float64(len(probs))
}

// Brier is the mean squared difference between probabilities and labels
// (1 for positive, 0 for negative); 0 for no examples. It panics like ECE.
func Brier(probs []float64, labels []bool) float64 {
	checkMetric(probs, labels)
	if len(probs) == 0 {
		return 0
	}
	var sum float64
	for i, p := range probs {
		y := 0.0
		if labels[i] {
			y = 1
		}
		sum += (p - y) * (p - y)
	}
	return sum / float64(len(probs))
}

func checkMetric(probs []float64, labels []bool) {
	if len(probs) != len(labels) {
		panic(fmt.Sprintf("calibrate: %d probabilities but %d labels", len(probs), len(labels)))
	}
	for i, p := range probs {
		if math.IsNaN(p) {
			panic(fmt.Sprintf("calibrate: probability %d is NaN", i))
		}
	}
}
