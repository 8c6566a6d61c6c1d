// Package identity says who a task comes from. The caller is the
// authenticated identity the task arrived under (its NATS subject token,
// which server permissions tie to the connection's user), never the
// caller id written in the payload; a directory of callers gives each its
// tenant, the most scopes it may claim, a floor for its data class and
// whether its outcomes are trusted. The payload may only narrow those.
package identity

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// Anonymous is the subject token of a caller without an identity.
const Anonymous = "_"

// MaxIDLen is the longest caller id.
const MaxIDLen = 64

// ErrBadCaller marks a caller id that cannot be a subject token.
var ErrBadCaller = errors.New("bad caller id")

// Valid checks that id can name a caller in a subject: 1 to 64 ASCII
// letters, digits, '-' or '_', starting with a letter or digit (so that no
// id is Anonymous and none is a wildcard or holds a '.').
func Valid(id string) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: %q: want 1 to %d characters", ErrBadCaller, id, MaxIDLen)
	}
	for i, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		default:
			return fmt.Errorf("%w: %q: only letters, digits, '-' and '_' (not first)", ErrBadCaller, id)
		}
	}
	return nil
}

// Token is the subject token of a caller id ("" is Anonymous).
func Token(id string) string {
	if id == "" {
		return Anonymous
	}
	return id
}

// Identity is what the directory knows of a caller.
type Identity struct {
	// Tenant is the caller's tenant; a task's own tenant is replaced by it.
	Tenant string `json:"tenant,omitempty"`
	// Scopes are the most the caller may claim: a task's scopes are cut
	// down to these (a task naming none gets all of them). Nil: the
	// caller has no scopes.
	Scopes []string `json:"scopes,omitempty"`
	// DataClass is the lowest data class the caller's tasks carry: a task
	// claiming a lower one is raised to it.
	DataClass string `json:"dataClass,omitempty"`
	// Trusted callers' outcomes may teach the model (posteriors, the
	// calibration refit); others are kept as evidence only.
	Trusted bool `json:"trusted,omitempty"`
}

// File is the directory file:
//
//	{"callers": {"alice": {"tenant": "acme", "scopes": ["travel.book"], "trusted": true}}}
type File struct {
	Callers map[string]Identity `json:"callers"`
}

// Directory is a validated directory of callers. A nil *Directory is the
// zero-configuration mode of a process on loopback: the payload's tenant,
// scopes and data class are taken as given, and nobody is trusted.
type Directory struct {
	callers map[string]Identity
}

// New validates f.
func New(f File) (*Directory, error) {
	d := &Directory{callers: map[string]Identity{}}
	var problems []string
	for id, c := range f.Callers {
		if err := Valid(id); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if c.DataClass != "" {
			c.DataClass = strings.ToLower(c.DataClass)
			if _, ok := catalog.ClassRank(c.DataClass); !ok {
				problems = append(problems, fmt.Sprintf("caller %q: data class %q is not public, internal, confidential or restricted", id, c.DataClass))
			}
		}
		for _, s := range c.Scopes {
			if strings.TrimSpace(s) == "" {
				problems = append(problems, fmt.Sprintf("caller %q: empty scope", id))
			}
		}
		d.callers[id] = c
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("identity: %s", strings.Join(problems, "; "))
	}
	return d, nil
}

// Load reads and validates a directory file.
func Load(path string) (*Directory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	var f File
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("identity: %s: %w", path, err)
	}
	return New(f)
}

// Lookup returns a caller's identity.
func (d *Directory) Lookup(id string) (Identity, bool) {
	if d == nil {
		return Identity{}, false
	}
	c, ok := d.callers[id]
	return c, ok
}

// Trusted says whether a caller's outcomes may teach the model; nobody is
// trusted without a directory.
func (d *Directory) Trusted(id string) bool {
	c, ok := d.Lookup(id)
	return ok && c.Trusted
}

// Stamp makes caller (authenticated; "" for anonymous) the task's caller
// and narrows what the payload claims to what the directory allows: the
// directory's tenant, the payload's scopes cut down to the caller's
// (unknown and anonymous callers have none), the data class raised to
// the caller's floor. Without a directory only the id is replaced.
func (d *Directory) Stamp(t *task.Task, caller string) {
	t.Caller.ID = caller
	if d == nil {
		return
	}
	c := d.callers[caller] // the zero Identity for unknown and anonymous callers
	t.Caller.Tenant = c.Tenant
	if t.Caller.Scopes == nil {
		t.Caller.Scopes = append([]string{}, c.Scopes...)
	} else {
		kept := []string{}
		for _, s := range t.Caller.Scopes {
			if slices.Contains(c.Scopes, s) {
				kept = append(kept, s)
			}
		}
		t.Caller.Scopes = kept
	}
	if c.DataClass != "" {
		have, _ := catalog.ClassRank(t.Caller.DataClass)
		floor, _ := catalog.ClassRank(c.DataClass)
		if t.Caller.DataClass == "" || have < floor {
			t.Caller.DataClass = c.DataClass
		}
	}
}
