package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// natsContext is the part of a nats CLI context (ADR-21: a JSON file
// under $XDG_CONFIG_HOME/nats/context) that says how to connect.
type natsContext struct {
	URL         string `json:"url"`
	User        string `json:"user"`
	Password    string `json:"password"`
	Token       string `json:"token"`
	Creds       string `json:"creds"`
	NKey        string `json:"nkey"`
	Cert        string `json:"cert"`
	Key         string `json:"key"`
	CA          string `json:"ca"`
	InboxPrefix string `json:"inbox_prefix"`
	TLSFirst    bool   `json:"tls_first"`

	// Settings skillmatch cannot honour: a context that sets one is
	// refused rather than half followed.
	NSC                string `json:"nsc"`
	JetStreamDomain    string `json:"jetstream_domain"`
	JetStreamAPIPrefix string `json:"jetstream_api_prefix"`
	UserJWT            string `json:"user_jwt"`
	WindowsCertStore   string `json:"windows_cert_store"`
}

// ErrNATSContext marks a --context that cannot be used: missing, not
// JSON, or asking for what skillmatch does not support.
var ErrNATSContext = errors.New("nats context")

// natsContextPath is where the context named name lives: name itself
// when it is a path to a .json file, else
// $XDG_CONFIG_HOME/nats/context/<name>.json (~/.config by default), as the
// nats CLI keeps them.
func natsContextPath(name string) (string, error) {
	if strings.HasSuffix(name, ".json") || strings.ContainsRune(name, os.PathSeparator) {
		return name, nil
	}
	if name == "." || name == ".." {
		return "", fmt.Errorf("%w %q: give a context's name or its file", ErrNATSContext, name)
	}
	// Not os.UserConfigDir: the nats CLI keeps ~/.config on every system.
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%w %q: no home folder to look in: %v", ErrNATSContext, name, err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "nats", "context", name+".json"), nil
}

// loadNATSContext reads the context named name (natsContextPath).
func loadNATSContext(name string) (*natsContext, error) {
	path, err := natsContextPath(name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrNATSContext, name, err)
	}
	var c natsContext
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w %q: %s: %v", ErrNATSContext, name, path, err)
	}
	for _, u := range []struct{ key, v string }{
		{"nsc", c.NSC}, {"jetstream_domain", c.JetStreamDomain}, {"jetstream_api_prefix", c.JetStreamAPIPrefix},
		{"user_jwt", c.UserJWT}, {"windows_cert_store", c.WindowsCertStore},
	} {
		if u.v != "" {
			return nil, fmt.Errorf("%w %q: %s sets %s, which skillmatch does not support; give the connection flags instead", ErrNATSContext, name, path, u.key)
		}
	}
	return &c, nil
}
