// Package remoteembed is a vector.Embedder over a model server's
// OpenAI-compatible /v1/embeddings API (Ollama, vLLM, Text Embeddings
// Inference, llama.cpp's server, OpenAI itself): texts go in batches, each
// request with a timeout and retries (package modelapi), and catalog texts
// are cached by content, so rebuilding an index after one card changed
// sends only that card's new texts.
package remoteembed

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Config configures an Embedder.
type Config struct {
	// Client posts to the embeddings endpoint (modelapi.Endpoint(base,
	// "embeddings")).
	Client modelapi.Client
	// Model is the model name the server knows ("nomic-embed-text",
	// "BAAI/bge-small-en-v1.5", ...).
	Model string
	// Dim is the vectors' length; 0: ask the server once, in New.
	Dim int
	// Batch is the most texts one request carries (default 64).
	Batch int
	// Cache is how many catalog texts' vectors are kept (default 100,000;
	// negative: none).
	Cache int
}

// Embedder is the remote embedder. It is safe for concurrent use.
type Embedder struct {
	cfg   Config
	id    string
	cache *lru
}

var (
	_ vector.Embedder         = (*Embedder)(nil)
	_ vector.DocumentEmbedder = (*Embedder)(nil)
)

// New returns the embedder; without Config.Dim it embeds one word to learn
// the dimension, so a server that is down fails here.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	if cfg.Client.URL == "" {
		return nil, errors.New("remote embedder: no URL")
	}
	if cfg.Model == "" {
		return nil, errors.New("remote embedder: no model name")
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Cache == 0 {
		cfg.Cache = 100_000
	}
	e := &Embedder{cfg: cfg}
	if cfg.Cache > 0 {
		e.cache = newLRU(cfg.Cache)
	}
	if e.cfg.Dim <= 0 {
		vs, err := e.post(ctx, []string{"dimension"}, 0)
		if err != nil {
			return nil, fmt.Errorf("remote embedder: learn the dimension (or give it): %w", err)
		}
		e.cfg.Dim = len(vs[0])
	}
	e.id = "openai:" + cfg.Model
	return e, nil
}

// ID implements vector.Embedder: "openai:" and the model name. The
// server's address is left out: the same model gives the same vectors
// wherever it runs.
func (e *Embedder) ID() string { return e.id }

// Dim implements vector.Embedder.
func (e *Embedder) Dim() int { return e.cfg.Dim }

// Embed implements vector.Embedder, in batches of Config.Batch. Queries
// come through here and are not cached: a task's text is the caller's and
// rarely repeats, so keeping it would cost memory and privacy for nothing.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.Batch {
		vs, err := e.post(ctx, texts[start:min(start+e.cfg.Batch, len(texts))], e.cfg.Dim)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// EmbedDocuments implements vector.DocumentEmbedder: catalog texts are
// looked up by content (SHA-256) first, and only the missing ones, each
// once, are sent.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if e.cache == nil {
		return e.Embed(ctx, texts)
	}
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missing []string
	want := map[[32]byte][]int{}
	for i, t := range texts {
		keys[i] = sha256.Sum256([]byte(t))
		if v, ok := e.cache.get(keys[i]); ok {
			out[i] = v
			continue
		}
		if _, seen := want[keys[i]]; !seen {
			missing = append(missing, t)
		}
		want[keys[i]] = append(want[keys[i]], i)
	}
	// Each batch is cached as it arrives: a build that fails half way
	// (server gone) resumes where it stopped next time.
	for start := 0; start < len(missing); start += e.cfg.Batch {
		batch := missing[start:min(start+e.cfg.Batch, len(missing))]
		vs, err := e.post(ctx, batch, e.cfg.Dim)
		if err != nil {
			return nil, err
		}
		for j, t := range batch {
			k := sha256.Sum256([]byte(t))
			e.cache.put(k, vs[j])
			for n, i := range want[k] {
				if n == 0 {
					out[i] = vs[j]
				} else {
					out[i] = append([]float32(nil), vs[j]...)
				}
			}
		}
	}
	return out, nil
}

// request and response are the OpenAI embeddings API's.
type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// ErrBadAnswer marks an embeddings answer that does not fit the request:
// missing, repeated or out-of-range indexes, vectors of the wrong length or
// not finite.
var ErrBadAnswer = errors.New("remote embedder: bad answer")

// post embeds one batch and checks the answer; dim 0 accepts any length
// (the dimension probe). Vectors come back unit length (zero stays zero),
// whatever the server does.
func (e *Embedder) post(ctx context.Context, texts []string, dim int) ([][]float32, error) {
	var resp response
	if err := e.cfg.Client.Post(ctx, request{Model: e.cfg.Model, Input: texts, EncodingFormat: "float"}, &resp); err != nil {
		return nil, fmt.Errorf("remote embedder: %w", err)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadAnswer, len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		switch {
		case d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil:
			return nil, fmt.Errorf("%w: index %d", ErrBadAnswer, d.Index)
		case len(d.Embedding) == 0 || dim > 0 && len(d.Embedding) != dim:
			return nil, fmt.Errorf("%w: vector of %d dimensions, want %d", ErrBadAnswer, len(d.Embedding), dim)
		}
		var n float64
		for _, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: vector is not finite", ErrBadAnswer)
			}
			n += float64(x) * float64(x)
		}
		if n > 0 {
			inv := float32(1 / math.Sqrt(n))
			for i := range d.Embedding {
				d.Embedding[i] *= inv
			}
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// lru is a fixed-size least-recently-used cache of vectors by content hash.
type lru struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used
	items map[[32]byte]*list.Element
}

type entry struct {
	key [32]byte
	vec []float32
}

func newLRU(n int) *lru {
	return &lru{max: n, order: list.New(), items: make(map[[32]byte]*list.Element)}
}

// get returns a copy: callers may keep or change what they get.
func (c *lru) get(k [32]byte) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return append([]float32(nil), el.Value.(*entry).vec...), true
}

func (c *lru) put(k [32]byte, v []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&entry{key: k, vec: append([]float32(nil), v...)})
	for c.order.Len() > c.max {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.items, el.Value.(*entry).key)
	}
}
