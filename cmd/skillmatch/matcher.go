package main

import (
	"flag"

	"github.com/skillmatch/skillmatch/shared/catalog"
	"github.com/skillmatch/skillmatch/shared/decide"
	"github.com/skillmatch/skillmatch/shared/grants"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/model"
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
	}
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
	p := decide.DefaultPolicy
	p.Threshold, p.Margin = *o.threshold, *o.margin
	return match.New(cat, match.WithModel(m), match.WithModelExamples(*o.examples),
		match.WithShortlist(*o.shortlist), match.WithRRFK(*o.rrfK), match.WithPolicy(p), match.WithExplain(o.explain), match.WithGrants(g))
}
