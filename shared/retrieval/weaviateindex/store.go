package weaviateindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/batch"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/schema"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// ErrUnreachable wraps every failure to reach Weaviate after the retries.
// It wraps index.ErrUnavailable, which the pipeline's retriever holds
// deliveries on.
var ErrUnreachable = fmt.Errorf("weaviate unreachable (%w)", index.ErrUnavailable)

// ready waits (up to Config.Retry) for Weaviate to answer ready.
func (x *Index) ready(ctx context.Context) error { return x.readyFor(ctx, x.cfg.Retry) }

// readyFor is ready with a retry budget of its own (negative: one attempt).
func (x *Index) readyFor(ctx context.Context, budget time.Duration) error {
	return x.retryFor(ctx, "ready check", budget, func(ctx context.Context) error {
		ok, err := x.client.Misc().ReadyChecker().Do(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return errNotReady
		}
		return nil
	})
}

var errNotReady = errors.New("not ready")

// retry runs f, retrying with exponential backoff for up to Config.Retry
// while the error is a connection error (or a 429/5xx, or not ready).
// A connection error that outlasts the retries is wrapped in ErrUnreachable.
func (x *Index) retry(ctx context.Context, what string, f func(context.Context) error) error {
	return x.retryFor(ctx, what, x.cfg.Retry, f)
}

// retryFor is retry with a budget of its own (negative: one attempt). The
// outcome updates the reachability state: a success marks Weaviate up, a
// failure to reach it marks it down.
func (x *Index) retryFor(ctx context.Context, what string, budget time.Duration, f func(context.Context) error) error {
	err := x.attempts(ctx, what, budget, f)
	switch {
	case err == nil:
		x.cfg.health.up(x.cfg.Log, x.cfg.URL)
	case errors.Is(err, ErrUnreachable):
		x.cfg.health.down(x.cfg.Log, x.cfg.URL, err)
	}
	return err
}

func (x *Index) attempts(ctx context.Context, what string, budget time.Duration, f func(context.Context) error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = 2 * time.Second
	b.MaxElapsedTime = max(budget, 0)
	var last error
	op := func() error {
		rctx, cancel := context.WithTimeout(ctx, x.cfg.Timeout)
		defer cancel()
		err := f(rctx)
		if err == nil {
			return nil
		}
		last = err
		if ctx.Err() != nil || !transient(err) {
			return backoff.Permanent(err)
		}
		return err
	}
	var bo backoff.BackOff = b
	if budget < 0 {
		bo = &backoff.StopBackOff{}
	}
	err := backoff.Retry(op, backoff.WithContext(bo, ctx))
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("weaviate %s: %w (last error: %v)", what, ctx.Err(), last)
	}
	if last != nil && transient(last) {
		return fmt.Errorf("weaviate %s at %s: %w: %v", what, x.cfg.URL, ErrUnreachable, last)
	}
	return fmt.Errorf("weaviate %s: %w", what, err)
}

// transient says whether err is worth retrying: no connection, a reset
// connection, a timeout, a 429 or a 5xx.
func transient(err error) bool {
	if errors.Is(err, errNotReady) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ce *fault.WeaviateClientError
	if errors.As(err, &ce) {
		if ce.StatusCode == 429 || ce.StatusCode >= 500 {
			return true
		}
		if ce.DerivedFromError != nil {
			return transient(ce.DerivedFromError)
		}
		if ce.StatusCode == 0 {
			return true // no response at all
		}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return true
	}
	// gRPC reports a lost connection as status Unavailable.
	msg := err.Error()
	return strings.Contains(msg, "code = Unavailable") || strings.Contains(msg, "connection refused")
}

