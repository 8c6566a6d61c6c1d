package client_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// TestImports checks what a program using the client links: neither the
// matcher nor the word vectors nor the Weaviate client.
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("only %d dependencies listed: %v", len(deps), deps)
	}
	for _, d := range deps {
		for _, banned := range []string{
			"github.com/skillmatch/skillmatch/shared/match",     // the matcher
			"github.com/skillmatch/skillmatch/shared/retrieval", // the index, GloVe (retrieval/embed)
			"github.com/skillmatch/skillmatch/shared/pipeline/wire",
			"weaviate",
		} {
			if strings.Contains(d, banned) {
				t.Errorf("the client links %s (banned: %s)", d, banned)
			}
		}
	}
}

// TestContract checks the client against the pipeline's own wire
// contract: subjects, message ids and the messages it reads and writes.
func TestContract(t *testing.T) {
	for _, c := range []string{"", "alice"} {
		if got, want := client.SubjectSubmittedBy(c), wire.SubjectSubmittedBy(c); got != want {
			t.Errorf("submitted %q, want %q", got, want)
		}
		if got, want := client.SubjectOutcomeBy(c), wire.SubjectOutcomeBy(c); got != want {
			t.Errorf("outcome %q, want %q", got, want)
		}
		if got, want := client.SubjectDecision(c, "clarify", "t 1.x"), wire.SubjectDecision(c, "clarify", "t 1.x"); got != want {
			t.Errorf("decision %q, want %q", got, want)
		}
		if got, want := client.SubjectDecisionOf(c, "t 1.x"), wire.SubjectDecisionOf(c, "t 1.x"); got != want {
			t.Errorf("decision filter %q, want %q", got, want)
		}
		if got, want := client.SubjectDeadLetterOf(c, "t 1.x"), wire.SubjectDeadLetterOf(c, "t 1.x"); got != want {
			t.Errorf("dead letters %q, want %q", got, want)
		}
		if got, want := client.DecisionID(c, "t 1.x"), wire.DecisionID(c, "t 1.x"); got != want {
			t.Errorf("decision id %q, want %q", got, want)
		}
		tk := &task.Task{ID: "t-1", Caller: task.Caller{ID: c}, Message: task.Message{Parts: []task.Part{{Text: "hi"}}}}
		raw, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := client.SubmissionMsgID(tk); err != nil || got != pipeline.MsgID(c, "t-1", "submitted/"+pipeline.Fingerprint(raw)) {
			t.Errorf("msg id %q (%v), want %q", got, err, pipeline.MsgID(c, "t-1", "submitted/"+pipeline.Fingerprint(raw)))
		}
	}
	if client.Version != wire.Version || client.DefaultDecisions != pipeline.DefaultStreams.Decisions ||
		client.DefaultDeadLetters != pipeline.DefaultStreams.DeadLetters {
		t.Error("version or stream names differ from the pipeline's")
	}
	if a, ok := wire.ActionOfDecision(client.SubjectDecision("bob", "abstain", "x")); !ok || a != "abstain" {
		t.Error("the pipeline does not read the client's decision subject", a, ok)
	}

	// A decision the decider writes is read with the caller's fields.
	req := &wire.A2ARequest{Method: "SendMessage", URL: "https://agent.example/a2a"}
	data, _ := json.Marshal(wire.Decision{V: wire.Version, TaskID: "t-1", DecisionID: "d-1", Request: req,
		Decision: decide.Decision{Action: decide.Delegate, Probability: 0.9, Reason: "fits", Question: "which?"}})
	d, err := client.DecodeDecision(data)
	if err != nil {
		t.Fatal(err)
	}
	if d.TaskID != "t-1" || d.DecisionID != "d-1" || d.Action != client.Delegate || d.Probability != 0.9 ||
		d.Reason != "fits" || d.Question != "which?" || !strings.Contains(string(d.Request), "agent.example") || string(d.Raw) != string(data) {
		t.Errorf("decision read as %+v", d)
	}
	// A plan is read with its steps and one request per step.
	step := func(agent, skill, part string) decide.Step {
		return decide.Step{Part: part, Probability: 0.8, Chosen: decide.Option{Key: agent + "/" + skill, AgentID: agent, SkillID: skill}}
	}
	data, _ = json.Marshal(wire.Decision{V: wire.Version, TaskID: "t-2", DecisionID: "d-2",
		Decision: decide.Decision{Action: decide.Plan, Probability: 0.8, Reason: "2 parts",
			Steps: []decide.Step{step("a", "x", "do x"), step("b", "y", "do y")}},
		StepRequests: []*wire.A2ARequest{req, {Method: "SendMessage", URL: "https://other.example/a2a"}}})
	d, err = client.DecodeDecision(data)
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != client.Plan || len(d.Steps) != 2 || d.Steps[1].Part != "do y" || d.Steps[1].Chosen.Key != "b/y" ||
		d.Steps[0].Chosen.AgentID != "a" || len(d.StepRequests) != 2 || !strings.Contains(string(d.StepRequests[1]), "other.example") {
		t.Errorf("plan read as %+v", d)
	}
	if _, err := wire.DecodeDecision(data); err != nil {
		t.Errorf("the pipeline refuses the plan the client reads: %v", err)
	}
	for _, bad := range []string{`{"v":2,"taskId":"t","action":"delegate"}`, `{"taskId":"t","action":"delegate"}`,
		`{"v":1,"taskId":"t","action":"guess"}`, `[]`, `{"v":1,"taskId":"t","action":"plan"}`,
		`{"v":1,"taskId":"t","action":"plan","steps":[{"part":"a"},{"part":"b"}],"stepRequests":[{}]}`} {
		if _, err := client.DecodeDecision([]byte(bad)); err == nil {
			t.Errorf("%s read as a decision", bad)
		}
	}

	// The outcome the client writes is one the feedback stage accepts.
	o := client.Outcome{DecisionID: "d-1", TaskID: "t-1", Skill: "a/b", Success: true, LatencyMS: 12, At: time.Unix(1, 0).UTC()}
	raw, _ := json.Marshal(struct {
		V int `json:"v"`
		client.Outcome
	}{client.Version, o})
	got, err := wire.DecodeOutcome(raw)
	if err != nil || got.DecisionID != "d-1" || got.Skill != "a/b" || !got.Success || got.LatencyMS != 12 {
		t.Errorf("outcome read as %+v, %v", got, err)
	}
	// The submission envelope is read as the caller wrote the task.
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "hi"}}}}
	sub, _ := wire.NewTaskSubmitted(tk, time.Time{})
	if _, err := task.Parse(sub.Task); err != nil {
		t.Error(err)
	}
}

// A task whose answer could never be found is refused before it is sent
// (no connection is needed to say so).
func TestRefusesUnanswerable(t *testing.T) {
	c := client.New(nil)
	for _, tk := range []*task.Task{{ID: "bad id!"}, {ID: ""}, {ID: strings.Repeat("x", 129)}, {ID: "ok", Caller: task.Caller{ID: "a.b"}}} {
		if _, err := c.Submit(t.Context(), tk); !errors.Is(err, client.ErrTask) {
			t.Errorf("%+v: %v", tk, err)
		}
	}
	if _, err := c.Await(t.Context(), "*", "t-1"); !errors.Is(err, client.ErrTask) {
		t.Errorf("wildcard caller: %v", err)
	}
}
