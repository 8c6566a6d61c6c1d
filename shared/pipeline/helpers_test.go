package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

var (
	matcherOnce sync.Once
	theMatcher  *match.Matcher
	matcherErr  error
)

func exampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "catalog")
}

// testMatcher is one matcher over the example catalog for the whole test
// binary: the pipeline and the in-process reference share it.
func testMatcher(t testing.TB) *match.Matcher {
	matcherOnce.Do(func() {
		cat, errs := catalog.LoadDir(exampleDir())
		if len(errs) > 0 {
			matcherErr = fmt.Errorf("example catalog: %v", errs)
			return
		}
		// Plans on, as `skillmatch run` has them by default.
		theMatcher, matcherErr = match.New(cat, match.WithEmbedder(embed.Default()), match.WithPlanSteps(match.DefaultPlanSteps))
	})
	if matcherErr != nil {
		t.Fatal(matcherErr)
	}
	return theMatcher
}

// testConfig keeps redeliveries quick: a stopped stage's buffered messages
// come back after BackOff[0].
func testConfig(t testing.TB) Config {
	return Config{
		MaxDeliver: 4,
		BackOff:    []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second},
		Retry:      5 * time.Second,
		Log:        zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
		// No exploration: the decisions must equal the in-process core's.
		Ties: &decide.TieConfig{Epsilon: decide.DefaultTieConfig.Epsilon},
	}
}

