// Package modelapi calls a model server's HTTP JSON API — the
// OpenAI-compatible one that Ollama, vLLM, Text Embeddings Inference and
// llama.cpp's server speak, or a relevance-scoring service — with what
// every such call needs: a key read from the environment or a file, a
// timeout per request, retries with exponential backoff for what may pass
// (refused connections, timeouts, 429 and 5xx) and a cap on the answer's
// size. It sits at the retrieval layer because the remote embedder uses
// it; the remote rerankers above use it too.
package modelapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Client posts JSON to one model server. The zero value of every field but
// URL has a sensible default; a Client is safe for concurrent use.
type Client struct {
	// URL is the endpoint posted to.
	URL string
	// Key is sent as "Authorization: Bearer <Key>" (or in Header); empty:
	// no credentials.
	Key string
	// Header, when set, carries Key as is instead of Authorization:
	// Bearer (e.g. "X-API-Key").
	Header string
	// Timeout bounds one request, its answer included (default 10s).
	Timeout time.Duration
	// Retries is how many times a failed request that may pass is tried
	// again (default 2; negative: never).
	Retries int
	// MaxResponse caps the answer's size in bytes (default 32 MiB).
	MaxResponse int64
	// HTTP is the client requests go through (default: one without
	// redirects, which a JSON API never needs and a key must not follow).
	HTTP *http.Client
}

// Endpoint joins a base URL ("http://host:11434/v1") and an API path
// ("embeddings"); a URL that already ends in the path is used as it is.
func Endpoint(base, path string) string {
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/"+path) {
		return base
	}
	return base + "/" + path
}

// ReadKey returns the key from the environment variable env, else from the
// file (trimmed), else "". A key on the command line would show in ps and
// shell history, so there is no flag for the key itself.
func ReadKey(env, file string) (string, error) {
	if k := strings.TrimSpace(os.Getenv(env)); k != "" {
		return k, nil
	}
	if file == "" {
		return "", nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read key file: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// StatusError is an answer with a status other than 200.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body)
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Post sends in as JSON and decodes the answer into out. An error that
// retrying did not cure — the server unreachable, answering 429 or 5xx, or
// slower than Timeout — wraps vector.ErrUnavailable, so callers degrade;
// any other (a 4xx, an answer that is not JSON) is the caller's to report.
func (c *Client) Post(ctx context.Context, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("modelapi: encode request: %w", err)
	}
	timeout, retries, limit, hc := c.Timeout, c.Retries, c.MaxResponse, c.HTTP
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if retries == 0 {
		retries = 2
	}
	if limit <= 0 {
		limit = 32 << 20
	}
	if hc == nil {
		hc = noRedirects
	}
	var b backoff.BackOff = &backoff.StopBackOff{}
	if retries > 0 {
		eb := backoff.NewExponentialBackOff()
		eb.InitialInterval, eb.MaxInterval = 100*time.Millisecond, 2*time.Second
		b = backoff.WithMaxRetries(eb, uint64(retries))
	}
	op := func() error {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.URL, bytes.NewReader(body))
		if err != nil {
			return backoff.Permanent(fmt.Errorf("modelapi: %w", err))
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		switch {
		case c.Key == "":
		case c.Header != "":
			req.Header.Set(c.Header, c.Key)
		default:
			req.Header.Set("Authorization", "Bearer "+c.Key)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return backoff.Permanent(fmt.Errorf("%w: %w", vector.ErrUnavailable, ctx.Err()))
			}
			return fmt.Errorf("%w: %s: %w", vector.ErrUnavailable, c.URL, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		if err != nil {
			return fmt.Errorf("%w: %s: read answer: %w", vector.ErrUnavailable, c.URL, err)
		}
		if int64(len(data)) > limit {
			return backoff.Permanent(fmt.Errorf("modelapi: %s: answer over %d bytes", c.URL, limit))
		}
		if resp.StatusCode != http.StatusOK {
			se := &StatusError{Status: resp.StatusCode, Body: snippet(data)}
			if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
				return fmt.Errorf("%w: %s: %w", vector.ErrUnavailable, c.URL, se)
			}
			return backoff.Permanent(fmt.Errorf("modelapi: %s: %w", c.URL, se))
		}
		if err := json.Unmarshal(data, out); err != nil {
			return backoff.Permanent(fmt.Errorf("modelapi: %s: answer is not the expected JSON: %w", c.URL, err))
		}
		return nil
	}
	err = backoff.Retry(op, backoff.WithContext(b, ctx))
	if err != nil && ctx.Err() != nil && !errors.Is(err, vector.ErrUnavailable) {
		err = fmt.Errorf("%w: %w", vector.ErrUnavailable, err)
	}
	return err
}

// snippet is the start of an error answer, for the message: servers put
// the reason there, and it must not flood a log.
func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
