// Package weaviateindex is an index.Index served by Weaviate: the lexical
// and dense retrievers run in the Weaviate server, so a large catalog's
// retrieval work is shared by every replica, and the answers are the in-memory
// index's answers (index.Memory): the same BM25 and dense lists, fused by the
// same reciprocal rank fusion into the same shortlist.
//
// Layout. A catalog is stored in two collections that share a name prefix
// derived from the catalog name, a hash of the embedder id and a version
// hash of everything stored (layout, embedder, weights and a hash of the
// catalog's content, all also kept in each class description):
//
//	<prefix>_Skill  one object per skill: its description vector and its
//	                whole BM25 document (kind=description, exampleNo=-1)
//	<prefix>_Text   one object per example text: its vector and the example's
//	                terms (kind=example, exampleNo=j)
//
// Freshness. A changed catalog (or embedder, weights, layout) gets new
// collections under a new version name: New imports them and waits until
// Weaviate answers from them exactly (settle) before it returns, and an
// Index only ever queries the two collections of its own version, so a
// search is answered from one whole version of the catalog, never from a
// half-built or mixed one. New never deletes another version's collections
// (an older Index may still be serving them): Drop deletes an Index's own,
// and DropStale every other version of the same catalog and embedder.
//
// Every object carries agentId, skillId, key, docNo (catalog order),
// cardVersion and contentHash, and has a deterministic UUID (SHA-1 of its
// key). Vectors are the embedder's (vectorizer none, cosine distance).
//
// Why two collections and not one: Weaviate's BM25 takes N, the document
// count in the idf, from the number of objects in the collection
// (BM25Searcher.generateQueryTermsAndStats counts the objects bucket), so
// example objects beside the skill objects would change every idf and hence
// the BM25 order. With the skills alone in their collection, N is the number
// of skills, as in the in-memory index, and the examples collection gives the
// per-example BM25 of the in-memory index's example index (N = examples).
//
// BM25 equivalence. The in-memory index scores a skill with BM25F: a term's
// frequency is the weighted sum of its counts in the fields (name 3, tags 2,
// description 1.5, agent name 0.5, examples 1) and the document length the
// weighted sum of the field lengths. Weaviate's property boosts ("name^3")
// weight the frequency but not the length, and only take integer boosts, so
// they cannot reproduce it. Instead each skill object carries one searchable
// property, lex, made of the skill's analysed terms (analyze.Terms, the
// stemmer the in-memory index uses), each repeated s·w_f times, where s is
// the smallest integer making every s·w_f whole (2 for the defaults), with
// whitespace tokenization; the collection's k1 is s·k1. Then Weaviate's tf,
// length and average length are s times the in-memory ones and
// tf/(tf + s·k1·(1-b+b·dl/avgdl)) is unchanged, as is the idf: the order is
// the in-memory order. Weaviate returns the candidates; their exact scores,
// and every detail the reranker reads (cosines, centroid, example BM25, term
// weights), are computed here from the doc texts and vectors this process
// keeps, exactly as index.Memory computes them.
//
// Filters. Query.Allow is pushed down when Weaviate can express it compactly
// and exactly (docNo ContainsAny of at most Config.PushDownMax doc numbers, or
// an Or of at most Config.PushDownRuns docNo ranges); otherwise the lists are
// fetched deeper until enough allowed docs are found. Allow is always
// applied again to every result, so a push-down can never weaken it.
package weaviateindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/grpc"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Format is the version of the stored layout; bump it when the objects or
// the schema change, so old collections are rebuilt instead of misread.
const Format = 2

