// Package embed turns text into dense vectors for the semantic retriever.
//
// The built-in embedder is GloVe word vectors (Pennington, Socher and Manning
// 2014) combined by SIF, smooth inverse frequency (Arora, Liang and Ma 2017):
// a weighted average that down-weights frequent words, minus the projection
// on a common component that every sentence shares. It needs no model
// server and no download: the vectors ship inside the binary (glove100.bin,
// see PROVENANCE.md) and load lazily on first use.
package embed

import (
	"context"
	"fmt"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// builtin holds the parsed shipped table and the default embedder. Parsing
// takes milliseconds and the table is immutable, so it is done once per
// process, on first use, and shared by every GloVe built on it.
var builtin struct {
	once  sync.Once
	table *table
	def   *GloVe
	err   error
}

func loadBuiltin() (*table, *GloVe, error) {
	builtin.once.Do(func() {
		t, err := parseTable(gloveData, true)
		if err != nil {
			builtin.err = fmt.Errorf("embed: built-in vectors: %w", err)
			return
		}
		builtin.table = t
		builtin.def = newGloVe(t, defaultOptions())
	})
	return builtin.table, builtin.def, builtin.err
}

// Default returns the built-in GloVe SIF embedder with default options. It
// never panics: if the shipped vectors could not be read — a broken build,
// which the package's tests rule out — it returns an embedder whose ID says
// so and whose vectors are all zero, so nothing matches instead of the
// process dying.
func Default() vector.Local {
	_, g, err := loadBuiltin()
	if err != nil {
		return broken{err: err}
	}
	return g
}

// broken is Default's embedder when the built-in vectors failed to load.
type broken struct{ err error }

func (b broken) ID() string { return BuiltinID + "-unavailable" }
func (b broken) Dim() int   { return builtinDim }
func (b broken) EmbedText(string) []float32 {
	return make([]float32, builtinDim)
}
func (b broken) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = b.EmbedText("")
	}
	return out, nil
}
