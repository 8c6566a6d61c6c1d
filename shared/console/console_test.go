package console

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/learn/feedback"
)

func TestAuth(t *testing.T) {
	t.Setenv("CONSOLE_TEST_PASSWORD", "s3cret")
	t.Setenv("CONSOLE_TEST_TOKEN", "tok-123")
	a, err := NewAuth(AuthFile{Operators: []Operator{
		{ID: "admin", User: "admin", Password: "$CONSOLE_TEST_PASSWORD"},
		{ID: "oncall", Token: "$CONSOLE_TEST_TOKEN"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		set     func(*http.Request)
		want    string
		allowed bool
	}{
		{"basic", func(r *http.Request) { r.SetBasicAuth("admin", "s3cret") }, "admin", true},
		{"basic wrong password", func(r *http.Request) { r.SetBasicAuth("admin", "nope") }, "", false},
		{"basic unknown user", func(r *http.Request) { r.SetBasicAuth("root", "s3cret") }, "", false},
		{"bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok-123") }, "oncall", true},
		{"bearer wrong", func(r *http.Request) { r.Header.Set("Authorization", "Bearer tok-124") }, "", false},
		{"the password is no token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret") }, "", false},
		{"nothing", func(*http.Request) {}, "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/catalog", nil)
		c.set(r)
		got, ok := a.Check(r)
		if got != c.want || ok != c.allowed {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.allowed)
		}
	}
	if op, ok := (*Auth)(nil).Check(httptest.NewRequest("GET", "/", nil)); !ok || op != "anonymous" {
		t.Errorf("no auth: %q %v, want anonymous", op, ok)
	}
}

