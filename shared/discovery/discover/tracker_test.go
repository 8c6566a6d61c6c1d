package discover

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
)

func refresh(t *testing.T, tr *Tracker, url string, want Outcome) Result {
	t.Helper()
	r, err := tr.Refresh(t.Context(), url)
	if r.Outcome != want {
		t.Fatalf("Refresh = %s (err %v), want %s", r.Outcome, err, want)
	}
	if (err != nil) != (want == Failed || want == Removed) {
		t.Fatalf("Refresh err = %v with outcome %s", err, r.Outcome)
	}
	return r
}

func TestETagRevalidation(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	srv.set(testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), http.Header{"Etag": {`"v1"`}})
	tr := NewTracker(testFetcher())

	first := refresh(t, tr, srv.URL, Changed)
	second := refresh(t, tr, srv.URL, Unchanged)
	reqs := srv.reqs()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if got := reqs[0].Header.Get("If-None-Match"); got != "" {
		t.Errorf("first request sent If-None-Match %q", got)
	}
	if got := reqs[1].Header.Get("If-None-Match"); got != `"v1"` {
		t.Errorf("second request If-None-Match = %q, want the stored ETag", got)
	}
	if second.Card != first.Card || second.Hash != first.Hash || second.Health != catalog.Up {
		t.Errorf("a 304 should keep the cached card: %+v", second)
	}
	if s, _ := tr.State(srv.URL); s.ETag != `"v1"` {
		t.Errorf("state ETag = %q", s.ETag)
	}

	// A new ETag and body: a full fetch, Changed.
	srv.set(testCard{Name: "A", Version: "2", Skills: []string{"a"}}.JSON(t), http.Header{"Etag": {`"v2"`}})
	if r := refresh(t, tr, srv.URL, Changed); r.Version != "2" {
		t.Errorf("version %q, want 2", r.Version)
	}
}

func TestCacheControl(t *testing.T) {
	clock := newClock()
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	srv.set(srv.body, http.Header{"Etag": {`"e"`}, "Cache-Control": {"public, max-age=60"}})
	tr := NewTracker(testFetcher(WithClock(clock.Now)))

	refresh(t, tr, srv.URL, Changed)
	clock.Advance(59 * time.Second)
	refresh(t, tr, srv.URL, Unchanged)
	if n := len(srv.reqs()); n != 1 {
		t.Fatalf("%d requests within max-age, want 1", n)
	}
	clock.Advance(2 * time.Second)
	refresh(t, tr, srv.URL, Unchanged)
	if reqs := srv.reqs(); len(reqs) != 2 || reqs[1].Header.Get("If-None-Match") != `"e"` {
		t.Fatalf("after max-age: %d requests, want a revalidation", len(reqs))
	}

	// Age counts against max-age.
	srv.set(srv.body, http.Header{"Etag": {`"e"`}, "Cache-Control": {"max-age=60"}, "Age": {"50"}})
	clock.Advance(time.Hour)
	refresh(t, tr, srv.URL, Unchanged)
	if s, _ := tr.State(srv.URL); !s.Expires.Equal(clock.Now().Add(10 * time.Second)) {
		t.Errorf("Expires = %v, want now+10s", s.Expires)
	}

	// no-cache: revalidate every time, with the ETag.
	srv.set(srv.body, http.Header{"Etag": {`"e"`}, "Cache-Control": {"no-cache, max-age=600"}})
	clock.Advance(time.Hour)
	refresh(t, tr, srv.URL, Unchanged)
	n := len(srv.reqs())
	refresh(t, tr, srv.URL, Unchanged)
	if reqs := srv.reqs(); len(reqs) != n+1 || reqs[n].Header.Get("If-None-Match") != `"e"` {
		t.Errorf("no-cache: want one revalidation with the ETag per refresh")
	}

	// no-store: no ETag kept, so the next fetch is a full one.
	srv.set(srv.body, http.Header{"Etag": {`"e"`}, "Cache-Control": {"no-store"}})
	refresh(t, tr, srv.URL, Unchanged) // 304 on the stored ETag, whose headers say no-store
	refresh(t, tr, srv.URL, Unchanged)
	reqs := srv.reqs()
	if last := reqs[len(reqs)-1]; last.Header.Get("If-None-Match") != "" {
		t.Errorf("no-store: If-None-Match %q still sent", last.Header.Get("If-None-Match"))
	}

	// max-age is capped by WithMaxAge.
	srv.set(srv.body, http.Header{"Cache-Control": {"max-age=999999999"}})
	tr2 := NewTracker(testFetcher(WithClock(clock.Now), WithMaxAge(time.Minute)))
	refresh(t, tr2, srv.URL, Changed)
	if s, _ := tr2.State(srv.URL); !s.Expires.Equal(clock.Now().Add(time.Minute)) {
		t.Errorf("Expires = %v, want capped at now+1m", s.Expires)
	}
}

