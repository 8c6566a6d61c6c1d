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
		log.Info("weaviate reachable", zap.String("task_id", ""), zap.String("url", url))
	}
}

func (h *health) down(log *zap.Logger, url string, err error) {
	if h.set(stateDown) && log != nil {
		log.Error("weaviate unreachable", zap.String("task_id", ""), zap.String("url", url), zap.Error(err))
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
// both of the index's collections exist. It makes one attempt (bounded by
// Config.Timeout); a failure to reach Weaviate wraps ErrUnreachable. Use it
// for a readiness probe: searches themselves retry for Config.Retry.
func (x *Index) Ready(ctx context.Context) error {
	err := x.retryFor(ctx, "ready check", -1, func(ctx context.Context) error {
		ok, err := x.client.Misc().ReadyChecker().Do(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return errNotReady
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, cls := range []string{x.skillCls, x.textCls} {
		var exists bool
		err := x.retryFor(ctx, "class check "+cls, -1, func(ctx context.Context) error {
			var err error
			exists, err = x.client.Schema().ClassExistenceChecker().WithClassName(cls).Do(ctx)
			return err
		})
		if err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("weaviate index: collection %s is gone", cls)
		}
		if x.tenant == "" {
			continue
		}
		if exists, err = x.tenantExists(ctx, cls, false); err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("weaviate index: tenant %s of %s is gone", x.tenant, cls)
		}
	}
	return nil
}
