package wire

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

var at = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestRoundTrips(t *testing.T) {
	opt := decide.Option{Key: "a/s", AgentID: "a", SkillID: "s", Score: 7.25, Prob: 0.8125, Reason: "fits"}
	req := extract.Requirement{TaskID: "t-1", Need: "book a flight", Scopes: []string{"travel"}}
	raw := json.RawMessage(`{"id":"t-1","message":{"parts":[{"text":"book a flight"}]},"caller":{"scopes":null},"constraints":{}}`)
	cases := []struct {
		name   string
		msg    any
		decode func([]byte) (any, error)
	}{
		{"submitted", &TaskSubmitted{V: Version, Task: raw, SubmittedAt: at},
			func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }},
		{"extracted", &Extracted{V: Version, TaskID: "t-1", Requirement: req, Task: raw},
			func(b []byte) (any, error) { return DecodeExtracted(b) }},
		{"shortlisted", &Shortlisted{V: Version, TaskID: "t-1", Requirement: req, Task: raw, Catalog: "abc",
			Shortlist: Shortlist{Terms: []string{"book", "flight"}, Vector: []float32{0.1, -0.2, 1e-7}, Demoted: []int{3},
				Keys: []string{"a/s"}, Retrieval: &Retrieval{Allowed: 5,
					Candidates: []index.Candidate{{Doc: 1, BM25: 1.5, BM25Rank: 2, Dense: 0.33333334, DenseRank: 3, DescSim: -0.125,
						ExampleSim: 0.7, BestExample: -1, CentroidSim: 1e-7, ExampleBM25: math.Pi, Fused: 1.0 / 61, FusedRank: 4}},
					Neighbors:    []index.Neighbor{{Doc: 1, Sim: 0.9}},
					LexNeighbors: []index.Neighbor{{Doc: 7, Sim: 12.5}},
					TermWeights:  []float64{2.302585092994046}}}},
			func(b []byte) (any, error) { return DecodeShortlisted(b) }},
		{"ranked", &Ranked{V: Version, TaskID: "t-1", Task: raw, Catalog: "abc", Candidates: []decide.Option{opt}},
			func(b []byte) (any, error) { return DecodeRanked(b) }},
		{"decision", &Decision{V: Version, TaskID: "t-1", DecisionID: DecisionID("", "t-1"), DecidedAt: at,
			Decision: decide.Decision{Action: decide.Delegate, Chosen: &opt, Probability: 0.8125, Reason: "best"},
			Request:  &A2ARequest{URL: "https://x", ProtocolBinding: "JSONRPC", Method: "SendMessage", Body: json.RawMessage(`{"a":1}`)}},
			func(b []byte) (any, error) { return DecodeDecision(b) }},
		{"outcome", &Outcome{V: Version, DecisionID: "d-1", TaskID: "t-1", Skill: "a/s", Success: true, LatencyMS: 12.5, Cost: 0.01, At: at},
			func(b []byte) (any, error) { return DecodeOutcome(b) }},
		{"deadletter", NewDeadLetter("extractor", "bad", SubjectSubmitted, []byte("{not json"), at),
			func(b []byte) (any, error) { return DecodeDeadLetter(b) }},
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
			// Another version is refused; so is no version.
			var m map[string]any
			json.Unmarshal(b, &m)
			for _, v := range []any{2, 0, nil} {
				if v == nil {
					delete(m, "v")
				} else {
					m["v"] = v
				}
				bad, _ := json.Marshal(m)
				if c.name == "submitted" && v == nil {
					continue // a task key without v is still an envelope: checked below
				}
				if _, err := c.decode(bad); !errors.Is(err, ErrVersion) {
					t.Errorf("v=%v: err = %v, want ErrVersion", v, err)
				}
			}
			if _, err := c.decode([]byte(`[1,2]`)); !errors.Is(err, ErrBadMessage) {
				t.Errorf("array: err = %v, want ErrBadMessage", err)
			}
		})
	}
}

