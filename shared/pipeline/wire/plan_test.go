package wire

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// A plan gets one request per step, to the step's agent, carrying only
// its own part of the request and its own decision id.
func TestStepRequests(t *testing.T) {
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon, then convert 250 dollars to euros"}}}}
	d := decide.Decision{Action: decide.Plan, Steps: []decide.Step{
		{Part: "book a flight to Lisbon", Chosen: decide.Option{Key: "travel-concierge/book-flight", AgentID: "travel-concierge", SkillID: "book-flight"}},
		{Part: "convert 250 dollars to euros", Chosen: decide.Option{Key: "world-info/convert-currency", AgentID: "world-info", SkillID: "convert-currency"}},
	}}
	reqs, err := StepRequests(cat, d, tk, "d-1", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		body := string(r.Body)
		other := d.Steps[1-i].Part
		if !strings.Contains(body, d.Steps[i].Part) || strings.Contains(body, other) {
			t.Errorf("step %d body carries the wrong part: %s", i+1, body)
		}
		if !strings.Contains(body, d.Steps[i].Chosen.SkillID) || !strings.Contains(body, "d-1-s") {
			t.Errorf("step %d body lacks its skill or decision id: %s", i+1, body)
		}
		a, _ := cat.Agent(d.Steps[i].Chosen.AgentID)
		if !strings.HasPrefix(r.URL, a.Card.Interfaces[0].URL) {
			t.Errorf("step %d goes to %s, not to %s", i+1, r.URL, a.Card.Interfaces[0].URL)
		}
	}
	// A single decision has no step requests; a step outside the catalog
	// is an error.
	if reqs, err := StepRequests(cat, decide.Decision{Action: decide.Delegate}, tk, "d-1", false); reqs != nil || err != nil {
		t.Errorf("delegate: %v, %v", reqs, err)
	}
	d.Steps[0].Chosen.AgentID = "nobody"
	if _, err := StepRequests(cat, d, tk, "d-1", false); err == nil {
		t.Error("a step to an agent outside the catalog built a request")
	}
}
