package signature

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"
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

// jwk is the subset of RFC 7517/7518/8037 members read.
type jwk struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	D      string   `json:"d"`
	P      string   `json:"p"`
	K      string   `json:"k"`
}

// ParseJWKS reads a JWK Set (RFC 7517 §5): {"keys": [...]}. Keys of type
// EC (P-256, P-384, P-521), OKP (Ed25519) and RSA (2048 bits or more) are
// kept. A key with private material ("d", "p", or a symmetric "k") is an
// error: a trust store holds public keys only, and a private key in it is a
// leak to fix. Keys for encryption ("use": "enc", or key_ops without
// "verify") and key types not understood are skipped and listed in Skipped.
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
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			return KeySet{}, fmt.Errorf("%w: keys[%d]: %v", ErrJWKS, i, err)
		}
		where := fmt.Sprintf("keys[%d]", i)
		if j.Kid != "" {
			where += fmt.Sprintf(" (kid %q)", j.Kid)
		}
		if j.D != "" || j.P != "" || j.K != "" {
			return KeySet{}, fmt.Errorf("%w: %s holds private or symmetric key material; publish public keys only", ErrJWKS, where)
		}
		if j.Use != "" && j.Use != "sig" {
			ks.Skipped = append(ks.Skipped, fmt.Sprintf("%s: use %q, not sig", where, j.Use))
			continue
		}
		if j.KeyOps != nil && !slices.Contains(j.KeyOps, "verify") {
			ks.Skipped = append(ks.Skipped, fmt.Sprintf("%s: key_ops without verify", where))
			continue
		}
		pub, err := j.public()
		if errors.Is(err, errSkip) {
			ks.Skipped = append(ks.Skipped, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		if err != nil {
			return KeySet{}, fmt.Errorf("%w: %s: %v", ErrJWKS, where, err)
		}
		if j.Alg != "" {
			if _, known := algs[j.Alg]; !known {
				ks.Skipped = append(ks.Skipped, fmt.Sprintf("%s: algorithm %q not supported", where, j.Alg))
				continue
			}
			if err := fits(j.Alg, pub); err != nil {
				return KeySet{}, fmt.Errorf("%w: %s: %v", ErrJWKS, where, err)
			}
		}
		ks.Keys = append(ks.Keys, Key{ID: j.Kid, Alg: j.Alg, Public: pub})
	}
	return ks, nil
}

var errSkip = errors.New("key type not supported")

func (j *jwk) public() (crypto.PublicKey, error) {
	switch j.Kty {
	case "EC":
		var curve elliptic.Curve
		var size int
		switch j.Crv {
		case "P-256":
			curve, size = elliptic.P256(), 32
		case "P-384":
			curve, size = elliptic.P384(), 48
		case "P-521":
			curve, size = elliptic.P521(), 66
		default:
			return nil, fmt.Errorf("%w: EC curve %q", errSkip, j.Crv)
		}
		x, err := b64(j.X, "x")
		if err != nil {
			return nil, err
		}
		y, err := b64(j.Y, "y")
		if err != nil {
			return nil, err
		}
		if len(x) != size || len(y) != size {
			return nil, fmt.Errorf("%s coordinates must be %d bytes", j.Crv, size)
		}
		point := append(append([]byte{4}, x...), y...)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
		if err != nil {
			return nil, fmt.Errorf("not a point on %s", j.Crv)
		}
		return pub, nil
	case "OKP":
		if j.Crv != "Ed25519" {
			return nil, fmt.Errorf("%w: OKP curve %q", errSkip, j.Crv)
		}
		x, err := b64(j.X, "x")
		if err != nil {
			return nil, err
		}
		if len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("Ed25519 key must be %d bytes", ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(x), nil
	case "RSA":
		n, err := b64(j.N, "n")
		if err != nil {
			return nil, err
		}
		e, err := b64(j.E, "e")
		if err != nil {
			return nil, err
		}
		nn := new(big.Int).SetBytes(n)
		if nn.BitLen() < MinRSABits {
			return nil, fmt.Errorf("RSA key of %d bits, want at least %d", nn.BitLen(), MinRSABits)
		}
		if len(e) == 0 || len(e) > 4 {
			return nil, errors.New("RSA exponent out of range")
		}
		var ee int
		for _, b := range e {
			ee = ee<<8 | int(b)
		}
		if ee < 3 || ee%2 == 0 {
			return nil, errors.New("RSA exponent out of range")
		}
		return &rsa.PublicKey{N: nn, E: ee}, nil
	case "":
		return nil, errors.New("no kty")
	}
	return nil, fmt.Errorf("%w: kty %q", errSkip, j.Kty)
}

func b64(s, name string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("no %q", name)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not base64url without padding", name)
	}
	return b, nil
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
