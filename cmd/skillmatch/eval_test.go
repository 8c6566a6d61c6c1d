package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fitSet is the small invented golden set of the fit package's tests.
const fitSet = "../../shared/learn/fit/testdata"

const hostileSet = "../../shared/learn/eval/testdata/hostile"

// noMatchFreeSet writes a set with fitSet's cards and only its tasks that
// have an expected skill.
func noMatchFreeSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs(filepath.Join(fitSet, "cards"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(dir, "cards")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fitSet, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"dev"`) && !strings.Contains(line, `"expected": null`) && !strings.Contains(line, `"expected":null`) {
			keep = append(keep, line)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEvalOutputs(t *testing.T) {
	tests := []struct {
		name, set   string
		refusalNull bool
	}{
		{"with no-match tasks", fitSet, false},
		{"without no-match tasks", noMatchFreeSet(t), true},
		{"hostile set", hostileSet, false},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		jsonFile, perTask, plot := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "p.svg")
		code, out, errOut := runCmd(t, "eval", "--set", tc.set, "--quiet", "--json", jsonFile, "--pertask", perTask, "--plot", plot)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if !strings.Contains(out, "plain BM25") {
			t.Errorf("%s: no plain-BM25 block:\n%s", tc.name, out)
		}
		if tc.refusalNull != strings.Contains(out, "no-match refusal     n/a") {
			t.Errorf("%s: refusal line:\n%s", tc.name, out)
		}
		data, err := os.ReadFile(jsonFile)
		if err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, data)
		}
		if v, ok := rep["refusal"]; !ok || (v == nil) != tc.refusalNull {
			t.Errorf("%s: refusal %v in %s", tc.name, v, data)
		}
		bm, ok := rep["bm25"].(map[string]any)
		if !ok || bm["top1"] == nil || bm["recall_at_20"] == nil || bm["mrr"] == nil {
			t.Errorf("%s: bm25 object %v", tc.name, rep["bm25"])
		}
		// Only the hostile set's tasks have categories: a breakdown by
		// them, printed and in the JSON, with a row for its plain tasks.
		cats, _ := rep["by_category"].([]any)
		if hostile := tc.set == hostileSet; hostile != strings.Contains(out, "by category") || hostile != (len(cats) > 0) {
			t.Errorf("%s: by category printed %v, in the JSON %v:\n%s", tc.name, strings.Contains(out, "by category"), rep["by_category"], out)
		}
		if tc.set == hostileSet {
			// Vague requests have no right skill: no top-1 to show, not 0.
			for _, line := range strings.Split(out, "\n") {
				if f := strings.Fields(line); len(f) > 3 && f[0] == "vague" && (f[2] != "-" || f[3] != "-") {
					t.Errorf("%s: vague row %q, want no top-1 or BM25 figure", tc.name, line)
				}
			}
		}
		for _, c := range cats {
			g, _ := c.(map[string]any)
			if g["name"] == "plain" && (g["tasks"] == nil || g["top1"] == nil || g["bm25_top1"] == nil || g["mean_probability"] == nil) {
				t.Errorf("%s: plain group %v", tc.name, g)
			}
		}
		f, err := os.Open(perTask)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("%s: per-task line %q: %v", tc.name, sc.Text(), err)
			}
			for _, k := range []string{"id", "expected", "acceptable", "top", "decision", "chosen", "probability", "rank"} {
				if _, ok := line[k]; !ok {
					t.Errorf("%s: per-task line lacks %s: %s", tc.name, k, sc.Text())
				}
			}
			if _, ok := line["category"]; ok != (tc.set == hostileSet) {
				t.Errorf("%s: category present %v: %s", tc.name, ok, sc.Text())
			}
			lines++
		}
		f.Close()
		if float64(lines) != rep["tasks"].(float64) {
			t.Errorf("%s: %d per-task lines for %v tasks", tc.name, lines, rep["tasks"])
		}
		svg, err := os.Open(plot)
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(svg)
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: plot is not valid XML: %v", tc.name, err)
			}
		}
		svg.Close()
	}
}

func TestFitSeveralSets(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		sets []string
		want string
	}{
		// One set keeps the line it always printed.
		{"one", []string{fitSet}, "fitted on 143 tasks of " + fitSet + " (split train, 1 folds, examples false): wrote "},
		{"two", []string{fitSet, hostileSet}, "of " + fitSet + ", " + hostileSet + " (split train"},
	}
	for _, tc := range tests {
		out := filepath.Join(dir, tc.name+".json")
		args := []string{"fit", "--examples=false", "--quiet", "-o", out}
		for _, s := range tc.sets {
			args = append(args, "--set", s)
		}
		code, stdout, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: %q does not contain %q", tc.name, stdout, tc.want)
		}
		if code, _, errOut := runCmd(t, "eval", "--set", tc.sets[len(tc.sets)-1], "--model", out, "--quiet"); code != 0 {
			t.Errorf("%s: eval with the model: %s", tc.name, errOut)
		}
	}
}

// eval --learn-from teaches the catalog the train tasks through the
// feedback stage: a trusted caller's successes become examples; an
// untrusted caller's do not, and its figures are those without learning.
func TestEvalLearnFrom(t *testing.T) {
	run := func(args ...string) (string, map[string]any) {
		t.Helper()
		jsonFile := filepath.Join(t.TempDir(), "r.json")
		code, out, errOut := runCmd(t, append([]string{"eval", "--set", fitSet, "--quiet", "--json", jsonFile}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		data, err := os.ReadFile(jsonFile)
		if err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		return out, rep
	}
	out, _ := run("--learn-from", "train", "--learn-tasks", "20")
	if !strings.Contains(out, "learned from 20 train tasks reported by a trusted caller") || strings.Contains(out, ": 0 examples") {
		t.Errorf("a trusted caller taught nothing:\n%s", out)
	}
	out, untrusted := run("--learn-from", "train", "--learn-tasks", "20", "--learn-as", "untrusted")
	if !strings.Contains(out, "reported by an untrusted caller: 0 examples of 0 skills") {
		t.Errorf("an untrusted caller taught something:\n%s", out)
	}
	_, base := run()
	for _, k := range []string{"top1", "mrr", "recall_at_20", "precision", "coverage", "ece"} {
		if untrusted[k] != base[k] {
			t.Errorf("%s: %v after an untrusted caller's outcomes, %v without", k, untrusted[k], base[k])
		}
	}
	for _, from := range []string{"dev", "test", "all"} {
		if code, _, _ := runCmd(t, "eval", "--set", fitSet, "--quiet", "--learn-from", from); code != 2 {
			t.Errorf("--learn-from %s, evaluating dev: exit %d, want 2", from, code)
		}
	}
}
