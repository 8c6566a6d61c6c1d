package calibrate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func BenchmarkFitPlatt(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		scores, labels := logistic(rand.New(rand.NewPCG(1, 1)), n, -2, 0.5, 1)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FitPlatt(scores, labels); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFitIsotonic(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		scores, labels := cubic(rand.New(rand.NewPCG(2, 2)), n)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FitIsotonic(scores, labels); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkProb(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	scores, labels := cubic(rng, 10000)
	iso, _ := Fit(scores, labels)
	platt, _ := Fit(scores, labels, WithMinIsotonic(1<<30))
	for _, m := range []*Model{platt, iso} {
		b.Run(m.Method(), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Prob(scores[i%len(scores)])
				i++
			}
		})
	}
}

func BenchmarkECE(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	probs, labels := cubic(rng, 10000)
	b.ReportAllocs()
	for b.Loop() {
		ECE(probs, labels, 10)
	}
}
