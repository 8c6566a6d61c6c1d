package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/app/retrieval"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func exampleDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "catalog")
}

// chromium finds the browser: $SKILLMATCH_CHROMIUM, else Debian's
// package. Under CI a missing browser fails the test (.ci/run installs
// it); elsewhere the test is skipped with the way to get it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("SKILLMATCH_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium at /usr/bin/chromium: .ci/run installs Debian's chromium package before make test")
	}
	t.Skip("no Chromium: apt-get install chromium (or set SKILLMATCH_CHROMIUM) to run the browser tests")
	return ""
}

// browser starts a headless Chromium with a fresh profile and nothing that
// reaches the network on its own.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return bctx
}

// artifacts is where screenshots go: $SKILLMATCH_ARTIFACTS, else a
// folder that outlives the test (logged).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SKILLMATCH_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "skillmatch-console-"); err != nil {
			t.Fatal(err)
		}
	}
	dir = filepath.Join(dir, "console")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The card of a hostile agent: markup in every text field.
const evilCard = `{"name": "Evil <b>Agent</b>", "version": "6.6.6",
 "description": "Helps with <script>window.__pwned = 1</script> everything <img src=x onerror=\"window.__pwned = 2\">",
 "supportedInterfaces": [{"url": "https://evil.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
 "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
 "skills": [{"id": "anything", "name": "Anything", "description": "Does <script>window.__pwned = 3</script> anything",
   "tags": ["evil"], "examples": ["do anything"]}]}`

