package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/discovery/discover"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Help is asked for, so it is output: stdout, exit 0, both as CMD --help
// and as help CMD (the nats CLI's conventions).
func TestHelpOnStdout(t *testing.T) {
	for _, cmd := range [][]string{
		{"match"}, {"eval"}, {"fit"}, {"run"}, {"submit"}, {"cards"}, {"cards", "discover"},
		{"cards", "refresh"}, {"replay"}, {"version"},
	} {
		name := strings.Join(cmd, " ")
		for _, args := range [][]string{append(append([]string(nil), cmd...), "--help"), append([]string{"help"}, cmd...)} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := runCmd(t, args...)
				if code != 0 || stderr != "" {
					t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
				}
				if !strings.Contains(stdout, "Usage: skillmatch "+name) {
					t.Errorf("stdout has no usage line for %s:\n%s", name, stdout)
				}
			})
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "help"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "Commands:") {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
	}
}

// A usage error is two short lines on stderr, the error and where help
// is, and exit 2; never the whole flag dump.
func TestShortUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		cmd  string // in the "see" line
		want string // in the first line
	}{
		{[]string{"match", "--bogus", "x"}, "skillmatch match", "-bogus"},
		{[]string{"eval", "--bogus"}, "skillmatch eval", "-bogus"},
		{[]string{"fit", "--folds", "many"}, "skillmatch fit", "-folds"},
		{[]string{"fit", "--set", "x", "--calibration-no-match-weight", "0.5"}, "skillmatch fit", "must be 1 or more"},
		{[]string{"fit", "--set", "x", "--no-match-weight", "-1"}, "skillmatch fit", "must be above 0"},
		{[]string{"run", "--bogus"}, "skillmatch run", "-bogus"},
		{[]string{"run", "--nats-listen", "nonsense"}, "skillmatch run", `--nats-listen "nonsense"`},
		{[]string{"run", "--health-listen", "8081"}, "skillmatch run", `--health-listen "8081"`},
		{[]string{"run", "--nats-listen", "127.0.0.1:4999", "--a2a-listen", ":4999"}, "skillmatch run", "listen on one address"},
		{[]string{"run", "--feedback-every", "-1"}, "skillmatch run", "--feedback-every -1: want more than 0"},
		{[]string{"run", "--a2a-listen", "127.0.0.1:0", "--a2a-timeout", "0s"}, "skillmatch run", "--a2a-timeout 0s"},
		{[]string{"cards", "refresh", "--registry", "registry.json", "--failures", "0"}, "skillmatch cards refresh", "--failures 0"},
		{[]string{"submit", "--timeout", "soon", "x"}, "skillmatch submit", "-timeout"},
		{[]string{"submit"}, "skillmatch submit", "needs the task text"},
		{[]string{"cards", "list", "--bogus"}, "skillmatch cards", "-bogus"},
		{[]string{"cards", "frob"}, "skillmatch cards", `unknown action "frob"`},
		{[]string{"cards", "discover", "--bogus"}, "skillmatch cards discover", "-bogus"},
		{[]string{"replay", "--from", "yesterday-ish"}, "skillmatch replay", "--from"},
		{[]string{"replay", "--from", "5", "--to", "2"}, "skillmatch replay", "--from 5 is after --to 2"},
		{[]string{"replay", "--from", "1h", "--to", "2h"}, "skillmatch replay", "--from 1h is after --to 2h"},
		{[]string{"replay", "--from", "2026-12-06", "--to", "2026-12-05T23:00:00"}, "skillmatch replay", "is after --to"},
		{[]string{"report", "--decision", "d-1", "--skill", "a/b", "--success"}, "skillmatch report", "needs --task"},
		{[]string{"report", "--decision", "d-1", "--task", "t-1", "--skill", "ab", "--success"}, "skillmatch report", `skill "ab"`},
		{[]string{"report", "--decision", "d-1", "--task", "t-1", "--skill", "a/b"}, "skillmatch report", "--success or --failure"},
		{[]string{"report", "--decision", "d-1", "--task", "t-1", "--skill", "a/b", "--success"}, "skillmatch report", `decision "d-1" is not the decision of task "t-1" for caller "_"`},
		{[]string{"report", "--decision", wire.DecisionID("", "t-1"), "--task", "t-1", "--caller", "alice", "--skill", "a/b", "--success"}, "skillmatch report", `for caller "alice"`},
		{[]string{"report", "--task", "t-1", "--skill", "a/b", "--failure"}, "skillmatch report", "no decisionId"},
		{[]string{"version", "extra"}, "skillmatch version", "no arguments"},
		{[]string{"frobnicate"}, "skillmatch", `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, "skillmatch", `unknown command "frobnicate"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tc.args...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if code != 2 || stdout != "" || len(lines) != 2 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2, nothing and two lines", code, stdout, stderr)
			}
			if !strings.Contains(lines[0], tc.want) || strings.HasPrefix(lines[0], "usage") {
				t.Errorf("first line %q does not say %q", lines[0], tc.want)
			}
			if want := "see '" + tc.cmd + " --help'"; lines[1] != want {
				t.Errorf("second line %q, want %q", lines[1], want)
			}
		})
	}
}

