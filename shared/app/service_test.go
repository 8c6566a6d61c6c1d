package app

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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

func exampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "catalog")
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
	svc := startServices(ctx, "--nats", url)
	defer svc.stop(t, cancel)
	run, errs := svc.run, svc.errs
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
	waitForBuckets(sctx, t, js)
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
	run(pipeline.StageDecider, "--group-commit")
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
		if err := RunService(ctx, pipeline.StageFeedback, args, &stderr, nil); !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v", args, err)
		}
	}
	// Without --cards the retriever watches the catalog bucket: not a
	// usage error, it needs a server.
	if err := RunService(ctx, pipeline.StageRetriever, []string{"--nats", "nats://127.0.0.1:1", "--timeout", "500ms"}, &stderr, memoryRetrieval{}); err == nil || errors.Is(err, ErrUsage) {
		t.Errorf("retriever without cards or server: %v", err)
	}
	// Self-calibration needs a matcher that retrieves and decides: no
	// stage service has one.
	for _, stage := range []string{pipeline.StageDecider, pipeline.StageRetriever} {
		err := RunService(ctx, stage, []string{"--self-calibrate", "--nats", "nats://127.0.0.1:1", "--timeout", "500ms"}, &stderr, memoryRetrieval{})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--self-calibrate") {
			t.Errorf("%s --self-calibrate: %v", stage, err)
		}
	}
	if err := RunService(ctx, "nope", nil, &stderr, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown stage: %v", err)
	}
	t.Setenv("SKILLMATCH_LOG_LEVEL", "loud")
	if err := RunService(ctx, pipeline.StageFeedback, nil, &stderr, nil); !errors.Is(err, ErrUsage) {
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
	if err := RunService(context.Background(), pipeline.StageRetriever, []string{"--help"}, &stderr, nil); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	usage := stderr.String()
	stderr.Reset()
	if err := RunConsole(context.Background(), []string{"--help"}, &stderr, nil); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("console --help: %v", err)
	}
	usage += stderr.String() // the console service's flags
	// The front-door service's flags too.
	var help *HelpError
	fdFS, _ := NewFrontDoorFlags(io.Discard)
	if _, err := Parse(fdFS, []string{"--help"}); !errors.As(err, &help) {
		t.Fatalf("frontdoor --help: %v", err)
	}
	usage += help.Text
	keys := regexp.MustCompile(`\bSKILLMATCH_([A-Z0-9_]+):`).FindAllStringSubmatch(string(data), -1)
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

