// Package fit learns a model from a golden set's training split: the
// reranker's weights, the calibration of its top score, and (optionally)
// the training tasks' texts as extra examples of their skills.
package fit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// ErrNothingToFit marks training tasks that give a fit nothing to learn
// from: a split without tasks, or tasks of which no right skill reached
// a shortlist (every task without one, or its skill not in the catalog).
var ErrNothingToFit = errors.New("nothing to fit")

// rerankerErr wraps an error of training the reranker, marking it
// ErrNothingToFit when the training tasks held nothing to learn.
func rerankerErr(err error) error {
	if errors.Is(err, rerank.ErrNoTrainingData) {
		return fmt.Errorf("%w: fit reranker: %w (training needs tasks whose right skill, one of the catalog's, is shortlisted beside wrong ones)", ErrNothingToFit, err)
	}
	return fmt.Errorf("fit reranker: %w", err)
}

// Config says how to fit.
type Config struct {
	Split string
	// Examples keeps the training texts in the model as extra examples.
	// Fitting then sees features as they will be with those examples
	// indexed, through cross-fitting: each fold is matched against an
	// index holding the other folds' texts, never its own.
	Examples bool
	Folds    int
	L2       float64
	// NoMatchWeight weighs tasks no skill should take in the reranker's
	// loss (default 10): golden training sets hold few of them, while real
	// traffic holds many, and a delegation that should have been an
	// abstention is the costliest mistake.
	NoMatchWeight float64
	// CalibrationNoMatchWeight weighs them in the calibration alone
	// (0: 1, the share the labelled tasks hold). The reranker should learn
	// hard to score them low, while probabilities should hold at the share
	// of them a catalog really sees: weighing them up there makes every
	// probability too low (fitted on its own training split, sgd dev ECE
	// 0.068 at 10 against 0.031 at 1, clinc150 0.020 against 0.013).
	CalibrationNoMatchWeight float64
	Embedder                 vector.Embedder
	// BareToo also fits each set whose cards give examples a second time
	// with those examples removed, so the model learns the
	// description-only regime most catalogs are in, beside the other.
	BareToo bool
	// MixedToo, when above 0, also fits each set whose cards give examples
	// with every other skill's examples removed and the rest cut to their
	// first MixedToo: in catalogs written by hand a description-only skill
	// stands beside skills with an example or two, and the features read
	// from examples must not rank it down for lacking them.
	MixedToo int
	// CardExamples, when above 0, also fits each set whose cards give
	// more examples than that a skill with each skill's cut to its first
	// CardExamples: cards written by hand give one or two, and one
	// example's vector makes a poor prototype of a skill.
	CardExamples int
	// BothTextRegimes fits each set both with its training texts indexed
	// as extra examples (cross-fitted) and without, whatever Examples says
	// the model keeps: the weights then know catalogs with many examples
	// and catalogs with none.
	BothTextRegimes bool
	// FewTexts, when above 0, also fits each set with at most that many of
	// its training texts a skill indexed as examples (cross-fitted, the
	// same texts whatever the run): most cards give a handful of examples,
	// and the example features, the text classifier's above all, are far
	// less sure on five than on a hundred.
	FewTexts int
	// Dialogues adds dialogue tasks made from each set's training tasks
	// (see Dialogues) to every pass, so that the history features learn
	// from catalogs whose tasks are single turns.
	Dialogues bool
	// Workers is how many of the four rerankers a fit trains (three
	// cross-fitted, one final) are trained at once (default GOMAXPROCS).
	// Each holds a standardised copy of the training pairs' features: the
	// built-in recipe on clinc150 peaks at 0.87 GB resident with one and
	// 1.33 GB with two, so a machine short of memory sets 1.
	Workers int
	// Progress, when set, is told how far fitting is. It is called from
	// one goroutine at a time.
	Progress func(stage string, done, total int)
}

// Fit learns a model from the set.
func Fit(ctx context.Context, set *golden.Set, cfg Config) (*model.Model, error) {
	return FitSets(ctx, []*golden.Set{set}, cfg)
}

