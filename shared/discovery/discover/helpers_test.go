package discover

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"
)

// testCard is a v1.0 card as JSON.
type testCard struct {
	Name, Version string
	Skills        []string // skill ids
	Interface     string   // HTTP+JSON interface URL, optional
	Extended      bool
}

func (c testCard) JSON(t testing.TB) []byte {
	t.Helper()
	skills := []map[string]any{}
	for _, id := range c.Skills {
		skills = append(skills, map[string]any{
			"id": id, "name": "Skill " + id, "description": "does " + id, "tags": []string{id},
		})
	}
	m := map[string]any{
		"name":               c.Name,
		"description":        "an agent for tests",
		"version":            c.Version,
		"defaultInputModes":  []string{"text/plain"},
		"defaultOutputModes": []string{"text/plain"},
		"skills":             skills,
	}
	if c.Interface != "" {
		m["supportedInterfaces"] = []map[string]any{{"url": c.Interface, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}}
	}
	if c.Extended {
		m["capabilities"] = map[string]any{"extendedAgentCard": true}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// agentServer serves one card and records what it was asked.
type agentServer struct {
	*httptest.Server
	mu       sync.Mutex
	body     []byte
	path     string // where the card is served
	header   http.Header
	requests []*http.Request
}

func newAgentServer(t testing.TB, body []byte, path string) *agentServer {
	s := &agentServer{body: body, path: path, header: http.Header{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *agentServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Clone(context.Background()))
	body, path := s.body, s.path
	for k, v := range s.header {
		w.Header()[k] = v
	}
	s.mu.Unlock()
	if r.URL.Path != path {
		http.NotFound(w, r)
		return
	}
	if etag := w.Header().Get("ETag"); etag != "" && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *agentServer) set(body []byte, header http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = body
	if header != nil {
		s.header = header
	}
}

func (s *agentServer) reqs() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

func (s *agentServer) hostPort(t testing.TB) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// mapResolver resolves the names it knows and fails for the rest.
type mapResolver map[string][]netip.Addr

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := m[host]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var loopback = []netip.Addr{netip.MustParseAddr("127.0.0.1")}

func testFetcher(opts ...Option) *Fetcher {
	return NewFetcher(append([]Option{WithAllowPrivate(true)}, opts...)...)
}

type netConn = net.Conn

func dialLoopback(ctx context.Context, network, hostPort string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, hostPort)
}
