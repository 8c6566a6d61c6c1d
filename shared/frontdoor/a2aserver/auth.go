package a2aserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
)

// Tokens maps bearer tokens to caller ids. It holds SHA-256 digests, not
// the tokens: the file on disk (and a memory dump) gives no usable
// credential. Tokens are meant to be long random strings, so a plain
// digest is enough (a slow password hash would cost every request).
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	digest [sha256.Size]byte
	caller string
}

// ErrTokensFile marks a tokens file that cannot be used.
var ErrTokensFile = errors.New("bad tokens file")

// LoadTokens reads a tokens file:
//
//	{"tokens": {"<hex SHA-256 of the token>": "<caller id>", ...}}
//
// (`printf %s "$TOKEN" | sha256sum` prints a digest). Every caller id
// must be one a NATS subject can carry (identity.Valid).
func LoadTokens(path string) (*Tokens, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokensFile, err)
	}
	return ParseTokens(data)
}

// ParseTokens reads the JSON of a tokens file (LoadTokens).
func ParseTokens(data []byte) (*Tokens, error) {
	var f struct {
		Tokens map[string]string `json:"tokens"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokensFile, err)
	}
	if len(f.Tokens) == 0 {
		return nil, fmt.Errorf("%w: no tokens", ErrTokensFile)
	}
	t := &Tokens{}
	for digest, caller := range f.Tokens {
		raw, err := hex.DecodeString(strings.ToLower(digest))
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%w: %.12q... is not a hex SHA-256 digest (64 hex digits)", ErrTokensFile, digest)
		}
		if err := identity.Valid(caller); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTokensFile, err)
		}
		e := tokenEntry{caller: caller}
		copy(e.digest[:], raw)
		t.entries = append(t.entries, e)
	}
	return t, nil
}

// Caller is the caller of a presented token. Every entry is compared, in
// constant time, whatever matches: the time taken says nothing about
// which entry, or how much of one, matched.
func (t *Tokens) Caller(token string) (string, bool) {
	d := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(d[:], t.entries[i].digest[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return t.entries[found].caller, true
}

// callerKey carries the authenticated caller in a request's context.
type callerKey struct{}

// callerFrom is the caller authenticate put in ctx ("" anonymous).
func callerFrom(ctx context.Context) (string, bool) {
	c, ok := ctx.Value(callerKey{}).(string)
	return c, ok
}

// authenticate wraps next: with neither tokens nor a client CA, every
// request is anonymous; otherwise a request must present a known bearer
// token or a verified client certificate whose common name is a caller
// id, and is refused with 401 if it does not. A token wins over a
// certificate when both are presented.
func (s *Server) authenticate(next http.Handler) http.Handler {
	required := s.cfg.Tokens != nil || s.cfg.ClientCAs != nil
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller, ok := "", !required
		if h := r.Header.Get("Authorization"); h != "" {
			scheme, token, _ := strings.Cut(h, " ")
			ok = false
			if strings.EqualFold(scheme, "Bearer") && s.cfg.Tokens != nil {
				caller, ok = s.cfg.Tokens.Caller(strings.TrimSpace(token))
			}
		} else if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && s.cfg.ClientCAs != nil {
			cn := r.TLS.VerifiedChains[0][0].Subject.CommonName
			caller, ok = cn, identity.Valid(cn) == nil
		}
		if !ok {
			s.observe("unauthenticated", 0)
			w.Header().Set("WWW-Authenticate", `Bearer realm="skillmatch"`)
			http.Error(w, "unauthenticated: present a bearer token or a client certificate of a known caller", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, caller)))
	})
}