func startServer(t testing.TB, dir, listen string) *natsbox.Server {
	t.Helper()
	cfg := natsbox.Config{DataDir: dir, InProcess: listen == "", Listen: listen}
	s, err := natsbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func connectJS(t testing.TB, s *natsbox.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := s.Connect()
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// genTasks makes n varied, deterministic tasks over the catalog: skill
// examples as written and reworded, blends of two skills (close calls),
// off-topic text, with scopes, accepted types, files, history and data
// classes sprinkled in.
func genTasks(m *match.Matcher, n int, seed uint64) []*task.Task {
	rng := rand.New(rand.NewPCG(seed, 7))
	var examples []string
	for _, ref := range m.Catalog().Skills() {
		examples = append(examples, ref.Skill.Examples...)
		examples = append(examples, ref.Skill.Name+": "+ref.Skill.Description)
	}
	offTopic := []string{"explain the purpose of human existence", "sing me a song about cheese", "xyzzy plugh frobnicate",
		"how tall is the tallest tree", "recommend a good novel", "tell me a joke about penguins"}
	scopes := []string{"finance.read", "finance.write", "hr.read", "calendar.read", "calendar.write", "travel.book",
		"legal.read", "code.read", "support.tickets", "analytics.query", "expenses.submit"}
	types := []string{"application/json", "text/plain", "image/png", "application/pdf", "text/csv", "audio/wav"}
	files := []task.File{{Name: "report.pdf", MediaType: "application/pdf"}, {Name: "photo.png", MediaType: "image/png"},
		{Name: "call.wav", MediaType: "audio/wav"}, {Name: "data.csv", MediaType: "text/csv", URI: "https://files.example.com/data.csv"}}
	classes := []string{"public", "internal", "confidential", "restricted"}
	out := make([]*task.Task, n)
	for i := range out {
		var text string
		switch r := rng.IntN(100); {
		case r < 30:
			text = examples[rng.IntN(len(examples))]
		case r < 55:
			text = []string{"Can you ", "Please ", "I need to ", "Help me "}[rng.IntN(4)] + strings.ToLower(examples[rng.IntN(len(examples))])
		case r < 80:
			text = examples[rng.IntN(len(examples))] + " and " + strings.ToLower(examples[rng.IntN(len(examples))])
		default:
			text = offTopic[rng.IntN(len(offTopic))]
		}
		t := &task.Task{ID: fmt.Sprintf("t-%05d", i), Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
		if rng.IntN(5) == 0 {
			t.Caller.Scopes = []string{}
			for _, s := range scopes {
				if rng.IntN(3) == 0 {
					t.Caller.Scopes = append(t.Caller.Scopes, s)
				}
			}
		}
		if rng.IntN(7) == 0 {
			t.Constraints.AcceptedOutputTypes = []string{types[rng.IntN(len(types))]}
		}
		if rng.IntN(10) == 0 {
			f := files[rng.IntN(len(files))]
			t.Message.Parts = append(t.Message.Parts, task.Part{File: &f})
		}
		if rng.IntN(10) == 0 {
			t.History = []task.Message{{Role: "user", Parts: []task.Part{{Text: examples[rng.IntN(len(examples))]}}}}
		}
		if rng.IntN(20) == 0 {
			t.Caller.DataClass = classes[rng.IntN(len(classes))]
		}
		if rng.IntN(20) == 0 {
			yes := true
			t.Constraints.Streaming = &yes
		}
		out[i] = t
	}
	return out
}

// expected is what the in-process matcher decides for each task, as JSON,
// by task id. The task goes through task.Parse first, as in the pipeline.
func expected(t testing.TB, m *match.Matcher, tasks []*task.Task) map[string]string {
	t.Helper()
	want := make(map[string]string, len(tasks))
	for _, tk := range tasks {
		raw, _ := json.Marshal(tk)
		parsed, err := task.Parse(raw)
		if err != nil {
			t.Fatalf("generated task %s invalid: %v", tk.ID, err)
		}
		res, err := m.Match(context.Background(), parsed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Decision)
		want[tk.ID] = string(b)
	}
	return want
}

// publishTasks publishes tasks, retrying while the server is away. Each
// attempt has its own deadline: a request in flight when the server goes
// down never gets a reply, and the retry (same task id, so deduplicated)
// is what gets it stored.
func publishTasks(ctx context.Context, t testing.TB, js jetstream.JetStream, tasks []*task.Task) {
	for _, tk := range tasks {
		for {
			actx, cancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := Publish(actx, js, tk)
			cancel()
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Errorf("publish %s: %v", tk.ID, err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// streamCount is the number of messages in a stream.
func streamCount(ctx context.Context, js jetstream.JetStream, name string) (uint64, error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.Msgs, nil
}

// waitCount waits until a stream holds n messages, failing past timeout.
func waitCount(t testing.TB, js jetstream.JetStream, name string, n uint64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var got uint64
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := streamCount(ctx, js, name)
		cancel()
		if err == nil {
			got = c
			if got >= n {
				return
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("stream %s: %d messages after %s, want %d\n%s", name, got, timeout, n, consumerStates(js))
}

// consumerStates describes every stage consumer, for a failure message.
func consumerStates(js jetstream.JetStream) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var b strings.Builder
	for _, stream := range []string{DefaultStreams.Submissions, DefaultStreams.Tasks, DefaultStreams.Outcomes, DefaultStreams.Advisories} {
		st, err := js.Stream(ctx, stream)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", stream, err)
			continue
		}
		for info := range st.ListConsumers(ctx).Info() {
			fmt.Fprintf(&b, "%s/%s: pending %d, ack pending %d, redelivered %d, waiting pulls %d, delivered %d, ack floor %d\n",
				stream, info.Name, info.NumPending, info.NumAckPending, info.NumRedelivered, info.NumWaiting,
				info.Delivered.Stream, info.AckFloor.Stream)
		}
	}
	return b.String()
}

// readAll returns every message of a stream, in order.
func readAll(t testing.TB, js jetstream.JetStream, name string) []jetstream.Msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := streamCount(ctx, js, name)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return nil
	}
	c, err := js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var out []jetstream.Msg
	for uint64(len(out)) < n {
		batch, err := c.Fetch(int(n)-len(out), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			out = append(out, m)
		}
		if batch.Error() != nil {
			t.Fatal(batch.Error())
		}
	}
	return out
}

// checkDecisions checks that the decisions stream holds exactly one
// decision per task, each the in-process matcher's.
func checkDecisions(t *testing.T, js jetstream.JetStream, want map[string]string) {
	t.Helper()
	msgs := readAll(t, js, DefaultStreams.Decisions)
	if len(msgs) != len(want) {
		t.Errorf("%d decisions, want %d", len(msgs), len(want))
	}
	seen := map[string]int{}
	mismatches := 0
	for _, m := range msgs {
		d, err := wire.DecodeDecision(m.Data())
		if err != nil {
			t.Fatalf("decision: %v", err)
		}
		seen[d.TaskID]++
		if seen[d.TaskID] == 2 {
			t.Errorf("task %s decided twice", d.TaskID)
		}
		if a, ok := wire.ActionOfDecision(m.Subject()); !ok || a != string(d.Action) || !strings.HasSuffix(m.Subject(), "."+wire.TaskToken(d.TaskID)) {
			t.Errorf("task %s: %s decision on %s", d.TaskID, d.Action, m.Subject())
		}
		w, ok := want[d.TaskID]
		if !ok {
			t.Errorf("decision for unknown task %s", d.TaskID)
			continue
		}
		got, _ := json.Marshal(d.Decision)
		if string(got) != w && mismatches < 5 {
			mismatches++
			t.Errorf("task %s: pipeline decided\n  %s\nin-process:\n  %s", d.TaskID, got, w)
		}
		caller, _ := wire.CallerOfDecision(m.Subject())
		if d.DecisionID != wire.DecisionID(caller, d.TaskID) {
			t.Errorf("task %s: decision id %s", d.TaskID, d.DecisionID)
		}
	}
	for id := range want {
		if seen[id] == 0 {
			t.Errorf("task %s not decided", id)
			break
		}
	}
}

// embedded starts an in-process server with the streams and buckets of
// cfg and returns a JetStream client and a context, all closed at the end
// of the test.
func embedded(t *testing.T, cfg Config) (jetstream.JetStream, context.Context) {
	t.Helper()
	_, js, ctx := serve(t, 60*time.Second)
	if err := SetupStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	return js, ctx
}

// serve starts an in-process server and returns a connection to it, its
// JetStream client and a context with the timeout, all closed at the end
// of the test.
func serve(t *testing.T, timeout time.Duration) (*nats.Conn, jetstream.JetStream, context.Context) {
	t.Helper()
	srv := startServer(t, t.TempDir(), "")
	t.Cleanup(srv.Shutdown)
	nc, js := connectJS(t, srv)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return nc, js, ctx
}

// testStages are the four matching handlers over one matcher, called in
// process.
type testStages struct {
	snaps *Snapshots
	ex    *Extractor
	rt    *Retriever
	rr    *Reranker
	de    *Decider
}

func newTestStages(m *match.Matcher, cfg ...DeciderConfig) *testStages {
	snaps := NewSnapshots(m)
	var dc DeciderConfig
	if len(cfg) > 0 {
		dc = cfg[0]
	} else {
		dc.Ties = decide.DefaultTieConfig
	}
	return &testStages{snaps: snaps, ex: NewExtractor(nil), rt: NewRetriever(snaps), rr: NewReranker(snaps), de: NewDecider(snaps, dc)}
}

func (s *testStages) Extract(ctx context.Context, in Msg) (Result, error) {
	return s.ex.Handle(ctx, in)
}
func (s *testStages) Retrieve(ctx context.Context, in Msg) (Result, error) {
	return s.rt.Handle(ctx, in)
}
func (s *testStages) Rerank(ctx context.Context, in Msg) (Result, error) { return s.rr.Handle(ctx, in) }
func (s *testStages) Decide(ctx context.Context, in Msg) (Result, error) { return s.de.Handle(ctx, in) }
func (s *testStages) Fingerprint() string                                { return s.snaps.Fingerprint() }
