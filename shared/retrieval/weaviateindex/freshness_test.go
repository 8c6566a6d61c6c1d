package weaviateindex

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// catalogV2 is the example catalog with one skill removed and one added.
func catalogV2(v1 []index.Doc) (v2 []index.Doc, removed index.Doc) {
	removed = v1[2]
	v2 = append(slices.Clone(v1[:2]), v1[3:]...)
	added := index.Doc{Key: "star-gazer/observe", AgentID: "star-gazer", SkillID: "observe",
		AgentName: "Star Gazer", Name: "Plan a night of stargazing",
		Description: "Finds the planets, constellations and meteor showers visible through a telescope tonight.",
		Tags:        []string{"astronomy", "telescope"},
		Examples:    []string{"which planets can I see tonight", "when is the next meteor shower"}}
	added.Analyze()
	return append(v2, added), removed
}

// keyCount is the number of objects of cls whose key is key.
func keyCount(t *testing.T, ctx context.Context, x *Index, cls, key string) int {
	t.Helper()
	resp, err := x.client.GraphQL().Get().WithClassName(cls).WithFields(graphql.Field{Name: "key"}).
		WithWhere(filters.Where().WithPath([]string{"key"}).WithOperator(filters.Equal).WithValueText(key)).
		WithLimit(100).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Errors) > 0 {
		t.Fatalf("get %s: %s", cls, resp.Errors[0].Message)
	}
	rs, err := rows(resp.Data, "Get", cls)
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}

