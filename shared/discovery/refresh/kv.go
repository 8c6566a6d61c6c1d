package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
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

// KVEvalStore keeps the last evaluation in the model bucket
// (pipeline.ModelKV) under wire.ModelKeyEvaluation.
func KVEvalStore(kv jetstream.KeyValue) EvalStore { return kvEvalStore{kv} }

type kvEvalStore struct{ kv jetstream.KeyValue }

func (s kvEvalStore) Last(ctx context.Context) (*EvalRecord, error) {
	e, err := s.kv.Get(ctx, wire.ModelKeyEvaluation)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refresh: read last evaluation: %w", err)
	}
	var rec EvalRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, fmt.Errorf("refresh: last evaluation (revision %d): %w", e.Revision(), err)
	}
	return &rec, nil
}

func (s kvEvalStore) Save(ctx context.Context, rec EvalRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, wire.ModelKeyEvaluation, data); err != nil {
		return fmt.Errorf("refresh: keep evaluation: %w", err)
	}
	return nil
}
