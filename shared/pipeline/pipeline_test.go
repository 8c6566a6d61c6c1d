package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// The stage functions chained in process decide what Matcher.Match does.
func TestStagesChainedEqualMatch(t *testing.T) {
	m := testMatcher(t)
	// No exploration (the default explores among near-ties) and no
	// posteriors: the decider orders as the policy does.
	s := newTestStages(m, DeciderConfig{Ties: decide.TieConfig{Epsilon: decide.DefaultTieConfig.Epsilon}})
	tasks := genTasks(m, 200, 1)
	want := expected(t, m, tasks)
	ctx := context.Background()
	actions := map[decide.Action]int{}
	for _, tk := range tasks {
		sub, _ := wire.NewTaskSubmitted(tk, time.Now())
		data, _ := json.Marshal(sub)
		in := Msg{Subject: wire.SubjectSubmitted, Data: data}
		for _, step := range []Handler{s.Extract, s.Retrieve, s.Rerank, s.Decide} {
			res, err := step(ctx, in)
			if err != nil {
				t.Fatalf("task %s: %v", tk.ID, err)
			}
			if res.TaskID != tk.ID || len(res.Out) != 1 {
				t.Fatalf("task %s: result %+v", tk.ID, res)
			}
			in = Msg{Subject: res.Out[0].Subject, Data: res.Out[0].Data}
		}
		d, err := wire.DecodeDecision(in.Data)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(d.Decision)
		if string(got) != want[tk.ID] {
			t.Errorf("task %s:\n got %s\nwant %s", tk.ID, got, want[tk.ID])
		}
		actions[d.Action]++
		switch {
		case d.Action == decide.Delegate:
			if d.Request == nil || d.Request.URL == "" || len(d.Request.Body) == 0 {
				t.Errorf("task %s: delegation without a request: %+v", tk.ID, d.Request)
			}
		case d.Request != nil:
			t.Errorf("task %s: %s with a request", tk.ID, d.Action)
		case d.Action == decide.Plan && len(d.StepRequests) != len(d.Steps):
			t.Errorf("task %s: plan of %d steps with %d requests", tk.ID, len(d.Steps), len(d.StepRequests))
		}
	}
	// Which actions occur depends on the model the lead is tuning; the
	// delegation path is covered by TestDecideDelegation whatever it is.
	t.Logf("actions over %d tasks: %v", len(tasks), actions)
}

