package match_test

import (
	"context"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// The shortlist stage retrieves the earlier turns over the shortlist, so "yes,
// book it" can lean on what the conversation was about; a task without
// earlier turns gets no history retrieval.
func TestShortlistHistory(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, honest()...))
	ctx := context.Background()
	tests := []struct {
		name    string
		history []string
		want    string // the shortlisted skill the earlier turns favour; "" for no history
	}{
		{"no history", nil, ""},
		{"weather talk", []string{"is it going to snow in Oslo this weekend", "and the wind?"}, "atlas-weather/forecast"},
		{"meeting talk", []string{"I need a slot with the design team", "Thursday works best"}, "meet-maker/schedule-meeting"},
	}
	for _, tc := range tests {
		tk := textTask("h", "yes please, go ahead with that")
		for _, h := range tc.history {
			tk.History = append(tk.History, task.Message{Role: "user", Parts: []task.Part{{Text: h}}})
		}
		req := m.Extract(tk)
		sl, err := m.Shortlist(ctx, &req)
		if err != nil {
			t.Fatal(err)
		}
		in := sl // the history retrieval travels with the shortlist
		if tc.want == "" {
			if in.History != nil {
				t.Errorf("%s: history retrieval %+v without earlier turns", tc.name, in.History)
			}
			continue
		}
		if in.History == nil || len(in.History.Candidates) == 0 {
			t.Fatalf("%s: no history retrieval", tc.name)
		}
		short := map[int]bool{}
		for _, c := range sl.Retrieval.Candidates {
			short[c.Doc] = true
		}
		for _, c := range in.History.Candidates {
			if !short[c.Doc] {
				t.Errorf("%s: history retrieved %s, which is not in the shortlist", tc.name, c.Entry.Key)
			}
		}
		if got := in.History.Candidates[0].Entry.Key; got != tc.want {
			t.Errorf("%s: earlier turns favour %s, want %s", tc.name, got, tc.want)
		}
	}
}
