package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/model"
)

const examplesDir = "../../examples/catalog"

// runCmd drives the command in process and returns its exit code, stdout
// and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// commands lists the commands the top-level usage names.
func commands(t *testing.T) []string {
	t.Helper()
	_, section, ok := strings.Cut(usage, "Commands:\n")
	if !ok {
		t.Fatal("usage has no Commands: section")
	}
	var out []string
	for _, line := range strings.Split(section, "\n") {
		if line == "" {
			break
		}
		if m := regexp.MustCompile(`^  ([a-z]+)\s`).FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestUsageColumns keeps the top-level usage readable: every command's
// description, and every line that continues one, starts in one column,
// and no line runs past 90 characters.
func TestUsageColumns(t *testing.T) {
	_, section, _ := strings.Cut(usage, "Commands:\n")
	section, _, _ = strings.Cut(section, "\n\n")
	col := -1
	for _, line := range strings.Split(section, "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		at := indent // a continued description
		if indent == 2 {
			name := strings.Fields(line)[0]
			rest := line[2+len(name):]
			at = len(line) - len(strings.TrimLeft(rest, " "))
		}
		if col == -1 {
			col = at
		}
		if at != col {
			t.Errorf("usage line %q: description at column %d, want %d", line, at, col)
		}
	}
	for _, line := range strings.Split(usage, "\n") {
		if len(line) > 90 {
			t.Errorf("usage line longer than 90 characters: %q", line)
		}
	}
}

func TestHelp(t *testing.T) {
	// Flags each command must explain, beyond having at least one.
	known := map[string][]string{
		"match": {"-cards", "-file", "-accept", "-scopes", "-data-class", "-streaming", "-explain", "-json", "-model", "-threshold"},
		"eval":  {"-set", "-split", "-model", "-json", "-quiet"},
		"fit":   {"-set", "-split", "-o", "-examples", "-folds", "-l2"},
	}
	cmds := commands(t)
	for c := range known {
		if !slices.Contains(cmds, c) {
			t.Errorf("usage does not list %s: %v", c, cmds)
		}
	}
	flagLine := regexp.MustCompile(`(?m)^\s+-[a-z0-9-]+\b.*\n\s+\S`)
	for _, cmd := range cmds {
		if cmd == "version" || cmd == "help" {
			continue
		}
		for _, h := range []string{"--help", "-h"} {
			t.Run(cmd+h, func(t *testing.T) {
				code, stdout, stderr := runCmd(t, cmd, h)
				if code != 0 {
					t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
				}
				help := stdout + stderr
				if !strings.Contains(help, "Usage: skillmatch "+cmd) {
					t.Errorf("no usage line in:\n%s", help)
				}
				if !flagLine.MatchString(help) {
					t.Errorf("no flag explained in:\n%s", help)
				}
				// The prose under the usage line is wrapped by hand; Go's
				// flag explanations below it are not.
				prose, _, _ := strings.Cut(help, "\n  -")
				for _, line := range strings.Split(prose, "\n") {
					if len(line) > 100 && !strings.HasPrefix(line, "Usage:") && !strings.HasPrefix(line, "       ") {
						t.Errorf("help line of %d characters, wrap it under 100: %q", len(line), line)
					}
				}
				for _, f := range known[cmd] {
					// PrintDefaults writes "  -flag ..." followed by the
					// flag's explanation on the next line.
					re := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(f) + `\b.*\n\s+\S`)
					if !re.MatchString(help) {
						t.Errorf("flag %s not explained in:\n%s", f, help)
					}
				}
			})
		}
	}
	code, stdout, _ := runCmd(t, "help")
	if code != 0 || !strings.Contains(stdout, "Commands:") || !strings.Contains(stdout, "match") {
		t.Errorf("help: exit %d, output:\n%s", code, stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"match without cards", []string{"match", "some task"}, "--cards"},
		{"match without text", []string{"match", "--cards", examplesDir}, "task text"},
		{"eval without set", []string{"eval"}, "--set"},
		{"fit without set", []string{"fit", "-o", "model.json"}, "--set"},
		{"an empty earlier turn", []string{"match", "--cards", examplesDir, "--history", " ", "cancel it"}, "--history 1 is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (usage error); stdout %q, stderr %q", code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.want)
			}
		})
	}
}

