package discover

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRegistry(t *testing.T) {
	r, err := ParseRegistry([]byte(`{"agents": [
		{"url": "https://Billing.Example.com/"},
		{"url": "http://10.0.0.5:8080", "id": "internal-ops", "allowPrivate": true}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Agents) != 2 || r.Agents[0].URL != "https://billing.example.com" || r.Agents[1].ID != "internal-ops" || !r.Agents[1].AllowPrivate {
		t.Errorf("registry = %+v", r)
	}
	if r, err := ParseRegistry([]byte(`{"agents": []}`)); err != nil || len(r.Agents) != 0 {
		t.Errorf("empty list: %v", err)
	}
}

func TestRegistryErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"not json":       {`agents:`, "invalid character"},
		"not an object":  {`[1]`, "cannot unmarshal array"},
		"missing agents": {`{}`, `missing "agents" list`},
		"unknown field":  {`{"agents": [{"url": "https://a.example", "allow_private": true}]}`, `unknown field "allow_private"`},
		"trailing data":  {`{"agents": []} {}`, "data after the JSON object"},
		"bad scheme":     {`{"agents": [{"url": "ftp://a.example"}]}`, `agents[0].url: scheme "ftp" not allowed`},
		"credentials":    {`{"agents": [{"url": "https://u:pw@a.example"}]}`, "agents[0].url: credentials in the URL"},
		"no url":         {`{"agents": [{"id": "x"}]}`, "agents[0].url: empty"},
		"bad id":         {`{"agents": [{"url": "https://a.example", "id": "Bad Id"}]}`, `agents[0].id: "Bad Id"`},
		"duplicate url": {`{"agents": [{"url": "https://a.example"}, {"url": "HTTPS://A.example:443/"}]}`,
			"agents[1].url: https://a.example already listed as agents[0]"},
		"duplicate id": {`{"agents": [{"url": "https://a.example", "id": "x"}, {"url": "https://b.example", "id": "x"}]}`,
			`agents[1].id: "x" already used by agents[0]`},
		"derived id clash": {`{"agents": [{"url": "https://b.example", "id": "a.example"}, {"url": "https://a.example"}]}`,
			`agents[1].id: "a.example" already used`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRegistry([]byte(tc.in))
			if !errors.Is(err, ErrRegistry) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrRegistry containing %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "pw@") {
				t.Errorf("error repeats credentials: %v", err)
			}
		})
	}
	// Every problem is listed, not just the first.
	_, err := ParseRegistry([]byte(`{"agents": [{"url": "ftp://a"}, {"url": "https://b.example", "id": "B"}]}`))
	if err == nil || !strings.Contains(err.Error(), "agents[0]") || !strings.Contains(err.Error(), "agents[1]") {
		t.Errorf("err = %v, want both problems", err)
	}
}

func TestLoadRegistry(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(path, []byte(`{"agents": [{"url": "gopher://a"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadRegistry(path)
	if !errors.Is(err, ErrRegistry) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("err = %v, want it to start with the path", err)
	}
	if _, err := LoadRegistry(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"agents": [{"url": "https://a.example"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := LoadRegistry(path); err != nil || len(r.Agents) != 1 {
		t.Errorf("valid file: %v", err)
	}
}
