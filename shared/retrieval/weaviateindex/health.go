package weaviateindex

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"
)

// health is whether Weaviate was reachable at the last call, shared by the
// indexes of one Builder so that a rebuilt index does not log again what
// the previous one logged.
type health struct {
	mu    sync.Mutex
	state int // 0 unknown, 1 up, 2 down
}

const (
	stateUp   = 1
	stateDown = 2
)

func (h *health) up(log *zap.Logger, url string) {
	if h.set(stateUp) && log != nil {
		log.Info("weaviate reachable", zap.String("url", url))
	}
}

func (h *health) down(log *zap.Logger, url string, err error) {
	if h.set(stateDown) && log != nil {
		log.Error("weaviate unreachable", zap.String("url", url), zap.Error(err))
	}
}

// set records the state and says whether it changed. The first state
// known is logged only when it is down.
func (h *health) set(s int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.state
	h.state = s
	return old != s && !(old == 0 && s == stateUp)
}

// Ready says whether the index can answer now: Weaviate answers ready and
// both of the index's collections (and its tenant) exist. It makes one
// attempt (bounded by Config.Timeout); a failure to reach Weaviate wraps
// ErrUnreachable. When Weaviate answers without the index's collections
// (it lost its data), the index imports them again in the background and
// Ready wraps index.ErrUnavailable until that is done; an index this
// process dropped does not. Use it for a readiness probe: searches
// themselves retry for Config.Retry.
func (x *Index) Ready(ctx context.Context) error {
	if err := x.readyFor(ctx, -1); err != nil {
		return err
	}
	if x.restoring.Load() {
		return errRestoring
	}
	what, err := x.missing(ctx)
	if err != nil {
		return err
	}
	switch {
	case what != "" && x.retired.Load():
		return fmt.Errorf("weaviate index: %s is gone (dropped)", what)
	case what != "":
		// Weaviate is back without the index's data: import it again
		// rather than wait for a catalog change that may never come.
		x.startRestore(what)
		return errRestoring
	}
	return nil
}
