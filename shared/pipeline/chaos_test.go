package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// chaosConfig compresses the windows of the default schedule so that a few
// seconds stand for minutes: a 2 s dedup window (2 min by default) and ack
// wait (30 s), so that the stages' 6 s outage below outlasts the window
// three times, as a 10-minute outage outlasts the default one five times.
// MaxDeliver is raised so that the redeliveries such short ack waits cause
// on two loaded cores never exhaust a task.
func chaosConfig() Config {
	return Config{
		MaxDeliver: 20, BackOff: []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second},
		Retry: 2 * time.Second, Duplicates: 2 * time.Second, PullMaxMessages: 32,
		// A submission waits 10 s for its task's end (2 min by default)
		// before it runs again: long enough for the backlog the kills
		// leave on two loaded cores.
		OriginAckWait: 10 * time.Second,
		// The deciders' records and decisions in atomic batches, as
		// run --sync-always stores them.
		GroupCommit: true,
		// No exploration: the decisions must equal the in-process core's.
		Ties: &decide.TieConfig{Epsilon: decide.DefaultTieConfig.Epsilon},
	}
}

const (
	chaosURLEnv    = "SKILLMATCH_CHAOS_URL"
	chaosStagesEnv = "SKILLMATCH_CHAOS_STAGES"
)

// TestChaosStage is not a test: it is the stage process of
// TestPipelineChaos, which runs this test binary again with the
// environment set, and kills it with SIGKILL. It runs the named stages
// against the server until killed.
func TestChaosStage(t *testing.T) {
	u := os.Getenv(chaosURLEnv)
	if u == "" {
		t.Skip("the stage process of TestPipelineChaos (runs only when it starts this binary)")
	}
	log, _ := zap.NewDevelopment(zap.IncreaseLevel(zap.WarnLevel))
	nc, js, err := Connect(ConnectConfig{URL: u}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cfg := chaosConfig()
	cfg.Log = log
	ctx := context.Background()
	g, err := Start(ctx, js, NewSnapshots(testMatcher(t)), cfg, strings.Split(os.Getenv(chaosStagesEnv), ",")...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	fmt.Fprintln(os.Stderr, "stages started")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop // never, in practice: the parent sends SIGKILL
}

// stageProcs are the stage processes of the chaos test: one per stage
// (the decider's process also runs the dead-letter watcher).
type stageProcs struct {
	t      *testing.T
	url    string
	mu     sync.Mutex
	procs  []*exec.Cmd
	stderr []*bytes.Buffer
	kills  int
}

var chaosStages = []string{StageExtractor, StageRetriever, StageReranker, StageDecider + "," + StageDeadLetters}

// start starts every stage process.
func (p *stageProcs) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, stages := range chaosStages {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChaosStage$", "-test.count=1", "-test.timeout=10m")
		cmd.Env = append(os.Environ(), chaosURLEnv+"="+p.url, chaosStagesEnv+"="+stages)
		var stderr bytes.Buffer
		cmd.Stderr, cmd.Stdout = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			p.t.Fatal(err)
		}
		p.procs, p.stderr = append(p.procs, cmd), append(p.stderr, &stderr)
	}
}

// kill sends SIGKILL (kill -9) to every stage process and reaps them:
// nothing they held is acked, published or marked any more.
func (p *stageProcs) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cmd := range p.procs {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	p.procs = nil
	p.kills++
}

