// Package match runs the matching stages in process: extract, filter,
// retrieve, rerank, calibrate and decide. The pipeline services call the
// same stage methods one at a time.
package match

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/cardtrust"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/match/textclass"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/lexicon"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Matcher matches tasks against one catalog snapshot. It is safe for
// concurrent use.
type Matcher struct {
	cat *catalog.Catalog
	// plan is the catalog's filter fields interned for the hard filters.
	plan *filter.Plan
	refs []ref // doc i of the index is refs[i]
	// stated holds, for each skill that is its agent's only one, its
	// stated job embedded (statedVectors), nil for the others: two
	// one-skill vendors that read alike are siblings (standsIn).
	stated [][]float32
	// statedMore holds the stated jobs of other skills (int doc → []float32),
	// embedded when a pair first needs them (statedJob).
	statedMore sync.Map
	// nearestVendor holds, for a one-skill vendor's doc whose nearest
	// vendor was asked (nearestVendorOf), that vendor's doc (int doc → int).
	nearestVendor sync.Map
	// nearestSkill holds, for a doc whose nearest skill by stated job was
	// asked (nearestSkillOf), that skill's doc (int doc → int).
	nearestSkill sync.Map
	// nearestAcross holds, for a doc whose nearest skill under the other
	// data handling was asked (nearestAcrossOf), that skill's doc.
	nearestAcross sync.Map
	// nearestSameHandling holds, for a one-skill vendor's doc whose
	// nearest vendor of its own data handling was asked
	// (nearestSameHandlingVendor), that vendor's doc.
	nearestSameHandling sync.Map
	// nearestSupplier holds, for an outside supplier's doc whose nearest
	// supplier was asked (nearestSupplierOf), that supplier's doc.
	nearestSupplier sync.Map
	idx             index.Index
	emb             vector.Embedder
	rr              rerank.Reranker
	// learned is the model's reranker, the fallback of a remote one.
	learned rerank.Reranker
	cal     calibrate.Calibrator
	// pairCal is the model's calibration when fit found it already gives
	// a best skill beside its sibling the pair's probability
	// (model.Model.SiblingsCalibrated), nil otherwise: only the learned
	// reranker's fits calibrated by it are marked PairCalibrated, not a
	// remote reranker's, a caller's own or a refitted calibration's.
	pairCal calibrate.Calibrator
	policy  decide.Policy
	cfg     config
	log     *zap.Logger
	selfCal *SelfCalibration
	// classes is the catalog's text classifier over its skills' examples
	// (see exampleClasses): nil unless the model weighs it.
	classes *textclass.Model
	// alts lists, per doc, the skills of other agents that do its job
	// under other data handling or under the same agent name (see
	// alternativesOf); nil for the many catalogs that have none. kinds,
	// nil unless the catalog's agents differ in data handling or two share
	// a name, tells twins from alternatives.
	alts  map[int][]int
	kinds *agentKinds
	// lines numbers each doc's line of services (see serviceLines); nil
	// unless the catalog numbers two lines or more.
	lines []int32
	// names holds each doc's name keys (see nameKeysOf), for sameName
	// over many pairs in a decision.
	names []nameKey
	// untrusted lists the docs whose card text is not trusted (see
	// ref.distrust), in doc order: few, so the filters skip them without
	// reading every ref.
	untrusted []int
	// wholeRequests: at least half the agents with trusted skills give
	// examples for at least half of them, so the built-in vectors embed a
	// request whole, as its examples are (see denseText). Agents, not
	// skills, are counted so that one agent listing many skills does not
	// choose for the catalog. Learned examples count: they are requests
	// as their callers wrote them.
	wholeRequests bool
	// domains is the catalog's domain terms (see domainTerms), and
	// domainAgents how many agents hold each (see domainReach), made for
	// the first task with two or more candidates (topicMove).
	domains      func() map[string]bool
	domainAgents func() map[string]int
	// forms is what a request's words are widened by (see forms.go),
	// made for the first task.
	forms func() *cardForms
	// oneAgent is the catalog's one-agent terms (see oneAgentTerms),
	// made, like domains, for the first task with two or more candidates.
	oneAgent func() map[string]bool
	// labelForms says, per agent and term of its labels, which forms
	// write it (see labelFormsOf), made like domains.
	labelForms func() map[string]map[string]formKinds
	// labelAgents counts, per term, the trusted agents holding it in a
	// skill's name or tags (onlyNamedFor), made for the first pair of
	// suppliers that asks.
	labelAgents func() map[string]int
	// signs is, per agent, what oneKind compares, made for the first
	// pair of skills that may be from one template.
	signs func() []agentSign
	// instances is, per doc, what sets an instance of a list apart (see
	// instanceTerms), made for the first ranking.
	instances func() []*listInstance
}

type ref struct {
	agent *catalog.Agent
	// agentN numbers the agents that have skills, in catalog order: one
	// agent's refs are consecutive and share it.
	agentN int32
	skill  *card.Skill
	// distrust says why the skill's card text is not trusted with a task
	// ("" when it is): its own card's text gives it away (cardtrust), or
	// it claims the jobs of many other agents (markCatchAll), or names
	// other agents as its own (markFacades).
	distrust string
}

// builtinModel is model.Default parsed once: a matcher only reads its
// model, and parsing it was a fortieth of an index build.
var builtinModel = sync.OnceValue(model.Default)