// Config says where Weaviate is and how to store the catalog.
type Config struct {
	// URL is Weaviate's REST endpoint, e.g. http://127.0.0.1:8080.
	URL string
	// GRPC is Weaviate's gRPC host:port; when set, imports use gRPC batches.
	GRPC string
	// Catalog names the catalog; it prefixes the collection names
	// (default "default").
	Catalog string
	// Tenant, when set, stores the catalog as a tenant of multi-tenant
	// collections instead of in collections of its own: many catalogs
	// (one per customer, say) of the same layout and embedder then share
	// two collections, each catalog version in its own tenant (its own
	// shard: BM25 statistics and vector index of its own, so answers
	// equal a dedicated collection's). 1-47 of [A-Za-z0-9_-].
	Tenant string
	// Weights are the BM25 field weights (default index.DefaultFieldWeights,
	// those of index.NewMemory). Each must be a multiple of 1/8.
	Weights *index.FieldWeights
	// CardVersion returns the card version of an agent, stored on its
	// objects (optional).
	CardVersion func(agentID string) string
	// BatchSize is the number of objects per import batch (default 500).
	BatchSize int
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// Retry bounds how long a call is retried on connection errors before
	// it fails (default 10 s; negative: no retry).
	Retry time.Duration
	// PushDownMax is the largest allowed set pushed down as a docNo
	// ContainsAny filter (default 1024); PushDownRuns the most docNo ranges
	// pushed down as an Or of ranges (default 64).
	PushDownMax, PushDownRuns int
	// Rebuild drops and re-imports the collections even when they already
	// hold this catalog.
	Rebuild bool
	// Settle bounds the wait after an import until Weaviate answers probe
	// queries exactly as the in-process statistics say it must (default
	// 5 min: 100,000 skills on 2 cores have needed more than 2). Right after a batch import, Weaviate's BM25 can miss the
	// newest objects until its memtables flush
	// (PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS).
	Settle time.Duration
	// Log, when set, gets one line each time Weaviate becomes unreachable
	// and one when it answers again.
	Log *zap.Logger
	// DropStaleAfter is how long after a Builder built an index it drops
	// the collections of the versions it built before, if that index is
	// still its newest then: long enough for every replica to have moved
	// to the new catalog and for searches started on the old one to
	// finish. Default DefaultDropStaleAfter; negative: never (see
	// DropStale).
	DropStaleAfter time.Duration

	health *health // shared by the indexes of one Builder
}

// Index is a catalog served by Weaviate. It is immutable once built and safe
// for concurrent searches.
type Index struct {
	cfg       Config
	client    *weaviate.Client
	skillCls  string
	textCls   string
	docs      []index.Doc
	emb       vector.Embedder
	dim       int
	lex       *bm25.Index   // the in-memory index's BM25 document per skill
	exLex     *bm25.Index   // each example alone, numbered like the vectors
	vs        index.Vectors // every doc's vectors and prototype, as index.Memory keeps them
	zero      []int         // docs with at least one zero vector (Weaviate stores none)
	maxResult int
	reused    bool
	version   string // the hash naming this version's collections (or tenant)
	prefix    string // the catalog's and embedder's name prefix
	tenant    string // this version's tenant; "" without Config.Tenant
	// The collections' descriptions, to create them again (restore).
	skillDesc, textDesc string
	restoring           atomic.Bool
	// retired: this process dropped the index (Drop, or its Builder after
	// a newer version); it must not import itself again.
	retired atomic.Bool
}

// DefaultDropStaleAfter is Config.DropStaleAfter unless set.
const DefaultDropStaleAfter = 10 * time.Minute

// Builder returns a constructor for match.WithIndex. Each index it builds
// replaces the previous one: after Config.DropStaleAfter, the collections
// of the versions this Builder built before are dropped, so that a catalog
// that changes all day does not pile up collections in Weaviate. Only its
// own earlier versions: a version another process is importing (a newer
// catalog it saw first) is never touched.
func Builder(cfg Config) func([]index.Doc, vector.Embedder) (index.Index, error) {
	if cfg.health == nil {
		cfg.health = &health{}
	}
	grace := cfg.DropStaleAfter
	if grace == 0 {
		grace = DefaultDropStaleAfter
	}
	var (
		mu     sync.Mutex
		newest *Index
		older  []*Index // built before newest, not dropped yet
	)
	dropOlder := func(x *Index) {
		mu.Lock()
		if newest != x {
			mu.Unlock()
			return // a newer index's own timer will do it
		}
		var stale []part
		for _, o := range older {
			if o.version != x.version {
				o.retired.Store(true)
				stale = append(stale, o.parts()...)
			}
		}
		older = nil
		mu.Unlock()
		if len(stale) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := x.drop(ctx, stale)
		if cfg.Log == nil {
			return
		}
		if err != nil {
			cfg.Log.Warn("stale weaviate collections not dropped", zap.Error(err))
			return
		}
		cfg.Log.Info("stale weaviate collections dropped", zap.Stringers("collections", stale),
			zap.String("serving", x.version))
	}
	return func(docs []index.Doc, emb vector.Embedder) (index.Index, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		x, err := New(ctx, cfg, docs, emb)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		if newest != nil {
			older = append(older, newest)
		}
		newest = x
		mu.Unlock()
		if grace > 0 {
			time.AfterFunc(grace, func() { dropOlder(x) })
		}
		return x, nil
	}
}

