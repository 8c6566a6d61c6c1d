// Package signature verifies the JWS signatures an A2A Agent Card carries
// (AgentCardSignature, A2A v1.0): each entry of the card's "signatures"
// list is a JWS in flattened JSON form with a detached payload, and the
// payload is the RFC 8785 (JCS) canonical form of the card with its
// "signatures" member removed. go-jose (v4) parses the keys and the JWS
// and checks the signatures; this package keeps what is particular to
// cards: the canonical payload, strict header rules with reasons fit for
// a catalog entry, limits on untrusted input, and the policy.
//
// Trust comes only from the KeySet the operator configures (a JWKS file or
// URL). Keys a signature header embeds or points to ("jwk", "jku", "x5c",
// "x5u") are never used: a card cannot choose the key it is checked with.
//
// A Policy decides, separately for unsigned cards and for cards whose
// signatures do not verify, whether the card is refused, accepted with a
// flag, or accepted silently. Verify returns a Verdict whose Reason is meant
// to be kept on the card's catalog entry.
package signature

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// Action is what a policy does with a card.
type Action int

const (
	// Refuse keeps the card out of the catalog. It is the zero value, so
	// a Policy nobody filled in fails closed.
	Refuse Action = iota
	// Flag accepts the card and marks its catalog entry.
	Flag
	// Accept accepts the card; the verdict's reason is still recorded.
	Accept
)

// ParseAction reads "refuse", "flag" or "accept" (case-insensitive).
func ParseAction(s string) (Action, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "refuse":
		return Refuse, nil
	case "flag":
		return Flag, nil
	case "accept":
		return Accept, nil
	}
	return Refuse, fmt.Errorf("signature policy %q: want refuse, flag or accept", s)
}

// Policy says what happens to unsigned cards and to cards that carry
// signatures none of which verifies with a trusted key. A verified card is
// always accepted.
type Policy struct {
	Unsigned Action
	Invalid  Action
}

var (
	// StrictPolicy accepts verified cards only.
	StrictPolicy = Policy{Unsigned: Refuse, Invalid: Refuse}
	// DefaultPolicy flags unsigned cards (most cards are unsigned today)
	// and refuses badly signed ones (a bad signature is a tampering or a
	// misconfiguration; either way the card is not what its signer wrote).
	DefaultPolicy = Policy{Unsigned: Flag, Invalid: Refuse}
	// OpenPolicy accepts everything and only records the verdict.
	OpenPolicy = Policy{Unsigned: Accept, Invalid: Accept}
)

// Status is the outcome of verification, before the policy.
type Status string

const (
	// Verified: at least one signature verifies with a trusted key.
	Verified Status = "verified"
	// Unsigned: the card has no "signatures", or an empty list.
	Unsigned Status = "unsigned"
	// Invalid: the card carries signatures and none verifies (tampered,
	// unknown key, wrong algorithm, malformed), or it cannot be read.
	Invalid Status = "invalid"
)

// Verdict is the outcome of Verify for one card.
type Verdict struct {
	Status Status `json:"status"`
	// KeyID is the kid of the key that verified the card; for an Invalid
	// card, the kid the first signature named, if any.
	KeyID string `json:"keyId,omitempty"`
	// Alg is the JWS algorithm of that signature.
	Alg string `json:"alg,omitempty"`
	// Reason is a sentence for the card's catalog entry, including what
	// the policy did.
	Reason string `json:"reason"`
	// Accept says whether the card may enter the catalog.
	Accept bool `json:"accept"`
	// Flagged says the card was accepted only because the policy flags
	// rather than refuses; show it.
	Flagged bool `json:"flagged,omitempty"`
}

// Limits on one card's signatures.
const (
	MaxSignatures = 8
	// MaxAttempts bounds the public-key operations one card can cost: a
	// signature without a kid is tried against every key of its
	// algorithm, and a card is untrusted input.
	MaxAttempts       = 16
	maxProtectedBytes = 4 << 10
	maxSignatureBytes = 1 << 10 // RSA-8192 is 1 KiB
)

