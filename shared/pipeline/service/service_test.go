package service

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

func exampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "catalog")
}

// The five services, each on its own connection to a NATS server over TCP,
// decide a submitted task; a bad one reaches the dead letters.
func TestServicesAgainstExternalNATS(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	url := srv.ClientURL()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Streams first (an operator's job in production; --setup-streams here).
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	run := func(stage string, extra ...string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"--nats", url, "--log-level", "error", "--backoff", "2s", "--max-deliver", "3"}, extra...)
			var stderr bytes.Buffer
			if err := Run(ctx, stage, args, &stderr); err != nil {
				errs <- errors.New(stage + ": " + err.Error() + "\n" + stderr.String())
			}
		}()
	}
	run(pipeline.StageFeedback, "--setup-streams")
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	defer scancel()
	// The reranker and decider watch the catalog bucket; the retriever
	// reads the same cards from the folder: their catalogs must agree.
	var kv jetstream.KeyValue
	for kv == nil {
		if kv, err = pipeline.CatalogKV(sctx, js, ""); err != nil {
			if sctx.Err() != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	files, rerrs := pipeline.ReadCards(exampleDir())
	if len(rerrs) > 0 {
		t.Fatal(rerrs)
	}
	for _, f := range files {
		if _, _, err := pipeline.PutCard(sctx, kv, f.ID, f.Data, f.Status); err != nil {
			t.Fatal(err)
		}
	}
	run(pipeline.StageExtractor)
	probe := freeAddr(t)
	run(pipeline.StageRetriever, "--cards", exampleDir(), "--health-listen", probe)
	run(pipeline.StageReranker)
	run(pipeline.StageDecider)
	a, err := pipeline.Submit(sctx, js, pipeline.Streams{}, &task.Task{ID: "svc-1",
		Message: task.Message{Parts: []task.Part{{Text: "translate this paragraph into German"}}}})
	if err != nil {
		select {
		case e := <-errs:
			t.Fatal(e)
		default:
		}
		t.Fatal(err)
	}
	if a.Decision == nil || a.Decision.TaskID != "svc-1" {
		t.Fatalf("answer %+v", a)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get("http://" + probe + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("retriever %s: %d %s", path, resp.StatusCode, body)
		}
	}
	a, err = pipeline.Submit(sctx, js, pipeline.Streams{}, &task.Task{ID: "svc-2",
		Message: task.Message{Parts: []task.Part{{Text: "hi"}}}, Caller: task.Caller{DataClass: "secret"}})
	if err != nil || a.DeadLetter == nil || a.DeadLetter.Stage != pipeline.StageExtractor {
		t.Fatalf("bad task: %+v, %v", a, err)
	}
	cancel()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestServiceFlags(t *testing.T) {
	var stderr bytes.Buffer
	ctx := context.Background()
	cases := [][]string{
		{"--backoff", "1s,2s,3s", "--max-deliver", "3"},
		{"--backoff", "soon"},
		{"--log-level", "loud"},
		{"extra"},
	}
	for _, args := range cases {
		if err := Run(ctx, pipeline.StageFeedback, args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v", args, err)
		}
	}
	// Without --cards the retriever watches the catalog bucket: not a
	// usage error, it needs a server.
	if err := Run(ctx, pipeline.StageRetriever, []string{"--nats", "nats://127.0.0.1:1", "--timeout", "500ms"}, &stderr); err == nil || errors.Is(err, errUsage) {
		t.Errorf("retriever without cards or server: %v", err)
	}
	if err := Run(ctx, "nope", nil, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("unknown stage: %v", err)
	}
	t.Setenv("SKILLMATCH_LOG_LEVEL", "loud")
	if err := Run(ctx, pipeline.StageFeedback, nil, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("bad env: %v", err)
	}
}

// freeAddr is a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Every SKILLMATCH_<FLAG> variable docker-compose.yml sets is a flag the
// services know: a typo there would be silently ignored by applyEnv.
func TestComposeEnvIsFlags(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(exampleDir(), "..", "..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := Run(context.Background(), pipeline.StageRetriever, []string{"--help"}, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	usage := stderr.String()
	keys := regexp.MustCompile(`\bSKILLMATCH_([A-Z_]+):`).FindAllStringSubmatch(string(data), -1)
	if len(keys) < 5 {
		t.Fatalf("found only %d SKILLMATCH_ variables in docker-compose.yml", len(keys))
	}
	for _, k := range keys {
		if k[1] == "ADMIN_PASSWORD" {
			continue // the NATS server's, not a service flag
		}
		name := strings.ToLower(strings.ReplaceAll(k[1], "_", "-"))
		if !strings.Contains(usage, "  -"+name+" ") && !strings.Contains(usage, "  -"+name+"\n") {
			t.Errorf("docker-compose.yml sets SKILLMATCH_%s, but the services have no --%s", k[1], name)
		}
	}
}