// New builds a matcher (and its index) for the catalog.
func New(cat *catalog.Catalog, opts ...Option) (*Matcher, error) {
	if cat == nil {
		return nil, errors.New("new matcher: nil catalog (catalog.New() makes an empty one)")
	}
	cfg := config{policy: decide.DefaultPolicy, shortlist: 20, rrfK: 60, examples: true, ownWords: true, log: zap.NewNop()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.model == nil {
		cfg.model = builtinModel()
	}
	switch {
	case cfg.noSearch:
		cfg.embedder, cfg.newIndex = nil, func(docs []index.Doc, _ vector.Embedder) (index.Index, error) { return index.Docs(docs), nil }
	case cfg.embedder == nil:
		return nil, ErrNoEmbedder
	}
	if cfg.words == nil {
		cfg.words, _ = cfg.embedder.(rerank.WordVectors)
	}
	// Word features the model gives no weight are not computed: they are
	// a third of a decision's time at 1,000 skills. (A model swapped in
	// later by a stage that did not build this matcher sees them as 0.)
	// WordNet is not even loaded then: parsed, it holds 6 MB of heap,
	// which every garbage collection walks.
	switch {
	case !usesFeature(cfg.model.Reranker.Features, "lex_cover", "lex_cover_z"):
		cfg.lexicon = nil
	case cfg.lexicon == nil:
		cfg.lexicon = lexicon.WordNet()
	}
	if !usesFeature(cfg.model.Reranker.Features, "align", "align_label", "align_z", "align_label_z", "lex_cover", "lex_cover_z") {
		cfg.words = nil
	}
	learned, err := rerank.NewLearned(cfg.model.Reranker)
	if err != nil {
		return nil, fmt.Errorf("new matcher: %w", err)
	}
	switch {
	case cfg.remote != nil:
		cfg.reranker = cfg.remote
		if cfg.remoteCal == nil {
			return nil, errors.New("new matcher: a remote reranker needs a calibration")
		}
	case cfg.reranker == nil:
		cfg.reranker = learned
	}
	var pairCal calibrate.Calibrator
	if cfg.cal == nil {
		cfg.cal = cfg.model.Calibration
		if cfg.model.SiblingsCalibrated {
			pairCal = cfg.cal
		}
	}
	if cfg.newIndex == nil {
		cfg.newIndex = func(docs []index.Doc, e vector.Embedder) (index.Index, error) {
			return index.NewMemory(docs, e)
		}
	}
	m := &Matcher{cat: cat, plan: filter.NewPlan(cat), emb: cfg.embedder, rr: cfg.reranker, learned: learned, cal: cfg.cal, pairCal: pairCal, policy: cfg.policy, cfg: cfg, log: cfg.log}
	var extra map[string][]string
	if cfg.examples {
		extra = cfg.model.Examples
	}
	if len(cfg.learned) > 0 {
		merged := make(map[string][]string, len(extra)+len(cfg.learned))
		for k, v := range extra {
			merged[k] = v
		}
		for k, v := range cfg.learned {
			merged[k] = append(append([]string(nil), merged[k]...), v...)
		}
		extra = merged
	}
	docs := m.docs(extra)
	// The word cache, the catch-all check and the look-alike keys only
	// read the docs' words, which the index build leaves alone (the docs
	// are analyzed): they are made beside the build, which cannot keep
	// both cores busy all the time.
	var beside sync.WaitGroup
	beside.Go(func() {
		m.alts, m.kinds = alternativesOf(m.refs, docs)
		m.lines = serviceLines(m.refs)
		m.names = nameKeysOf(docs)
	})
	// The catalog's own words (WithCatalogWords) are learned from
	// trusted skills only, so after the catch-all check: a card's text is
	// measured, never let to steer. Requests read them in retrieval and
	// in the word cache's alignment.
	learner, learns := cfg.embedder.(vector.CatalogLearner)
	learns = learns && cfg.ownWords && !cfg.noSearch
	var checked sync.WaitGroup
	checked.Add(1)
	if learns || cfg.words != nil && !cfg.noSearch {
		beside.Go(func() {
			var cache *rerank.WordCache
			if cfg.words != nil {
				cache = rerank.NewWordCache(cfg.words, docs)
				m.cfg.words = cache
			}
			if !learns {
				return
			}
			// A cache of the embedder's own vectors knows which words
			// they lack, and reads a request's learned words.
			if !sameVectors(cfg.words, learner) {
				cache = nil
			}
			checked.Wait()
			learned := learner.LearnCatalog(m.catalogTexts(docs, cache))
			m.emb = learned
			if wv, ok := learned.(rerank.WordVectors); ok && cache != nil {
				m.cfg.words = cache.WithRequestWords(wv)
			}
		})
	}
	// The classifier learns from trusted skills only, so it waits for the
	// catch-all check's verdicts.
	classes := usesFeature(cfg.model.Reranker.Features, classFeatures...) && !cfg.noSearch
	beside.Go(func() {
		markCatchAll(m.refs, docs)
		markListedCatchAll(m.refs, docs)
		markFacades(m.refs, docs)
		checked.Done()
		if classes {
			m.classes = exampleClasses(m.refs, docs)
		}
	})
	beside.Go(func() { m.stated = statedVectors(m.refs, cfg.embedder) })
	idx, err := cfg.newIndex(docs, cfg.embedder)
	beside.Wait()
	if err == nil && lateDistrust(m.refs, docs) {
		// A catch-all or a facade is found beside the build, its words
		// already in the BM25 statistics: a card listing every other
		// desk's jobs made each job word commoner, and a payslip query
		// fell from 0.80 to 0.69 beside three such cards (an eightieth
		// set). Catalogs holding one are rare; they are built again.
		idx, err = cfg.newIndex(docs, cfg.embedder)
	}
	if err != nil {
		return nil, fmt.Errorf("new matcher: build index: %w", err)
	}
	for d := range m.refs {
		if m.refs[d].distrust != "" {
			m.untrusted = append(m.untrusted, d)
		}
	}
	m.logUntrusted()
	m.wholeRequests = examplesPrevail(m.refs, docs)
	m.idx = idx
	m.signs = sync.OnceValue(m.agentSigns)
	// The catalog readings below leave untrusted skills' words out.
	untrusted := func(d int) bool { return m.refs[d].distrust != "" }
	m.domainAgents = sync.OnceValue(func() map[string]int {
		return domainReach(idx.Doc, idx.Len(), untrusted)
	})
	m.domains = sync.OnceValue(func() map[string]bool {
		out := make(map[string]bool, len(m.domainAgents()))
		for t := range m.domainAgents() {
			out[t] = true
		}
		return out
	})
	m.forms = sync.OnceValue(func() *cardForms {
		return newCardForms(m.jobLexicon, idx.Doc, idx.Len(), untrusted)
	})
	m.labelForms = sync.OnceValue(func() map[string]map[string]formKinds { return labelFormsOf(idx.Doc, idx.Len()) })
	m.labelAgents = sync.OnceValue(func() map[string]int {
		agents, _ := termAgents(idx.Doc, idx.Len(), untrusted, func(d *index.Doc, _ []string) [][]string {
			return [][]string{d.NameTerms, d.TagTerms}
		})
		return agents
	})
	m.instances = sync.OnceValue(func() []*listInstance {
		return instanceTerms(idx.Doc, idx.Len(), untrusted)
	})
	m.oneAgent = sync.OnceValue(func() map[string]bool {
		return oneAgentTerms(idx.Doc, idx.Len(), untrusted)
	})
	if cfg.selfCal {
		if err := m.selfCalibrate(context.Background()); err != nil {
			return nil, fmt.Errorf("new matcher: %w", err)
		}
	}
	return m, nil
}

// Warm makes now what the matcher would otherwise make on the first
// request that reads it: the catalog's domain words, card forms, label
// forms, one-agent terms and agent signs. Each is read over the whole
// catalog once per matcher, so the first request after a load paid for
// all of them (0.3 s at 100,000 skills, and 77 ms more on the first
// follow-up). A server warms a matcher before it serves; a one-off match
// gains nothing. Safe to call concurrently with Match.
func (m *Matcher) Warm() {
	m.signs()
	m.domains()
	m.forms()
	m.labelForms()
	m.oneAgent()
}

// examplesPrevail says whether at least half the agents with trusted
// skills give examples for at least half of those skills (see
// Matcher.wholeRequests). refs and docs are parallel.
func examplesPrevail(refs []ref, docs []index.Doc) bool {
	agents, withEx := 0, 0
	agentSpans(func(i int) *index.Doc { return &docs[i] }, len(docs), func(lo, hi int) {
		trusted, ex := 0, 0
		for d := lo; d < hi; d++ {
			if refs[d].distrust == "" {
				trusted++
				if len(docs[d].Examples) > 0 {
					ex++
				}
			}
		}
		if trusted > 0 {
			agents++
			if 2*ex >= trusted {
				withEx++
			}
		}
	})
	return agents > 0 && 2*withEx >= agents
}

// docs lists every skill of the catalog in catalog order.
func (m *Matcher) docs(extra map[string][]string) []index.Doc {
	n := 0
	for ai := range m.cat.Agents {
		n += len(m.cat.Agents[ai].Card.Skills)
	}
	docs := make([]index.Doc, 0, n)
	m.refs = make([]ref, 0, n)
	agentN := int32(0)
	for ai := range m.cat.Agents {
		a := &m.cat.Agents[ai]
		if len(a.Card.Skills) == 0 {
			continue
		}
		for si := range a.Card.Skills {
			s := &a.Card.Skills[si]
			key := card.Key(a.Card.ID, s.ID)
			examples := s.Examples
			if more := extra[key]; len(more) > 0 {
				examples = append(append([]string(nil), s.Examples...), more...)
			}
			d := index.Doc{
				Key: key, AgentID: a.Card.ID, SkillID: s.ID, AgentName: a.Card.Name,
				Name: s.Name, Description: s.Description, Tags: s.Tags, Examples: examples,
				InputModes: a.Card.EffectiveInputModes(s), OutputModes: a.Card.EffectiveOutputModes(s),
			}
			docs = append(docs, d)
			m.refs = append(m.refs, ref{agent: a, agentN: agentN, skill: s})
		}
		agentN++
	}
	index.AnalyzeAll(docs, runtime.GOMAXPROCS(0))
	markDistrusted(m.refs, runtime.GOMAXPROCS(0))
	// A card its own text gives away (orders, spam, any task) stays out of
	// the BM25 statistics; a catch-all is judged against the whole
	// catalog beside the index build, too late for them.
	for i := range docs {
		docs[i].Untrusted = m.refs[i].distrust != ""
	}
	return docs
}

// lateDistrust marks Untrusted each doc whose ref was distrusted after
// the docs were made (the catalog-wide checks), and says whether any was.
func lateDistrust(refs []ref, docs []index.Doc) bool {
	late := false
	for i := range docs {
		if refs[i].distrust != "" && !docs[i].Untrusted {
			docs[i].Untrusted, late = true, true
		}
	}
	return late
}

// markDistrusted sets each ref's distrust on workers goroutines: the
// checks read only their own card and were a tenth of an index build run
// one after another. An agent's own name and description are read once
// for all its skills (refs of one agent are consecutive).
func markDistrusted(refs []ref, workers int) {
	workers = max(1, min(workers, len(refs)/256))
	step := (len(refs) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var agent *card.Card
			var read cardtrust.Agent
			for i := w * step; i < min((w+1)*step, len(refs)); i++ {
				if a := refs[i].agent.Card; a != agent {
					agent, read = a, cardtrust.ReadAgent(a)
				}
				if v := read.Skill(refs[i].skill); v != cardtrust.Trusted {
					refs[i].distrust = v.String() + "; not trusted. "
				}
			}
		})
	}
	wg.Wait()
}

