package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox/natsboxtest"
)

// server starts an embedded server that syncs every write, with stream B
// (subjects b.>) allowing atomic batches.
func server(t *testing.T) (*nats.Conn, jetstream.JetStream, jetstream.Stream, context.Context) {
	t.Helper()
	_, nc, js := natsboxtest.Start(t, natsbox.Config{InProcess: true, SyncAlways: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, AllowAtomicPublish: true})
	if err != nil {
		t.Fatal(err)
	}
	return nc, js, st, ctx
}

// stored is how many messages stream B holds on each subject.
func stored(t *testing.T, ctx context.Context, st jetstream.Stream) map[string]int {
	t.Helper()
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for s, n := range info.State.Subjects {
		out[s] = int(n)
	}
	return out
}

func msg(subject, id string, expectNone bool) *nats.Msg {
	m := &nats.Msg{Subject: subject, Data: []byte(subject), Header: nats.Header{}}
	if id != "" {
		m.Header.Set(jetstream.MsgIDHeader, id)
	}
	if expectNone {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	}
	return m
}

func TestPublishAtomic(t *testing.T) {
	nc, js, st, ctx := server(t)
	if _, err := js.PublishMsg(ctx, msg("b.taken", "taken", false)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		msgs   []*nats.Msg
		reject bool
	}{
		{"stored whole", []*nats.Msg{msg("b.1", "1", true), msg("b.2", "2", false), msg("b.3", "", true)}, false},
		{"a key that exists", []*nats.Msg{msg("b.4", "4", false), msg("b.taken", "", true), msg("b.5", "5", false)}, true},
		{"a duplicate message id", []*nats.Msg{msg("b.6", "6", false), msg("b.7", "taken", false)}, true},
		{"the same key twice", []*nats.Msg{msg("b.8", "", true), msg("b.8", "", true)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := stored(t, ctx, st)
			_, err := PublishAtomic(ctx, nc, tc.msgs)
			after := stored(t, ctx, st)
			if tc.reject {
				if !errors.Is(err, ErrRejected) {
					t.Fatalf("err %v, want ErrRejected", err)
				}
				if fmt.Sprint(after) != fmt.Sprint(before) {
					t.Errorf("a rejected batch stored something: %v, before %v", after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.msgs {
				if after[m.Subject] != 1 {
					t.Errorf("%s stored %d times", m.Subject, after[m.Subject])
				}
			}
		})
	}
}

// TestGroupCommit: publishers queued behind a lone one are stored in one
// atomic batch; a batch with a message that fails its check (a key that
// exists, a duplicate message id) is rejected whole and each of its
// messages goes alone, so that nothing is lost or stored twice and the
// failing one gets its own answer.
func TestGroupCommit(t *testing.T) {
	for _, tc := range []struct {
		name string
		// bad is the queued message that fails its check, if any, and
		// the error its publisher gets.
		bad     *nats.Msg
		badErr  bool
		batches uint64
	}{
		{name: "all fine", batches: 1},
		{name: "a key that exists", bad: msg("b.taken", "", true), badErr: true},
		{name: "a duplicate message id", bad: msg("b.again", "taken", false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, js, st, ctx := server(t)
			if _, err := js.PublishMsg(ctx, msg("b.taken", "taken", false)); err != nil {
				t.Fatal(err)
			}
			g := NewGroup(nc, GroupConfig{MinBatch: 4})
			alone := func(ctx context.Context, m *nats.Msg) error {
				_, err := js.PublishMsg(ctx, m)
				return err
			}
			const queued = 10
			msgs := make([]*nats.Msg, queued)
			for i := range msgs {
				msgs[i] = msg(fmt.Sprintf("b.%d", i), fmt.Sprintf("id-%d", i), true)
			}
			if tc.bad != nil {
				msgs[queued/2] = tc.bad
			}
			// The lone publisher holds its publish until every other
			// one has queued: they make the next batch.
			leadDone := make(chan error, 1)
			go func() {
				leadDone <- g.Publish(ctx, msg("b.lead", "lead", true), func(ctx context.Context, m *nats.Msg) error {
					for {
						g.mu.Lock()
						n := len(g.queue)
						g.mu.Unlock()
						if n == queued {
							return alone(ctx, m)
						}
						time.Sleep(time.Millisecond)
					}
				})
			}()
			waitCommitting(g)
			errs := make([]error, queued)
			var wg sync.WaitGroup
			for i, m := range msgs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = g.Publish(ctx, m, alone)
				}()
			}
			wg.Wait()
			if err := <-leadDone; err != nil {
				t.Fatal(err)
			}
			got := stored(t, ctx, st)
			for i, m := range msgs {
				want := 1
				if m == tc.bad && m.Subject != "b.again" {
					want = 1 // b.taken: stored once, before
				}
				if m == tc.bad && m.Subject == "b.again" {
					want = 0 // its id was taken: a duplicate, not stored
				}
				if got[m.Subject] != want {
					t.Errorf("%s stored %d times, want %d", m.Subject, got[m.Subject], want)
				}
				if wantErr := m == tc.bad && tc.badErr; (errs[i] != nil) != wantErr {
					t.Errorf("%s: err %v, want an error: %v", m.Subject, errs[i], wantErr)
				}
				if m.Header.Get(headerBatchID) != "" {
					t.Errorf("%s: the caller's message gained batch headers", m.Subject)
				}
			}
			s := g.Stats()
			if s.Batches != tc.batches || s.Rejected != 1-tc.batches {
				t.Errorf("stats %+v, want %d batches", s, tc.batches)
			}
		})
	}
}

// A publisher that gives up while its message is still queued takes it
// out: it is not stored later, behind its back (its caller, told it was
// not stored, may publish it again past the stream's dedup window).
func TestGroupGivenUp(t *testing.T) {
	nc, js, st, ctx := server(t)
	g := NewGroup(nc, GroupConfig{MinBatch: 2})
	alone := func(ctx context.Context, m *nats.Msg) error {
		_, err := js.PublishMsg(ctx, m)
		return err
	}
	release := make(chan struct{})
	leadDone := make(chan error, 1)
	go func() {
		leadDone <- g.Publish(ctx, msg("b.lead", "lead", false), func(ctx context.Context, m *nats.Msg) error {
			<-release
			return alone(ctx, m)
		})
	}()
	waitCommitting(g)
	short, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Publish(short, msg("b.quit", "quit", false), alone); !errors.Is(err, context.Canceled) {
		t.Fatalf("given up: %v", err)
	}
	kept := make(chan error, 1)
	go func() { kept <- g.Publish(ctx, msg("b.kept", "kept", false), alone) }()
	for {
		g.mu.Lock()
		n := len(g.queue)
		g.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-leadDone; err != nil {
		t.Fatal(err)
	}
	if err := <-kept; err != nil {
		t.Fatal(err)
	}
	got := stored(t, ctx, st)
	if got["b.quit"] != 0 || got["b.kept"] != 1 || got["b.lead"] != 1 {
		t.Errorf("stored %v: want b.lead and b.kept once, not b.quit", got)
	}
}

// waitCommitting waits until a publisher of g is committing, so that what
// is published next queues behind it.
func waitCommitting(g *Group) {
	for {
		g.mu.Lock()
		c := g.committer
		g.mu.Unlock()
		if c {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
