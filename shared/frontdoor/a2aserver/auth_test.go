package a2aserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
)

func digest(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:])
}

func TestParseTokens(t *testing.T) {
	good := `{"tokens": {"` + digest("secret-a") + `": "alice", "` + strings.ToUpper(digest("secret-b")) + `": "bob"}}`
	tk, err := ParseTokens([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]string{"secret-a": "alice", "secret-b": "bob", "secret-c": "", "": "", digest("secret-a"): ""} {
		got, ok := tk.Caller(token)
		if got != want || ok != (want != "") {
			t.Errorf("Caller(%q) = %q, %v; want %q", token, got, ok, want)
		}
	}
	for name, bad := range map[string]string{
		"not json":       `{`,
		"no tokens":      `{"tokens": {}}`,
		"unknown field":  `{"tokens": {"` + digest("x") + `": "alice"}, "plain": {"x": "alice"}}`,
		"plain token":    `{"tokens": {"secret-a": "alice"}}`,
		"short digest":   `{"tokens": {"` + digest("x")[:40] + `": "alice"}}`,
		"bad caller":     `{"tokens": {"` + digest("x") + `": "a.b"}}`,
		"anonymous":      `{"tokens": {"` + digest("x") + `": "_"}}`,
		"wildcard":       `{"tokens": {"` + digest("x") + `": "*"}}`,
		"caller not str": `{"tokens": {"` + digest("x") + `": 1}}`,
	} {
		if _, err := ParseTokens([]byte(bad)); !errors.Is(err, ErrTokensFile) {
			t.Errorf("%s: %v, want ErrTokensFile", name, err)
		}
	}
}

// never is a Submitter for tests that must not reach the pipeline.
type never struct{ t *testing.T }

func (n never) Submit(context.Context, *task.Task) (*client.Answer, error) {
	n.t.Error("submitted")
	return nil, errors.New("no pipeline here")
}

func TestAuthenticate(t *testing.T) {
	tk, err := ParseTokens([]byte(`{"tokens": {"` + digest("secret-a") + `": "alice"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		tokens *Tokens
		header string
		caller string // "-": refused
	}{
		{"open, no header", nil, "", ""},
		{"open, a header is still checked", nil, "Bearer secret-a", "-"},
		{"token", tk, "Bearer secret-a", "alice"},
		{"scheme in any case", tk, "bearer secret-a", "alice"},
		{"no header", tk, "", "-"},
		{"unknown token", tk, "Bearer secret-b", "-"},
		{"basic", tk, "Basic c2VjcmV0LWE=", "-"},
		{"empty token", tk, "Bearer ", "-"},
	} {
		s := &Server{cfg: Config{Tokens: tc.tokens, Submitter: never{t}}}
		var got *string
		h := s.authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, _ := callerFrom(r.Context())
			got = &c
		}))
		req := httptest.NewRequest("POST", "/jsonrpc", nil)
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch {
		case tc.caller == "-" && (got != nil || rec.Code != http.StatusUnauthorized):
			t.Errorf("%s: served (%d), want 401", tc.name, rec.Code)
		case tc.caller != "-" && (got == nil || *got != tc.caller):
			t.Errorf("%s: caller %v (%d), want %q", tc.name, got, rec.Code, tc.caller)
		}
	}
}

func TestListenRefusesOpenNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		if s, err := Listen(addr, Config{Submitter: never{t}}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s without authentication: %v", addr, err)
			if s != nil {
				_ = s.Stop(context.Background())
			}
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		s, err := Listen(addr, Config{Submitter: never{t}})
		if err != nil {
			if strings.Contains(err.Error(), "cannot assign") || strings.Contains(err.Error(), "address family") {
				continue // no IPv6 loopback on this machine
			}
			t.Errorf("%s: %v", addr, err)
			continue
		}
		_ = s.Stop(context.Background())
	}
	if _, err := Listen("127.0.0.1:0", Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("no submitter: %v", err)
	}
}

// An oversized body is refused before it is read, a declared or a chunked
// one alike.
func TestBounded(t *testing.T) {
	read := 0
	h := bounded(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		read = len(b)
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		}
	}))
	for _, declared := range []bool{true, false} {
		req := httptest.NewRequest("POST", "/jsonrpc", strings.NewReader(strings.Repeat("x", MaxBodyBytes+1)))
		if !declared {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge || read > MaxBodyBytes {
			t.Errorf("declared %v: %d, %d bytes read", declared, rec.Code, read)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/jsonrpc", strings.NewReader("{}")))
	if rec.Code != http.StatusOK || read != 2 {
		t.Errorf("small body: %d, %d bytes", rec.Code, read)
	}
}