// TestConsoleInBrowser drives the console of `skillmatch run
// --console-listen` with a real headless Chromium: every page, a task
// appearing live, its trace, a hostile card, a dead letter, and the live
// page's load time with 10,000 decisions in the stream.
func TestConsoleInBrowser(t *testing.T) {
	bctx := browser(t)
	shots := artifacts(t)

	fs, rf := retrieval.NewRunFlags(io.Discard)
	if err := fs.Parse([]string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--cards", exampleDir(),
		"--console-listen", "127.0.0.1:0", "--feedback-every", "1", "--feedback-interval", "200ms"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	run, err := app.StartRun(ctx, rf, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	if run.ConsoleAddr == "" || !strings.HasPrefix(run.ConsoleAddr, "127.0.0.1:") {
		t.Fatalf("console address %q: want loopback", run.ConsoleAddr)
	}
	base := "http://" + run.ConsoleAddr
	nc, err := nats.Connect(run.ClientURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := pipeline.CatalogKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := pipeline.PutCard(ctx, kv, "evil-agent", []byte(evilCard), nil); err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	evalString := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	evalNumber := func(expr string) float64 {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[float64](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}

	t.Run("catalog lists the example agents, hostile text as text", func(t *testing.T) {
		cat, errs := catalog.LoadDir(exampleDir())
		if len(errs) > 0 || cat == nil || len(cat.Agents) < 10 {
			t.Fatalf("example catalog: %v", errs)
		}
		do(chromedp.Navigate(base+"/catalog"), chromedp.WaitVisible(chromedp.CSS(`#agent-evil-agent`)))
		body := text("main")
		for _, a := range cat.Agents {
			if !strings.Contains(body, a.Card.Name) || !strings.Contains(body, a.Card.ID) {
				t.Errorf("catalog page lacks agent %s (%s)", a.Card.ID, a.Card.Name)
			}
		}
		evil := text("#agent-evil-agent")
		for _, want := range []string{"<script>window.__pwned = 1</script>", "<script>window.__pwned = 3</script>", `onerror="window.__pwned = 2"`} {
			if !strings.Contains(evil, want) {
				t.Errorf("the hostile card's text %q is not shown as text:\n%s", want, evil)
			}
		}
		if !strings.Contains(evil, "not trusted — card claims any task") {
			t.Errorf("the hostile card's skill is not marked as not trusted:\n%s", evil)
		}
		if strings.Contains(text("#agent-world-info"), "not trusted") {
			t.Errorf("an honest agent is marked as not trusted")
		}
		if pwned := evalString(`String(window.__pwned)`); pwned != "undefined" {
			t.Errorf("a script of the card ran: window.__pwned = %s", pwned)
		}
		if n := evalNumber(`document.querySelectorAll('script').length`); n != 1 {
			t.Errorf("%v script elements on the page, want only the console's own", n)
		}
		screenshot(t, bctx, shots, "catalog")

		// Why excluded: confidential data keeps external agents out.
		do(chromedp.Navigate(base+"/catalog?task=what+is+the+weather+in+Lisbon&dataClass=confidential&as=alice"),
			chromedp.WaitVisible(chromedp.CSS(`#why-answer`)))
		world := text("#agent-world-info")
		if !strings.Contains(world, "excluded") || !strings.Contains(world, "confidential") {
			t.Errorf("why excluded: the external world-info agent shows no data-policy reason:\n%s", world)
		}
	})

	t.Run("a submitted task appears live within 2 s and opens its trace", func(t *testing.T) {
		do(chromedp.Navigate(base+"/decisions"),
			chromedp.Poll[chromedp.Void](`document.getElementById('live-state').textContent === 'live'`, chromedp.WithPollingTimeout(10*time.Second)))
		tk := &task.Task{ID: "live-1", Message: task.Message{Parts: []task.Part{{Text: "translate this supplier contract into German"}}},
			Caller: task.Caller{ID: "alice", DataClass: "confidential"}}
		start := time.Now()
		if _, err := pipeline.Publish(ctx, js, tk); err != nil {
			t.Fatal(err)
		}
		row := `Array.from(document.querySelectorAll('#decision-rows a')).find(a => a.textContent === 'live-1')`
		if err := chromedp.Do(bctx, chromedp.Poll[chromedp.Void](row+` !== undefined`,
			chromedp.WithPollingTimeout(2*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
			t.Fatalf("task live-1 not in the live view within 2 s: %v", err)
		}
		t.Logf("task live-1 appeared in the live view %v after it was published", time.Since(start).Round(time.Millisecond))
		screenshot(t, bctx, shots, "decisions-live")
		seq := evalString(row + `.closest('tr').dataset.seq`)
		do(chromedp.Click(chromedp.CSS(`tr[data-seq="`+seq+`"] a`)), chromedp.WaitVisible(chromedp.CSS(`#filters`)))
		if url, _ := chromedp.Run(bctx, chromedp.Location()); !strings.HasSuffix(url, "/decisions/"+seq) {
			t.Errorf("clicked into %s, want decision %s", url, seq)
		}
		removed := evalNumber(`document.querySelectorAll('tr.rejection').length`)
		rej := text(".rejections")
		if removed == 0 || !strings.Contains(rej, "world-info/") || !strings.Contains(rej, "confidential") {
			t.Errorf("the trace of a confidential task shows no data-policy removal (%v rows):\n%s", removed, rej)
		}
		if !strings.Contains(text("#recomputed"), "recomputed now") {
			t.Error("the page does not say the filter removals were recomputed")
		}
		if !strings.Contains(text("#trace"), "Ranked by the pipeline") {
			t.Error("the trace lacks the pipeline's own ranking")
		}
		screenshot(t, bctx, shots, "decision")
	})

	t.Run("a plan appears live with its steps and opens them with a request each", func(t *testing.T) {
		do(chromedp.Navigate(base+"/decisions"),
			chromedp.Poll[chromedp.Void](`document.getElementById('live-state').textContent === 'live'`, chromedp.WithPollingTimeout(10*time.Second)))
		tk := &task.Task{ID: "live-plan", Message: task.Message{Parts: []task.Part{{Text: "book a flight to Lisbon for Monday; reset my forgotten password; what is the weather forecast in Lisbon"}}},
			Caller: task.Caller{ID: "alice"}}
		if _, err := pipeline.Publish(ctx, js, tk); err != nil {
			t.Fatal(err)
		}
		row := `Array.from(document.querySelectorAll('#decision-rows a')).find(a => a.textContent === 'live-plan')`
		if err := chromedp.Do(bctx, chromedp.Poll[chromedp.Void](row+` !== undefined`,
			chromedp.WithPollingTimeout(5*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
			t.Fatalf("task live-plan not in the live view: %v", err)
		}
		cells := evalString(row + `.closest('tr').textContent`)
		if !strings.Contains(cells, "plan") || !strings.Contains(cells, "travel-concierge/book-flight → it-helpdesk/password-reset → world-info/weather-forecast") {
			t.Errorf("the live row of a plan does not show its steps: %q", cells)
		}
		seq := evalString(row + `.closest('tr').dataset.seq`)
		do(chromedp.Click(chromedp.CSS(`tr[data-seq="`+seq+`"] a`)), chromedp.WaitVisible(chromedp.CSS(`#plan-steps`)))
		if n := evalNumber(`document.querySelectorAll('#plan-steps li').length`); n != 3 {
			t.Errorf("%v plan steps on the decision page, want 3:\n%s", n, text("#plan-steps"))
		}
		if tr := text("#trace"); !strings.Contains(tr, "A2A request, step 3") || strings.Contains(tr, "A2A request, step 4") {
			t.Errorf("the decision page lacks one A2A request per step:\n%s", tr)
		}
		screenshot(t, bctx, shots, "decision-plan")
	})

	t.Run("a dead letter appears with its reason", func(t *testing.T) {
		// Published raw, so that the payload holds the markup verbatim.
		raw := `{"id":"dl-1","message":{"parts":[{"text":"<script>window.__pwned = 4</script> hi"}]},"caller":{"dataClass":"top-secret"}}`
		if _, err := js.Publish(ctx, wire.SubjectSubmittedBy("bob"), []byte(raw)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			do(chromedp.Navigate(base + "/deadletters"))
			if strings.Contains(text("main"), "dl-1") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no dead letter for dl-1 after 5 s:\n%s", text("main"))
			}
			time.Sleep(200 * time.Millisecond)
		}
		reason := text(".deadletter .dl-reason")
		if !strings.Contains(reason, `caller.dataClass: "top-secret" is not one of public, internal, confidential, restricted`) {
			t.Errorf("the dead letter's reason is %q, want the extractor's", reason)
		}
		if !strings.Contains(text(".groups"), "extractor") {
			t.Errorf("the dead letters are not grouped by stage:\n%s", text(".groups"))
		}
		payload := evalString(`document.querySelector('.deadletter pre').textContent`)
		if pwned := evalString(`String(window.__pwned)`); !strings.Contains(payload, "<script>window.__pwned = 4</script>") || pwned != "undefined" {
			t.Errorf("payload not shown as text (%q), window.__pwned = %s", payload, pwned)
		}
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.querySelector('.deadletter details').open = true`)); err != nil {
			t.Fatal(err)
		}
		screenshot(t, bctx, shots, "deadletters")
	})

	t.Run("calibration shows outcomes, rates and posteriors", func(t *testing.T) {
		texts := []string{"reconcile these supplier invoices against the purchase orders", "book me a flight to Lisbon on Friday",
			"what's the weather going to be in Porto tomorrow", "review this pull request diff", "reset my VPN password",
			"write me a poem about cats", "summarise this PDF report", "draw a bar chart of sales by region",
			"transcribe this voice memo", "schedule a meeting with the design team next Tuesday", "triage this customer ticket",
			"file my taxi expense report"}
		for i, tx := range texts {
			tk := &task.Task{ID: fmt.Sprintf("cal-%d", i), Message: task.Message{Parts: []task.Part{{Text: tx}}}, Caller: task.Caller{ID: "alice"}}
			a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, tk)
			if err != nil || a.Decision == nil {
				t.Fatalf("task %s: %+v %v", tk.ID, a, err)
			}
			d := a.Decision
			if d.Top == nil {
				continue
			}
			skill := d.Top.Key
			if d.Chosen != nil {
				skill = d.Chosen.Key
			}
			o, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: d.DecisionID, TaskID: d.TaskID, Skill: skill,
				Success: d.Action == decide.Delegate && i%4 != 3, LatencyMS: float64(200 + 50*i), At: time.Now().UTC()})
			if _, err := js.Publish(ctx, wire.SubjectOutcomeBy("alice"), o); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			do(chromedp.Navigate(base+"/calibration"), chromedp.WaitVisible(chromedp.CSS(`#calibration-in-use`)))
			if evalNumber(`document.querySelectorAll('table.posteriors tbody tr').length`) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no per-skill success rates after 15 s:\n%s", text("main"))
			}
			time.Sleep(300 * time.Millisecond)
		}
		body := text("main")
		for _, want := range []string{"the model's own calibration", "decisions labelled by their outcomes", "95% interval"} {
			if !strings.Contains(body, want) {
				t.Errorf("calibration page lacks %q", want)
			}
		}
		if evalNumber(`document.querySelectorAll('svg rect.bar').length`) == 0 {
			t.Error("the reliability diagram draws no bar")
		}
		if evalNumber(`document.querySelectorAll('svg rect.delegate, svg rect.abstain, svg rect.clarify').length`) == 0 {
			t.Error("the rates chart draws nothing")
		}
		screenshot(t, bctx, shots, "calibration")
	})

	t.Run("10,000 decisions: the live page loads within 1 s", func(t *testing.T) {
		// The live view with the tasks so far, before the flood.
		do(chromedp.Navigate(base+"/decisions"), chromedp.WaitVisible(chromedp.CSS(`#decision-rows tr`)))
		screenshot(t, bctx, shots, "decisions")
		const n = 10000
		for i := range n {
			d := wire.Decision{V: wire.Version, TaskID: fmt.Sprintf("load-%d", i), DecisionID: fmt.Sprintf("d-load-%d", i),
				Decision:  decide.Decision{Action: decide.Abstain, Probability: 0.1, Reason: "best match only 0.10 (load test)"},
				Top:       &decide.Option{Key: "world-info/weather-forecast", AgentID: "world-info", SkillID: "weather-forecast", Score: 1, Prob: 0.1},
				DecidedAt: time.Now().UTC()}
			data, _ := json.Marshal(&d)
			if _, err := js.PublishAsync(wire.SubjectDecision("loadtest", "abstain", d.TaskID), data); err != nil {
				t.Fatal(err)
			}
			if i%1000 == 999 {
				select {
				case <-js.PublishAsyncComplete():
				case <-ctx.Done():
					t.Fatal(ctx.Err())
				}
			}
		}
		// The console has read them all once the last is on its page.
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := http.Get(base + "/decisions?caller=loadtest")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), fmt.Sprintf("load-%d<", n-1)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the console did not follow the 10,000 decisions within 30 s")
			}
			time.Sleep(200 * time.Millisecond)
		}
		st, err := js.Stream(ctx, "DECISIONS")
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs < n {
			t.Fatalf("the stream holds %d decisions, want at least %d", info.State.Msgs, n)
		}
		// Reloaded from the live view that has just taken the burst, three
		// times: the best load is the page's own cost, the others also
		// measure whatever else the two cores were doing (go test runs
		// other packages' tests beside this one).
		nav := `performance.getEntriesByType('navigation')[0]`
		load := math.Inf(1)
		var rows float64
		for range 3 {
			do(chromedp.Navigate(base+"/decisions"),
				chromedp.Poll[chromedp.Void](`(() => { const e = `+nav+`; return e && e.loadEventEnd > 0; })()`, chromedp.WithPollingTimeout(10*time.Second)))
			this := evalNumber(`(() => { const e = ` + nav + `; return e.loadEventEnd - e.startTime; })()`)
			rows = evalNumber(`document.querySelectorAll('#decision-rows tr').length`)
			parts := evalString(`(() => { const e = ` + nav + `; return 'request ' + Math.round(e.requestStart - e.startTime) + ' ms, response ' +
				Math.round(e.responseEnd - e.requestStart) + ' ms, DOM ' + Math.round(e.domContentLoadedEventEnd - e.responseEnd) + ' ms, load ' +
				Math.round(e.loadEventEnd - e.domContentLoadedEventEnd) + ' ms'; })()`)
			t.Logf("load %.0f ms, of which %s", this, parts)
			load = math.Min(load, this)
		}
		t.Logf("live decisions page with %d decisions in the stream: loaded in %.0f ms at best of 3 (Navigation Timing, loadEventEnd), %v rows rendered",
			info.State.Msgs, load, rows)
		if load > 1000 {
			t.Errorf("page load %.0f ms with %d decisions, want at most 1000 ms", load, info.State.Msgs)
		}
		if rows == 0 || rows > 100 {
			t.Errorf("%v rows rendered, want one page (1-100)", rows)
		}
		// The next page holds the 100 before, and is not live.
		last := evalString(`document.querySelector('#decision-rows tr:last-child').dataset.seq`)
		do(chromedp.Click(chromedp.CSS(`#older`)), chromedp.WaitVisible(chromedp.CSS(`#decision-rows tr`)))
		first := evalString(`document.querySelector('#decision-rows tr').dataset.seq`)
		if f, _ := strconv.Atoi(first); fmt.Sprint(f+1) != last {
			t.Errorf("the older page starts at %s, want the one before %s", first, last)
		}
		if n := evalNumber(`document.querySelectorAll('#decision-rows tr').length`); n != 100 {
			t.Errorf("older page: %v rows", n)
		}
		if st := text("#live-state"); !strings.Contains(st, "not live") {
			t.Errorf("older page state %q", st)
		}
	})
}