// maxUntrustedLogged is how many untrusted skills a build names in its
// log, one line each; the rest are counted in one more.
const maxUntrustedLogged = 20

// logUntrusted tells the operator, once per build, which skills no task
// will go to because their card text is not trusted, and why: a hostile
// card is news, and --explain shows it only for the tasks it is asked of.
func (m *Matcher) logUntrusted() {
	for i, d := range m.untrusted {
		if i == maxUntrustedLogged {
			m.log.Warn("more skills not trusted with any task", zap.Int("count", len(m.untrusted)-i))
			return
		}
		r := m.refs[d]
		m.log.Warn("skill not trusted with any task", zap.String("skill", card.Key(r.agent.Card.ID, r.skill.ID)),
			zap.String("reason", strings.TrimSuffix(r.distrust, "; not trusted. ")))
	}
}

// Catalog returns the catalog the matcher was built for.
func (m *Matcher) Catalog() *catalog.Catalog { return m.cat }

// Index returns the matcher's index.
func (m *Matcher) Index() index.Index { return m.idx }

// Policy returns the decision policy.
func (m *Matcher) Policy() decide.Policy { return m.policy }

// Shortlist is the filter and retrieval answer for a requirement.
type Shortlist struct {
	// Rejected counts the skills the hard filters removed; Rejections,
	// with WithExplain, says why each was.
	Rejected   int
	Rejections []filter.Rejection
	Demoted    []bool
	Retrieval  *index.Result
	Terms      []string
	Vector     []float32
	// Degraded says why retrieval fell back to the built-in path
	// (DegradedEmbedder), "" when it did not.
	Degraded string
	// History, for a task with earlier turns, is a retrieval of those
	// turns over every skill the filters kept (ranks among all of them),
	// trimmed to the shortlisted skills once the ones it favours most
	// have joined the shortlist, so that "yes, book it" can lean on what
	// the conversation was about (the reranker's history features); nil
	// without earlier turns. It is made here, where the index can search,
	// and travels with the shortlist to the reranker.
	History *index.Result
}

