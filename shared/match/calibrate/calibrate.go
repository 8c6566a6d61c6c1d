// Package calibrate turns raw match scores into probabilities that a skill
// really fits a task, fitted on labelled examples, and measures how well
// probabilities are calibrated.
//
// Two methods are offered. Platt scaling fits a logistic curve: two
// parameters, robust with a few dozen labels, but it forces a sigmoid shape.
// Isotonic regression fits any monotone shape but needs many labels of each
// class to be stable. Fit chooses between them by the number of labels.
package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Calibrator maps a score to the probability of a positive label.
type Calibrator interface {
	Prob(score float64) float64
}

// DefaultMinIsotonic is the number of labels of each class from which Fit
// prefers isotonic regression to Platt scaling. Below a few hundred per
// class the PAV blocks are small and their rates noisy; Niculescu-Mizil and
// Caruana (2005) found Platt better below roughly a thousand examples.
const DefaultMinIsotonic = 200

// Method names, as they appear in a Model's JSON.
const (
	MethodPlatt    = "platt"
	MethodIsotonic = "isotonic"
)

// Errors for input no calibrator can be fitted on.
var (
	ErrEmpty       = errors.New("calibrate: no scores")
	ErrSingleClass = errors.New("calibrate: labels must include both classes")
)

// Option configures Fit.
type Option func(*options)

type options struct {
	minIsotonic int
}

// WithMinIsotonic sets how many labels of each class Fit needs before it
// chooses isotonic regression (DefaultMinIsotonic by default). Values ≤ 0
// always choose isotonic.
func WithMinIsotonic(n int) Option {
	return func(o *options) { o.minIsotonic = n }
}

// Model is a fitted calibrator that remembers its method, so it can be
// saved as JSON and read back:
//
//	{"method":"platt","a":-1.7,"b":3.2}
//	{"method":"isotonic","x":[...],"y":[...]}
//
// The zero Model is not usable: get one from Fit, NewPlatt, NewIsotonic or
// json.Unmarshal. Its methods have value receivers, so a Model marshals
// correctly whether it is stored by value or by pointer.
type Model struct {
	method string
	platt  Platt
	iso    Isotonic
}

// Fit fits a calibrator to scores and their labels: isotonic regression
// when there are at least MinIsotonic labels of each class, Platt scaling
// otherwise. It returns an error when the input is empty, mismatched,
// non-finite, or has only one class.
func Fit(scores []float64, labels []bool, opts ...Option) (*Model, error) {
	o := options{minIsotonic: DefaultMinIsotonic}
	for _, opt := range opts {
		opt(&o)
	}
	pos, neg, err := check(scores, labels)
	if err != nil {
		return nil, err
	}
	if pos >= o.minIsotonic && neg >= o.minIsotonic {
		iso, err := FitIsotonic(scores, labels)
		if err != nil {
			return nil, err
		}
		return &Model{method: MethodIsotonic, iso: iso}, nil
	}
	p, err := FitPlatt(scores, labels)
	if err != nil {
		return nil, err
	}
	return &Model{method: MethodPlatt, platt: p}, nil
}

// NewPlatt wraps Platt parameters in a Model.
func NewPlatt(p Platt) (*Model, error) {
	if !finite(p.A) || !finite(p.B) {
		return nil, fmt.Errorf("calibrate: platt parameters must be finite, got a=%v b=%v", p.A, p.B)
	}
	return &Model{method: MethodPlatt, platt: p}, nil
}

// NewIsotonic wraps an isotonic map in a Model after checking that X is
// strictly increasing and Y a non-decreasing run of probabilities.
func NewIsotonic(iso Isotonic) (*Model, error) {
	if err := iso.validate(); err != nil {
		return nil, err
	}
	return &Model{method: MethodIsotonic, iso: iso}, nil
}

// Method is MethodPlatt or MethodIsotonic.
func (m Model) Method() string { return m.method }

// Prob maps a score to a probability with the fitted method. It panics on
// the zero Model, which has no method to apply.
func (m Model) Prob(score float64) float64 {
	switch m.method {
	case MethodPlatt:
		return m.platt.Prob(score)
	case MethodIsotonic:
		return m.iso.Prob(score)
	}
	panic("calibrate: Prob on a Model that was never fitted")
}

// modelJSON is the wire form of a Model. Pointers tell a missing Platt
// parameter from a zero one.
type modelJSON struct {
	Method string    `json:"method"`
	A      *float64  `json:"a,omitempty"`
	B      *float64  `json:"b,omitempty"`
	X      []float64 `json:"x,omitempty"`
	Y      []float64 `json:"y,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (m Model) MarshalJSON() ([]byte, error) {
	switch m.method {
	case MethodPlatt:
		return json.Marshal(modelJSON{Method: m.method, A: &m.platt.A, B: &m.platt.B})
	case MethodIsotonic:
		return json.Marshal(modelJSON{Method: m.method, X: m.iso.X, Y: m.iso.Y})
	}
	return nil, errors.New("calibrate: cannot marshal a Model that was never fitted")
}

// UnmarshalJSON implements json.Unmarshaler. It validates what it reads, so
// a hand-edited or truncated file fails here rather than producing
// nonsense probabilities later.
func (m *Model) UnmarshalJSON(data []byte) error {
	var w modelJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var (
		got *Model
		err error
	)
	switch w.Method {
	case MethodPlatt:
		if w.A == nil || w.B == nil {
			return errors.New(`calibrate: platt model needs "a" and "b"`)
		}
		got, err = NewPlatt(Platt{A: *w.A, B: *w.B})
	case MethodIsotonic:
		got, err = NewIsotonic(Isotonic{X: w.X, Y: w.Y})
	default:
		return fmt.Errorf("calibrate: unknown method %q", w.Method)
	}
	if err != nil {
		return err
	}
	*m = *got
	return nil
}

// check validates training input and counts each class.
func check(scores []float64, labels []bool) (pos, neg int, err error) {
	if len(scores) != len(labels) {
		return 0, 0, fmt.Errorf("calibrate: %d scores but %d labels", len(scores), len(labels))
	}
	if len(scores) == 0 {
		return 0, 0, ErrEmpty
	}
	for i, s := range scores {
		if !finite(s) {
			return 0, 0, fmt.Errorf("calibrate: score %d is %v", i, s)
		}
		if labels[i] {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return 0, 0, ErrSingleClass
	}
	return pos, neg, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
