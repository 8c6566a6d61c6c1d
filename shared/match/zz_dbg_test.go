package match

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func TestZZDialogue(t *testing.T) {
	cat, _ := catalog.LoadDirUnlisted(os.Getenv("DBG_SET"), catalog.EntryDefault)
	m, err := New(cat, WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	tk := &task.Task{ID: "x", Message: task.Message{Parts: []task.Part{{Text: os.Getenv("DBG_TEXT")}}}}
	for _, h := range strings.Split(os.Getenv("DBG_HIST"), "||") {
		if h != "" {
			tk.History = append(tk.History, task.Message{Role: "user", Parts: []task.Part{{Text: h}}})
		}
	}
	tk.Caller.Scopes = strings.Split(os.Getenv("DBG_SCOPES"), ",")
	res, err := m.Match(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("need:", res.Requirement.Need, "| decision:", res.Decision.Action, res.Decision.Reason)
	if res.Shortlist != nil && res.Shortlist.History != nil {
		for i, c := range res.Shortlist.History.Candidates {
			if i < 3 {
				fmt.Println("  history", i, c.Entry.Key)
			}
		}
	}
	for i, r := range res.Ranked {
		if i >= 5 {
			break
		}
		fmt.Printf("%d %s p=%.2f fit=%.2f %s\n", i+1, r.Entry.Key, r.Prob, r.Score, r.Reason)
	}
}
