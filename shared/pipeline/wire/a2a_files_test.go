package wire

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// A task's files reach the agent: bytes as a raw part (v0.3: a file with
// bytes), a URI as a url part, with their names and media types; a file
// with neither is left out and the request says so.
func TestA2ARequestCarriesFiles(t *testing.T) {
	pdf := []byte("%PDF-1.7 invoice 42\x00\xff")
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{
		{Text: "reconcile these invoices"},
		{File: &task.File{Name: "invoice.pdf", MediaType: "application/pdf", Bytes: pdf}},
		{File: &task.File{Name: "po.csv", MediaType: "text/csv", URI: "https://files.example.com/po.csv"}},
		{File: &task.File{Name: "named-only.txt"}},
	}}}
	for _, sv := range []struct {
		name, version string
		handler       func(a2asrv.RequestHandler) http.Handler
	}{
		{"v1.0", "1.0", func(h a2asrv.RequestHandler) http.Handler { return a2asrv.NewJSONRPCHandler(h) }},
		{"v0.3", "0.3.0", func(h a2asrv.RequestHandler) http.Handler { return a2av0.NewJSONRPCHandler(h) }},
	} {
		t.Run(sv.name, func(t *testing.T) {
			agent := &recordingAgent{}
			srv := httptest.NewServer(sv.handler(a2asrv.NewHandler(agent)))
			defer srv.Close()
			cd := &card.Card{ID: "ap", Interfaces: []card.Interface{{URL: srv.URL, Binding: "JSONRPC", ProtocolVersion: sv.version}},
				Skills: []card.Skill{{ID: "reconcile"}}}
			r, err := NewA2ARequest(cd, "reconcile", tk, "d-1", WithAllowPrivate(true))
			if err != nil {
				t.Fatal(err)
			}
			if r.Note == "" || !bytes.Contains([]byte(r.Note), []byte("1 file part")) {
				t.Errorf("note %q, want it to name the file left out", r.Note)
			}
			req, _ := http.NewRequest(http.MethodPost, r.URL, bytes.NewReader(r.Body))
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
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			agent.mu.Lock()
			defer agent.mu.Unlock()
			if len(agent.got) != 1 || agent.got[0].Message == nil {
				t.Fatalf("the agent was asked %d times", len(agent.got))
			}
			parts := agent.got[0].Message.Parts
			if len(parts) != 3 {
				t.Fatalf("%d parts reached the agent, want 3: %+v", len(parts), parts)
			}
			if raw, ok := parts[1].Content.(a2a.Raw); !ok || !bytes.Equal(raw, pdf) || parts[1].Filename != "invoice.pdf" || parts[1].MediaType != "application/pdf" {
				t.Errorf("bytes part %+v", parts[1])
			}
			if u, ok := parts[2].Content.(a2a.URL); !ok || u != "https://files.example.com/po.csv" || parts[2].Filename != "po.csv" {
				t.Errorf("uri part %+v", parts[2])
			}
		})
	}
}
