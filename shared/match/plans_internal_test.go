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