// FitSets learns one model across several sets: their training tasks are
// concatenated, while each set's tasks keep their own catalog for feature
// computation (a task is only ever matched against the skills it was
// labelled for). With one set it is exactly Fit.
func FitSets(ctx context.Context, sets []*golden.Set, cfg Config) (*model.Model, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("fit: no set")
	}
	if cfg.Folds <= 0 {
		cfg.Folds = 5
	}
	if cfg.L2 <= 0 {
		cfg.L2 = 1
	}
	if cfg.NoMatchWeight <= 0 {
		cfg.NoMatchWeight = 10
	}
	if cfg.CalibrationNoMatchWeight <= 0 {
		cfg.CalibrationNoMatchWeight = 1
	}
	if cfg.Embedder == nil {
		cfg.Embedder = embed.Default()
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	given := len(sets)
	if cfg.BareToo || cfg.CardExamples > 0 || cfg.MixedToo > 0 {
		sets = append([]*golden.Set(nil), sets...)
		for _, s := range sets[:given] {
			if cfg.BareToo && s.HasExamples() {
				sets = append(sets, s.WithoutExamples())
			}
			if cfg.MixedToo > 0 && s.HasExamples() {
				sets = append(sets, s.WithExamplesMixed(cfg.MixedToo))
			}
			if cfg.CardExamples > 0 && s.MostExamples() > cfg.CardExamples {
				sets = append(sets, s.WithExamplesCut(cfg.CardExamples))
			}
		}
	}
	perSet := make([][]golden.Task, len(sets))
	// matched[si] is what set si's passes match: its tasks, then any
	// dialogue tasks made from them.
	matched := make([][]golden.Task, len(sets))
	total := 0
	for si, set := range sets {
		perSet[si] = set.Split(cfg.Split)
		if len(perSet[si]) == 0 {
			return nil, fmt.Errorf("%w: split %q of %s has no tasks", ErrNothingToFit, cfg.Split, set.Dir)
		}
		matched[si] = perSet[si]
		if cfg.Dialogues {
			// An earlier turn comes from the task's own cross-fitting
			// fold, never from the texts indexed as its examples.
			dlg := Dialogues(perSet[si], func(t *golden.Task) int { return int(hash(t.ID) % uint32(cfg.Folds)) })
			matched[si] = append(slices.Clip(perSet[si]), dlg...)
		}
		total += len(matched[si])
	}
	// A pass matches one set's tasks in one regime: with the training
	// texts of the other folds indexed as examples, or without.
	// few, when above 0, keeps at most that many texts a skill.
	type pass struct {
		set   int
		texts bool
		few   int
	}
	var passes []pass
	for si := range sets {
		if cfg.Examples || cfg.BothTextRegimes {
			passes = append(passes, pass{set: si, texts: true})
		}
		if !cfg.Examples || cfg.BothTextRegimes {
			passes = append(passes, pass{set: si})
		}
		if cfg.FewTexts > 0 {
			passes = append(passes, pass{set: si, texts: true, few: cfg.FewTexts})
		}
	}
	total *= len(passes) / len(sets)
	// A neutral model: features are the same whatever the weights.
	probe := neutral(cfg.Embedder.ID())
	groups := make([]rerank.Group, 0, total)
	var correct [][]bool
	var ids []uint32 // a hash of each group's task id, for cross-fitting
	var made []bool  // the group is a dialogue task made from another
	done := 0
	for _, p := range passes {
		set, tasks := sets[p.set], matched[p.set]
		folds := 1
		if p.texts {
			folds = cfg.Folds
		}
		// A dialogue task is in its source task's fold.
		fold := func(t *golden.Task) int { return int(hash(sourceID(t.ID)) % uint32(folds)) }
		for f := 0; f < folds; f++ {
			// Extra examples come from the set's own other folds: its
			// keys name its own catalog's skills.
			extra := map[string][]string{}
			if p.texts {
				// Only the set's own tasks: a dialogue task's text is a
				// part of one of them.
				for i := range perSet[p.set] {
					if t := &perSet[p.set][i]; fold(t) != f && t.Expected != "" {
						extra[t.Expected] = append(extra[t.Expected], t.Text)
					}
				}
			}
			if p.few > 0 {
				for k, texts := range extra {
					extra[k] = fewOf(texts, p.few)
				}
			}
			probe.Examples = extra
			m, err := match.New(set.Catalog, match.WithModel(probe), match.WithEmbedder(cfg.Embedder),
				match.WithWordVectors(embed.Default().(*embed.GloVe)),
				// Fitting learns matching: where a golden set's agents run does not matter.
				match.WithPrivateEndpoints(true))
			if err != nil {
				return nil, fmt.Errorf("fit %s fold %d: %w", set.Dir, f, err)
			}
			for i := range tasks {
				t := &tasks[i]
				if fold(t) != f {
					continue
				}
				tt := t.ToTask()
				req := m.Extract(tt)
				sl, err := m.Shortlist(ctx, &req)
				if err != nil {
					return nil, fmt.Errorf("fit %s task %s: %w", set.Dir, t.ID, err)
				}
				in := m.RerankInput(&req, sl)
				g := rerank.Group{Features: rerank.Features(in), Kin: in.Kin}
				if t.NoMatch() {
					g.Weight = cfg.NoMatchWeight
				}
				for _, c := range sl.Retrieval.Candidates {
					g.Labels = append(g.Labels, t.Correct(c.Entry.Key))
				}
				groups = append(groups, g)
				correct = append(correct, g.Labels)
				// A dialogue task shares its source's part.
				ids = append(ids, hash(sourceID(t.ID)+"/cross"))
				made = append(made, t.ID != sourceID(t.ID))
				done++
				if cfg.Progress != nil {
					cfg.Progress("features", done, total)
				}
			}
		}
	}
	// The listwise stack and the calibration must learn from scores of
	// tasks the reranker was not trained on (scores of its own training
	// tasks are overconfident): cross-fit the reranker over three parts,
	// then train the final reranker on everything.
	const parts = 3
	startStage(cfg, "reranker", parts+1)
	logits := make([][]float64, len(groups))
	var w rerank.Weights
	// The three cross-fitted rerankers and the final one are trained
	// side by side, each alone as before (the model is the same whatever
	// the workers): training is most of a fit's time, and one at a time
	// left every core but one idle.
	err := trainEach(parts+1, cfg.Workers, func(k int) error {
		if k == parts {
			var err error
			w, err = rerank.Train(groups, rerank.WithL2(cfg.L2))
			return err
		}
		var train []rerank.Group
		for gi, g := range groups {
			if ids[gi]%parts != uint32(k) {
				train = append(train, g)
			}
		}
		pw, err := rerank.Train(train, rerank.WithL2(cfg.L2))
		if err != nil {
			return err
		}
		l, err := rerank.NewLearned(pw)
		if err != nil {
			return err
		}
		for gi, g := range groups {
			if ids[gi]%parts == uint32(k) {
				logits[gi] = make([]float64, len(g.Features))
				for i, f := range g.Features {
					logits[gi][i] = l.Logit(f)
				}
			}
		}
		return nil
	}, func(done int) {
		if cfg.Progress != nil {
			cfg.Progress("reranker", done, parts+1)
		}
	})
	if err != nil {
		return nil, rerankerErr(err)
	}
	stack, err := rerank.FitStack(logits, groups)
	if err != nil {
		return nil, rerankerErr(err)
	}
	w.Stack = &stack
	// Calibrate the top fit of each task: is the top candidate right?
	var samples []calSample
	for gi, g := range groups {
		if made[gi] {
			// Dialogue tasks teach the reranker the history features;
			// the calibration learns from the sets' own tasks, since half
			// a request is harder than the follow-ups conversations hold
			// and would make every probability too low.
			continue
		}
		// Whole copies stand in for the weight: calibration fits
		// unweighted samples.
		copies := 1
		if g.Weight > 0 {
			copies = max(int(math.Round(g.Weight*cfg.CalibrationNoMatchWeight/cfg.NoMatchWeight)), 1)
		}
		if sm, ok := sampleOf(stack.Apply(logits[gi], g.Kin), g.Kin, correct[gi], copies, ids[gi]%parts); ok {
			samples = append(samples, sm)
		} // else nothing retrieved: no decision to calibrate
	}
	cal, err := fitCalibration(samples, func(calSample) bool { return true })
	if err != nil {
		return nil, fmt.Errorf("fit calibration: %w", err)
	}
	siblingsCalibrated := ownBeatsPooled(samples, parts)
	folds := 1
	if cfg.Examples || cfg.BothTextRegimes {
		folds = cfg.Folds
	}
	dirs := make([]string, len(sets))
	for si, set := range sets {
		dirs[si] = set.Dir
	}
	out := &model.Model{
		Format: model.FormatVersion, Embedder: cfg.Embedder.ID(), Reranker: w, Calibration: cal, SiblingsCalibrated: siblingsCalibrated,
		Fitted: model.FitInfo{Set: strings.Join(dirs, ","), Split: cfg.Split, Tasks: total, Folds: folds, Examples: cfg.Examples},
	}
	if cfg.Examples {
		out.Examples = map[string][]string{}
		// A bare copy's tasks are its original's: keep each text once.
		for _, tasks := range perSet[:given] {
			for i := range tasks {
				if t := &tasks[i]; t.Expected != "" {
					out.Examples[t.Expected] = append(out.Examples[t.Expected], t.Text)
				}
			}
		}
	}
	return out, nil
}

