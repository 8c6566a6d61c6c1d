package wire

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// recordingAgent is an a2a-go agent that keeps what it was asked.
type recordingAgent struct {
	mu  sync.Mutex
	got []*a2asrv.ExecutorContext
}

func (a *recordingAgent) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	a.mu.Lock()
	a.got = append(a.got, ec)
	a.mu.Unlock()
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("done")), nil)
	}
}

func (a *recordingAgent) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

// A delegation is received by real a2a-go servers of the version and
// binding its card names: v1.0 SendMessage and v0.3 message/send, over
// JSON-RPC and HTTP+JSON, with the text, skillmatch's metadata and the
// skill route.
func TestA2ARequestReachesA2AServers(t *testing.T) {
	servers := []struct {
		name, binding, version string
		handler                func(a2asrv.RequestHandler) http.Handler
	}{
		{"v1.0 JSON-RPC", "JSONRPC", "1.0", func(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewJSONRPCHandler(h) }},
		{"v1.0 HTTP+JSON", "HTTP+JSON", "1.0", func(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewRESTHandler(h) }},
		{"v0.3 JSON-RPC", "JSONRPC", "0.3.0", func(h a2asrv.RequestHandler) http.Handler { return a2av0.NewJSONRPCHandler(h) }},
		{"v0.3 HTTP+JSON", "HTTP+JSON", "0.3.0", func(h a2asrv.RequestHandler) http.Handler { return a2av0.NewRESTHandler(h) }},
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			agent := &recordingAgent{}
			srv := httptest.NewServer(sv.handler(a2asrv.NewHandler(agent)))
			defer srv.Close()
			cd := &card.Card{ID: "support", Extensions: []card.Extension{{URI: routing.URI}},
				Interfaces: []card.Interface{{URL: srv.URL, Binding: sv.binding, ProtocolVersion: sv.version}},
				Skills:     []card.Skill{{ID: "triage"}}}
			tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "triage this ticket"}}},
				Constraints: task.Constraints{AcceptedOutputTypes: []string{"application/json"}}}
			r, err := NewA2ARequest(cd, "triage", tk, "d-1", WithAllowPrivate(true))
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodPost, r.URL, bytes.NewReader(r.Body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			for k, v := range r.Headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || bytes.Contains(body, []byte(`"error"`)) {
				t.Fatalf("%s %s: %d %s", r.Method, r.URL, resp.StatusCode, body)
			}
			agent.mu.Lock()
			defer agent.mu.Unlock()
			if len(agent.got) != 1 {
				t.Fatalf("the agent was asked %d times; reply %s", len(agent.got), body)
			}
			ec := agent.got[0]
			if ec.Message == nil || len(ec.Message.Parts) != 1 || ec.Message.Parts[0].Text() != "triage this ticket" {
				t.Fatalf("message %+v", ec.Message)
			}
			own, _ := ec.Message.Metadata["skillmatch"].(map[string]any)
			if own["decisionId"] != "d-1" || own["skillId"] != "triage" {
				t.Errorf("skillmatch metadata %v", ec.Message.Metadata)
			}
			route, _ := ec.Metadata[routing.URI].(map[string]any)
			if route["skillId"] != "triage" {
				t.Errorf("skill route %v", ec.Metadata)
			}
		})
	}
}
