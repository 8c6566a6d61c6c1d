package bm25

import (
	"math"
	"testing"
)

func TestIDFHandComputed(t *testing.T) {
	ix := threeDocs() // N=3; cat in 2 docs, bird in 1
	tests := []struct {
		term string
		want float64
	}{
		{"cat", math.Log(1.6)},
		{"bird", math.Log(8.0 / 3)},
		{"unicorn", math.Log(1 + 3.5/0.5)},
	}
	for _, tt := range tests {
		if got := ix.IDF(tt.term); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("IDF(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
	// Removing doc 2 (before any compaction) leaves cat in 1 of 2 docs and
	// fish, its only other term, in none.
	ix.Remove(2)
	if got, want := ix.IDF("cat"), math.Log(2); math.Abs(got-want) > 1e-12 {
		t.Errorf("after Remove: IDF(cat) = %v, want %v", got, want)
	}
	if got, want := ix.IDF("fish"), math.Log(1+2.5/0.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("after Remove: IDF(fish) = %v, want %v", got, want)
	}
}
