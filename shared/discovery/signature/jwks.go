package signature

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Bounds on a JWKS document.
const (
	MaxJWKSBytes   = 256 << 10
	MaxKeys        = 100
	MinRSABits     = 2048
	jwksURLTimeout = 10 * time.Second
)

// ErrJWKS is wrapped by every error about a JWKS document.
var ErrJWKS = errors.New("invalid JWKS")

// Key is one trusted public key.
type Key struct {
	// ID is the JWK "kid"; signatures select keys by it.
	ID string
	// Alg is the JWK "alg" when the key is bound to one algorithm, or "".
	Alg string
	// Public is an *ecdsa.PublicKey, ed25519.PublicKey or *rsa.PublicKey.
	Public crypto.PublicKey
}

// KeySet is a set of trusted keys. The zero KeySet trusts nothing.
type KeySet struct {
	Keys []Key
	// Skipped says which entries of the JWKS were ignored and why: keys
	// for encryption, key types this package does not verify with. They
	// are not errors (RFC 7517 §5: ignore what you do not understand).
	Skipped []string
}

// Len returns the number of usable keys.
func (ks KeySet) Len() int { return len(ks.Keys) }

// jwkHead is what ParseJWKS reads of a JWK before go-jose parses it: what
// decides whether the key is kept, skipped or refused.
type jwkHead struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
	D      string   `json:"d"`
	P      string   `json:"p"`
	K      string   `json:"k"`
}

// curves are the key types and curves kept: what the algorithms of algs
// verify with.
var curves = map[string][]string{"EC": {"P-256", "P-384", "P-521"}, "OKP": {"Ed25519"}, "RSA": nil}

// ParseJWKS reads a JWK Set (RFC 7517 §5): {"keys": [...]}. Keys of type
// EC (P-256, P-384, P-521), OKP (Ed25519) and RSA (2048 bits or more) are
// kept, each parsed and checked by go-jose (points on their curve, sizes).
// A key with private material ("d", "p", or a symmetric "k") is an error:
// a trust store holds public keys only, and a private key in it is a leak
// to fix. Keys for encryption ("use": "enc", or key_ops without "verify")
// and key types not understood are skipped and listed in Skipped.
func ParseJWKS(data []byte) (KeySet, error) {
	if len(data) > MaxJWKSBytes {
		return KeySet{}, fmt.Errorf("%w: %d bytes, limit %d", ErrJWKS, len(data), MaxJWKSBytes)
	}
	if _, err := Canonicalize(data); err != nil { // rejects duplicate members
		return KeySet{}, fmt.Errorf("%w: %w", ErrJWKS, err)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return KeySet{}, fmt.Errorf("%w: %v", ErrJWKS, err)
	}
	if doc.Keys == nil {
		return KeySet{}, fmt.Errorf("%w: no \"keys\" member", ErrJWKS)
	}
	if len(doc.Keys) > MaxKeys {
		return KeySet{}, fmt.Errorf("%w: %d keys, limit %d", ErrJWKS, len(doc.Keys), MaxKeys)
	}
	var ks KeySet
	for i, raw := range doc.Keys {
		var h jwkHead
		if err := json.Unmarshal(raw, &h); err != nil {
			return KeySet{}, fmt.Errorf("%w: keys[%d]: %v", ErrJWKS, i, err)
		}
		where := fmt.Sprintf("keys[%d]", i)
		if h.Kid != "" {
			where += fmt.Sprintf(" (kid %q)", h.Kid)
		}
		skip := func(why string, args ...any) { ks.Skipped = append(ks.Skipped, where+": "+fmt.Sprintf(why, args...)) }
		switch crvs, known := curves[h.Kty]; {
		case h.D != "" || h.P != "" || h.K != "":
			return KeySet{}, fmt.Errorf("%w: %s holds private or symmetric key material; publish public keys only", ErrJWKS, where)
		case h.Use != "" && h.Use != "sig":
			skip("use %q, not sig", h.Use)
			continue
		case h.KeyOps != nil && !slices.Contains(h.KeyOps, "verify"):
			skip("key_ops without verify")
			continue
		case h.Kty == "":
			return KeySet{}, fmt.Errorf("%w: %s: no kty", ErrJWKS, where)
		case !known:
			skip("key type not supported: kty %q", h.Kty)
			continue
		case crvs != nil && !slices.Contains(crvs, h.Crv):
			skip("key type not supported: %s curve %q", h.Kty, h.Crv)
			continue
		}
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			return KeySet{}, fmt.Errorf("%w: %s: %v", ErrJWKS, where, err)
		}
		if rk, ok := k.Key.(*rsa.PublicKey); ok {
			if bits := rk.N.BitLen(); bits < MinRSABits {
				return KeySet{}, fmt.Errorf("%w: %s: RSA key of %d bits, want at least %d", ErrJWKS, where, bits, MinRSABits)
			}
			if rk.E < 3 || rk.E%2 == 0 {
				return KeySet{}, fmt.Errorf("%w: %s: RSA exponent out of range", ErrJWKS, where)
			}
		}
		if h.Alg != "" {
			if _, known := algs[h.Alg]; !known {
				skip("algorithm %q not supported", h.Alg)
				continue
			}
			if err := fits(h.Alg, k.Key); err != nil {
				return KeySet{}, fmt.Errorf("%w: %s: %v", ErrJWKS, where, err)
			}
		}
		ks.Keys = append(ks.Keys, Key{ID: h.Kid, Alg: h.Alg, Public: k.Key})
	}
	return ks, nil
}

