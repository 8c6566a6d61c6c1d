package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/llmrerank/llmreranktest"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
)

// eval runs end to end with the remote embedder of a local
// OpenAI-compatible server: the catalog and every query go through it.
func TestEvalWithRemoteEmbedder(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	code, out, errOut := runCmd(t, "eval", "--set", fitSet, "--quiet",
		"--embedder", "openai", "--embedder-url", srv.BaseURL(), "--embedder-model", "hash-bow")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "top-1") {
		t.Errorf("no figures:\n%s", out)
	}
	if n := srv.TextsEmbedded(); n < 49 {
		t.Errorf("the server embedded %d texts: the index or the queries did not go through it", n)
	}
	if strings.Contains(out, "degraded") {
		t.Errorf("tasks degraded with the server up:\n%s", out)
	}
}

// fit --reranker llm fits the LLM's calibration into the model, and eval
// ranks with the LLM and that calibration.
func TestFitAndEvalWithLLMReranker(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	stub := &llmreranktest.Stub{}
	srv.Handle("POST /v1/chat/completions", stub.Handler)
	file := filepath.Join(t.TempDir(), "llm.json")
	llm := []string{"--reranker", "llm", "--reranker-url", srv.BaseURL(), "--reranker-model", "stub"}
	code, out, errOut := runCmd(t, append([]string{"fit", "--set", fitSet, "--quiet", "-o", file}, llm...)...)
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, errOut)
	}
	m, err := model.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if m.Remote["llm"] == nil || !strings.Contains(out, "llm reranker's calibration") {
		t.Fatalf("no llm calibration in the model: %s", out)
	}
	if p5, p10 := m.Remote["llm"].Prob(5), m.Remote["llm"].Prob(10); p10 < p5 {
		t.Errorf("calibration falls with the fit: p(5) %v, p(10) %v", p5, p10)
	}
	calls := stub.Calls()
	code, out, errOut = runCmd(t, append([]string{"eval", "--set", fitSet, "--quiet", "--model", file}, llm...)...)
	if code != 0 || !strings.Contains(out, "top-1") {
		t.Fatalf("eval exit %d: %s%s", code, out, errOut)
	}
	if stub.Calls() == calls {
		t.Error("eval did not ask the LLM")
	}
}

// match --json says when the reranker was unavailable.
func TestMatchJSONSaysDegraded(t *testing.T) {
	srv := modelapitest.New()
	srv.Close() // nothing listens there any more
	code, out, errOut := runCmd(t, "match", "--cards", examplesDir, "--json", "--reranker", "llm", "--reranker-url", srv.BaseURL(),
		"--reranker-model", "gone", "--reranker-budget", "2s", "what's the weather going to be in Lisbon tomorrow")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d struct {
		Action   string `json:"action"`
		Degraded string `json:"degraded"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if d.Action == "" || d.Degraded != "reranker unavailable" {
		t.Errorf("decision %+v, want decided and degraded: reranker unavailable", d)
	}
	code, out, _ = runCmd(t, "match", "--cards", examplesDir, "--reranker", "llm", "--reranker-url", srv.BaseURL(),
		"--reranker-model", "gone", "what's the weather going to be in Lisbon tomorrow")
	if code != 0 || !strings.Contains(out, "degraded: reranker unavailable") {
		t.Errorf("text output (exit %d) does not say degraded:\n%s", code, out)
	}
}

// Keys never come from the command line: a missing key file is an error,
// not a silent request without credentials.
func TestMissingKeyFileIsAnError(t *testing.T) {
	code, _, errOut := runCmd(t, "match", "--cards", examplesDir, "--reranker", "llm", "--reranker-url", "http://127.0.0.1:1/v1",
		"--reranker-model", "m", "--reranker-key-file", filepath.Join(t.TempDir(), "nope"), "hello")
	if code == 0 || !strings.Contains(errOut, "key file") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// eval with the reranker's server gone still evaluates every task, and
// says how many were decided without it.
func TestEvalCountsDegraded(t *testing.T) {
	srv := modelapitest.New()
	srv.Close()
	code, out, errOut := runCmd(t, "eval", "--set", fitSet, "--quiet", "--reranker", "llm", "--reranker-url", srv.BaseURL(),
		"--reranker-model", "gone", "--reranker-budget", "50ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "tasks decided without the remote model") {
		t.Errorf("eval does not say it degraded:\n%s", out)
	}
}
