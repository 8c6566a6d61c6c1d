package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A plan gets one request per step, to the step's agent, carrying only
// its own part of the request and its own decision id.
func TestStepRequests(t *testing.T) {
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon, then convert 250 dollars to euros"}}}}
	d := decide.Decision{Action: decide.Plan, Steps: []decide.Step{
		{Part: "book a flight to Lisbon", Chosen: decide.Option{Key: "travel-concierge/book-flight", AgentID: "travel-concierge", SkillID: "book-flight"}},
		{Part: "convert 250 dollars to euros", Chosen: decide.Option{Key: "world-info/convert-currency", AgentID: "world-info", SkillID: "convert-currency"}},
	}}
	reqs, err := StepRequests(cat, d, tk, "d-1", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		body := string(r.Body)
		other := d.Steps[1-i].Part
		if !strings.Contains(body, d.Steps[i].Part) || strings.Contains(body, other) {
			t.Errorf("step %d body carries the wrong part: %s", i+1, body)
		}
		if !strings.Contains(body, d.Steps[i].Chosen.SkillID) || !strings.Contains(body, "d-1-s") {
			t.Errorf("step %d body lacks its skill or decision id: %s", i+1, body)
		}
		a, _ := cat.Agent(d.Steps[i].Chosen.AgentID)
		if !strings.HasPrefix(r.URL, a.Card.Interfaces[0].URL) {
			t.Errorf("step %d goes to %s, not to %s", i+1, r.URL, a.Card.Interfaces[0].URL)
		}
	}
	// The caller's file goes to a step that works on it, not to one that
	// only hands the result on to another agent.
	file := task.Part{File: &task.File{Name: "report.pdf", MediaType: "application/pdf", Bytes: []byte("%PDF-")}}
	ftk := &task.Task{ID: "t-2", Message: task.Message{Parts: []task.Part{{Text: "summarize the report and forward the summary to finance"}, file}}}
	fd := decide.Decision{Action: decide.Plan, Steps: []decide.Step{
		{Part: "summarize the report", Chosen: d.Steps[0].Chosen},
		{Part: "forward the summary to finance", Chosen: d.Steps[1].Chosen},
	}}
	freqs, err := StepRequests(cat, fd, ftk, "d-2", false)
	if err != nil {
		t.Fatal(err)
	}
	if body := string(freqs[0].Body); !strings.Contains(body, "report.pdf") {
		t.Errorf("the working step lacks the caller's file: %s", body)
	}
	if body := string(freqs[1].Body); strings.Contains(body, "report.pdf") {
		t.Errorf("the hand-off step carries the caller's file: %s", body)
	}
	// A single decision has no step requests; a step outside the catalog
	// is an error.
	if reqs, err := StepRequests(cat, decide.Decision{Action: decide.Delegate}, tk, "d-1", false); reqs != nil || err != nil {
		t.Errorf("delegate: %v, %v", reqs, err)
	}
	d.Steps[0].Chosen.AgentID = "nobody"
	if _, err := StepRequests(cat, d, tk, "d-1", false); err == nil {
		t.Error("a step to an agent outside the catalog built a request")
	}
}

func planDecision() *Decision {
	step := func(agent, skill, part string, p float64) decide.Step {
		return decide.Step{Part: part, Probability: p,
			Chosen: decide.Option{Key: agent + "/" + skill, AgentID: agent, SkillID: skill, Score: 8, Prob: p}}
	}
	return &Decision{V: Version, TaskID: "t-1", DecisionID: DecisionID("", "t-1"), DecidedAt: at,
		Decision: decide.Decision{Action: decide.Plan, Probability: 0.75, Reason: "2 parts, 2 delegated",
			Steps: []decide.Step{step("travel-concierge", "book-flight", "book a flight to Lisbon", 0.9),
				step("world-info", "convert-currency", "convert 250 dollars to euros", 0.75)}},
		StepRequests: []*A2ARequest{
			{URL: "https://x/1", ProtocolBinding: "JSONRPC", Method: "SendMessage", Body: json.RawMessage(`{"a":1}`)},
			{URL: "https://x/2", ProtocolBinding: "JSONRPC", Method: "SendMessage", Body: json.RawMessage(`{"a":2}`)}}}
}

