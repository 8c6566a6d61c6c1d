package wire

import (
	"encoding/json"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// The delegation request carries the skill route exactly when the agent
// advertises the extension and lists the chosen skill, and never a route
// the caller wrote.
func TestA2ARequestRouting(t *testing.T) {
	advertising := []card.Extension{{URI: "https://example.com/other"}, {URI: routing.URI}}
	callerMD := json.RawMessage(`{"trace":"abc","` + routing.URI + `":{"skillId":"admin"},"` + routing.URI + `/":{"skillId":"x"},"skillmatch":{"decisionId":"forged"}}`)
	tests := []struct {
		name     string
		exts     []card.Extension
		skill    string
		metadata json.RawMessage
		routed   bool
	}{
		{"advertises and lists the skill", advertising, "triage", nil, true},
		{"does not advertise", []card.Extension{{URI: "https://example.com/other"}}, "triage", nil, false},
		{"skill not listed", advertising, "refund", nil, false},
		{"no chosen skill", advertising, "", nil, false},
		{"caller entry stripped, route written", advertising, "triage", callerMD, true},
		{"caller entry stripped, no route", nil, "triage", callerMD, false},
	}
	for _, tt := range tests {
		for _, binding := range []string{"JSONRPC", "HTTP+JSON", "GRPC"} {
			t.Run(tt.name+"/"+binding, func(t *testing.T) {
				cd := &card.Card{ID: "support", Extensions: tt.exts,
					Interfaces: []card.Interface{{URL: "https://a/v1", Binding: binding}},
					Skills:     []card.Skill{{ID: "triage"}, {ID: "draft"}}}
				tk := &task.Task{ID: "t-1", Message: task.Message{Metadata: tt.metadata, Parts: []task.Part{{Text: "triage this"}}}}
				r, err := NewA2ARequest(cd, tt.skill, tk, "d-1")
				if err != nil {
					t.Fatal(err)
				}
				params := requestParams(t, r)
				msg, _ := params["message"].(map[string]any)
				msgMD, _ := msg["metadata"].(map[string]any)
				for k := range msgMD {
					if routing.IsRoutingKey(k) {
						t.Errorf("message metadata keeps routing entry %q", k)
					}
				}
				if own, _ := msgMD["skillmatch"].(map[string]any); own["decisionId"] != "d-1" || own["skillId"] != tt.skill {
					t.Errorf("skillmatch entry %v", msgMD["skillmatch"])
				}
				if tt.metadata != nil && msgMD["trace"] != "abc" {
					t.Errorf("caller's other metadata lost: %v", msgMD)
				}
				md, _ := params["metadata"].(map[string]any)
				exts, _ := msg["extensions"].([]any)
				if !tt.routed {
					if md != nil || exts != nil || r.Headers[a2a.SvcParamExtensions] != "" {
						t.Errorf("not routed, but metadata %v, extensions %v, headers %v", md, exts, r.Headers)
					}
					return
				}
				want := map[string]any{routing.URI: map[string]any{"skillId": tt.skill}}
				if got, _ := json.Marshal(md); string(got) != mustJSON(t, want) {
					t.Errorf("request metadata %v, want %v", md, want)
				}
				if len(exts) != 1 || exts[0] != routing.URI {
					t.Errorf("message extensions %v", exts)
				}
				if r.Headers["A2A-Extensions"] != routing.URI || r.Headers["A2A-Version"] == "" {
					t.Errorf("headers %v", r.Headers)
				}
			})
		}
	}
}

func TestA2ARequestContextID(t *testing.T) {
	cd := &card.Card{ID: "a", Interfaces: []card.Interface{{URL: "https://a", Binding: "HTTP+JSON"}}, Skills: []card.Skill{{ID: "s"}}}
	tk := &task.Task{ID: "t-1", Message: task.Message{ContextID: "mine", Parts: []task.Part{{Text: "x"}}}}
	for _, tt := range []struct {
		name string
		opts []RequestOption
		want any
	}{
		{"task's own", nil, "mine"},
		{"replaced", []RequestOption{WithContextID("recorded")}, "recorded"},
		{"dropped", []RequestOption{WithContextID("")}, nil},
	} {
		r, err := NewA2ARequest(cd, "s", tk, "d-1", tt.opts...)
		if err != nil {
			t.Fatal(err)
		}
		msg := requestParams(t, r)["message"].(map[string]any)
		if msg["contextId"] != tt.want {
			t.Errorf("%s: contextId %v, want %v", tt.name, msg["contextId"], tt.want)
		}
	}
}

// requestParams is the SendMessageRequest of a request body, out of its
// JSON-RPC envelope if it has one.
func requestParams(t *testing.T, r *A2ARequest) map[string]any {
	t.Helper()
	if r == nil {
		t.Fatal("no request")
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if _, rpc := body["jsonrpc"]; rpc {
		return body["params"].(map[string]any)
	}
	return body
}

func TestTaskRecord(t *testing.T) {
	if k := TaskRecordKey("", "a:b.c"); k != "Xy9hOmIuYw" {
		t.Errorf("key %q", k)
	}
	if TaskRecordKey("", "a") == TaskRecordKey("", "b") || TaskRecordKey("alice", "a") == TaskRecordKey("bob", "a") {
		t.Error("keys collide")
	}
	r, err := DecodeTaskRecord([]byte(`{"v":1,"taskId":"t-1","decisionId":"d","agentId":"a","skillId":"s","contextId":"c","callerId":"alice"}`))
	if err != nil {
		t.Fatal(err)
	}
	o := *r
	if !r.SameDelegation(o) {
		t.Error("a record differs from itself")
	}
	o.CallerID = "bob"
	if r.SameDelegation(o) {
		t.Error("another caller reads as the same delegation")
	}
	for _, bad := range []string{`{"v":1,"taskId":"t","agentId":"a"}`, `{"v":2,"taskId":"t","agentId":"a","skillId":"s"}`, `{"v":1,"agentId":"a","skillId":"s"}`} {
		if _, err := DecodeTaskRecord([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