// An unknown flag is a mistake in the command line like an unknown
// command: exit 2, and say which flag.
func TestUnknownFlagIsUsageError(t *testing.T) {
	for _, cmd := range []string{"match", "eval", "fit"} {
		code, _, stderr := runCmd(t, cmd, "--no-such-flag", "x")
		if code != 2 {
			t.Errorf("%s --no-such-flag: exit %d, want 2", cmd, code)
		}
		if !strings.Contains(stderr, "no-such-flag") {
			t.Errorf("%s: stderr %q does not name the flag", cmd, stderr)
		}
	}
}

var decisionLine = regexp.MustCompile(`^(delegate to [a-z0-9._-]+/\S+ \(.+ / .+\), probability [01]\.\d\d|clarify: .+\?|abstain)$`)

func TestMatchPrintsDecision(t *testing.T) {
	for _, text := range []string{
		"will it rain in Lisbon this weekend?",
		"summarise this agreement for me",
		"a watercolor fox reading a newspaper",
	} {
		code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, text)
		if code != 0 {
			t.Fatalf("%q: exit %d; stderr:\n%s", text, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		if !decisionLine.MatchString(lines[0]) {
			t.Errorf("%q: first line %q is not a decision", text, lines[0])
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "reason: ") && len(l) > len("reason: ") }) {
			t.Errorf("%q: no reason line in:\n%s", text, stdout)
		}
		if strings.Contains(stdout, "filters:") {
			t.Errorf("%q: explanation printed without --explain", text)
		}
	}
	// Constraints nothing passes: abstain, and say so.
	code, stdout, _ := runCmd(t, "match", "--cards", examplesDir, "--data-class", "restricted", "--scopes", "", "translate this")
	if code != 0 || !strings.HasPrefix(stdout, "abstain\nreason: no skill passes constraints") {
		t.Errorf("nothing passes: exit %d, output:\n%s", code, stdout)
	}
	// --json prints the decision object.
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, "--json", "will it rain in Lisbon this weekend?")
	if code != 0 {
		t.Fatalf("--json: exit %d; stderr:\n%s", code, stderr)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if a, _ := d["action"].(string); !slices.Contains([]string{"delegate", "clarify", "abstain"}, a) {
		t.Errorf("--json action %v", d["action"])
	}
}

// TestMatchHistoryTurnsKeepTheirCommas: each --history is one earlier
// turn, whatever commas its text holds; split at them, one turn became
// several and the decision changed (a booking's cancellation abstained
// on where eval, reading the same turn whole, decided).
func TestMatchHistoryTurnsKeepTheirCommas(t *testing.T) {
	turn := "I booked a hotel in Lisbon for Friday, two nights, room 12"
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, "--explain",
		"--history", turn, "--history", "thanks", "actually, cancel it")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"  earlier turn 1: " + strconv.Quote(turn) + "\n", "  earlier turn 2: \"thanks\"\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explanation lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "earlier turn 3") {
		t.Errorf("two --history flags read as more turns:\n%s", stdout)
	}
}

// TestMatchExplainsDroppedOutputs: outputs read from a thing the words
// name ("photos of the weather") that no skill of the catalog produces are
// dropped, and --explain says so, in text and in JSON.
func TestMatchExplainsDroppedOutputs(t *testing.T) {
	card, err := os.ReadFile(filepath.Join(examplesDir, "cards", "world-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "world-info.json"), card, 0o644); err != nil {
		t.Fatal(err)
	}
	const text = "we need photos of the weather in Lisbon this weekend"
	code, stdout, stderr := runCmd(t, "match", "--cards", dir, "--explain", text)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "read from the words, dropped: no skill passes with them") || strings.Contains(stdout, "no skill passes constraints") {
		t.Errorf("explanation does not say the outputs were dropped, or nothing passed:\n%s", stdout)
	}
	code, stdout, stderr = runCmd(t, "match", "--cards", dir, "--explain", "--json", text)
	if code != 0 {
		t.Fatalf("--json: exit %d; stderr:\n%s", code, stderr)
	}
	var d struct {
		Explain struct {
			Requirement struct {
				DroppedOutputs []string `json:"droppedOutputs"`
			} `json:"requirement"`
		} `json:"explain"`
	}
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Explain.Requirement.DroppedOutputs, "image/png") {
		t.Errorf("explain.requirement.droppedOutputs %v, want the image types", d.Explain.Requirement.DroppedOutputs)
	}
}