func TestAuthRefusesWeakFiles(t *testing.T) {
	os.Unsetenv("CONSOLE_TEST_UNSET")
	for name, f := range map[string]AuthFile{
		"no operators":      {},
		"no id":             {Operators: []Operator{{Token: "x"}}},
		"no secret":         {Operators: []Operator{{ID: "a"}}},
		"user, no password": {Operators: []Operator{{ID: "a", User: "a"}}},
		"unset variable":    {Operators: []Operator{{ID: "a", Token: "$CONSOLE_TEST_UNSET"}}},
		"user listed twice": {Operators: []Operator{{ID: "a", User: "u", Password: "p"}, {ID: "b", User: "u", Password: "q"}}},
	} {
		if _, err := NewAuth(f); !errors.Is(err, ErrAuth) {
			t.Errorf("%s: %v, want ErrAuth", name, err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "auth.json")
	if err := os.WriteFile(p, []byte(`{"operators": [{"id": "a", "tokn": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAuth(p); err == nil || !strings.Contains(err.Error(), "tokn") {
		t.Errorf("a misspelt field: %v, want it named", err)
	}
}

// Only reads get through, and only an operator's.
func TestServeHTTPReadOnlyAndAuthenticated(t *testing.T) {
	a, err := NewAuth(AuthFile{Operators: []Operator{{ID: "ops", Token: "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cfg: Config{Auth: a, Log: zap.NewNop()}}
	s.routes()
	cases := []struct {
		method, token string
		want          int
	}{
		{"GET", "", http.StatusUnauthorized},
		{"GET", "wrong", http.StatusUnauthorized},
		{"GET", "t", http.StatusOK},
		{"POST", "t", http.StatusMethodNotAllowed},
		{"DELETE", "t", http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, "/static/console.js", nil)
		if c.token != "" {
			r.Header.Set("Authorization", "Bearer "+c.token)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s with token %q: %d, want %d", c.method, c.token, w.Code, c.want)
		}
		if w.Code == http.StatusOK && !strings.Contains(w.Header().Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("no content security policy: %v", w.Header())
		}
	}
}

// A sequence in the decisions' query that is no number is refused with
// the reason, not read as none (the newest page).
func TestDecisionsRefuseBadSequences(t *testing.T) {
	s := &Server{cfg: Config{Log: zap.NewNop()}}
	s.routes()
	for _, target := range []string{"/decisions?before=abc", "/decisions?before=-1", "/decisions/events?since=x", "/decisions/events?before=1e3"} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "want a decision's stream sequence") {
			t.Errorf("%s: %d %q, want 400 saying what a sequence is", target, w.Code, w.Body.String())
		}
	}
}

// Assets are named by their content's hash, so browsers may keep them.
func TestAssetsCached(t *testing.T) {
	s := &Server{cfg: Config{Log: zap.NewNop()}}
	s.routes()
	for url, cached := range map[string]bool{"/static/console.js?v=" + assetVersion: true, "/static/console.js?v=old": false, "/static/console.css": false} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
		if got := strings.Contains(w.Header().Get("Cache-Control"), "immutable"); w.Code != http.StatusOK || got != cached {
			t.Errorf("%s: %d, cached %v, want %v", url, w.Code, got, cached)
		}
	}
}

func TestServeRefusesOpenConsoleOffLoopback(t *testing.T) {
	s := &Server{cfg: Config{Log: zap.NewNop()}}
	s.routes()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0"} {
		if _, err := s.Serve(t.Context(), addr); !errors.Is(err, ErrOpenNonLoopback) {
			t.Errorf("%s without auth: %v, want ErrOpenNonLoopback", addr, err)
		}
	}
	got, err := s.Serve(t.Context(), ":0")
	if err != nil || !strings.HasPrefix(got, "127.0.0.1:") {
		t.Errorf(":0 serves on %q (%v), want loopback", got, err)
	}
	s.Stop()
}

func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{"8090": "127.0.0.1:8090", ":8090": "127.0.0.1:8090",
		"0.0.0.0:8090": "0.0.0.0:8090", "[::1]:1": "[::1]:1"} {
		if got := ListenAddr(in); got != want {
			t.Errorf("ListenAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReliability(t *testing.T) {
	ex := []feedback.Example{{Prob: 0.05, Right: false}, {Prob: 0.91, Right: true}, {Prob: 0.95, Right: false},
		{Prob: 0.99, Right: true}, {Prob: 1, Right: true}}
	bins, ece := Reliability(ex, 10)
	if len(bins) != 10 || bins[0].N != 1 || bins[9].N != 4 {
		t.Fatalf("bins %+v", bins)
	}
	if b := bins[9]; math.Abs(b.Rate-0.75) > 1e-9 || math.Abs(b.MeanProb-0.9625) > 1e-9 {
		t.Errorf("top bin %+v, want rate 0.75, mean 0.9625", b)
	}
	// (1·|0.05-0| + 4·|0.9625-0.75|) / 5
	if want := (0.05 + 4*0.2125) / 5; math.Abs(ece-want) > 1e-9 {
		t.Errorf("ECE %v, want %v", ece, want)
	}
	if _, ece := Reliability(nil, 10); ece != 0 {
		t.Errorf("no examples: ECE %v", ece)
	}
	svg := string(ReliabilitySVG(bins))
	if strings.Count(svg, `class="bar"`) != 2 || !strings.HasPrefix(svg, "<svg") {
		t.Errorf("svg draws %d bars, want 2:\n%s", strings.Count(svg, `class="bar"`), svg)
	}
}

func TestRates(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ds := []Summary{{At: t0, Action: "delegate"}, {At: t0.Add(time.Second), Action: "abstain"},
		{At: t0.Add(9 * time.Second), Action: "clarify"}, {At: t0.Add(10 * time.Second), Action: "delegate"}}
	rs := Rates(ds, 2)
	if len(rs) != 2 || rs[0].N != 2 || rs[0].Delegate != 1 || rs[0].Abstain != 1 || rs[1].N != 2 || rs[1].Clarify != 1 {
		t.Fatalf("rates %+v", rs)
	}
	if rs := Rates(ds[:1], 5); len(rs) != 1 || rs[0].N != 1 {
		t.Errorf("one instant: %+v, want one bucket", rs)
	}
	if Rates(nil, 3) != nil {
		t.Error("no decisions: want no buckets")
	}
}

func TestSearch(t *testing.T) {
	rows := []AgentRow{
		{ID: "world-info", Name: "World Info", Skills: []SkillRow{{Key: "world-info/weather", Name: "Weather"}, {Key: "world-info/news", Name: "News", Tags: []string{"headlines"}}}},
		{ID: "ap", Name: "Accounts", Skills: []SkillRow{{Key: "ap/reconcile", Name: "Reconcile"}}},
	}
	if got := search(rows, ""); len(got) != 2 {
		t.Errorf("empty search: %d agents", len(got))
	}
	if got := search(rows, "WORLD"); len(got) != 1 || len(got[0].Skills) != 2 {
		t.Errorf("agent match keeps every skill: %+v", got)
	}
	if got := search(rows, "headlines"); len(got) != 1 || len(got[0].Skills) != 1 || got[0].Skills[0].Name != "News" {
		t.Errorf("tag match keeps the skill only: %+v", got)
	}
	if got := search(rows, "nothing"); len(got) != 0 {
		t.Errorf("no match: %+v", got)
	}
}

func TestPayloadText(t *testing.T) {
	text, cut := payloadText([]byte("ab\xffcd<script>"), 5)
	if text != "ab\uFFFDcd" || !cut {
		t.Errorf("%q %v", text, cut)
	}
	if text, cut := payloadText([]byte("<b>"), 10); text != "<b>" || cut {
		t.Errorf("%q %v", text, cut)
	}
}

func TestWhyFormTask(t *testing.T) {
	tk, err := WhyForm{Text: "summarise this", Caller: "alice", Scopes: "a, b", DataClass: "internal", Files: "report.pdf, image/png",
		Accept: "application/json"}.Task()
	if err != nil {
		t.Fatal(err)
	}
	if tk.Caller.ID != "alice" || len(tk.Caller.Scopes) != 2 || tk.Caller.DataClass != "internal" || len(tk.Message.Parts) != 3 ||
		len(tk.Constraints.AcceptedOutputTypes) != 1 {
		t.Errorf("task %+v", tk)
	}
	if _, err := (WhyForm{Text: "x", DataClass: "secret"}).Task(); err == nil {
		t.Error("a data class the extractor refuses was accepted")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestServeTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	a, err := NewAuth(AuthFile{Operators: []Operator{{ID: "ops", Token: "t"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cfg: Config{Auth: a, Log: zap.NewNop()}}
	s.routes()
	defer s.Stop()
	addr, err := s.Serve(t.Context(), "0.0.0.0:0", WithTLS(certFile, keyFile))
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	req, _ := http.NewRequest("GET", "https://127.0.0.1:"+port+"/static/console.css", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTPS: %d", resp.StatusCode)
	}
	if resp, err := (&http.Client{Timeout: 2 * time.Second}).Get("http://127.0.0.1:" + port + "/static/console.css"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP served the console")
		}
	}
	if _, err := s.Serve(t.Context(), "127.0.0.1:0", WithTLS(certFile, filepath.Join(t.TempDir(), "none.pem"))); err == nil {
		t.Error("a missing key was accepted")
	}
}

// TestServeCertificate: a certificate its caller loaded serves HTTPS as
// the files would.
func TestServeCertificate(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cfg: Config{Log: zap.NewNop()}}
	s.routes()
	defer s.Stop()
	addr, err := s.Serve(t.Context(), "127.0.0.1:0", WithCertificate(cert))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	resp, err := client.Get("https://" + addr + "/static/console.css")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTPS: %d", resp.StatusCode)
	}
}
