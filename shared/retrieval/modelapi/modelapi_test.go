package modelapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// What may pass is retried and then reported unavailable; what will not
// (a 4xx, an answer too big or not JSON, a redirect) is reported at once.
func TestPostRetriesOnlyWhatMayPass(t *testing.T) {
	for _, tc := range []struct {
		name        string
		handler     http.HandlerFunc
		wantCalls   int32
		unavailable bool
	}{
		{"503", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }, 3, true},
		{"429", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "slow down", http.StatusTooManyRequests) }, 3, true},
		{"401", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "bad key", http.StatusUnauthorized) }, 1, false},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }, 1, false},
		{"too big", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`"` + strings.Repeat("x", 2000) + `"`))
		}, 1, false},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
		}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				tc.handler(w, r)
			}))
			defer srv.Close()
			c := Client{URL: srv.URL, MaxResponse: 1000}
			var out any
			err := c.Post(context.Background(), map[string]int{"a": 1}, &out)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, vector.ErrUnavailable) != tc.unavailable {
				t.Errorf("unavailable %v, want %v: %v", errors.Is(err, vector.ErrUnavailable), tc.unavailable, err)
			}
			if calls.Load() != tc.wantCalls {
				t.Errorf("%d calls, want %d", calls.Load(), tc.wantCalls)
			}
		})
	}
}

func TestEndpointAndHeader(t *testing.T) {
	if got := Endpoint("http://h:1/v1/", "embeddings"); got != "http://h:1/v1/embeddings" {
		t.Errorf("Endpoint: %s", got)
	}
	if got := Endpoint("http://h:1/v1/embeddings", "embeddings"); got != "http://h:1/v1/embeddings" {
		t.Errorf("Endpoint of a full URL: %s", got)
	}
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("X-API-Key") + "|" + r.Header.Get("Authorization")
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c := Client{URL: srv.URL, Key: "k", Header: "X-API-Key"}
	var out map[string]any
	if err := c.Post(context.Background(), struct{}{}, &out); err != nil || got != "k|" {
		t.Errorf("err %v, headers %q: want the key in X-API-Key only", err, got)
	}
}
