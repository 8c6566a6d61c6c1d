package app

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// writeContext writes a nats CLI context named name under a temporary
// XDG_CONFIG_HOME, as `nats context save` would.
func writeContext(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	path := filepath.Join(dir, "nats", "context", name+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func parseNATSFlags(t *testing.T, args ...string) *NATSFlags {
	t.Helper()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	n := &NATSFlags{}
	n.Register(fs)
	if _, err := Parse(fs, args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return n
}

// A context fills in what the flags and the environment leave unset; a
// flag or variable given wins, as in the nats CLI.
func TestNATSContextFillsTheFlagsNotGiven(t *testing.T) {
	path := writeContext(t, "dev", `{"description": "dev", "url": "nats://ctx:4222", "creds": "/ctx/user.creds",
		"ca": "/ctx/ca.pem", "inbox_prefix": "_INBOX_carol", "user": "carol", "password": "pw", "token": "", "tls_first": true,
		"color_scheme": "dark"}`)
	for _, args := range [][]string{{"--context", "dev"}, {"--context", path}} {
		cfg, err := parseNATSFlags(t, args...).connectConfig("t")
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if cfg.URL != "nats://ctx:4222" || cfg.Creds != "/ctx/user.creds" || cfg.TLSCA != "/ctx/ca.pem" || cfg.InboxPrefix != "_INBOX_carol" ||
			cfg.User != "carol" || cfg.Password != "pw" || !cfg.TLSFirst {
			t.Errorf("%v: %+v, want the context's settings", args, cfg)
		}
	}
	cfg, err := parseNATSFlags(t, "--context", "dev", "-s", "nats://flag:4222", "--inbox-prefix", "_INBOX").connectConfig("t")
	if err != nil || cfg.URL != "nats://flag:4222" || cfg.InboxPrefix != "_INBOX" || cfg.Creds != "/ctx/user.creds" {
		t.Errorf("flags given: %+v (%v), want the flags' URL and prefix, the context's creds", cfg, err)
	}
	t.Setenv("NATS_URL", "nats://env:4222")
	t.Setenv("SKILLMATCH_CREDS", "/env/user.creds")
	cfg, err = parseNATSFlags(t, "--context", "dev").connectConfig("t")
	if err != nil || cfg.URL != "nats://env:4222" || cfg.Creds != "/env/user.creds" {
		t.Errorf("environment given: %+v (%v), want the environment's URL and creds", cfg, err)
	}
	t.Setenv("NATS_CONTEXT", "dev")
	os.Unsetenv("NATS_URL")
	cfg, err = parseNATSFlags(t).connectConfig("t")
	if err != nil || cfg.User != "carol" {
		t.Errorf("NATS_CONTEXT: %+v (%v), want the context read", cfg, err)
	}
}

// A context that is missing, is not JSON, or asks for what skillmatch
// cannot do is bad input, named, and nothing is dialled.
func TestNATSContextRefused(t *testing.T) {
	cases := []struct{ body, want string }{
		{"", "no such file"},
		{`{"url": `, "unexpected end"},
		{`{"url": "nats://x:4222", "jetstream_domain": "hub"}`, "jetstream_domain"},
		{`{"nsc": "nsc://operator/account/user"}`, "nsc"},
	}
	for _, tc := range cases {
		name := "bad"
		if tc.body == "" {
			writeContext(t, "other", `{}`)
		} else {
			writeContext(t, name, tc.body)
		}
		n := parseNATSFlags(t, "--context", name)
		nc, _, err := n.Connect("t", nil)
		if nc != nil {
			nc.Close()
		}
		if !errors.Is(err, ErrBadInput) || !errors.Is(err, ErrNATSContext) || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), "--context") {
			t.Errorf("%q: err = %v, want bad input naming --context and %q", tc.body, err, tc.want)
		}
	}
}

// Against a real server that requires a user and gives it only its own
// inboxes: the context's user, password and inbox prefix are what let
// the connection work, and a flag given overrides the context.
func TestNATSContextConnects(t *testing.T) {
	auth := filepath.Join(t.TempDir(), "auth.conf")
	if err := os.WriteFile(auth, []byte(`accounts { SKILLMATCH { jetstream: enabled, users: [
		{ user: carol, password: s3cret, permissions: { publish: { allow: ["$JS.API.INFO"] }, subscribe: { allow: ["_INBOX_carol.>"] } } }
	] } }`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), Listen: "127.0.0.1:-1", AuthFile: auth})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	writeContext(t, "carol", `{"url": "`+srv.ClientURL()+`", "user": "carol", "password": "s3cret", "inbox_prefix": "_INBOX_carol"}`)

	n := parseNATSFlags(t, "--context", "carol")
	nc, js, err := n.Connect("t", nil)
	if err != nil {
		t.Fatalf("connect with the context: %v", err)
	}
	if _, err := js.AccountInfo(t.Context()); err != nil {
		t.Errorf("account info through the context's inbox prefix: %v", err)
	}
	nc.Close()

	// The default prefix given as a flag overrides the context's: the
	// server lets carol read no other inbox, so the request gets no answer.
	n = parseNATSFlags(t, "--context", "carol", "--inbox-prefix", "_INBOX")
	nc, js, err = n.Connect("t", nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err == nil {
		t.Error("account info answered on _INBOX, which carol may not read")
	}
}