// The decider service enforces --grants on its own: with a retriever that
// has none (a deployment that forgot them there), a caller without a grant
// is still refused, exactly as the in-process matcher with the same
// --grants decides (what `skillmatch run --grants` builds).
func TestServiceDeciderGrants(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	url := srv.ClientURL()
	grantsFile := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(grantsFile, []byte(`{"grants":[{"caller":"alice","agent":"world-info"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := startServices(ctx, "--nats", url, "--cards", exampleDir())
	defer svc.stop(t, cancel)
	run, errs := svc.run, svc.errs
	run(pipeline.StageFeedback, "--setup-streams")
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	defer scancel()
	waitForBuckets(sctx, t, js)
	run(pipeline.StageExtractor)
	run(pipeline.StageRetriever)
	run(pipeline.StageReranker)
	run(pipeline.StageDecider, "--grants", grantsFile)

	mf := MatcherFlags{Retrieval: memoryRetrieval{}, Grants: grantsFile, Index: "memory", Shortlist: 20, RRFK: 60, Threshold: 0.5, Margin: 0.1, ModelExamples: true}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	mf.Register(fs)
	if err := fs.Parse([]string{"--grants", grantsFile}); err != nil {
		t.Fatal(err)
	}
	build, err := mf.Builder(nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := catalog.LoadDir(exampleDir())
	inProcess, err := build(cat)
	if err != nil {
		t.Fatal(err)
	}
	for i, caller := range []string{"alice", "eve", ""} {
		tk := &task.Task{ID: "g-" + strconv.Itoa(i), Message: task.Message{Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}},
			Caller: task.Caller{ID: caller}}
		a, err := pipeline.Submit(sctx, js, pipeline.Streams{}, tk)
		if err != nil {
			select {
			case e := <-errs:
				t.Fatal(e)
			default:
			}
			t.Fatal(err)
		}
		if a.Decision == nil {
			t.Fatalf("caller %q: no decision: %+v", caller, a)
		}
		want, err := inProcess.Match(ctx, tk)
		if err != nil {
			t.Fatal(err)
		}
		got := a.Decision.Decision
		if got.Action != want.Decision.Action || (got.Chosen == nil) != (want.Decision.Chosen == nil) ||
			(got.Chosen != nil && got.Chosen.Key != want.Decision.Chosen.Key) {
			t.Errorf("caller %q: services %s %v, in process %s %v", caller, got.Action, got.Chosen, want.Decision.Action, want.Decision.Chosen)
		}
		switch caller {
		case "alice":
			if got.Action != decide.Delegate || got.Chosen.AgentID != "world-info" {
				t.Errorf("granted caller: %s %+v (%s)", got.Action, got.Chosen, got.Reason)
			}
		default:
			if got.Action == decide.Delegate || a.Decision.Request != nil {
				t.Errorf("caller %q without a grant was delegated: %+v", caller, got)
			}
		}
	}
}

// Every matcher and pipeline flag exists on every service and on `run`
// with the same default and help text, so one environment configures a
// whole deployment, and a flag added to one binary reaches all of them.
func TestFlagsSameEverywhere(t *testing.T) {
	runFS, _ := NewRunFlags(io.Discard)
	names := append(append([]string(nil), MatcherFlagNames...), PipelineFlagNames...)
	for _, stage := range pipeline.StageNames {
		fs, _ := NewServiceFlags(stage, io.Discard)
		for _, name := range names {
			sf, rf := fs.Lookup(name), runFS.Lookup(name)
			switch {
			case sf == nil:
				t.Errorf("skillmatch-%s has no --%s", stage, name)
			case rf == nil:
				t.Errorf("skillmatch run has no --%s", name)
			case sf.DefValue != rf.DefValue || sf.Usage != rf.Usage:
				t.Errorf("--%s differs: %s %q %q, run %q %q", name, stage, sf.DefValue, sf.Usage, rf.DefValue, rf.Usage)
			}
		}
	}
	// The lists name every flag the groups define.
	for _, g := range []struct {
		names    []string
		register func(*flag.FlagSet)
	}{
		{MatcherFlagNames, new(MatcherFlags).Register},
		{PipelineFlagNames, new(PipelineFlags).Register},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		g.register(fs)
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			n++
			if !slices.Contains(g.names, f.Name) {
				t.Errorf("--%s is not listed", f.Name)
			}
		})
		if n != len(g.names) {
			t.Errorf("%d flags listed, %d defined", len(g.names), n)
		}
	}
}

// services runs stage services (RunService) with common flags; stop ends
// them and reports any that failed.
type services struct {
	ctx  context.Context
	base []string
	wg   sync.WaitGroup
	errs chan error
}

func startServices(ctx context.Context, base ...string) *services {
	return &services{ctx: ctx, base: append([]string{"--log-level", "error", "--backoff", "2s", "--max-deliver", "3"}, base...),
		errs: make(chan error, 16)}
}

func (s *services) run(stage string, extra ...string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var stderr bytes.Buffer
		if err := RunService(s.ctx, stage, append(append([]string(nil), s.base...), extra...), &stderr, retrievalFor(stage)); err != nil {
			s.errs <- errors.New(stage + ": " + err.Error() + "\n" + stderr.String())
		}
	}()
}

func (s *services) stop(t *testing.T, cancel context.CancelFunc) {
	t.Helper()
	cancel()
	s.wg.Wait()
	close(s.errs)
	for e := range s.errs {
		t.Error(e)
	}
}

// waitForBuckets waits until --setup-streams has created the model
// bucket, the last thing it creates: the reranker and decider need it.
func waitForBuckets(ctx context.Context, t *testing.T, js jetstream.JetStream) {
	t.Helper()
	for {
		if _, err := pipeline.ModelKV(ctx, js, ""); err == nil {
			return
		} else if ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
