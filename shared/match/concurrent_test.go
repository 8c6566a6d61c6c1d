package match_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// A matcher is safe for concurrent use: its stages reuse pooled scratch
// (dense search, fusion, word alignment, feature vectors), and each of
// several goroutines must get, for every task, the result the task gets
// alone. Run with -race to check the sharing too.
func TestConcurrentMatchesAreTheLoneOnes(t *testing.T) {
	m, err := match.New(synthCatalog(1000), match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	tasks := synthTasks(40)
	ctx := context.Background()
	want := make([]*match.Result, len(tasks))
	for i, tk := range tasks {
		if want[i], err = m.Match(ctx, tk); err != nil {
			t.Fatal(err)
		}
		want[i].Timings = match.Timings{}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(tasks))
	for g := range 4 {
		wg.Go(func() {
			for j := range tasks {
				i := (j + 7*g) % len(tasks)
				got, err := m.Match(ctx, tasks[i])
				if err != nil {
					errs <- err
					continue
				}
				got.Timings = match.Timings{}
				if !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Errorf("task %s: a concurrent match answered differently", tasks[i].ID)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Warming a matcher while it serves changes no decision: Warm only makes
// early what a request would make, once (run under the race detector by
// make test).
func TestWarmWhileServing(t *testing.T) {
	tasks := []*task.Task{
		textTask("w1", "what's the weather in Lisbon tomorrow"),
		withHistory(textTask("w2", "and the day after?"), "what's the weather in Lisbon tomorrow"),
		textTask("w3", "translate this contract into German"),
		withHistory(textTask("w4", "yes please, go ahead with that"), "book a table for two at an Italian place tonight"),
	}
	cold := newMatcher(t, buildCatalog(t, honest()...))
	var want []string
	for _, tk := range tasks {
		want = append(want, decisionOf(mustMatch(t, cold, tk)))
	}
	m := newMatcher(t, buildCatalog(t, honest()...))
	done := make(chan struct{})
	go func() { defer close(done); m.Warm() }()
	for i, tk := range tasks {
		if got := decisionOf(mustMatch(t, m, tk)); got != want[i] {
			t.Errorf("%s while warming: %s, want %s", tk.ID, got, want[i])
		}
	}
	<-done
	m.Warm() // twice is harmless
}

// decisionOf is a decision's action, chosen skill and probability.
func decisionOf(res *match.Result) string {
	chosen := ""
	if res.Decision.Chosen != nil {
		chosen = res.Decision.Chosen.Key
	}
	return fmt.Sprintf("%s %s %.6f", res.Decision.Action, chosen, res.Decision.Probability)
}
