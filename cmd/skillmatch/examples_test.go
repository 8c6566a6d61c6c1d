package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/pipeline"
)

// An operator lists and removes learned examples.
func TestExamplesListRemove(t *testing.T) {
	url, js := pipelineServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kv, err := pipeline.ExamplesKV(ctx, js, "")
	if err != nil {
		t.Fatal(err)
	}
	store := pipeline.NewExamples(kv, "", 0)
	for _, e := range [][2]string{{"a/s", "book a hotel in Lisbon"}, {"a/s", "find a room in Porto"}, {"b/t", "translate this"}} {
		if _, err := store.Add(ctx, e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCmd(t, "examples", "list", "--nats", url)
	if code != 0 || !strings.Contains(stdout, "3 learned examples of 2 skills") || !strings.Contains(stdout, `"find a room in Porto"`) {
		t.Errorf("list: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCmd(t, "examples", "remove", "a/s", "BOOK a hotel  in Lisbon", "--nats", url)
	if code != 0 || !strings.Contains(stdout, "removed 1 example(s) of a/s") {
		t.Errorf("remove one: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd(t, "examples", "remove", "a/s", "never learned", "--nats", url); code != 2 || !strings.Contains(stderr, "no such learned example") {
		t.Errorf("removing an absent example: exit %d, want 2 (bad input); stderr %q", code, stderr)
	}
	code, stdout, _ = runCmd(t, "examples", "remove", "b/t", "--all", "--nats", url)
	if code != 0 || !strings.Contains(stdout, "removed 1 example(s) of b/t") {
		t.Errorf("remove --all: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCmd(t, "examples", "list", "--skill", "a/s", "--json", "--nats", url)
	var got map[string][]string
	if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil || len(got) != 1 || len(got["a/s"]) != 1 || got["a/s"][0] != "find a room in Porto" {
		t.Errorf("list --json after removals: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"examples"}, {"examples", "frob"}, {"examples", "remove", "a/s"},
		{"examples", "remove", "a/s", "x", "--all"}, {"examples", "list", "x"}} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