// current says whether cls exists holding exactly what desc describes and
// want objects; a class that exists with anything else is dropped.
func (x *Index) current(ctx context.Context, cls, desc string, want int) (bool, error) {
	var exists bool
	err := x.retry(ctx, "class check "+cls, func(ctx context.Context) error {
		var err error
		exists, err = x.client.Schema().ClassExistenceChecker().WithClassName(cls).Do(ctx)
		return err
	})
	if err != nil || !exists {
		return false, err
	}
	var got string
	err = x.retry(ctx, "get class "+cls, func(ctx context.Context) error {
		c, err := x.client.Schema().ClassGetter().WithClassName(cls).Do(ctx)
		if err == nil {
			got = c.Description
		}
		return err
	})
	if err != nil {
		return false, err
	}
	if x.tenant != "" {
		return x.currentTenant(ctx, cls, desc, got, want)
	}
	if got == desc && !x.cfg.Rebuild {
		n, err := x.count(ctx, cls)
		if err != nil {
			return false, err
		}
		if n == want {
			return true, nil
		}
		if n < want {
			// An import of this very version was cut short (or runs in
			// another process right now): the objects have deterministic
			// ids, so importing again completes it without deleting what
			// another importer wrote.
			return false, nil
		}
	}
	err = x.retry(ctx, "delete class "+cls, func(ctx context.Context) error {
		return x.client.Schema().ClassDeleter().WithClassName(cls).Do(ctx)
	})
	return false, err
}

// create makes a collection: the key fields filterable, terms searchable
// with whitespace tokenization and BM25 parameters (k1, 0.75), one named
// cosine vector "text", no vectorizer, no autoschema surprises.
func (x *Index) create(ctx context.Context, cls, desc string, k1 float32) error {
	keyword := func(name string) map[string]any {
		return map[string]any{"name": name, "dataType": []string{"text"}, "tokenization": "field",
			"indexFilterable": true, "indexSearchable": false}
	}
	def := map[string]any{
		"class":       cls,
		"description": desc,
		"properties": []any{
			keyword("key"), keyword("agentId"), keyword("skillId"), keyword("kind"),
			keyword("cardVersion"), keyword("contentHash"),
			map[string]any{"name": "docNo", "dataType": []string{"int"}, "indexFilterable": true, "indexRangeFilters": true},
			map[string]any{"name": "exampleNo", "dataType": []string{"int"}, "indexFilterable": true},
			map[string]any{"name": "text", "dataType": []string{"text"}, "indexFilterable": false, "indexSearchable": false},
			map[string]any{"name": "terms", "dataType": []string{"text"}, "tokenization": "whitespace",
				"indexFilterable": false, "indexSearchable": true},
		},
		"invertedIndexConfig": map[string]any{
			"bm25":      map[string]any{"k1": k1, "b": 0.75},
			"stopwords": map[string]any{"preset": "none"},
		},
		"vectorConfig": map[string]any{
			"text": map[string]any{
				"vectorizer":        map[string]any{"none": map[string]any{}},
				"vectorIndexType":   "hnsw",
				"vectorIndexConfig": map[string]any{"distance": "cosine"},
			},
		},
	}
	if x.tenant != "" {
		def["multiTenancyConfig"] = map[string]any{"enabled": true}
	}
	class, err := decodeAs(argOf((*schema.ClassCreator).WithClass), def)
	if err != nil {
		return fmt.Errorf("weaviate index: class %s: %w", cls, err)
	}
	err = x.retry(ctx, "create class "+cls, func(ctx context.Context) error {
		err := x.client.Schema().ClassCreator().WithClass(class).Do(ctx)
		if err != nil && strings.Contains(err.Error(), "already exists") {
			return nil // an earlier attempt, or another catalog, made it
		}
		return err
	})
	if err != nil || x.tenant == "" {
		return err
	}
	return x.createTenant(ctx, cls)
}

