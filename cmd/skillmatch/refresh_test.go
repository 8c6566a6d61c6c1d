package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/discovery/signature"
)

// copyExamples copies example cards into a folder and returns their paths.
func copyExamples(t *testing.T, ids ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for _, id := range ids {
		data, err := os.ReadFile(filepath.Join(examplesDir, "cards", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCardsListAs(t *testing.T) {
	url, _ := pipelineServer(t)
	files := copyExamples(t, "world-info", "support-triage", "travel-concierge")
	if code, out, errOut := runCmd(t, append([]string{"cards", "add", "--nats", url}, files...)...); code != 0 {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, errOut)
	}
	// alice: all of world-info, and one skill of support-triage (which
	// advertises the skill-routing extension, so a skill grant works).
	g := writeFile(t, "grants.json", []byte(`{"grants": [
		{"caller": "alice", "agent": "world-info"},
		{"caller": "alice", "agent": "support-triage", "skill": "triage-ticket"}]}`))
	code, out, errOut := runCmd(t, "cards", "list", "--nats", url, "--as", "alice", "--grants", g)
	if code != 0 {
		t.Fatalf("list --as: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"world-info/weather-forecast", "world-info/time-zones", "support-triage/triage-ticket", `as "alice": 2 of 3 agents`} {
		if !strings.Contains(out, want) {
			t.Errorf("list --as alice lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"support-triage/draft-reply", "travel-concierge"} {
		if strings.Contains(out, not) {
			t.Errorf("list --as alice shows %q, not granted:\n%s", not, out)
		}
	}
	// The reduced card counts only the granted skill.
	if !regexp.MustCompile(`(?m)^support-triage\s+1 skills`).MatchString(out) {
		t.Errorf("support-triage not reduced to one skill:\n%s", out)
	}
	// A caller without grants sees nothing; without a grants file, all.
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url, "--as", "mallory", "--grants", g); !strings.Contains(out, `as "mallory": 0 of 3 agents, 0 of`) {
		t.Errorf("list --as mallory:\n%s", out)
	}
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url, "--as", "anyone"); !strings.Contains(out, "3 of 3 agents") ||
		!strings.Contains(out, "travel-concierge/") {
		t.Errorf("list --as without grants:\n%s", out)
	}
	broken := writeFile(t, "broken-grants.json", []byte(`{"grants": [`))
	if code, out, errOut := runCmd(t, "cards", "list", "--nats", url, "--as", "alice", "--grants", broken); code != 2 || out != "" ||
		!strings.Contains(errOut, "broken-grants.json") {
		t.Errorf("list --as with a grants file that does not parse: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
}

// testSigner signs cards with Ed25519: a compact JWS over the card's
// canonical form (signature.Payload), its payload then detached into the
// card's "signatures" entry.
type testSigner struct {
	kid  string
	priv ed25519.PrivateKey
	pub  ed25519.PublicKey
}

func newTestSigner(t *testing.T, kid string) *testSigner {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &testSigner{kid: kid, priv: priv, pub: pub}
}

func (s *testSigner) jwks() []byte {
	b, _ := json.Marshal(map[string]any{"keys": []map[string]any{{
		"kty": "OKP", "crv": "Ed25519", "kid": s.kid, "x": base64.RawURLEncoding.EncodeToString(s.pub)}}})
	return b
}

func (s *testSigner) sign(t *testing.T, card []byte) []byte {
	t.Helper()
	payload, err := signature.Payload(card)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	hdr, _ := json.Marshal(map[string]string{"alg": "EdDSA", "kid": s.kid})
	input := b64(hdr) + "." + b64(payload)
	parts := strings.Split(input+"."+b64(ed25519.Sign(s.priv, []byte(input))), ".")
	return setField(t, card, "signatures", []map[string]string{{"protected": parts[0], "signature": parts[2]}})
}

func setField(t *testing.T, card []byte, name string, v any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	m[name] = v
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCardsAddSignatures(t *testing.T) {
	url, _ := pipelineServer(t)
	s := newTestSigner(t, "fleet-key")
	keys := writeFile(t, "keys.jwks", s.jwks())
	raw, err := os.ReadFile(filepath.Join(examplesDir, "cards", "world-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	signed := s.sign(t, raw)
	dir := t.TempDir()
	good := filepath.Join(dir, "world-info.json")
	bad := filepath.Join(dir, "travel-concierge.json")
	travel, _ := os.ReadFile(filepath.Join(examplesDir, "cards", "travel-concierge.json"))
	// travel-concierge carries world-info's signature: it does not verify.
	var sigs map[string]any
	_ = json.Unmarshal(signed, &sigs)
	if err := os.WriteFile(good, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, setField(t, travel, "signatures", sigs["signatures"]), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCmd(t, "cards", "add", "--nats", url, "--trust-keys", keys, good, bad)
	if code != 2 || !strings.Contains(out, "added world-info") || !strings.Contains(out, "signature verified (fleet-key)") ||
		!strings.Contains(errOut, "refused: "+bad) || !strings.Contains(errOut, "does not verify") {
		t.Errorf("add, default policy: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url); strings.Contains(out, "travel-concierge") ||
		!regexp.MustCompile(`(?m)^world-info\s.*\sup\s.*verified \(fleet-key\)`).MatchString(out) {
		t.Errorf("list after refusal:\n%s", out)
	}
	// Flagged instead of refused: put with the verdict.
	code, out, errOut = runCmd(t, "cards", "add", "--nats", url, "--trust-keys", keys, "--bad-signature", "flag", bad)
	if code != 0 || !strings.Contains(out, "added travel-concierge") || !strings.Contains(out, "invalid (fleet-key), flagged") {
		t.Errorf("add, flag policy: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url); !regexp.MustCompile(`(?m)^travel-concierge\s.*invalid \(fleet-key\), flagged`).MatchString(out) {
		t.Errorf("list after flag:\n%s", out)
	}
	// Unsigned under a refusing policy; no verification without flags.
	plain := copyExamples(t, "voice-scribe")
	if code, _, errOut := runCmd(t, "cards", "add", "--nats", url, "--unsigned", "refuse", plain[0]); code != 2 || !strings.Contains(errOut, "carries no signatures") {
		t.Errorf("unsigned refused: exit %d\n%s", code, errOut)
	}
	if code, out, _ := runCmd(t, "cards", "add", "--nats", url, plain[0]); code != 0 || strings.Contains(out, "signature") {
		t.Errorf("unchecked add: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCmd(t, "cards", "add", "--nats", url, "--unsigned", "maybe", plain[0]); code != 2 || !strings.Contains(errOut, "--unsigned") {
		t.Errorf("bad --unsigned: exit %d\n%s", code, errOut)
	}
}

// cardAgent serves a card at the well-known path.
type cardAgent struct {
	*httptest.Server
	mu   sync.Mutex
	body []byte
}

func newCardAgent(t *testing.T, body []byte) *cardAgent {
	a := &cardAgent{body: body}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(a.body)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *cardAgent) set(body []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.body = body
}

func TestCardsRefreshOnce(t *testing.T) {
	url, _ := pipelineServer(t)
	raw, err := os.ReadFile(filepath.Join(examplesDir, "cards", "world-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := newTestSigner(t, "k1")
	agent := newCardAgent(t, s.sign(t, raw))
	reg := writeFile(t, "fleet.json", []byte(`{"agents": [{"url": "`+agent.URL+`", "id": "globe"}]}`))
	keys := writeFile(t, "keys.jwks", s.jwks())
	args := []string{"cards", "refresh", "--nats", url, "--registry", reg, "--once", "--allow-private", "--trust-keys", keys, "--log-level", "warn"}

	code, out, errOut := runCmd(t, args...)
	if code != 0 || !strings.Contains(out, "1 put, 0 unchanged") {
		t.Fatalf("first refresh: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url); !regexp.MustCompile(`(?m)^globe\s.*verified \(k1\)`).MatchString(out) {
		t.Errorf("list after refresh:\n%s", out)
	}
	if code, out, _ := runCmd(t, args...); code != 0 || !strings.Contains(out, "0 put, 1 unchanged") {
		t.Errorf("second refresh: exit %d\n%s", code, out)
	}
	// Tampered at the source, strict policy: refused, the catalog keeps
	// the verified card.
	agent.set(setField(t, s.sign(t, raw), "description", "now something else entirely"))
	code, out, _ = runCmd(t, append(args, "--unsigned", "refuse", "--bad-signature", "refuse")...)
	if code != 0 || !strings.Contains(out, "0 put") || !strings.Contains(out, "1 refused") {
		t.Errorf("tampered refresh: exit %d\n%s", code, out)
	}
	if _, out, _ := runCmd(t, "cards", "list", "--nats", url); !regexp.MustCompile(`(?m)^globe\s.*verified \(k1\)`).MatchString(out) {
		t.Errorf("list after refused refresh:\n%s", out)
	}
	for _, bad := range [][]string{
		{"cards", "refresh", "--nats", url, "--once"},
		{"cards", "refresh", "--nats", url, "--registry", reg, "extra"},
	} {
		if code, _, _ := runCmd(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

// `skillmatch run --registry` discovers the registry's agents into the
// embedded pipeline's catalog and picks up a changed card on the next
// refresh.
func TestRunWithRegistry(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(examplesDir, "cards", "world-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	agent := newCardAgent(t, raw)
	reg := writeFile(t, "agents.json", []byte(`{"agents": [{"url": "`+agent.URL+`", "id": "globe"}]}`))
	cards := copyExamples(t, "travel-concierge")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, []string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--log-level", "warn",
			"--cards", filepath.Dir(cards[0]), "--registry", reg, "--refresh", "100ms", "--allow-private"}, &out, &errOut)
	}()
	re := regexp.MustCompile(`NATS on (nats://\S+),`)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v\n%s", err, errOut.String())
		default:
		}
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("run did not start:\n%s\n%s", out.String(), errOut.String())
	}
	waitList := func(what string, ok func(string) bool) {
		t.Helper()
		var last string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, last, _ = runCmd(t, "cards", "list", "--nats", url, "--as", "x")
			if ok(last) {
				return
			}
		}
		t.Fatalf("%s: last list:\n%s\n%s", what, last, errOut.String())
	}
	waitList("discovered agent", func(s string) bool {
		return strings.Contains(s, "globe/weather-forecast") && strings.Contains(s, "travel-concierge/")
	})
	// The agent drops its weather skill in a new version.
	var card map[string]any
	_ = json.Unmarshal(raw, &card)
	skills := card["skills"].([]any)
	card["skills"], card["version"] = skills[1:], "9.9.9"
	changed, _ := json.Marshal(card)
	agent.set(changed)
	waitList("changed card", func(s string) bool {
		return !strings.Contains(s, "globe/weather-forecast") && strings.Contains(s, "globe/time-zones")
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop within 10 s")
	}
}
