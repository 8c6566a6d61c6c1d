package app

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/llmrerank/llmreranktest"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
)

// The off switch through the pipeline: `run --reranker llm` against a
// local server that is killed half way. Every task submitted is decided;
// the decisions after the kill carry degraded on the wire, and the metric
// counts them.
func TestRunRerankerOffSwitch(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	stub := &llmreranktest.Stub{}
	srv.Handle("POST /v1/chat/completions", stub.Handler)
	r, ctx := startTestRun(t, "--health-listen", "127.0.0.1:0", "--reranker", "llm", "--reranker-url", srv.BaseURL(),
		"--reranker-model", "stub", "--reranker-budget", "2s")
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: r.ClientURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	texts := []string{"what's the weather going to be in Lisbon tomorrow", "reconcile these supplier invoices against the PO",
		"where is my parcel", "will it rain in Porto on Saturday", "translate this contract into German", "review my pull request"}
	for i, text := range texts {
		if i == len(texts)/2 {
			srv.Close()
		}
		a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, &task.Task{ID: fmt.Sprintf("off-%d", i),
			Message: task.Message{Parts: []task.Part{{Text: text}}}})
		if err != nil || a.Decision == nil || a.Decision.Action == "" {
			t.Fatalf("task %d: %+v %v", i, a, err)
		}
		want := ""
		if i >= len(texts)/2 {
			want = match.DegradedReranker
		}
		if a.Decision.Degraded != want {
			t.Errorf("task %d: degraded %q, want %q", i, a.Decision.Degraded, want)
		}
	}
	if stub.Calls() != int64(len(texts)/2) {
		t.Errorf("the LLM ranked %d tasks, want %d", stub.Calls(), len(texts)/2)
	}
	resp, err := http.Get("http://" + r.HealthAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := fmt.Sprintf(`skillmatch_degraded_total{component="reranker"} %d`, len(texts)/2); !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %q in\n%s", want, grepLines(string(body), "skillmatch_degraded"))
	}
}
