package catalogrefresh

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/catalog"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

// KV is the catalog bucket (pipeline.CatalogKV) as a Catalog: the same
// checks and no-op-on-equal puts as `skillmatch cards add`, so the stages
// watching the bucket rebuild only on real changes.
func KV(kv jetstream.KeyValue) Catalog { return kvCatalog{kv} }

type kvCatalog struct{ kv jetstream.KeyValue }

func (c kvCatalog) Get(ctx context.Context, id string) ([]byte, *catalog.Status, error) {
	return pipeline.GetCard(ctx, c.kv, id)
}

func (c kvCatalog) Put(ctx context.Context, id string, cardJSON []byte, st *catalog.Status) (uint64, bool, error) {
	return pipeline.PutCard(ctx, c.kv, id, cardJSON, st)
}

func (c kvCatalog) Remove(ctx context.Context, id string) error {
	return pipeline.RemoveCard(ctx, c.kv, id)
}

// Load reads the bucket's catalog. Entries that do not decode are left
// out, as the stages leave them out; only a bucket that cannot be read at
// all is an error.
func (c kvCatalog) Load(ctx context.Context) (*catalog.Catalog, error) {
	cat, _, errs := pipeline.LoadCatalogKV(ctx, c.kv)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(cat.Agents) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cat, nil
}