// Verify checks the signatures of a card's raw JSON against the trusted
// keys and applies the policy.
//
// The error is non-nil only when raw cannot be read as a JSON object at
// all (syntax, over MaxBytes or MaxDepth); the verdict is then Invalid and
// not accepted, whatever the policy, because no other part of skillmatch
// can read the card either. Everything about the signatures themselves,
// including a signed card that is not I-JSON and so has no canonical form,
// is reported in the verdict.
func Verify(raw []byte, keys KeySet, policy Policy) (Verdict, error) {
	payload, sigs, err := canonicalize(raw, "signatures")
	if err != nil && !errors.Is(err, ErrNotIJSON) {
		return Verdict{Status: Invalid, Reason: "card cannot be read: " + err.Error() + "; refused"}, err
	}
	v := check(payload, sigs, err, keys)
	return decide(v, policy), nil
}

// check finds the verdict before the policy. soft is the I-JSON
// violation in the card, if any.
func check(payload, sigs []byte, soft error, keys KeySet) Verdict {
	var entries []json.RawMessage
	if sigs != nil && !bytes.Equal(sigs, []byte("null")) {
		if err := json.Unmarshal(sigs, &entries); err != nil {
			return Verdict{Status: Invalid, Reason: "\"signatures\" is not a list"}
		}
	}
	if len(entries) == 0 {
		return Verdict{Status: Unsigned, Reason: "card carries no signatures"}
	}
	if soft != nil {
		return Verdict{Status: Invalid, Reason: "signed card has no canonical form: " + soft.Error()}
	}
	if len(entries) > MaxSignatures {
		return Verdict{Status: Invalid, Reason: fmt.Sprintf("%d signatures, limit %d", len(entries), MaxSignatures)}
	}
	var (
		reasons  []string
		firstKid string
		firstAlg string
	)
	budget := MaxAttempts
	for i, e := range entries {
		k, alg, kid, err := verifyOne(e, payload, keys, &budget)
		if err == nil {
			return Verdict{Status: Verified, KeyID: k.ID, Alg: alg,
				Reason: fmt.Sprintf("signatures[%d] verified with %s (%s)", i, keyName(k), alg)}
		}
		if i == 0 {
			firstKid, firstAlg = kid, alg
		}
		reasons = append(reasons, fmt.Sprintf("signatures[%d]: %v", i, err))
	}
	return Verdict{Status: Invalid, KeyID: firstKid, Alg: firstAlg, Reason: strings.Join(reasons, "; ")}
}

func decide(v Verdict, p Policy) Verdict {
	var a Action
	switch v.Status {
	case Verified:
		v.Accept = true
		return v
	case Unsigned:
		a = p.Unsigned
	default:
		a = p.Invalid
	}
	switch a {
	case Flag:
		v.Accept, v.Flagged = true, true
		v.Reason += "; flagged by policy"
	case Accept:
		v.Accept = true
		v.Reason += "; accepted by policy"
	default:
		v.Reason += "; refused by policy"
	}
	return v
}

// entry is one AgentCardSignature.
type entry struct {
	Protected *string                    `json:"protected"`
	Signature *string                    `json:"signature"`
	Header    map[string]json.RawMessage `json:"header"`
}

