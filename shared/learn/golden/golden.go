// Package golden reads labelled golden sets: a catalog of agent cards and a
// tasks.jsonl file of tasks with the skill that should take each one.
package golden

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// Task is one labelled task of a golden set.
type Task struct {
	ID             string   `json:"id"`
	Text           string   `json:"text"`
	Split          string   `json:"split,omitempty"`
	InputTypes     []string `json:"inputTypes,omitempty"`
	OutputTypes    []string `json:"outputTypes,omitempty"`
	NeedsStreaming bool     `json:"needsStreaming,omitempty"`
	DataClass      string   `json:"dataClass,omitempty"`
	CallerScopes   []string `json:"callerScopes"`
	History        []string `json:"history,omitempty"`
	// Expected is "<agent>/<skillId>", or "" when no skill should take it.
	Expected   string   `json:"-"`
	Acceptable []string `json:"acceptable,omitempty"`
	// Category is an optional free label ("injection", "vague") that
	// evaluations break their figures down by; the format allows extra
	// fields, and a set without it reads as before.
	Category string `json:"category,omitempty"`
	// ExpectedPlan, for a request with several intents, lists the skills
	// a plan should delegate to, in the request's order (an extension of
	// the format, like Category; a set without it reads as before).
	ExpectedPlan []string `json:"expected_plan,omitempty"`
}

// NoMatch reports whether the right outcome is to abstain or clarify.
func (t *Task) NoMatch() bool { return t.Expected == "" }

// Correct reports whether key is the expected or an acceptable skill.
func (t *Task) Correct(key string) bool {
	if key == "" || t.Expected == "" {
		return false
	}
	if key == t.Expected {
		return true
	}
	for _, a := range t.Acceptable {
		if a == key {
			return true
		}
	}
	return false
}

// ToTask turns the labelled task into the task a caller would submit.
func (t *Task) ToTask() *task.Task {
	out := &task.Task{ID: t.ID}
	out.Message.Role = "user"
	out.Message.Parts = []task.Part{{Text: t.Text}}
	for i, mt := range t.InputTypes {
		out.Message.Parts = append(out.Message.Parts, task.Part{File: &task.File{
			Name: fmt.Sprintf("attachment-%d", i+1), MediaType: mt}})
	}
	for _, h := range t.History {
		out.History = append(out.History, task.Message{Role: "user", Parts: []task.Part{{Text: h}}})
	}
	out.Caller = task.Caller{Scopes: t.CallerScopes, DataClass: t.DataClass}
	if len(t.OutputTypes) > 0 {
		out.Constraints.AcceptedOutputTypes = t.OutputTypes
	}
	if t.NeedsStreaming {
		streaming := true
		out.Constraints.Streaming = &streaming
	}
	return out
}

// Set is a golden set: its catalog and its tasks.
type Set struct {
	Dir     string
	Catalog *catalog.Catalog
	Tasks   []Task
	// CardErrors are cards that failed to load; the rest of the set loads.
	CardErrors []error
	// LabelErrors are tasks whose expected, acceptable or planned skill
	// is no skill of the catalog (a typo, or a card in CardErrors). They
	// still load: an evaluation counts them missed, a fit has nothing
	// right to learn from them, and the caller says so.
	LabelErrors []error
}

// Split returns the tasks of one split; "" or "all" returns every task.
func (s *Set) Split(name string) []Task {
	if name == "" || name == "all" {
		return s.Tasks
	}
	var out []Task
	for _, t := range s.Tasks {
		if t.Split == name {
			out = append(out, t)
		}
	}
	return out
}

// ErrInvalidSet marks a golden set that cannot be used.
var ErrInvalidSet = errors.New("invalid golden set")

// Load reads a golden set folder.
func Load(dir string) (*Set, error) {
	// FORMAT.md: agents the registry does not list are up, internal and
	// not external.
	cat, cardErrs := catalog.LoadDirUnlisted(dir, catalog.EntryDefault)
	if cat == nil || len(cat.Agents) == 0 {
		if len(cardErrs) == 0 {
			return nil, fmt.Errorf("%w: %s: no cards (a golden set is a folder of card files, or a cards/ folder, beside tasks.jsonl)", ErrInvalidSet, dir)
		}
		return nil, fmt.Errorf("%w: %s: no card could be loaded (%w)", ErrInvalidSet, dir, errors.Join(cardErrs...))
	}
	tasks, err := LoadTasks(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		return nil, err
	}
	return &Set{Dir: dir, Catalog: cat, Tasks: tasks, CardErrors: cardErrs, LabelErrors: unknownLabels(cat, tasks)}, nil
}

