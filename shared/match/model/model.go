// Package model holds what `skillmatch fit` learned: reranker weights,
// calibration and optionally the training tasks' texts as extra examples.
package model

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
)

// FormatVersion is the model file format this build reads and writes.
const FormatVersion = 1

// Model is a fitted model file.
type Model struct {
	Format int `json:"format"`
	// Embedder is the id of the embedder the model was fitted with; the
	// features (and so the weights) depend on it.
	Embedder    string           `json:"embedder"`
	Reranker    rerank.Weights   `json:"reranker"`
	Calibration *calibrate.Model `json:"calibration"`
	// Examples are extra example texts per skill key ("<agent>/<skill>"),
	// indexed like the card's own examples. Empty in a domain-neutral model.
	Examples map[string][]string `json:"examples,omitempty"`
	// Remote calibrates the fits of remote rerankers, by kind ("llm",
	// "systemone"): `skillmatch fit --reranker llm` fits one. The learned
	// reranker's Calibration stays for when the remote one is down.
	Remote map[string]*calibrate.Model `json:"remote,omitempty"`
	// SiblingsCalibrated says the calibration already gives a best
	// candidate beside its sibling (a same-named skill of another agent,
	// see decide.Option.Sibling) the probability that one of the two is
	// right: fit found it so on its held-out tasks, which count a
	// sibling right. The decider then does not pool the pair's
	// probabilities again (decide.Option.PairCalibrated).
	SiblingsCalibrated bool    `json:"siblingsCalibrated,omitempty"`
	Fitted             FitInfo `json:"fitted"`
}

// RemoteCalibration is the calibration of a remote reranker's fits: the
// model's fitted one for kind, else a neutral default — fit 5 of 10 is an
// even chance, 8 about 0.9 — until `skillmatch fit --reranker` fits one.
func (m *Model) RemoteCalibration(kind string) calibrate.Calibrator {
	if c := m.Remote[kind]; c != nil {
		return c
	}
	c, _ := calibrate.NewPlatt(calibrate.Platt{A: -0.8, B: 4})
	return c
}

// FitInfo records where a model came from.
type FitInfo struct {
	Set      string             `json:"set"`
	Split    string             `json:"split"`
	Tasks    int                `json:"tasks"`
	Folds    int                `json:"folds"`
	Examples bool               `json:"examples"`
	Figures  map[string]float64 `json:"figures,omitempty"`
}

// ErrInvalidModel marks a model file that cannot be used.
var ErrInvalidModel = errors.New("invalid model")

// Parse reads and checks a model file's bytes.
func Parse(data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidModel, err)
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("%w: format %d, this build reads %d", ErrInvalidModel, m.Format, FormatVersion)
	}
	if _, err := rerank.NewLearned(m.Reranker); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidModel, err)
	}
	if m.Calibration == nil {
		return nil, fmt.Errorf("%w: no calibration", ErrInvalidModel)
	}
	return &m, nil
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	return m, nil
}

// Save writes the model as indented JSON.
func (m *Model) Save(path string) error {
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	return nil
}

//go:embed default.json
var defaultModel []byte

// Default returns the domain-neutral model built into the binary: weights
// and calibration only, no examples.
func Default() *Model {
	m, err := Parse(defaultModel)
	if err != nil {
		panic(fmt.Sprintf("built-in model: %v", err)) // a build defect, caught by tests
	}
	return m
}