// Ranked is a reranked candidate with its calibrated probability.
type Ranked struct {
	rerank.Scored
	Prob    float64
	Demoted bool
	// AlikeOf and Alike mark a skill of another agent that does the best
	// candidate's job (see decide.Option).
	AlikeOf string
	Alike   decide.Alike
	// Sibling: a twin under the best candidate's skill name whose
	// description was written apart (see decide.Option).
	Sibling bool
	// Unnamed: the request is too thin to be this skill's (see
	// markUnnamed).
	Unnamed bool
	// PairCalibrated: Prob already counts a sibling right (see
	// decide.Option).
	PairCalibrated bool
}

// Result is everything the matcher did for one task.
type Result struct {
	Requirement extract.Requirement
	Shortlist   *Shortlist
	Ranked      []Ranked
	Decision    decide.Decision
	// Pinned is true when the task fixed the skill itself (a named skill,
	// a follow-up) rather than the policy choosing it.
	Pinned bool
	// ContextID is the context id a delegation carries ("" for none).
	ContextID string
	Timings   Timings
	// Degraded lists, joined by "; ", the stages that fell back to the
	// built-in path for this task ("" for none); Decision.Degraded too.
	Degraded string
}

// Timings of each stage.
type Timings struct {
	// Retrieve includes the hard filters.
	Extract, Retrieve, Rerank, Decide time.Duration
}

// Total is the whole match time.
func (t Timings) Total() time.Duration {
	return t.Extract + t.Retrieve + t.Rerank + t.Decide
}

// Extract is stage 1.
func (m *Matcher) Extract(t *task.Task) extract.Requirement { return extract.FromTask(t) }

