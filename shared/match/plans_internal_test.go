package match

import (
	"reflect"
	"strings"
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

// reported is pd with the probability its decision reports set apart
// from its best candidate's own.
func reported(pd PartDecision, prob float64) PartDecision {
	pd.Decision.Probability = prob
	return pd
}

// clarified is a part torn between two agents' skills at prob and second.
func clarified(part string, a string, prob float64, b string, second float64) PartDecision {
	x, y := opt(a, prob), opt(b, second)
	return PartDecision{Part: part, Decision: decide.Decision{Action: decide.Clarify, Probability: prob, Candidates: []decide.Option{x, y},
		Question: "Do you want " + a + " or " + b + "?", Reason: a + " and " + b + " do the same job under different data handling"},
		Options: []decide.Option{x, y}}
}

func TestAskPart(t *testing.T) {
	m := &Matcher{cfg: config{planSteps: 3}, policy: decide.DefaultPolicy}
	expense := opt("ledger/expense", 0.92)
	whole := decide.Decision{Action: decide.Delegate, Chosen: &expense, Probability: 0.92}
	tests := []struct {
		name  string
		whole decide.Decision
		parts []PartDecision
		want  decide.Action // "" keeps the whole decision
	}{
		{"a confident part torn between two agents is asked about",
			whole, []PartDecision{clarified("screen the resumes", "hr/screen", 0.9, "recruiter/screen", 0.1), delegated("ledger/expense", 0.92)}, decide.Clarify},
		{"a confident part between two lines of services is asked about, whatever share it reports",
			whole, []PartDecision{reported(clarified("find a film", "media/find-movies", 0.9, "movies/find-movies", 0.85), 0.48), delegated("ledger/expense", 0.92)}, decide.Clarify},
		{"a part torn between two weak matches changes nothing",
			whole, []PartDecision{clarified("thanks for the tickets", "events/buy", 0.4, "movies/buy", 0.35), delegated("ledger/expense", 0.92)}, ""},
		{"a part the whole's skill does is no question",
			whole, []PartDecision{clarified("file the expenses", "ledger/expense", 0.9, "other/expense", 0.2), delegated("ledger/expense", 0.92)}, ""},
		{"a part no skill takes changes nothing",
			whole, []PartDecision{{Part: "that sounds good", Decision: decide.Decision{Action: decide.Abstain}, Options: []decide.Option{opt("x/y", 0.2)}}, delegated("ledger/expense", 0.92)}, ""},
		{"no delegation to keep: nothing to ask",
			decide.Decision{Action: decide.Abstain}, []PartDecision{clarified("screen the resumes", "hr/screen", 0.9, "recruiter/screen", 0.1), delegated("ledger/expense", 0.92)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Plan(tt.whole, tt.parts)
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("Plan = %s (%s), want the whole decision kept", got.Action, got.Reason)
			case tt.want != "" && (got == nil || got.Action != tt.want):
				t.Errorf("Plan = %v, want %s", got, tt.want)
			case got != nil && (len(got.Candidates) != 2 || got.Question == ""):
				t.Errorf("the part's question is lost: %+v", got)
			}
		})
	}
}

// agentPart is a part delegated to key ("agent/skill") at prob, made by a
// loose cue or not.
func agentPart(key string, prob float64, loose bool) PartDecision {
	a, s, _ := strings.Cut(key, "/")
	o := decide.Option{Key: key, AgentID: a, SkillID: s, Prob: prob}
	return PartDecision{Part: key, Decision: decide.Decision{Action: decide.Delegate, Chosen: &o, Probability: prob},
		Options: []decide.Option{o}, Loose: loose}
}

