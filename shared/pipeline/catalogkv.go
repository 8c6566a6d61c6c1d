package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// bucketHistory is how many revisions of each key the catalog and model
// buckets keep (the watchers read only the latest; the rest is for an
// operator's audit).
const bucketHistory = 5

// setupBucket creates a KV bucket, or updates it to this config: the
// streams' storage and replicas, bucketHistory revisions unless kvc says.
func setupBucket(ctx context.Context, js jetstream.JetStream, cfg Config, what string, kvc jetstream.KeyValueConfig) error {
	if kvc.History == 0 {
		kvc.History = bucketHistory
	}
	kvc.Storage, kvc.Replicas = cfg.Storage, cfg.Replicas
	if _, err := js.CreateOrUpdateKeyValue(ctx, kvc); err != nil {
		return fmt.Errorf("pipeline: %s bucket %s: %w", what, kvc.Bucket, err)
	}
	return nil
}

// openBucket opens a KV bucket, def when bucket is "".
func openBucket(ctx context.Context, js jetstream.JetStream, what, bucket, def string) (jetstream.KeyValue, error) {
	if bucket == "" {
		bucket = def
	}
	kv, err := js.KeyValue(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("pipeline: %s bucket %s: %w", what, bucket, err)
	}
	return kv, nil
}

// setupCatalog creates the catalog bucket, or updates it to this config.
func setupCatalog(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	return setupBucket(ctx, js, cfg, "catalog", jetstream.KeyValueConfig{Bucket: cfg.CatalogBucket,
		Description: "skillmatch agent cards: key = agent id, value = wire.CatalogEntry"})
}

// CatalogKV opens the catalog bucket (wire.BucketCatalog if bucket is "").
func CatalogKV(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.KeyValue, error) {
	return openBucket(ctx, js, "catalog", bucket, wire.BucketCatalog)
}

// CardFile is one card to put in the catalog: its agent id, its JSON as
// given, the card as card.Parse read it, and the registry's status when
// one was given.
type CardFile struct {
	ID     string
	Path   string
	Data   []byte
	Card   *card.Card
	Status *catalog.Status
}

// ReadCards reads the cards at path: a catalog folder (as catalog.LoadDir
// reads it, registry.json included) or a single card file (id = file name
// without .json). Every card is checked with card.Parse; a card that fails
// is left out and its error, naming the file, returned with the rest.
func ReadCards(path string) ([]CardFile, []error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, []error{err}
	}
	if !fi.IsDir() {
		c, err := card.ParseFile(path)
		if err != nil {
			return nil, []error{err}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, []error{err}
		}
		return []CardFile{{ID: c.ID, Path: path, Data: data, Card: c}}, nil
	}
	cat, errs := catalog.LoadDir(path)
	cardDir := filepath.Join(path, "cards")
	if fi, err := os.Stat(cardDir); err != nil || !fi.IsDir() {
		cardDir = path
	}
	var out []CardFile
	for _, a := range cat.Agents {
		p := filepath.Join(cardDir, a.Card.ID+".json")
		data, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		st := a.Status
		out = append(out, CardFile{ID: a.Card.ID, Path: p, Data: data, Card: a.Card, Status: &st})
	}
	return out, errs
}

// PutCard checks a card (wire.NewCatalogEntry: card.Parse and the status)
// and puts it in the catalog bucket under its agent id. A card whose
// entry is already the bucket's current value is not put again (changed is
// false), so reloading a folder does not make every watcher rebuild. A nil
// status keeps the agent's current status (the default for a new agent),
// less its signature verdict when the card's content changes: a verdict
// holds for the card it was made on only.
func PutCard(ctx context.Context, kv jetstream.KeyValue, id string, cardJSON []byte, st *catalog.Status) (rev uint64, changed bool, err error) {
	cur, err := kv.Get(ctx, id)
	if err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, false, fmt.Errorf("pipeline: catalog get %s: %w", id, err)
	}
	if st == nil && cur != nil {
		// No status given: keep the one the agent has.
		var old wire.CatalogEntry
		if json.Unmarshal(cur.Value(), &old) == nil && old.Status != nil {
			kept := *old.Status
			if !sameJSON(old.Card, cardJSON) {
				kept.Signature = catalog.Signature{}
			}
			st = &kept
		}
	}
	val, err := wire.NewCatalogEntry(id, cardJSON, st)
	if err != nil {
		return 0, false, err
	}
	if cur != nil && bytes.Equal(cur.Value(), val) {
		return cur.Revision(), false, nil
	}
	rev, err = kv.Put(ctx, id, val)
	if err != nil {
		return 0, false, fmt.Errorf("pipeline: catalog put %s: %w", id, err)
	}
	return rev, true, nil
}

