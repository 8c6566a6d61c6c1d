package match

import (
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

func opt(key string, prob float64) decide.Option { return decide.Option{Key: key, Prob: prob} }

func delegated(key string, prob float64, rest ...decide.Option) PartDecision {
	o := opt(key, prob)
	return PartDecision{Decision: decide.Decision{Action: decide.Delegate, Chosen: &o, Probability: prob}, Options: append([]decide.Option{o}, rest...)}
}

// twinOf is a part delegated to key with its twin of as the first fallback
// (decide pools the two).
func twinOf(key string, prob float64, of string, ofProb float64) PartDecision {
	o, f := opt(key, prob), opt(of, ofProb)
	f.AlikeOf, f.Alike = key, decide.AlikeTwin
	return PartDecision{Decision: decide.Decision{Action: decide.Delegate, Chosen: &o, Fallbacks: []decide.Option{f}, Probability: 0.76},
		Options: []decide.Option{o, f}}
}

func TestCovers(t *testing.T) {
	abstained := PartDecision{Decision: decide.Decision{Action: decide.Abstain}, Options: []decide.Option{opt("b", 0.5), opt("a", 0.4)}}
	tests := []struct {
		name  string
		parts []PartDecision
		want  bool
	}{
		{"every part chose it", []PartDecision{delegated("a", 0.9), delegated("a", 0.8)}, true},
		{"near the top of an undecided part", []PartDecision{delegated("a", 0.9), abstained}, true},
		{"another skill is confident for a part", []PartDecision{delegated("a", 0.9), delegated("b", 0.95, opt("a", 0.3))}, false},
		{"confident itself beside another choice", []PartDecision{delegated("a", 0.9), delegated("b", 0.95, opt("a", 0.75))}, true},
		{"a part delegated to its twin, it the first fallback", []PartDecision{delegated("a", 0.9), twinOf("b", 0.6, "a", 0.4)}, true},
		{"a part delegated elsewhere, it a fallback but no twin", []PartDecision{delegated("a", 0.9), {Decision: decide.Decision{Action: decide.Delegate,
			Chosen: &decide.Option{Key: "b", Prob: 0.9}, Fallbacks: []decide.Option{opt("a", 0.3)}}, Options: []decide.Option{opt("b", 0.9), opt("a", 0.3)}}}, false},
		{"absent from a part's top", []PartDecision{delegated("a", 0.9), {Decision: decide.Decision{Action: decide.Abstain},
			Options: []decide.Option{opt("b", 0.5), opt("c", 0.4), opt("d", 0.3), opt("a", 0.2)}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := covers("a", tt.parts, 0.7); got != tt.want {
				t.Errorf("covers = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCapSteps(t *testing.T) {
	steps := []decide.Step{
		{Chosen: opt("a", 0.8), Probability: 0.8},
		{Chosen: opt("b", 0.99), Probability: 0.99},
		{Chosen: opt("c", 0.75), Probability: 0.75},
		{Chosen: opt("d", 0.9), Probability: 0.9},
	}
	var keys []string
	for _, s := range capSteps(steps, 3) {
		keys = append(keys, s.Chosen.Key)
	}
	if want := []string{"a", "b", "d"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("capSteps kept %v, want the three most probable in request order %v", keys, want)
	}
	if got := capSteps(steps[:2], 3); len(got) != 2 {
		t.Errorf("under the cap: %d steps", len(got))
	}
}
