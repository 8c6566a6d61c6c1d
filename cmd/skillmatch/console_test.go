package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// `run --console-listen` prints where the console is, and serves it there.
func TestRunPrintsConsole(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, []string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--log-level", "warn",
			"--console-listen", "127.0.0.1:0"}, &out, &errOut)
	}()
	re := regexp.MustCompile(`operator console \(read-only\): (http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); {
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v\n%s", err, errOut.String())
		default:
		}
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if url == "" {
		t.Fatalf("run printed no console address:\n%s\n%s", out.String(), errOut.String())
	}
	resp, err := http.Get(url) // redirected to the catalog
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "travel-concierge") {
		t.Errorf("%s: %d\n%.400s", url, resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop within 10 s of Ctrl-C")
	}
}
