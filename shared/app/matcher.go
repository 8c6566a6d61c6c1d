package app

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/settle"
)

// Retrieval supplies what a matcher searches with: the embedder and the
// index the flags choose. app/retrieval provides it (GloVe, the in-memory
// or the Weaviate index) to the processes that shortlist: the retriever,
// `run` and the skillmatch command. Without it a matcher only ranks and
// decides shortlists made elsewhere (match.WithoutRetrieval), which is all
// the reranker and decider services do, so their binaries link neither the
// GloVe vectors nor the Weaviate client.
type Retrieval interface {
	// Options are the embedder and index options for the flags; a remote
	// embedder that cannot be set up is an error.
	Options(m *MatcherFlags, log *zap.Logger) ([]match.Option, error)
	// EmbedderID names the embedder the flags choose (vector.Embedder.ID).
	EmbedderID(m *MatcherFlags) string
}

// MatcherFlags configure the matcher: the model, retrieval, the decision
// operating point and the grants. Every command and service that matches
// (match, eval, replay, run, cards refresh, the retriever, reranker and
// decider) registers exactly these, so a deployment sets them once.
type MatcherFlags struct {
	Model          string
	ModelExamples  bool
	Shortlist      int
	RRFK           float64
	Threshold      float64
	Margin         float64
	Grants         string
	Index          string
	WeaviateURL    string
	WeaviateGRPC   string
	WeaviateName   string
	WeaviateTenant string
	Strict         bool
	// PlanSteps caps a multi-skill plan (match.WithPlanSteps).
	PlanSteps int
	// SelfCalibrate adapts the threshold to the catalog at load time
	// (match.WithSelfCalibration).
	SelfCalibrate bool
	// PrivateEndpoints lets agents be at private, loopback or link-local
	// addresses (match.WithPrivateEndpoints).
	PrivateEndpoints bool
	// Explain keeps every filter reason (match --explain); not a flag.
	Explain bool
	// Followups records in-process delegations (match); not a flag.
	Followups settle.Store
	// Retrieval is how matchers search (nil: they do not); not a flag,
	// set by the composition that links it (app/retrieval).
	Retrieval Retrieval
	// OnDegraded is called with "embedder" or "reranker" each time a task
	// falls back to the built-in path (a metric); not a flag.
	OnDegraded func(component string)
	// RemoteFlags bring your own embedder and reranker.
	RemoteFlags
}

// MatcherFlagNames are the flags Register defines.
var MatcherFlagNames = append([]string{"model", "model-examples", "shortlist", "rrf-k", "threshold", "margin", "grants",
	"index", "weaviate-url", "weaviate-grpc", "weaviate-catalog", "weaviate-tenant", "strict", "allow-private-endpoints", "plan-steps", "self-calibrate"},
	RemoteFlagNames...)

// Register defines the matcher flags on fs.
func (m *MatcherFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&m.Model, "model", "", "model file from \"skillmatch fit\" (default: the built-in domain-neutral model)")
	fs.BoolVar(&m.ModelExamples, "model-examples", true, "index the model's extra examples (training texts), when it has them")
	fs.IntVar(&m.Shortlist, "shortlist", 20, "how many fused candidates the reranker sees (retriever)")
	fs.Float64Var(&m.RRFK, "rrf-k", 60, "reciprocal rank fusion constant (retriever)")
	fs.Float64Var(&m.Threshold, "threshold", decide.DefaultPolicy.Threshold, "lowest calibrated probability to delegate at; under it, two skills of different agents\nthat reach it together are asked about (decider)")
	fs.Float64Var(&m.Margin, "margin", decide.DefaultPolicy.Margin, "lead over a runner-up of another agent needed to delegate (decider)")
	fs.StringVar(&m.Grants, "grants", "", "grants file: which callers may use which agents or skills, a hard filter of the retriever\n"+
		"checked again by the decider (default: no restriction)")
	fs.BoolVar(&m.Strict, "strict", false, "hard filters fail closed where a task or card is silent: a task without scopes is a caller\n"+
		"with none, without a data class is restricted data, a skill without declared modes takes no typed input or output")
	fs.BoolVar(&m.PrivateEndpoints, "allow-private-endpoints", false, "let every agent's interfaces be at private, loopback or link-local addresses (development\n"+
		"catalogs on localhost); otherwise only agents whose registry entry says allowPrivate may be")
	fs.IntVar(&m.PlanSteps, "plan-steps", match.DefaultPlanSteps, "most skills in the plan of a request with several intents (match, eval and the pipeline:\n"+
		"the retriever shortlists each part, the decider plans; give every stage the same value); 0 or 1: no plans")
	fs.BoolVar(&m.SelfCalibrate, "self-calibrate", false, "at load, ask the catalog's own examples (or descriptions) with their skill left out and raise\n"+
		"the delegation threshold until at most a tenth of them would be delegated (run, match and eval;\n"+
		"the stage services refuse it)")
	fs.StringVar(&m.Index, "index", "memory", "retrieval index: memory (in process) or weaviate")
	fs.StringVar(&m.WeaviateURL, "weaviate-url", "", "Weaviate REST endpoint for --index weaviate, e.g. http://127.0.0.1:8080")
	fs.StringVar(&m.WeaviateGRPC, "weaviate-grpc", "", "Weaviate gRPC host:port (faster imports; optional)")
	fs.StringVar(&m.WeaviateName, "weaviate-catalog", "default", "catalog name: prefixes the Weaviate collections")
	fs.StringVar(&m.WeaviateTenant, "weaviate-tenant", "", "store the catalog as this tenant of shared multi-tenant collections (one per catalog\n"+
		"of a multi-tenant deployment); empty: collections of its own")
	m.RemoteFlags.Register(fs)
}