// Shortlist is stage 2: hard filters, then hybrid retrieval over what the
// filters kept.
func (m *Matcher) Shortlist(ctx context.Context, req *extract.Requirement) (*Shortlist, error) {
	if m.cfg.noSearch {
		return nil, fmt.Errorf("shortlist: %w", ErrNoRetrieval)
	}
	fr := m.keep(req, m.cfg.explain)
	if fr.Kept == 0 && req.OutputsLoose {
		// The words named a thing ("aerial photos of the roof") whose
		// format no card declares: the cards of such services say they
		// answer in text, and the request is theirs all the same. Four
		// requests of three hostile sets (school photographers, a drone
		// survey, lecture slides) passed no filter and were abstained on.
		loose := req.WithoutLooseOutputs()
		if lf := m.keep(&loose, m.cfg.explain); lf.Kept > 0 {
			*req, fr = loose, lf
		}
	}
	sl := &Shortlist{Rejected: len(fr.Keep) - fr.Kept, Rejections: fr.Rejections, Demoted: fr.Demoted}
	q := QueryText(req)
	if len(req.History) > 0 {
		domain := m.domains()
		if c := continuedTurn(q, req, domain); c != "" {
			q = c
		} else {
			q = carryTopic(q, req, domain)
		}
	}
	q = withIdioms(q)
	sl.Terms = analyze.Terms(q)
	// BM25 also searches the other forms of the request's words that
	// description-only cards hold; the reranker reads sl.Terms alone.
	terms := m.forms().widen(sl.Terms, q)
	v, err := m.embedQuery(ctx, req, q)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("shortlist: %w", ctx.Err())
	case err != nil:
		// A remote embedder that is down or too slow costs the dense half
		// of retrieval, not the task: BM25 alone shortlists, and the
		// decision says so.
		m.log.Warn("query embedding failed; retrieving with BM25 alone", zap.String("task_id", req.TaskID), zap.Error(err))
		sl.Degraded = DegradedEmbedder
		if m.cfg.onDegraded != nil {
			m.cfg.onDegraded("embedder")
		}
	default:
		sl.Vector = v
	}
	if fr.Kept == 0 {
		sl.Retrieval = &index.Result{}
		return sl, nil
	}
	res, err := m.idx.Search(ctx, index.Query{
		Text: req.Need, Terms: terms, Vector: sl.Vector, Allow: fr.Keep,
		Shortlist: m.cfg.shortlist, K: m.cfg.rrfK,
	})
	if err == index.ErrEmptyQuery {
		res, err = &index.Result{Allowed: fr.Kept}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shortlist: %w", err)
	}
	if sl.History, err = m.historySearch(ctx, req, fr.Keep, sl.Degraded != ""); err != nil {
		return nil, fmt.Errorf("shortlist: %w", err)
	}
	if res, err = m.withHistorySkills(ctx, req, sl, terms, res); err != nil {
		return nil, fmt.Errorf("shortlist: %w", err)
	}
	keepShortlisted(sl.History, res)
	res.TermWeights = res.TermWeights[:min(len(res.TermWeights), len(sl.Terms))] // the reranker's terms
	rerank.Align(m.cfg.words, m.cfg.lexicon, req.Need, res.Candidates)
	m.fillClasses(req.Need, res.Candidates)
	sl.Retrieval = res
	return sl, nil
}

// keepShortlisted drops from the earlier turns' retrieval the skills that
// are not shortlisted: the reranker reads it for the shortlisted skills
// only, and it travels with the shortlist between stages. The ranks stay
// those among every skill the filters kept.
func keepShortlisted(h *index.Result, sl *index.Result) {
	if h == nil {
		return
	}
	short := make(map[int]bool, len(sl.Candidates))
	for _, c := range sl.Candidates {
		short[c.Doc] = true
	}
	h.Candidates = slices.DeleteFunc(h.Candidates, func(c index.Candidate) bool { return !short[c.Doc] })
}

// historyExtra is how many of the skills the earlier turns retrieve best
// a follow-up's shortlist takes in beside its own: "yes, book it for
// Friday" names no domain, and the skill it wants is often one the
// current turn alone does not shortlist.
const historyExtra = 5

// withHistorySkills adds to the shortlist the skills the earlier turns
// retrieve best (at most historyExtra) that the current turn did not
// shortlist. The current turn is searched again over the shortlist and
// those skills together, by terms (its BM25 terms, widened as for the
// shortlist), so that every candidate's scores and ranks are the current
// turn's, over one list; the nearest examples stay those of the whole
// catalog.
func (m *Matcher) withHistorySkills(ctx context.Context, req *extract.Requirement, sl *Shortlist, terms []string, res *index.Result) (*index.Result, error) {
	h := sl.History
	if h == nil || len(h.Candidates) == 0 {
		return res, nil
	}
	in := make(map[int]bool, len(res.Candidates)+historyExtra)
	for _, c := range res.Candidates {
		in[c.Doc] = true
	}
	added := 0
	for _, c := range h.Candidates {
		if added == historyExtra {
			break
		}
		if !in[c.Doc] {
			in[c.Doc] = true
			added++
		}
	}
	if added == 0 {
		return res, nil
	}
	allow := make([]bool, m.idx.Len())
	for d := range in {
		allow[d] = true
	}
	u, err := m.idx.Search(ctx, index.Query{
		Text: req.Need, Terms: terms, Vector: sl.Vector, Allow: allow,
		Shortlist: len(in), K: m.cfg.rrfK, Neighbors: 1,
	})
	if errors.Is(err, index.ErrEmptyQuery) {
		// A current turn with no terms and no vector (an embedder down,
		// "do it") has nothing to score the history's skills by: the
		// shortlist stays as it was, and the decider abstains.
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history skills: %w", err)
	}
	u.Neighbors, u.LexNeighbors, u.Allowed = res.Neighbors, res.LexNeighbors, res.Allowed
	return u, nil
}

// embedQuery embeds a query text: in process with a local embedder
// (without its framing, see denseText, unless wholeRequests), else whole
// within the embedder's time budget.
func (m *Matcher) embedQuery(ctx context.Context, req *extract.Requirement, q string) ([]float32, error) {
	if local, ok := m.emb.(vector.Local); ok {
		if m.wholeRequests {
			return local.EmbedText(q), nil
		}
		return local.EmbedText(denseText(q)), nil
	}
	if m.cfg.embedBudget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.cfg.embedBudget)
		defer cancel()
	}
	return vector.One(ctx, m.emb, q)
}

