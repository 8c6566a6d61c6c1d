package catalog

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A status without a verdict encodes exactly as before verdicts existed,
// so fingerprints of catalogs without signing do not change, and old
// entries decode to an unchecked verdict.
func TestStatusSignatureEncoding(t *testing.T) {
	got, err := json.Marshal(DefaultStatus)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"health":"up","clearance":"public","external":true}`; string(got) != want {
		t.Errorf("status without verdict: %s, want %s", got, want)
	}
	if got, _ := json.Marshal(EntryDefault); string(got) != `{"health":"up","clearance":"internal","external":false}` {
		t.Errorf("entry default: %s", got)
	}
	var st Status
	if err := json.Unmarshal([]byte(`{"health":"down","clearance":"public"}`), &st); err != nil {
		t.Fatal(err)
	}
	if st.Signature.Checked() || st.Health != Down {
		t.Errorf("old status decoded as %+v", st)
	}
	st.Signature = Signature{Status: SignatureInvalid, KeyID: "k1", Reason: "tampered; flagged by policy", Flagged: true}
	data, _ := json.Marshal(st)
	var back Status
	if err := json.Unmarshal(data, &back); err != nil || back != st {
		t.Errorf("round trip: %+v (%v), want %+v", back, err, st)
	}
	st.AllowPrivate = true
	data, _ = json.Marshal(st)
	if back = (Status{}); json.Unmarshal(data, &back) != nil || back != st || !json.Valid(data) {
		t.Errorf("allowPrivate round trip: %s -> %+v", data, back)
	}
}

// An agent nobody vetted must not draw internal data: the default is
// external with public clearance, and healthy.
func TestDefaultStatusIsUnvetted(t *testing.T) {
	want := Status{Health: Up, Clearance: Public, External: true}
	if DefaultStatus != want {
		t.Errorf("DefaultStatus = %+v, want %+v", DefaultStatus, want)
	}
	if DefaultStatus.AllowPrivate {
		t.Error("DefaultStatus allows private addresses")
	}
	if err := DefaultStatus.Validate(); err != nil {
		t.Error(err)
	}
}

func TestSignatureString(t *testing.T) {
	cases := []struct {
		sig  Signature
		want string
	}{
		{Signature{}, "-"},
		{Signature{Status: SignatureVerified, KeyID: "fleet"}, "verified (fleet)"},
		{Signature{Status: SignatureUnsigned, Flagged: true}, "unsigned, flagged"},
		{Signature{Status: SignatureInvalid, KeyID: "k", Flagged: true}, "invalid (k), flagged"},
	}
	for _, c := range cases {
		if got := c.sig.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.sig, got, c.want)
		}
	}
	for s, want := range map[SignatureStatus]bool{SignatureVerified: true, SignatureUnsigned: true, SignatureInvalid: true, "": false, "ok": false} {
		if s.Valid() != want {
			t.Errorf("%q.Valid() = %v", s, !want)
		}
	}
}

func TestStatusValidate(t *testing.T) {
	cases := []struct {
		st   Status
		want string // "" for valid
	}{
		{DefaultStatus, ""},
		{Status{Health: Degraded, Clearance: Restricted, External: true}, ""},
		{Status{Health: Down, Clearance: Public, Signature: Signature{Status: SignatureVerified, KeyID: "k"}}, ""},
		{Status{Health: "healthy", Clearance: Internal}, `health "healthy": want up, degraded or down`},
		{Status{Health: "", Clearance: Internal}, `health "": want up, degraded or down`},
		{Status{Health: "UP", Clearance: Internal}, `health "UP": want up, degraded or down`},
		{Status{Health: Up, Clearance: "secret"}, `clearance "secret": want public, internal, confidential or restricted`},
		{Status{Health: Up}, `clearance "": want public, internal, confidential or restricted`},
		// Health is reported before clearance.
		{Status{Health: "sick", Clearance: "secret"}, `health "sick": want up, degraded or down`},
		// A verdict with only a reason is still a verdict nobody can read.
		{Status{Health: Up, Clearance: Internal, Signature: Signature{Reason: "x"}}, `signature status "": want verified, unsigned or invalid`},
		{Status{Health: Up, Clearance: Internal, Signature: Signature{Status: "ok"}}, `signature status "ok": want verified, unsigned or invalid`},
	}
	for _, c := range cases {
		err := c.st.Validate()
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("%+v.Validate() = %v, want %q", c.st, err, c.want)
		}
	}
}
