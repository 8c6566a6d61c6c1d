package match_test

import (
	"context"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/model"
)

// overconfident says every fit is a sure thing: self-calibration must
// then find the catalog's no-match pseudo-requests delegated and raise the
// threshold as far as it may.
type overconfident struct{}

func (overconfident) Prob(float64) float64 { return 0.99 }

func TestSelfCalibration(t *testing.T) {
	cat := buildCatalog(t, honest()...)
	base := decide.DefaultPolicy
	tests := []struct {
		name     string
		opts     []match.Option
		wantNil  bool
		min, max float64 // threshold in force
	}{
		{name: "off by default", wantNil: true, min: base.Threshold, max: base.Threshold},
		{name: "built-in model: never below the policy's threshold",
			opts: []match.Option{match.WithSelfCalibration(true)}, min: base.Threshold, max: base.Threshold + 0.15},
		{name: "over-confident calibration: raised to the cap",
			opts: []match.Option{match.WithSelfCalibration(true), match.WithCalibrator(overconfident{})},
			min:  base.Threshold + 0.15 - 1e-9, max: base.Threshold + 0.15 + 1e-9},
		{name: "cautious calibration: left alone",
			opts: []match.Option{match.WithSelfCalibration(true), match.WithCalibrator(constCal(0.1))},
			min:  base.Threshold, max: base.Threshold},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(t, cat, tt.opts...)
			sc := m.SelfCalibration()
			if (sc == nil) != tt.wantNil {
				t.Fatalf("SelfCalibration() = %+v, want nil %v", sc, tt.wantNil)
			}
			if th := m.Policy().Threshold; th < tt.min || th > tt.max {
				t.Errorf("threshold %v, want in [%v, %v]", th, tt.min, tt.max)
			}
			if sc != nil && (sc.Queries < 12 || sc.Threshold != m.Policy().Threshold) {
				t.Errorf("self-calibration %+v: want ≥ 12 queries and the threshold in force", sc)
			}
		})
	}
}

// The same catalog and model give the same threshold: load time adapts
// deterministically.
func TestSelfCalibrationDeterministic(t *testing.T) {
	cat := buildCatalog(t, honest()...)
	a := newMatcher(t, cat, match.WithSelfCalibration(true)).SelfCalibration()
	b := newMatcher(t, cat, match.WithSelfCalibration(true)).SelfCalibration()
	if *a != *b {
		t.Errorf("two loads differ: %+v vs %+v", a, b)
	}
}

// A catalog too small to say anything keeps the policy as it is.
func TestSelfCalibrationSmallCatalog(t *testing.T) {
	cat := buildCatalog(t, honest()[:2]...)
	m := newMatcher(t, cat, match.WithSelfCalibration(true), match.WithCalibrator(overconfident{}))
	if sc := m.SelfCalibration(); sc != nil || m.Policy().Threshold != decide.DefaultPolicy.Threshold {
		t.Errorf("small catalog: self-calibration %+v, threshold %v", sc, m.Policy().Threshold)
	}
}

// The shortlist carries the word alignment the reranker reads: a request
// that shares no content word with the payment skill still aligns with
// it better than with the weather forecast.
func TestShortlistAlignment(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, honest()...), match.WithModel(model.Default()))
	req := m.Extract(textTask("t", "get the cash out to the vendors we owe"))
	sl, err := m.Shortlist(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	align := map[string]float32{}
	for _, c := range sl.Retrieval.Candidates {
		align[c.Entry.Key] = c.Align
		if c.Align < 0 || c.Align > 1 || c.AlignLabel < 0 || c.AlignLabel > 1 {
			t.Errorf("%s: alignment %v / %v outside [0, 1]", c.Entry.Key, c.Align, c.AlignLabel)
		}
	}
	pay, weather := align["ledger-bot/release-payments"], align["atlas-weather/forecast"]
	if !(pay > weather) {
		t.Errorf("align payments %v, weather %v: want payments above", pay, weather)
	}
}

var _ calibrate.Calibrator = overconfident{}
