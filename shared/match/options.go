package match

import (
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Option configures a Matcher.
type Option func(*config)

type config struct {
	model     *model.Model
	embedder  vector.Embedder
	words     rerank.WordVectors
	lexicon   rerank.Lexicon
	selfCal   bool
	reranker  rerank.Reranker
	cal       calibrate.Calibrator
	policy    decide.Policy
	shortlist int
	rrfK      float64
	examples  bool
	// ownWords: an embedder that can learn the catalog's own words does
	// (WithCatalogWords; default on).
	ownWords  bool
	learned   map[string][]string
	explain   bool
	filters   []filter.Option
	strict    bool
	private   bool
	grants    *grants.Grants
	newIndex  func([]index.Doc, vector.Embedder) (index.Index, error)
	noSearch  bool
	followups settle.Store
	log       *zap.Logger
	// remote is a remote reranker or scorer tried before the learned one
	// (WithRemoteReranker); remoteCal calibrates its fits.
	remote       rerank.Reranker
	remoteCal    calibrate.Calibrator
	remoteBudget time.Duration
	embedBudget  time.Duration
	onDegraded   func(component string)
	// planSteps caps a multi-skill plan; below 2, no plans (WithPlanSteps).
	planSteps int
}

// WithModel uses a fitted model (default: the built-in model).
func WithModel(m *model.Model) Option { return func(c *config) { c.model = m } }

// WithEmbedder sets the embedder of dense retrieval (embed.Default() is
// the built-in GloVe). A matcher that shortlists needs one; see
// WithoutRetrieval for one that does not.
func WithEmbedder(e vector.Embedder) Option { return func(c *config) { c.embedder = e } }

// WithoutRetrieval builds a matcher that ranks and decides shortlists
// retrieved elsewhere (the reranker and decider stages): its index holds
// the catalog's docs without postings or vectors (index.Docs), so it needs
// no embedder, and Shortlist fails with ErrNoRetrieval. Doc numbers and
// keys are those of a searching matcher over the same catalog.
func WithoutRetrieval() Option { return func(c *config) { c.noSearch = true } }

// WithReranker replaces the model's learned reranker.
func WithReranker(r rerank.Reranker) Option { return func(c *config) { c.reranker = r } }

// WithRemoteReranker ranks with r — a language model or a relevance
// service — within budget per task (0: only ctx bounds it), calibrating
// its fits with cal. When r fails or runs over, the matcher ranks with the
// model's learned reranker and calibration instead and the decision says
// so (Degraded): a model server being down costs quality, never a task.
func WithRemoteReranker(r rerank.Reranker, cal calibrate.Calibrator, budget time.Duration) Option {
	return func(c *config) { c.remote, c.remoteCal, c.remoteBudget = r, cal, budget }
}

// WithWordVectors sets the word vectors of the soft-alignment features
// (default: the embedder's own, when it has them, as GloVe does). A
// matcher with a remote embedder is given the built-in GloVe words here,
// since the model was fitted on what they say.
func WithWordVectors(wv rerank.WordVectors) Option { return func(c *config) { c.words = wv } }

// WithEmbedBudget bounds the query embedding of a remote embedder (0:
// only ctx bounds it); past it the task is retrieved with BM25 alone.
func WithEmbedBudget(d time.Duration) Option { return func(c *config) { c.embedBudget = d } }

// WithDegradedHook calls f with "embedder" or "reranker" each time a task
// falls back to the built-in path, for a metric.
func WithDegradedHook(f func(component string)) Option {
	return func(c *config) { c.onDegraded = f }
}

// The Degraded notes a shortlist, ranking or decision carries when a
// remote model could not be used for it.
const (
	DegradedEmbedder = "embedder unavailable"
	DegradedReranker = "reranker unavailable"
)

// WithCalibrator replaces the model's calibration.
func WithCalibrator(cal calibrate.Calibrator) Option { return func(c *config) { c.cal = cal } }

// WithPolicy sets the decision operating point.
func WithPolicy(p decide.Policy) Option { return func(c *config) { c.policy = p } }

// WithShortlist sets the shortlist length (default 20).
func WithShortlist(n int) Option { return func(c *config) { c.shortlist = n } }

// WithRRFK sets the reciprocal rank fusion constant (default 60).
func WithRRFK(k float64) Option { return func(c *config) { c.rrfK = k } }

// WithCatalogWords sets whether a request's words that the embedder has
// no vector for are read with the meaning of the catalog skills whose
// text uses them, when the embedder can learn them (a
// vector.CatalogLearner, as the built-in GloVe is; default true): a
// card's trade words ("chargebacks") are often the ones that name its
// job. Skills' own vectors do not change.
func WithCatalogWords(on bool) Option { return func(c *config) { c.ownWords = on } }

// WithModelExamples says whether the model's extra examples are indexed
// (default true).
func WithModelExamples(on bool) Option { return func(c *config) { c.examples = on } }

// WithLearnedExamples indexes more example texts per skill key
// ("<agent>/<skill>"), after the card's and the model's: the examples a
// catalog learned from verified outcomes. Keys of skills not in the
// catalog are ignored.
func WithLearnedExamples(ex map[string][]string) Option {
	return func(c *config) { c.learned = ex }
}

// WithExplain makes every shortlist carry the reason each filtered-out
// skill was removed ("why not X?"). Off by default: at 100,000 skills the
// records cost more than the match, even when nothing passed (a 6 MB
// allocation per task that drove the tail latency); a shortlist always
// carries their number (Shortlist.Rejected) and Matcher.Rejections gives
// them on demand.
func WithExplain(on bool) Option { return func(c *config) { c.explain = on } }

// WithGrants restricts each caller to the agents and skills granted to it
// (a hard filter like the others); nil allows everything.
func WithGrants(g *grants.Grants) Option {
	return func(c *config) {
		if g != nil {
			c.filters = append(c.filters, filter.WithGrants(g))
			c.grants = g
		}
	}
}

// WithStrict makes the hard filters fail closed where a task or card is
// silent: no scopes, no data class, no declared modes (filter.WithStrict).
func WithStrict(on bool) Option {
	return func(c *config) {
		if on && !c.strict {
			c.strict = true
			c.filters = append(c.filters, filter.WithStrict(true))
		}
	}
}

// WithPrivateEndpoints lets agents' interfaces be at private, loopback or
// link-local addresses (filter.WithPrivateEndpoints), in the filters and in
// the A2A requests a decider builds: for development catalogs and for
// evaluating golden sets.
func WithPrivateEndpoints(on bool) Option {
	return func(c *config) {
		if on && !c.private {
			c.private = true
			c.filters = append(c.filters, filter.WithPrivateEndpoints(true))
		}
	}
}

// PrivateEndpoints says whether the matcher allows private endpoints.
func (m *Matcher) PrivateEndpoints() bool { return m.cfg.private }

// WithIndex builds the index with f instead of the in-memory index.
func WithIndex(f func([]index.Doc, vector.Embedder) (index.Index, error)) Option {
	return func(c *config) { c.newIndex = f }
}

// WithFollowups records Match's delegations in store, so that a later task
// continuing one (message.taskId) keeps its agent, skill and context (nil,
// the default: follow-ups are refused).
func WithFollowups(store settle.Store) Option { return func(c *config) { c.followups = store } }

// WithLogger sets the logger (default: none).
func WithLogger(l *zap.Logger) Option { return func(c *config) { c.log = l } }
