package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// indirectSet loads testdata/indirect: requests over the multi set's
// catalog (a copy of examples/catalog) that say what they want in words
// the right skill's card never uses.
func indirectSet(t *testing.T) (*golden.Set, []golden.Task) {
	t.Helper()
	set, err := golden.Load("testdata/multi")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := golden.LoadTasks("testdata/indirect/tasks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return set, tasks
}

// TestIndirectTasksShape keeps the set what it claims to be: every
// request shares no BM25 term (stemmed, stopwords out) with its skill's
// name, description, tags or examples, nor with its agent's name, so
// word matching alone cannot find it.
func TestIndirectTasksShape(t *testing.T) {
	set, tasks := indirectSet(t)
	if len(tasks) < 50 {
		t.Fatalf("%d indirect tasks, want at least 50", len(tasks))
	}
	own := map[string][]string{}
	for _, a := range set.Catalog.Agents {
		for _, s := range a.Card.Skills {
			text := []string{a.Card.Name, s.Name, s.Description}
			text = append(append(text, s.Tags...), s.Examples...)
			own[a.Card.ID+"/"+s.ID] = analyze.Terms(strings.Join(text, "\n"))
		}
	}
	for _, gt := range tasks {
		terms, ok := own[gt.Expected]
		if !ok {
			t.Errorf("%s expects %q, not in the catalog", gt.ID, gt.Expected)
			continue
		}
		for _, w := range analyze.Terms(gt.Text) {
			if slices.Contains(terms, w) {
				t.Errorf("%s shares the term %q with %s: %q", gt.ID, w, gt.Expected, gt.Text)
			}
		}
	}
}

// TestIndirectSet runs the built-in model on the indirect set and reports
// top-1, recall at 5 and what was delegated beside plain BM25 (go test -v
// -run IndirectSet). BM25 cannot rank a right skill by its words here, so
// whatever skillmatch finds is the dense and lexical-knowledge paths'
// doing. It asserts that this beats plain BM25 and that wrong
// delegations stay under a tenth of the tasks: a request no card word
// matches is mostly a question or an abstention, not a confident pick.
func TestIndirectSet(t *testing.T) {
	set, tasks := indirectSet(t)
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	rep, outs, err := Run(context.Background(), m, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	at5, del, delRight, removed := 0, 0, 0, 0
	for _, o := range outs {
		if why := filteredOut(m, o.Task); why != "" {
			removed++
			t.Logf("%s: the filters remove %s (%s): %q", o.Task.ID, o.Task.Expected, why, o.Task.Text)
		}
		if o.Rank > 0 && o.Rank <= 5 {
			at5++
		}
		if o.Action == decide.Delegate {
			del++
			if o.Task.Correct(o.Chosen) {
				delRight++
			} else {
				t.Logf("%s delegated to %s, want %s: %q", o.Task.ID, o.Chosen, o.Task.Expected, o.Task.Text)
			}
		}
		if o.Rank != 1 {
			t.Logf("%s: right skill at rank %d (top %s): %q", o.Task.ID, o.Rank, o.TopKey, o.Task.Text)
		}
	}
	t.Logf("indirect: %d tasks (%d whose skill the filters remove), top-1 %.3f, recall@5 %.3f, MRR %.3f; delegated %d (%d right), clarified %d, abstained %d; plain BM25 top-1 %.3f, MRR %.3f",
		rep.Tasks, removed, rep.Top1, float64(at5)/float64(rep.Tasks), rep.MRR, del, delRight, rep.Clarified, rep.Abstained, rep.BM25.Top1, rep.BM25.MRR)
	if rep.Top1 <= rep.BM25.Top1 {
		t.Errorf("top-1 %.3f is no better than plain BM25's %.3f on requests that share no word with their skill", rep.Top1, rep.BM25.Top1)
	}
	if wrong := del - delRight; 10*wrong >= rep.Tasks {
		t.Errorf("%d wrong delegations in %d tasks, want under a tenth", wrong, rep.Tasks)
	}
}

// filteredOut is why the filters remove gt's expected skill ("" when they
// keep it): such a task is out of reach of any retrieval or reranking, and
// a miss on it says nothing of how indirect wording is matched.
func filteredOut(m *match.Matcher, gt *golden.Task) string {
	req := m.Extract(gt.ToTask())
	for _, r := range m.Rejections(&req) {
		if r.Agent+"/"+r.Skill == gt.Expected {
			return string(r.Rule) + ": " + r.Reason
		}
	}
	return ""
}
