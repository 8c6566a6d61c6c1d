package golden

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTasks(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTasks(t *testing.T) {
	p := writeTasks(t,
		`{"id":"a","text":"pay my bill","split":"train","expected":"bank/pay","acceptable":["wallet/pay"]}`,
		``,
		`{"id":"b","text":"tell me a joke about dragons","split":"dev","expected":null}`,
		`{"id":"c","text":"summarise this","inputTypes":["application/pdf"],"outputTypes":["application/json"],"needsStreaming":true,"dataClass":"confidential","callerScopes":[],"history":["earlier"],"expected":"docs/sum"}`,
	)
	tasks, err := LoadTasks(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 {
		t.Fatalf("%d tasks", len(tasks))
	}
	a, b, c := tasks[0], tasks[1], tasks[2]
	if !a.Correct("bank/pay") || !a.Correct("wallet/pay") || a.Correct("bank/other") || a.NoMatch() {
		t.Errorf("task a labels wrong: %+v", a)
	}
	if !b.NoMatch() || b.Correct("") {
		t.Errorf("task b should be no-match: %+v", b)
	}
	tt := c.ToTask()
	if tt.Caller.Scopes == nil || len(tt.Caller.Scopes) != 0 {
		t.Errorf("callerScopes [] must stay an empty, non-nil list: %#v", tt.Caller.Scopes)
	}
	if tt.Constraints.Streaming == nil || !*tt.Constraints.Streaming || tt.Caller.DataClass != "confidential" {
		t.Errorf("constraints lost: %+v", tt)
	}
	if len(tt.Message.Parts) != 2 || tt.Message.Parts[1].File.MediaType != "application/pdf" || len(tt.History) != 1 {
		t.Errorf("parts or history lost: %+v", tt)
	}
	if a.ToTask().Caller.Scopes != nil {
		t.Error("a task without callerScopes must not be filtered on security")
	}
}

func TestLoadTasksRejects(t *testing.T) {
	tests := map[string]string{
		"missing expected":         `{"id":"a","text":"x"}`,
		"acceptable with null":     `{"id":"a","text":"x","expected":null,"acceptable":["a/b"]}`,
		"expected without a slash": `{"id":"a","text":"x","expected":"nokey"}`,
		"missing text":             `{"id":"a","expected":null}`,
		"not json":                 `{"id":`,
	}
	for name, line := range tests {
		if _, err := LoadTasks(writeTasks(t, line)); !errors.Is(err, ErrInvalidSet) {
			t.Errorf("%s: err %v, want ErrInvalidSet", name, err)
		}
	}
	dup := writeTasks(t, `{"id":"a","text":"x","expected":null}`, `{"id":"a","text":"y","expected":null}`)
	if _, err := LoadTasks(dup); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate ids: %v", err)
	}
}

// A set without cards says so, and why a card was refused when one was.
func TestLoadWithoutCards(t *testing.T) {
	empty := t.TempDir()
	if _, err := Load(empty); !errors.Is(err, ErrInvalidSet) || !strings.Contains(err.Error(), "no cards") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("empty folder: %v", err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "x.json"), []byte(`{"name":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(broken); !errors.Is(err, ErrInvalidSet) || !strings.Contains(err.Error(), "x.json") {
		t.Errorf("a folder of one broken card: %v", err)
	}
}

func TestSplit(t *testing.T) {
	s := &Set{Tasks: []Task{{ID: "a", Split: "train"}, {ID: "b", Split: "dev"}, {ID: "c", Split: "dev"}}}
	if len(s.Split("dev")) != 2 || len(s.Split("train")) != 1 || len(s.Split("all")) != 3 || len(s.Split("test")) != 0 {
		t.Error("split counts wrong")
	}
}

func TestLoadTasksCategory(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"given", `{"id":"a","text":"x","expected":null,"category":"vague"}`, "vague"},
		{"absent", `{"id":"a","text":"x","expected":null}`, ""},
		// Other extra fields stay allowed and ignored.
		{"with other extra fields", `{"id":"a","text":"x","expected":null,"category":"twins","note":"n"}`, "twins"},
	}
	for _, tc := range tests {
		tasks, err := LoadTasks(writeTasks(t, tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tasks[0].Category != tc.want {
			t.Errorf("%s: category %q, want %q", tc.name, tasks[0].Category, tc.want)
		}
	}
}

// A mixed copy keeps at most n examples on every other skill of the
// catalog, none on the rest, and leaves the set alone.
func TestWithExamplesMixed(t *testing.T) {
	s, err := Load("../eval/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	mixed := s.WithExamplesMixed(1)
	k, with, without := 0, 0, 0
	for i, a := range mixed.Catalog.Agents {
		for j, sk := range a.Card.Skills {
			orig := s.Catalog.Agents[i].Card.Skills[j]
			switch {
			case k%2 == 1 && len(sk.Examples) > 0:
				t.Errorf("skill %d (%s/%s) kept examples", k, a.Card.ID, sk.ID)
			case k%2 == 0 && len(sk.Examples) != min(1, len(orig.Examples)):
				t.Errorf("skill %d (%s/%s) has %d examples, want %d", k, a.Card.ID, sk.ID, len(sk.Examples), min(1, len(orig.Examples)))
			case k%2 == 0 && len(sk.Examples) == 1 && sk.Examples[0] != orig.Examples[0]:
				t.Errorf("skill %d kept %q, want its first example", k, sk.Examples[0])
			}
			if len(sk.Examples) > 0 {
				with++
			} else if len(orig.Examples) > 0 {
				without++
			}
			k++
		}
	}
	if with == 0 || without == 0 {
		t.Errorf("mixed copy has %d skills with examples and %d stripped of theirs, want both", with, without)
	}
	if s.MostExamples() < 2 {
		t.Errorf("the original lost its examples (most %d)", s.MostExamples())
	}
	if len(mixed.Tasks) != len(s.Tasks) {
		t.Errorf("copy has %d tasks, want %d", len(mixed.Tasks), len(s.Tasks))
	}
}

// A description-only copy drops every example and leaves the set alone.
func TestWithoutExamples(t *testing.T) {
	s, err := Load("../eval/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasExamples() {
		t.Fatal("the hostile set's cards give examples")
	}
	bare := s.WithoutExamples()
	if bare.HasExamples() {
		t.Error("the copy still has examples")
	}
	if !s.HasExamples() {
		t.Error("the original lost its examples")
	}
	if len(bare.Catalog.Agents) != len(s.Catalog.Agents) || len(bare.Tasks) != len(s.Tasks) {
		t.Errorf("copy has %d agents, %d tasks; want %d, %d", len(bare.Catalog.Agents), len(bare.Tasks), len(s.Catalog.Agents), len(s.Tasks))
	}
	for i, a := range bare.Catalog.Agents {
		if len(a.Card.Skills) != len(s.Catalog.Agents[i].Card.Skills) || a.Card.ID != s.Catalog.Agents[i].Card.ID {
			t.Errorf("agent %s changed beyond its examples", a.Card.ID)
		}
	}
	if bare.Dir == s.Dir {
		t.Error("the copy should say it is one in its Dir")
	}
}

// A copy cut to one example a skill keeps each skill's first and leaves
// the set alone.
func TestWithExamplesCut(t *testing.T) {
	s, err := Load("../eval/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	most := s.MostExamples()
	if most < 2 {
		t.Fatalf("the hostile set's cards give at most %d examples a skill: the test needs two", most)
	}
	cut := s.WithExamplesCut(1)
	if got := cut.MostExamples(); got != 1 {
		t.Errorf("the copy gives up to %d examples a skill, want 1", got)
	}
	if s.MostExamples() != most {
		t.Error("the original lost examples")
	}
	for i, a := range cut.Catalog.Agents {
		for j, sk := range a.Card.Skills {
			orig := s.Catalog.Agents[i].Card.Skills[j].Examples
			if len(orig) > 0 && (len(sk.Examples) != 1 || sk.Examples[0] != orig[0]) {
				t.Errorf("%s/%s: examples %q, want its first of %q", a.Card.ID, sk.ID, sk.Examples, orig)
			}
		}
	}
	if cut.Dir == s.Dir {
		t.Error("the copy should say it is one in its Dir")
	}
}

// A task whose expected, acceptable or planned skill is not in the
// catalog is named once, with every such key; the others are not.
func TestUnknownLabels(t *testing.T) {
	s, err := Load("../eval/testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.LabelErrors) != 0 {
		t.Fatalf("the hostile set's labels all name its skills, got %v", s.LabelErrors)
	}
	known := s.Tasks[0].Expected
	if known == "" {
		t.Fatal("the hostile set's first task should expect a skill")
	}
	tasks := []Task{
		{ID: "ok", Expected: known},
		{ID: "none", Expected: ""},
		{ID: "typo", Expected: known + "x"},
		{ID: "acceptable", Expected: known, Acceptable: []string{"ghost/skill", "ghost/skill"}},
		{ID: "plan", ExpectedPlan: []string{known, "ghost/other"}},
	}
	var got []string
	for _, e := range unknownLabels(s.Catalog, tasks) {
		got = append(got, e.Error())
	}
	want := []string{
		`task "typo": ` + known + `x: no such skill in the catalog`,
		`task "acceptable": ghost/skill: no such skill in the catalog`,
		`task "plan": ghost/other: no such skill in the catalog`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unknownLabels:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