// historySearch retrieves a task's earlier turns over the skills the
// filters kept (nil without earlier turns). With the embedder down
// (noDense) the turns are searched by BM25 alone, like the task.
func (m *Matcher) historySearch(ctx context.Context, req *extract.Requirement, allow []bool, noDense bool) (*index.Result, error) {
	if len(req.History) == 0 {
		return nil, nil
	}
	text := strings.Join(req.History, "\n")
	var v []float32
	if !noDense {
		var err error
		if v, err = m.embedQuery(ctx, req, text); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	h, err := m.idx.Search(ctx, index.Query{Text: text, Terms: analyze.Terms(text), Vector: v,
		Allow: allow, Shortlist: m.cfg.shortlist, K: m.cfg.rrfK, Neighbors: 1})
	switch {
	case errors.Is(err, index.ErrEmptyQuery):
		return &index.Result{}, nil
	case err != nil:
		return nil, fmt.Errorf("history retrieval: %w", err)
	}
	return h, nil
}

// Filters are the hard filters' options the matcher applies (grants,
// strict, private endpoints), for a baseline that must filter alike.
func (m *Matcher) Filters() []filter.Option { return m.cfg.filters }

// Rejections says why each filtered-out skill was removed.
func (m *Matcher) Rejections(req *extract.Requirement) []filter.Rejection {
	return m.keep(req, true).Rejections
}

// keep applies the hard filters, then leaves out every skill whose card
// text is not trusted (ref.distrust). Such a card is never trusted with a
// task; left in the shortlist it would still weigh on the others, whose
// features are measured against the shortlist's best: an injected card
// whose words a request echoes turned a right delegation at 0.92 into an
// abstention at 0.29, a spam card one at 0.98 into one at 0.12. With
// explain, each left-out skill gets its rejection.
func (m *Matcher) keep(req *extract.Requirement, explain bool) filter.Result {
	fr := m.plan.Keep(req, m.cfg.filters...)
	if explain {
		m.plan.Explain(&fr, req, m.cfg.filters...)
	}
	for _, d := range m.untrusted {
		if d >= len(fr.Keep) || !fr.Keep[d] {
			continue
		}
		fr.Keep[d] = false
		fr.Kept--
		if explain {
			r := &m.refs[d]
			fr.Rejections = append(fr.Rejections, filter.Rejection{Agent: r.agent.Card.ID, Skill: r.skill.ID,
				Rule: filter.RuleTrust, Reason: strings.TrimSuffix(strings.TrimSpace(r.distrust), ".")})
		}
	}
	return fr
}

// QueryText is what the retrievers search with before the conversation's
// topic is carried in: the need, and for a short follow-up ("and in
// euros?") the last earlier turn too. Shortlist also gives a follow-up
// that names no domain its conversation's domain words (carryTopic); an
// evaluation's plain-BM25 baseline searches QueryText alone, so the topic
// counts as skillmatch's work, not the baseline's.
func QueryText(req *extract.Requirement) string {
	if len(req.History) > 0 && len(analyze.Terms(req.Need)) < 3 {
		return req.History[len(req.History)-1] + " " + req.Need
	}
	return req.Need
}

// Rank is stage 3: rerank the shortlist and calibrate each fit.
func (m *Matcher) Rank(ctx context.Context, req *extract.Requirement, sl *Shortlist) ([]Ranked, error) {
	return m.RankCalibrated(ctx, req, sl, nil)
}

// Calibrator returns the calibration Rank applies.
func (m *Matcher) Calibrator() calibrate.Calibrator { return m.cal }

// RankCalibrated is Rank with another calibrator (nil: the matcher's own),
// for a caller that hot-reloads the calibration without rebuilding the
// matcher and its index. The calibrator is that of the reranker that
// normally ranks: the remote one when there is one (the refit learns from
// its scores), else the learned one. A task the remote reranker could not
// rank is calibrated with the model's own calibration of the learned one.
func (m *Matcher) RankCalibrated(ctx context.Context, req *extract.Requirement, sl *Shortlist, cal calibrate.Calibrator) ([]Ranked, error) {
	ranked, _, err := m.RankDegraded(ctx, req, sl, cal)
	return ranked, err
}

// RankDegraded is RankCalibrated that also says whether the ranking fell
// back from the remote reranker to the learned one (DegradedReranker, or
// "").
func (m *Matcher) RankDegraded(ctx context.Context, req *extract.Requirement, sl *Shortlist, cal calibrate.Calibrator) ([]Ranked, string, error) {
	if sl.Retrieval == nil || len(sl.Retrieval.Candidates) == 0 {
		return nil, "", nil
	}
	in := m.RerankInput(req, sl)
	if m.cfg.remote != nil {
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if m.cfg.remoteBudget > 0 {
			rctx, cancel = context.WithTimeout(ctx, m.cfg.remoteBudget)
		}
		scored, err := m.rr.Rerank(rctx, in)
		cancel()
		if err == nil {
			var out []Ranked
			rcal := cal
			if rcal == nil {
				rcal = m.cfg.remoteCal
			}
			if out, err = m.rebuild(req, sl, scored, rcal, noMove); err == nil {
				return out, "", nil
			}
		}
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("rank: %w", ctx.Err())
		}
		m.log.Warn("remote reranker failed; ranking with the learned reranker", zap.String("task_id", req.TaskID), zap.Error(err))
		if m.cfg.onDegraded != nil {
			m.cfg.onDegraded("reranker")
		}
		scored, err = m.learned.Rerank(ctx, in)
		if err != nil {
			return nil, "", fmt.Errorf("rank: %w", err)
		}
		topic, move := m.topicMove(req, sl, scored), m.jobOf(req, sl, scored)
		out, err := m.rebuild(req, sl, scored, m.cal, topic, move)
		m.markPairCalibrated(out, m.cal)
		return out, DegradedReranker, err
	}
	if cal == nil {
		cal = m.cal
	}
	scored, err := m.rr.Rerank(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("rank: %w", err)
	}
	topic, move := noMove, noMove
	learnedFits := m.rr == m.learned
	if learnedFits {
		// A reranker of the caller's own reads the skills' text and the
		// earlier turns as it sees fit; the learned one reads the current
		// turn alone (see topicMove), is blind to one agent's jobs on
		// cards with no examples (see namedJob) and weighs a caller's
		// name in an example as any shared word (see nameLed).
		topic = m.topicMove(req, sl, scored)
		move = m.jobOf(req, sl, scored)
	}
	out, err := m.rebuild(req, sl, scored, cal, topic, move)
	if learnedFits {
		m.markPairCalibrated(out, cal)
	}
	return out, "", err
}

