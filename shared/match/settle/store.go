package settle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Memory is a Store in this process's memory, for a matcher used in
// process (tests, eval).
type Memory struct {
	mu   sync.Mutex
	recs map[string]Record
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{recs: map[string]Record{}} }

// Get implements Store.
func (m *Memory) Get(_ context.Context, caller, taskID string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[key(caller, taskID)]
	return r, ok, nil
}

// key is a record's key: task ids are per caller.
func key(caller, taskID string) string { return caller + "\x00" + taskID }

// Put implements Store.
func (m *Memory) Put(_ context.Context, rec Record) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key(rec.CallerID, rec.TaskID)
	if old, ok := m.recs[k]; ok {
		return old, nil
	}
	m.recs[k] = rec
	return rec, nil
}

// File is a Store in a JSON file, so that `skillmatch match --continue`
// works across invocations on one machine. Every Put rewrites the file
// (atomically, by rename); it is meant for a person's command line, not
// for a service (the decider keeps its records in a KV bucket).
type File struct {
	path string
	mu   sync.Mutex
}

// NewFile returns a store kept in path (created on the first Put).
func NewFile(path string) *File { return &File{path: path} }

// maxFileRecords bounds the file: the oldest records go first.
const maxFileRecords = 10_000

type fileRecords struct {
	Records []Record `json:"records"`
}

func (f *File) load() ([]Record, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("follow-up file: %w", err)
	}
	var fr fileRecords
	if err := json.Unmarshal(data, &fr); err != nil {
		return nil, fmt.Errorf("follow-up file %s: %w", f.path, err)
	}
	return fr.Records, nil
}

// Get implements Store.
func (f *File) Get(_ context.Context, caller, taskID string) (Record, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs, err := f.load()
	if err != nil {
		return Record{}, false, err
	}
	for _, r := range recs {
		if r.TaskID == taskID && r.CallerID == caller {
			return r, true, nil
		}
	}
	return Record{}, false, nil
}

// Put implements Store.
func (f *File) Put(_ context.Context, rec Record) (Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs, err := f.load()
	if err != nil {
		return Record{}, err
	}
	for _, r := range recs {
		if r.TaskID == rec.TaskID && r.CallerID == rec.CallerID {
			return r, nil
		}
	}
	recs = append(recs, rec)
	if len(recs) > maxFileRecords {
		recs = recs[len(recs)-maxFileRecords:]
	}
	data, err := json.MarshalIndent(fileRecords{Records: recs}, "", " ")
	if err != nil {
		return Record{}, err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return Record{}, fmt.Errorf("follow-up file: %w", err)
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return Record{}, fmt.Errorf("follow-up file: %w", err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return Record{}, fmt.Errorf("follow-up file: %w", err)
	}
	return rec, nil
}
