// Package health serves the liveness and readiness probes of a skillmatch
// process: /healthz (the process runs and reaches NATS) and /readyz (it can
// do its work now: its catalog is loaded and no stage holds its deliveries
// because a dependency, such as Weaviate, is unavailable).
package health

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"
)

// Check returns nil when its concern is fine, else what is wrong.
type Check func(ctx context.Context) error

// Handler answers /healthz from live and /readyz from live and ready, each
// check under its name. A failing probe answers 503 with the reasons as
// JSON, so that an operator sees why without reading logs.
func Handler(live, ready map[string]Check) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { answer(w, r, live) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		all := make(map[string]Check, len(live)+len(ready))
		for k, c := range live {
			all[k] = c
		}
		for k, c := range ready {
			all[k] = c
		}
		answer(w, r, all)
	})
	return mux
}

func answer(w http.ResponseWriter, r *http.Request, checks map[string]Check) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	failed := map[string]string{}
	for name, c := range checks {
		if err := c(ctx); err != nil {
			failed[name] = err.Error()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	status := "ok"
	if len(failed) > 0 {
		status = "unavailable"
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(struct {
		Status string            `json:"status"`
		Failed map[string]string `json:"failed,omitempty"`
	}{status, failed})
}

// Serve listens on addr and serves h until ctx ends. It returns once the
// listener is open (so a bad address fails at start), with the address
// bound (useful with port 0).
func Serve(ctx context.Context, addr string, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	// Probes and scrapes answer at once: a client that stalls is cut off.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = ln.Close()
		}
	}()
	return ln.Addr().String(), nil
}
