package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/discovery/discover"
)

const discoverTestCard = `{
  "name": "Parcel Tracker",
  "description": "Tracks parcels",
  "version": "2.1.0",
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [
    {"id": "track", "name": "Track a parcel", "description": "Where is my parcel", "tags": ["parcel"]},
    {"id": "eta", "name": "Delivery ETA", "description": "When will it arrive", "tags": ["eta"]}
  ]
}`

func discoverServer(t *testing.T, path string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(discoverTestCard))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runDiscover(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := cmdCardsDiscover(t.Context(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestCardsDiscoverSummary(t *testing.T) {
	srv := discoverServer(t, discover.WellKnownPath)
	legacy := discoverServer(t, discover.LegacyWellKnownPath)
	out, errOut, err := runDiscover(t, srv.URL, legacy.URL, "--allow-private")
	if err != nil {
		t.Fatalf("err = %v, stderr %s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout = %q, want one line per agent", out)
	}
	id := "127.0.0.1-" + srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, want := range []string{id, "Parcel Tracker", "2.1.0", "2 skills"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], "legacy") {
		t.Errorf("line %q does not say legacy", lines[1])
	}
}

func TestCardsDiscoverRefusesPrivateByDefault(t *testing.T) {
	srv := discoverServer(t, discover.WellKnownPath)
	good := discoverServer(t, discover.WellKnownPath)
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	// Both are the arguments' fault: bad input, exit 2.
	out, errOut, err := runDiscover(t, srv.URL, "ftp://example.com")
	if !errors.Is(err, app.ErrBadInput) || !strings.Contains(err.Error(), "2 of 2 agents failed") {
		t.Errorf("err = %v", err)
	}
	if out != "" {
		t.Errorf("stdout = %q", out)
	}
	for _, want := range []string{hostPort, "loopback", "--allow-private", `scheme "ftp"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	// One bad URL does not stop the others.
	out, _, err = runDiscover(t, "--allow-private", "https://user:pw@example.com", good.URL)
	if !errors.Is(err, app.ErrBadInput) || !strings.Contains(err.Error(), "1 of 2") || !strings.Contains(out, "Parcel Tracker") {
		t.Errorf("err = %v, stdout %q", err, out)
	}
	// An agent that does not answer is no fault of the argument: exit 1.
	gone := discoverServer(t, discover.WellKnownPath)
	gone.Close()
	if _, _, err = runDiscover(t, "--allow-private", "--timeout", "2s", gone.URL); err == nil || errors.Is(err, app.ErrBadInput) {
		t.Errorf("an agent that is down: err = %v, want a plain error", err)
	}
}

func TestCardsDiscoverOut(t *testing.T) {
	srv := discoverServer(t, discover.WellKnownPath)
	dir := filepath.Join(t.TempDir(), "cards")
	out, errOut, err := runDiscover(t, srv.URL, "--out", dir, "--allow-private", "--timeout", "5s")
	if err != nil {
		t.Fatalf("err = %v, stderr %s", err, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files in --out, want 1", len(entries))
	}
	path := filepath.Join(dir, entries[0].Name())
	if !strings.Contains(out, path) {
		t.Errorf("stdout %q does not name %s", out, path)
	}
	c, err := card.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := card.Parse(c.ID, []byte(discoverTestCard))
	if discover.Hash(c) != discover.Hash(want) {
		t.Errorf("the written card reads back differently")
	}
}

func TestCardsDiscoverUsage(t *testing.T) {
	if _, _, err := runDiscover(t); !errors.Is(err, errUsage) {
		t.Errorf("no URL: err = %v, want a usage error", err)
	}
	if _, _, err := runDiscover(t, "--timeout", "0s", "http://x.example"); !errors.Is(err, errUsage) {
		t.Errorf("zero timeout: err = %v, want a usage error", err)
	}
	// An --out that is a file cannot hold the cards: said before any
	// agent is asked (the URL here answers nothing).
	file := filepath.Join(t.TempDir(), "cards")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{file, filepath.Join(file, "sub")} {
		if _, _, err := runDiscover(t, "--out", out, "http://x.example"); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--out") {
			t.Errorf("--out %s: err = %v, want a usage error naming --out", out, err)
		}
	}
	// A run that writes no card makes no folder.
	none := filepath.Join(t.TempDir(), "a", "cards")
	if _, _, err := runDiscover(t, "--out", none, "ftp://example.com"); err == nil {
		t.Error("a URL refused: no error")
	}
	if _, err := os.Stat(filepath.Dir(none)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out made %s though no card was written (%v)", filepath.Dir(none), err)
	}
}

// With --agent-credentials, an agent advertising an extended card is
// asked for it with the credentials; without them, or with credentials
// for another URL, only the public card is read.
func TestCardsDiscoverExtendedCard(t *testing.T) {
	var srvURL string
	cardJSON := func(skills string) string {
		return `{"name": "Vault", "description": "keeps secrets", "version": "1",
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "capabilities": {"extendedAgentCard": true},
  "supportedInterfaces": [{"url": "` + srvURL + `/a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}],
  "skills": [` + skills + `]}`
	}
	public := `{"id": "list", "name": "List items", "description": "lists items", "tags": ["list"]}`
	mux := http.NewServeMux()
	mux.HandleFunc(discover.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(cardJSON(public)))
	})
	mux.HandleFunc("GET /a2a"+discover.ExtendedCardPath, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(cardJSON(public + `, {"id": "open", "name": "Open the vault", "description": "opens it", "tags": ["open"]}`)))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	srvURL = srv.URL
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"`+srv.URL+`": {"bearer": "s3cret"}}`)
	other := write("other.json", `{"https://elsewhere.example.com": {"bearer": "s3cret"}}`)
	bad := write("bad.json", `{"`+srv.URL+`": {}}`)

	out, errOut, err := runDiscover(t, srv.URL, "--allow-private", "--agent-credentials", good)
	if err != nil || !strings.Contains(out, "2 skills") || !strings.Contains(out, "extended card") {
		t.Errorf("with credentials: %q, %q, %v; want the extended card's 2 skills", out, errOut, err)
	}
	for _, args := range [][]string{{}, {"--agent-credentials", other}} {
		out, errOut, err := runDiscover(t, append([]string{srv.URL, "--allow-private"}, args...)...)
		if err != nil || !strings.Contains(out, "1 skills") || strings.Contains(out, "extended") {
			t.Errorf("%v: %q, %q, %v; want the public card only", args, out, errOut, err)
		}
	}
	if _, _, err := runDiscover(t, srv.URL, "--allow-private", "--agent-credentials", bad); err == nil || !strings.Contains(err.Error(), "neither bearer nor header") {
		t.Errorf("empty credentials: %v, want a clear error", err)
	}
}