func TestChangedAndUnchanged(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "A", Version: "1.0", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	tr := NewTracker(testFetcher())
	v1 := refresh(t, tr, srv.URL, Changed)
	if v1.Card == nil || v1.Version != "1.0" || v1.Health != catalog.Up {
		t.Fatalf("first refresh: %+v", v1)
	}
	refresh(t, tr, srv.URL, Unchanged) // same card, no ETag: fetched, same hash

	srv.set(testCard{Name: "A", Version: "1.1", Skills: []string{"a", "b"}}.JSON(t), nil)
	v2 := refresh(t, tr, srv.URL, Changed)
	if v2.Version != "1.1" || v2.Hash == v1.Hash || len(v2.Card.Skills) != 2 {
		t.Errorf("new version: %+v", v2)
	}
	refresh(t, tr, srv.URL, Unchanged)

	// Same version, different content: still re-indexed.
	srv.set(testCard{Name: "A renamed", Version: "1.1", Skills: []string{"a", "b"}}.JSON(t), nil)
	if v3 := refresh(t, tr, srv.URL, Changed); v3.Hash == v2.Hash || v3.Card.Name != "A renamed" {
		t.Errorf("same version, new content: %+v", v3)
	}
}

func TestFailuresDownThenRemoved(t *testing.T) {
	clock := newClock()
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	tr := NewTracker(testFetcher(WithClock(clock.Now)))
	refresh(t, tr, srv.URL, Changed)

	srv.mu.Lock()
	srv.path = "/gone"
	srv.mu.Unlock()
	r := refresh(t, tr, srv.URL, Failed)
	if r.Health != catalog.Degraded || r.Failures != 1 || r.Card == nil {
		t.Errorf("1st failure: health %s, failures %d, card kept %v", r.Health, r.Failures, r.Card != nil)
	}
	clock.Advance(time.Hour)
	refresh(t, tr, srv.URL, Failed)
	clock.Advance(time.Hour)
	r = refresh(t, tr, srv.URL, Failed)
	if r.Health != catalog.Down || r.Failures != 3 {
		t.Errorf("3rd failure: health %s, failures %d; want down", r.Health, r.Failures)
	}
	s, _ := tr.State(srv.URL)
	if !s.FirstFailure.Equal(clock.Now().Add(-2*time.Hour)) || s.LastError == "" {
		t.Errorf("state: first failure %v, last error %q", s.FirstFailure, s.LastError)
	}
	clock.Advance(21*time.Hour + 59*time.Minute) // 23h59m after the first failure
	if r = refresh(t, tr, srv.URL, Failed); r.Health != catalog.Down {
		t.Errorf("within the grace period: %s", r.Health)
	}
	clock.Advance(time.Minute)
	r = refresh(t, tr, srv.URL, Removed)
	if r.Card != nil {
		t.Errorf("removed agent still has a card")
	}
	if _, ok := tr.State(srv.URL); ok {
		t.Errorf("removed agent still tracked")
	}
}

