package weaviateindex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/retrieval/bm25"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// errRestoring is returned (wrapping index.ErrUnavailable) while the
// index imports its catalog again.
var errRestoring = fmt.Errorf("weaviate index: collections gone (Weaviate lost its data?), importing them again: %w", index.ErrUnavailable)

// missing says whether a collection (or, with a tenant, its tenant) of
// the index is gone from Weaviate. One attempt each; a failure to reach
// Weaviate is returned as the error.
func (x *Index) missing(ctx context.Context) (string, error) {
	for _, cls := range []string{x.skillCls, x.textCls} {
		var exists bool
		err := x.retryFor(ctx, "class check "+cls, -1, func(ctx context.Context) error {
			var err error
			exists, err = x.client.Schema().ClassExistenceChecker().WithClassName(cls).Do(ctx)
			return err
		})
		if err != nil {
			return "", err
		}
		if !exists {
			return "collection " + cls, nil
		}
		if x.tenant == "" {
			continue
		}
		if exists, err = x.tenantExists(ctx, cls, false); err != nil {
			return "", err
		}
		if !exists {
			return "tenant " + x.tenant + " of " + cls, nil
		}
	}
	return "", nil
}

// heal checks, after a search failed for another reason than an
// unreachable Weaviate, whether the index's collections are gone; if so
// it starts importing them again in the background and returns
// errRestoring (a held delivery, not a failed one), else err.
func (x *Index) heal(err error) error {
	if errors.Is(err, ErrUnreachable) || x.retired.Load() {
		return err
	}
	if x.restoring.Load() {
		return errRestoring
	}
	ctx, cancel := context.WithTimeout(context.Background(), x.cfg.Timeout)
	defer cancel()
	what, merr := x.missing(ctx)
	if merr != nil || what == "" {
		return err
	}
	x.startRestore(what)
	return errRestoring
}

// startRestore imports the catalog again (once at a time): the same
// objects under the same ids, so that replicas restoring together write
// the same thing.
func (x *Index) startRestore(what string) {
	if x.retired.Load() || !x.restoring.CompareAndSwap(false, true) {
		return
	}
	if x.cfg.Log != nil {
		x.cfg.Log.Error("weaviate index gone; importing it again", zap.String("missing", what))
	}
	go func() {
		defer x.restoring.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		t0 := time.Now()
		err := x.restore(ctx)
		if x.cfg.Log == nil {
			return
		}
		if err != nil {
			x.cfg.Log.Error("weaviate index not restored; will retry on the next search", zap.Error(err))
			return
		}
		x.cfg.Log.Info("weaviate index restored", zap.Duration("took", time.Since(t0).Round(time.Millisecond)))
	}()
}

// restore creates the collections (and tenant) and imports the objects,
// from the vectors and texts the index keeps, then waits until Weaviate
// answers from them exactly.
func (x *Index) restore(ctx context.Context) error {
	scale, err := weightScale(*x.cfg.Weights)
	if err != nil {
		return err
	}
	vecs, hashes := x.stored()
	if err := x.create(ctx, x.skillCls, x.skillDesc, float32(bm25.DefaultK1*float64(scale))); err != nil {
		return err
	}
	if err := x.create(ctx, x.textCls, x.textDesc, bm25.DefaultK1); err != nil {
		return err
	}
	if err := x.store(ctx, vecs, hashes, scale); err != nil {
		return err
	}
	return x.settle(ctx)
}
