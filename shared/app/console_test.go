package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
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
	rf.Matcher.Retrieval = memoryRetrieval{}
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

// The console service reads a deployment's streams and buckets over NATS,
// and shows the catalog as a caller sees it under the grants.
func TestConsoleService(t *testing.T) {
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(grantsFile, []byte(`{"grants": [{"caller": "alice", "agent": "world-info"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	callersFile := filepath.Join(t.TempDir(), "callers.json")
	if err := os.WriteFile(callersFile, []byte(`{"callers": {"carol": {"dataClass": "confidential"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, ctx := startTestRun(t)
	addr := freeAddr(t)
	sctx, cancel := context.WithCancel(ctx)
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunConsole(sctx, []string{"--nats", r.ClientURL, "--console-listen", addr, "--log-level", "warn", "--grants", grantsFile,
			"--callers", callersFile}, &stderr, memoryRetrieval{})
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
	grantsAsAlice(t, addr)
	// carol's data-class floor applies to her "why excluded" task as the
	// extractor would apply it, though the form names no data class.
	_, body := get(t, "http://"+addr+"/catalog?task=what+is+the+weather+in+Lisbon&as=carol", nil)
	if !strings.Contains(body, "data class confidential") {
		t.Errorf("carol's task was not raised to her data-class floor:\n%.2000s", body)
	}
}

// grantsAsAlice checks the "as caller" view of TestConsoleService's grants.
func grantsAsAlice(t *testing.T, addr string) {
	t.Helper()
	code, body := get(t, "http://"+addr+"/catalog?as=alice", nil)
	if code != http.StatusOK || !strings.Contains(body, "under the configured grants") {
		t.Fatalf("as alice: %d\n%.600s", code, body)
	}
	m := regexp.MustCompile(`(\d+) skills granted, (\d+) not`).FindStringSubmatch(body)
	if m == nil || m[1] == "0" || m[2] == "0" {
		t.Errorf("as alice under a grant of world-info only: %v, want some granted and some not", m)
	}
	if !strings.Contains(body, "not granted:") {
		t.Error("the skills alice may not use do not say why")
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
	if err := RunConsole(context.Background(), []string{"--console-listen", ""}, io.Discard, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("empty --console-listen: %v, want a usage error", err)
	}
}

// The console service as deploy/nats's console user: its read-only
// permissions are enough for every page, a decision's trace included.
func TestDeployedConsoleReadsOnly(t *testing.T) {
	ns := startDeployServer(t)
	url := func(user, pass string) string {
		return strings.Replace(ns.ClientURL(), "nats://", "nats://"+user+":"+pass+"@", 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	anc, ajs, err := pipeline.Connect(pipeline.ConnectConfig{URL: url("admin", "skillmatch_admin-secret")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer anc.Close()
	if err := pipeline.SetupStreams(ctx, ajs, pipeline.Config{}); err != nil {
		t.Fatal(err)
	}
	kv, err := pipeline.CatalogKV(ctx, ajs, "")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := pipeline.ReadCards(exampleDir())
	for _, f := range files {
		if _, _, err := pipeline.PutCard(ctx, kv, f.ID, f.Data, f.Status); err != nil {
			t.Fatal(err)
		}
	}
	// One task's ranked message and decision, and a dead letter, as the stages would write them.
	top := decide.Option{Key: "world-info/weather-forecast", AgentID: "world-info", SkillID: "weather-forecast", Score: 2, Prob: 0.3, Reason: "fit 2/10"}
	rk, _ := json.Marshal(wire.Ranked{V: wire.Version, TaskID: "dep-1", Caller: "alice", Catalog: "x", Candidates: []decide.Option{top},
		Task: json.RawMessage(`{"id":"dep-1","message":{"parts":[{"text":"weather in Lisbon"}]},"caller":{"id":"alice","dataClass":"confidential"}}`)})
	msg := nats.NewMsg(wire.SubjectRanked)
	msg.Data = rk
	msg.Header.Set(nats.MsgIdHdr, pipeline.MsgID("alice", "dep-1", "ranked"))
	if _, err := ajs.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	dec, _ := json.Marshal(wire.Decision{V: wire.Version, TaskID: "dep-1", DecisionID: "d-dep-1", Top: &top, DecidedAt: time.Now().UTC(),
		Decision: decide.Decision{Action: decide.Abstain, Probability: 0.3, Reason: "best match only 0.30"}})
	if _, err := ajs.Publish(ctx, wire.SubjectDecision("alice", "abstain", "dep-1"), dec); err != nil {
		t.Fatal(err)
	}
	dl, _ := json.Marshal(wire.NewDeadLetter("extractor", "task: not JSON", wire.SubjectSubmittedBy("bob"), []byte("junk"), time.Now().UTC()))
	if _, err := ajs.Publish(ctx, wire.SubjectDeadLetter("extractor", "bob", ""), dl); err != nil {
		t.Fatal(err)
	}

	// A refitted calibration and a posteriors snapshot, as the feedback stage puts them.
	mkv, err := pipeline.ModelKV(ctx, ajs, "")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrate.NewPlatt(calibrate.Platt{A: -1.2, B: 4})
	if err != nil {
		t.Fatal(err)
	}
	calJSON, _ := json.Marshal(cal)
	post := feedback.NewPosteriors()
	for i := range 6 {
		if _, err := post.Observe(feedback.Outcome{DecisionID: fmt.Sprintf("d-%d", i), Skill: "world-info/weather-forecast", Success: i != 0}); err != nil {
			t.Fatal(err)
		}
	}
	postJSON, _ := json.Marshal(post.Snapshot())
	for k, v := range map[string][]byte{wire.ModelKeyCalibration: calJSON, wire.ModelKeyPosteriors: postJSON} {
		if _, err := mkv.Put(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}

	addr := freeAddr(t)
	sctx, stop := context.WithCancel(ctx)
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunConsole(sctx, []string{"--nats", url("console", "console-secret"), "--inbox-prefix", "_INBOX_console",
			"--console-listen", addr, "--log-level", "warn"}, &stderr, memoryRetrieval{})
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("console service: %v\n%s", err, stderr.String())
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := http.Get("http://" + addr + "/catalog"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the console did not come up:\n%s", stderr.String())
		}
		select {
		case err := <-done:
			t.Fatalf("console service ended: %v\n%s", err, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	for path, want := range map[string]string{
		"/catalog":     "ap-reconciler",
		"/decisions":   "dep-1",
		"/decisions/1": "Ranked by the pipeline",
		"/deadletters": "task: not JSON",
		"/calibration": "Calibration in use",
	} {
		code, body := get(t, "http://"+addr+path, nil)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s as the console user: %d, want %q in:\n%.800s", path, code, want, body)
		}
	}
	if _, body := get(t, "http://"+addr+"/calibration", nil); !strings.Contains(body, "refitted from outcomes: platt") ||
		!strings.Contains(body, "last changed") || !strings.Contains(body, "world-info/weather-forecast") {
		t.Errorf("the calibration page lacks the refit or the posteriors:\n%s", body)
	}
	if err := mkv.Delete(ctx, wire.ModelKeyCalibration); err != nil {
		t.Fatal(err)
	}
	if _, body := get(t, "http://"+addr+"/calibration", nil); !strings.Contains(body, "the published refit was deleted") {
		t.Errorf("the calibration page does not say the refit was deleted:\n%s", body)
	}
	// The trace's filters were recomputed by the service's own matcher.
	if _, body := get(t, "http://"+addr+"/decisions/1", nil); !strings.Contains(body, "recomputed now") || !strings.Contains(body, "world-info/") {
		t.Errorf("no recomputed filters in the trace:\n%s", body)
	}
	if strings.Contains(stderr.String(), "Permissions Violation") {
		t.Errorf("the console hit a permission it lacks:\n%s", stderr.String())
	}
}