func TestDecodeChecks(t *testing.T) {
	cases := []struct {
		name, data string
		decode     func([]byte) (any, error)
		want       error
	}{
		{"bare task", `{"id":"t","message":{"parts":[{"text":"x"}]}}`, func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }, nil},
		{"envelope without task", `{"v":1}`, func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }, ErrBadMessage},
		{"envelope null task", `{"v":1,"task":null}`, func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }, ErrBadMessage},
		{"task without v", `{"task":{"id":"t"}}`, func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }, ErrVersion},
		{"not json", `{"v":1,`, func(b []byte) (any, error) { return DecodeTaskSubmitted(b) }, ErrBadMessage},
		{"extracted no task id", `{"v":1}`, func(b []byte) (any, error) { return DecodeExtracted(b) }, ErrBadMessage},
		{"ranked wrong type", `{"v":1,"taskId":"t","candidates":"x"}`, func(b []byte) (any, error) { return DecodeRanked(b) }, ErrBadMessage},
		{"decision bad action", `{"v":1,"taskId":"t","action":"maybe"}`, func(b []byte) (any, error) { return DecodeDecision(b) }, ErrBadMessage},
		{"outcome no skill", `{"v":1,"decisionId":"d"}`, func(b []byte) (any, error) { return DecodeOutcome(b) }, ErrBadMessage},
		{"v as string", `{"v":"1","taskId":"t"}`, func(b []byte) (any, error) { return DecodeExtracted(b) }, ErrBadMessage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.decode([]byte(c.data))
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
	m, err := DecodeTaskSubmitted([]byte(`{"id":"t","message":{"parts":[{"text":"x"}]}}`))
	if err != nil || m.V != Version || !strings.Contains(string(m.Task), `"id":"t"`) {
		t.Errorf("bare task: %+v, %v", m, err)
	}
}

func TestDeadLetterTruncates(t *testing.T) {
	big := make([]byte, MaxDeadLetterPayload+10)
	d := NewDeadLetter("extractor", "too large", SubjectSubmitted, big, at)
	if !d.Truncated || len(d.Payload) != MaxDeadLetterPayload || d.PayloadSize != len(big) {
		t.Errorf("truncated=%v len=%d size=%d", d.Truncated, len(d.Payload), d.PayloadSize)
	}
}

func TestSubjects(t *testing.T) {
	for _, tc := range []struct{ base, subject, caller, err string }{
		{SubjectSubmitted, "skillmatch.task.submitted", "", ""},
		{SubjectSubmitted, "skillmatch.task.submitted.alice", "alice", ""},
		{SubjectSubmitted, "skillmatch.task.submitted._", "", ""},
		{SubjectSubmitted, "skillmatch.task.submitted.-x", "", "bad caller"},
		{SubjectSubmitted, "skillmatch.task.extracted", "", "not skillmatch.task.submitted"},
		{SubjectOutcome, SubjectOutcomeBy("bob"), "bob", ""},
		{SubjectOutcome, SubjectOutcomeBy(""), "", ""},
	} {
		got, err := CallerOf(tc.base, tc.subject)
		if got != tc.caller || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CallerOf(%s): %q, %v", tc.subject, got, err)
		}
	}
	if got := SubjectSubmittedBy("alice"); got != "skillmatch.task.submitted.alice" {
		t.Error(got)
	}
	if got := SubjectDecisionsOf("alice"); got != "skillmatch.decision.alice.>" {
		t.Error(got)
	}
	if got := SubjectDecision("", string(decide.Clarify), "t.1"); got != "skillmatch.decision._.clarify.dC4x" {
		t.Error(got)
	}
	if got := SubjectDecisionOf("bob", "t.1"); got != "skillmatch.decision.bob.*.dC4x" {
		t.Error(got)
	}
	for subject, want := range map[string]string{"skillmatch.decision.bob.abstain.dC4x": "abstain",
		"skillmatch.decision.bob.delegate": "delegate", "skillmatch.decision.bob": "", "skillmatch.decision.bob.a.b.c": "",
		"skillmatch.decision.a.b..": "", "skillmatch.decision.b c.abstain.x": ""} {
		if got, ok := ActionOfDecision(subject); got != want || ok != (want != "") {
			t.Errorf("ActionOfDecision(%s) = %q, %v; want %q", subject, got, ok, want)
		}
	}
	if got := SubjectDeadLetter("decider", "bob", "t.1"); got != "skillmatch.deadletter.decider.bob.dC4x" {
		t.Error(got)
	}
	if got := SubjectDeadLetterOf("bob", "t.1"); got != "skillmatch.deadletter.*.bob.dC4x" {
		t.Error(got)
	}
	// No task token for a task id the stage could not read or that no
	// task could have.
	if got := SubjectDeadLetter("decider", "bob", "bad id!"); got != "skillmatch.deadletter.decider.bob" {
		t.Error(got)
	}
	if got := CallerOfMessage("skillmatch.task.ranked", []byte(`{"task":{"caller":{"id":"bob"}}}`)); got != "bob" {
		t.Error("stage message caller", got)
	}
	if got := CallerOfMessage("skillmatch.task.submitted.eve", []byte(`{"task":{"caller":{"id":"bob"}}}`)); got != "eve" {
		t.Error("submission caller", got)
	}
	if got := CallerOfMessage("skillmatch.task.ranked", []byte(`{"task":{"caller":{"id":"a.b"}}}`)); got != "" {
		t.Error("bad caller id", got)
	}
	if got := SubjectDeadLetter("decider", "", ""); got != "skillmatch.deadletter.decider._" {
		t.Error(got)
	}
	if a, again := DecisionID("", "a"), DecisionID("", "a"); a == DecisionID("", "b") || a != again || a == DecisionID("bob", "a") {
		t.Error("decision ids must be stable and distinct")
	}
}

