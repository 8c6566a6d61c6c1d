package retrieval

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/llmrerank/llmreranktest"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
)

// Bring your own model, end to end through the flags: a remote embedder
// and an LLM reranker on a local OpenAI-compatible server, keys from the
// environment and a file. The server is killed half way: every task is
// still decided, and the decisions after the kill say degraded.
func TestRemoteModelsAndTheOffSwitch(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	stub := &llmreranktest.Stub{}
	srv.Handle("POST /v1/chat/completions", stub.Handler)
	t.Setenv(app.EmbedderKeyEnv, "sk-embed")
	t.Setenv(app.RerankerKeyEnv, "")
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk-rerank\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	mf := MatcherFlags(fs)
	if _, err := app.Parse(fs, []string{"--embedder", "openai", "--embedder-url", srv.BaseURL(), "--embedder-model", "hash-bow",
		"--reranker", "llm", "--reranker-url", srv.BaseURL(), "--reranker-model", "stub", "--reranker-key-file", keyFile,
		"--embedder-budget", "2s", "--reranker-budget", "2s"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	degraded := map[string]int{}
	mf.OnDegraded = func(c string) { mu.Lock(); degraded[c]++; mu.Unlock() }
	build, err := mf.Builder(nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m, err := build(cat)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mf.ID(), "openai:hash-bow, llm reranker stub") {
		t.Errorf("ID %q", mf.ID())
	}
	built := srv.TextsEmbedded()
	if built == 0 {
		t.Fatal("the index was not built with the remote embedder")
	}
	texts := []string{"what's the weather going to be in Lisbon tomorrow", "reconcile these supplier invoices against the PO",
		"review my pull request", "translate this contract into German", "where is my parcel",
		"will it rain in Porto on Saturday", "explain this code", "book a table for two tonight"}
	ranked := 0
	for i, text := range texts {
		if i == len(texts)/2 {
			srv.Close()
		}
		tk := &task.Task{ID: "byom-" + string(rune('a'+i)), Message: task.Message{Parts: []task.Part{{Text: text}}}}
		res, err := m.Match(context.Background(), tk)
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if res.Decision.Action == "" || res.Decision.Reason == "" {
			t.Errorf("task %d not decided: %+v", i, res.Decision)
		}
		if i < len(texts)/2 {
			if res.Decision.Degraded != "" {
				t.Errorf("task %d with the server up: degraded %q", i, res.Decision.Degraded)
			}
			if len(res.Ranked) > 0 && !strings.HasPrefix(res.Ranked[0].Reason, "language model:") {
				t.Errorf("task %d was not ranked by the LLM: %q", i, res.Ranked[0].Reason)
			}
			continue
		}
		// A shortlist that BM25 alone leaves empty needs no reranker.
		want := match.DegradedEmbedder
		if len(res.Ranked) > 0 {
			want += "; " + match.DegradedReranker
			ranked++
		}
		if res.Decision.Degraded != want {
			t.Errorf("task %d with the server gone: degraded %q, want %q", i, res.Decision.Degraded, want)
		}
	}
	if n := len(texts) / 2; degraded["embedder"] != n || degraded["reranker"] != ranked || ranked == 0 {
		t.Errorf("degraded counts %v, want %d embedder and %d reranker", degraded, n, ranked)
	}
	keys := srv.Keys()
	if !slices.Contains(keys, "Bearer sk-embed") || !slices.Contains(keys, "Bearer sk-rerank") {
		t.Errorf("keys sent: %v", slices.Compact(slices.Sorted(slices.Values(keys))))
	}
	if stub.Calls() < int64(len(texts)/2) {
		t.Errorf("the LLM was asked %d times", stub.Calls())
	}
}

// A card change re-embeds only that card's texts: the rebuilt matcher
// sends the server the changed description and nothing else.
func TestRebuildReembedsOnlyTheChangedCard(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	mf := MatcherFlags(fs)
	if _, err := app.Parse(fs, []string{"--embedder", "openai", "--embedder-url", srv.BaseURL(), "--embedder-model", "hash-bow", "--embedder-batch", "16"}); err != nil {
		t.Fatal(err)
	}
	build, err := mf.Builder(nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := build(cat); err != nil {
		t.Fatal(err)
	}
	for _, b := range srv.Batches() {
		if b > 16 {
			t.Errorf("a request of %d texts with --embedder-batch 16", b)
		}
	}
	first := srv.TextsEmbedded()
	s := &cat.Agents[0].Card.Skills[0]
	s.Description = "A wholly new description of what this skill does, with different words."
	if _, err := build(cat); err != nil {
		t.Fatal(err)
	}
	if got := srv.TextsEmbedded() - first; got != 1 {
		t.Errorf("rebuild after one description changed embedded %d texts, want 1", got)
	}
}
