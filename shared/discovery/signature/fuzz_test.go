package signature

import (
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzCanonicalize feeds untrusted bytes to the JCS parser: it must not
// panic, must fail with one of its three errors, and whatever it accepts
// must be JSON that encoding/json reads and that canonicalises to itself.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		testCard, `{"a":1,"a":2}`, `"\ud800"`, `[1e400]`, `{"\ud83d\ude00":1,"\ufb33":2}`,
		`[333333333.33333329,1E30,4.50,2e-3,1e-27]`, `{"b":[{},[]],"a":"\u0000"}`, "\"\xff\"", `[[[[[[`,
		`-0.0`, `{"signatures":[{"protected":"e30","signature":"AA"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Canonicalize(data)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrNotIJSON) && !errors.Is(err, ErrLimit) {
				t.Fatalf("unclassified error %v", err)
			}
			if json.Valid(data) && errors.Is(err, ErrSyntax) {
				t.Fatalf("encoding/json accepts %q, we call it a syntax error: %v", data, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical form is not JSON: %q", out)
		}
		// Without an exponent in the input little can grow: whitespace
		// goes, escapes only shrink, and a number's shortest digits are
		// never more than the digits it was written with, but for one
		// carried by rounding to the nearest double (9999999999999999 is
		// 10000000000000000).
		if !bytes.ContainsAny(data, "eE") && len(out) > len(data)+digitRuns(data) {
			t.Fatalf("canonical form %d bytes from %d", len(out), len(data))
		}
		again, err := Canonicalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
		}
	})
}

// FuzzVerify feeds untrusted cards to Verify: no panic, and the verdict is
// consistent with the policy.
func FuzzVerify(f *testing.F) {
	es, ed, _, _ := testKeysForFuzz(f)
	ks, err := ParseJWKS(jwksBytes(es, ed))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(testCard))
	f.Add([]byte(`{"name":"x","signatures":[{"protected":"eyJhbGciOiJFUzI1NiIsImtpZCI6ImVzLTEifQ","signature":"AAAA"}]}`))
	f.Add([]byte(`{"signatures":[{"protected":"eyJhbGciOiJFZERTQSIsImNyaXQiOlsiYjY0Il0sImI2NCI6ZmFsc2V9","signature":"` + b64u.EncodeToString(make([]byte, 64)) + `","header":{"kid":"ed-1"}}]}`))
	f.Add([]byte(`{"signatures":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Verify(data, ks, StrictPolicy)
		if err != nil {
			if v.Accept || v.Status != Invalid {
				t.Fatalf("error %v with verdict %+v", err, v)
			}
			return
		}
		if v.Accept != (v.Status == Verified) {
			t.Fatalf("strict policy: %+v", v)
		}
		if v.Reason == "" {
			t.Fatal("no reason")
		}
		if v2, _ := Verify(data, ks, OpenPolicy); !v2.Accept || v2.Status != v.Status {
			t.Fatalf("open policy: %+v vs %+v", v2, v)
		}
	})
}

func testKeysForFuzz(*testing.F) (es, ed, rs, es384 *signer) {
	return testKeys(nil)
}

func jwksBytes(ss ...*signer) []byte {
	var keys []any
	for _, s := range ss {
		keys = append(keys, s.jwk)
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	return b
}

// FuzzParseJWKS feeds untrusted key sets (fetched from an agent's
// --trust URL or a file) to ParseJWKS: it must not panic, must fail with
// ErrJWKS, and every key it keeps must be public and of a kept type.
func FuzzParseJWKS(f *testing.F) {
	for _, s := range []string{
		`{"keys":[]}`, `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`,
		`{"keys":[{"kty":"EC","crv":"P-256","x":"a","y":"b","d":"c"}]}`, `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`,
		`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`, `{"keys":[{"kty":"EC","crv":"P-256","use":"enc"}]}`, `{"keys":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ks, err := ParseJWKS(data)
		if err != nil {
			if !errors.Is(err, ErrJWKS) {
				t.Fatalf("error %v does not wrap ErrJWKS", err)
			}
			return
		}
		for _, k := range ks.Keys {
			if k.Public == nil {
				t.Fatalf("kept key %q has no public key", k.ID)
			}
			if _, private := k.Public.(interface{ Public() crypto.PublicKey }); private {
				t.Fatalf("kept key %q is private: %T", k.ID, k.Public)
			}
		}
	})
}

// digitRuns counts the runs of ASCII digits in data: at least as many as
// the numbers it holds.
func digitRuns(data []byte) int {
	n := 0
	for i, c := range data {
		if '0' <= c && c <= '9' && (i == 0 || data[i-1] < '0' || data[i-1] > '9') {
			n++
		}
	}
	return n
}
