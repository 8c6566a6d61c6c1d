// Package retrieval is the part of the composition root that links the
// retrieval stack: the built-in GloVe embedder (its vectors ship inside
// the binary) and, for --index weaviate, the Weaviate client. Only the
// processes that shortlist import it: the retriever service, `skillmatch
// run` and the skillmatch command; the other stage services call package
// app alone and stay small.
package retrieval

import (
	"cmp"
	"context"
	"flag"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/remoteembed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
	"github.com/skillmatch/skillmatch/shared/retrieval/weaviateindex"
)

// stack is the retrieval the flags choose.
type stack struct{}

// Stack returns the retrieval stack: GloVe, and the in-memory index or,
// with --index weaviate, the Weaviate index.
func Stack() app.Retrieval { return stack{} }

// Options implements app.Retrieval.
func (stack) Options(m *app.MatcherFlags, log *zap.Logger) ([]match.Option, error) {
	e, err := Embedder(m)
	if err != nil {
		return nil, err
	}
	// The soft-alignment features read GloVe's words whatever embedder
	// retrieves: the model's weights were fitted on them.
	opts := []match.Option{match.WithEmbedder(e), match.WithEmbedBudget(m.EmbedderBudget),
		match.WithWordVectors(embed.Default().(*embed.GloVe))}
	if m.Index == "weaviate" {
		// One builder for every rebuild: it logs one line per change of
		// Weaviate's reachability, not one per index.
		opts = append(opts, match.WithIndex(weaviateindex.Builder(weaviateindex.Config{
			URL: m.WeaviateURL, GRPC: m.WeaviateGRPC, Catalog: m.WeaviateName, Tenant: m.WeaviateTenant, Log: log})))
	}
	return opts, nil
}

// Embedder is the embedder the flags choose: the built-in GloVe, or for
// --embedder openai the remote embedder, its dimension learned from the
// server when --embedder-dim is not given.
func Embedder(m *app.MatcherFlags) (vector.Embedder, error) {
	if m.Embedder != "openai" {
		return embed.Default(), nil
	}
	c, err := m.EmbedderClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*cmp.Or(m.EmbedderTimeout, 10*time.Second))
	defer cancel()
	e, err := remoteembed.New(ctx, remoteembed.Config{Client: c, Model: m.EmbedderModel, Dim: m.EmbedderDim, Batch: m.EmbedderBatch})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// EmbedderID implements app.Retrieval.
func (stack) EmbedderID(m *app.MatcherFlags) string {
	if id := m.RemoteEmbedderID(); id != "" {
		return id
	}
	return embed.Default().ID()
}

// MatcherFlags registers the matcher flags on fs for a command that
// shortlists.
func MatcherFlags(fs *flag.FlagSet) *app.MatcherFlags {
	mf := &app.MatcherFlags{Retrieval: Stack()}
	mf.Register(fs)
	return mf
}

// NewRunFlags is app.NewRunFlags with the retrieval stack: `skillmatch
// run` shortlists.
func NewRunFlags(out io.Writer) (*flag.FlagSet, *app.RunFlags) {
	fs, rf := app.NewRunFlags(out)
	rf.Matcher.Retrieval = Stack()
	return fs, rf
}

// ServiceMain is app.ServiceMain for a stage that shortlists (the
// retriever).
func ServiceMain(stage string, args []string) int { return app.ServiceMainWith(stage, args, Stack()) }

// ConsoleMain is app.ConsoleMain with the retrieval stack: the console
// recomputes a decision's shortlist for its explain trace.
func ConsoleMain(args []string) int { return app.ConsoleMain(args, Stack()) }
