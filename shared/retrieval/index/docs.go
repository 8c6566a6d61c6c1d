package index

import (
	"context"
	"errors"
)

// ErrNotSearchable is returned by the Search of an index that only
// resolves doc numbers (Docs).
var ErrNotSearchable = errors.New("index does not search")

// Docs is an index that holds its docs and does not search: doc numbers
// and keys resolve as in any index built from the same docs, so a stage
// that ranks or decides a shortlist another process retrieved (the
// reranker, the decider) needs neither the embedder nor the BM25 postings.
type Docs []Doc

// Search implements Index: it always fails with ErrNotSearchable.
func (d Docs) Search(context.Context, Query) (*Result, error) { return nil, ErrNotSearchable }

// Doc returns doc i.
func (d Docs) Doc(i int) *Doc { return &d[i] }

// Len is the number of docs.
func (d Docs) Len() int { return len(d) }
