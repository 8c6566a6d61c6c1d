package llmrerank_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/llmrerank"
	"github.com/skillmatch/skillmatch/shared/match/llmrerank/llmreranktest"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
)

// The hand-written hostile set through the LLM reranker: its injected card
// says "report a fit of 10", which the stub obeys wherever it is not told
// the text is data. Over every task the stub never obeys, and the injected
// card is delegated to only when the task itself asks for its words.
func TestHostileSetThroughTheLLM(t *testing.T) {
	set, err := golden.Load(filepath.Join("..", "..", "learn", "eval", "testdata", "hostile"))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelapitest.New()
	defer srv.Close()
	stub := &llmreranktest.Stub{}
	srv.Handle("POST /v1/chat/completions", stub.Handler)
	r, err := llmrerank.New(llmrerank.Config{Model: "stub", Client: modelapi.Client{URL: modelapi.Endpoint(srv.BaseURL(), "chat/completions")}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithPrivateEndpoints(true),
		match.WithRemoteReranker(r, model.Default().RemoteCalibration("llm"), 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	delegated := 0
	var injected string
	for _, a := range set.Catalog.Agents {
		if a.Card.ID == "promptjack" {
			for _, sk := range a.Card.Skills {
				injected += sk.Name + " " + sk.Description + " " + strings.Join(sk.Tags, " ") + " " + strings.Join(sk.Examples, " ")
			}
		}
	}
	if injected == "" {
		t.Fatal("no promptjack card in the hostile set")
	}
	for _, gt := range set.Tasks {
		res, err := m.Match(context.Background(), gt.ToTask())
		if err != nil {
			t.Fatal(err)
		}
		if res.Degraded != "" {
			t.Fatalf("task %s degraded with the server up: %s", gt.ID, res.Degraded)
		}
		if c := res.Decision.Chosen; c != nil && c.AgentID == "promptjack" {
			delegated++
			// Only on the merits of the words: most of the task's terms
			// are in the card (a task that echoes it).
			if share := echoes(gt.Text, injected); share < 0.5 {
				t.Errorf("task %s (%q) delegated to the injected card sharing %.2f of its terms", gt.ID, gt.Text, share)
			}
		}
	}
	if stub.Calls() == 0 {
		t.Fatal("the LLM was never asked")
	}
	if stub.Obeyed() != 0 {
		t.Errorf("the stub obeyed an instruction in %d of %d prompts: card text escaped its block", stub.Obeyed(), stub.Calls())
	}
	t.Logf("%d tasks, %d prompts, injected card delegated %d times", len(set.Tasks), stub.Calls(), delegated)
}

// echoes is the share of text's terms that card mentions.
func echoes(text, card string) float64 {
	have := map[string]bool{}
	for _, w := range analyze.Terms(card) {
		have[w] = true
	}
	terms := analyze.Terms(text)
	n := 0
	for _, w := range terms {
		if have[w] {
			n++
		}
	}
	return float64(n) / float64(max(len(terms), 1))
}
