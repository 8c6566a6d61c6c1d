package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain keeps `match`'s follow-up file out of the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skillmatch-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A named skill is taken (or refused) in process exactly as the decider
// does: never the policy's favourite instead.
func TestMatchNamedSkill(t *testing.T) {
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, "--skill", "diff-reviewer/explain-code", "what's the weather in Lisbon")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "weather") && strings.HasPrefix(stdout, "delegate to world-info") {
		t.Fatalf("named skill ignored:\n%s", stdout)
	}
	if !strings.HasPrefix(stdout, "delegate to diff-reviewer/explain-code") || !strings.Contains(stdout, "named skill") {
		t.Errorf("want a delegation to the named skill:\n%s", stdout)
	}
	// A named skill the hard filters remove is refused with the reason.
	code, stdout, _ = runCmd(t, "match", "--cards", examplesDir, "--data-class", "restricted", "--skill", "world-info/weather-forecast", "weather in Lisbon")
	if code != 0 || !strings.HasPrefix(stdout, "abstain\n") || !strings.Contains(stdout, "cannot take the task") {
		t.Errorf("restricted data to an external agent: exit %d\n%s", code, stdout)
	}
	// A bad skill reference is a usage error, as in submit.
	if code, _, stderr := runCmd(t, "match", "--cards", examplesDir, "--skill", "not a skill", "hi"); code != 2 || !strings.Contains(stderr, "skillId") {
		t.Errorf("bad --skill: exit %d, %s", code, stderr)
	}
}

// `match --continue` keeps the task's skill for the same caller, across
// invocations (the follow-up file), and refuses anyone else.
func TestMatchContinue(t *testing.T) {
	file := filepath.Join(t.TempDir(), "followups.json")
	code, stdout, stderr := runCmd(t, "match", "--cards", examplesDir, "--followups", file, "--caller", "ana", "--id", "w-1",
		"what's the weather going to be in Lisbon tomorrow")
	if code != 0 || !strings.HasPrefix(stdout, "delegate to world-info/weather-forecast") || !strings.Contains(stdout, "--continue w-1") {
		t.Fatalf("first task: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "match", "--cards", examplesDir, "--followups", file, "--caller", "ana", "--continue", "w-1",
		"and what would 100 dollars come to in euros")
	if code != 0 || !strings.HasPrefix(stdout, "delegate to world-info/weather-forecast") || !strings.Contains(stdout, "follow-up of task w-1") {
		t.Errorf("follow-up: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "match", "--cards", examplesDir, "--followups", file, "--caller", "eve", "--continue", "w-1", "and tomorrow?")
	if code != 0 || !strings.HasPrefix(stdout, "abstain\n") || !strings.Contains(stdout, "unknown to this caller") {
		t.Errorf("other caller: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "match", "--cards", examplesDir, "--followups", "", "--caller", "ana", "--continue", "w-1", "and tomorrow?")
	if code != 0 || !strings.Contains(stdout, "no follow-up store") {
		t.Errorf("without a follow-up file: exit %d\n%s", code, stdout)
	}
}