// TestFreshness: a new catalog version goes into new collections; the old
// index keeps answering from the old version while the new one is built
// and after, each exactly as the in-memory index over its own catalog,
// never a mix; dropping the old leaves the new intact.
func TestFreshness(t *testing.T) {
	ctx := context.Background()
	emb := embed.Default()
	v1 := catalogDocs(t, "../../../examples/catalog")
	v2, removed := catalogV2(slices.Clone(v1))
	mem1, err := index.NewMemory(slices.Clone(v1), emb)
	if err != nil {
		t.Fatal(err)
	}
	mem2, err := index.NewMemory(slices.Clone(v2), emb)
	if err != nil {
		t.Fatal(err)
	}
	queries := append(slices.Clone(exampleQueries), removed.Description, "which planets can I see tonight with my telescope")
	check := func(x *Index, mem index.Index, label string) int {
		t.Helper()
		return sameAnswers(t, x, mem, queries, label)
	}

	a := newWeaviate(t, ctx, "fresh", slices.Clone(v1), Config{})
	check(a, mem1, "A (v1)")

	// A answers from v1 all the while B is built.
	stop := make(chan struct{})
	var during atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			during.Add(int64(check(a, mem1, "A (v1) while B builds")))
		}
	}()
	b := newWeaviate(t, ctx, "fresh", slices.Clone(v2), Config{})
	close(stop)
	wg.Wait()
	t.Logf("%d searches on A while B was built", during.Load())
	as, at := a.Classes()
	bs, bt := b.Classes()
	if as == bs || at == bt || a.Version() == b.Version() {
		t.Fatalf("v1 and v2 share collections: %s %s / %s %s", as, at, bs, bt)
	}
	check(a, mem1, "A (v1) after B")
	check(b, mem2, "B (v2)")
	if n := keyCount(t, ctx, b, bs, removed.Key); n != 0 {
		t.Errorf("B's collection holds %d objects of the removed skill %s", n, removed.Key)
	}
	if n := keyCount(t, ctx, a, as, removed.Key); n != 1 {
		t.Errorf("A's collection holds %d objects of %s, want 1", n, removed.Key)
	}

	// Dropping A leaves B intact; A no longer answers at all.
	if err := a.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	check(b, mem2, "B after dropping A")
	if _, err := a.Search(ctx, index.Query{Text: "book a room", Terms: analyze.Terms("book a room")}); err == nil {
		t.Error("A still answers after Drop")
	}
	for _, text := range []string{removed.Description, removed.Name} {
		res, err := b.Search(ctx, index.Query{Text: text, Terms: analyze.Terms(text), Vector: emb.EmbedText(text)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Candidates {
			if b.Doc(c.Doc).Key == removed.Key {
				t.Errorf("B returns the removed skill for %q", text)
			}
		}
	}
	if err := b.Ready(ctx); err != nil {
		t.Errorf("B not ready: %v", err)
	}
	if err := a.Ready(ctx); err == nil {
		t.Error("A ready after Drop")
	}

	// The same catalog again: the stored version is found, not re-imported.
	b2 := newWeaviate(t, ctx, "fresh", slices.Clone(v2), Config{})
	if !b2.Reused() {
		t.Error("v2 imported again")
	}
	// DropStale removes older versions only.
	a2 := newWeaviate(t, ctx, "fresh", slices.Clone(v1), Config{})
	dropped, err := b.DropStale(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a2s, a2t := a2.Classes()
	slices.Sort(dropped)
	if want := []string{a2s, a2t}; !slices.Equal(dropped, want) && !slices.Equal(dropped, []string{a2t, a2s}) {
		t.Errorf("DropStale dropped %v, want %v", dropped, want)
	}
	check(b, mem2, "B after DropStale")
}

// weaviateServer starts a server of its own with scripts/weaviate.sh; port
// "" picks free ports. It is stopped (and its data removed) at cleanup.
func weaviateServer(t *testing.T, port string) *testServer {
	t.Helper()
	script, err := filepath.Abs("../../../scripts/weaviate.sh")
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, script: script, env: append(os.Environ(), "WEAVIATE_STATE="+filepath.Join(t.TempDir(), "state"))}
	if port != "" {
		s.env = append(s.env, "WEAVIATE_PORT="+port)
	}
	for _, line := range strings.Split(s.run("start"), "\n") {
		if v, ok := strings.CutPrefix(line, "WEAVIATE_URL="); ok {
			s.URL = v
		}
		if v, ok := strings.CutPrefix(line, "WEAVIATE_GRPC="); ok {
			s.GRPC = v
		}
	}
	t.Cleanup(s.Stop)
	return s
}

// testServer is a Weaviate server run by scripts/weaviate.sh.
type testServer struct {
	URL, GRPC string
	t         *testing.T
	script    string
	env       []string
	stopped   sync.Once
}

func (s *testServer) run(verb string) string {
	c := exec.Command(s.script, verb)
	c.Env, c.Stderr = s.env, os.Stderr
	out, err := c.Output()
	if err != nil {
		s.t.Fatalf("%s %s: %v", s.script, verb, err)
	}
	return string(out)
}

// Stop stops the server and removes its data.
func (s *testServer) Stop() {
	s.stopped.Do(func() {
		c := exec.Command(s.script, "stop")
		c.Env, c.Stderr = s.env, os.Stderr
		if err := c.Run(); err != nil {
			s.t.Errorf("%s stop: %v", s.script, err)
		}
	})
}

// Pause stops the server keeping its data and ports (an outage); Resume
// starts it again on them.
func (s *testServer) Pause()  { s.run("pause") }
func (s *testServer) Resume() { s.run("resume") }

// TestFaults: with Weaviate stopped, searches and the readiness check fail
// with ErrUnreachable within the retry budget and one line is logged; a
// server started again on the same address serves a new index, and one
// line says so.
func TestFaults(t *testing.T) {
	if os.Getenv("WEAVIATE_URL") != "" {
		t.Skip("runs servers of its own; WEAVIATE_URL is set")
	}
	ctx := context.Background()
	ws := weaviateServer(t, "")
	url, grpcAddr, stop := ws.URL, ws.GRPC, ws.Stop
	core, logs := observer.New(zapcore.InfoLevel)
	const budget = 1500 * time.Millisecond
	build := Builder(Config{URL: url, GRPC: grpcAddr, Catalog: "faults", Retry: budget, Timeout: 2 * time.Second, Log: zap.New(core)})
	docs := catalogDocs(t, "../../../examples/catalog")
	emb := embed.Default()
	ix, err := build(slices.Clone(docs), emb)
	if err != nil {
		t.Fatal(err)
	}
	x := ix.(*Index)
	q := index.Query{Text: "book a room", Terms: analyze.Terms("book a room"), Vector: emb.EmbedText("book a room")}
	if _, err := x.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := x.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if n := logs.Len(); n != 0 {
		t.Errorf("%d lines logged while up: %v", n, logs.All())
	}

	stop()
	t0 := time.Now()
	_, err = x.Search(ctx, q)
	took := time.Since(t0)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("search with Weaviate stopped: %v, want ErrUnreachable", err)
	}
	if took > budget+3*time.Second {
		t.Errorf("search gave up after %v with a retry budget of %v", took, budget)
	}
	t.Logf("search failed after %v: %v", took.Round(time.Millisecond), err)
	if err := x.Ready(ctx); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Ready with Weaviate stopped: %v, want ErrUnreachable", err)
	}
	if _, err := build(slices.Clone(docs), emb); !errors.Is(err, ErrUnreachable) {
		t.Errorf("New with Weaviate stopped: %v, want ErrUnreachable", err)
	}
	if got := logs.FilterMessage("weaviate unreachable").Len(); got != 1 || logs.Len() != 1 {
		t.Errorf("logged %v, want one line 'weaviate unreachable'", logs.All())
	}

	// A new server on the same address: a new index works.
	port := strings.TrimPrefix(url, "http://127.0.0.1:")
	weaviateServer(t, port)
	ix2, err := build(slices.Clone(docs), emb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix2.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := ix2.(*Index).Ready(ctx); err != nil {
		t.Error(err)
	}
	if got := logs.FilterMessage("weaviate reachable").Len(); got != 1 || logs.Len() != 2 {
		t.Errorf("logged %v, want 'weaviate unreachable' then 'weaviate reachable'", logs.All())
	}
}

