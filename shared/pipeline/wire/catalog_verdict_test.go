package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
)

const verdictCard = `{"name":"Weather","defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
	`"skills":[{"id":"forecast","name":"Forecast","description":"Forecasts the weather."}]}`

func TestCatalogEntryVerdict(t *testing.T) {
	// Entries written before verdicts existed still decode, unchecked.
	for _, old := range []string{
		`{"v":1,"card":` + verdictCard + `}`,
		`{"v":1,"card":` + verdictCard + `,"status":{"health":"degraded","clearance":"public","external":true}}`,
	} {
		a, err := DecodeCatalogEntry("weather", []byte(old))
		if err != nil {
			t.Fatalf("old entry: %v", err)
		}
		if a.Status.Signature.Checked() {
			t.Errorf("old entry has a verdict: %+v", a.Status)
		}
	}

	// A verdict reaches the agent.
	st := catalog.DefaultStatus
	st.Signature = catalog.Signature{Status: catalog.SignatureVerified, KeyID: "fleet", Reason: "signatures[0] verified"}
	data, err := NewCatalogEntry("weather", []byte(verdictCard), &st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"signature":{"status":"verified","keyId":"fleet"`) {
		t.Errorf("entry %s", data)
	}
	a, err := DecodeCatalogEntry("weather", data)
	if err != nil || a.Status != st {
		t.Errorf("decoded %+v (%v), want %+v", a.Status, err, st)
	}

	// A verdict nobody can read is refused, like an unknown health.
	bad := `{"v":1,"card":` + verdictCard + `,"status":{"health":"up","signature":{"status":"trusted-me"}}}`
	if _, err := DecodeCatalogEntry("weather", []byte(bad)); !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), "trusted-me") {
		t.Errorf("unknown signature status: %v", err)
	}
	st.Signature.Status = "maybe"
	if _, err := NewCatalogEntry("weather", []byte(verdictCard), &st); err == nil {
		t.Error("NewCatalogEntry accepted an unknown signature status")
	}
}