// calSample is one task's best candidate as the calibration sees it.
type calSample struct {
	fit float64
	// kinFit is the best fit among the best candidate's kin (siblings,
	// see rerank.Group.Kin), -1 when it has none.
	kinFit float64
	right  bool
	copies int    // the task's weight, in whole copies
	part   uint32 // the task's cross-fitting part
}

// sampleOf is a task's calibration sample: its best candidate by fit (the
// first of equals), and the best fit among that one's kin; false when
// nothing was retrieved.
func sampleOf(fits []float64, kin [][]int, correct []bool, copies int, part uint32) (calSample, bool) {
	best := -1
	for i, s := range fits {
		if best < 0 || s > fits[best] {
			best = i
		}
	}
	if best < 0 {
		return calSample{}, false
	}
	sm := calSample{fit: fits[best], kinFit: -1, right: correct[best], copies: copies, part: part}
	if kin != nil { // nil: no candidate has kin (rerank.Group.Kin)
		for _, k := range kin[best] {
			sm.kinFit = max(sm.kinFit, fits[k])
		}
	}
	return sm, true
}

// fitCalibration fits a calibration on the samples keep admits, each
// counted its copies.
func fitCalibration(samples []calSample, keep func(calSample) bool) (*calibrate.Model, error) {
	var scores []float64
	var labels []bool
	for _, sm := range samples {
		if !keep(sm) {
			continue
		}
		for range sm.copies {
			scores = append(scores, sm.fit)
			labels = append(labels, sm.right)
		}
	}
	return calibrate.Fit(scores, labels)
}

