package match_test

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

func hotelAgent() agentSpec {
	return agentSpec{ID: "stay-well", Name: "Stay Well", Desc: "Travel lodging.",
		Skills: []skillSpec{{ID: "hotel", Name: "Hotel reservations", Desc: "Reserves hotel rooms for a stay in a city.",
			Tags: []string{"hotel", "lodging"}, Examples: []string{"get me a hotel room in Madrid for three nights", "reserve a hotel near the conference centre"}}}}
}

// A request whose only tie to a skill is one common word ("room") is not
// delegated to it with confidence: the skill stays the best match, its
// probability drops under the threshold. The skill's own requests still
// delegate.
func TestThinLinkIsNotDelegated(t *testing.T) {
	m := newMatcher(t, buildCatalog(t, append(honest(), hotelAgent())...))
	tests := []struct {
		name     string
		text     string
		top      string
		delegate bool
	}{
		{"one common word", "play some jazz in the living room", "stay-well/hotel", false},
		{"the skill's own request", "reserve a hotel room in Vienna for two nights", "stay-well/hotel", true},
		{"another skill's request", "will it rain in Oslo tomorrow afternoon?", "atlas-weather/forecast", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustMatch(t, m, textTask("t", tt.text))
			opts := ordered(m, res)
			if len(opts) == 0 || opts[0].Key != tt.top {
				t.Fatalf("ranked %v, want %s first", rankedKeys(res), tt.top)
			}
			d := res.Decision
			if got := d.Action == decide.Delegate; got != tt.delegate {
				t.Errorf("%s at %.2f (%s), want delegated %v", d.Action, d.Probability, d.Reason, tt.delegate)
			}
			if !tt.delegate && opts[0].Prob >= m.Policy().Threshold {
				t.Errorf("top probability %.2f, want under the threshold %.2f", opts[0].Prob, m.Policy().Threshold)
			}
		})
	}
}
