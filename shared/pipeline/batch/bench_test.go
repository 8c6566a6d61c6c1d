package batch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox/natsboxtest"
)

// BenchmarkAtomicBatch measures what one fsync covers on a server that
// syncs every write: 3,000 messages published one by one (asynchronously,
// all in flight) against atomic batches of several sizes, from one and
// from four publishers. Run: go test -run '^$' -bench AtomicBatch
// -benchtime 1x ./shared/pipeline/batch/
func BenchmarkAtomicBatch(b *testing.B) {
	const n = 3000
	payload := make([]byte, 600)
	run := func(b *testing.B, publish func(ctx context.Context, nc *nats.Conn, js jetstream.JetStream)) {
		for range b.N {
			srv, nc, js := natsboxtest.Start(b, natsbox.Config{InProcess: true, SyncAlways: true})
			ctx := context.Background()
			if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, AllowAtomicPublish: true}); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			publish(ctx, nc, js)
			b.ReportMetric(n/time.Since(t0).Seconds(), "msgs/s")
			nc.Close()
			srv.Shutdown()
		}
	}
	b.Run("one-by-one", func(b *testing.B) {
		run(b, func(ctx context.Context, nc *nats.Conn, js jetstream.JetStream) {
			for i := range n {
				if _, err := js.PublishAsync(fmt.Sprintf("b.%d", i), payload); err != nil {
					b.Fatal(err)
				}
			}
			<-js.PublishAsyncComplete()
		})
	})
	for _, pubs := range []int{1, 4} {
		for _, size := range []int{2, 4, 8, 16, 50} {
			b.Run(fmt.Sprintf("publishers=%d/size=%d", pubs, size), func(b *testing.B) {
				run(b, func(ctx context.Context, nc *nats.Conn, js jetstream.JetStream) {
					var wg sync.WaitGroup
					for p := range pubs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := p * size; i < n; i += pubs * size {
								msgs := make([]*nats.Msg, 0, size)
								for j := i; j < min(n, i+size); j++ {
									msgs = append(msgs, &nats.Msg{Subject: fmt.Sprintf("b.%d", j), Data: payload})
								}
								if _, err := PublishAtomic(ctx, nc, msgs); err != nil {
									b.Error(err)
									return
								}
							}
						}()
					}
					wg.Wait()
				})
			})
		}
	}
}

// BenchmarkGroupCommit is the pipeline's durable writes without the
// matching: 3,000 tasks, each written in turn to three streams of a server
// that syncs every write (its submission, its record, created with an
// expected last subject sequence of 0 as a KV create is, and its
// decision), by 64 or 256 concurrent tasks at a time, each write alone or through
// a Group per stream. It is the ceiling the synced store puts on the
// pipeline's throughput. Run: go test -run '^$' -bench GroupCommit
// -benchtime 1x ./shared/pipeline/batch/
func BenchmarkGroupCommit(b *testing.B) {
	const n = 3000
	payload := make([]byte, 2000)
	for _, c := range []struct {
		grouped    bool
		concurrent int
	}{{false, 64}, {true, 64}, {true, 256}} {
		grouped, concurrent := c.grouped, c.concurrent
		b.Run(fmt.Sprintf("grouped=%v/concurrent=%d", grouped, concurrent), func(b *testing.B) {
			for range b.N {
				srv, nc, js := natsboxtest.Start(b, natsbox.Config{InProcess: true, SyncAlways: true})
				ctx := context.Background()
				streams := []string{"S", "R", "D"}
				groups := make([]*Group, len(streams))
				for i, s := range streams {
					if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: s, Subjects: []string{s + ".>"}, AllowAtomicPublish: true}); err != nil {
						b.Fatal(err)
					}
					groups[i] = NewGroup(nc, GroupConfig{})
				}
				alone := func(ctx context.Context, m *nats.Msg) error {
					_, err := js.PublishMsg(ctx, m)
					return err
				}
				t0 := time.Now()
				var wg sync.WaitGroup
				for w := range concurrent {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := w; i < n; i += concurrent {
							for s, name := range streams {
								m := msg(fmt.Sprintf("%s.%d", name, i), fmt.Sprintf("%s-%d", name, i), name == "R")
								m.Data = payload
								var err error
								if grouped {
									err = groups[s].Publish(ctx, m, alone)
								} else {
									err = alone(ctx, m)
								}
								if err != nil {
									b.Error(err)
									return
								}
							}
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(n/time.Since(t0).Seconds(), "tasks/s")
				var batched, total uint64
				for _, g := range groups {
					s := g.Stats()
					batched += s.Batched
					total += s.Batched + s.Alone
				}
				if grouped {
					b.ReportMetric(float64(batched)/float64(total), "batched-share")
				}
				nc.Close()
				srv.Shutdown()
			}
		})
	}
}
