package app

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseReportsWithoutPrinting(t *testing.T) {
	cases := []struct {
		args []string
		code int // from ReportError
		out  string
		err  string
	}{
		{[]string{"--help"}, 0, "Usage: x\n", ""},
		{[]string{"-h"}, 0, "-n int", ""},
		{[]string{"--nope"}, 2, "", "x: flag provided but not defined: -nope\nsee 'x --help'\n"},
		{[]string{"-n", "two"}, 2, "", "x: invalid value \"two\" for flag -n: parse error\nsee 'x --help'\n"},
	}
	for _, tc := range cases {
		var written bytes.Buffer
		fs := NewFlagSet("x", "Usage: x", &written)
		fs.Int("n", 1, "a number")
		_, err := Parse(fs, tc.args)
		if written.Len() > 0 {
			t.Errorf("%v: Parse printed %q", tc.args, written.String())
		}
		var stdout, stderr bytes.Buffer
		if code := ReportError("x", err, &stdout, &stderr); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		if !strings.Contains(stdout.String(), tc.out) || (tc.out == "") != (stdout.Len() == 0) || stderr.String() != tc.err {
			t.Errorf("%v: stdout %q, stderr %q; want %q, %q", tc.args, stdout.String(), stderr.String(), tc.out, tc.err)
		}
		if tc.code == 0 && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: %v is not flag.ErrHelp", tc.args, err)
		}
		if tc.code == 2 && !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v is not ErrUsage", tc.args, err)
		}
	}
	// An explicit Usage() still writes where the flag set was made to.
	var written bytes.Buffer
	fs := NewFlagSet("x", "Usage: x", &written)
	fs.Usage()
	if !strings.HasPrefix(written.String(), "Usage: x") {
		t.Errorf("Usage() wrote %q", written.String())
	}
}

// SKILLMATCH_VERSION is likely an image tag; it must not turn into
// --version (or a usage error) for a service.
func TestApplyEnvSkipsVersion(t *testing.T) {
	t.Setenv("SKILLMATCH_VERSION", "v1.2.3")
	fs, sf := NewServiceFlags("retriever", io.Discard)
	if _, err := Parse(fs, nil); err != nil || sf.Version {
		t.Errorf("err %v, version %v", err, sf.Version)
	}
}

func TestJSONFlag(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	file := filepath.Join(dir, "out.json")
	cases := []struct {
		args []string
		path string
	}{
		{nil, ""},
		{[]string{"--json"}, "-"},
		{[]string{"--json=-"}, "-"},
		{[]string{"--json=true"}, "-"},
		{[]string{"--json=false"}, ""},
		{[]string{"--json=" + file}, file},
		{[]string{"--json", "pos"}, "-"}, // never swallows the next argument
	}
	for _, tc := range cases {
		fs := NewFlagSet("x", "Usage: x", io.Discard)
		var j JSONFlag
		j.Register(fs, "print it")
		if _, err := Parse(fs, tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if j.Path != tc.path || j.On() != (tc.path != "") {
			t.Errorf("%v: path %q, want %q", tc.args, j.Path, tc.path)
		}
		if !j.On() {
			continue
		}
		var stdout bytes.Buffer
		if err := j.Write(&stdout, map[string]int{"a": 1}); err != nil {
			t.Fatal(err)
		}
		got := stdout.String()
		if j.Path == file {
			data, _ := os.ReadFile(file)
			got = string(data)
		}
		if got != "{\n  \"a\": 1\n}\n" {
			t.Errorf("%v: wrote %q", tc.args, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was created`)
	}
}

// Two listen flags on one port of one host (or of every interface) are
// refused before anything starts; ports chosen by the system never clash.
func TestDistinctListens(t *testing.T) {
	cases := []struct {
		a, b string
		same bool
	}{
		{"127.0.0.1:4222", "127.0.0.1:4222", true},
		{":4222", "127.0.0.1:4222", true},
		{"0.0.0.0:8080", "10.0.0.5:8080", true},
		{"[::]:8080", "127.0.0.1:8080", true},
		{"localhost:9000", "127.0.0.1:9000", true},
		{"127.0.0.1:4222", "127.0.0.1:4223", false},
		{"127.0.0.1:8080", "10.0.0.5:8080", false},
		{"127.0.0.1:0", "127.0.0.1:0", false},
		{"127.0.0.1:-1", "127.0.0.1:-1", false},
		{"", "127.0.0.1:4222", false},
	}
	for _, tc := range cases {
		if got := sameListen(tc.a, tc.b); got != tc.same {
			t.Errorf("sameListen(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	err := distinctListens(listenFlag{"--nats-listen", "127.0.0.1:4222"}, listenFlag{"--health-listen", ""},
		listenFlag{"--a2a-listen", ":4222"})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--nats-listen 127.0.0.1:4222 and --a2a-listen :4222") {
		t.Errorf("err = %v, want a usage error naming both flags", err)
	}
	if err := distinctListens(listenFlag{"--nats-listen", "127.0.0.1:4222"}, listenFlag{"--a2a-listen", "127.0.0.1:8080"}); err != nil {
		t.Errorf("distinct addresses: err = %v", err)
	}
}

// -s and --server are --nats under the nats CLI's names; the environment
// sets --nats alone (SKILLMATCH_NATS, then NATS_URL).
func TestNATSServerAliases(t *testing.T) {
	parse := func(args ...string) string {
		t.Helper()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var n NATSFlags
		n.Register(fs)
		if _, err := Parse(fs, args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return n.URL
	}
	t.Setenv("SKILLMATCH_SERVER", "nats://from-alias-env:1")
	t.Setenv("SKILLMATCH_S", "nats://from-alias-env:2")
	t.Setenv("SKILLMATCH_NATS", "nats://from-env:4222")
	cases := []struct {
		args []string
		want string
	}{
		{nil, "nats://from-env:4222"},
		{[]string{"-s", "nats://a:4222"}, "nats://a:4222"},
		{[]string{"--server", "nats://b:4222"}, "nats://b:4222"},
		{[]string{"--nats", "nats://c:4222"}, "nats://c:4222"},
	}
	for _, tc := range cases {
		if got := parse(tc.args...); got != tc.want {
			t.Errorf("%v: URL %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestRepeatAndListFlags(t *testing.T) {
	tests := []struct {
		name   string
		uses   []string
		list   []string // ListFlag: comma-separated too
		repeat []string // RepeatFlag: one value a use
	}{
		{"one plain use", []string{"a"}, []string{"a"}, []string{"a"}},
		{"commas", []string{"a, b", "c"}, []string{"a", "b", "c"}, []string{"a, b", "c"}},
		{"empty use", []string{""}, nil, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l ListFlag
			var r RepeatFlag
			for _, u := range tt.uses {
				if err := l.Set(u); err != nil {
					t.Fatal(err)
				}
				if err := r.Set(u); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(l, tt.list) {
				t.Errorf("ListFlag %q, want %q", l, tt.list)
			}
			if !slices.Equal(r, tt.repeat) {
				t.Errorf("RepeatFlag %q, want %q", r, tt.repeat)
			}
		})
	}
}
