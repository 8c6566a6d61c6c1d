package weaviateindex

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// pipelineTasks are n tasks drawn from the catalog's examples, reworded,
// and a few off-topic ones.
func pipelineTasks(cat *catalog.Catalog, n int) []*task.Task {
	var texts []string
	for _, ref := range cat.Skills() {
		texts = append(texts, ref.Skill.Examples...)
	}
	off := []string{"sing me a song about cheese", "explain the purpose of human existence", "xyzzy plugh"}
	out := make([]*task.Task, n)
	for i := range out {
		text := texts[(i*7)%len(texts)]
		switch i % 5 {
		case 1:
			text = "Please " + strings.ToLower(text)
		case 3:
			text = off[i%len(off)]
		}
		out[i] = &task.Task{ID: fmt.Sprintf("wv-restart-%04d", i),
			Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
	}
	return out
}

func count(ctx context.Context, t *testing.T, js jetstream.JetStream, stream string) uint64 {
	t.Helper()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// Weaviate stopped in the middle of a run and started again on its data:
// the retriever holds the tasks meanwhile (reports not-ready, logs one
// line each way), comes back by itself, and every task is decided exactly
// once, as the in-process matcher decides it, none dead-lettered. Then
// Weaviate is replaced by an empty one on the same address: the index
// imports itself again and the tasks sent meanwhile are decided too.
func TestPipelineWeaviateRestart(t *testing.T) {
	if os.Getenv("WEAVIATE_URL") != "" {
		t.Skip("runs a server of its own; WEAVIATE_URL is set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ws := weaviateServer(t, "")
	url, grpcAddr := ws.URL, ws.GRPC
	cat, errs := catalog.LoadDir("../../../examples/catalog")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	log := zap.New(core)
	m, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithIndex(Builder(Config{URL: url, GRPC: grpcAddr, Catalog: "restart",
		Retry: time.Second, Timeout: 2 * time.Second, Log: log})))
	if err != nil {
		t.Fatal(err)
	}
	tasks := pipelineTasks(cat, 400)
	want := map[string]string{}
	for _, tk := range tasks {
		raw, _ := json.Marshal(tk)
		parsed, err := task.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Match(ctx, parsed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Decision)
		want[tk.ID] = string(b)
	}

	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	g, err := pipeline.StartAll(ctx, js, pipeline.NewSnapshots(m), pipeline.Config{
		MaxDeliver: 4, BackOff: []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}, Retry: 2 * time.Second,
		Log: log, Ties: &decide.TieConfig{Epsilon: decide.DefaultTieConfig.Epsilon},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	publish := func(ts []*task.Task) {
		for _, tk := range ts {
			if _, err := pipeline.Publish(ctx, js, tk); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitDecisions := func(n uint64) {
		t.Helper()
		for count(ctx, t, js, pipeline.DefaultStreams.Decisions) < n {
			if ctx.Err() != nil {
				t.Fatalf("only %d of %d decisions", count(context.Background(), t, js, pipeline.DefaultStreams.Decisions), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	publish(tasks[:100])
	waitDecisions(100)
	ws.Pause()
	t0 := time.Now()
	publish(tasks[100:300])
	// Longer than every redelivery backoff together (4 x 1 s): without the
	// hold, tasks would be dead-lettered by now.
	time.Sleep(6 * time.Second)
	if nr := g.NotReady(); len(nr) != 1 || nr[0] != pipeline.StageRetriever {
		t.Errorf("NotReady = %v with Weaviate down, want [retriever]", nr)
	}
	if n := count(ctx, t, js, pipeline.DefaultStreams.Decisions); n != 100 {
		t.Errorf("%d decisions with Weaviate down, want 100", n)
	}
	ws.Resume()
	t.Logf("Weaviate down for %v", time.Since(t0).Round(time.Millisecond))
	waitDecisions(300)

	// Weaviate loses its data: a new, empty server on the same address.
	port := strings.TrimPrefix(url, "http://127.0.0.1:")
	ws.Stop()
	weaviateServer(t, port)
	publish(tasks[300:])
	waitDecisions(uint64(len(tasks)))
	time.Sleep(1500 * time.Millisecond) // a duplicate would have landed by now

	if nr := g.NotReady(); len(nr) != 0 {
		t.Errorf("NotReady = %v after Weaviate came back", nr)
	}
	if n := count(ctx, t, js, pipeline.DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters, want none", n)
		if s, err := js.Stream(ctx, pipeline.DefaultStreams.DeadLetters); err == nil {
			for seq := uint64(1); seq <= 3; seq++ {
				if m, err := s.GetMsg(ctx, seq); err == nil {
					t.Logf("dead letter on %s: %.300s", m.Subject, m.Data)
				}
			}
		}
	}
	s, err := js.Stream(ctx, pipeline.DefaultStreams.Decisions)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	batch, err := c.Fetch(len(tasks)+10, jetstream.FetchMaxWait(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	mismatches := 0
	for msg := range batch.Messages() {
		d, err := wire.DecodeDecision(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		if seen[d.TaskID] {
			t.Errorf("task %s decided twice", d.TaskID)
		}
		seen[d.TaskID] = true
		got, _ := json.Marshal(d.Decision)
		if string(got) != want[d.TaskID] && mismatches < 5 {
			mismatches++
			t.Errorf("task %s: pipeline decided\n  %s\nin process:\n  %s", d.TaskID, got, want[d.TaskID])
		}
	}
	if len(seen) != len(tasks) {
		t.Errorf("%d tasks decided, want %d", len(seen), len(tasks))
	}
	for msg, want := range map[string]int{"not ready": 2, "ready again": 2, "weaviate index gone": 1, "weaviate index restored": 1} {
		if n := logs.FilterMessageSnippet(msg).Len(); n != want {
			t.Errorf("%d log lines %q, want %d", n, msg, want)
		}
	}
	// One line per change of reachability: each "unreachable" (the stop,
	// and a new server's first moments) is followed by one "reachable".
	down, up := logs.FilterMessage("weaviate unreachable").Len(), logs.FilterMessage("weaviate reachable").Len()
	if down == 0 || up != down {
		t.Errorf("%d 'weaviate unreachable' and %d 'weaviate reachable' lines, want as many of each, at least one", down, up)
	}
}