// TestPlanLoose: parts a loose cue made ("check tomorrow's weather and
// book a hotel") make a plan only when each step is another agent's
// other job; two halves of one agent's job, or one job of two twin
// agents, keep the whole decision. Parts of an explicit cue plan as
// before.
func TestPlanLoose(t *testing.T) {
	m := &Matcher{cfg: config{planSteps: 3}, policy: decide.DefaultPolicy}
	weather := opt("weather/forecast", 0.98)
	whole := decide.Decision{Action: decide.Delegate, Chosen: &weather, Probability: 0.98}
	tests := []struct {
		name  string
		parts []PartDecision
		plan  bool
	}{
		{"two agents' jobs", []PartDecision{agentPart("weather/forecast", 0.99, true), agentPart("travel/hotel", 0.84, true)}, true},
		{"one agent's two jobs", []PartDecision{agentPart("work/pto-balance", 0.9, true), agentPart("work/pto-used", 0.8, true)}, false},
		{"twin agents' one job", []PartDecision{agentPart("rides-1/getride", 0.9, true), agentPart("rides-2/getride", 0.8, true)}, false},
		{"one agent's two jobs, explicit cue", []PartDecision{agentPart("work/pto-balance", 0.9, false), agentPart("work/pto-used", 0.8, false)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Plan(whole, tt.parts)
			if planned := got != nil && got.Action == decide.Plan; planned != tt.plan {
				t.Errorf("Plan = %+v, want a plan %v", got, tt.plan)
			}
		})
	}
}

// TestPlanMergesTwins: parts delegated to twins of one job, one of them
// the other's first fallback, are one step, as parts of one skill are:
// "can you call me a taxi to the venue? Make it a premium car" is one
// ride, not a ride from each of two services.
func TestPlanMergesTwins(t *testing.T) {
	m := &Matcher{cfg: config{planSteps: 3}, policy: decide.DefaultPolicy}
	abstained := decide.Decision{Action: decide.Abstain}
	tests := []struct {
		name  string
		parts []PartDecision
		steps []string // nil: no plan
	}{
		{"the second part to the first's twin", []PartDecision{agentPart("rides-1/getride", 0.9, false), twinOf("rides-2/getride", 0.7, "rides-1/getride", 0.3)}, nil},
		{"the first part to the second's twin", []PartDecision{twinOf("rides-2/getride", 0.7, "rides-1/getride", 0.3), agentPart("rides-1/getride", 0.9, false)}, nil},
		{"twins beside another job", []PartDecision{agentPart("rides-1/getride", 0.9, false), twinOf("rides-2/getride", 0.7, "rides-1/getride", 0.3),
			agentPart("hotels/book", 0.8, false)}, []string{"rides-1/getride", "hotels/book"}},
		{"a fallback that is no twin is another step", []PartDecision{agentPart("rides-1/getride", 0.9, false), {Decision: decide.Decision{Action: decide.Delegate,
			Chosen: &decide.Option{Key: "hotels/book", Prob: 0.9}, Fallbacks: []decide.Option{opt("rides-1/getride", 0.3)}, Probability: 0.9}}},
			[]string{"rides-1/getride", "hotels/book"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Plan(abstained, tt.parts)
			var steps []string
			if got != nil && got.Action == decide.Plan {
				for _, s := range got.Steps {
					steps = append(steps, s.Chosen.Key)
				}
			}
			if !reflect.DeepEqual(steps, tt.steps) {
				t.Errorf("plan steps %v, want %v (decision %+v)", steps, tt.steps, got)
			}
		})
	}
}