// The messages of a request with several intents carry each part through
// the stages and survive the round trip; messages without parts (written
// before plans went through the pipeline) still decode.
func TestPlanRoundTrips(t *testing.T) {
	opt := decide.Option{Key: "a/s", AgentID: "a", SkillID: "s", Score: 7.25, Prob: 0.8125}
	raw := json.RawMessage(`{"id":"t-1","message":{"parts":[{"text":"x"}]},"caller":{"scopes":null},"constraints":{}}`)
	sl := Shortlist{Terms: []string{"book"}, Keys: []string{"a/s"}, Retrieval: &Retrieval{Allowed: 3,
		Candidates: []index.Candidate{{Doc: 1, BM25: 1.5, Fused: 1.0 / 61}}}}
	cases := []struct {
		name   string
		msg    any
		decode func([]byte) (any, error)
	}{
		{"shortlisted", &Shortlisted{V: Version, TaskID: "t-1", Task: raw, Catalog: "abc", Shortlist: sl,
			Parts: []PartShortlist{{Part: "book a flight", Shortlist: sl}, {Part: "convert dollars", Shortlist: Shortlist{Terms: []string{"convert"}}}}},
			func(b []byte) (any, error) { return DecodeShortlisted(b) }},
		{"ranked", &Ranked{V: Version, TaskID: "t-1", Task: raw, Catalog: "abc", Candidates: []decide.Option{opt},
			Parts: []PartRanked{{Part: "book a flight", Candidates: []decide.Option{opt}}, {Part: "convert dollars", Candidates: []decide.Option{}}}},
			func(b []byte) (any, error) { return DecodeRanked(b) }},
		{"plan decision", planDecision(), func(b []byte) (any, error) { return DecodeDecision(b) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.msg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.decode(b)
			if err != nil {
				t.Fatalf("decode: %v\n%s", err, b)
			}
			if !reflect.DeepEqual(got, c.msg) {
				t.Errorf("round trip changed the message:\n got %#v\nwant %#v", got, c.msg)
			}
		})
	}
	old := `{"v":1,"taskId":"t-1","task":{},"catalog":"abc","shortlist":{"terms":["x"],"keys":[],"retrieval":null}}`
	if m, err := DecodeShortlisted([]byte(old)); err != nil || m.Parts != nil {
		t.Errorf("shortlisted without parts: %+v, %v", m, err)
	}
	if m, err := DecodeRanked([]byte(`{"v":1,"taskId":"t-1","task":{},"catalog":"abc","candidates":[]}`)); err != nil || m.Parts != nil {
		t.Errorf("ranked without parts: %+v, %v", m, err)
	}
}