func (c *Config) defaults() error {
	if c.URL == "" {
		return errors.New("weaviate index: no URL")
	}
	if c.Catalog == "" {
		c.Catalog = "default"
	}
	if c.Tenant != "" && !tenantName.MatchString(c.Tenant) {
		return fmt.Errorf("%w: %q", ErrBadTenant, c.Tenant)
	}
	if c.Weights == nil {
		w := index.DefaultFieldWeights
		c.Weights = &w
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 500
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Retry == 0 {
		c.Retry = 10 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 5 * time.Minute
	}
	if c.PushDownMax <= 0 {
		c.PushDownMax = 1024
	}
	if c.PushDownRuns <= 0 {
		c.PushDownRuns = 64
	}
	if c.health == nil {
		c.health = &health{}
	}
	return nil
}

// New stores docs in Weaviate (unless the collections already hold exactly
// this catalog, embedder and layout) and returns the index. Doc numbers are
// positions in docs, as for index.NewMemory.
func New(ctx context.Context, cfg Config, docs []index.Doc, emb vector.Embedder) (*Index, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("weaviate index: bad URL %q", cfg.URL)
	}
	wc := weaviate.Config{Host: u.Host, Scheme: u.Scheme, Timeout: cfg.Timeout}
	if cfg.GRPC != "" {
		wc.GrpcConfig = &grpc.Config{Host: cfg.GRPC}
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("weaviate index: client: %w", err)
	}
	scale, err := weightScale(*cfg.Weights)
	if err != nil {
		return nil, err
	}
	x := &Index{
		cfg: cfg, client: client, docs: docs, emb: emb, dim: emb.Dim(),
		maxResult: 10000,
	}
	x.prefix = className(cfg.Catalog, emb.ID())
	if err := x.ready(ctx); err != nil {
		return nil, err
	}

	vecs, hashes, err := x.local(docs, emb)
	if err != nil {
		return nil, err
	}
	meta := classMeta{Format: Format, Embedder: emb.ID(), Dim: x.dim, Weights: *cfg.Weights,
		Scale: scale, Catalog: catalogHash(hashes), Docs: len(docs), Texts: len(x.vs.Owner) - len(docs)}
	x.version = meta.version()
	x.skillCls, x.textCls = x.prefix+"_V"+x.version+"_Skill", x.prefix+"_V"+x.version+"_Text"
	skillDesc, textDesc := meta.describe("skill"), meta.describe("text")
	if cfg.Tenant != "" {
		// The collections record the layout only; the tenant is the
		// catalog version.
		layout := meta
		layout.Catalog, layout.Docs, layout.Texts, layout.MultiTenant = "", 0, 0, true
		lv := layout.version()
		x.skillCls, x.textCls = x.prefix+"_T"+lv+"_Skill", x.prefix+"_T"+lv+"_Text"
		skillDesc, textDesc = layout.describe("skill"), layout.describe("text")
		x.tenant = cfg.Tenant + "-" + x.version
	}
	x.skillDesc, x.textDesc = skillDesc, textDesc
	keepSkill, err := x.current(ctx, x.skillCls, skillDesc, meta.Docs)
	if err != nil {
		return nil, err
	}
	keepText, err := x.current(ctx, x.textCls, textDesc, meta.Texts)
	if err != nil {
		return nil, err
	}
	if keepSkill && keepText && !cfg.Rebuild {
		x.reused = true
		return x, nil
	}
	if err := x.create(ctx, x.skillCls, skillDesc, float32(bm25.DefaultK1*float64(scale))); err != nil {
		return nil, err
	}
	if err := x.create(ctx, x.textCls, textDesc, bm25.DefaultK1); err != nil {
		return nil, err
	}
	if err := x.store(ctx, vecs, hashes, scale); err != nil {
		return nil, err
	}
	if err := x.settle(ctx); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		cls  string
		want int
	}{{x.skillCls, meta.Docs}, {x.textCls, meta.Texts}} {
		n, err := x.count(ctx, c.cls)
		if err != nil {
			return nil, err
		}
		if n != c.want {
			return nil, fmt.Errorf("weaviate index: %s holds %d objects after the import, want %d", c.cls, n, c.want)
		}
	}
	return x, nil
}

