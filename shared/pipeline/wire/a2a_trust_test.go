package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/endpoint"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// A delegation is never addressed to a URL the fetcher's address policy
// refuses, whatever the card says; the registry may allow private ones.
func TestA2ARequestEndpointPolicy(t *testing.T) {
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "my payroll data"}}}}
	tests := []struct {
		url     string
		binding string
		opts    []RequestOption
		refused string // "" for built, else in the error
	}{
		{url: "https://agents.example.com/a2a"},
		{url: "https://agents.example.com/a2a", binding: "HTTP+JSON"},
		{url: "http://169.254.169.254/x", refused: "link-local"},
		{url: "http://169.254.169.254/x", binding: "HTTP+JSON", refused: "link-local"},
		{url: "file:///etc/passwd", refused: `scheme "file"`},
		{url: "http://127.0.0.1:6379/", refused: "loopback"},
		{url: "http://[::ffff:10.0.0.1]/", binding: "GRPC", refused: "private"},
		{url: "http://[::127.0.0.1]/", refused: "loopback"},
		{url: "http://localhost/", refused: "loopback"},
		{url: "http://127.0.0.1:6379/", opts: []RequestOption{WithAllowPrivate(true)}},
		{url: "http://127.0.0.1:6379/", opts: []RequestOption{WithAllowPrivate(false)}, refused: "loopback"},
		{url: "file:///etc/passwd", opts: []RequestOption{WithAllowPrivate(true)}, refused: "scheme"},
	}
	for _, tt := range tests {
		cd := &card.Card{ID: "a", Interfaces: []card.Interface{{URL: tt.url, Binding: tt.binding}}}
		r, err := NewA2ARequest(cd, "s", tk, "d-1", tt.opts...)
		if tt.refused == "" {
			if err != nil || r == nil || !strings.HasPrefix(r.URL, tt.url) {
				t.Errorf("%s: %+v, %v", tt.url, r, err)
			}
			continue
		}
		if r != nil || !errors.Is(err, endpoint.ErrRefused) || !strings.Contains(err.Error(), tt.refused) {
			t.Errorf("%s %s: %+v, %v; want a refusal saying %q", tt.url, tt.binding, r, err, tt.refused)
		}
	}
}

// The request goes to the first interface the policy accepts, the one the
// hard filter's endpoint rule counted on.
func TestA2ARequestPicksAcceptableInterface(t *testing.T) {
	tk := &task.Task{ID: "t-1", Message: task.Message{Parts: []task.Part{{Text: "hi"}}}}
	cd := &card.Card{ID: "a", Interfaces: []card.Interface{{URL: "http://127.0.0.1:9/", Binding: "JSONRPC"},
		{URL: "https://agents.example.com/a2a", Binding: "JSONRPC"}}}
	r, err := NewA2ARequest(cd, "s", tk, "d-1")
	if err != nil || !strings.HasPrefix(r.URL, "https://agents.example.com/a2a") {
		t.Fatalf("%+v %v", r, err)
	}
}
