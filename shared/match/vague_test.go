package match_test

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// A thin request that points at something it does not name ("help me with
// this") is never delegated, whatever the policy would do with its score,
// unless one of its words is the best skill's stated job, or an earlier
// turn or an attached file supplies what it points at.
func TestThinRequestNotNamingTheJobIsNotDelegated(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, honest()...), match.WithPolicy(delegateAlways))
	withTurn := func(tk *task.Task, turn string) *task.Task {
		tk.History = append(tk.History, task.Message{Role: "user", Parts: []task.Part{{Text: turn}}})
		return tk
	}
	tests := []struct {
		name    string
		task    *task.Task
		unnamed bool
	}{
		{"points at nothing", textTask("v1", "help me with this"), true},
		{"no content word at all", textTask("v2", "can you do it for me"), true},
		{"names the job", textTask("v3", "translate this"), false},
		{"enough words", textTask("v4", "put this paragraph into French for the client"), false},
		{"no pointer", textTask("v5", "weather"), false},
		// The code review's description "suggests fixes" is how it works,
		// not its job: its name and tags say review, pull request, bugs.
		{"a word only a description holds", textTask("v8", "just fix everything"), true},
		{"a word of the skill's name", textTask("v9", "review this"), false},
		{"anyone at all to do it", textTask("v10", "can someone look into it"), true},
		// "problem" is only in the code review's description, "order" in
		// the translation's example: a trouble reported, no job named.
		{"a problem with something no label names", textTask("v11", "we've got a problem with an order"), true},
		{"a problem with what a label names", textTask("v12", "we've got a problem with the weather"), false},
		{"an earlier turn says what", withTurn(textTask("v6", "help me with this"), "I have an email to Ana that must go out in German"), false},
		{"a file says what", withFile(textTask("v7", "help me with this"), "change.diff", "text/x-diff"), false},
		// A file several agents take says what the request points at, not
		// what to do with it.
		{"a file of many uses", withFile(textTask("v13", "could you take a look at the attached?"), "report.pdf", "application/pdf"), true},
		{"a file of many uses, the job named", withFile(textTask("v14", "summarise the attached"), "report.pdf", "application/pdf"), false},
	}
	// "go" is a light verb ("make it go through"), not the job of a card
	// terminal sold as "Go", though the tag says the word.
	terminals := agentSpec{ID: "tillco", Name: "TillCo", Desc: "Card terminals for shops.",
		Skills: []skillSpec{{ID: "terminal-go", Name: "Card terminals - TillCo Go", Desc: "The TillCo Go card terminal for small shops: chip and PIN, contactless, receipts.",
			Tags: []string{"card terminal", "contactless", "Go"}}}}
	var others []agentSpec
	for _, a := range honest() {
		if a.ID != "code-lens" { // its examples say "go" too
			others = append(others, a)
		}
	}
	mGo := newMatcher(t, buildCatalog(t, append(others, terminals)...), match.WithPolicy(delegateAlways))
	res := mustMatch(t, mGo, textTask("v15", "make it go through"))
	if top := res.Ranked[0]; top.Entry.Key != "tillco/terminal-go" || !top.Unnamed || res.Decision.Action != decide.Abstain {
		t.Errorf("make it go through: top %s unnamed %v, %s (%s); want the Go terminal first, unnamed, abstained", top.Entry.Key, top.Unnamed, res.Decision.Action, res.Decision.Reason)
	}
	for _, tc := range tests {
		res := mustMatch(t, m, tc.task)
		if len(res.Ranked) == 0 {
			t.Fatalf("%s: nothing ranked", tc.name)
		}
		if got := res.Ranked[0].Unnamed; got != tc.unnamed {
			t.Errorf("%s: top %s unnamed %v, want %v", tc.name, res.Ranked[0].Entry.Key, got, tc.unnamed)
		}
		switch a := res.Decision.Action; {
		case tc.unnamed && a != decide.Abstain:
			t.Errorf("%s: %s (%s), want abstain", tc.name, a, res.Decision.Reason)
		case !tc.unnamed && a != decide.Delegate:
			t.Errorf("%s: %s (%s), want the policy's delegation", tc.name, a, res.Decision.Reason)
		}
	}
}
