package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/frontdoor/a2aserver"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"module version", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs("0123456789abcdef", "true")}, "v1.2.3"},
		{"revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef", "false")}, "0123456789ab"},
		{"dirty revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef", "true")}, "0123456789ab-dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"empty", debug.BuildInfo{}, "devel"},
	}
	for _, tc := range cases {
		if got := versionOf(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if line := VersionLine("x"); !strings.HasPrefix(line, "x "+Version()+" ") || !strings.Contains(line, runtime.Version()) {
		t.Errorf("VersionLine: %q", line)
	}
}

// A service answers --help (stdout), --version (stdout) and a bad flag
// (two lines on stderr) itself, without running the stage.
func TestServiceMainCommandLine(t *testing.T) {
	cases := []struct {
		args           []string
		code           int
		stdout, stderr string // wanted in each; "" wants it empty
	}{
		{[]string{"--help"}, 0, "Usage: skillmatch-retriever [flags]", ""},
		{[]string{"-h"}, 0, "-health-listen string", ""},
		{[]string{"--version"}, 0, "skillmatch-retriever " + Version(), ""},
		{[]string{"--bogus"}, 2, "", "skillmatch-retriever: flag provided but not defined: -bogus\nsee 'skillmatch-retriever --help'\n"},
		{[]string{"--workers", "many"}, 2, "", "see 'skillmatch-retriever --help'"},
		{[]string{"extra"}, 2, "", "unexpected argument \"extra\"\nsee"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ran := false
			code := serviceMain(pipeline.StageRetriever, tc.args, &stdout, &stderr, func(_ context.Context, _ string, _ []string, _ io.Writer) error {
				ran = true
				return nil
			})
			if code != tc.code || ran {
				t.Errorf("exit %d, ran %v; want %d without running", code, ran, tc.code)
			}
			for _, c := range []struct{ got, want string }{{stdout.String(), tc.stdout}, {stderr.String(), tc.stderr}} {
				if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
					t.Errorf("output %q, want %q", c.got, c.want)
				}
			}
			if n := strings.Count(stderr.String(), "\n"); n > 2 {
				t.Errorf("%d lines on stderr, want at most 2", n)
			}
		})
	}
	// A runtime failure is exit 1; a usage error from the run, exit 2.
	for _, tc := range []struct {
		err  error
		code int
	}{{nil, 0}, {io.EOF, 1}, {fmt.Errorf("%w: --index: no", ErrUsage), 2}} {
		var stdout, stderr bytes.Buffer
		code := serviceMain(pipeline.StageRetriever, nil, &stdout, &stderr, func(context.Context, string, []string, io.Writer) error { return tc.err })
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.err, code, tc.code, stderr.String())
		}
	}
}

// The front-door service answers its command line as the stage services
// do: help on stdout, --version, bad flags in two lines and exit 2.
func TestFrontDoorMainCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--help"}, 0, "-a2a-tokens string", ""},
		{[]string{"--version"}, 0, "skillmatch-frontdoor " + Version(), ""},
		{[]string{"--bogus"}, 2, "", "skillmatch-frontdoor: flag provided but not defined: -bogus\nsee 'skillmatch-frontdoor --help'\n"},
		{[]string{"--a2a-timeout", "soon"}, 2, "", "see 'skillmatch-frontdoor --help'"},
		{[]string{"extra"}, 2, "", "unexpected argument \"extra\"\nsee"},
	} {
		var stdout, stderr bytes.Buffer
		ran := false
		code := frontDoorMain(tc.args, &stdout, &stderr, func(context.Context, *FrontDoorFlags, io.Writer) error { ran = true; return nil })
		if code != tc.code || ran {
			t.Errorf("%v: exit %d, ran %v; want %d without running", tc.args, code, ran, tc.code)
		}
		for _, c := range []struct{ got, want string }{{stdout.String(), tc.stdout}, {stderr.String(), tc.stderr}} {
			if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
				t.Errorf("%v: output %q, want %q", tc.args, c.got, c.want)
			}
		}
	}
	// Listening on every interface without authentication is a usage error.
	var stdout, stderr bytes.Buffer
	code := frontDoorMain([]string{"--a2a-listen", "0.0.0.0:0", "--nats", "nats://127.0.0.1:1", "--timeout", "100ms"}, &stdout, &stderr,
		func(ctx context.Context, f *FrontDoorFlags, _ io.Writer) error {
			_, err := f.A2A.Serve(a2aserver.Config{}, nil, nil, nil)
			return err
		})
	if code != 2 || !strings.Contains(stderr.String(), "loopback") {
		t.Errorf("open 0.0.0.0: exit %d, %s", code, stderr.String())
	}
}
