package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// ErrInvalidRegistry is wrapped by errors about registry.json.
var ErrInvalidRegistry = errors.New("invalid registry")

// RegistryFile is the name of the optional registry in a catalog folder.
const RegistryFile = "registry.json"

// maxRegistryBytes bounds registry.json; it holds three fields per agent.
const maxRegistryBytes = 16 << 20

// LoadDir reads a catalog folder: the cards in dir/cards/*.json, or in
// dir/*.json when there is no cards folder, and the optional
// dir/registry.json. Files that are not .json, dot files and registry.json
// itself are not cards.
//
// An agent without a registry entry gets DefaultStatus (external, public
// data only); the fields an entry leaves out take EntryDefault's.
//
// A bad card costs only that card: LoadDir returns the agents that loaded
// and one error per failure, each naming its file. A registry entry that
// is invalid drops its agent rather than defaulting it, because a default
// status could send data to an agent the registry meant to restrict. A registry that cannot be read at all drops every
// agent for the same reason. The catalog is never nil.
func LoadDir(dir string, opts ...card.Option) (*Catalog, []error) {
	return LoadDirUnlisted(dir, DefaultStatus, opts...)
}

// LoadDirUnlisted is LoadDir giving agents without a registry entry the
// status unlisted instead: a golden set's specification (FORMAT.md) has
// them up, internal and not external (EntryDefault), because a labelled
// set describes a vetted catalog, not cards fetched from anywhere.
func LoadDirUnlisted(dir string, unlisted Status, opts ...card.Option) (*Catalog, []error) {
	var errs []error
	registry, err := readRegistry(filepath.Join(dir, RegistryFile))
	if err != nil {
		return New(), []error{err}
	}

	cardDir := filepath.Join(dir, "cards")
	if fi, err := os.Stat(cardDir); err != nil || !fi.IsDir() {
		if err == nil {
			return New(), append(errs, fmt.Errorf("%s: not a directory", cardDir))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return New(), append(errs, err)
		}
		cardDir = dir
	}
	entries, err := os.ReadDir(cardDir)
	if err != nil {
		return New(), append(errs, err)
	}

	var agents []Agent
	hasFile := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !isCardFile(e) {
			continue
		}
		path := filepath.Join(cardDir, e.Name())
		hasFile[strings.TrimSuffix(e.Name(), ".json")] = true
		c, err := card.ParseFile(path, opts...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		st, ok := registry[c.ID]
		switch {
		case !ok:
			st = entry{Status: unlisted}
		case st.err != nil:
			errs = append(errs, st.err)
			continue
		}
		agents = append(agents, Agent{Card: c, Status: st.Status})
	}
	// Entries without a card: an invalid one is still worth reporting, and
	// a valid one is most likely a misspelt id, whose agent silently got
	// the default status instead.
	for _, id := range sortedIDs(registry) {
		switch {
		case hasFile[id]:
		case registry[id].err != nil:
			errs = append(errs, registry[id].err)
		default:
			errs = append(errs, fmt.Errorf("%s: %w: agent %q has no card; entry ignored",
				filepath.Join(dir, RegistryFile), ErrInvalidRegistry, id))
		}
	}
	return New(agents...), errs
}

func isCardFile(e fs.DirEntry) bool {
	name := e.Name()
	if strings.HasPrefix(name, ".") || name == RegistryFile || filepath.Ext(name) != ".json" {
		return false
	}
	if e.Type().IsRegular() {
		return true
	}
	// A symlink may point at a card; anything else (a directory named
	// x.json, a device) is not one.
	return e.Type()&fs.ModeSymlink != 0
}

// entry is one registry entry, or the error that makes it unusable.
type entry struct {
	Status
	err error
}

// readRegistry reads path. A missing file is an empty registry. err is set
// when the file as a whole is unusable; entry errors are kept per agent.
func readRegistry(path string) (map[string]entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRegistry, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRegistryBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrInvalidRegistry, err)
	}
	if len(data) > maxRegistryBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrInvalidRegistry, maxRegistryBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%s: %w: want a JSON object of agent entries", path, ErrInvalidRegistry)
	}
	out := make(map[string]entry, len(raw))
	for id, v := range raw {
		st, problem := parseEntry(v)
		if problem == "" && !card.ValidID(id) {
			problem = "id: want [a-z0-9._-]"
		}
		if problem != "" {
			err := fmt.Errorf("%s: %w: agent %q: %s; agent not loaded", path, ErrInvalidRegistry, id, problem)
			out[id] = entry{err: err}
			continue
		}
		out[id] = entry{Status: st}
	}
	return out, nil
}

// parseEntry reads {"health", "clearance", "external", "allowPrivate"}; a
// missing field takes its EntryDefault value, an unknown field is an error
// (a typo such as "clearence" must not silently become the default
// clearance).
func parseEntry(raw json.RawMessage) (Status, string) {
	var e struct {
		Health       *Health `json:"health"`
		Clearance    *string `json:"clearance"`
		External     *bool   `json:"external"`
		AllowPrivate *bool   `json:"allowPrivate"`
	}
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return Status{}, "want an object"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			want := "a string"
			if typ.Type.Kind() == reflect.Bool {
				want = "a boolean"
			}
			return Status{}, fmt.Sprintf("%s: want %s, got %s", typ.Field, want, typ.Value)
		}
		return Status{}, strings.TrimPrefix(err.Error(), "json: ")
	}
	// A missing field takes the default; a present one, even "", is
	// checked as written.
	st := EntryDefault
	if e.Health != nil {
		st.Health = *e.Health
	}
	if e.Clearance != nil {
		st.Clearance = *e.Clearance
	}
	if e.External != nil {
		st.External = *e.External
	}
	if e.AllowPrivate != nil {
		st.AllowPrivate = *e.AllowPrivate
	}
	if err := st.Validate(); err != nil {
		return Status{}, err.Error()
	}
	return st, ""
}

func sortedIDs(m map[string]entry) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
