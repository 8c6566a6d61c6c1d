// Package retrieval is the part of the composition root that links the
// retrieval stack: the built-in GloVe embedder (its vectors ship inside
// the binary) and, for --index weaviate, the Weaviate client. Only the
// processes that shortlist import it: the retriever service, `skillmatch
// run` and the skillmatch command; the other stage services call package
// app alone and stay small.
package retrieval

import (
	"flag"
	"io"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/weaviateindex"
)

// stack is the retrieval the flags choose.
type stack struct{}

// Stack returns the retrieval stack: GloVe, and the in-memory index or,
// with --index weaviate, the Weaviate index.
func Stack() app.Retrieval { return stack{} }

// Options implements app.Retrieval.
func (stack) Options(m *app.MatcherFlags, log *zap.Logger) []match.Option {
	opts := []match.Option{match.WithEmbedder(embed.Default())}
	if m.Index == "weaviate" {
		// One builder for every rebuild: it logs one line per change of
		// Weaviate's reachability, not one per index.
		opts = append(opts, match.WithIndex(weaviateindex.Builder(weaviateindex.Config{
			URL: m.WeaviateURL, GRPC: m.WeaviateGRPC, Catalog: m.WeaviateName, Tenant: m.WeaviateTenant, Log: log})))
	}
	return opts
}

// EmbedderID implements app.Retrieval.
func (stack) EmbedderID() string { return embed.Default().ID() }

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
