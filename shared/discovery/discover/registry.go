package discover

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// ErrRegistry is wrapped by every error about a registry file's content.
var ErrRegistry = errors.New("invalid registry")

// MaxRegistryBytes caps a registry file.
const MaxRegistryBytes = 4 << 20

const maxRegistryProblems = 10

// Registry lists the agents to discover and keep fresh. Its file is JSON:
//
//	{"agents": [{"url": "https://agent.example.com", "id": "optional", "allowPrivate": false}]}
//
// Unknown fields are refused, so a misspelt key is an error rather than
// silently ignored.
type Registry struct {
	Agents []Agent `json:"agents"`
}

func errBadID(id string) error {
	return fmt.Errorf("%w %q: id: want 1-128 characters of [a-z0-9._-]", card.ErrInvalidCard, id)
}

// LoadRegistry reads and validates a registry file. Errors start with the
// path.
func LoadRegistry(path string) (*Registry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRegistryBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxRegistryBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrRegistry, MaxRegistryBytes)
	}
	r, err := ParseRegistry(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseRegistry reads and validates a registry. The agents' URLs come
// back normalised (see NormalizeURL); ids stay as given.
func ParseRegistry(data []byte) (*Registry, error) {
	var raw struct {
		Agents *[]Agent `json:"agents"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrRegistry, strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrRegistry)
	}
	if raw.Agents == nil {
		return nil, fmt.Errorf(`%w: missing "agents" list`, ErrRegistry)
	}
	r := &Registry{Agents: *raw.Agents}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// Validate checks every agent and normalises its URL: a valid http(s)
// URL without credentials, a valid id when given, and no URL or id (given
// or derived) used twice.
func (r *Registry) Validate() error {
	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	urls, ids := map[string]int{}, map[string]int{}
	for i := range r.Agents {
		a := &r.Agents[i]
		path := fmt.Sprintf("agents[%d]", i)
		u, err := NormalizeURL(a.URL)
		if err != nil {
			fail("%s.url: %s", path, strings.TrimPrefix(err.Error(), ErrBadURL.Error()+": "))
			continue
		}
		a.URL = u.String()
		if j, dup := urls[a.URL]; dup {
			fail("%s.url: %s already listed as agents[%d]", path, a.URL, j)
			continue
		}
		urls[a.URL] = i
		id := a.ID
		if id == "" {
			if id, err = DeriveID(u); err != nil {
				fail("%s.url: cannot derive an id; give one", path)
				continue
			}
		} else if !card.ValidID(id) {
			fail("%s.id: %q: want 1-128 characters of [a-z0-9._-]", path, id)
			continue
		}
		if j, dup := ids[id]; dup {
			fail("%s.id: %q already used by agents[%d]", path, id, j)
			continue
		}
		ids[id] = i
	}
	if len(problems) == 0 {
		return nil
	}
	if len(problems) > maxRegistryProblems {
		problems = append(problems[:maxRegistryProblems:maxRegistryProblems],
			fmt.Sprintf("and %d more problems", len(problems)-maxRegistryProblems))
	}
	return fmt.Errorf("%w: %s", ErrRegistry, strings.Join(problems, "; "))
}