// A clear winner is delegated with a ready A2A request for the agent's
// first interface; the decision is the policy's on the same options.
func TestDecideDelegation(t *testing.T) {
	m := testMatcher(t)
	s := newTestStages(m)
	raw := json.RawMessage(`{"id":"d-1","message":{"contextId":"c-9","parts":[{"text":"book me on the 7am to Frankfurt"}]},"caller":{"scopes":null,"tenant":"acme"},"constraints":{}}`)
	opts := []decide.Option{
		{Key: "travel-concierge/book-hotel", AgentID: "travel-concierge", SkillID: "book-hotel", Score: 4, Prob: 0.3},
		{Key: "travel-concierge/book-flight", AgentID: "travel-concierge", SkillID: "book-flight", Score: 9, Prob: 0.93},
		{Key: "world-info/time-zones", AgentID: "world-info", SkillID: "time-zones", Score: 1, Prob: 0.05},
	}
	in, _ := json.Marshal(wire.Ranked{V: wire.Version, TaskID: "d-1", Task: raw, Catalog: s.Fingerprint(), Candidates: opts})
	res, err := s.Decide(context.Background(), Msg{Data: in})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Out) != 1 || res.Out[0].Subject != "skillmatch.decision._.delegate.ZC0x" || res.Out[0].MsgID != "_/d-1/decision" {
		t.Fatalf("outputs %+v", res.Out)
	}
	d, err := wire.DecodeDecision(res.Out[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Policy()
	sorted := append([]decide.Option(nil), opts...)
	p.Order(sorted)
	if want := p.Decide(sorted); !reflectEqualJSON(d.Decision, want) {
		t.Errorf("decision %+v, want %+v", d.Decision, want)
	}
	if d.Chosen == nil || d.Chosen.SkillID != "book-flight" || len(d.Fallbacks) != 1 {
		t.Fatalf("decision %+v", d.Decision)
	}
	r := d.Request
	if r == nil || r.URL != "https://agents.example.com/travel/concierge/v1/message:send" || r.ProtocolBinding != "HTTP+JSON" || r.Method != "POST" {
		t.Fatalf("request %+v", r)
	}
	var body struct {
		Tenant  string `json:"tenant"`
		Message struct {
			ContextID string           `json:"contextId"`
			Role      string           `json:"role"`
			Parts     []map[string]any `json:"parts"`
		} `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Tenant != "acme" || body.Message.ContextID != "c-9" || body.Message.Role != "ROLE_USER" ||
		len(body.Message.Parts) != 1 || body.Message.Parts[0]["text"] != "book me on the 7am to Frankfurt" {
		t.Errorf("body %s", r.Body)
	}
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// The decider checks the hard filters again on what it would send: a
// ranking that names a skill the filters remove for this task (here an
// external agent for restricted data), as chosen skill or as fallback, is
// bad input, never a delegation.
func TestDecideRechecksHardFilters(t *testing.T) {
	m := testMatcher(t)
	s := newTestStages(m)
	weather := decide.Option{Key: "world-info/weather-forecast", AgentID: "world-info", SkillID: "weather-forecast", Score: 9.5, Prob: 0.99}
	flight := decide.Option{Key: "travel-concierge/book-flight", AgentID: "travel-concierge", SkillID: "book-flight", Score: 9.4, Prob: 0.97}
	ghost := decide.Option{Key: "nobody/nothing", AgentID: "nobody", SkillID: "nothing", Score: 9.6, Prob: 0.995}
	cases := []struct {
		name      string
		dataClass string
		opts      []decide.Option
		want      string // "" for a delegation
	}{
		{"external agent for restricted data", "restricted", []decide.Option{weather}, "world-info/weather-forecast"},
		{"external agent as fallback", "restricted", []decide.Option{flight, weather}, "world-info/weather-forecast"},
		{"agent not in the catalog", "", []decide.Option{ghost}, "not in the catalog"},
		{"public data may go out", "public", []decide.Option{weather}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := `{"id":"rf","message":{"parts":[{"text":"weather in Lisbon"}]},"caller":{"dataClass":"` + tc.dataClass + `"}}`
			if tc.dataClass == "" {
				raw = `{"id":"rf","message":{"parts":[{"text":"weather in Lisbon"}]}}`
			}
			in, _ := json.Marshal(wire.Ranked{V: wire.Version, TaskID: "rf", Task: json.RawMessage(raw), Catalog: s.Fingerprint(), Candidates: tc.opts})
			res, err := s.Decide(context.Background(), Msg{Data: in})
			if tc.want == "" {
				if err != nil || len(res.Out) != 1 {
					t.Fatalf("err %v, outputs %d", err, len(res.Out))
				}
				return
			}
			if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), tc.want) || len(res.Out) != 0 {
				t.Fatalf("err %v, outputs %d; want bad input naming %q and nothing published", err, len(res.Out), tc.want)
			}
			if res.TaskID != "rf" {
				t.Errorf("task id %q lost", res.TaskID)
			}
		})
	}
}

func TestStagesBadInput(t *testing.T) {
	m := testMatcher(t)
	s := newTestStages(m)
	ctx := context.Background()
	big := `{"id":"big","message":{"parts":[{"text":"` + strings.Repeat("a", 300<<10) + `"}]}}`
	cases := []struct {
		name   string
		h      Handler
		data   string
		taskID string
		reason string
	}{
		{"not json", s.Extract, `{"id":`, "", "bad message"},
		{"no id", s.Extract, `{"message":{"parts":[{"text":"hi"}]}}`, "", "id"},
		{"invalid id", s.Extract, `{"id":"bad id!","message":{"parts":[{"text":"hi"}]}}`, "bad id!", "id"},
		{"control in id", s.Extract, `{"id":"bad\u0007","message":{"parts":[{"text":"hi"}]}}`, "", "id"},
		{"oversized", s.Extract, big, "big", "limit"},
		{"too much text", s.Extract, `{"id":"long","message":{"parts":[{"text":"` + strings.Repeat("a ", 9000) + `"}]}}`, "long", "limit"},
		{"version 2", s.Extract, `{"v":2,"task":{"id":"v2","message":{"parts":[{"text":"hi"}]}}}`, "", "version"},
		{"bad scope", s.Extract, `{"id":"sc","message":{"parts":[{"text":"hi"}]},"caller":{"scopes":[""]}}`, "sc", "scope"},
		{"extracted garbage", s.Retrieve, `{"v":1}`, "", "taskId"},
		{"shortlisted bad doc", s.Rerank, fmt.Sprintf(`{"v":1,"taskId":"x","catalog":%q,"shortlist":{"keys":["a/b"],"retrieval":%s}}`, s.Fingerprint(),
			mustMarshal(t, &wire.Retrieval{Candidates: []index.Candidate{{Doc: 99999}}})), "x", "outside"},
		{"ranked wrong version", s.Decide, `{"v":7,"taskId":"x"}`, "", "version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.h(ctx, Msg{Data: []byte(c.data)})
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("err = %v, want ErrBadInput", err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Errorf("reason %q does not mention %q", err, c.reason)
			}
			if res.TaskID != c.taskID {
				t.Errorf("task id %q, want %q", res.TaskID, c.taskID)
			}
		})
	}
	// A shortlist or ranking over another catalog is transient, not bad
	// input.
	_, err := s.Rerank(ctx, Msg{Data: []byte(`{"v":1,"taskId":"x","catalog":"other","shortlist":{}}`)})
	if !errors.Is(err, ErrCatalogMismatch) || errors.Is(err, ErrBadInput) {
		t.Errorf("rerank catalog mismatch: %v", err)
	}
	_, err = s.Decide(ctx, Msg{Data: []byte(`{"v":1,"taskId":"x","catalog":"other","candidates":[]}`)})
	if !errors.Is(err, ErrCatalogMismatch) || errors.Is(err, ErrBadInput) {
		t.Errorf("decide catalog mismatch: %v", err)
	}
}

// 1,000 tasks through the embedded pipeline: exactly 1,000 decisions, none
// duplicated, each the in-process matcher's.
func TestPipelineThousandTasks(t *testing.T) {
	m := testMatcher(t)
	tasks := genTasks(m, 1000, 2)
	want := expected(t, m, tasks)
	_, js, ctx := serve(t, 60*time.Second)
	g, err := StartAll(ctx, js, NewSnapshots(m), testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	start := time.Now()
	publishTasks(ctx, t, js, tasks)
	// Publishing the same tasks again is deduplicated by Nats-Msg-Id.
	for _, tk := range tasks[:50] {
		if dup, err := Publish(ctx, js, tk); err != nil || !dup {
			t.Fatalf("republish %s: dup=%v err=%v", tk.ID, dup, err)
		}
	}
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), 40*time.Second)
	t.Logf("1,000 tasks decided in %v", time.Since(start))
	time.Sleep(200 * time.Millisecond) // room for a stray duplicate to show up
	checkDecisions(t, js, want)
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
}

// Malformed and oversized tasks land on the dead letters with a reason and
// their payload; the valid tasks around them are decided.
func TestPipelineDeadLetters(t *testing.T) {
	m := testMatcher(t)
	tasks := genTasks(m, 80, 3)
	want := expected(t, m, tasks)
	_, js, ctx := serve(t, 30*time.Second)
	snaps := NewSnapshots(m)
	g, err := StartAll(ctx, js, snaps, testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	// A ranking no retriever made: restricted data to an external agent.
	forged := `{"v":1,"taskId":"forged","catalog":"` + snaps.Fingerprint() + `","task":{"id":"forged","message":{"parts":[{"text":"weather in Lisbon"}]},"caller":{"dataClass":"restricted"}},` +
		`"candidates":[{"key":"world-info/weather-forecast","agentId":"world-info","skillId":"weather-forecast","score":9.5,"prob":0.99}]}`
	bad := []struct {
		subject, data, stage, reason string
	}{
		{wire.SubjectSubmitted, `{"id": "broken`, StageExtractor, "bad message"},
		{wire.SubjectSubmitted, `{"id":"huge","message":{"parts":[{"text":"` + strings.Repeat("x", 300<<10) + `"}]}}`, StageExtractor, "the limit is"},
		{wire.SubjectSubmitted, `{"v":1,"task":{"id":"empty","message":{"parts":[{"text":"   "}]}}}`, StageExtractor, "no part with text"},
		{wire.SubjectSubmitted, `{"v":9,"task":{"id":"future","message":{"parts":[{"text":"hi"}]}}}`, StageExtractor, "unsupported version"},
		{wire.SubjectRanked, `{"v":1,"candidates":[]}`, StageDecider, "no taskId"},
		{wire.SubjectRanked, forged, StageDecider, "fails the hard filters: world-info/weather-forecast"},
		{wire.SubjectOutcome, `{"v":1,"skill":"a/b"}`, StageFeedback, "no decisionId"},
		{wire.SubjectOutcome, `{"v":1,"decisionId":"d","skill":"a/b","success":true,"cost":-1}`, StageFeedback, "bad outcome"},
	}
	for i, tk := range tasks {
		publishTasks(ctx, t, js, tasks[i:i+1])
		if i%10 == 5 && i/10 < len(bad) {
			b := bad[i/10]
			if _, err := js.Publish(ctx, b.subject, []byte(b.data)); err != nil {
				t.Fatal(err)
			}
		}
		_ = tk
	}
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), 20*time.Second)
	waitCount(t, js, DefaultStreams.DeadLetters, uint64(len(bad)), 20*time.Second)
	time.Sleep(200 * time.Millisecond)
	checkDecisions(t, js, want)
	dls := readAll(t, js, DefaultStreams.DeadLetters)
	if len(dls) != len(bad) {
		t.Fatalf("%d dead letters, want %d", len(dls), len(bad))
	}
	// Stages run concurrently: find each dead letter's input by payload.
	for i, msg := range dls {
		d, err := wire.DecodeDeadLetter(msg.Data())
		if err != nil {
			t.Fatal(err)
		}
		var b struct{ subject, data, stage, reason string }
		for _, c := range bad {
			if c.data == string(d.Payload) {
				b = c
			}
		}
		if d.Stage != b.stage || msg.Subject() != wire.SubjectDeadLetter(b.stage, "", d.TaskID) || d.Subject != b.subject {
			t.Errorf("dead letter %d: stage %s on %s for %s, want %s for %s", i, d.Stage, msg.Subject(), d.Subject, b.stage, b.subject)
		}
		if !strings.Contains(d.Reason, b.reason) {
			t.Errorf("dead letter %d: reason %q, want it to mention %q", i, d.Reason, b.reason)
		}
		if !bytes.Equal(d.Payload, []byte(b.data)) || d.PayloadSize != len(b.data) {
			t.Errorf("dead letter %d: payload of %d bytes, want the original %d", i, len(d.Payload), len(b.data))
		}
		if d.StreamSeq == 0 || d.Stream != DefaultStreams.Submissions && d.Stream != DefaultStreams.Tasks && d.Stream != DefaultStreams.Outcomes {
			t.Errorf("dead letter %d: stream %s seq %d", i, d.Stream, d.StreamSeq)
		}
	}
}

// A message whose handler keeps failing is retried MaxDeliver times, then
// reaches the dead letters through the max-deliveries advisory, with the
// original payload fetched from the stream.
func TestPipelineMaxDeliveries(t *testing.T) {
	_, js, ctx := serve(t, 30*time.Second)
	cfg := testConfig(t)
	cfg.MaxDeliver, cfg.BackOff, cfg.Retry = 3, []time.Duration{150 * time.Millisecond, 150 * time.Millisecond}, 30*time.Millisecond
	if err := SetupStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(js, cfg)
	calls := 0
	flaky, err := r.Start(ctx, Stage{Name: "flaky", Stream: DefaultStreams.Tasks, Filter: wire.SubjectExtracted,
		Handle: func(_ context.Context, in Msg) (Result, error) {
			calls++
			return Result{TaskID: "f-1"}, errors.New("backend down")
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer flaky.Stop()
	dl, err := r.Start(ctx, r.DeadLetterStage())
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Stop()
	payload := `{"v":1,"taskId":"f-1"}`
	if _, err := js.Publish(ctx, wire.SubjectExtracted, []byte(payload)); err != nil {
		t.Fatal(err)
	}
	waitCount(t, js, DefaultStreams.DeadLetters, 1, 15*time.Second)
	msgs := readAll(t, js, DefaultStreams.DeadLetters)
	d, err := wire.DecodeDeadLetter(msgs[0].Data())
	if err != nil {
		t.Fatal(err)
	}
	if d.Stage != "flaky" || d.TaskID != "f-1" || string(d.Payload) != payload || d.Deliveries != 3 ||
		!strings.Contains(d.Reason, "3 deliveries") || d.Subject != wire.SubjectExtracted {
		t.Errorf("dead letter %+v (payload %s)", d, d.Payload)
	}
	if msgs[0].Subject() != wire.SubjectDeadLetter("flaky", "", "f-1") || !strings.HasSuffix(msgs[0].Subject(), ".Zi0x") {
		t.Errorf("on %s", msgs[0].Subject())
	}
	flaky.Stop()
	if calls < 3 {
		t.Errorf("handler ran %d times, want at least 3 (one per delivery)", calls)
	}
}

// Submit publishes a task and returns its decision; a malformed task comes
// back as its dead letter; a second submit of the same id finds the first
// answer.
func TestSubmit(t *testing.T) {
	m := testMatcher(t)
	_, js, ctx := serve(t, 30*time.Second)
	g, err := StartAll(ctx, js, NewSnapshots(m), testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	tk := &task.Task{ID: "s-1", Message: task.Message{Parts: []task.Part{{Text: "book a flight from Berlin to Lisbon on Friday"}}}}
	a, err := Submit(ctx, js, Streams{}, tk)
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision == nil || a.Decision.TaskID != "s-1" {
		t.Fatalf("answer %+v", a)
	}
	again, err := Submit(ctx, js, Streams{}, tk)
	if err != nil || again.Decision == nil || again.Decision.DecisionID != a.Decision.DecisionID {
		t.Fatalf("resubmit: %+v, %v", again, err)
	}
	bad := &task.Task{ID: "s-2", Message: task.Message{Parts: []task.Part{{Text: "hi"}}}, Caller: task.Caller{Scopes: []string{""}}}
	a, err = Submit(ctx, js, Streams{}, bad)
	if err != nil {
		t.Fatal(err)
	}
	if a.DeadLetter == nil || !strings.Contains(a.DeadLetter.Reason, "scope") {
		t.Fatalf("bad task answer %+v", a)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
