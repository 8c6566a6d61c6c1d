package pipeline

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// switchable is an in-memory index whose backend can be taken away, the
// way a remote index's can: while down, searches and Ready fail with
// index.ErrUnavailable.
type switchable struct {
	index.Index
	down     atomic.Bool
	searches atomic.Int64 // searches attempted while down
}

func (s *switchable) Search(ctx context.Context, q index.Query) (*index.Result, error) {
	if s.down.Load() {
		s.searches.Add(1)
		return nil, fmt.Errorf("test backend: %w", index.ErrUnavailable)
	}
	return s.Index.Search(ctx, q)
}

func (s *switchable) Ready(context.Context) error {
	if s.down.Load() {
		return fmt.Errorf("test backend: %w", index.ErrUnavailable)
	}
	return nil
}

// With the retriever's index unavailable for longer than all the
// redelivery backoffs together, no task is dead-lettered, redelivered or
// lost: the retriever holds them, says so once, and decides every one
// exactly once when the index answers again.
func TestRetrieverHoldsWhileIndexUnavailable(t *testing.T) {
	ref := testMatcher(t)
	sw := &switchable{}
	m, err := match.New(ref.Catalog(), match.WithEmbedder(embed.Default()), match.WithPlanSteps(match.DefaultPlanSteps), match.WithIndex(func(docs []index.Doc, emb vector.Embedder) (index.Index, error) {
		mem, err := index.NewMemory(docs, emb)
		sw.Index = mem
		return sw, err
	}))
	if err != nil {
		t.Fatal(err)
	}
	tasks := genTasks(ref, 200, 11)
	want := expected(t, ref, tasks)

	_, js, ctx := serve(t, 90*time.Second)
	cfg := testConfig(t)
	// Short backoffs: without the hold, 4 deliveries would be spent (and
	// the task dead-lettered) within a few seconds of outage.
	cfg.BackOff = []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	cfg.Retry = 400 * time.Millisecond // inside the ack wait, as runtime.Config.Validate wants
	core, logs := observer.New(zapcore.InfoLevel)
	cfg.Log = zap.New(core)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()

	publishTasks(ctx, t, js, tasks[:50])
	waitCount(t, js, DefaultStreams.Decisions, 50, 30*time.Second)
	if nr := g.NotReady(); len(nr) != 0 {
		t.Fatalf("not ready while up: %v", nr)
	}

	sw.down.Store(true)
	publishTasks(ctx, t, js, tasks[50:])
	for sw.searches.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	// Several times the whole redelivery budget (4 x 500 ms).
	time.Sleep(4 * time.Second)
	if nr := g.NotReady(); len(nr) != 1 || nr[0] != StageRetriever {
		t.Errorf("NotReady = %v while the index is down, want [retriever]", nr)
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.Decisions); n != 50 {
		t.Errorf("%d decisions while the index was down, want 50", n)
	}
	if n := sw.searches.Load(); n > 5 {
		t.Errorf("%d searches while down: held deliveries must wait for Ready, not retry", n)
	}

	sw.down.Store(false)
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), 30*time.Second)
	time.Sleep(time.Second) // a duplicate would have had time to land
	checkDecisions(t, js, want)
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
	if nr := g.NotReady(); len(nr) != 0 {
		t.Errorf("NotReady = %v after the index came back", nr)
	}
	cons, err := js.Consumer(ctx, DefaultStreams.Tasks, StageRetriever)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumRedelivered != 0 {
		t.Errorf("%d retriever deliveries redelivered, want 0: held deliveries must be kept alive", info.NumRedelivered)
	}
	if n := logs.FilterMessageSnippet("not ready").Len(); n != 1 {
		t.Errorf("%d 'not ready' lines, want 1", n)
	}
	if n := logs.FilterMessageSnippet("ready again").Len(); n != 1 {
		t.Errorf("%d 'ready again' lines, want 1", n)
	}
}