func TestA2ARequest(t *testing.T) {
	tk := &task.Task{ID: "t-1", Message: task.Message{ContextID: "ctx", Parts: []task.Part{
		{Text: "translate this"}, {File: &task.File{Name: "a.pdf", MediaType: "application/pdf", URI: "https://f/a.pdf"}},
		{File: &task.File{Name: "b.pdf", MediaType: "application/pdf"}}, {Data: json.RawMessage(`{"lang":"fr"}`)},
	}}, Caller: task.Caller{Tenant: "acme"}}
	cases := []struct {
		binding, wantURL, wantMethod string
		jsonrpc                      bool
	}{
		{"JSONRPC", "https://a/rpc", "SendMessage", true},
		{"", "https://a/rpc", "SendMessage", true},
		{"HTTP+JSON", "https://a/rpc/message:send", "POST", false},
		{"GRPC", "https://a/rpc", "SendMessage", false},
	}
	for _, c := range cases {
		cd := &card.Card{ID: "a", Interfaces: []card.Interface{{URL: "https://a/rpc", Binding: c.binding, ProtocolVersion: "1.0"}, {URL: "https://b"}}}
		r, err := NewA2ARequest(cd, "s", tk, "d-1")
		if err != nil {
			t.Fatal(err)
		}
		if r.URL != c.wantURL || r.Method != c.wantMethod || r.Note == "" {
			t.Errorf("%s: %+v", c.binding, r)
		}
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		params := body
		if c.jsonrpc {
			if body["jsonrpc"] != "2.0" || body["method"] != "SendMessage" || body["id"] != "d-1" {
				t.Errorf("%s: envelope %v", c.binding, body)
			}
			params = body["params"].(map[string]any)
		}
		msg := params["message"].(map[string]any)
		if msg["role"] != "ROLE_USER" || msg["contextId"] != "ctx" || params["tenant"] != "acme" {
			t.Errorf("%s: message %v", c.binding, params)
		}
		parts := msg["parts"].([]any)
		if len(parts) != 3 {
			t.Fatalf("%s: parts %v", c.binding, parts)
		}
		if p := parts[1].(map[string]any); p["url"] != "https://f/a.pdf" || p["mediaType"] != "application/pdf" {
			t.Errorf("file part %v", p)
		}
	}
	if r, err := NewA2ARequest(&card.Card{ID: "a"}, "s", tk, "d"); r != nil || err != nil {
		t.Errorf("no interface: %v %v", r, err)
	}
}

// The wire carries match.Shortlist field by field: a field added there must
// be added to Shortlist too (index.Result and Requirement travel whole).
func TestShortlistFieldsCovered(t *testing.T) {
	var names []string
	ty := reflect.TypeOf(match.Shortlist{})
	for i := 0; i < ty.NumField(); i++ {
		names = append(names, ty.Field(i).Name)
	}
	if got := strings.Join(names, ","); got != "Rejected,Rejections,Demoted,Retrieval,Terms,Vector,Degraded,History" {
		t.Errorf("match.Shortlist has fields %s: carry the new ones in wire.Shortlist", got)
	}
	// Candidate.Entry is the only pointer the wire drops and restores.
	ty = reflect.TypeOf(index.Candidate{})
	for i := 0; i < ty.NumField(); i++ {
		if f := ty.Field(i); f.Type.Kind() == reflect.Pointer && f.Name != "Entry" {
			t.Errorf("index.Candidate.%s is a pointer: the wire cannot carry it", f.Name)
		}
	}
}

// The packed candidate layout covers every field of index.Candidate but
// the doc pointer: a field the index gains must be added to it.
func TestRetrievalLayout(t *testing.T) {
	n := reflect.TypeFor[index.Candidate]().NumField() - 1 // Entry
	if n != candidateFields {
		t.Errorf("index.Candidate has %d fields to carry, the wire packs %d: update Retrieval", n, candidateFields)
	}
	if n := reflect.TypeFor[index.Result]().NumField(); n != 5 {
		t.Errorf("index.Result has %d fields, Retrieval carries 5: update it", n)
	}
	var r Retrieval
	for _, bad := range []string{
		`{"candidates":"AAAAAAAA8D8="}`, // one value: not a whole candidate
		`{"candidates":"not base64!"}`,
		`{"neighbors":"AAAAAAAA4D8AAAAAAAAAAA=="}`, // doc 0.5
	} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