func TestMatchExplain(t *testing.T) {
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir,
		"reconcile these supplier invoices against the PO and send me a JSON summary",
		"--file", writeFile(t, "invoices.pdf", []byte("%PDF-1.7")), "--accept", "application/json", "--scopes", "finance.read", "--explain")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !decisionLine.MatchString(strings.SplitN(stdout, "\n", 2)[0]) {
		t.Errorf("first line is not a decision:\n%s", stdout)
	}
	for _, want := range []string{
		`requirement: need "reconcile these supplier invoices`,
		"inputs [application/pdf]",
		"outputs [application/json]",
		"scopes [finance.read]",
		"\nfilters: ",
		"\nshortlist (",
		"\ntimings: ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explanation lacks %q:\n%s", want, stdout)
		}
	}
	m := regexp.MustCompile(`filters: (\d+) skills searched, (\d+) removed`).FindStringSubmatch(stdout)
	if m == nil || m[1] == "0" || m[2] == "0" {
		t.Errorf("filters line %v: want some skills searched and some removed", m)
	}
	// A rejection names the skill, the rule and why; the down agent is
	// among them.
	if !regexp.MustCompile(`(?m)^  - pixel-forge/generate-image: health: agent is down$`).MatchString(stdout) {
		t.Errorf("no health rejection for pixel-forge:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^  - voice-scribe/\S+: input-type: .*application/pdf`).MatchString(stdout) {
		t.Errorf("no input-type rejection naming application/pdf:\n%s", stdout)
	}
	entries := regexp.MustCompile(`(?m)^\s+\d+\. ([a-z0-9._-]+/\S+)\s+fused #`).FindAllStringSubmatch(stdout, -1)
	if len(entries) == 0 {
		t.Fatalf("no shortlist entries:\n%s", stdout)
	}
	for _, e := range entries {
		if strings.Contains(stdout, "  - "+e[1]+":") {
			t.Errorf("%s is both rejected and shortlisted", e[1])
		}
	}

	// --json --explain carries the same explanation as fields.
	code, stdout, stderr = runCmd(t, "match", "--cards", examplesDir,
		"reconcile these supplier invoices against the PO and send me a JSON summary",
		"--file", writeFile(t, "invoices.pdf", []byte("%PDF-1.7")), "--accept", "application/json", "--scopes", "finance.read", "--explain", "--json")
	if code != 0 {
		t.Fatalf("--json --explain: exit %d; stderr:\n%s", code, stderr)
	}
	var d struct {
		Action  string `json:"action"`
		Explain *struct {
			Requirement struct {
				InputTypes []string `json:"inputTypes"`
			} `json:"requirement"`
			Searched   int `json:"searched"`
			Rejections []struct {
				Agent, Skill, Rule, Reason string
			} `json:"rejections"`
			Shortlist []struct {
				Key         string  `json:"key"`
				Probability float64 `json:"probability"`
				Reason      string  `json:"reason"`
			} `json:"shortlist"`
		} `json:"explain"`
	}
	if err := json.Unmarshal([]byte(stdout), &d); err != nil || d.Explain == nil {
		t.Fatalf("--json --explain: %v, no explain object in\n%s", err, stdout)
	}
	ex := d.Explain
	if !slices.Equal(ex.Requirement.InputTypes, []string{"application/pdf"}) || ex.Searched == 0 || len(ex.Shortlist) != len(entries) {
		t.Errorf("--json --explain: inputs %v, searched %d, %d shortlisted (text: %d)", ex.Requirement.InputTypes, ex.Searched, len(ex.Shortlist), len(entries))
	}
	if !slices.ContainsFunc(ex.Rejections, func(r struct{ Agent, Skill, Rule, Reason string }) bool {
		return r.Agent == "pixel-forge" && r.Rule == "health" && r.Reason == "agent is down"
	}) {
		t.Errorf("--json --explain: no health rejection for pixel-forge: %+v", ex.Rejections)
	}
	for _, c := range ex.Shortlist {
		if c.Reason == "" {
			t.Errorf("--json --explain: %s has no reason", c.Key)
		}
	}
}