// minKinTops is how many held-out tasks whose best candidate has a
// sibling ownBeatsPooled needs to judge by; with fewer (catalogs without
// siblings, like clinc150) the decider pools as the built-in model needs.
const minKinTops = 100

// ownBeatsPooled says whether, on the tasks whose best candidate has a
// sibling, the calibrated probability of the best one alone is nearer the
// truth (Brier score, each task weighed as the calibration weighs it)
// than the pooled probability the decider would report
// (decide.Policy.Pooled). Each part of the tasks is judged by a
// calibration fitted on the other parts, so that it is judged on tasks it
// did not learn from. Golden sets count a sibling right; a calibration
// fitted on such tasks already gives the best one the pair's probability
// (fitted on sgd's train split, its dev delegations beside a sibling were
// right 92.3% of the time at a mean pooled 0.976 and the best one's own
// 0.924), while one fitted where no skill has a sibling (clinc150) splits
// it between the two.
func ownBeatsPooled(samples []calSample, parts uint32) bool {
	var own, pooled float64
	n := 0
	for k := range parts {
		cal, err := fitCalibration(samples, func(sm calSample) bool { return sm.part != k })
		if err != nil {
			return false // a part too small to judge by: pool, as the built-in model does
		}
		for _, sm := range samples {
			if sm.part != k || sm.kinFit < 0 {
				continue
			}
			p := cal.Prob(sm.fit)
			q := 1 - (1-p)*(1-cal.Prob(sm.kinFit))
			y := 0.0
			if sm.right {
				y = 1
			}
			w := float64(sm.copies)
			own += w * (p - y) * (p - y)
			pooled += w * (q - y) * (q - y)
			n++
		}
	}
	return n >= minKinTops && own < pooled
}

// trainEach calls train with 0 to n-1 on up to workers goroutines and
// done with how many have finished, one call at a time. It returns the
// error of the lowest k that failed, so the error does not depend on
// which finished first.
func trainEach(n, workers int, train func(k int) error, done func(int)) error {
	errs := make([]error, n)
	next := make(chan int)
	var mu sync.Mutex
	finished := 0
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Go(func() {
			for k := range next {
				errs[k] = train(k)
				mu.Lock()
				finished++
				done(finished)
				mu.Unlock()
			}
		})
	}
	for k := range n {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// identity is never read: fitting computes features, not probabilities.
var identity, _ = calibrate.NewPlatt(calibrate.Platt{A: -1})

// neutral is a placeholder model used only to compute features.
func neutral(embedderID string) *model.Model {
	n := len(rerank.FeatureNames)
	w := rerank.Weights{Features: rerank.FeatureNames, Mean: make([]float64, n), Scale: make([]float64, n), W: make([]float64, n)}
	for i := range w.Scale {
		w.Scale[i] = 1
	}
	return &model.Model{Format: model.FormatVersion, Embedder: embedderID, Reranker: w,
		Calibration: identity}
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// startStage tells the progress callback that a stage has begun, so that
// a long stage (the reranker's, minutes on a large set) shows before its
// first step ends.
func startStage(cfg Config, stage string, total int) {
	if cfg.Progress != nil {
		cfg.Progress(stage, 0, total)
	}
}

// fewOf keeps n of texts, the same ones whatever their order: those of
// the lowest hashes.
func fewOf(texts []string, n int) []string {
	if len(texts) <= n {
		return texts
	}
	out := slices.Clone(texts)
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(hash(a), hash(b)), strings.Compare(a, b)) })
	return out[:n]
}
