package identity

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

func TestValid(t *testing.T) {
	for _, ok := range []string{"alice", "a", "svc-1", "team_b", "A9"} {
		if err := Valid(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "_", "-x", "a.b", "a*", ">", "a b", "é", string(make([]byte, 65))} {
		if err := Valid(bad); !errors.Is(err, ErrBadCaller) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
	if Token("") != Anonymous || Token("bob") != "bob" {
		t.Error("token")
	}
}

func TestStamp(t *testing.T) {
	d, err := New(File{Callers: map[string]Identity{
		"alice": {Tenant: "acme", Scopes: []string{"travel.book", "finance.read"}, Trusted: true},
		"bob":   {DataClass: "confidential"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		dir       *Directory
		caller    string
		claim     task.Caller
		want      task.Caller
		wantTrust bool
	}{
		{"the payload's id is a claim", d, "alice", task.Caller{ID: "root", Tenant: "evil", Scopes: []string{"travel.book", "admin"}},
			task.Caller{ID: "alice", Tenant: "acme", Scopes: []string{"travel.book"}}, true},
		{"no scopes claimed: all the caller has", d, "alice", task.Caller{},
			task.Caller{ID: "alice", Tenant: "acme", Scopes: []string{"travel.book", "finance.read"}}, true},
		{"fewer scopes are kept", d, "alice", task.Caller{Scopes: []string{}},
			task.Caller{ID: "alice", Tenant: "acme", Scopes: []string{}}, true},
		{"data class raised to the floor", d, "bob", task.Caller{DataClass: "public"},
			task.Caller{ID: "bob", Scopes: []string{}, DataClass: "confidential"}, false},
		{"a higher data class stays", d, "bob", task.Caller{DataClass: "restricted"},
			task.Caller{ID: "bob", Scopes: []string{}, DataClass: "restricted"}, false},
		{"unknown caller: nothing widened", d, "eve", task.Caller{ID: "alice", Tenant: "acme", Scopes: []string{"travel.book"}},
			task.Caller{ID: "eve", Scopes: []string{}}, false},
		{"anonymous: no id, no scopes", d, "", task.Caller{ID: "alice", Scopes: []string{"travel.book"}},
			task.Caller{Scopes: []string{}}, false},
		{"no directory: only the id is replaced", nil, "eve", task.Caller{ID: "alice", Tenant: "t", Scopes: []string{"x"}, DataClass: "internal"},
			task.Caller{ID: "eve", Tenant: "t", Scopes: []string{"x"}, DataClass: "internal"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := &task.Task{Caller: tt.claim}
			tt.dir.Stamp(tk, tt.caller)
			got := tk.Caller
			if got.ID != tt.want.ID || got.Tenant != tt.want.Tenant || got.DataClass != tt.want.DataClass ||
				!slices.Equal(got.Scopes, tt.want.Scopes) || (got.Scopes == nil) != (tt.want.Scopes == nil) {
				t.Errorf("stamped %+v, want %+v", got, tt.want)
			}
			if tt.dir.Trusted(tt.caller) != tt.wantTrust {
				t.Errorf("trusted %v", !tt.wantTrust)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"callers": {"alice": {"tenant": "acme", "scopes": ["a"], "trusted": true}}}`), 0o600)
	d, err := Load(good)
	if err != nil || !d.Trusted("alice") {
		t.Fatalf("%v %v", d, err)
	}
	for name, body := range map[string]string{
		"bad id":      `{"callers": {"a.b": {}}}`,
		"bad class":   `{"callers": {"a": {"dataClass": "secret"}}}`,
		"empty scope": `{"callers": {"a": {"scopes": [" "]}}}`,
		"unknown key": `{"callers": {"a": {"admin": true}}}`,
		"not json":    `{`,
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(body), 0o600)
		if _, err := Load(p); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}