func TestRecoveryResetsFailures(t *testing.T) {
	clock := newClock()
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	tr := NewTracker(testFetcher(WithClock(clock.Now)), WithFailureThreshold(2), WithGracePeriod(time.Hour))
	refresh(t, tr, srv.URL, Changed)
	srv.mu.Lock()
	srv.path = "/gone"
	srv.mu.Unlock()
	refresh(t, tr, srv.URL, Failed)
	if r := refresh(t, tr, srv.URL, Failed); r.Health != catalog.Down {
		t.Errorf("threshold 2: health %s", r.Health)
	}
	srv.mu.Lock()
	srv.path = WellKnownPath
	srv.mu.Unlock()
	clock.Advance(30 * time.Minute)
	if r := refresh(t, tr, srv.URL, Unchanged); r.Health != catalog.Up || r.Failures != 0 {
		t.Errorf("recovered: %+v", r)
	}
	s, _ := tr.State(srv.URL)
	if !s.FirstFailure.IsZero() || s.LastError != "" {
		t.Errorf("failure state not reset: %+v", s)
	}
}

func TestCancelledRefreshNotCounted(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	tr := NewTracker(testFetcher())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r, err := tr.Refresh(ctx, srv.URL)
	if err == nil || r.Outcome != Failed || r.Failures != 0 {
		t.Errorf("cancelled: %+v, %v", r, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestTrackRegistry(t *testing.T) {
	a := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	b := newAgentServer(t, testCard{Name: "B", Version: "1", Skills: []string{"b"}}.JSON(t), WellKnownPath)
	tr := NewTracker(NewFetcher()) // private refused unless the registry allows it
	reg := &Registry{Agents: []Agent{{URL: a.URL, ID: "alpha", AllowPrivate: true}, {URL: b.URL}}}
	if _, err := tr.TrackRegistry(reg); err != nil {
		t.Fatal(err)
	}
	res := tr.RefreshAll(t.Context())
	if len(res) != 2 {
		t.Fatalf("%d results", len(res))
	}
	byID := map[string]Result{}
	for _, r := range res {
		byID[r.ID] = r
	}
	if r := byID["alpha"]; r.Outcome != Changed || r.Card.ID != "alpha" {
		t.Errorf("alpha: %+v", r)
	}
	var ae *AddrError
	for id, r := range byID {
		if id != "alpha" && (r.Outcome != Failed || !errors.As(r.Err, &ae)) {
			t.Errorf("%s: %+v, want refused (not allowed private)", id, r)
		}
	}
	gone, err := tr.TrackRegistry(&Registry{Agents: []Agent{{URL: a.URL, ID: "alpha", AllowPrivate: true}}})
	if err != nil || len(gone) != 1 || gone[0] != b.URL {
		t.Errorf("gone = %v, %v; want [%s]", gone, err, b.URL)
	}
}

// RefreshAll fetches several agents at once, up to WithParallel: three
// agents that each answer only once all three are being fetched are all
// refreshed with three slots, and none waits for the others' answers.
func TestRefreshAllInParallel(t *testing.T) {
	const n = 3
	var inFlight sync.WaitGroup
	inFlight.Add(n)
	release := make(chan struct{})
	var once sync.Once
	go func() { inFlight.Wait(); once.Do(func() { close(release) }) }()
	tr := NewTracker(testFetcher(), WithParallel(n))
	var waited sync.Map // agents that gave up waiting for the others
	for i := range n {
		body := testCard{Name: fmt.Sprintf("P%d", i), Version: "1", Skills: []string{"s"}}.JSON(t)
		var arrived sync.Once
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived.Do(inFlight.Done)
			select {
			case <-release:
			case <-time.After(5 * time.Second): // the others were not being fetched
				waited.Store(r.Host, true)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		t.Cleanup(srv.Close)
		if _, err := tr.TrackRegistry(&Registry{Agents: append(registryOf(tr), Agent{URL: srv.URL, AllowPrivate: true})}); err != nil {
			t.Fatal(err)
		}
	}
	res := tr.RefreshAll(t.Context())
	waited.Range(func(host, _ any) bool {
		t.Errorf("agent %s answered alone: the agents were not fetched at the same time", host)
		return true
	})
	if len(res) != n {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		if r.Outcome != Changed {
			t.Errorf("%s: %+v", r.URL, r)
		}
	}
}

// registryOf lists the agents a tracker follows, for adding one more.
func registryOf(tr *Tracker) []Agent {
	var out []Agent
	for _, u := range tr.URLs() {
		if st, ok := tr.State(u); ok {
			out = append(out, st.Agent)
		}
	}
	return out
}
