package pipeline

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Snapshots holds the matcher the retriever, reranker and decider of one
// process match with. A deployment where the stages run as separate
// services gives each its own Snapshots over the same catalog: the
// retriever and the reranker pass doc numbers and check that their
// catalogs agree (Fingerprint).
//
// The matcher can be swapped while messages are being handled
// (SetMatcher, or WatchCatalog): a handler works on the snapshot it loaded
// at its start, and the reranker and decider keep the last few snapshots,
// so a task shortlisted just before a catalog change finishes on the
// catalog it was shortlisted over.
type Snapshots struct {
	cur    atomic.Pointer[snapshot]
	mu     sync.Mutex // serialises SetMatcher
	recent atomic.Pointer[[]*snapshot]
}

// snapshot is one matcher and the name of its catalog.
type snapshot struct {
	m           *match.Matcher
	fingerprint string
}

// keepSnapshots is how many catalog snapshots the reranker and decider
// can still serve after a change (the current one included).
const keepSnapshots = 4

// NewSnapshots holds m (nil: no matcher until SetMatcher or WatchCatalog
// sets one; tasks wait for it).
func NewSnapshots(m *match.Matcher) *Snapshots {
	s := &Snapshots{}
	if m != nil {
		s.SetMatcher(m)
	}
	return s
}

// SetMatcher swaps in a matcher (a new catalog snapshot) and returns its
// fingerprint. Handlers already running finish on the matcher they
// started with.
func (s *Snapshots) SetMatcher(m *match.Matcher) string {
	snap := &snapshot{m: m, fingerprint: SnapshotFingerprint(m)}
	s.mu.Lock()
	defer s.mu.Unlock()
	var list []*snapshot
	if old := s.recent.Load(); old != nil {
		for _, o := range *old {
			if o.fingerprint != snap.fingerprint {
				list = append(list, o)
			}
		}
	}
	list = append(list, snap)
	if len(list) > keepSnapshots {
		list = list[len(list)-keepSnapshots:]
	}
	s.recent.Store(&list)
	s.cur.Store(snap)
	return snap.fingerprint
}

// Matcher returns the current matcher (nil before the first).
func (s *Snapshots) Matcher() *match.Matcher {
	if c := s.cur.Load(); c != nil {
		return c.m
	}
	return nil
}

// Fingerprint names the catalog snapshot new work starts on.
func (s *Snapshots) Fingerprint() string {
	if c := s.cur.Load(); c != nil {
		return c.fingerprint
	}
	return ""
}

// errNoCatalog is transient: a process watching the catalog bucket has
// not built its first matcher yet.
var errNoCatalog = errors.New("no catalog loaded yet")

// current is the snapshot new work starts on.
func (s *Snapshots) current() (*snapshot, error) {
	if c := s.cur.Load(); c != nil {
		return c, nil
	}
	return nil, errNoCatalog
}

// snapshotFor is the snapshot with the given fingerprint, the current one
// or a recent one; nil if there is none.
func (s *Snapshots) snapshotFor(fp string) *snapshot {
	if c := s.cur.Load(); c != nil && c.fingerprint == fp {
		return c
	}
	if l := s.recent.Load(); l != nil {
		for _, o := range *l {
			if o.fingerprint == fp {
				return o
			}
		}
	}
	return nil
}

// Ready says whether the current snapshot can shortlist now: a catalog is
// loaded and its index answers (an index.Readier, such as the Weaviate
// index, is asked; the in-memory index always answers).
func (s *Snapshots) Ready(ctx context.Context) error {
	snap, err := s.current()
	if err != nil {
		return err
	}
	if r, ok := snap.m.Index().(index.Readier); ok {
		return r.Ready(ctx)
	}
	return nil
}
