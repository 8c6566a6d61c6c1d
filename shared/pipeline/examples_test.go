package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func examplesStore(ctx context.Context, t *testing.T, js jetstream.JetStream, limit int) *Examples {
	t.Helper()
	kv, err := ExamplesKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	return NewExamples(kv, "", limit)
}

// The store keeps a skill's examples deduplicated and capped, and two
// writers adding at once lose nothing (compare-and-set).
func TestExamplesStore(t *testing.T) {
	js, ctx := embedded(t, testConfig(t))
	s := examplesStore(ctx, t, js, 5)
	other := NewExamples(s.kv, "other_catalog", 5)
	if ok, err := s.Add(ctx, "a/b", "Book a hotel"); err != nil || !ok {
		t.Fatalf("Add = %v %v", ok, err)
	}
	if ok, err := s.Add(ctx, "a/b", " book a  HOTEL"); err != nil || ok {
		t.Errorf("a duplicate was added: %v %v", ok, err)
	}
	if _, err := other.Add(ctx, "a/b", "another catalog's"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				if _, err := s.Add(ctx, "a/b", fmt.Sprintf("writer %d task %d", w, i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	ex, errs, err := s.List(ctx)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if got := ex["a/b"]; len(got) != 5 || slices.Contains(got, "Book a hotel") {
		t.Errorf("after 7 distinct adds with cap 5: %q (want the newest 5)", got)
	}
	if len(ex) != 1 {
		t.Errorf("another catalog's examples leak into this one's: %v", ex)
	}
	n, err := s.Remove(ctx, "a/b", "WRITER 0 task 2", false)
	if err != nil || n != 1 {
		t.Errorf("Remove one = %d %v", n, err)
	}
	if n, err := s.Remove(ctx, "a/b", "", true); err != nil || n != 4 {
		t.Errorf("Remove all = %d %v", n, err)
	}
	if ex, _, _ := s.List(ctx); len(ex) != 0 {
		t.Errorf("after removing all: %v", ex)
	}
	if ex, _, _ := other.List(ctx); len(ex["a/b"]) != 1 {
		t.Errorf("removing this catalog's examples touched another's: %v", ex)
	}
}

// Outcomes are evidence: a trusted caller's verified success teaches its
// task as an example of the delegated skill; a failure, an untrusted
// caller's success and a success reported on another skill teach nothing.
func TestPipelineLearnsExamplesFromTrustedSuccesses(t *testing.T) {
	cfg := testConfig(t)
	cfg.FeedbackInterval = 100 * time.Millisecond
	cfg.RefitInterval = -1
	obs := &exampleCounts{n: map[string]int{}}
	cfg.Observer = obs
	scopes := []string{"support.tickets"}
	js, ctx, _ := startWithCallers(t, testMatcher(t), cfg, map[string]identity.Identity{
		"bob": {Scopes: scopes, Trusted: true},
		"eve": {Scopes: scopes},
	})
	store := examplesStore(ctx, t, js, 0)
	decideAs := func(caller, id, text string, class ...string) *wire.Decision {
		t.Helper()
		tk := &task.Task{ID: id, Caller: task.Caller{ID: caller}, Message: task.Message{Parts: []task.Part{{Text: text}}}}
		if len(class) > 0 {
			tk.Caller.DataClass = class[0]
		}
		a, err := Submit(ctx, js, Streams{}, tk)
		if err != nil || a.Decision == nil || a.Decision.Action != decide.Delegate {
			t.Fatalf("%s's %s: %+v %v", caller, id, a, err)
		}
		return a.Decision
	}
	report := func(caller, id, skill string, success bool) {
		t.Helper()
		data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: wire.DecisionID(caller, id), TaskID: id, Skill: skill, Success: success})
		if _, err := js.Publish(ctx, wire.SubjectOutcomeBy(caller), data); err != nil {
			t.Fatal(err)
		}
	}
	const (
		good     = "triage this support ticket: the login page is down"
		failed   = "triage this support ticket: checkout returns a 500"
		eves     = "triage this support ticket: the search box is empty"
		misnamed = "triage this support ticket: invoices will not load"
	)
	d1 := decideAs("bob", "bob-1", good)
	d2 := decideAs("bob", "bob-2", failed)
	d3 := decideAs("eve", "eve-1", eves)
	d4 := decideAs("bob", "bob-3", misnamed)
	d5 := decideAs("bob", "bob-4", good)
	d6 := decideAs("bob", "bob-5", "triage this support ticket: payroll data leaked", "confidential")
	report("eve", "eve-1", d3.Chosen.Key, true)
	report("bob", "bob-2", d2.Chosen.Key, false)
	report("bob", "bob-3", "some-agent/another-skill", true)
	report("bob", "bob-1", d1.Chosen.Key, true)
	report("bob", "bob-4", d5.Chosen.Key, true) // the same request again: known
	report("bob", "bob-5", d6.Chosen.Key, true) // confidential: withheld
	_ = d4
	var ex map[string][]string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if ex, _, err = store.List(ctx); err != nil {
			t.Fatal(err)
		}
		if len(ex[d1.Chosen.Key]) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("bob's verified success taught no example")
		}
	}
	// Outcomes are handled in order on one consumer; wait until all are.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := js.Consumer(ctx, DefaultStreams.Outcomes, StageFeedback)
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.Info(ctx)
		if err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("outcomes not all handled")
		}
	}
	ex, _, _ = store.List(ctx)
	var all []string
	for _, v := range ex {
		all = append(all, v...)
	}
	if !slices.Equal(all, []string{good}) {
		t.Errorf("learned examples %q, want only bob's verified success %q", all, good)
	}
	// The metrics hear each fate: a failure or another skill is not a
	// verified success of the delegated skill, and counts nowhere.
	if got := obs.counts(); got[ExampleLearned] != 1 || got[ExampleKnown] != 1 || got[ExampleUntrusted] != 1 || got[ExampleWithheld] != 1 || len(got) != 4 {
		t.Errorf("example outcomes %v, want one each of learned, known, untrusted and withheld", got)
	}
}