// store writes one object per skill and one per example, in batches,
// checking every object's result.
func (x *Index) store(ctx context.Context, vecs [][][]float32, hashes []string, scale int) error {
	// Each object is kept as a closure adding it to a batcher: Do empties
	// the batcher, and a retried batch must send the same objects again.
	var adds []func(*batch.ObjectsBatcher)
	var keys []string
	flush := func() error {
		if len(adds) == 0 {
			return nil
		}
		err := x.retry(ctx, "batch import", func(ctx context.Context) error {
			b := x.client.Batch().ObjectsBatcher()
			for _, add := range adds {
				add(b)
			}
			resp, err := b.Do(ctx)
			if err != nil {
				return err
			}
			if len(resp) != len(adds) {
				return fmt.Errorf("batch of %d objects answered %d results", len(adds), len(resp))
			}
			var failed []string
			for i := range resp {
				r := resp[i].Result
				if r == nil || r.Errors == nil || len(r.Errors.Error) == 0 {
					continue
				}
				var msgs []string
				for _, e := range r.Errors.Error {
					if e != nil {
						msgs = append(msgs, e.Message)
					}
				}
				failed = append(failed, keys[i]+": "+strings.Join(msgs, "; "))
			}
			if len(failed) > 0 {
				return fmt.Errorf("%d of %d objects failed, first: %s", len(failed), len(adds), failed[0])
			}
			return nil
		})
		adds, keys = adds[:0:0], keys[:0:0]
		return err
	}
	add := func(cls, key string, props map[string]any, v []float32) error {
		o := map[string]any{"class": cls, "id": objectID(key), "properties": props}
		if x.tenant != "" {
			o["tenant"] = x.tenant
		}
		if !isZero(v) {
			o["vectors"] = map[string]any{"text": v}
		}
		obj, err := decodeAs(argOfVariadic((*batch.ObjectsBatcher).WithObjects), o)
		if err != nil {
			return fmt.Errorf("weaviate index: object %s: %w", key, err)
		}
		adds = append(adds, func(b *batch.ObjectsBatcher) { b.WithObjects(obj) })
		keys = append(keys, key)
		if len(adds) >= x.cfg.BatchSize {
			return flush()
		}
		return nil
	}
	w := *x.cfg.Weights
	for i := range x.docs {
		d := &x.docs[i]
		version := ""
		if x.cfg.CardVersion != nil {
			version = x.cfg.CardVersion(d.AgentID)
		}
		props := func(kind string, exampleNo int, text, terms string) map[string]any {
			return map[string]any{
				"key": d.Key, "agentId": d.AgentID, "skillId": d.SkillID, "kind": kind,
				"cardVersion": version, "contentHash": hashes[i], "docNo": i, "exampleNo": exampleNo,
				"text": text, "terms": terms,
			}
		}
		if err := add(x.skillCls, d.Key+"#description",
			props("description", -1, index.DescriptionText(d), lexText(d, w, scale)), vecs[i][0]); err != nil {
			return err
		}
		for j, ex := range d.Examples {
			if err := add(x.textCls, fmt.Sprintf("%s#example/%d", d.Key, j),
				props("example", j, ex, termsText(ex)), vecs[i][j+1]); err != nil {
				return err
			}
		}
	}
	return flush()
}

// argOf names, through a builder method's signature, the type of its
// argument: the client's builders take types of the server module
// (github.com/weaviate/weaviate/entities/models), which must stay out of
// go.mod, so this package never names them.
func argOf[R, A, B any](func(R, A) B) (a A) { return a }

// decodeAs converts v into a value of A's type through JSON.
func decodeAs[A any](_ A, v any) (A, error) {
	var out A
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}

// count returns the number of objects in cls.
func (x *Index) count(ctx context.Context, cls string) (int, error) {
	var n int
	err := x.retry(ctx, "count "+cls, func(ctx context.Context) error {
		ab := x.client.GraphQL().Aggregate().WithClassName(cls).
			WithFields(graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}})
		if x.tenant != "" {
			ab.WithTenant(x.tenant)
		}
		resp, err := ab.Do(ctx)
		if err != nil {
			return err
		}
		if err := gqlErr(len(resp.Errors), func(i int) string { return resp.Errors[i].Message }); err != nil {
			return err
		}
		rows, err := rows(resp.Data, "Aggregate", cls)
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("aggregate %s: %d rows", cls, len(rows))
		}
		meta, _ := rows[0]["meta"].(map[string]any)
		c, ok := meta["count"].(float64)
		if !ok {
			return fmt.Errorf("aggregate %s: no count in %v", cls, rows[0])
		}
		n = int(c)
		return nil
	})
	return n, err
}

