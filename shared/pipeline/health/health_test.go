package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

func TestProbes(t *testing.T) {
	var connected, indexUp atomic.Bool
	connected.Store(true)
	live := map[string]Check{"nats": func(context.Context) error {
		if !connected.Load() {
			return errors.New("disconnected")
		}
		return nil
	}}
	ready := map[string]Check{"retriever": func(context.Context) error {
		if !indexUp.Load() {
			return errors.New("holding deliveries: index unavailable")
		}
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := Serve(ctx, "127.0.0.1:0", Handler(live, ready))
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, map[string]string) {
		t.Helper()
		resp, err := http.Get(fmt.Sprintf("http://%s%s", addr, path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Failed map[string]string `json:"failed"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body.Failed
	}
	for _, c := range []struct {
		name             string
		conn, up         bool
		healthz, readyz  int
		readyFailedCheck string
	}{
		{"all fine", true, true, 200, 200, ""},
		{"index down", true, false, 200, 503, "retriever"},
		{"nats down", false, true, 503, 503, "nats"},
	} {
		connected.Store(c.conn)
		indexUp.Store(c.up)
		if code, _ := get("/healthz"); code != c.healthz {
			t.Errorf("%s: /healthz %d, want %d", c.name, code, c.healthz)
		}
		code, failed := get("/readyz")
		if code != c.readyz {
			t.Errorf("%s: /readyz %d, want %d", c.name, code, c.readyz)
		}
		if c.readyFailedCheck != "" && failed[c.readyFailedCheck] == "" {
			t.Errorf("%s: /readyz does not name %s: %v", c.name, c.readyFailedCheck, failed)
		}
	}
	if _, err := Serve(ctx, "256.0.0.1:0", Handler(nil, nil)); err == nil {
		t.Error("a bad address was accepted")
	}
}
