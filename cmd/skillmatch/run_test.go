package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `skillmatch run` on a free port with the example catalog, `skillmatch
// submit` against it, then Ctrl-C (context cancel) stops it cleanly.
func TestRunAndSubmit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, []string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--log-level", "warn", "--a2a-listen", "127.0.0.1:0"}, &out, &errOut)
	}()
	re := regexp.MustCompile(`NATS on (nats://\S+),`)
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
		t.Fatalf("run did not start:\n%s\n%s", out.String(), errOut.String())
	}

	// The A2A front door it prints serves the Agent Card.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "Ctrl-C") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if m := regexp.MustCompile(`A2A front door: (http://\S+) `).FindStringSubmatch(out.String()); m == nil {
		t.Errorf("no A2A front door printed:\n%s", out.String())
	} else if resp, err := http.Get(m[1] + "/.well-known/agent-card.json"); err != nil {
		t.Error(err)
	} else {
		var card struct {
			Name string `json:"name"`
		}
		err := json.NewDecoder(resp.Body).Decode(&card)
		resp.Body.Close()
		if err != nil || card.Name != "skillmatch" {
			t.Errorf("card: %+v %v", card, err)
		}
	}

	var sout, serr bytes.Buffer
	if err := cmdSubmit(ctx, []string{"--nats", url, "--id", "cli-1", "book a flight from Berlin to Lisbon on Friday"}, &sout, &serr); err != nil {
		t.Fatalf("submit: %v\n%s", err, serr.String())
	}
	if !strings.Contains(sout.String(), "task cli-1, decision d-") || !strings.Contains(sout.String(), "reason: ") {
		t.Errorf("submit printed:\n%s", sout.String())
	}
	sout.Reset()
	if err := cmdSubmit(ctx, []string{"--nats", url, "--json", "--scopes", "travel.book", "--accept", "application/json", "rent a car in Lyon"}, &sout, &serr); err != nil {
		t.Fatalf("submit --json: %v", err)
	}
	var d struct {
		V      int    `json:"v"`
		TaskID string `json:"taskId"`
		Action string `json:"action"`
	}
	if err := json.Unmarshal(sout.Bytes(), &d); err != nil || d.V != 1 || !strings.HasPrefix(d.TaskID, "cli-") || d.Action == "" {
		t.Errorf("submit --json printed %s (%v)", sout.String(), err)
	}
	// A named skill: the pipeline settles it as `match` does in process.
	for _, args := range [][]string{
		{"--skill", "diff-reviewer/explain-code", "what's the weather in Lisbon"},
		{"--skill", "world-info/weather-forecast", "--data-class", "restricted", "weather in Lisbon"},
	} {
		sout.Reset()
		if err := cmdSubmit(ctx, append([]string{"--nats", url}, args...), &sout, &serr); err != nil {
			t.Fatalf("submit %v: %v", args, err)
		}
		var mout, merr bytes.Buffer
		if code := run(ctx, append([]string{"match", "--cards", examplesDir, "--followups", ""}, args...), &mout, &merr); code != 0 {
			t.Fatalf("match %v: exit %d %s", args, code, merr.String())
		}
		want := strings.SplitN(mout.String(), "\n", 3)
		if !strings.Contains(sout.String(), want[0]+"\n"+want[1]+"\n") {
			t.Errorf("%v: submit printed\n%s\nmatch printed\n%s", args, sout.String(), mout.String())
		}
	}
	// A request with several intents: `run` plans by default, as `match`
	// does, and submit prints the same plan with one A2A request per step.
	sout.Reset()
	plan := "reconcile the supplier invoices against the purchase order and then translate the attached document into German"
	if err := cmdSubmit(ctx, []string{"--nats", url, plan}, &sout, &serr); err != nil {
		t.Fatalf("submit plan: %v", err)
	}
	var mout, merr bytes.Buffer
	if code := run(ctx, []string{"match", "--cards", examplesDir, "--followups", "", plan}, &mout, &merr); code != 0 {
		t.Fatalf("match plan: exit %d %s", code, merr.String())
	}
	if !strings.HasPrefix(mout.String(), "plan of 2 steps") || !strings.Contains(sout.String(), mout.String()) ||
		!strings.Contains(sout.String(), "A2A request, step 2 (decision d-") || strings.Contains(sout.String(), "A2A request, step 3") {
		t.Errorf("plan: submit printed\n%s\nmatch printed\n%s", sout.String(), mout.String())
	}
	// An invalid task is refused before it is sent.
	if err := cmdSubmit(ctx, []string{"--nats", url, "--id", "bad id", "x"}, &sout, &serr); !errors.Is(err, errUsage) {
		t.Errorf("invalid id: %v", err)
	}
	// The outcome of cli-1, reported through the client, is stored; a bad
	// one is refused before it is sent.
	sout.Reset()
	if err := cmdReport(ctx, []string{"--nats", url, "--decision", wire.DecisionID("", "cli-1"), "--task", "cli-1",
		"--skill", "travel-concierge/book-flight", "--success", "--latency-ms", "120"}, &sout, &serr); err != nil {
		t.Fatalf("report: %v", err)
	}
	if !strings.Contains(sout.String(), "reported") {
		t.Errorf("report printed %q", sout.String())
	}
	if err := cmdReport(ctx, []string{"--nats", url, "--decision", "d-1", "--skill", "a/b", "--success", "--latency-ms", "-1"}, &sout, &serr); !errors.Is(err, errUsage) {
		t.Errorf("negative latency: %v", err)
	}
	if err := cmdReport(ctx, []string{"--nats", url, "--decision", "d-1", "--skill", "a/b"}, &sout, &serr); !errors.Is(err, errUsage) {
		t.Errorf("neither success nor failure: %v", err)
	}
	if nc, err := nats.Connect(url); err != nil {
		t.Error(err)
	} else {
		js, _ := jetstream.New(nc)
		s, err := js.Stream(ctx, "OUTCOMES")
		if err != nil {
			t.Fatal(err)
		}
		if m, err := s.GetLastMsgForSubject(ctx, "skillmatch.outcome"); err != nil || !strings.Contains(string(m.Data), `"taskId":"cli-1"`) {
			t.Errorf("the outcome is not stored: %v", err)
		}
		nc.Close()
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
	if !strings.Contains(out.String(), "stopping") {
		t.Errorf("run output:\n%s", out.String())
	}
}

func TestRunFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := cmdRun(context.Background(), []string{"extra"}, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("positional argument: %v", err)
	}
	if err := cmdRun(context.Background(), []string{"--log-level", "loud"}, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("bad log level: %v", err)
	}
	if err := cmdSubmit(context.Background(), nil, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("submit without text: %v", err)
	}
}

// A file a run's flag names that does not parse stops the run as bad
// input (exit 2), naming the file or the flag, before any stage starts;
// so does a front door or console open off loopback (a usage error).
func TestRunRefusesBrokenFiles(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(broken, []byte(`{"x": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	registry := filepath.Join(t.TempDir(), "registry.json")
	if err := os.WriteFile(registry, []byte(`{"agents": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		args []string
	}{
		{"--model", []string{"--model", broken}},
		{"--grants", []string{"--grants", broken}},
		{"--a2a-tokens", []string{"--a2a-listen", "127.0.0.1:0", "--a2a-tokens", broken}},
		{"--a2a-tls-cert", []string{"--a2a-listen", "127.0.0.1:0", "--a2a-tls-cert", broken, "--a2a-tls-key", broken}},
		{"--registry", []string{"--registry", broken}},
		{"--agent-credentials", []string{"--registry", registry, "--agent-credentials", broken}},
		{"--console-auth", []string{"--console-listen", "127.0.0.1:0", "--console-auth", broken}},
		{"--callers", []string{"--callers", broken}},
		{"--trust-keys", []string{"--trust-keys", broken}},
		{"--auth", []string{"--auth", broken}},
		{"--data", []string{"--data", broken}},                  // a file, not a folder
		{"--a2a-listen", []string{"--a2a-listen", "0.0.0.0:0"}}, // open off loopback: no file, a usage error
		{"--console-listen", []string{"--console-listen", "0.0.0.0:0"}},
		{"--console-tls-cert", []string{"--console-listen", "127.0.0.1:0", "--console-tls-cert", broken, "--console-tls-key", broken}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			args := append([]string{"run", "--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1"}, tc.args...)
			code, _, stderr := runCmd(t, args...)
			if code != 2 || !strings.Contains(stderr, "broken.json") && !strings.Contains(stderr, tc.flag+" ") && !strings.Contains(stderr, tc.flag+": ") {
				t.Errorf("exit %d, want 2 naming the file or its flag; stderr:\n%s", code, stderr)
			}
			if strings.Contains(stderr, "stage started") {
				t.Errorf("stages started before the file was read:\n%s", stderr)
			}
		})
	}
}