// gqlErr turns a GraphQL answer's n errors (which come with a nil error
// from the client) into an error.
func gqlErr(n int, msg func(int) string) error {
	if n == 0 {
		return nil
	}
	msgs := make([]string, n)
	for i := range n {
		msgs[i] = msg(i)
	}
	return fmt.Errorf("graphql: %s", strings.Join(msgs, "; "))
}

// rows returns data[op][cls] as objects.
func rows[V any](data map[string]V, op, cls string) ([]map[string]any, error) {
	top, ok := any(data[op]).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("graphql: no %s in the answer", op)
	}
	raw, ok := top[cls].([]any)
	if !ok {
		if top[cls] == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("graphql: %s.%s is %T", op, cls, top[cls])
	}
	out := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("graphql: %s.%s holds a %T", op, cls, r)
		}
		out = append(out, m)
	}
	return out, nil
}

// settle waits until Weaviate's BM25 and nearVector answer probe queries
// exactly as this process's statistics say they must: the newest docs and
// examples (the last written, the last to become visible) and a spread of
// others, each searched by its own terms and vector.
func (x *Index) settle(ctx context.Context) error {
	if len(x.docs) == 0 {
		return nil
	}
	var probes []int
	for _, d := range []int{len(x.docs) - 1, len(x.docs) - 2, len(x.docs) / 2, 0} {
		if d >= 0 && !slices.Contains(probes, d) {
			probes = append(probes, d)
		}
	}
	deadline := time.Now().Add(x.cfg.Settle)
	all := func(int) bool { return true }
	for {
		ok, why, err := x.probe(ctx, probes, all)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("weaviate index: import not searchable after %v: %s", x.cfg.Settle, why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// probe compares Weaviate's lists with the exact ones for each probe doc.
func (x *Index) probe(ctx context.Context, docs []int, all func(int) bool) (bool, string, error) {
	for _, d := range docs {
		lo, hi := int(x.vs.First[d]), int(x.vs.First[d+1])
		texts := []string{x.docs[d].Name + " " + x.docs[d].Description}
		if hi-lo > 1 {
			texts = append(texts, x.docs[d].Examples[hi-lo-2])
		}
		for i, text := range texts {
			terms := analyze.Terms(text)
			if len(terms) > 8 {
				terms = terms[:8]
			}
			terms = searchable(terms)
			if len(terms) == 0 {
				continue
			}
			cls, local, idOf, score := x.skillCls, x.lex, func(doc, _ int) int { return doc }, x.lex.Score
			if i == 1 {
				cls, local, idOf, score = x.textCls, x.exLex, func(doc, ex int) int { return int(x.vs.First[doc]) + 1 + ex }, x.exLex.Score
			}
			const k = 10
			got, err := x.lexical(ctx, cls, terms, k, 1, nil, all, idOf, func(id int) float64 { return score(terms, id) })
			if err != nil {
				return false, "", err
			}
			want := local.Search(terms, k, nil)
			if len(got) != len(want) {
				return false, fmt.Sprintf("bm25 on %s for %q: %d hits, want %d", cls, text, len(got), len(want)), nil
			}
			for j := range want {
				if got[j].score != want[j].Score {
					return false, fmt.Sprintf("bm25 on %s for %q: hit %d scores %v, want %v", cls, text, j, got[j].score, want[j].Score), nil
				}
			}
		}
		qv := x.vs.Vec(hi - 1)
		if isZero(qv) {
			continue
		}
		hits, _, err := x.dense(ctx, qv, 1, 1, 1, nil, all)
		if err != nil {
			return false, "", err
		}
		if len(hits) == 0 || hits[0].score < 0.999 {
			return false, fmt.Sprintf("nearVector does not find doc %d's vector yet", d), nil
		}
	}
	return true, "", nil
}