// unknownLabels lists each task whose labels name a skill cat does not
// hold.
func unknownLabels(cat *catalog.Catalog, tasks []Task) []error {
	var errs []error
	for i := range tasks {
		t := &tasks[i]
		var missing []string
		for _, k := range slices.Concat([]string{t.Expected}, t.Acceptable, t.ExpectedPlan) {
			if _, ok := cat.Skill(k); k != "" && !ok && !slices.Contains(missing, k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Errorf("task %q: %s: no such skill in the catalog", t.ID, strings.Join(missing, ", ")))
		}
	}
	return errs
}

// LoadTasks reads a tasks.jsonl file, checking the rules of the format.
func LoadTasks(path string) ([]Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	defer f.Close()
	var tasks []Task
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		t, err := parseTask([]byte(raw))
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrInvalidSet, path, line, err)
		}
		if seen[t.ID] {
			return nil, fmt.Errorf("%w: %s:%d: duplicate task id %q", ErrInvalidSet, path, line, t.ID)
		}
		seen[t.ID] = true
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load tasks %s: %w", path, err)
	}
	return tasks, nil
}

func parseTask(raw []byte) (Task, error) {
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, err
	}
	var labels struct {
		Expected *string `json:"expected"`
	}
	if err := json.Unmarshal(raw, &labels); err != nil {
		return t, err
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	switch {
	case t.ID == "":
		return t, errors.New("missing id")
	case strings.TrimSpace(t.Text) == "":
		return t, fmt.Errorf("task %q: missing text", t.ID)
	case fields["expected"] == nil:
		return t, fmt.Errorf("task %q: missing expected (use null for no match)", t.ID)
	}
	if labels.Expected != nil {
		t.Expected = *labels.Expected
		if !strings.Contains(t.Expected, "/") {
			return t, fmt.Errorf("task %q: expected %q is not <agent>/<skillId>", t.ID, t.Expected)
		}
	}
	for _, k := range t.ExpectedPlan {
		if !strings.Contains(k, "/") {
			return t, fmt.Errorf("task %q: expected_plan entry %q is not <agent>/<skillId>", t.ID, k)
		}
	}
	if t.Expected == "" && len(t.Acceptable) > 0 {
		return t, fmt.Errorf("task %q: acceptable given with expected null", t.ID)
	}
	return t, nil
}

// WithoutExamples returns a copy of the set whose cards have no examples:
// the description-only regime most catalogs are in. The tasks are shared;
// the original set is not changed.
func (s *Set) WithoutExamples() *Set { return s.WithExamplesCut(0) }

// WithExamplesCut is the set with each card skill's examples cut to its
// first n: the regime of cards written by hand, which give one example or
// two where clinc150's give five.
func (s *Set) WithExamplesCut(n int) *Set {
	dir := s.Dir + " (no card examples)"
	if n > 0 {
		dir = fmt.Sprintf("%s (at most %d card examples)", s.Dir, n)
	}
	return s.withCardExamples(dir, func(int) int { return n })
}

// WithExamplesMixed is the set with every other card skill's examples
// removed (the first, third, ... skill of the catalog keeps its first n):
// the regime of catalogs written by hand, where some skills give an
// example or two and the rest a description alone, side by side.
func (s *Set) WithExamplesMixed(n int) *Set {
	return s.withCardExamples(fmt.Sprintf("%s (every other skill with at most %d card examples, the rest none)", s.Dir, n),
		func(k int) int { return n * (1 - k%2) })
}

// withCardExamples is a copy of the set, named dir, whose k-th card skill
// (in catalog order) keeps its first keep(k) examples. The tasks are
// shared; the original set is not changed.
func (s *Set) withCardExamples(dir string, keep func(k int) int) *Set {
	agents := make([]catalog.Agent, len(s.Catalog.Agents))
	k := 0
	for i, a := range s.Catalog.Agents {
		c := *a.Card
		c.Skills = append([]card.Skill(nil), a.Card.Skills...)
		for j := range c.Skills {
			c.Skills[j].Examples = slices.Clip(c.Skills[j].Examples[:min(keep(k), len(c.Skills[j].Examples))])
			k++
		}
		agents[i] = catalog.Agent{Card: &c, Status: a.Status}
	}
	cat := *s.Catalog
	cat.Agents = agents
	return &Set{Dir: dir, Catalog: &cat, Tasks: s.Tasks, CardErrors: s.CardErrors}
}

// MostExamples is the most examples a card skill of the set gives.
func (s *Set) MostExamples() int {
	most := 0
	for _, a := range s.Catalog.Agents {
		for _, sk := range a.Card.Skills {
			most = max(most, len(sk.Examples))
		}
	}
	return most
}

// HasExamples reports whether any card of the set gives examples.
func (s *Set) HasExamples() bool { return s.MostExamples() > 0 }
