package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func decisionMsg(t *testing.T, i int, action decide.Action) []byte {
	t.Helper()
	d := wire.Decision{V: wire.Version, TaskID: fmt.Sprintf("t-%d", i), DecisionID: fmt.Sprintf("d-%d", i),
		Decision: decide.Decision{Action: action, Probability: 0.5, Reason: strings.Repeat("r", 300)},
		Top:      &decide.Option{Key: "a/s", AgentID: "a", SkillID: "s", Score: 5, Prob: 0.5}}
	data, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The tail starts from the stream's last `keep` decisions, follows new
// ones, filters, and passes new ones to subscribers.
func TestTail(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pipeline.SetupStreams(ctx, js, pipeline.Config{}); err != nil {
		t.Fatal(err)
	}
	pub := func(i int, caller string, a decide.Action) {
		if _, err := js.Publish(ctx, wire.SubjectDecision(caller, string(a), fmt.Sprintf("t-%d", i)), decisionMsg(t, i, a)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		pub(i, "alice", decide.Abstain)
	}
	if _, err := js.Publish(ctx, wire.SubjectDecision("alice", "abstain", "junk"), []byte("not a decision")); err != nil {
		t.Fatal(err)
	}
	tail, err := StartTail(ctx, js, "DECISIONS", 10, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Stop()
	waitSeq := func(seq uint64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); tail.LastSeq() < seq; {
			if time.Now().After(deadline) {
				t.Fatalf("tail at %d, want %d", tail.LastSeq(), seq)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitSeq(30)
	got, n := tail.Latest(Filter{}, 5)
	if n != 9 || len(got) != 5 || got[0].TaskID != "t-29" || got[4].TaskID != "t-25" {
		t.Fatalf("latest: %d kept (want the last 10 messages, 9 of them decisions), %+v", n, got)
	}
	if s := got[0]; s.Caller != "alice" || s.Agent != "a" || s.TopKey != "a/s" || len(s.Reason) > maxReason+len("…") {
		t.Errorf("summary %+v", s)
	}
	ch, unsub := tail.Subscribe()
	defer unsub()
	pub(100, "bob", decide.Delegate)
	select {
	case s := <-ch:
		if s.TaskID != "t-100" || s.Caller != "bob" || s.Action != "delegate" {
			t.Errorf("pushed %+v", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no decision pushed")
	}
	for _, c := range []struct {
		f    Filter
		want int
	}{{Filter{Caller: "bob"}, 1}, {Filter{Action: "abstain"}, 9}, {Filter{Agent: "a", Action: "delegate"}, 1}, {Filter{Caller: "carol"}, 0},
		{Filter{Before: 30}, 8}, {Filter{Before: 30, Caller: "bob"}, 0}} {
		if _, n := tail.Latest(c.f, 100); n != c.want {
			t.Errorf("%+v: %d, want %d", c.f, n, c.want)
		}
	}
	// Past 2·keep the oldest are let go, never more than keep shown.
	for i := range 25 {
		pub(200+i, "carol", decide.Clarify)
	}
	waitSeq(57)
	if kept := tail.Kept(); len(kept) != 10 || kept[9].TaskID != "t-224" {
		t.Errorf("kept %d, last %+v", len(kept), kept[len(kept)-1])
	}
}

func TestReasonGroup(t *testing.T) {
	a := reasonGroup(`bad input: task "dl-1": caller.dataClass: "top-secret" is not one of public, internal`)
	b := reasonGroup(`bad input: task "x-99": caller.dataClass: "secret" is not one of public, internal`)
	if a != b || a != `bad input: task "…": caller.dataClass: "…" is not one of public, internal` {
		t.Errorf("%q and %q should be one group", a, b)
	}
	if got := reasonGroup("max deliveries reached: 5 deliveries of seq 1234"); got != "max deliveries reached: N deliveries of seq N" {
		t.Errorf("%q", got)
	}
}

// A card's text is shown as published when sanitising changed it, so an
// operator sees what the card tried; an entry that does not decode is
// listed with its reason.
func TestAgentRows(t *testing.T) {
	card := `{"name": "X", "version": "1", "description": "Helps <script>alert(1)</script> you",
	  "supportedInterfaces": [{"url": "https://x.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "s", "name": "S", "description": "plain", "tags": ["t"]}]}`
	good, err := wire.NewCatalogEntry("x", []byte(card), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, cat := agentRows([]entry{{key: "x", rev: 7, value: good}, {key: "bad", rev: 8, value: []byte(`{"v":1}`)}})
	if len(rows) != 2 || len(cat.Agents) != 1 {
		t.Fatalf("rows %d, agents %d", len(rows), len(cat.Agents))
	}
	x := rows[0]
	if strings.Contains(x.Description, "<script>") || !strings.Contains(x.RawDescription, "<script>alert(1)</script>") {
		t.Errorf("description %q, raw %q", x.Description, x.RawDescription)
	}
	if x.Revision != 7 || !x.Status.External || len(x.Skills) != 1 || x.Skills[0].RawDescription != "" || x.Skills[0].Key != "x/s" {
		t.Errorf("row %+v", x)
	}
	if rows[1].Error == "" {
		t.Error("an entry without a card has no error")
	}
}

// A dead-letters page reads the latest n, but no more than its byte budget
// (at least the newest one), from their headers alone.
func TestStartWithin(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pipeline.SetupStreams(ctx, js, pipeline.Config{}); err != nil {
		t.Fatal(err)
	}
	if from, err := startWithin(ctx, js, "DEADLETTER", 5, 1<<20); err != nil || from != 0 {
		t.Fatalf("empty stream: %d %v", from, err)
	}
	for range 10 {
		if _, err := js.Publish(ctx, wire.SubjectDeadLetter("extractor", "bob", ""), []byte(strings.Repeat("x", 1000))); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		n, budget int
		want      uint64
	}{{5, 1 << 20, 6}, {100, 1 << 20, 1}, {100, 2500, 9}, {100, 10, 10}} {
		if from, err := startWithin(ctx, js, "DEADLETTER", c.n, c.budget); err != nil || from != c.want {
			t.Errorf("latest %d within %d bytes: from %d (%v), want %d", c.n, c.budget, from, err, c.want)
		}
	}
}

// A plan is summarised by its steps: the live view shows them in order,
// and the agent filter finds the plan by any step's agent.
func TestSummarizePlan(t *testing.T) {
	step := func(agent, skill string) decide.Step {
		return decide.Step{Part: "do " + skill, Probability: 0.9, Chosen: decide.Option{Key: agent + "/" + skill, AgentID: agent, SkillID: skill}}
	}
	data, _ := json.Marshal(wire.Decision{V: wire.Version, TaskID: "t-1", DecisionID: "d-1",
		Decision: decide.Decision{Action: decide.Plan, Probability: 0.9, Reason: "2 parts",
			Steps: []decide.Step{step("a", "x"), step("b", "y")}},
		Top: &decide.Option{Key: "c/z", AgentID: "c", SkillID: "z"}})
	s, err := Summarize(wire.SubjectDecision("alice", "plan", "t-1"), data, 7, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Action != "plan" || s.Agent != "a" || s.Skill != "x" || strings.Join(s.Steps, ",") != "a/x,b/y" {
		t.Errorf("summary %+v", s)
	}
	for agent, want := range map[string]bool{"a": true, "b": true, "c": false} {
		if got := (Filter{Agent: agent, Action: "plan"}).Match(&s); got != want {
			t.Errorf("agent %s: match %v, want %v", agent, got, want)
		}
	}
}
