package pipeline

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// A stage stopped and restarted in the middle of the run, then the server
// restarted on the same store while the stages keep running (they
// reconnect): every task is still decided exactly once, as in process.
func TestPipelineRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("restart test skipped in -short mode")
	}
	m := testMatcher(t)
	tasks := genTasks(m, 1000, 4)
	want := expected(t, m, tasks)
	dir := t.TempDir()
	srv := startServer(t, dir, "127.0.0.1:-1")
	u, err := url.Parse(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	listen := u.Host
	defer func() { srv.Shutdown() }()

	var reconnects atomic.Int32
	nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { reconnects.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g, err := StartAll(ctx, js, NewSnapshots(m), testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()

	start := time.Now()
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := 0; i < len(tasks); i += 50 {
			publishTasks(ctx, t, js, tasks[i:min(i+50, len(tasks))])
			time.Sleep(15 * time.Millisecond) // spread the run over the restarts
		}
	}()

	decided := func() uint64 {
		c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		n, _ := streamCount(c, js, DefaultStreams.Decisions)
		return n
	}
	waitFor := func(n uint64) {
		for decided() < n && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}

	// Kill the reranker mid-run; tasks pile up on its consumer meanwhile.
	waitFor(150)
	g.StopStage(StageReranker)
	stoppedAt := decided()
	time.Sleep(300 * time.Millisecond)
	g.StartStage(ctx, StageReranker)
	t.Logf("reranker stopped at %d decisions, restarted", stoppedAt)

	// Restart the server on the same store and port; the stages stay up.
	waitFor(450)
	srv.Shutdown()
	downAt := time.Now()
	time.Sleep(200 * time.Millisecond)
	srv, err = natsbox.Start(natsbox.Config{DataDir: dir, Listen: listen})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("server restarted after %v", time.Since(downAt))

	<-published
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), 60*time.Second)
	t.Logf("%d tasks decided in %v with a stage and a server restart (%d reconnects)", len(tasks), time.Since(start), reconnects.Load())
	// Redeliveries of what was in flight come after the ack wait (2 s):
	// wait past it, so a duplicate decision would have had time to land.
	time.Sleep(2500 * time.Millisecond)
	checkDecisions(t, js, want)
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
	if reconnects.Load() == 0 {
		t.Error("the client never reconnected: the server restart did not happen mid-run")
	}
}
