package pipeline

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// The shortlist survives the wire exactly: ranking the decoded shortlist
// gives the in-process ranking.
func TestShortlistWireIsExact(t *testing.T) {
	m := testMatcher(t)
	ctx := context.Background()
	texts := []string{"book me a flight to Lisbon next Tuesday", "reset my password", "what's the weather in Oslo",
		"summarise this contract and flag risky clauses", "xyzzy plugh"}
	for i, text := range texts {
		tk := &task.Task{ID: "t", Message: task.Message{Parts: []task.Part{{Text: text}}}}
		if i%2 == 1 {
			// Earlier turns: their retrieval travels with the shortlist.
			tk.History = []task.Message{{Role: "user", Parts: []task.Part{{Text: "is it going to snow in Oslo this weekend"}}}}
		}
		req := m.Extract(tk)
		sl, err := m.Shortlist(ctx, &req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Rank(ctx, &req, sl)
		if err != nil {
			t.Fatal(err)
		}
		sl.Degraded = match.DegradedEmbedder // travels to the decision
		b, err := json.Marshal(shortlistToWire(sl))
		if err != nil {
			t.Fatal(err)
		}
		var ws wire.Shortlist
		if err := json.Unmarshal(b, &ws); err != nil {
			t.Fatal(err)
		}
		sl2, err := shortlistFromWire(&ws, m.Index())
		if err != nil {
			t.Fatal(err)
		}
		if (sl.History == nil) != (sl2.History == nil) || (sl.History != nil && len(sl.History.Candidates) != len(sl2.History.Candidates)) {
			t.Errorf("%q: history retrieval %v before the wire, %v after", text, sl.History, sl2.History)
		}
		if sl2.Degraded != match.DegradedEmbedder {
			t.Errorf("%q: degraded %q after the wire", text, sl2.Degraded)
		}
		if sl2.Rejected != sl.Rejected {
			t.Errorf("%q: %d skills rejected after the wire, %d before", text, sl2.Rejected, sl.Rejected)
		}
		got, err := m.Rank(ctx, &req, sl2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(match.Options(got), match.Options(want)) {
			t.Errorf("%q: ranking after the wire differs", text)
		}
		dGot, _ := m.Decide(got)
		dWant, _ := m.Decide(want)
		if !reflect.DeepEqual(dGot, dWant) {
			t.Errorf("%q: decision after the wire differs", text)
		}
	}
	// A shortlist naming a doc the index does not have is refused.
	for name, bad := range map[string]wire.Shortlist{
		"key mismatch":     {Keys: []string{"no/such"}, Retrieval: &wire.Retrieval{Candidates: []index.Candidate{{Doc: 0}}}},
		"doc out of range": {Keys: []string{""}, Retrieval: &wire.Retrieval{Candidates: []index.Candidate{{Doc: m.Index().Len()}}}},
		"keys missing":     {Retrieval: &wire.Retrieval{Candidates: []index.Candidate{{Doc: 0}}}},
		"neighbour out":    {Retrieval: &wire.Retrieval{Neighbors: []index.Neighbor{{Doc: -1}}}},
		"demoted out":      {Demoted: []int{m.Index().Len()}},
	} {
		if _, err := shortlistFromWire(&bad, m.Index()); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if wire.Fingerprint(m.Index()) == "" {
		t.Error("empty fingerprint")
	}
}

// A history retrieval naming a skill that was not shortlisted is refused:
// the earlier turns are only ever searched over the shortlist.
func TestShortlistWireRefusesForeignHistory(t *testing.T) {
	m := testMatcher(t)
	tk := &task.Task{ID: "t", Message: task.Message{Parts: []task.Part{{Text: "book me a flight to Lisbon"}}},
		History: []task.Message{{Role: "user", Parts: []task.Part{{Text: "I fly on Friday"}}}}}
	req := m.Extract(tk)
	sl, err := m.Shortlist(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	ws := shortlistToWire(sl)
	short := map[int]bool{}
	for _, c := range sl.Retrieval.Candidates {
		short[c.Doc] = true
	}
	foreign := -1
	for d := 0; d < m.Index().Len(); d++ {
		if !short[d] {
			foreign = d
			break
		}
	}
	if foreign < 0 || ws.History == nil || len(ws.History.Candidates) == 0 {
		t.Fatalf("test catalog: foreign doc %d, history %v", foreign, ws.History)
	}
	ws.History.Candidates[0].Doc = foreign
	if _, err := shortlistFromWire(&ws, m.Index()); err == nil {
		t.Error("a history candidate outside the shortlist was accepted")
	}
}
