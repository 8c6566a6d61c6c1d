package vector

import (
	"context"
	"math"
	"math/rand"
	"testing"
)

func TestCosine(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for n := 0; n <= 19; n++ {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		if got := Cosine(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("len %d: Cosine = %g, want %g", n, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Cosine of different lengths did not panic")
		}
	}()
	Cosine(make([]float32, 3), make([]float32, 4))
}

func BenchmarkCosine(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	x, y := make([]float32, 100), make([]float32, 100)
	for i := range x {
		x[i], y[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	var sink float32
	for b.Loop() {
		sink += Cosine(x, y)
	}
	_ = sink
}

// short is an embedder that answers with one vector too few or of the
// wrong length: EmbedDocuments and One must refuse it, not pass it on.
type short struct{ dim, drop int }

func (s short) ID() string { return "short" }
func (s short) Dim() int   { return 3 }
func (s short) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, max(len(texts)-s.drop, 0))
	for i := range out {
		out[i] = make([]float32, s.dim)
	}
	return out, nil
}

func TestEmbedDocumentsChecksTheAnswer(t *testing.T) {
	ctx := context.Background()
	if _, err := EmbedDocuments(ctx, short{dim: 3}, []string{"a", "b"}); err != nil {
		t.Fatalf("a well-formed answer: %v", err)
	}
	if _, err := EmbedDocuments(ctx, short{dim: 3, drop: 1}, []string{"a", "b"}); err == nil {
		t.Error("one vector too few was accepted")
	}
	if _, err := EmbedDocuments(ctx, short{dim: 2}, []string{"a"}); err == nil {
		t.Error("a vector of the wrong length was accepted")
	}
	if _, err := One(ctx, short{dim: 3, drop: 1}, "a"); err == nil {
		t.Error("One accepted no vector")
	}
}