// A Builder drops the collections of the catalog versions it built before
// once its newest index has served for DropStaleAfter, and only the
// newest index's timer does: the collections it serves, and a version it
// did not build, are never dropped.
func TestBuilderDropsStale(t *testing.T) {
	emb := embed.Default()
	v1 := catalogDocs(t, "../../../examples/catalog")
	v2, _ := catalogV2(slices.Clone(v1))
	v3 := slices.Clone(v2[3:])
	const grace = 1500 * time.Millisecond
	build := Builder(Config{URL: weaviateURL, GRPC: weaviateGRPC, Catalog: "janitor", DropStaleAfter: grace})
	exists := func(x *Index) bool {
		t.Helper()
		ok, err := x.client.Schema().ClassExistenceChecker().WithClassName(x.skillCls).Do(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// A version some other process stored: not this builder's to drop.
	other := newWeaviate(t, context.Background(), "janitor", catalogDocs(t, "../../../examples/catalog")[:5], Config{})
	t.Cleanup(func() { _ = other.Drop(context.Background()) })
	var xs []*Index
	for _, docs := range [][]index.Doc{v1, v2, v3} {
		ix, err := build(slices.Clone(docs), emb)
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, ix.(*Index))
	}
	if xs[0].Version() == xs[1].Version() || xs[1].Version() == xs[2].Version() {
		t.Fatal("the catalog versions share collections; the test needs three")
	}
	t.Cleanup(func() { _ = xs[2].Drop(context.Background()) })
	for i, x := range xs {
		if !exists(x) {
			t.Fatalf("version %d dropped before the grace period", i+1)
		}
	}
	deadline := time.Now().Add(grace + 30*time.Second)
	for (exists(xs[0]) || exists(xs[1])) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if exists(xs[0]) || exists(xs[1]) {
		t.Error("older versions still stored after the grace period")
	}
	if !exists(xs[2]) {
		t.Fatal("the newest version was dropped")
	}
	if !exists(other) {
		t.Error("a version the builder did not build was dropped")
	}
	q := index.Query{Text: "book a room", Terms: analyze.Terms("book a room"), Vector: emb.EmbedText("book a room")}
	if _, err := xs[2].Search(context.Background(), q); err != nil {
		t.Errorf("newest index after the drop: %v", err)
	}
}

// Catalogs stored as tenants of shared collections answer exactly as their
// own in-memory indexes (each tenant has its own BM25 statistics), never
// from another tenant; a Builder's older tenant versions are dropped after
// the grace period and other tenants are left alone.
func TestTenants(t *testing.T) {
	ctx := context.Background()
	emb := embed.Default()
	v1 := catalogDocs(t, "../../../examples/catalog")
	v2, removed := catalogV2(slices.Clone(v1))
	small := slices.Clone(v1[:7])
	cfg := func(tenant string) Config {
		return Config{URL: weaviateURL, GRPC: weaviateGRPC, Catalog: "tenants", Tenant: tenant, DropStaleAfter: 1500 * time.Millisecond}
	}
	acme := Builder(cfg("acme"))
	ixA, err := acme(slices.Clone(v1), emb)
	if err != nil {
		t.Fatal(err)
	}
	a1 := ixA.(*Index)
	globex, err := New(ctx, cfg("globex"), slices.Clone(small), emb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = globex.Drop(context.Background()) })
	if s1, _ := a1.Classes(); func() string { s, _ := globex.Classes(); return s }() != s1 {
		t.Fatalf("tenants of one layout use different collections: %s", s1)
	}
	compareAll := func(x *Index, docs []index.Doc, label string) {
		t.Helper()
		mem, err := index.NewMemory(slices.Clone(docs), emb)
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, x, mem, append(slices.Clone(exampleQueries), removed.Description), label)
	}
	compareAll(a1, v1, "acme v1")
	compareAll(globex, small, "globex")
	if err := a1.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}

	// A new acme version is a new tenant; v1 keeps answering until the
	// grace period ends, then its tenant is gone and globex is untouched.
	ixA2, err := acme(slices.Clone(v2), emb)
	if err != nil {
		t.Fatal(err)
	}
	a2 := ixA2.(*Index)
	t.Cleanup(func() { _ = a2.Drop(context.Background()) })
	compareAll(a1, v1, "acme v1 after v2 was built")
	compareAll(a2, v2, "acme v2")
	deadline := time.Now().Add(30 * time.Second)
	for a1.Ready(ctx) == nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := a1.Ready(ctx); err == nil {
		t.Error("acme v1's tenant still there after the grace period")
	}
	if err := a2.Ready(ctx); err != nil {
		t.Errorf("acme v2 after the drop: %v", err)
	}
	compareAll(globex, small, "globex after acme's drop")

	if _, err := New(ctx, cfg("not a tenant!"), slices.Clone(small), emb); !errors.Is(err, ErrBadTenant) {
		t.Errorf("bad tenant name: %v, want ErrBadTenant", err)
	}
}

// sameAnswers checks that x answers every query as mem does and returns
// how many it asked.
func sameAnswers(t *testing.T, x *Index, mem index.Index, queries []string, label string) int {
	t.Helper()
	ctx, emb := context.Background(), x.Embedder()
	for _, text := range queries {
		v, err := vector.One(ctx, emb, text)
		if err != nil {
			t.Fatal(err)
		}
		q := index.Query{Text: text, Terms: analyze.Terms(text), Vector: v}
		want, err := mem.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.Search(ctx, q)
		if err != nil {
			t.Fatalf("%s: %q: %v", label, text, err)
		}
		if diff := compare(want, got); diff != "" {
			t.Errorf("%s: %q: %s", label, text, diff)
		}
	}
	return len(queries)
}
