package model

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func TestDefaultModelIsDomainNeutral(t *testing.T) {
	m := Default()
	if len(m.Examples) != 0 {
		t.Errorf("the built-in model carries %d skills' examples; it must hold weights and calibration only", len(m.Examples))
	}
	if m.Embedder != embed.Default().ID() {
		t.Errorf("built-in model fitted with embedder %q, binary embeds with %q: refit with make default-model", m.Embedder, embed.Default().ID())
	}
	nonzero := 0
	for _, w := range m.Reranker.W {
		if w != 0 {
			nonzero++
		}
	}
	if nonzero == 0 || m.Reranker.Stack == nil {
		t.Error("the built-in model is not fitted")
	}
	lo, hi := m.Calibration.Prob(0), m.Calibration.Prob(10)
	if !(lo < 0.2 && hi > 0.8) {
		t.Errorf("calibration maps fit 0 → %.2f and fit 10 → %.2f", lo, hi)
	}
}

func TestParseRejects(t *testing.T) {
	tests := map[string]string{
		"not json":       `{`,
		"wrong format":   `{"format": 99}`,
		"no calibration": `{"format": 1, "reranker": {"features": [], "mean": [], "scale": [], "w": []}}`,
		"bad weights":    `{"format": 1, "reranker": {"features": ["nope"], "mean": [0], "scale": [1], "w": [1]}, "calibration": {"method": "platt", "a": -1, "b": 0}}`,
	}
	for name, data := range tests {
		if _, err := Parse([]byte(data)); !errors.Is(err, ErrInvalidModel) {
			t.Errorf("%s: err %v, want ErrInvalidModel", name, err)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	m := Default()
	m.Examples = map[string][]string{"a/b": {"an extra example"}}
	p := filepath.Join(t.TempDir(), "m.json")
	if err := m.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Examples["a/b"][0] != "an extra example" || back.Calibration.Prob(5) != m.Calibration.Prob(5) {
		t.Error("round trip lost data")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