// verifyOne verifies one signature and returns the key that verified it.
// alg and kid are returned for the report even on failure. The header is
// read here, strictly and with reasons fit for a catalog entry; go-jose
// then parses the JWS, builds the signing input (encoded or, with "b64":
// false, unencoded payload) and checks the signature with each candidate
// key.
func verifyOne(raw json.RawMessage, payload []byte, keys KeySet, budget *int) (k Key, alg, kid string, err error) {
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Key{}, "", "", errors.New("not a JWS object")
	}
	if e.Protected == nil || *e.Protected == "" {
		return Key{}, "", "", errors.New("no protected header")
	}
	if e.Signature == nil || *e.Signature == "" {
		return Key{}, "", "", errors.New("no signature value")
	}
	if len(*e.Protected) > maxProtectedBytes*4/3+4 {
		return Key{}, "", "", errors.New("protected header too large")
	}
	hdrJSON, err := base64.RawURLEncoding.Strict().DecodeString(*e.Protected)
	if err != nil {
		return Key{}, "", "", errors.New("protected header is not base64url without padding")
	}
	if _, err := Canonicalize(hdrJSON); err != nil { // syntax, duplicates
		return Key{}, "", "", fmt.Errorf("protected header: %v", err)
	}
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(hdrJSON, &hdr); err != nil {
		return Key{}, "", "", errors.New("protected header is not a JSON object")
	}
	for name := range e.Header {
		if _, dup := hdr[name]; dup {
			return Key{}, "", "", fmt.Errorf("header parameter %q is in both the protected and the unprotected header", name)
		}
	}
	str := func(m map[string]json.RawMessage, name string) (string, bool, error) {
		r, ok := m[name]
		if !ok {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			return "", true, fmt.Errorf("header parameter %q is not a string", name)
		}
		return s, true, nil
	}
	alg, ok, err := str(hdr, "alg")
	if err != nil {
		return Key{}, "", "", err
	}
	if !ok {
		if _, unprotected := e.Header["alg"]; unprotected {
			return Key{}, "", "", errors.New("\"alg\" must be in the protected header")
		}
		return Key{}, "", "", errors.New("no \"alg\" in the protected header")
	}
	kid, ok, err = str(hdr, "kid")
	if err == nil && !ok {
		kid, _, err = str(e.Header, "kid")
	}
	if err != nil {
		return Key{}, alg, "", err
	}
	if _, known := algs[alg]; !known {
		return Key{}, alg, kid, fmt.Errorf("algorithm %q not supported", alg)
	}
	if err := checkCritical(hdr); err != nil {
		return Key{}, alg, kid, err
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(*e.Signature)
	if err != nil {
		return Key{}, alg, kid, errors.New("signature is not base64url without padding")
	}
	if len(sig) > maxSignatureBytes {
		return Key{}, alg, kid, errors.New("signature too large")
	}
	// The card's signature is a flattened JWS whose payload is detached:
	// go-jose reads it with an empty payload, and DetachedVerify is given
	// the canonical card.
	flat, err := json.Marshal(map[string]any{"protected": *e.Protected, "header": e.Header, "signature": *e.Signature, "payload": ""})
	if err != nil {
		return Key{}, alg, kid, errors.New("not a JWS object")
	}
	jws, err := jose.ParseSignedJSON(string(flat), allowed)
	if err != nil {
		return Key{}, alg, kid, fmt.Errorf("not a valid JWS: %v", err)
	}

	var candidates []Key
	kidKnown := false
	for _, key := range keys.Keys {
		if kid != "" && key.ID != kid {
			continue
		}
		kidKnown = true
		if key.Alg != "" && key.Alg != alg {
			continue
		}
		if fits(alg, key.Public) != nil {
			continue
		}
		candidates = append(candidates, key)
	}
	switch {
	case keys.Len() == 0:
		return Key{}, alg, kid, errors.New("no trusted keys are configured")
	case kid != "" && !kidKnown:
		return Key{}, alg, kid, fmt.Errorf("no trusted key with kid %q", kid)
	case len(candidates) == 0 && kid != "":
		return Key{}, alg, kid, fmt.Errorf("trusted key %q does not allow algorithm %s", kid, alg)
	case len(candidates) == 0:
		return Key{}, alg, kid, fmt.Errorf("no trusted key allows algorithm %s", alg)
	}
	for _, key := range candidates {
		if *budget <= 0 {
			return Key{}, alg, kid, fmt.Errorf("not tried: the card's signatures used up the limit of %d key attempts (name a kid)", MaxAttempts)
		}
		*budget--
		if jws.DetachedVerify(payload, verifier(alg, key.Public)) == nil {
			return key, alg, kid, nil
		}
	}
	if len(candidates) == 1 {
		return Key{}, alg, kid, fmt.Errorf("signature does not verify with %s: the card was changed after signing, or signed with another key", keyName(candidates[0]))
	}
	return Key{}, alg, kid, fmt.Errorf("signature does not verify with any of %d trusted keys for %s", len(candidates), alg)
}