// Reused says whether New found the catalog already stored and skipped the
// import.
func (x *Index) Reused() bool { return x.reused }

// Classes returns the names of the skill and the text collections.
func (x *Index) Classes() (skill, text string) { return x.skillCls, x.textCls }

// Doc returns doc i.
func (x *Index) Doc(i int) *index.Doc { return &x.docs[i] }

// Len is the number of docs.
func (x *Index) Len() int { return len(x.docs) }

// Embedder returns the embedder the index was built with.
func (x *Index) Embedder() vector.Embedder { return x.emb }

// Version is the hash naming the collections of this index's catalog
// version.
func (x *Index) Version() string { return x.version }

// Drop deletes the index's own collections (with Config.Tenant: its own
// tenant) from Weaviate; other versions of the catalog (a newer Index's)
// are left alone. The index cannot search afterwards, nor can any other
// Index of the same version.
func (x *Index) Drop(ctx context.Context) error {
	x.retired.Store(true)
	return x.drop(ctx, x.parts())
}

// DropStale deletes the collections of every other version of this
// index's catalog and embedder (older catalog contents, older layouts),
// keeping this index's own, and returns the names deleted. Call it once no
// process serves an older version any more: an Index whose collections are
// gone fails its searches (it never answers from another version).
func (x *Index) DropStale(ctx context.Context) ([]string, error) {
	if x.tenant != "" {
		return x.dropStaleTenants(ctx)
	}
	var names []string
	err := x.retry(ctx, "list classes", func(ctx context.Context) error {
		s, err := x.client.Schema().Getter().Do(ctx)
		if err != nil {
			return err
		}
		names = names[:0]
		for _, c := range s.Classes {
			if c != nil {
				names = append(names, c.Class)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var stale []part
	var staleNames []string
	for _, n := range names {
		if n == x.skillCls || n == x.textCls {
			continue
		}
		// This version layout (<prefix>_V<hash>_Skill|Text) and the one
		// before versions (<prefix>_Skill|Text).
		rest, ok := strings.CutPrefix(n, x.prefix+"_")
		if !ok {
			continue
		}
		kind := rest
		if v, ok := strings.CutPrefix(rest, "V"); ok {
			h, k, found := strings.Cut(v, "_")
			if !found || len(h) != len(x.version) {
				continue
			}
			kind = k
		}
		if kind == "Skill" || kind == "Text" {
			stale = append(stale, part{cls: n})
			staleNames = append(staleNames, n)
		}
	}
	return staleNames, x.drop(ctx, stale)
}

// part is a collection, or one tenant of a multi-tenant collection.
type part struct{ cls, tenant string }

func (p part) String() string {
	if p.tenant == "" {
		return p.cls
	}
	return p.cls + "/" + p.tenant
}

// parts are the index's own collections (or tenants).
func (x *Index) parts() []part {
	return []part{{x.skillCls, x.tenant}, {x.textCls, x.tenant}}
}

func (x *Index) drop(ctx context.Context, parts []part) error {
	for _, p := range parts {
		err := x.retry(ctx, "delete "+p.String(), func(ctx context.Context) error {
			var err error
			if p.tenant != "" {
				err = x.client.Schema().TenantsDeleter().WithClassName(p.cls).WithTenants(p.tenant).Do(ctx)
			} else {
				err = x.client.Schema().ClassDeleter().WithClassName(p.cls).Do(ctx)
			}
			var ce *fault.WeaviateClientError
			if errors.As(err, &ce) && ce.StatusCode == 404 {
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// local analyses and embeds every text and builds what the index keeps in
// process (index.BuildStats, as index.Memory builds it). It returns each
// doc's vectors and content hash.
func (x *Index) local(docs []index.Doc, emb vector.Embedder) ([][][]float32, []string, error) {
	st, err := index.BuildStats(docs, emb, *x.cfg.Weights, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, nil, fmt.Errorf("weaviate index: %w", err)
	}
	x.lex, x.exLex, x.vs = st.Lex, st.ExLex, st.Vectors
	vecs, hashes := x.stored()
	for i, v := range vecs {
		if slices.ContainsFunc(v, isZero) {
			x.zero = append(x.zero, i)
		}
	}
	return vecs, hashes, nil
}

// stored is what the index stores in Weaviate: each doc's vectors and
// content hash.
func (x *Index) stored() ([][][]float32, []string) {
	vecs := make([][][]float32, len(x.docs))
	hashes := make([]string, len(x.docs))
	for i := range x.docs {
		vecs[i], hashes[i] = x.vs.DocVectors(i), contentHash(&x.docs[i])
	}
	return vecs, hashes
}

// weightScale is the smallest s in 1..8 making every weight times s whole.
func weightScale(w index.FieldWeights) (int, error) {
	ws := []float64{w.Name, w.Tags, w.Description, w.AgentName, w.Examples}
	for s := 1; s <= 8; s++ {
		ok := true
		for _, x := range ws {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("weaviate index: invalid field weight %v", x)
			}
			if v := x * float64(s); math.Abs(v-math.Round(v)) > 1e-9 {
				ok = false
			}
		}
		if ok {
			return s, nil
		}
	}
	return 0, fmt.Errorf("weaviate index: field weights %+v are not multiples of 1/8", w)
}

// lexText is a skill's BM25 document as Weaviate indexes it: every analysed
// term of each field repeated scale·weight times.
func lexText(d *index.Doc, w index.FieldWeights, scale int) string {
	var b strings.Builder
	add := func(text string, weight float64) {
		n := int(math.Round(weight * float64(scale)))
		for _, t := range analyze.Terms(text) {
			for range n {
				b.WriteString(t)
				b.WriteByte(' ')
			}
		}
	}
	add(d.Name, w.Name)
	add(joinAll(d.Tags), w.Tags)
	add(d.Description, w.Description)
	add(d.AgentName, w.AgentName)
	add(joinAll(d.Examples), w.Examples)
	return strings.TrimSpace(b.String())
}

func termsText(text string) string { return strings.Join(analyze.Terms(text), " ") }

// contentHash identifies everything of a doc the index stores.
func contentHash(d *index.Doc) string {
	h := sha256.New()
	put := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
	put(d.Key)
	put(d.AgentID)
	put(d.SkillID)
	put(d.AgentName)
	put(d.Name)
	put(d.Description)
	for _, group := range [][]string{d.Tags, d.Examples, d.InputModes, d.OutputModes} {
		fmt.Fprintf(h, "[%d]", len(group))
		for _, s := range group {
			put(s)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func catalogHash(hashes []string) string {
	h := sha256.New()
	for _, s := range hashes {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// className is "Skillmatch" + the catalog name's letters and digits + the
// first 8 hex digits of the SHA-256 of the embedder id.
func className(catalog, embedderID string) string {
	var b strings.Builder
	b.WriteString("Skillmatch_")
	up := true
	for _, r := range catalog {
		switch {
		case r >= 'a' && r <= 'z':
			if up {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			up = false
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	sum := sha256.Sum256([]byte(embedderID))
	b.WriteString("_E")
	b.WriteString(hex.EncodeToString(sum[:4]))
	return b.String()
}

// classMeta is what a class description records about its content.
type classMeta struct {
	Kind     string             `json:"kind"`
	Format   int                `json:"format"`
	Embedder string             `json:"embedder"`
	Dim      int                `json:"dim"`
	Weights  index.FieldWeights `json:"weights"`
	Scale    int                `json:"scale"`
	Catalog  string             `json:"catalogHash,omitempty"`
	// MultiTenant marks the collections of Config.Tenant, which hold
	// catalogs as tenants and record only the layout.
	MultiTenant bool `json:"multiTenant,omitempty"`
	Docs        int  `json:"docs"`
	Texts       int  `json:"texts"`
}

// version is the first 16 hex digits of the SHA-256 of everything the
// description records but the kind.
func (m classMeta) version() string {
	m.Kind = ""
	b, _ := json.Marshal(m)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func (m classMeta) describe(kind string) string {
	m.Kind = kind
	b, _ := json.Marshal(m)
	return "skillmatch " + string(b)
}

func objectID(key string) string {
	return uuid.NewSHA1(uuidSpace, []byte(key)).String()
}

// uuidSpace is the namespace of every object UUID.
var uuidSpace = uuid.MustParse("9b0f6f53-5d1c-4c4e-9a55-6b2f2a1d7c10")

func joinAll(ss []string) string { return strings.Join(ss, "\n") }

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

var _ index.Index = (*Index)(nil)
