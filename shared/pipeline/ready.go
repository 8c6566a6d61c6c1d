package pipeline

import (
	"context"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Ready says whether the retriever can shortlist now: a catalog is loaded
// and its index answers (an index.Readier, such as the Weaviate index, is
// asked; the in-memory index always answers).
func (s *Stages) Ready(ctx context.Context) error {
	snap, err := s.current()
	if err != nil {
		return err
	}
	if r, ok := snap.m.Index().(index.Readier); ok {
		return r.Ready(ctx)
	}
	return nil
}