// markPairCalibrated marks every candidate PairCalibrated when the
// learned reranker's fits were calibrated by cal and cal is pairCal.
func (m *Matcher) markPairCalibrated(out []Ranked, cal calibrate.Calibrator) {
	if m.pairCal == nil || cal != m.pairCal {
		return
	}
	for i := range out {
		out[i].PairCalibrated = true
	}
}

// rebuild checks a reranker's answer against the shortlist, calibrates
// each fit (pooling the pair of each jobMove, see poolMoves) and
// marks what the decider must know beyond the fits: the best candidate's
// look-alikes, and whether the request names its job at all.
func (m *Matcher) rebuild(req *extract.Requirement, sl *Shortlist, scored []rerank.Scored, cal calibrate.Calibrator, moves ...jobMove) ([]Ranked, error) {
	// Rebuild every candidate from the shortlist by its doc number: a
	// reranker reorders and scores, it cannot add, repeat or rewrite a
	// candidate.
	byDoc := make(map[int]*index.Candidate, len(sl.Retrieval.Candidates))
	for i := range sl.Retrieval.Candidates {
		byDoc[sl.Retrieval.Candidates[i].Doc] = &sl.Retrieval.Candidates[i]
	}
	out := make([]Ranked, 0, len(scored))
	for _, s := range scored {
		c, ok := byDoc[s.Doc]
		if !ok {
			return nil, fmt.Errorf("rank: %w: doc %d", ErrOutsideShortlist, s.Doc)
		}
		if s.Entry != c.Entry {
			return nil, fmt.Errorf("rank: %w: doc %d came back as another skill", ErrOutsideShortlist, s.Doc)
		}
		delete(byDoc, s.Doc)
		s.Candidate = *c
		r := Ranked{Scored: s, Prob: cal.Prob(s.Score), Demoted: sl.Demoted != nil && sl.Demoted[s.Doc]}
		if m.refs[s.Doc].distrust != "" {
			// A card whose text is not trusted (see ref.distrust) is never
			// trusted with a task: probability 0, ranked last.
			r.Prob = 0
			r.Reason = m.refs[s.Doc].distrust + r.Reason
		}
		out = append(out, r)
	}
	if len(byDoc) > 0 {
		return nil, fmt.Errorf("rank: reranker dropped %d shortlisted candidates", len(byDoc))
	}
	poolMoves(out, moves...)
	// sort.SliceStable's algorithm (one template), without its reflection.
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if m.refs[a.Doc].distrust == "" && m.refs[b.Doc].distrust != "" {
			return -1
		}
		return 0
	})
	m.markLookAlikes(req, out)
	if m.creditSource(out) {
		m.markLookAlikes(req, out)
	}
	out = m.addAlternatives(req, out)
	out = m.addTwin(req, out)
	markUnnamed(req, out)
	m.shrinkThin(req, out)
	m.shrinkAskedOnly(req, out)
	m.shrinkStrayFollowUp(req, sl, out)
	shrinkUnmade(req, out)
	m.shrinkUnnamedInstances(req, out)
	return out, nil
}

// ErrNoEmbedder is returned by New when neither WithEmbedder nor
// WithoutRetrieval was given: which embedder a deployment retrieves with
// is the composition root's choice, never a silent default.
var ErrNoEmbedder = errors.New("new matcher: no embedder: give match.WithEmbedder (embed.Default() is the built-in GloVe) or match.WithoutRetrieval")

// ErrNoRetrieval is returned by the Shortlist of a matcher built
// WithoutRetrieval.
var ErrNoRetrieval = errors.New("matcher built without retrieval: it only ranks and decides shortlists made elsewhere")

// RerankInput is what a reranker reads for a shortlist: the requirement,
// the retrieval and, for a task with earlier turns, their retrieval over
// the shortlisted skills.
func (m *Matcher) RerankInput(req *extract.Requirement, sl *Shortlist) *rerank.Input {
	return &rerank.Input{Req: req, Terms: sl.Terms, Vector: sl.Vector, Result: sl.Retrieval, History: sl.History, Explain: m.cfg.explain, Kin: m.kin(sl.Retrieval)}
}

// usesFeature says whether a model's reranker weighs any of the features.
func usesFeature(features []string, names ...string) bool {
	for _, f := range features {
		if slices.Contains(names, f) {
			return true
		}
	}
	return false
}

// ErrOutsideShortlist is returned when a reranker returns a candidate the
// filters and retrievers did not shortlist.
var ErrOutsideShortlist = errors.New("reranker chose outside the shortlist")