// match and submit read the task flags with the same code and refuse a
// bad one the same way, before any work (submit never connects: its
// server does not exist).
func TestTaskFlagsSameInMatchAndSubmit(t *testing.T) {
	cases := []struct {
		flags []string
		want  string
	}{
		{[]string{"--data-class", "secret"}, "caller.dataClass"},
		{[]string{"--accept", "json"}, "not a media type"},
		{[]string{"--accept", "image/*"}, "wildcard"},
		{[]string{"--skill", "no-slash"}, `is not "<agentId>/<skillId>"`},
		{[]string{"--skill", "Bad Agent/x"}, "agent id"},
		{[]string{"--continue", "bad id!"}, "message.taskId"},
		{[]string{"--id", "bad id!"}, "id"},
		{[]string{"--scopes", "a,,b", "--scopes", " "}, ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			// A fixed id: a generated one is in the message and differs.
			flags := append([]string{"--id", "same-1"}, tc.flags...)
			match := append([]string{"match", "--cards", examplesDir, "--followups", ""}, flags...)
			submit := append([]string{"submit", "--nats", "nats://127.0.0.1:1", "--timeout", "1s"}, flags...)
			mc, mout, merr := runCmd(t, append(match, "book a hotel in Lisbon")...)
			sc, sout, serr := runCmd(t, append(submit, "book a hotel in Lisbon")...)
			if tc.want == "" { // accepted by both: ListFlag drops empty scopes
				if mc != 0 || sc == 2 {
					t.Errorf("match exit %d (%s), submit exit %d (%s); want both accepted", mc, merr, sc, serr)
				}
				return
			}
			if mc != 2 || sc != 2 || mout != "" || sout != "" {
				t.Fatalf("match exit %d %q, submit exit %d %q; want 2 and 2", mc, merr, sc, serr)
			}
			mline, _, _ := strings.Cut(merr, "\n")
			sline, _, _ := strings.Cut(serr, "\n")
			_, mmsg, _ := strings.Cut(mline, ": ")
			_, smsg, _ := strings.Cut(sline, ": ")
			if mmsg != smsg || !strings.Contains(mmsg, tc.want) {
				t.Errorf("match says %q, submit %q; want the same, naming %q", mmsg, smsg, tc.want)
			}
		})
	}
}