// sameJSON reports whether two JSON texts are equal up to insignificant
// whitespace (the bucket stores a card compacted).
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// GetCard returns an agent's current entry in the catalog bucket: the card
// JSON as stored and its status (nil when the entry has none). An id the
// bucket does not hold is ErrNoAgent.
func GetCard(ctx context.Context, kv jetstream.KeyValue, id string) (cardJSON []byte, st *catalog.Status, err error) {
	cur, err := kv.Get(ctx, id)
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return nil, nil, fmt.Errorf("%w: %q", ErrNoAgent, id)
		}
		return nil, nil, fmt.Errorf("pipeline: catalog get %s: %w", id, err)
	}
	var e wire.CatalogEntry
	if err := json.Unmarshal(cur.Value(), &e); err != nil {
		return nil, nil, fmt.Errorf("pipeline: catalog entry %s: %w", id, err)
	}
	return e.Card, e.Status, nil
}

// ErrNoAgent is returned by RemoveCard for an id the catalog does not hold.
var ErrNoAgent = errors.New("no such agent in the catalog")

// RemoveCard deletes an agent from the catalog bucket.
func RemoveCard(ctx context.Context, kv jetstream.KeyValue, id string) error {
	if _, err := kv.Get(ctx, id); err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return fmt.Errorf("%w: %q", ErrNoAgent, id)
		}
		return fmt.Errorf("pipeline: catalog get %s: %w", id, err)
	}
	if err := kv.Delete(ctx, id); err != nil {
		return fmt.Errorf("pipeline: catalog delete %s: %w", id, err)
	}
	return nil
}

// LoadCatalogKV reads the bucket's current catalog. An entry that does not
// decode is left out, with its error. rev is the bucket revision read.
func LoadCatalogKV(ctx context.Context, kv jetstream.KeyValue) (cat *catalog.Catalog, rev uint64, errs []error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return catalog.New(), 0, []error{err}
	}
	defer w.Stop() //nolint:errcheck
	st := catalogState{agents: map[string]catalog.Agent{}}
	for {
		select {
		case <-ctx.Done():
			return catalog.New(), 0, []error{ctx.Err()}
		case e, ok := <-w.Updates():
			if !ok {
				return catalog.New(), 0, []error{errors.New("pipeline: catalog watch closed")}
			}
			if e == nil {
				return st.catalog(), st.rev, st.errs
			}
			st.apply(e)
		}
	}
}

// catalogState is the catalog bucket's current state as decoded agents.
type catalogState struct {
	agents map[string]catalog.Agent
	rev    uint64
	errs   []error // bad entries since the last take
}

// apply applies one bucket entry. A put that does not decode removes the
// agent: every watcher derives its catalog from the bucket's current
// values only, so replicas started before and after the bad put agree.
func (s *catalogState) apply(e jetstream.KeyValueEntry) {
	s.rev = max(s.rev, e.Revision())
	switch e.Operation() {
	case jetstream.KeyValuePut:
		a, err := wire.DecodeCatalogEntry(e.Key(), e.Value())
		if err != nil {
			delete(s.agents, e.Key())
			s.errs = append(s.errs, fmt.Errorf("revision %d: %w", e.Revision(), err))
			return
		}
		s.agents[e.Key()] = a
	default: // delete, purge
		delete(s.agents, e.Key())
	}
}

func (s *catalogState) catalog() *catalog.Catalog {
	agents := make([]catalog.Agent, 0, len(s.agents))
	for _, a := range s.agents {
		agents = append(agents, a)
	}
	return catalog.New(agents...) // sorts by id
}

// BuildFunc builds a matcher for a catalog snapshot; every replica of a
// stage must build with the same options (model, policy) so that their
// fingerprints agree.
type BuildFunc func(*catalog.Catalog) (*match.Matcher, error)

// CatalogWatch keeps a Snapshots' matcher built on the catalog bucket.
type CatalogWatch struct {
	applied atomic.Uint64
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
}

// Revision is the last bucket revision the stages' matcher reflects.
func (w *CatalogWatch) Revision() uint64 { return w.applied.Load() }

// Stop stops watching; the stages keep their last matcher.
func (w *CatalogWatch) Stop() {
	w.once.Do(func() {
		w.cancel()
		<-w.done
	})
}

// WatchOption configures WatchCatalog.
type WatchOption func(*watchConfig)

type watchConfig struct {
	exkv    jetstream.KeyValue
	catalog string
	build   func(*catalog.Catalog, map[string][]string) (*match.Matcher, error)
}

// WithLearnedExamples makes the watch also follow the catalog's learned
// examples in the examples bucket kv (catalogBucket names the catalog, as
// for NewExamples) and build each matcher with build, given the catalog
// and those examples (skill key to texts), instead of the watch's
// BuildFunc: a learned example is indexed as soon as it is stored. A nil
// kv changes nothing.
func WithLearnedExamples(kv jetstream.KeyValue, catalogBucket string, build func(*catalog.Catalog, map[string][]string) (*match.Matcher, error)) WatchOption {
	if kv == nil {
		return func(*watchConfig) {} // no learned examples
	}
	if catalogBucket == "" {
		catalogBucket = wire.BucketCatalog
	}
	return func(c *watchConfig) { c.exkv, c.catalog, c.build = kv, catalogBucket, build }
}

