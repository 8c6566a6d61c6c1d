package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/match/settle"
	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
)

// Group runs stages of the pipeline in one process: all of them
// (StartAll, `skillmatch run`) or the one a service runs (Start).
type Group struct {
	runner *Runner
	mu     sync.Mutex
	specs  []Stage
	run    map[string]*Running
	fb     *FeedbackStage
	model  *ModelWatch

	// The stages built, nil when not part of the group.
	Decider  *Decider
	Reranker *Reranker
}

// StartAll creates the streams and buckets and starts every stage plus
// the dead-letter watcher.
func StartAll(ctx context.Context, js jetstream.JetStream, snaps *Snapshots, cfg Config) (*Group, error) {
	if err := SetupStreams(ctx, js, cfg); err != nil {
		return nil, err
	}
	return Start(ctx, js, snaps, cfg, append(slices.Clone(StageNames), StageDeadLetters)...)
}

// Start builds and starts the named stages (StageNames, and
// StageDeadLetters for the watcher that dead-letters messages past their
// max deliveries) with what each needs: the feedback stage restores its
// posteriors from the model bucket and refits the calibration; the
// decider opens the follow-up store and, like the reranker, watches the
// model bucket. The matching stages match on snaps. The streams and
// buckets must exist (SetupStreams).
func Start(ctx context.Context, js jetstream.JetStream, snaps *Snapshots, cfg Config, names ...string) (_ *Group, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	r := NewRunner(js, cfg)
	g := &Group{runner: r, run: map[string]*Running{}}
	defer func() {
		if err != nil {
			g.Stop() // what started before the failure
		}
	}()
	if snaps == nil {
		snaps = NewSnapshots(nil)
	}
	// The decider records delegations, the feedback stage checks outcomes
	// against them: one store for both.
	store := cfg.Followups.Store
	delegations := func() (settle.Store, error) {
		if store == nil {
			kvs, err := OpenFollowups(ctx, js, cfg.Followups.Bucket)
			if err != nil {
				return nil, err
			}
			if cfg.GroupCommit {
				kvs.WithGroupCommit(batch.GroupConfig{Timeout: r.Config().Retry})
			}
			store = kvs
		}
		return store, nil
	}
	// The decider publishes each task's one decision, the extractor
	// reads them back by task id: one store for both.
	var ids *TaskIDs
	taskIDs := func() (*TaskIDs, error) {
		if ids == nil {
			var err error
			if ids, err = OpenTaskIDs(ctx, js, cfg.TaskIDsBucket, cfg.Streams.Decisions); err != nil {
				return nil, err
			}
			if cfg.GroupCommit {
				// A commit that times out leaves its decisions' fate
				// unknown and has them published again: wait as long as
				// the runner's retry budget.
				ids.WithGroupCommit(batch.GroupConfig{Timeout: r.Config().Retry})
			}
		}
		return ids, nil
	}
	for _, name := range names {
		var h Handler
		switch name {
		case StageExtractor:
			ids, err := taskIDs()
			if err != nil {
				return nil, err
			}
			h = NewExtractor(cfg.Callers).WithTaskIDs(ids).Handle
		case StageRetriever:
			rt := NewRetriever(snaps)
			st := stageSpec(name, cfg.Streams, rt.Handle)
			st.Ready = rt.Ready
			g.specs = append(g.specs, st)
			continue
		case StageReranker:
			g.Reranker = NewReranker(snaps)
			h = g.Reranker.Handle
		case StageDecider:
			fu, err := delegations()
			if err != nil {
				return nil, err
			}
			ids, err := taskIDs()
			if err != nil {
				return nil, err
			}
			g.Decider = NewDecider(snaps, DeciderConfig{Ties: *cfg.Ties, TieSeed: cfg.TieSeed, Followups: fu, Decided: ids})
			h = g.Decider.Handle
		case StageFeedback:
			mkv, err := ModelKV(ctx, js, cfg.ModelBucket)
			if err != nil {
				return nil, err
			}
			fu, err := delegations()
			if err != nil {
				return nil, err
			}
			ekv, err := ExamplesKV(ctx, js, cfg.ExamplesBucket)
			if err != nil {
				return nil, err
			}
			if g.fb, err = NewFeedbackStage(ctx, mkv, FeedbackConfig{Every: cfg.FeedbackEvery, Interval: cfg.FeedbackInterval,
				Delegations: fu, Callers: cfg.Callers, Examples: NewExamples(ekv, cfg.CatalogBucket, 0), ExampleObserver: exampleObserver(cfg.Observer),
				Log: cfg.Log}); err != nil {
				return nil, err
			}
			if cfg.RefitInterval > 0 {
				g.fb.StartRefit(js, RefitConfig{Streams: cfg.Streams, Interval: cfg.RefitInterval, Window: cfg.RefitWindow})
			}
			h = g.fb.Handle
		case StageDeadLetters:
			g.specs = append(g.specs, r.DeadLetterStage())
			continue
		default:
			return nil, fmt.Errorf("pipeline: no stage %q", name)
		}
		g.specs = append(g.specs, stageSpec(name, cfg.Streams, h))
	}
	if g.Decider != nil || g.Reranker != nil {
		mkv, err := ModelKV(ctx, js, cfg.ModelBucket)
		if err != nil {
			return nil, err
		}
		if g.model, err = WatchModel(ctx, mkv, g.Decider, g.Reranker, cfg.Log); err != nil {
			return nil, err
		}
	}
	for i, st := range g.specs {
		if st.Origin {
			g.specs[i].BackOff = []time.Duration{cfg.OriginAckWait}
			// Each extraction waits a round trip for its task-id record;
			// one at a time, under a server that syncs every write, made
			// the extractor the pipeline's bottleneck (the reads wait out
			// the stream's fsyncs).
			g.specs[i].Concurrency = cfg.ExtractorConcurrency
		}
		if MatchingStages[st.Name] && !st.Final {
			g.specs[i].Workers = cfg.MatchingWorkers
		}
		if st.Final {
			g.specs[i].Workers = cfg.DeciderWorkers
			if cfg.GroupCommit {
				g.specs[i].Concurrency = cfg.DeciderConcurrency
			}
		}
		if err := g.StartStage(ctx, st.Name); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// StartStage starts a stage of the group that is not running.
func (g *Group) StartStage(ctx context.Context, name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.run[name] != nil {
		return fmt.Errorf("pipeline: stage %s is running", name)
	}
	for _, st := range g.specs {
		if st.Name == name {
			r, err := g.runner.Start(ctx, st)
			if err != nil {
				return err
			}
			g.run[name] = r
			return nil
		}
	}
	return fmt.Errorf("pipeline: no stage %s", name)
}

// StopStage stops one stage; its consumer and its pending messages stay
// on the server for when it starts again.
func (g *Group) StopStage(name string) {
	g.mu.Lock()
	r := g.run[name]
	delete(g.run, name)
	g.mu.Unlock()
	if r != nil {
		r.Stop()
	}
}

// Stop stops every stage, then the feedback stage's publishing and the
// model watch.
func (g *Group) Stop() {
	g.mu.Lock()
	runs := g.run
	g.run = map[string]*Running{}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); r.Stop() }()
	}
	wg.Wait()
	if g.fb != nil {
		g.fb.Close()
	}
	if g.model != nil {
		g.model.Stop()
	}
}

// NotReady names the running stages that hold their deliveries because a
// dependency is unavailable (Running.Ready); empty when all are handling.
func (g *Group) NotReady() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var names []string
	for name, r := range g.run {
		if !r.Ready() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