// The CLI finds the server from NATS_URL, as the nats CLI does.
func TestNATSURL(t *testing.T) {
	url, js := pipelineServer(t)
	t.Setenv("SKILLMATCH_NATS", "")
	os.Unsetenv("SKILLMATCH_NATS")
	t.Setenv("NATS_URL", url)
	if code, stdout, stderr := runCmd(t, "cards", "add", examplesDir); code != 0 {
		t.Fatalf("cards add: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCmd(t, "cards", "list")
	if code != 0 || !strings.Contains(stdout, "travel-concierge") {
		t.Errorf("cards list: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// No stages run: the task is published to NATS_URL's server and the
	// wait for a decision times out.
	code, _, stderr = runCmd(t, "submit", "--timeout", "1s", "--id", "env-1", "book a hotel in Lisbon")
	if code != 1 {
		t.Errorf("submit: exit %d, want 1 (no decider)\n%s", code, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, pipeline.DefaultStreams.Submissions)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Errorf("submissions stream holds %d messages, want the submitted task", info.State.Msgs)
	}
	// An unreachable NATS_URL is the address tried.
	t.Setenv("NATS_URL", "nats://127.0.0.1:1")
	if code, _, stderr := runCmd(t, "cards", "list", "--timeout", "2s"); code != 1 {
		t.Errorf("cards list against a dead NATS_URL: exit %d\n%s", code, stderr)
	}
}

// --json and --json=- print one JSON document on stdout and never create
// a file named "-"; --json=FILE writes the file.
func TestJSONOutputs(t *testing.T) {
	url, _ := pipelineServer(t)
	if code, stdout, stderr := runCmd(t, "cards", "add", "--nats", url, examplesDir); code != 0 {
		t.Fatalf("cards add: exit %d\n%s\n%s", code, stdout, stderr)
	}
	agent := discoverServer(t, discover.WellKnownPath)
	cards, err := filepath.Abs(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // where a file named "-" would appear
	file := filepath.Join(t.TempDir(), "out.json")
	match := []string{"match", "--cards", cards, "--followups", "", "will it rain in Lisbon this weekend?"}
	cases := []struct {
		name string
		args []string
		key  string // a top-level key of the document
	}{
		{"match", match, "action"},
		{"cards list", []string{"cards", "list", "--nats", url}, "agents"},
		{"cards list --as", []string{"cards", "list", "--nats", url, "--as", "someone"}, "caller"},
		{"replay", []string{"replay", "--nats", url}, "decisions"},
		{"cards discover", []string{"cards", "discover", "--allow-private", agent.URL}, "agents"},
	}
	for _, tc := range cases {
		for _, flag := range []string{"--json", "--json=-", "--json=" + file} {
			t.Run(tc.name+" "+flag, func(t *testing.T) {
				code, stdout, stderr := runCmd(t, append(append([]string(nil), tc.args...), flag)...)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				doc := []byte(stdout)
				if strings.HasSuffix(flag, file) {
					if stdout != "" {
						t.Errorf("stdout %q, want nothing: the document went to the file", stdout)
					}
					var err error
					if doc, err = os.ReadFile(file); err != nil {
						t.Fatal(err)
					}
				}
				var m map[string]any
				if err := json.Unmarshal(doc, &m); err != nil {
					t.Fatalf("not one JSON document: %v\n%s", err, doc)
				}
				if _, ok := m[tc.key]; !ok {
					t.Errorf("no %q in %s", tc.key, doc)
				}
				if _, err := os.Stat("-"); err == nil {
					t.Error(`a file named "-" was created`)
				}
			})
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "skillmatch ") || !strings.Contains(stdout, runtime.Version()) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// A job of two stages shows the second after the first's 100%, with or
// without stage names.
func TestProgressStages(t *testing.T) {
	for _, named := range []bool{false, true} {
		var buf bytes.Buffer
		p := newProgress(&buf, "fit")
		report := func(stage string, done, total int) {
			if named {
				p.stage(stage, done, total)
			} else {
				p.update(done, total)
			}
		}
		for i := 1; i <= 20; i++ {
			report("features", i, 20)
		}
		for i := 0; i <= 4; i++ {
			report("reranker", i, 4)
		}
		out := buf.String()
		label := "fit: "
		if named {
			label = "fit reranker: "
		}
		for _, want := range []string{label + "0/4 (0%)", label + "1/4 (25%)", label + "4/4 (100%)"} {
			if !strings.Contains(out, want) {
				t.Errorf("named %v: no %q in\n%s", named, want, out)
			}
		}
	}
}

// report publishes the outcome, with its task, to the outcomes stream the
// feedback stage reads, and says so.
func TestReportPublishesTheOutcome(t *testing.T) {
	url, js := pipelineServer(t)
	id := wire.DecisionID("", "t-1")
	code, stdout, stderr := runCmd(t, "report", "--nats", url, "--decision", id, "--task", "t-1",
		"--skill", "world-info/weather-forecast", "--failure", "--latency-ms", "120")
	if code != 0 || !strings.Contains(stdout, "outcome of decision "+id+" reported (world-info/weather-forecast, success false)") {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, pipeline.DefaultStreams.Outcomes)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := s.GetLastMsgForSubject(ctx, ">")
	if err != nil {
		t.Fatalf("no outcome stored: %v", err)
	}
	var o struct {
		DecisionID string `json:"decisionId"`
		TaskID     string `json:"taskId"`
		Skill      string `json:"skill"`
		Success    bool   `json:"success"`
	}
	if err := json.Unmarshal(msg.Data, &o); err != nil || o.DecisionID != id || o.TaskID != "t-1" || o.Skill != "world-info/weather-forecast" || o.Success {
		t.Errorf("stored outcome %s (%v)", msg.Data, err)
	}
	// A plan's step is reported under its own decision id.
	code, stdout, stderr = runCmd(t, "report", "--nats", url, "--decision", id+"-s2", "--task", "t-1",
		"--skill", "world-info/weather-forecast", "--success")
	if code != 0 || !strings.Contains(stdout, "outcome of decision "+id+"-s2 reported") {
		t.Errorf("report of a plan's step: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
