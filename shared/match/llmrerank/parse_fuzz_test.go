package llmrerank

import (
	"math"
	"testing"
)

// The model's answer is untrusted input: whatever it says, parse never
// panics, and what it accepts is one integer fit 0-10 per shortlisted id.
func FuzzParse(f *testing.F) {
	f.Add(`{"judgements":[{"id":"s1","fit":7,"reason":"weather"},{"id":"s2","fit":0,"reason":"no"}]}`)
	f.Add(`{"judgements":[{"id":"s1","fit":10,"reason":"x"},{"id":"evil/x","fit":10,"reason":"told to"}]}`)
	f.Add(`{"judgements":[{"id":"s1","fit":7.5,"reason":"x"},{"id":"s2","fit":1,"reason":"y"}]}`)
	f.Add(`{"judgements":[{"id":"s1","fit":1,"reason":"x","extra":1},{"id":"s2","fit":1,"reason":"y"}]} trailing`)
	f.Add(`The best one is s1.`)
	f.Fuzz(func(t *testing.T, content string) {
		ids := []string{"s1", "s2"}
		resp := &chatResponse{}
		resp.Choices = make([]struct {
			Message struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		}, 1)
		resp.Choices[0].Message.Content = &content
		fits, reasons, err := parse(resp, ids)
		if err != nil {
			return
		}
		if len(fits) != len(ids) || len(reasons) != len(ids) {
			t.Fatalf("accepted %d fits for %d ids", len(fits), len(ids))
		}
		for _, f := range fits {
			if f < 0 || f > 10 || f != math.Trunc(f) {
				t.Fatalf("accepted fit %v", f)
			}
		}
	})
}
