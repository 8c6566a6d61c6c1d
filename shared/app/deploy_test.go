package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// The five services against a real server started from deploy/nats (its
// cluster block aside), each as its own user: a caller's identity is its
// user, whatever its payload claims, and no caller reads another's
// decisions or replies.
func TestDeployedCallersAreIsolated(t *testing.T) {
	ns := startDeployServer(t)
	url := func(user string) string {
		return strings.Replace(ns.ClientURL(), "nats://", "nats://"+user+":"+user+"-secret@", 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The operator creates the streams.
	anc, ajs, err := pipeline.Connect(pipeline.ConnectConfig{URL: strings.Replace(url("skillmatch_admin"), "skillmatch_admin:", "admin:", 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer anc.Close()
	if err := pipeline.SetupStreams(ctx, ajs, pipeline.Config{}); err != nil {
		t.Fatal(err)
	}

	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, stage := range pipeline.StageNames {
		args := []string{"--nats", url(stage), "--inbox-prefix", "_INBOX_" + stage, "--log-level", "error",
			"--backoff", "2s", "--max-deliver", "3"}
		if pipeline.MatchingStages[stage] {
			args = append(args, "--cards", exampleDir())
		}
		if stage == pipeline.StageFeedback {
			// Refits run during the outcome flood below.
			args = append(args, "--refit-interval", "1s")
		}
		if stage == pipeline.StageExtractor || stage == pipeline.StageFeedback {
			// As docker-compose.yml runs them: the callers' directory.
			args = append(args, "--callers", filepath.Join("..", "..", "deploy", "callers.json"))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stderr bytes.Buffer
			if err := RunService(sctx, stage, args, &stderr, retrievalFor(stage)); err != nil {
				errs <- fmt.Errorf("%s: %w\n%s", stage, err, stderr.String())
			}
		}()
	}
	defer func() {
		stop()
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}()

	caller := func(name string) (*nats.Conn, jetstream.JetStream) {
		t.Helper()
		nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: url(name), InboxPrefix: "_INBOX_" + name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc, js
	}
	_, alice := caller("alice")
	bobNC, bob := caller("bob")

	// Alice submits as herself; then a task whose payload claims to be
	// bob, on her subject: it is decided as hers, on her subject.
	tk := &task.Task{ID: "iso-1", Caller: task.Caller{ID: "alice"},
		Message: task.Message{Parts: []task.Part{{Text: "how will the weather turn out in Lisbon tomorrow"}}}}
	a, err := pipeline.Submit(ctx, alice, pipeline.Streams{}, tk)
	if err != nil {
		select {
		case e := <-errs:
			t.Fatal(e)
		default:
		}
		t.Fatalf("alice's submit: %v", err)
	}
	if a.Decision == nil || a.Decision.Action != decide.Delegate {
		t.Fatalf("alice's decision: %+v", a)
	}
	// Her tenant comes from deploy/callers.json, not from her payload.
	if r := a.Decision.Request; r == nil || !strings.Contains(string(r.Body), `"tenant":"acme"`) {
		t.Errorf("alice's request does not carry her directory tenant: %+v", r)
	}
	claim := &task.Task{ID: "iso-claim", Caller: task.Caller{ID: "bob"},
		Message: task.Message{Parts: []task.Part{{Text: "how will the weather turn out in Lisbon tomorrow"}}}}
	sub, _ := wire.NewTaskSubmitted(claim, time.Now())
	data, _ := json.Marshal(sub)
	if _, err := alice.Publish(ctx, wire.SubjectSubmittedBy("alice"), data); err != nil {
		t.Fatal(err)
	}
	mine, err := alice.OrderedConsumer(ctx, pipeline.DefaultStreams.Decisions, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{wire.SubjectDecisionsOf("alice")}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for deadline := time.Now().Add(20 * time.Second); !found && time.Now().Before(deadline); {
		batch, err := mine.Fetch(10, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			if d, err := wire.DecodeDecision(m.Data()); err == nil && d.TaskID == "iso-claim" {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the task claiming to be bob was not decided on alice's subject")
	}

	// Bob cannot read alice's decisions: neither by subscribing nor
	// through a consumer filtered on her subject, nor her replies.
	denied := make(chan error, 4)
	bobNC.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { denied <- err })
	for _, subj := range []string{wire.SubjectDecisionsOf("alice"), "_INBOX_alice.>", "_INBOX.>"} {
		if _, err := bobNC.SubscribeSync(subj); err != nil {
			t.Fatal(err)
		}
		_ = bobNC.Flush()
		select {
		case err := <-denied:
			if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
				t.Errorf("subscribe %s: %v", subj, err)
			}
		case <-time.After(2 * time.Second):
			t.Errorf("bob subscribed to %s", subj)
		}
	}
	cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
	defer ccancel()
	if c, err := bob.OrderedConsumer(cctx, pipeline.DefaultStreams.Decisions, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{wire.SubjectDecisionsOf("alice")}}); err == nil {
		if _, err := c.Fetch(1, jetstream.FetchMaxWait(time.Second)); err == nil {
			t.Error("bob read alice's decisions through a consumer")
		}
	}
	// Nor publish as alice.
	if _, err := bob.Publish(cctx, wire.SubjectSubmittedBy("alice"), []byte(`{"id":"x","message":{"parts":[{"text":"hi"}]}}`)); err == nil {
		t.Error("bob published on alice's subject")
	} else if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrNoResponders) && !strings.Contains(strings.ToLower(err.Error()), "permission") {
		t.Logf("bob's publish as alice: %v", err)
	}
	// Bob's own task works under his permissions, dead letters included.
	b, err := pipeline.Submit(ctx, bob, pipeline.Streams{}, &task.Task{ID: "iso-2", Caller: task.Caller{ID: "bob"},
		Message: task.Message{Parts: []task.Part{{Text: "write me a poem about cats"}}}})
	if err != nil || b.Decision == nil {
		t.Fatalf("bob's submit: %+v %v", b, err)
	}

	// Alice reusing her id for another task gets her dead letter through
	// submit, under her permissions, with the reason.
	reuse, err := pipeline.Submit(ctx, alice, pipeline.Streams{}, &task.Task{ID: "iso-1", Caller: task.Caller{ID: "alice"},
		Message: task.Message{Parts: []task.Part{{Text: "translate this contract to German"}}}})
	if err != nil || reuse.DeadLetter == nil || !strings.Contains(reuse.DeadLetter.Reason, pipeline.ErrTaskIDReused.Error()) {
		t.Fatalf("alice's reused id: %+v %v", reuse, err)
	}
	// Callers cannot publish the stages' messages (nor so set their
	// message ids), and the extractor reads no stage's stream.
	pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
	if _, err := bob.Publish(pctx, wire.SubjectExtracted, []byte(`{}`), jetstream.WithMsgID("alice/iso-9/extracted")); err == nil {
		t.Error("bob published a stage message")
	}
	pcancel()
	_, exjs := caller("extractor")
	xctx, xcancel := context.WithTimeout(ctx, 3*time.Second)
	if cons, err := exjs.OrderedConsumer(xctx, pipeline.DefaultStreams.Tasks, jetstream.OrderedConsumerConfig{}); err == nil {
		if batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second)); err == nil {
			for range batch.Messages() {
				t.Error("the extractor read the tasks stream")
			}
		}
	}
	xcancel()

	// Bob reads none of alice's submissions, dead letters, or the stages'
	// messages about her tasks, through any consumer.
	for _, c := range []struct{ stream, filter string }{
		{pipeline.DefaultStreams.Submissions, wire.SubjectSubmittedBy("alice")},
		{pipeline.DefaultStreams.DeadLetters, wire.SubjectDeadLetterPrefix + "*.alice.>"},
		{pipeline.DefaultStreams.DeadLetters, wire.SubjectDeadLetterPrefix + "*.alice"},
		{pipeline.DefaultStreams.Tasks, wire.SubjectExtracted},
		{pipeline.DefaultStreams.Decisions, wire.SubjectDecisionPrefix + ">"},
	} {
		cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
		if cons, err := bob.OrderedConsumer(cctx, c.stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{c.filter}}); err == nil {
			if batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second)); err == nil {
				for range batch.Messages() {
					t.Errorf("bob read %s on %s", c.filter, c.stream)
				}
			}
		}
		ccancel()
	}

	// Bob floods 10,000 forged outcomes (for alice's decision, and for
	// decisions that never were) while the feedback stage refits every
	// second: no calibration is published and alice's decisions do not
	// move.
	first := a.Decision
	for i := range 10_000 {
		o := wire.Outcome{V: wire.Version, DecisionID: first.DecisionID, TaskID: "iso-1", Skill: first.Chosen.Key, Success: false, RightSkill: "none"}
		if i%2 == 1 {
			o.DecisionID, o.TaskID = wire.DecisionID("bob", fmt.Sprintf("forged-%d", i)), fmt.Sprintf("forged-%d", i)
		}
		data, _ := json.Marshal(o)
		// A generous stall wait: on a loaded 2-core machine the server may
		// fall behind 4,000 pending publishes for longer than the default.
		if _, err := bob.PublishAsync(wire.SubjectOutcomeBy("bob"), data, jetstream.WithStallWait(30*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-bob.PublishAsyncComplete():
	case <-time.After(30 * time.Second):
		t.Fatal("flood not published")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		c, err := ajs.Consumer(ctx, pipeline.DefaultStreams.Outcomes, pipeline.StageFeedback)
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(ctx)
		if err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flood was not handled: %+v", info)
		}
	}
	time.Sleep(1500 * time.Millisecond) // one more refit
	mkv, err := pipeline.ModelKV(ctx, ajs, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mkv.Get(ctx, wire.ModelKeyCalibration); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("a calibration was published after the flood: %v", err)
	}
	after, err := pipeline.Submit(ctx, alice, pipeline.Streams{}, &task.Task{ID: "iso-3", Caller: task.Caller{ID: "alice"},
		Message: task.Message{Parts: []task.Part{{Text: "how will the weather turn out in Lisbon tomorrow"}}}})
	if err != nil || after.Decision == nil || after.Decision.Chosen == nil || after.Decision.Chosen.Key != first.Chosen.Key ||
		after.Decision.Probability != first.Probability {
		t.Errorf("alice's decision after the flood: %+v %v, before %+v", after, err, first.Decision)
	}
	// Alice, trusted in deploy/callers.json, reports her delegation a
	// success: the feedback stage, as its own user, makes her task an
	// example of the skill; bob's flood made none.
	won, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: first.DecisionID, TaskID: "iso-1", Skill: first.Chosen.Key, Success: true})
	if _, err := alice.Publish(ctx, wire.SubjectOutcomeBy("alice"), won); err != nil {
		t.Fatal(err)
	}
	ekv, err := pipeline.ExamplesKV(ctx, ajs, "")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ex, _, err := pipeline.NewExamples(ekv, "", 0).List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := ex[first.Chosen.Key]; len(got) == 1 && got[0] == "how will the weather turn out in Lisbon tomorrow" && len(ex) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("learned examples after alice's success: %v", ex)
		}
	}
	// The front door as its own user: alice asks over request-reply as
	// herself, bob over A2A with his token; each gets a decision as
	// itself.
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	sum := sha256.Sum256([]byte("bob-a2a-token"))
	if err := os.WriteFile(tokens, []byte(`{"tokens": {"`+hex.EncodeToString(sum[:])+`": "bob"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	fs, ff := NewFrontDoorFlags(io.Discard)
	if err := fs.Parse([]string{"--nats", url("frontdoor"), "--inbox-prefix", "_INBOX_frontdoor", "--log-level", "error",
		"--a2a-listen", addr, "--a2a-tokens", tokens}); err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		var stderr bytes.Buffer
		if err := RunFrontDoor(sctx, ff, &stderr); err != nil {
			errs <- fmt.Errorf("frontdoor: %w\n%s", err, stderr.String())
		}
	}()
	aliceNC, _ := caller("alice")
	var reply *nats.Msg
	for deadline := time.Now().Add(10 * time.Second); ; {
		reply, err = aliceNC.Request(SubjectMatch+".alice", []byte(`{"id":"fd-1","caller":{"id":"bob"},"message":{"parts":[{"text":"weather in Lisbon tomorrow"}]}}`), 15*time.Second)
		if !errors.Is(err, nats.ErrNoResponders) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("alice's request: %v", err)
	}
	if d, err := wire.DecodeDecision(reply.Data); err != nil || d.DecisionID != wire.DecisionID("alice", "fd-1") {
		t.Errorf("alice's request-reply: %s %v", reply.Data, err)
	}
	if _, err := aliceNC.Request(SubjectMatch+".bob", []byte(`{"id":"fd-2","message":{"parts":[{"text":"hi"}]}}`), 2*time.Second); err == nil {
		t.Error("alice asked as bob")
	}
	card, err := agentcard.DefaultResolver.Resolve(ctx, "http://"+addr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a2aClient(ctx, t, card, a2a.TransportProtocolJSONRPC, "bob-a2a-token").SendMessage(ctx, sendTask("fd-3", "weather in Lisbon tomorrow"))
	if err != nil {
		t.Fatalf("bob over A2A: %v", err)
	}
	if d := decisionOf(t, res); d["decisionId"] != wire.DecisionID("bob", "fd-3") {
		t.Errorf("bob over A2A: %v", d)
	}
}

// `run --auth FILE` requires credentials: a client without them is
// refused, a caller of the file submits as itself, and the stages (this
// process's own user) run as before.
func TestRunWithAuth(t *testing.T) {
	setDeployPasswords(t)
	r, ctx := startTestRun(t, "--auth", filepath.Join("..", "..", "deploy", "nats", "accounts.conf"))
	if nc, err := nats.Connect(r.ClientURL, nats.Timeout(2*time.Second)); err == nil {
		nc.Close()
		t.Fatal("a client without credentials connected")
	}
	authed := strings.Replace(r.ClientURL, "nats://", "nats://alice:alice-secret@", 1)
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: authed, InboxPrefix: "_INBOX_alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, &task.Task{ID: "auth-1", Caller: task.Caller{ID: "alice"},
		Message: task.Message{Parts: []task.Part{{Text: "how will the weather turn out in Lisbon tomorrow"}}}})
	if err != nil || a.Decision == nil || a.Decision.Action != decide.Delegate {
		t.Fatalf("alice's submit: %+v %v", a, err)
	}
}

// `run --sync-always` fsyncs every write and group-commits the deciders'
// writes: tasks submitted at the same time through a group-committing
// client are each decided.
func TestRunSyncAlways(t *testing.T) {
	r, ctx := startTestRun(t, "--sync-always")
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: r.ClientURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := client.New(js, client.WithGroupCommit())
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := c.Submit(ctx, &task.Task{ID: fmt.Sprintf("sync-%d", i),
				Message: task.Message{Parts: []task.Part{{Text: "translate this paragraph into German"}}}})
			if err != nil || a.Decision == nil {
				t.Errorf("sync-%d: %+v %v", i, a, err)
			}
		}()
	}
	wg.Wait()
	// The NATS front door submits grouped too (run --sync-always implies
	// it): requests that arrive together are each answered with their own
	// decision.
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("door-%d", i)
			reply, err := nc.Request(SubjectMatch, []byte(`{"id":"`+id+`","message":{"parts":[{"text":"translate this paragraph into German"}]}}`), 30*time.Second)
			if err != nil {
				t.Errorf("%s: %v", id, err)
				return
			}
			if d, err := wire.DecodeDecision(reply.Data); err != nil || d.TaskID != id || d.Action == "" {
				t.Errorf("%s: reply %s: %v", id, reply.Data, err)
			}
		}()
	}
	wg.Wait()
}

// `run --health-listen` serves Prometheus metrics beside the probes: the
// decision counter moves after a submit.
func TestRunMetrics(t *testing.T) {
	r, ctx := startTestRun(t, "--health-listen", "127.0.0.1:0")
	scrape := func() string {
		t.Helper()
		resp, err := http.Get("http://" + r.HealthAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	if strings.Contains(scrape(), `skillmatch_decisions_total{action="delegate"}`) {
		t.Fatal("a delegation counted before any task")
	}
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: r.ClientURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, &task.Task{ID: "m-1",
		Message: task.Message{Parts: []task.Part{{Text: "how will the weather turn out in Lisbon tomorrow"}}}})
	if err != nil || a.Decision == nil || a.Decision.Action != decide.Delegate {
		t.Fatalf("submit: %+v %v", a, err)
	}
	// The decider counts a decision once its handler returns, which can
	// be just after the submitter has read the stored decision: the
	// scrape waits for it (a few seconds at most).
	wants := []string{`skillmatch_decisions_total{action="delegate"} 1`, `skillmatch_stage_handled_total{result="ok",stage="extractor"} 1`,
		`skillmatch_stage_handled_total{result="ok",stage="decider"} 1`,
		"skillmatch_stage_seconds_bucket", "skillmatch_catalog_skills 60", "skillmatch_stages_holding 0"}
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		body = scrape()
		missing := slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(body, w) })
		if !missing || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q in\n%s", want, grepLines(body, "skillmatch_"))
		}
	}
}

// grepLines keeps the lines of s that start with prefix.
func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// `nats req skillmatch.match '<task>'` answers with the decision; a bad
// task gets a service error naming what is wrong.
func TestRunRequestReply(t *testing.T) {
	r, _ := startTestRun(t)
	nc, err := nats.Connect(r.ClientURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	reply, err := nc.Request(SubjectMatch, []byte(`{"id":"t-1","message":{"parts":[{"text":"book me a hotel in Lisbon"}]}}`), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	d, err := wire.DecodeDecision(reply.Data)
	if err != nil || d.TaskID != "t-1" || d.Action == "" {
		t.Fatalf("reply %s: %v", reply.Data, err)
	}
	// As a caller: the decision is that caller's.
	reply, err = nc.Request(SubjectMatch+".alice", []byte(`{"id":"t-2","caller":{"id":"bob"},"message":{"parts":[{"text":"book me a hotel in Lisbon"}]}}`), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := wire.DecodeDecision(reply.Data); err != nil || d.DecisionID != wire.DecisionID("alice", "t-2") {
		t.Fatalf("as alice: %s %v", reply.Data, err)
	}
	reply, err = nc.Request(SubjectMatch, []byte(`{"id":"bad id!","message":{"parts":[{"text":"x"}]}}`), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Header.Get("Nats-Service-Error-Code") != "400" || !strings.Contains(reply.Header.Get("Nats-Service-Error"), "id") {
		t.Errorf("bad task: headers %v, body %s", reply.Header, reply.Data)
	}
}

// `run --otlp-endpoint` exports the stages' spans to an OTLP/HTTP
// collector (here a loopback stand-in that counts what it receives).
func TestRunExportsTraces(t *testing.T) {
	var mu sync.Mutex
	var posts, bytesIn int
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts++
			bytesIn += len(body)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	r, ctx := startTestRun(t, "--otlp-endpoint", collector.URL+"/v1/traces")
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: r.ClientURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, &task.Task{ID: "tr-1",
		Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon"}}}}); err != nil || a.Decision == nil {
		t.Fatalf("submit: %+v %v", a, err)
	}
	r.Stop() // flushes the spans
	mu.Lock()
	defer mu.Unlock()
	if posts == 0 || bytesIn == 0 {
		t.Errorf("the collector got %d exports (%d bytes)", posts, bytesIn)
	}
}

// startTestRun starts `skillmatch run` on a free port with the example
// catalog and the extra flags; it stops with the test.
func startTestRun(t *testing.T, extra ...string) (*Running, context.Context) {
	t.Helper()
	fs, rf := NewRunFlags(io.Discard)
	rf.Matcher.Retrieval = memoryRetrieval{}
	args := append([]string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--cards", exampleDir()}, extra...)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	r, err := StartRun(ctx, rf, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r, ctx
}

// setDeployPasswords gives every user of deploy/nats/accounts.conf a
// password from the environment, as the deployment does: "<user>-secret".
func setDeployPasswords(t *testing.T) {
	t.Helper()
	for _, u := range []string{"SKILLMATCH_ADMIN", "ALICE", "BOB", "EXTRACTOR", "RETRIEVER", "RERANKER", "DECIDER", "FEEDBACK", "CONSOLE", "FRONTDOOR"} {
		t.Setenv(u+"_PASSWORD", strings.ToLower(u)+"-secret")
	}
}

// startDeployServer starts a nats-server from deploy/nats (cluster block
// aside) on loopback with a store of the test's own; it stops with the test.
func startDeployServer(t *testing.T) *server.Server {
	t.Helper()
	setDeployPasswords(t)
	t.Setenv("SERVER_NAME", "nats-test")
	opts, err := server.ProcessConfigFile(filepath.Join("..", "..", "deploy", "nats", "nats.conf"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", -1, 0
	opts.Cluster.Port, opts.Routes, opts.Cluster.Name = 0, nil, ""
	opts.StoreDir = t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	opts.SyncAlways = false // the test's own disk; the file's setting is checked by TestDeployConfig
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	return ns
}
