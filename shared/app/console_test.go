package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func get(t *testing.T, url string, set func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if set != nil {
		set(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// With --console-auth the console of `run` answers only its operators.
func TestRunConsoleAuth(t *testing.T) {
	t.Setenv("CONSOLE_OPS_PASSWORD", "hunter2")
	auth := filepath.Join(t.TempDir(), "console-auth.json")
	if err := os.WriteFile(auth, []byte(`{"operators": [{"id": "ops", "user": "ops", "password": "$CONSOLE_OPS_PASSWORD"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, _ := startTestRun(t, "--console-listen", "127.0.0.1:0", "--console-auth", auth)
	base := "http://" + r.ConsoleAddr
	if code, _ := get(t, base+"/catalog", nil); code != http.StatusUnauthorized {
		t.Errorf("no credentials: %d, want 401", code)
	}
	if code, _ := get(t, base+"/catalog", func(r *http.Request) { r.SetBasicAuth("ops", "wrong") }); code != http.StatusUnauthorized {
		t.Errorf("wrong password: %d, want 401", code)
	}
	code, body := get(t, base+"/catalog", func(r *http.Request) { r.SetBasicAuth("ops", "hunter2") })
	if code != http.StatusOK || !strings.Contains(body, "ap-reconciler") || !strings.Contains(body, "read-only · ops") {
		t.Errorf("operator: %d, want the catalog shown to ops:\n%.500s", code, body)
	}
}

// An open console is never served off loopback.
func TestRunConsoleOpenOnlyOnLoopback(t *testing.T) {
	fs, rf := NewRunFlags(io.Discard)
	if err := fs.Parse([]string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--cards", exampleDir(),
		"--console-listen", "0.0.0.0:0"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := StartRun(ctx, rf, zap.NewNop())
	if err == nil {
		r.Stop()
		t.Fatal("an open console on 0.0.0.0 was started")
	}
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--console-auth") {
		t.Errorf("%v, want a usage error naming --console-auth", err)
	}
}

// The console service reads a deployment's streams and buckets over NATS.
func TestConsoleService(t *testing.T) {
	r, ctx := startTestRun(t)
	addr := freeAddr(t)
	sctx, cancel := context.WithCancel(ctx)
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunConsole(sctx, []string{"--nats", r.ClientURL, "--console-listen", addr, "--log-level", "warn"}, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("console service: %v\n%s", err, stderr.String())
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/catalog?task=what+is+the+weather+in+Lisbon&dataClass=confidential")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), "world-info") && strings.Contains(string(body), "excluded") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console service did not serve the catalog with its exclusions: %v\n%s", err, stderr.String())
		}
		select {
		case err := <-done:
			t.Fatalf("console service ended: %v\n%s", err, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestConsoleMainCommandLine(t *testing.T) {
	never := func(context.Context, []string, io.Writer) error { t.Error("ran"); return nil }
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--help"}, 0, "Usage: skillmatch-console"},
		{[]string{"--version"}, 0, "skillmatch-console"},
		{[]string{"extra"}, 2, ""},
		{[]string{"--no-such-flag"}, 2, ""},
	} {
		var stdout, stderr bytes.Buffer
		if code := consoleMain(c.args, &stdout, &stderr, never); code != c.code || !strings.Contains(stdout.String(), c.out) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout.String(), stderr.String())
		}
	}
	if err := RunConsole(context.Background(), []string{"--console-listen", ""}, io.Discard); !errors.Is(err, ErrUsage) {
		t.Errorf("empty --console-listen: %v, want a usage error", err)
	}
}