// Decide is stage 4: the policy's decision on the ranked candidates, in
// the order it ranks them.
func (m *Matcher) Decide(ranked []Ranked) (decide.Decision, []decide.Option) {
	opts := Options(ranked)
	m.policy.Order(opts)
	return m.policy.Decide(opts), opts
}

// Settler is the settle step over this matcher's catalog and grants, with
// the given follow-up store (nil: the matcher's own, see WithFollowups).
func (m *Matcher) Settler(store settle.Store) *settle.Settler {
	if store == nil {
		store = m.cfg.followups
	}
	s := &settle.Settler{Catalog: m.cat, Grants: m.cfg.grants, Store: store, Threshold: m.policy.Threshold}
	if m.cfg.strict {
		s.Filters = append(s.Filters, filter.WithStrict(true))
	}
	if m.cfg.private {
		s.Filters = append(s.Filters, filter.WithPrivateEndpoints(true))
	}
	return s
}

// Options converts ranked candidates into the decider's options.
func Options(ranked []Ranked) []decide.Option {
	opts := make([]decide.Option, len(ranked))
	for i, r := range ranked {
		opts[i] = decide.Option{
			Key: r.Entry.Key, AgentID: r.Entry.AgentID, SkillID: r.Entry.SkillID,
			AgentName: r.Entry.AgentName, SkillName: r.Entry.Name,
			Score: r.Score, Prob: r.Prob, Demoted: r.Demoted, Reason: r.Reason,
			AlikeOf: r.AlikeOf, Alike: r.Alike, Sibling: r.Sibling, Unnamed: r.Unnamed, PairCalibrated: r.PairCalibrated,
		}
	}
	return opts
}

// Match runs every stage for one task.
func (m *Matcher) Match(ctx context.Context, t *task.Task) (*Result, error) {
	res := &Result{}
	t0 := time.Now()
	res.Requirement = m.Extract(t)
	t1 := time.Now()
	sl, err := m.Shortlist(ctx, &res.Requirement)
	if err != nil {
		return nil, fmt.Errorf("match task %s: %w", t.ID, err)
	}
	res.Shortlist = sl
	t2 := time.Now()
	var rankNote string
	res.Ranked, rankNote, err = m.RankDegraded(ctx, &res.Requirement, sl, nil)
	if err != nil {
		return nil, fmt.Errorf("match task %s: %w", t.ID, err)
	}
	res.Degraded = JoinDegraded(sl.Degraded, rankNote)
	t3 := time.Now()
	d, opts := m.Decide(res.Ranked)
	// A request with several intents may get a plan instead; settling it
	// still pins a named skill or a follow-up, and records no delegation.
	p, err := m.planFor(ctx, t, &res.Requirement, d)
	if err != nil {
		return nil, fmt.Errorf("match task %s: %w", t.ID, err)
	}
	if p != nil {
		d = *p
	}
	st, err := m.Settler(nil).Settle(ctx, t, &res.Requirement, d, opts, t.ID)
	if err != nil {
		return nil, fmt.Errorf("match task %s: %w", t.ID, err)
	}
	res.Decision, res.Pinned, res.ContextID = st.Decision, st.Pinned, st.ContextID
	res.Decision.Degraded = res.Degraded
	t4 := time.Now()
	res.Timings = Timings{Extract: t1.Sub(t0), Retrieve: t2.Sub(t1), Rerank: t3.Sub(t2), Decide: t4.Sub(t3)}
	m.log.Debug("matched", zap.String("task_id", t.ID), zap.String("action", string(res.Decision.Action)),
		zap.Float64("probability", res.Decision.Probability), zap.Duration("took", t4.Sub(t0)))
	return res, nil
}

// JoinDegraded joins the stages' Degraded notes, skipping empty ones.
func JoinDegraded(notes ...string) string {
	out := ""
	for _, n := range notes {
		switch {
		case n == "":
		case out == "":
			out = n
		default:
			out += "; " + n
		}
	}
	return out
}

// catalogTexts are the trusted skills' texts, for the embedder to learn
// the catalog's words it lacks (vector.CatalogLearner): with a word
// cache of the embedder's own vectors, only the words it found no vector
// for, so that no word is looked up twice.
func (m *Matcher) catalogTexts(docs []index.Doc, cache *rerank.WordCache) []vector.CatalogText {
	out := make([]vector.CatalogText, 0, len(docs))
	for i := range docs {
		if m.refs[i].distrust != "" {
			continue
		}
		d := &docs[i]
		var words []string
		if cache != nil {
			words = cache.Lacking(nil, i, d.TextWords)
		} else {
			words = slices.Clone(d.TextWords)
		}
		// A file format's name ("JSON", "xlsx") is a hard constraint the
		// filters check, never a meaning to score: learned, "send me a
		// JSON summary" leaned to the skill whose example asks for json.
		words = slices.DeleteFunc(words, func(w string) bool { return mediatype.OfExtension(w) != "" })
		texts := make([]string, 0, 2+len(d.Tags)+len(d.Examples))
		texts = append(append(append(texts, d.Name, d.Description), d.Tags...), d.Examples...)
		out = append(out, vector.CatalogText{Words: words, Texts: texts})
	}
	return out
}

// sameVectors says whether word vectors are the embedder's own (one
// pointer), whose learned words they may then read too. Values of other
// kinds are never taken for the same: comparing two of one uncomparable
// type would panic.
func sameVectors(words rerank.WordVectors, emb vector.Embedder) bool {
	if words == nil || emb == nil || reflect.TypeOf(words).Kind() != reflect.Pointer {
		return false
	}
	return any(words) == any(emb)
}
