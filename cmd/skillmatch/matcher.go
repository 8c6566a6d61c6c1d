package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/weaviateindex"
)

// matcherOpts are the flags every command that matches shares.
type matcherOpts struct {
	model     *string
	examples  *bool
	shortlist *int
	rrfK      *float64
	threshold *float64
	margin    *float64
	grants    *string
	index     *string
	wvURL     *string
	wvGRPC    *string
	wvCatalog *string
	wvTenant  *string
	// explain keeps every reason (match --explain); not a flag of its own.
	explain bool
}

func matcherFlags(fs *flag.FlagSet) *matcherOpts {
	return &matcherOpts{
		model:     fs.String("model", "", "model file from \"skillmatch fit\" (default: the built-in domain-neutral model)"),
		examples:  fs.Bool("model-examples", true, "index the model's extra examples (training texts), when it has them"),
		shortlist: fs.Int("shortlist", 20, "how many fused candidates the reranker sees"),
		rrfK:      fs.Float64("rrf-k", 60, "reciprocal rank fusion constant"),
		threshold: fs.Float64("threshold", decide.DefaultPolicy.Threshold, "lowest calibrated probability to delegate at"),
		margin:    fs.Float64("margin", decide.DefaultPolicy.Margin, "lead over a runner-up of another agent needed to delegate"),
		grants:    fs.String("grants", "", "grants file: which callers may use which agents or skills (default: no restriction)"),
		index:     fs.String("index", "memory", "retrieval index: memory (in process) or weaviate"),
		wvURL:     fs.String("weaviate-url", "", "Weaviate REST endpoint for --index weaviate, e.g. http://127.0.0.1:8080"),
		wvGRPC:    fs.String("weaviate-grpc", "", "Weaviate gRPC host:port (faster imports; optional)"),
		wvCatalog: fs.String("weaviate-catalog", "default", "catalog name: prefixes the Weaviate collections"),
		wvTenant:  fs.String("weaviate-tenant", "", "store the catalog as this tenant of shared multi-tenant collections (one per catalog of a multi-tenant deployment); empty: collections of its own"),
	}
}

// id names what the matcher is made of besides the catalog, for the
// refresher's evaluations: the embedder and the model.
func (o *matcherOpts) id() string {
	m := "built-in model"
	if *o.model != "" {
		if data, err := os.ReadFile(*o.model); err == nil {
			sum := sha256.Sum256(data)
			m = "model " + hex.EncodeToString(sum[:6])
		}
	}
	return embed.Default().ID() + ", " + m
}

func (o *matcherOpts) matcher(cat *catalog.Catalog) (*match.Matcher, error) {
	m := model.Default()
	if *o.model != "" {
		var err error
		if m, err = model.Load(*o.model); err != nil {
			return nil, err
		}
	}
	var g *grants.Grants
	if *o.grants != "" {
		var err error
		if g, err = grants.Load(*o.grants); err != nil {
			return nil, err
		}
	}
	opts := []match.Option{}
	switch *o.index {
	case "memory":
	case "weaviate":
		if *o.wvURL == "" {
			return nil, fmt.Errorf("%w: --index weaviate needs --weaviate-url", errUsage)
		}
		opts = append(opts, match.WithIndex(weaviateindex.Builder(weaviateindex.Config{
			URL: *o.wvURL, GRPC: *o.wvGRPC, Catalog: *o.wvCatalog, Tenant: *o.wvTenant})))
	default:
		return nil, fmt.Errorf("%w: --index %q: want memory or weaviate", errUsage, *o.index)
	}
	p := decide.DefaultPolicy
	p.Threshold, p.Margin = *o.threshold, *o.margin
	return match.New(cat, append(opts, match.WithModel(m), match.WithModelExamples(*o.examples),
		match.WithShortlist(*o.shortlist), match.WithRRFK(*o.rrfK), match.WithPolicy(p), match.WithExplain(o.explain), match.WithGrants(g))...)
}
