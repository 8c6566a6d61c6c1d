package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMatchPrintsPlan: a request with two intents prints a plan with one
// line per step, --json carries the steps, and --plan-steps 0 turns plans
// off.
func TestMatchPrintsPlan(t *testing.T) {
	text := "book a flight from Boston to Lisbon on Monday, then convert 250 US dollars to euros"
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, text)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"plan of 2 steps", "step 1: travel-concierge/book-flight", "step 2: world-info/convert-currency", "reason: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = runCmd(t, "match", "--cards", examplesDir, "--json", text)
	if code != 0 {
		t.Fatalf("--json: exit %d; stderr:\n%s", code, stderr)
	}
	var d struct {
		Action string `json:"action"`
		Steps  []struct {
			Part   string `json:"part"`
			Chosen struct {
				Key string `json:"key"`
			} `json:"chosen"`
			Probability float64 `json:"probability"`
		} `json:"steps"`
		StepRequests []struct {
			URL  string          `json:"url"`
			Body json.RawMessage `json:"body"`
		} `json:"stepRequests"`
	}
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if d.Action != "plan" || len(d.Steps) != 2 || d.Steps[1].Chosen.Key != "world-info/convert-currency" || d.Steps[1].Part != "convert 250 US dollars to euros" {
		t.Errorf("--json plan: %+v", d)
	}
	if len(d.StepRequests) != 2 || !strings.Contains(string(d.StepRequests[1].Body), "convert 250 US dollars to euros") ||
		strings.Contains(string(d.StepRequests[1].Body), "Boston") {
		t.Errorf("--json plan: want one A2A request per step with its own part, got %+v", d.StepRequests)
	}
	code, stdout, _ = runCmd(t, "match", "--cards", examplesDir, "--plan-steps", "0", text)
	if code != 0 || strings.Contains(stdout, "plan") {
		t.Errorf("--plan-steps 0: exit %d, output:\n%s", code, stdout)
	}
}
