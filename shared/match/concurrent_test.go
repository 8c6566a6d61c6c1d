package match_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

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