// Validate checks the flags that need no file.
func (m *MatcherFlags) Validate() error {
	switch m.Index {
	case "memory":
	case "weaviate":
		if m.WeaviateURL == "" {
			return fmt.Errorf("%w: --index weaviate needs --weaviate-url", ErrUsage)
		}
	default:
		return fmt.Errorf("%w: --index %q: want memory or weaviate", ErrUsage, m.Index)
	}
	if m.Shortlist < 1 {
		return fmt.Errorf("%w: --shortlist %d: want at least 1", ErrUsage, m.Shortlist)
	}
	if m.PlanSteps < 0 {
		return fmt.Errorf("%w: --plan-steps %d: want 0 or more", ErrUsage, m.PlanSteps)
	}
	if m.RRFK <= 0 {
		return fmt.Errorf("%w: --rrf-k %v: want a positive constant", ErrUsage, m.RRFK)
	}
	if m.Threshold < 0 || m.Threshold > 1 || m.Margin < 0 || m.Margin > 1 {
		return fmt.Errorf("%w: --threshold and --margin are probabilities (0 to 1)", ErrUsage)
	}
	return m.RemoteFlags.Validate()
}

// BuildFunc builds a matcher for a catalog snapshot.
type BuildFunc = func(*catalog.Catalog) (*match.Matcher, error)

// Builder validates the flags, loads the model and the grants once and
// returns the function that builds a matcher for each catalog snapshot.
// Every process of a deployment given the same flags builds matchers with
// the same fingerprint.
func (m *MatcherFlags) Builder(log *zap.Logger) (BuildFunc, error) {
	opts, err := m.options(log)
	if err != nil {
		return nil, err
	}
	return func(cat *catalog.Catalog) (*match.Matcher, error) { return warm(match.New(cat, opts...)) }, nil
}

// warm warms a built matcher (match.Matcher.Warm) before it serves: the
// first request after a catalog load does not pay for what every matcher
// reads of its catalog once.
func warm(m *match.Matcher, err error) (*match.Matcher, error) {
	if err != nil {
		return nil, err
	}
	m.Warm()
	return m, nil
}

// LearnedBuildFunc builds a matcher for a catalog snapshot and the
// examples the catalog learned (skill key to texts).
type LearnedBuildFunc = func(*catalog.Catalog, map[string][]string) (*match.Matcher, error)

// LearnedBuilder is Builder for the stages that index the catalog's
// learned examples (pipeline.WithLearnedExamples).
func (m *MatcherFlags) LearnedBuilder(log *zap.Logger) (LearnedBuildFunc, error) {
	opts, err := m.options(log)
	if err != nil {
		return nil, err
	}
	return func(cat *catalog.Catalog, ex map[string][]string) (*match.Matcher, error) {
		return warm(match.New(cat, append(opts[:len(opts):len(opts)], match.WithLearnedExamples(ex))...))
	}, nil
}

// options validates the flags, loads the model and the grants and
// returns the matcher options they make.
func (m *MatcherFlags) options(log *zap.Logger) ([]match.Option, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	mdl := model.Default()
	if m.Model != "" {
		var err error
		if mdl, err = model.Load(m.Model); err != nil {
			return nil, BadInput(err) // a file named on the command line: missing or not a model
		}
	}
	var g *grants.Grants
	if m.Grants != "" {
		var err error
		if g, err = grants.Load(m.Grants); err != nil {
			return nil, BadInput(err)
		}
	}
	p := decide.DefaultPolicy
	p.Threshold, p.Margin = m.Threshold, m.Margin
	opts := []match.Option{match.WithModel(mdl), match.WithModelExamples(m.ModelExamples), match.WithShortlist(m.Shortlist), match.WithPlanSteps(m.PlanSteps),
		match.WithSelfCalibration(m.SelfCalibrate),
		match.WithRRFK(m.RRFK), match.WithPolicy(p), match.WithExplain(m.Explain), match.WithGrants(g),
		match.WithFollowups(m.Followups), match.WithStrict(m.Strict), match.WithPrivateEndpoints(m.PrivateEndpoints), match.WithLogger(log)}
	remote, err := m.rerankerOptions(mdl)
	if err != nil {
		return nil, err
	}
	opts = append(opts, remote...)
	if m.OnDegraded != nil {
		opts = append(opts, match.WithDegradedHook(m.OnDegraded))
	}
	if m.Retrieval != nil {
		ropts, err := m.Retrieval.Options(m, log)
		if err != nil {
			return nil, err
		}
		opts = append(opts, ropts...)
	} else {
		opts = append(opts, match.WithoutRetrieval())
	}
	return opts, nil
}

// ID names what a matcher is made of besides the catalog, for the
// refresher's evaluations: the embedder and the model.
func (m *MatcherFlags) ID() string {
	emb := "no retrieval"
	if m.Retrieval != nil {
		emb = m.Retrieval.EmbedderID(m)
	}
	if m.Reranker != "learned" && m.Reranker != "" {
		emb += ", " + m.Reranker + " reranker " + m.RerankerModel
	}
	name := "built-in model"
	if m.Model != "" {
		if data, err := os.ReadFile(m.Model); err == nil {
			sum := sha256.Sum256(data)
			name = "model " + hex.EncodeToString(sum[:6])
		}
	}
	return emb + ", " + name
}
