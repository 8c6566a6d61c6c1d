package runtime

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestPublishersOverlapRoundTrips checks that a stage's publishers wait
// out their round trips side by side: a stage with one worker per core
// (the retriever, the reranker) gets at least publishersPerStage of them,
// since with one per worker their round trips, not the CPU, capped the
// pipeline under a synced server; a stage handling more deliveries at
// once gets one per delivery.
func TestPublishersOverlapRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		workers, concurrency int
		want                 int
	}{
		{"one worker", 1, 0, 16},
		{"a worker per core of two", 2, 1, 16},
		{"the extractor's 32 at once", 1, 32, 32},
		{"the grouped decider's 4 x 64", 4, 64, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := publishers(tc.workers, tc.concurrency)
			if n != tc.want {
				t.Fatalf("publishers(%d, %d) = %d, want %d", tc.workers, tc.concurrency, n, tc.want)
			}
			// Each settle waits until n are waiting at once, as n
			// publishes would wait for their acks together.
			var waiting atomic.Int32
			all := make(chan struct{})
			p := startPublishers(n, n, func(delivery) {
				if waiting.Add(1) == int32(n) {
					close(all)
				}
				<-all
			})
			for range n {
				p.put(delivery{})
			}
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				t.Fatalf("%d of %d settles waiting at once", waiting.Load(), n)
			}
			p.close()
		})
	}
}
