package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// Group runs every stage of the pipeline in one process: the four
// matching stages, the feedback stage and the dead-letter watcher.
type Group struct {
	runner *Runner
	mu     sync.Mutex
	specs  []Stage
	run    map[string]*Running
	fb     *FeedbackStage
	model  *ModelWatch
}

// StartAll creates the streams and buckets and starts every stage: the
// feedback stage restores its posteriors from the model bucket, and the
// decider watches them (and breaks near-ties as cfg.Ties says).
func StartAll(ctx context.Context, js jetstream.JetStream, stages *Stages, cfg Config) (*Group, error) {
	cfg = cfg.withDefaults()
	if err := SetupStreams(ctx, js, cfg); err != nil {
		return nil, err
	}
	r := NewRunner(js, cfg)
	g := &Group{runner: r, run: map[string]*Running{}}
	stages.SetTies(*cfg.Ties, cfg.TieSeed)
	fu, err := OpenFollowups(ctx, js, cfg.Followups.Bucket)
	if err != nil {
		return nil, err
	}
	stages.SetFollowups(fu)
	mkv, err := ModelKV(ctx, js, cfg.ModelBucket)
	if err != nil {
		return nil, err
	}
	if g.fb, err = NewFeedbackStage(ctx, mkv, cfg.FeedbackEvery, cfg.FeedbackInterval, cfg.Log); err != nil {
		return nil, err
	}
	if cfg.RefitInterval > 0 {
		g.fb.StartRefit(js, RefitConfig{Streams: cfg.Streams, Interval: cfg.RefitInterval, Window: cfg.RefitWindow})
	}
	stages.SetFeedback(g.fb)
	if g.model, err = stages.WatchModel(ctx, mkv, cfg.Log); err != nil {
		g.fb.Close()
		return nil, err
	}
	g.specs = append(stages.StageSpecs(cfg.Streams), r.DeadLetterStage())
	for _, st := range g.specs {
		if err := g.StartStage(ctx, st.Name); err != nil {
			g.Stop()
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

// Stop stops every stage.
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