// A tiny golden set, invented for this test.
var goldenCards = map[string]string{
	"harbor-weather": `{
  "name": "Harbor Weather",
  "description": "Forecasts for sailors and city dwellers.",
  "version": "1.0.0",
  "supportedInterfaces": [{"url": "https://agents.example.com/harbor-weather", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": false},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{
    "id": "forecast", "name": "Weather forecast",
    "description": "Hourly and daily forecasts of rain, snow, wind and temperature for any town.",
    "tags": ["weather", "forecast", "temperature"],
    "examples": ["will it rain in Porto tomorrow", "wind forecast for the weekend"]
  }]
}`,
	"quill-translate": `{
  "name": "Quill Translate",
  "description": "Translation between European languages.",
  "version": "2.1.0",
  "supportedInterfaces": [{"url": "https://agents.example.com/quill", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": false},
  "defaultInputModes": ["text/plain", "application/pdf"],
  "defaultOutputModes": ["text/plain"],
  "skills": [
    {"id": "translate-text", "name": "Translate text",
     "description": "Translates messages, emails and documents between English, Spanish, French, German and Italian.",
     "tags": ["translation", "languages"],
     "examples": ["translate this into Spanish", "how do I say good evening in Italian"]},
    {"id": "detect-language", "name": "Detect language",
     "description": "Tells which language a piece of text is written in.",
     "tags": ["language-detection"],
     "inputModes": ["text/plain"],
     "examples": ["what language is this", "is this Portuguese or Spanish"]}
  ]
}`,
	"tally-invoices": `{
  "name": "Tally Invoices",
  "description": "Accounts payable checks.",
  "version": "0.9.0",
  "supportedInterfaces": [{"url": "https://agents.example.com/tally", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": false},
  "defaultInputModes": ["application/pdf", "text/csv"],
  "defaultOutputModes": ["application/json"],
  "securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://login.example.com/token"}}}}},
  "securityRequirements": [{"schemes": {"oauth": {"list": ["finance.read"]}}}],
  "skills": [{
    "id": "reconcile-invoices", "name": "Reconcile invoices",
    "description": "Matches supplier invoices against purchase orders and flags amounts that differ.",
    "tags": ["invoices", "purchase-orders", "reconciliation"],
    "examples": ["reconcile these invoices with PO 1182", "do the March invoices match the orders"]
  }]
}`,
}

var goldenTasks = []string{
	`{"id": "t01", "split": "train", "text": "will it snow in Denver on Saturday", "expected": "harbor-weather/forecast"}`,
	`{"id": "t02", "split": "train", "text": "translate this paragraph into Spanish", "expected": "quill-translate/translate-text"}`,
	`{"id": "t03", "split": "train", "text": "which language is this sentence written in", "expected": "quill-translate/detect-language"}`,
	`{"id": "t04", "split": "train", "text": "match these supplier invoices to their purchase orders", "inputTypes": ["application/pdf"], "outputTypes": ["application/json"], "callerScopes": ["finance.read"], "dataClass": "internal", "expected": "tally-invoices/reconcile-invoices"}`,
	`{"id": "t05", "split": "train", "text": "what is a good recipe for banana bread", "expected": null}`,
	`{"id": "t06", "split": "train", "text": "hourly temperature forecast for Lisbon tomorrow", "expected": "harbor-weather/forecast"}`,
	`{"id": "t07", "split": "train", "text": "put this email into German", "expected": "quill-translate/translate-text", "acceptable": ["quill-translate/detect-language"]}`,
	`{"id": "t08", "split": "train", "text": "book me a haircut on Friday", "expected": null}`,
	`{"id": "t09", "split": "dev", "text": "is it going to rain in Oslo tonight", "expected": "harbor-weather/forecast"}`,
	`{"id": "t10", "split": "dev", "text": "translate the attached welcome letter into French", "inputTypes": ["application/pdf"], "expected": "quill-translate/translate-text"}`,
	`{"id": "t11", "split": "dev", "text": "reconcile the March invoices against the purchase orders", "callerScopes": [], "expected": null}`,
	`{"id": "t12", "split": "dev", "text": "tell me a joke about penguins", "history": ["hi there"], "expected": null}`,
}