// LoadJWKSFile reads a JWKS file.
func LoadJWKSFile(path string) (KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return KeySet{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxJWKSBytes+1))
	if err != nil {
		return KeySet{}, err
	}
	ks, err := ParseJWKS(data)
	if err != nil {
		return KeySet{}, fmt.Errorf("%s: %w", path, err)
	}
	return ks, nil
}

// LoadJWKSURL fetches a JWKS over HTTPS. The URL is operator
// configuration, not card content: keys are never fetched from a location
// a card names (a card cannot choose the keys it is checked against). The
// URL must be https and carry no credentials; the response must be 200 and
// at most MaxJWKSBytes. A nil client means one with a 10 s timeout that
// does not follow redirects to another host.
func LoadJWKSURL(ctx context.Context, rawURL string, client *http.Client) (KeySet, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return KeySet{}, fmt.Errorf("jwks url: %w", err)
	}
	if u.Scheme != "https" || u.Host == "" {
		return KeySet{}, fmt.Errorf("jwks url %q: want an https URL", u.Redacted())
	}
	if u.User != nil {
		return KeySet{}, fmt.Errorf("jwks url %q: credentials in the URL are not allowed", u.Redacted())
	}
	if client == nil {
		client = &http.Client{
			Timeout: jwksURLTimeout,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= 3 || req.URL.Scheme != "https" || req.URL.Host != via[0].URL.Host {
					return fmt.Errorf("redirect to %q refused", req.URL.Redacted())
				}
				return nil
			},
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return KeySet{}, fmt.Errorf("jwks url: %w", err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := client.Do(req)
	if err != nil {
		return KeySet{}, fmt.Errorf("jwks url: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return KeySet{}, fmt.Errorf("jwks url %q: HTTP %s", u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxJWKSBytes+1))
	if err != nil {
		return KeySet{}, fmt.Errorf("jwks url %q: %w", u.Redacted(), err)
	}
	ks, err := ParseJWKS(bytes.TrimSpace(data))
	if err != nil {
		return KeySet{}, fmt.Errorf("jwks url %q: %w", u.Redacted(), err)
	}
	return ks, nil
}

// keyName is how a reason names a key.
func keyName(k Key) string {
	if k.ID == "" {
		return "key without kid"
	}
	return fmt.Sprintf("key %q", k.ID)
}
