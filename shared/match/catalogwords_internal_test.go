package match

import (
	"context"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// mapVectors is an embedder and word vectors of an uncomparable type:
// comparing two of them as interface values would panic.
type mapVectors map[string][]float32

func (m mapVectors) Dim() int   { return 100 }
func (m mapVectors) ID() string { return "map" }
func (m mapVectors) WordVector(dst []float32, w string) (float32, bool) {
	v, ok := m[w]
	copy(dst, v)
	return 1, ok
}
func (m mapVectors) Embed(context.Context, []string) ([][]float32, error) { return nil, nil }

func TestSameVectors(t *testing.T) {
	g := embed.Default().(*embed.GloVe)
	other, err := embed.NewGloVe(embed.WithSkipStopwords(true))
	if err != nil {
		t.Fatal(err)
	}
	m := mapVectors{}
	for _, tt := range []struct {
		name  string
		words rerank.WordVectors
		emb   vector.Embedder
		want  bool
	}{
		{"the embedder's own", g, g, true},
		{"another GloVe", other, g, false},
		{"an uncomparable kind", m, m, false},
		{"none", nil, g, false},
	} {
		if got := sameVectors(tt.words, tt.emb); got != tt.want {
			t.Errorf("%s: sameVectors = %v, want %v", tt.name, got, tt.want)
		}
	}
}