// WatchCatalog builds the stages' matcher from the catalog bucket and
// rebuilds it whenever a card is added, replaced (a new revision) or
// deleted, swapping it in atomically (SetMatcher): messages being handled
// finish on the matcher they started with. Bursts of changes are applied
// together. An entry that is not a valid card is skipped with a logged
// reason (and removes that agent); the stage keeps going. It returns once
// the bucket's current state is loaded (an empty bucket gives an empty
// catalog, on which every task is abstained). With WithLearnedExamples
// a change of the learned examples rebuilds it too.
func (s *Snapshots) WatchCatalog(ctx context.Context, kv jetstream.KeyValue, build BuildFunc, log *zap.Logger, opts ...WatchOption) (*CatalogWatch, error) {
	if log == nil {
		log = zap.NewNop()
	}
	var wc watchConfig
	for _, o := range opts {
		o(&wc)
	}
	wctx, cancel := context.WithCancel(context.Background())
	kw, err := kv.WatchAll(wctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("pipeline: watch catalog %s: %w", kv.Bucket(), err)
	}
	// exUpdates stays nil (never ready) without learned examples.
	var exUpdates <-chan jetstream.KeyValueEntry
	exInitial := false
	ex := examplesState{catalog: wc.catalog, ex: map[string][]string{}}
	if wc.exkv != nil {
		ew, err := wc.exkv.WatchFiltered(wctx, []string{wire.ExamplesPrefix(wc.catalog)})
		if err != nil {
			cancel()
			_ = kw.Stop()
			return nil, fmt.Errorf("pipeline: watch learned examples %s: %w", wc.exkv.Bucket(), err)
		}
		go func() { <-wctx.Done(); _ = ew.Stop() }()
		exUpdates, exInitial = ew.Updates(), true
	}
	w := &CatalogWatch{cancel: cancel, done: make(chan struct{})}
	st := catalogState{agents: map[string]catalog.Agent{}}
	ready := make(chan error, 1)
	rebuild := func() error {
		for _, e := range append(st.errs, ex.errs...) {
			log.Warn("catalog entry skipped", zap.String("reason", e.Error()))
		}
		st.errs, ex.errs = nil, nil
		cat := st.catalog()
		t0 := time.Now()
		var m *match.Matcher
		var err error
		if wc.build != nil {
			m, err = wc.build(cat, ex.snapshot())
		} else {
			m, err = build(cat)
		}
		if err != nil {
			log.Error("catalog not rebuilt; keeping the previous one", zap.Uint64("revision", st.rev), zap.Error(err))
			return err
		}
		old := s.Fingerprint()
		fp := s.SetMatcher(m)
		w.applied.Store(st.rev)
		if fp != old {
			log.Info("catalog loaded", zap.Uint64("revision", st.rev), zap.Int("agents", len(cat.Agents)),
				zap.Int("skills", len(cat.Skills())), zap.String("fingerprint", fp), zap.Duration("build", time.Since(t0)))
		}
		return nil
	}
	go func() {
		defer close(w.done)
		defer kw.Stop() //nolint:errcheck
		catInitial := true
		initial := func() bool { return catInitial || exInitial }
		for {
			var e jetstream.KeyValueEntry
			var ok, fromEx bool
			select {
			case <-wctx.Done():
				if initial() {
					ready <- wctx.Err()
				}
				return
			case e, ok = <-kw.Updates():
			case e, ok = <-exUpdates:
				fromEx = true
			}
			if !ok {
				if initial() {
					ready <- errors.New("pipeline: catalog watch closed")
				}
				return
			}
			if e == nil { // end of the initial values
				wasInitial := initial()
				if fromEx {
					exInitial = false
				} else {
					catInitial = false
				}
				if wasInitial && !initial() {
					ready <- rebuild()
				}
				continue
			}
			if fromEx {
				ex.apply(e)
			} else {
				st.apply(e)
			}
			if initial() {
				continue
			}
			// Take whatever else is already waiting, then rebuild once.
		drain:
			for {
				select {
				case e, ok := <-kw.Updates():
					if !ok {
						break drain
					}
					if e != nil {
						st.apply(e)
					}
				case e, ok := <-exUpdates:
					if !ok {
						break drain
					}
					if e != nil {
						ex.apply(e)
					}
				default:
					break drain
				}
			}
			_ = rebuild()
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			w.Stop()
			return nil, err
		}
		return w, nil
	case <-ctx.Done():
		w.Stop()
		return nil, ctx.Err()
	}
}

// allowAtomicBatches lets a bucket's stream take atomic batches (a KV
// bucket's config has no such setting, its stream's has), for the records
// the deciders group-commit.
func allowAtomicBatches(ctx context.Context, js jetstream.JetStream, what, bucket string) error {
	name := "KV_" + bucket
	st, err := js.Stream(ctx, name)
	if err != nil {
		return fmt.Errorf("pipeline: %s bucket stream %s: %w", what, name, err)
	}
	sc := st.CachedInfo().Config
	if sc.AllowAtomicPublish {
		return nil
	}
	sc.AllowAtomicPublish = true
	if _, err := js.UpdateStream(ctx, sc); err != nil {
		return fmt.Errorf("pipeline: %s bucket stream %s: allow atomic batches: %w", what, name, err)
	}
	return nil
}