// logs is what the stage processes wrote, for a failure message.
func (p *stageProcs) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for i, s := range p.stderr {
		if s.Len() > 0 {
			fmt.Fprintf(&b, "--- stage process %d:\n%s\n", i, lastLines(s.String(), 20))
		}
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Chaos: 3,000 tasks through stage processes that are killed with SIGKILL
// twice mid-run (each time every stage at once), a nats-server restart on
// the same store in between, and, after the second kill, an outage of all
// stages (6 s) three times the dedup window (2 s; see chaosConfig for how
// the windows are compressed) and past every redelivery delay, while tasks
// keep arriving. Every task is decided exactly once, as the in-process
// matcher decides it: none lost, none twice. It runs on the default store
// and on one that syncs every write (sync_interval always, as deploy/nats
// and run --sync-always configure it), where the stage messages are the
// only writes not synced.
func TestPipelineChaos(t *testing.T) {
	if os.Getenv(chaosURLEnv) != "" {
		t.Skip("inside a stage process")
	}
	for _, sync := range []bool{true, false} {
		name := "default"
		if sync {
			name = "synced"
		}
		t.Run(name, func(t *testing.T) { chaos(t, sync) })
	}
}

func chaos(t *testing.T, syncAlways bool) {
	m := testMatcher(t)
	tasks := genTasks(m, 3000, 11)
	want := expected(t, m, tasks)
	dir := t.TempDir()
	srv, err := natsbox.Start(natsbox.Config{DataDir: dir, Listen: "127.0.0.1:-1", SyncAlways: syncAlways})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Shutdown() }()
	u, err := url.Parse(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	nc, js, err := Connect(ConnectConfig{URL: srv.ClientURL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := chaosConfig()
	if err := SetupStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	procs := &stageProcs{t: t, url: srv.ClientURL()}
	procs.start()
	defer procs.kill()
	defer func() {
		if t.Failed() {
			t.Log(procs.logs())
		}
	}()

	start := time.Now()
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := 0; i < len(tasks); i += 100 {
			publishTasks(ctx, t, js, tasks[i:min(i+100, len(tasks))])
			time.Sleep(150 * time.Millisecond) // spread the run over the faults
		}
	}()
	decided := func() uint64 {
		c, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		n, _ := streamCount(c, js, DefaultStreams.Decisions)
		return n
	}
	waitFor := func(n uint64) {
		t.Helper()
		for decided() < n {
			if ctx.Err() != nil {
				t.Fatalf("stuck at %d decisions, waiting for %d\n%s", decided(), n, consumerStates(js))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// 1. kill -9 of every stage mid-run; new processes take over.
	waitFor(400)
	procs.kill()
	t.Logf("%v: every stage killed at %d decisions; restarted", time.Since(start).Round(time.Millisecond), decided())
	procs.start()

	// 2. The server restarted on the same store; the stages reconnect.
	waitFor(1100)
	srv.Shutdown()
	time.Sleep(200 * time.Millisecond)
	if srv, err = natsbox.Start(natsbox.Config{DataDir: dir, Listen: u.Host, SyncAlways: syncAlways}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: server restarted at %d decisions", time.Since(start).Round(time.Millisecond), decided())

	// 3. kill -9 of every stage again, and an outage of all of them three
	// times the dedup window while tasks keep arriving.
	waitFor(1800)
	procs.kill()
	down := decided()
	time.Sleep(6 * time.Second)
	t.Logf("%v: every stage killed at %d decisions, down 6 s (dedup window 2 s), restarted", time.Since(start).Round(time.Millisecond), down)
	procs.start()

	<-published
	waitFor(uint64(len(tasks)))
	t.Logf("%v: %d tasks decided through %d kills of every stage and a server restart", time.Since(start).Round(time.Millisecond), len(tasks), procs.kills)
	// Redeliveries of what the last processes hold come after the ack
	// wait: wait past it and the window, so a second decision would land.
	time.Sleep(5 * time.Second)
	t.Log(strings.TrimSpace(consumerStates(js)))
	checkDecisions(t, js, want)
	// No task was dead-lettered; the only dead letter allowed is a
	// publish retried past the window (its first attempt stored, its ack
	// lost in the restart): a duplicate answered with the decision.
	for _, msg := range readAll(t, js, DefaultStreams.DeadLetters) {
		dl, err := wire.DecodeDeadLetter(msg.Data())
		if err != nil || !strings.Contains(dl.Reason, ErrDuplicateTask.Error()) || len(dl.Decision) == 0 {
			t.Errorf("dead letter %+v %v", dl, err)
		}
	}
}
