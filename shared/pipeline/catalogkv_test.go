package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func buildDefault(c *catalog.Catalog) (*match.Matcher, error) {
	return match.New(c, match.WithEmbedder(embed.Default()))
}

// waitRevision waits until every watch reflects bucket revision rev.
func waitRevision(t *testing.T, rev uint64, ws ...*CatalogWatch) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, w := range ws {
		for w.Revision() < rev {
			if time.Now().After(deadline) {
				t.Fatalf("catalog watch at revision %d, want %d", w.Revision(), rev)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// The stages watch the catalog bucket: a card added while running is
// chosen for the tasks that fit it, a removed card is never chosen again,
// a malformed entry is skipped with a logged reason, and two replicas
// converge on the same catalog.
func TestCatalogBucketLive(t *testing.T) {
	ref := testMatcher(t) // the whole example catalog, in process
	const agent = "polyglot-translator"
	files, errs := ReadCards(exampleDir())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, js, ctx := serve(t, 50*time.Second)
	cfg := testConfig(t)
	if err := SetupStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	kv, err := CatalogKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	var translator CardFile
	for _, f := range files {
		if f.ID == agent {
			translator = f
			continue
		}
		if _, changed, err := PutCard(ctx, kv, f.ID, f.Data, f.Status); err != nil || !changed {
			t.Fatalf("put %s: changed=%v %v", f.ID, changed, err)
		}
	}
	// Putting the same card again changes nothing.
	if _, changed, err := PutCard(ctx, kv, files[0].ID, files[0].Data, files[0].Status); err != nil || changed {
		t.Fatalf("re-put: changed=%v %v", changed, err)
	}

	core, logs := observer.New(zap.WarnLevel)
	stages := NewSnapshots(nil)
	w1, err := stages.WatchCatalog(ctx, kv, buildDefault, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Stop()
	replica := NewSnapshots(nil)
	w2, err := replica.WatchCatalog(ctx, kv, buildDefault, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	without := stages.Fingerprint()
	if without == "" || without == NewSnapshots(ref).Fingerprint() {
		t.Fatalf("fingerprint without %s: %q", agent, without)
	}
	if _, ok := stages.Matcher().Catalog().Agent(agent); ok {
		t.Fatalf("%s loaded before it was added", agent)
	}
	g, err := StartAll(ctx, js, stages, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()

	texts := []string{"translate to German: we will ship the replacement part on Monday",
		"translate the attached brochure into French and keep the formatting", "localize en.json into fr, de and ja"}
	submit := func(id, text string) *wire.Decision {
		t.Helper()
		a, err := Submit(ctx, js, Streams{}, &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}})
		if err != nil || a.Decision == nil {
			t.Fatalf("task %s: %+v %v", id, a, err)
		}
		return a.Decision
	}
	chose := func(d *wire.Decision, agent string) bool {
		if d.Chosen != nil && d.Chosen.AgentID == agent {
			return true
		}
		for _, c := range d.Candidates {
			if c.AgentID == agent {
				return true
			}
		}
		return false
	}
	for i, text := range texts {
		if d := submit("before-"+string(rune('a'+i)), text); chose(d, agent) {
			t.Errorf("before the add: %s offered for %q: %+v", agent, text, d.Decision)
		}
	}

	// Add it while running.
	rev, _, err := PutCard(ctx, kv, translator.ID, translator.Data, translator.Status)
	if err != nil {
		t.Fatal(err)
	}
	waitRevision(t, rev, w1, w2)
	if got, want := stages.Fingerprint(), NewSnapshots(ref).Fingerprint(); got != want {
		t.Fatalf("after the add: fingerprint %s, want the full catalog's %s", got, want)
	}
	delegated := 0
	for i, text := range texts {
		id := "added-" + string(rune('a'+i))
		d := submit(id, text)
		want, err := ref.Match(ctx, &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}})
		if err != nil {
			t.Fatal(err)
		}
		if !reflectEqualJSON(d.Decision, want.Decision) {
			t.Errorf("after the add, %q:\n got %+v\nwant %+v", text, d.Decision, want.Decision)
		}
		if d.Action == decide.Delegate && d.Chosen.AgentID == agent {
			delegated++
		}
	}
	if delegated == 0 {
		t.Errorf("no translation task delegated to %s after it was added", agent)
	}

	// Remove it.
	if err := RemoveCard(ctx, kv, agent); err != nil {
		t.Fatal(err)
	}
	hist, err := kv.History(ctx, agent)
	if err != nil || hist[len(hist)-1].Operation() != jetstream.KeyValueDelete {
		t.Fatalf("history after remove: %v", err)
	}
	waitRevision(t, hist[len(hist)-1].Revision(), w1, w2)
	if got := stages.Fingerprint(); got != without {
		t.Errorf("after the remove: fingerprint %s, want %s", got, without)
	}
	for i, text := range texts {
		if d := submit("removed-"+string(rune('a'+i)), text); chose(d, agent) {
			t.Errorf("after the remove: %s offered for %q: %+v", agent, text, d.Decision)
		}
	}
	if err := RemoveCard(ctx, kv, agent); err == nil || !strings.Contains(err.Error(), "no such agent") {
		t.Errorf("second remove: %v", err)
	}

	// Malformed entries put straight into the bucket are skipped.
	for _, bad := range []struct{ key, val string }{
		{"broken-json", `{"v":1,"card":{"name":`},
		{"no-skills", `{"v":1,"card":{"name":"x","description":"y","skills":[]}}`},
		{"old-version", `{"v":7,"card":{}}`},
	} {
		if _, err := kv.Put(ctx, bad.key, []byte(bad.val)); err != nil {
			t.Fatal(err)
		}
	}
	rev, err = kv.Put(ctx, "bad-status", mustEntry(t, translator.Data, `{"health":"sleepy"}`))
	if err != nil {
		t.Fatal(err)
	}
	waitRevision(t, rev, w1, w2)
	if got := stages.Fingerprint(); got != without {
		t.Errorf("after malformed entries: fingerprint %s, want %s", got, without)
	}
	skipped := logs.FilterMessage("catalog entry skipped").All()
	if len(skipped) != 4 {
		t.Errorf("%d skipped entries logged, want 4: %+v", len(skipped), skipped)
	}
	for _, l := range skipped {
		if r, _ := l.ContextMap()["reason"].(string); !strings.Contains(r, "catalog entry") {
			t.Errorf("skip logged without a reason: %+v", l.ContextMap())
		}
	}
	if d := submit("after-bad", texts[0]); chose(d, agent) {
		t.Errorf("after malformed entries: %+v", d.Decision)
	}
	if stages.Fingerprint() != replica.Fingerprint() {
		t.Errorf("replicas diverged: %s vs %s", stages.Fingerprint(), replica.Fingerprint())
	}
	// A catalog-bucket load sees the same catalog.
	cat, _, lerrs := LoadCatalogKV(ctx, kv)
	if len(lerrs) != 4 || len(cat.Agents) != len(files)-1 {
		t.Errorf("LoadCatalogKV: %d agents, errors %v", len(cat.Agents), lerrs)
	}
}

func mustEntry(t *testing.T, cardJSON []byte, status string) []byte {
	t.Helper()
	return []byte(`{"v":1,"card":` + string(cardJSON) + `,"status":` + status + `}`)
}

// A task shortlisted over the previous catalog is still ranked and decided
// after a swap; one over an unknown catalog is a transient mismatch.
func TestStagesKeepRecentSnapshots(t *testing.T) {
	ref := testMatcher(t)
	cat := ref.Catalog()
	smaller, err := match.New(catalog.New(cat.Agents[1:]...), match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSnapshots(ref)
	old := s.Fingerprint()
	if fp := s.SetMatcher(smaller); fp == old || s.snapshotFor(old) == nil || s.snapshotFor(fp) == nil {
		t.Fatalf("swap: %s -> %s", old, fp)
	}
	for range keepSnapshots {
		s.SetMatcher(ref)
		s.SetMatcher(smaller)
	}
	// Re-setting a known snapshot does not push the others out.
	if s.snapshotFor(old) == nil {
		t.Error("previous snapshot forgotten")
	}
	if s.snapshotFor("nope") != nil {
		t.Error("unknown fingerprint found")
	}
}
