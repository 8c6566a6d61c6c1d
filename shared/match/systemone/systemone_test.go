package systemone_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/match/systemone"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
)

// scoreStub answers each score question with the share of the state's
// words (latest message and conversation) its rubric mentions; bad
// changes the answer to test the checks.
func scoreStub(t *testing.T, bad string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "jev-key" {
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		var req struct {
			Model string `json:"model"`
			State struct {
				Latest       string `json:"latest user message"`
				Conversation []struct{ Role, Content string }
			} `json:"state"`
			Questions map[string]struct {
				Type         string
				Instructions map[string]string
				Criteria     []string
			} `json:"questions"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
			return
		}
		state := req.State.Latest
		for _, c := range req.State.Conversation {
			state += " " + c.Content
		}
		need := analyze.Terms(state)
		answers := map[string]any{}
		for k, q := range req.Questions {
			if q.Type != "score" || len(q.Criteria) != 2 || q.Instructions["question"] != systemone.Question {
				t.Errorf("question %s: %+v", k, q)
			}
			have := map[string]bool{}
			for _, w := range analyze.Terms(q.Instructions["skill"]) {
				have[w] = true
			}
			n := 0
			for _, w := range need {
				if have[w] {
					n++
				}
			}
			score := float64(n) / float64(max(len(need), 1))
			answers[k] = map[string]any{"type": "score", "score": score, "confidence": 0.9}
		}
		switch bad {
		case "missing":
			delete(answers, "skill_1")
		case "out of range":
			answers["skill_1"] = map[string]any{"type": "score", "score": 1.5}
		case "extra":
			answers["skill_99"] = map[string]any{"type": "score", "score": 1}
			delete(answers, "skill_1")
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"model": "jev-test-1", "answers": answers})
	}
}

func input(need string, history ...string) *rerank.Input {
	docs := []index.Doc{
		{AgentName: "Assortment", Name: "GetProduct", Description: "Look up a product's SKU and category by name.", Tags: []string{"catalog"}},
		{AgentName: "SupplyChain", Name: "GetStock", Description: "Stock left for a product.", Tags: []string{"stock"}},
		{AgentName: "SupplyChain", Name: "GetShipments", Description: "Inbound shipments and their delivery status.", Tags: []string{"shipments"}},
	}
	res := &index.Result{}
	for i := range docs {
		res.Candidates = append(res.Candidates, index.Candidate{Doc: i, Entry: &docs[i]})
	}
	return &rerank.Input{Req: &extract.Requirement{Need: need, History: history}, Result: res}
}

func scorer(t *testing.T, bad string) *systemone.Scorer {
	srv := modelapitest.New()
	t.Cleanup(srv.Close)
	srv.Handle("POST /v1/systemone", scoreStub(t, bad))
	s, err := systemone.New(systemone.Config{Threshold: 0.15,
		Client: modelapi.Client{URL: modelapi.Endpoint(srv.BaseURL(), "systemone"), Key: "jev-key", Header: "X-API-Key", Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScoresWithRecentTurnsAndThreshold(t *testing.T) {
	s := scorer(t, "")
	scored, err := s.Rerank(context.Background(), input("and the shipments?", "how much stock is left for the winter coat"))
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, sc := range scored {
		if sc.Score > 0 {
			kept[sc.Entry.Name] = true
		} else if !strings.Contains(sc.Reason, "under the threshold") {
			t.Errorf("%s dropped without saying why: %q", sc.Entry.Name, sc.Reason)
		}
	}
	if !kept["GetShipments"] || kept["GetProduct"] {
		t.Errorf("kept %v: want GetShipments (named) and not GetProduct", kept)
	}
	if scored[0].Entry.Name != "GetShipments" && scored[0].Entry.Name != "GetStock" {
		t.Errorf("first: %s", scored[0].Entry.Name)
	}
}

func TestRefusesAnswersOutsideTheQuestions(t *testing.T) {
	for _, bad := range []string{"missing", "out of range", "extra"} {
		t.Run(bad, func(t *testing.T) {
			if _, err := scorer(t, bad).Rerank(context.Background(), input("stock of the coat")); !errors.Is(err, systemone.ErrBadAnswer) {
				t.Errorf("err %v, want ErrBadAnswer", err)
			}
		})
	}
}