// checkCritical checks "crit" (RFC 7515 §4.1.11) with reasons: only "b64"
// (RFC 7797) is understood, and "b64": false counts only when critical.
func checkCritical(hdr map[string]json.RawMessage) error {
	var crit []string
	if r, ok := hdr["crit"]; ok {
		if err := json.Unmarshal(r, &crit); err != nil || len(crit) == 0 {
			return errors.New("\"crit\" must be a non-empty list of names")
		}
		for _, name := range crit {
			if name != "b64" {
				return fmt.Errorf("critical header parameter %q not understood", name)
			}
			if _, ok := hdr[name]; !ok {
				return fmt.Errorf("critical header parameter %q is missing", name)
			}
		}
	}
	r, ok := hdr["b64"]
	if !ok {
		return nil
	}
	var b bool
	if err := json.Unmarshal(r, &b); err != nil {
		return errors.New("\"b64\" must be a boolean")
	}
	if !b && !slices.Contains(crit, "b64") {
		return errors.New("\"b64\": false must be listed in \"crit\"")
	}
	return nil
}

// algSpec is the key one JWS algorithm verifies with.
type algSpec struct {
	kind  string // "EC", "OKP", "RSA"
	curve elliptic.Curve
}

// algs are the algorithms verified: asymmetric only ("none" and HMAC
// never, since a card's signer shares no secret with us).
var algs = map[string]algSpec{
	"ES256":   {kind: "EC", curve: elliptic.P256()},
	"ES384":   {kind: "EC", curve: elliptic.P384()},
	"ES512":   {kind: "EC", curve: elliptic.P521()},
	"EdDSA":   {kind: "OKP"},
	"Ed25519": {kind: "OKP"}, // RFC 9864's fully specified name
	"RS256":   {kind: "RSA"},
	"RS384":   {kind: "RSA"},
	"RS512":   {kind: "RSA"},
	"PS256":   {kind: "RSA"},
	"PS384":   {kind: "RSA"},
	"PS512":   {kind: "RSA"},
}

// allowed is algs for go-jose.
var allowed = func() []jose.SignatureAlgorithm {
	var out []jose.SignatureAlgorithm
	for a := range algs {
		out = append(out, jose.SignatureAlgorithm(a))
	}
	return out
}()

// fits reports whether a key can verify signatures of the algorithm.
func fits(alg string, pub crypto.PublicKey) error {
	spec, ok := algs[alg]
	if !ok {
		return fmt.Errorf("algorithm %q not supported", alg)
	}
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if spec.kind == "EC" && k.Curve == spec.curve {
			return nil
		}
		return fmt.Errorf("an EC %s key cannot verify %s", k.Curve.Params().Name, alg)
	case ed25519.PublicKey:
		if spec.kind == "OKP" {
			return nil
		}
		return fmt.Errorf("an Ed25519 key cannot verify %s", alg)
	case *rsa.PublicKey:
		if spec.kind == "RSA" {
			return nil
		}
		return fmt.Errorf("an RSA key cannot verify %s", alg)
	}
	return fmt.Errorf("key type %T not supported", pub)
}

// verifier is what go-jose verifies alg with: the key itself, except for
// "Ed25519", RFC 9864's name for EdDSA over Ed25519, which go-jose does
// not know by that name.
func verifier(alg string, pub crypto.PublicKey) any {
	if k, ok := pub.(ed25519.PublicKey); ok && alg == "Ed25519" {
		return ed25519Verifier(k)
	}
	return pub
}

// ed25519Verifier verifies "Ed25519" signatures (jose.OpaqueVerifier).
type ed25519Verifier ed25519.PublicKey

func (k ed25519Verifier) VerifyPayload(input, sig []byte, alg jose.SignatureAlgorithm) error {
	if alg != "Ed25519" || len(sig) != ed25519.SignatureSize || !ed25519.Verify(ed25519.PublicKey(k), input, sig) {
		return errors.New("ed25519: signature does not verify")
	}
	return nil
}