// exampleCounts is an Observer that counts example outcomes.
type exampleCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *exampleCounts) Handled(string, time.Duration, Result, string, error) {}

func (c *exampleCounts) ExampleOutcome(result string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[result]++
}

func (c *exampleCounts) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// The stages that build matchers rebuild when a learned example is added
// or removed, with the examples of their catalog.
func TestWatchCatalogFollowsLearnedExamples(t *testing.T) {
	js, ctx := embedded(t, testConfig(t))
	kv, err := CatalogKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	files, errs := ReadCards(exampleDir())
	if len(errs) > 0 || len(files) == 0 {
		t.Fatal(errs)
	}
	if _, _, err := PutCard(ctx, kv, files[0].ID, files[0].Data, nil); err != nil {
		t.Fatal(err)
	}
	store := examplesStore(ctx, t, js, 0)
	if _, err := store.Add(ctx, "x/y", "learned before the watch"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []map[string][]string
	build := func(cat *catalog.Catalog, ex map[string][]string) (*match.Matcher, error) {
		mu.Lock()
		seen = append(seen, ex)
		mu.Unlock()
		return match.New(cat, match.WithEmbedder(embed.Default()), match.WithLearnedExamples(ex))
	}
	snaps := NewSnapshots(nil)
	w, err := snaps.WatchCatalog(ctx, kv, nil, nil, WithLearnedExamples(store.kv, "", build))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	last := func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}
	if got := last()["x/y"]; !slices.Equal(got, []string{"learned before the watch"}) {
		t.Fatalf("first build got %q", got)
	}
	waitBuild := func(what string, ok func(map[string][]string) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(last()); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no rebuild with %s: last build got %v", what, last())
			}
		}
	}
	if _, err := store.Add(ctx, "x/y", "learned later"); err != nil {
		t.Fatal(err)
	}
	waitBuild("the added example", func(ex map[string][]string) bool { return len(ex["x/y"]) == 2 })
	if _, err := store.Remove(ctx, "x/y", "", true); err != nil {
		t.Fatal(err)
	}
	waitBuild("the examples removed", func(ex map[string][]string) bool { return len(ex["x/y"]) == 0 })
	if snaps.Matcher() == nil {
		t.Error("no matcher swapped in")
	}
}