func writeGolden(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cards"), 0o755); err != nil {
		t.Fatal(err)
	}
	for id, c := range goldenCards {
		if err := os.WriteFile(filepath.Join(dir, "cards", id+".json"), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := `{"harbor-weather": {"health": "up", "clearance": "public", "external": true}}`
	if err := os.WriteFile(filepath.Join(dir, "registry.json"), []byte(reg), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks := strings.Join(goldenTasks, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var reportLabels = []string{"recall@20", "top-1", "MRR", "delegation precision", "coverage",
	"no-match refusal", "ECE (10 bins)", "decisions", "latency per task"}

var jsonKeys = []string{"tasks", "recall_at_20", "top1", "mrr", "precision", "coverage", "refusal", "ece", "p50_us", "p99_us", "bm25"}

func TestEval(t *testing.T) {
	set := writeGolden(t)
	out := filepath.Join(t.TempDir(), "figures.json")
	code, stdout, stderr := runCmd(t, "eval", "--set", set, "--split", "all", "--quiet", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--quiet, yet stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "12 tasks (8 with an expected skill, 4 no-match); catalog 3 agents, 4 skills") {
		t.Errorf("header does not count the set:\n%s", stdout)
	}
	for _, l := range reportLabels {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(l) + `\s+\S`).MatchString(stdout) {
			t.Errorf("figure %q missing:\n%s", l, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("--json file: %v\n%s", err, data)
	}
	// The figures are numbers; "bm25" is the plain-BM25 row's object.
	figs := map[string]float64{}
	for k, v := range raw {
		var f float64
		if k != "bm25" {
			if err := json.Unmarshal(v, &f); err != nil {
				t.Fatalf("--json %s = %s: %v", k, v, err)
			}
		}
		figs[k] = f
	}
	var bm struct {
		Top1 *float64 `json:"top1"`
	}
	if err := json.Unmarshal(raw["bm25"], &bm); err != nil || bm.Top1 == nil || *bm.Top1 < 0 || *bm.Top1 > 1 {
		t.Errorf("--json bm25 = %s (%v)", raw["bm25"], err)
	}
	var keys []string
	for k := range figs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := slices.Clone(jsonKeys)
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("--json keys %v, want %v", keys, want)
	}
	if figs["tasks"] != 12 {
		t.Errorf("tasks %v, want 12", figs["tasks"])
	}
	for _, k := range []string{"recall_at_20", "top1", "mrr", "precision", "coverage", "refusal", "ece"} {
		if v := figs[k]; v < 0 || v > 1 {
			t.Errorf("%s = %v, want a share in [0, 1]", k, v)
		}
	}
	if figs["p50_us"] <= 0 || figs["p99_us"] < figs["p50_us"] {
		t.Errorf("latency p50 %v µs, p99 %v µs", figs["p50_us"], figs["p99_us"])
	}
	// Every expected skill is in a 4-skill catalog's shortlist unless the
	// filters removed it; none of the expected ones is filtered here.
	if figs["recall_at_20"] != 1 {
		t.Errorf("recall@20 %v on a 4-skill catalog, want 1", figs["recall_at_20"])
	}

	// Splits: dev has 4 tasks; an empty split is a usage error.
	code, stdout, _ = runCmd(t, "eval", "--set", set, "--quiet")
	if code != 0 || !strings.Contains(stdout, "split dev: 4 tasks") {
		t.Errorf("default split: exit %d:\n%s", code, stdout)
	}
	if code, _, stderr = runCmd(t, "eval", "--set", set, "--split", "test", "--quiet"); code != 2 {
		t.Errorf("empty split: exit %d, want 2; stderr %q", code, stderr)
	}
	// A missing set is bad input, reported without the usage hint.
	if code, _, stderr = runCmd(t, "eval", "--set", filepath.Join(set, "nope"), "--quiet"); code != 2 || strings.Contains(stderr, "--help") {
		t.Errorf("missing set folder: exit %d, want 2; stderr %q", code, stderr)
	}
}

func TestFitThenEval(t *testing.T) {
	set := writeGolden(t)
	for _, examples := range []string{"true", "false"} {
		t.Run("examples="+examples, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "model.json")
			code, stdout, stderr := runCmd(t, "fit", "--set", set, "--split", "train", "-o", file, "--quiet", "--examples="+examples)
			if code != 0 {
				t.Fatalf("fit: exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "fitted on 8 tasks") || !strings.Contains(stdout, file) {
				t.Errorf("fit output:\n%s", stdout)
			}
			m, err := model.Load(file)
			if err != nil {
				t.Fatalf("fit wrote a model that does not load: %v", err)
			}
			if m.Fitted.Split != "train" || m.Fitted.Tasks != 8 {
				t.Errorf("model says split %q, %d tasks", m.Fitted.Split, m.Fitted.Tasks)
			}
			if got := len(m.Examples) > 0; got != (examples == "true") {
				t.Errorf("--examples=%s, model has %d skills with examples", examples, len(m.Examples))
			}
			out := filepath.Join(t.TempDir(), "figures.json")
			code, stdout, stderr = runCmd(t, "eval", "--set", set, "--split", "dev", "--model", file, "--quiet", "--json", out)
			if code != 0 {
				t.Fatalf("eval --model: exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "split dev: 4 tasks") {
				t.Errorf("eval --model output:\n%s", stdout)
			}
			// match reads the model too.
			code, stdout, stderr = runCmd(t, "match", "--cards", set, "--model", file, "will it rain in Oslo tonight")
			if code != 0 || !decisionLine.MatchString(strings.SplitN(stdout, "\n", 2)[0]) {
				t.Errorf("match --model: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
	// A model file that is not a model, or is missing, is bad input
	// named in one line: exit 2, without the usage hint.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{bad, filepath.Join(t.TempDir(), "missing.json")} {
		code, _, stderr := runCmd(t, "eval", "--set", set, "--model", file, "--quiet")
		if code != 2 || !strings.Contains(stderr, filepath.Base(file)) || strings.Contains(stderr, "--help") {
			t.Errorf("model %s: exit %d, stderr %q", filepath.Base(file), code, stderr)
		}
	}
}

// `match --cards DIR` never delegates to a card whose interface is the
// cloud metadata address (the endpoint filter says why), and a card with
// no registry entry is cleared for public data only: it gets the public
// task and never the internal one.
func TestMatchRefusesUnsafeCards(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(examplesDir, "cards", "world-info.json"))
	if err != nil {
		t.Fatal(err)
	}
	cards := func(data []byte) string {
		dir := t.TempDir() // no registry.json: the card is unvetted
		if err := os.WriteFile(filepath.Join(dir, "world-info.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	const text = "will it rain in Lisbon this weekend?"
	action := func(dir string, extra ...string) string {
		t.Helper()
		code, stdout, stderr := runCmd(t, append(append([]string{"match", "--cards", dir, "--json"}, extra...), text)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		var d struct{ Action string }
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatal(err)
		}
		return d.Action
	}
	vetted := cards(orig)
	if a := action(vetted); a != "delegate" {
		t.Fatalf("the public task to the unvetted card: %s, want delegate (the control)", a)
	}
	if a := action(vetted, "--data-class", "internal"); a == "delegate" {
		t.Error("an internal task was delegated to a card without a registry entry")
	}
	metadata := cards(bytes.Replace(orig, []byte("https://agents.example.com/external/world-info/v1"), []byte("http://169.254.169.254/x"), 1))
	if a := action(metadata); a == "delegate" {
		t.Error("delegated to a card whose interface is the metadata address")
	}
	code, stdout, _ := runCmd(t, "match", "--cards", metadata, "--explain", text)
	if code != 0 || !strings.Contains(stdout, "link-local") {
		t.Errorf("--explain does not say why: exit %d\n%s", code, stdout)
	}
}

// Input the command cannot use (a golden set or card folder that does not
// exist or does not parse) exits 2 with one line saying what is wrong, as
// a usage error does; nothing is written to stdout.
func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cards"), 0o755); err != nil {
		t.Fatal(err)
	}
	card := `{"name":"Echo","description":"Echoes text.","version":"1.0.0","supportedInterfaces":[{"url":"https://agents.example.com/echo","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"Echo","description":"Repeats the text back.","tags":["echo"]}]}`
	if err := os.WriteFile(filepath.Join(dir, "cards", "echo.json"), []byte(card), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	tests := [][]string{
		{"eval", "--set", missing, "--split", "dev"},
		{"eval", "--set", dir, "--split", "all"},
		{"fit", "--set", missing, "-o", filepath.Join(dir, "model.json")},
		{"match", "--cards", missing, "echo this"},
	}
	for _, args := range tests {
		code, stdout, stderr := runCmd(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || stdout != "" || !strings.HasPrefix(lines[len(lines)-1], "skillmatch "+args[0]+": ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing and the error", args, code, stdout, stderr)
		}
	}
}

// fit's progress names each stage it reports, the features and then the
// rerankers, each counted from its own start.
func TestFitProgressNamesItsStages(t *testing.T) {
	set := writeGolden(t)
	code, _, stderr := runCmd(t, "fit", "--set", set, "--split", "train", "-o", filepath.Join(t.TempDir(), "model.json"))
	if code != 0 {
		t.Fatalf("fit: exit %d; stderr:\n%s", code, stderr)
	}
	features, reranker := strings.Index(stderr, "fit features: "), strings.Index(stderr, "fit reranker: 0/")
	if features < 0 || reranker < features {
		t.Errorf("fit's progress does not name its stages in order:\n%s", stderr)
	}
}

// Tasks whose labels name no skill of the catalog are warned about (the
// first few, then a count), and a fit that has nothing right to learn
// from, or no task in its split, is bad input: exit 2 with the reason.
func TestLabelsTheCatalogLacks(t *testing.T) {
	set := writeGolden(t)
	var lines []string
	for i := range 7 {
		lines = append(lines, fmt.Sprintf(`{"id": "x%d", "text": "is it going to rain in port %d", "split": "train", "expected": "nobody/forecast"}`, i, i))
	}
	lines = append(lines, `{"id": "n", "text": "write me a sonnet", "split": "train", "expected": null}`)
	if err := os.WriteFile(filepath.Join(set, "tasks.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "eval", "--set", set, "--split", "all", "--quiet")
	if code != 0 {
		t.Fatalf("eval: exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{`task "x0": nobody/forecast: no such skill in the catalog`, `task "x4"`, "2 more tasks name skills not in the catalog"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("eval's warnings lack %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, `task "x5"`) || strings.Contains(stderr, `task "n"`) {
		t.Errorf("eval names more tasks than the first five, or a no-match task:\n%s", stderr)
	}
	model := filepath.Join(t.TempDir(), "model.json")
	code, _, stderr = runCmd(t, "fit", "--set", set, "--split", "train", "--quiet", "-o", model)
	if code != 2 || !strings.Contains(stderr, "nothing to fit") || !strings.Contains(stderr, "no training data") {
		t.Errorf("fit on labels the catalog lacks: exit %d, want 2 and the reason; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(model); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed fit left a model file (%v)", err)
	}
	code, _, stderr = runCmd(t, "fit", "--set", set, "--split", "dev", "--quiet", "-o", model)
	if code != 2 || !strings.Contains(stderr, `split "dev"`) {
		t.Errorf("fit on an empty split: exit %d, want 2; stderr:\n%s", code, stderr)
	}
}

// A grants file that does not parse or is missing is bad input: exit 2,
// naming the file, before any matching.
func TestBadGrantsFile(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(broken, []byte(`{"callers": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{broken, filepath.Join(t.TempDir(), "missing.json")} {
		code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, "--grants", file, "what's the weather in Oslo")
		if code != 2 || !strings.Contains(stderr, filepath.Base(file)) || stdout != "" {
			t.Errorf("grants %s: exit %d, stdout %q, stderr %q", filepath.Base(file), code, stdout, stderr)
		}
	}
}

// eval --json - puts the JSON figures alone on stdout (the printed ones go
// to stderr); two outputs cannot share stdout; an output whose folder does
// not exist is refused before any work, for eval and for fit.
func TestOutputsCheckedFirst(t *testing.T) {
	set := writeGolden(t)
	code, stdout, stderr := runCmd(t, "eval", "--set", set, "--split", "all", "--quiet", "--json", "-")
	var figures map[string]any
	if err := json.Unmarshal([]byte(stdout), &figures); code != 0 || err != nil || figures["top1"] == nil {
		t.Errorf("--json -: exit %d, stdout is not the JSON figures (%v):\n%s", code, err, stdout)
	}
	if !strings.Contains(stderr, "recall@20") {
		t.Errorf("--json -: the printed figures are not on stderr:\n%s", stderr)
	}
	if code, _, stderr := runCmd(t, "eval", "--set", set, "--quiet", "--json", "-", "--pertask", "-"); code != 2 || !strings.Contains(stderr, "only one of") {
		t.Errorf("two outputs on stdout: exit %d, stderr %q", code, stderr)
	}
	missing := filepath.Join(t.TempDir(), "no-such-folder", "out.json")
	for _, args := range [][]string{
		{"eval", "--set", set, "--quiet", "--pertask", missing},
		{"eval", "--set", set, "--quiet", "--plot", t.TempDir()},
		{"eval", "--set", set, "--quiet", "--plot", filepath.Join(t.TempDir(), "plot.png")}, // the plot is SVG only
		{"fit", "--set", set, "--split", "train", "--quiet", "-o", missing},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "see 'skillmatch "+args[0]+" --help'") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error before any work", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing folder was made (%v)", err)
	}
}
