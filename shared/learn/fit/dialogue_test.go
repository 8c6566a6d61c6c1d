package fit

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
)

func TestDialogues(t *testing.T) {
	var tasks []golden.Task
	for i := range 400 {
		agent := fmt.Sprintf("a%d", i%4)
		skill := fmt.Sprintf("s%d", i%3)
		tasks = append(tasks, golden.Task{
			ID: fmt.Sprintf("t%03d", i), Expected: agent + "/" + skill,
			Text: fmt.Sprintf("please %s %s word%d and then some more words here", agent, skill, i),
		})
	}
	tasks = append(tasks,
		golden.Task{ID: "none1", Text: "explain the purpose of human existence"},
		golden.Task{ID: "none2", Text: "make up a riddle about owls"},
		golden.Task{ID: "talk", Text: "book it", Expected: "a0/s0", History: []string{"find a0 s1"}},
	)
	for i := range 40 {
		tasks = append(tasks, golden.Task{ID: fmt.Sprintf("n%02d", i), Text: fmt.Sprintf("nothing at all %d", i)})
	}
	byText := map[string]*golden.Task{}
	for i := range tasks {
		byText[tasks[i].Text] = &tasks[i]
	}
	pool := func(t *golden.Task) int { return int(hash(t.ID) % 3) }
	out := Dialogues(tasks, pool)
	if again := Dialogues(tasks, pool); !reflect.DeepEqual(out, again) {
		t.Fatal("two runs made different dialogue tasks")
	}
	// About half of the tasks, by hash.
	if n := len(out); n < len(tasks)/3 || n > 2*len(tasks)/3 {
		t.Errorf("%d dialogue tasks from %d", n, len(tasks))
	}
	var carried, switched, noMatch int
	src := map[string]*golden.Task{}
	for i := range tasks {
		src[tasks[i].ID] = &tasks[i]
	}
	for _, d := range out {
		if !strings.HasSuffix(d.ID, DialogueSuffix) {
			t.Fatalf("id %q", d.ID)
		}
		s := src[sourceID(d.ID)]
		if s == nil || len(s.History) > 0 {
			t.Fatalf("%s: made from %v", d.ID, s)
		}
		if d.Expected != s.Expected || !reflect.DeepEqual(d.Acceptable, s.Acceptable) {
			t.Errorf("%s: label %q, source's %q", d.ID, d.Expected, s.Expected)
		}
		if len(d.History) != 1 {
			t.Fatalf("%s: history %q", d.ID, d.History)
		}
		// The earlier turn is a labelled text of the same pool.
		u := byText[d.History[0]]
		if u == nil || u.Expected == "" || pool(u) != pool(s) {
			t.Fatalf("%s: earlier turn %q is no labelled text of the pool", d.ID, d.History[0])
		}
		switch {
		case s.Expected == "":
			noMatch++
			if d.Text != s.Text {
				t.Errorf("%s: a no-match task's text changed", d.ID)
			}
		case agentOf(u.Expected) == agentOf(s.Expected):
			carried++
			if u.Expected == s.Expected {
				t.Errorf("%s: the earlier turn is the same skill's", d.ID)
			}
			if d.Text == s.Text || !strings.Contains(s.Text, d.Text) || len(strings.Fields(d.Text)) < 2 {
				t.Errorf("%s: current turn %q is not a part of %q", d.ID, d.Text, s.Text)
			}
		default:
			switched++
			if d.Text != s.Text {
				t.Errorf("%s: a topic switch changed the text", d.ID)
			}
		}
	}
	if carried == 0 || switched == 0 || noMatch == 0 {
		t.Errorf("carried %d, switched %d, no-match %d: every kind must occur", carried, switched, noMatch)
	}
}

func TestHalf(t *testing.T) {
	for _, c := range []struct {
		text   string
		second bool
		want   string
	}{
		{"book it now", false, "book it now"},
		{"one two three four", true, "one two three four"},
		{"one two three four five", false, "one two three"},
		{"one two three four five", true, "three four five"},
		{"a b c d e f", true, "d e f"},
	} {
		if got := half(c.text, c.second); got != c.want {
			t.Errorf("half(%q, %v) = %q, want %q", c.text, c.second, got, c.want)
		}
	}
}