// A plan decision is refused unless it is a well-formed plan; steps on
// any other action are refused; the catalog and cap checks refuse what
// the message alone cannot show.
func TestDecodePlanDecision(t *testing.T) {
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cases := []struct {
		name   string
		edit   func(d *Decision)
		checks []DecisionCheck
		ok     bool
	}{
		{"well formed", func(*Decision) {}, nil, true},
		{"in the catalog, under the cap", func(*Decision) {}, []DecisionCheck{InCatalog(cat), MaxSteps(2)}, true},
		{"without step requests", func(d *Decision) { d.StepRequests = nil }, nil, true},
		{"one step", func(d *Decision) { d.Steps, d.StepRequests = d.Steps[:1], d.StepRequests[:1] }, nil, false},
		{"no steps", func(d *Decision) { d.Steps, d.StepRequests = nil, nil }, nil, false},
		{"more steps than parts", func(d *Decision) {
			for i := 0; len(d.Steps) <= MaxPlanSteps; i++ {
				s := d.Steps[0]
				s.Chosen.SkillID = fmt.Sprintf("s%d", i)
				s.Chosen.Key = s.Chosen.AgentID + "/" + s.Chosen.SkillID
				d.Steps = append(d.Steps, s)
			}
			d.StepRequests = nil
		}, nil, false},
		{"over the cap", func(*Decision) {}, []DecisionCheck{MaxSteps(1)}, false},
		{"step outside the catalog", func(d *Decision) {
			d.Steps[1].Chosen = decide.Option{Key: "nobody/convert-currency", AgentID: "nobody", SkillID: "convert-currency"}
		}, []DecisionCheck{InCatalog(cat)}, false},
		{"skill the agent lacks", func(d *Decision) {
			d.Steps[1].Chosen = decide.Option{Key: "world-info/fly", AgentID: "world-info", SkillID: "fly"}
		}, []DecisionCheck{InCatalog(cat)}, false},
		{"key not its ids", func(d *Decision) { d.Steps[1].Chosen.Key = "travel-concierge/book-flight" }, nil, false},
		{"bad key", func(d *Decision) { d.Steps[1].Chosen = decide.Option{Key: "a b/c", AgentID: "a b", SkillID: "c"} }, nil, false},
		{"same skill twice", func(d *Decision) { d.Steps[1].Chosen = d.Steps[0].Chosen }, nil, false},
		{"empty part", func(d *Decision) { d.Steps[0].Part = "  " }, nil, false},
		{"probability above 1", func(d *Decision) { d.Steps[0].Probability = 1.5 }, nil, false},
		{"plan probability negative", func(d *Decision) { d.Probability = -0.1 }, nil, false},
		{"requests do not match steps", func(d *Decision) { d.StepRequests = d.StepRequests[:1] }, nil, false},
		{"a null step request", func(d *Decision) { d.StepRequests[1] = nil }, nil, false},
		{"a plan with a chosen skill", func(d *Decision) { c := d.Steps[0].Chosen; d.Chosen = &c }, nil, false},
		{"a plan with a single request", func(d *Decision) { d.Request = d.StepRequests[0] }, nil, false},
		{"a delegation with steps", func(d *Decision) {
			c := d.Steps[0].Chosen
			d.Action, d.Chosen, d.StepRequests = decide.Delegate, &c, nil
		}, nil, false},
		{"an abstention with step requests", func(d *Decision) { d.Action, d.Steps = decide.Abstain, nil }, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := planDecision()
			c.edit(d)
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DecodeDecision(b, c.checks...)
			if c.ok && err != nil || !c.ok && !errors.Is(err, ErrBadMessage) {
				t.Errorf("err = %v, want ok=%v", err, c.ok)
			}
		})
	}
	// A delegation outside the catalog is refused by the same check.
	d := planDecision()
	o := decide.Option{Key: "nobody/x", AgentID: "nobody", SkillID: "x"}
	d.Decision = decide.Decision{Action: decide.Delegate, Chosen: &o}
	d.StepRequests = nil
	b, _ := json.Marshal(d)
	if _, err := DecodeDecision(b, InCatalog(cat)); !errors.Is(err, ErrBadMessage) {
		t.Errorf("delegation outside the catalog: %v", err)
	}
}

// DecodeDecision reads what callers and the console receive: whatever the
// bytes, it returns a decision that passes its own checks or an
// ErrBadMessage, never a panic.
func FuzzDecodeDecision(f *testing.F) {
	b, _ := json.Marshal(planDecision())
	f.Add(b)
	f.Add([]byte(`{"v":1,"taskId":"t","action":"plan","steps":[{"part":"x","chosen":{"key":"a/b","agentId":"a","skillId":"b"}}]}`))
	f.Add([]byte(`{"v":1,"taskId":"t","action":"abstain","reason":"no"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeDecision(data, MaxSteps(3))
		if err != nil {
			if !errors.Is(err, ErrBadMessage) {
				t.Fatalf("error outside ErrBadMessage: %v", err)
			}
			return
		}
		if d.Action == decide.Plan {
			if len(d.Steps) < 2 || len(d.Steps) > 3 || d.Chosen != nil {
				t.Fatalf("accepted a malformed plan: %+v", d)
			}
			if len(d.StepRequests) > 0 && len(d.StepRequests) != len(d.Steps) {
				t.Fatalf("accepted %d requests for %d steps", len(d.StepRequests), len(d.Steps))
			}
		} else if len(d.Steps) > 0 {
			t.Fatalf("accepted steps on a %s", d.Action)
		}
	})
}

func TestStepOf(t *testing.T) {
	d := DecisionID("bob", "t-1")
	for id, want := range map[string]bool{
		StepDecisionID(d, 1): true, StepDecisionID(d, MaxPlanSteps): true,
		d: false, StepDecisionID(d, 0): false, StepDecisionID(d, MaxPlanSteps+1): false,
		d + "-s01": false, d + "-s": false, d + "-s1x": false, StepDecisionID(DecisionID("eve", "t-1"), 1): false,
	} {
		if got := StepOf(id, d); got != want {
			t.Errorf("StepOf(%q) = %v, want %v", id, got, want)
		}
	}
}