// TestSkipsFirst: an ordered request ("send me my statement, then set up
// a Direct Debit") whose whole delegation does only a later part, while
// no skill takes the first confidently, is abstained on rather than
// delegated to the later step alone. Parts merely listed ("Thanks. Can
// you find me a bus?"), a loose cue, a first part the whole's skill does
// or another skill takes keep the whole decision.
func TestSkipsFirst(t *testing.T) {
	m := &Matcher{cfg: config{planSteps: 3}, policy: decide.DefaultPolicy}
	debit := opt("rent/direct-debit", 0.91)
	whole := decide.Decision{Action: decide.Delegate, Chosen: &debit, Probability: 0.91}
	unsure := func(ordered, loose bool) PartDecision {
		return PartDecision{Part: "send me my rent statement", Decision: decide.Decision{Action: decide.Abstain, Probability: 0.35},
			Options: []decide.Option{opt("rent/balance", 0.35), opt("rent/arrears", 0.2), opt("rent/repairs", 0.1)}, Ordered: ordered, Loose: loose}
	}
	later := func(ordered, loose bool) PartDecision {
		pd := delegated("rent/direct-debit", 0.99)
		pd.Part, pd.Ordered, pd.Loose = "set up a Direct Debit", ordered, loose
		return pd
	}
	tests := []struct {
		name    string
		parts   []PartDecision
		abstain bool
	}{
		{"an ordered request's later step alone", []PartDecision{unsure(true, false), later(true, false)}, true},
		{"parts merely listed", []PartDecision{unsure(false, false), later(false, false)}, false},
		{"a loose cue", []PartDecision{unsure(true, true), later(true, true)}, false},
		{"the first part near the whole's skill", []PartDecision{
			{Decision: decide.Decision{Action: decide.Abstain}, Options: []decide.Option{opt("rent/balance", 0.35), opt("rent/direct-debit", 0.3)}, Ordered: true},
			later(true, false)}, false},
		{"the first part in order, the later one unsure", []PartDecision{later(true, false), unsure(true, false)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Plan(whole, tt.parts)
			if abstained := got != nil && got.Action == decide.Abstain; abstained != tt.abstain {
				t.Errorf("Plan = %+v, want an abstention %v", got, tt.abstain)
			}
		})
	}
}

// TestWholeStepsIn: an ordered request with one confident part whose whole
// delegation goes to another skill doing a part no skill takes alone is
// planned as both, in the request's order; parts merely listed, a loose
// cue, a whole skill that does the confident part or is its step, and a
// whole skill near no other part keep the usual decision.
func TestWholeStepsIn(t *testing.T) {
	m := &Matcher{cfg: config{planSteps: 3}, policy: decide.DefaultPolicy}
	repair := opt("facilities/repair", 0.76)
	whole := decide.Decision{Action: decide.Delegate, Chosen: &repair, Probability: 0.76}
	report := func(ordered, loose bool) PartDecision {
		pd := delegated("safety/incident-report", 0.79, opt("facilities/repair", 0.41))
		pd.Part, pd.Ordered, pd.Loose = "a driver tripped on the broken step - report it", ordered, loose
		return pd
	}
	unsure := func(ordered, loose bool, near string) PartDecision {
		return PartDecision{Part: "get the step repaired", Decision: decide.Decision{Action: decide.Abstain, Probability: 0.14},
			Options: []decide.Option{opt("tanks/septic-emptying", 0.14), opt(near, 0.12), opt("gates/gate-repair", 0.1)}, Ordered: ordered, Loose: loose}
	}
	tests := []struct {
		name  string
		whole decide.Decision
		parts []PartDecision
		want  []string // the plan's steps; nil: no plan
	}{
		{"the confident part first", whole, []PartDecision{report(true, false), unsure(true, false, "facilities/repair")},
			[]string{"safety/incident-report", "facilities/repair"}},
		{"the confident part second", whole, []PartDecision{unsure(true, false, "facilities/repair"), report(true, false)},
			[]string{"facilities/repair", "safety/incident-report"}},
		{"parts merely listed", whole, []PartDecision{report(false, false), unsure(false, false, "facilities/repair")}, nil},
		{"a loose cue", whole, []PartDecision{report(true, true), unsure(true, true, "facilities/repair")}, nil},
		{"the whole skill near no other part", whole, []PartDecision{report(true, false), unsure(true, false, "gardens/tree-care")}, nil},
		{"the whole skill is the confident step", decide.Decision{Action: decide.Delegate, Chosen: &report(true, false).Options[0], Probability: 0.79},
			[]PartDecision{report(true, false), unsure(true, false, "safety/incident-report")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Plan(tt.whole, tt.parts)
			var keys []string
			if got != nil && got.Action == decide.Plan {
				for _, s := range got.Steps {
					keys = append(keys, s.Chosen.Key)
				}
				if got.Probability != min(0.79, tt.whole.Probability) {
					t.Errorf("plan probability %.2f, want the lower step's", got.Probability)
				}
			}
			if !reflect.DeepEqual(keys, tt.want) {
				t.Errorf("Plan = %+v, want steps %v", got, tt.want)
			}
		})
	}
}
