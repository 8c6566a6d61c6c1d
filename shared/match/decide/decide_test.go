package decide

import (
	"math"
	"strings"
	"testing"
)

func opt(key string, p float64) Option {
	agent, skill, _ := strings.Cut(key, "/")
	return Option{Key: key, AgentID: agent, SkillID: skill, Prob: p}
}

func unnamed(o Option) Option { o.Unnamed = true; return o }

func TestDecide(t *testing.T) {
	p := DefaultPolicy
	tests := []struct {
		name      string
		opts      []Option
		action    Action
		chosen    string
		fallbacks []string
		reason    string
	}{
		{"nothing passes", nil, Abstain, "", nil, "no skill passes constraints"},
		{"clear winner", []Option{opt("a/x", 0.9), opt("b/y", 0.3), opt("c/z", 0.25), opt("d/w", 0.21)},
			Delegate, "a/x", []string{"b/y", "c/z"}, "best match a/x at 0.90"},
		{"at threshold", []Option{opt("a/x", 0.7), opt("b/y", 0.5)}, Delegate, "a/x", []string{"b/y"}, ""},
		{"fallbacks need a floor", []Option{opt("a/x", 0.9), opt("b/y", 0.1)}, Delegate, "a/x", nil, ""},
		{"close, same agent", []Option{opt("a/x", 0.8), opt("a/y", 0.75)}, Delegate, "a/x", []string{"a/y"}, "same agent"},
		{"close, different agents", []Option{opt("a/x", 0.8), opt("b/y", 0.75)}, Clarify, "", nil, "top two are close"},
		{"close and both low", []Option{opt("a/x", 0.3), opt("b/y", 0.25)}, Abstain, "", nil, "best match only 0.30"},
		{"below threshold, clear lead", []Option{opt("a/x", 0.41), opt("b/y", 0.05)}, Abstain, "", nil, "best match only 0.41"},
		{"neither alone, together likely", []Option{opt("a/x", 0.5), opt("b/y", 0.3)}, Clarify, "", nil, "together they are"},
		{"together likely, same agent", []Option{opt("a/x", 0.5), opt("a/y", 0.3)}, Abstain, "", nil, "best match only 0.50"},
		{"together likely, runner-up no fallback", []Option{opt("a/x", 0.6), opt("b/y", 0.15)}, Abstain, "", nil, "best match only 0.60"},
		{"together short of the threshold", []Option{opt("a/x", 0.45), opt("b/y", 0.2)}, Abstain, "", nil, "best match only 0.45"},
		{"single low candidate", []Option{opt("a/x", 0.5)}, Abstain, "", nil, "best match only 0.50"},
		{"margin just enough", []Option{opt("a/x", 0.85), opt("b/y", 0.69)}, Delegate, "a/x", []string{"b/y"}, ""},
		{"request names nothing of the job", []Option{unnamed(opt("a/x", 0.99)), opt("b/y", 0.1)}, Abstain, "", nil, "does not say what it is about"},
		{"unnamed beside a look-alike", []Option{unnamed(opt("a/x", 0.9)), alike(opt("b/x", 0.0), "a/x", AlikeDiffers)}, Abstain, "", nil, "does not say what it is about"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(tt.opts)
			if d.Action != tt.action {
				t.Fatalf("action %s, want %s (%s)", d.Action, tt.action, d.Reason)
			}
			if tt.chosen != "" && (d.Chosen == nil || d.Chosen.Key != tt.chosen) {
				t.Fatalf("chosen %+v, want %s", d.Chosen, tt.chosen)
			}
			if tt.action != Delegate && d.Chosen != nil {
				t.Fatalf("%s carries a chosen skill", d.Action)
			}
			var fb []string
			for _, f := range d.Fallbacks {
				fb = append(fb, f.Key)
			}
			if strings.Join(fb, ",") != strings.Join(tt.fallbacks, ",") {
				t.Errorf("fallbacks %v, want %v", fb, tt.fallbacks)
			}
			if !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", d.Reason, tt.reason)
			}
		})
	}
}

func TestClarifyQuestionNamesBoth(t *testing.T) {
	a := Option{Key: "bank/transfer", AgentID: "bank", SkillID: "transfer", AgentName: "Bank", SkillName: "Transfer money", Prob: 0.8}
	b := Option{Key: "pay/send", AgentID: "pay", SkillID: "send", AgentName: "Payments", SkillName: "Send a payment", Prob: 0.78}
	d := DefaultPolicy.Decide([]Option{a, b})
	if d.Action != Clarify {
		t.Fatalf("action %s", d.Action)
	}
	for _, want := range []string{"Transfer money", "Bank", "Send a payment", "Payments"} {
		if !strings.Contains(d.Question, want) {
			t.Errorf("question %q does not name %q", d.Question, want)
		}
	}
	if len(d.Candidates) != 2 {
		t.Errorf("candidates %v", d.Candidates)
	}
}

func TestOrderDemotesDegradedOnlyNearTies(t *testing.T) {
	p := DefaultPolicy
	degraded := opt("slow/x", 0.82)
	degraded.Demoted = true
	healthy := opt("fast/y", 0.80)
	opts := []Option{degraded, healthy}
	p.Order(opts)
	if opts[0].Key != "fast/y" {
		t.Errorf("near tie: degraded first: %v", opts)
	}
	clear := opt("slow/x", 0.95)
	clear.Demoted = true
	opts = []Option{healthy, clear}
	p.Order(opts)
	if opts[0].Key != "slow/x" {
		t.Errorf("clear lead: degraded should stay first: %v", opts)
	}
}

func TestDegradedFallbacksLast(t *testing.T) {
	d1 := opt("slow/a", 0.6)
	d1.Demoted = true
	d := DefaultPolicy.Decide([]Option{opt("top/x", 0.95), d1, opt("ok/b", 0.5), opt("ok/c", 0.4)})
	var fb []string
	for _, f := range d.Fallbacks {
		fb = append(fb, f.Key)
	}
	if strings.Join(fb, ",") != "ok/b,ok/c" {
		t.Errorf("fallbacks %v, want healthy ones first", fb)
	}
}

func sib(o Option) Option {
	o.Sibling = true
	return o
}

func alike(o Option, of string, a Alike) Option {
	o.AlikeOf, o.Alike = of, a
	return o
}

// A look-alike of the best skill from another agent: a twin (same data
// handling) is the first fallback whatever its probability; one that
// handles data differently makes the decider ask, naming both.
func TestDecideLookAlikes(t *testing.T) {
	p := DefaultPolicy
	tests := []struct {
		name      string
		opts      []Option
		action    Action
		chosen    string
		fallbacks []string
		asks      []string
	}{
		{"twin is the first fallback", []Option{opt("a/x", 0.9), opt("c/z", 0.3), alike(opt("b/x", 0.02), "a/x", AlikeTwin)},
			Delegate, "a/x", []string{"b/x", "c/z"}, nil},
		{"twin below the threshold changes nothing", []Option{opt("a/x", 0.5), alike(opt("b/x", 0.02), "a/x", AlikeTwin)},
			Abstain, "", nil, nil},
		{"siblings pool their probability", []Option{opt("a/x", 0.57), sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin))},
			Delegate, "a/x", []string{"b/x"}, nil},
		{"other twins do not pool", []Option{opt("a/x", 0.57), alike(opt("b/x", 0.47), "a/x", AlikeTwin)},
			Clarify, "", nil, nil},
		{"a tie-break put the sibling first", []Option{sib(alike(opt("b/x", 0.46), "a/x", AlikeTwin)), opt("a/x", 0.45)},
			Delegate, "b/x", []string{"a/x"}, nil},
		{"a degraded sibling is not pooled", []Option{opt("a/x", 0.57), demoted(sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin)))},
			Clarify, "", nil, nil},
		{"pooled siblings still need the threshold", []Option{opt("a/x", 0.4), sib(alike(opt("b/x", 0.3), "a/x", AlikeTwin))},
			Clarify, "", nil, nil},
		{"a different handling is never pooled", []Option{opt("a/x", 0.6), sib(alike(opt("b/x", 0.5), "a/x", AlikeDiffers))},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"different handling asks", []Option{opt("a/x", 0.95), opt("c/z", 0.1), alike(opt("b/x", 0.02), "a/x", AlikeDiffers)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"different handling, best too weak to ask about", []Option{opt("a/x", 0.2), alike(opt("b/x", 0.02), "a/x", AlikeDiffers)},
			Abstain, "", nil, nil},
		{"different handling, the pair worth a question", []Option{opt("a/x", 0.31), opt("c/z", 0.2), alike(opt("b/x", 0.12), "a/x", AlikeDiffers)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"a copy, the pair worth a question", []Option{opt("a/x", 0.25), alike(opt("b/x", 0.15), "a/x", AlikeCopy)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"twins under the floor are no question", []Option{opt("a/x", 0.31), alike(opt("b/x", 0.12), "a/x", AlikeTwin)},
			Abstain, "", nil, nil},
		{"another line, the pair alone no question", []Option{opt("a/x", 0.31), alike(opt("b/x", 0.12), "a/x", AlikeOtherLine)},
			Abstain, "", nil, nil},
		{"same name, another agent asks", []Option{opt("a/x", 0.95), opt("c/z", 0.1), alike(opt("b/x", 0.02), "a/x", AlikeImpostor)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"same name, best too weak to ask about", []Option{opt("a/x", 0.2), alike(opt("b/x", 0.02), "a/x", AlikeImpostor)},
			Abstain, "", nil, nil},
		{"a copied card asks, however confident the best one", []Option{opt("a/x", 0.99), alike(opt("b/x", 0.9), "a/x", AlikeCopy)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"a copy ranked first asks too", []Option{opt("b/x", 0.9), opt("c/z", 0.1), alike(opt("a/x", 0.5), "b/x", AlikeCopy)},
			Clarify, "", nil, []string{"b/x", "a/x"}},
		{"a copy, best too weak to ask about", []Option{opt("a/x", 0.2), alike(opt("b/x", 0.02), "a/x", AlikeCopy)},
			Abstain, "", nil, nil},
		{"another line of services asks, however confident the best one", []Option{opt("a/x", 0.95), alike(opt("b/x", 0.3), "a/x", AlikeOtherLine)},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"another line of services is never pooled", []Option{opt("a/x", 0.6), sib(alike(opt("b/x", 0.5), "a/x", AlikeOtherLine))},
			Clarify, "", nil, []string{"a/x", "b/x"}},
		{"a sibling before another line delegates, never to the other line", []Option{opt("a/x", 0.6), sib(alike(opt("b/x", 0.5), "a/x", AlikeTwin)), alike(opt("c/x", 0.3), "a/x", AlikeOtherLine), opt("d/y", 0.25)},
			Delegate, "a/x", []string{"b/x", "d/y"}, nil},
		{"another line, best too weak to ask about", []Option{opt("a/x", 0.2), alike(opt("b/x", 0.02), "a/x", AlikeOtherLine)},
			Abstain, "", nil, nil},
		{"look-alike of another skill is ignored", []Option{opt("a/x", 0.9), alike(opt("b/x", 0.3), "c/z", AlikeDiffers)},
			Delegate, "a/x", []string{"b/x"}, nil},
		{"same agent is not a look-alike", []Option{opt("a/x", 0.9), alike(opt("a/y", 0.3), "a/x", AlikeDiffers)},
			Delegate, "a/x", []string{"a/y"}, nil},
	}
	for _, tc := range tests {
		d := p.Decide(tc.opts)
		if d.Action != tc.action {
			t.Errorf("%s: action %s, want %s (%s)", tc.name, d.Action, tc.action, d.Reason)
			continue
		}
		if tc.chosen != "" && (d.Chosen == nil || d.Chosen.Key != tc.chosen) {
			t.Errorf("%s: chose %+v, want %s", tc.name, d.Chosen, tc.chosen)
		}
		var fb []string
		for _, f := range d.Fallbacks {
			fb = append(fb, f.Key)
		}
		if strings.Join(fb, ",") != strings.Join(tc.fallbacks, ",") {
			t.Errorf("%s: fallbacks %v, want %v", tc.name, fb, tc.fallbacks)
		}
		if tc.asks != nil {
			if len(d.Candidates) != 2 || d.Candidates[0].Key != tc.asks[0] || d.Candidates[1].Key != tc.asks[1] {
				t.Errorf("%s: asks about %+v: %q", tc.name, d.Candidates, d.Question)
				continue
			}
			// Each kind of look-alike is asked about in its own words.
			rel := d.Candidates[1].Alike
			if d.Candidates[0].AlikeOf != "" {
				rel = d.Candidates[0].Alike
			}
			if phrase := askedAs[rel]; phrase == "" || !strings.Contains(d.Question, phrase) {
				t.Errorf("%s: a %q look-alike asked as %q, want it to say %q", tc.name, rel, d.Question, phrase)
			}
		}
	}
}

// askedAs is what the question about each kind of look-alike says.
var askedAs = map[Alike]string{
	AlikeDiffers:   "handle your data differently",
	AlikeImpostor:  "call themselves",
	AlikeCopy:      "copied from the other",
	AlikeOtherLine: "different services",
}

// A pooled delegation reports the pooled probability and says why.
func TestDecideTwinProbability(t *testing.T) {
	d := DefaultPolicy.Decide([]Option{opt("a/x", 0.57), sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin))})
	if want := 1 - 0.43*0.53; math.Abs(d.Probability-want) > 1e-12 {
		t.Errorf("probability %v, want %v", d.Probability, want)
	}
	if !strings.Contains(d.Reason, "sibling b/x") {
		t.Errorf("reason %q does not name the sibling", d.Reason)
	}
	d = DefaultPolicy.Decide([]Option{opt("a/x", 0.9), alike(opt("b/x", 0.02), "a/x", AlikeTwin)})
	if d.Probability != 0.9 {
		t.Errorf("probability %v, want the top's 0.9 beside a twin that is no sibling", d.Probability)
	}
}

// Pooled replays what Decide weighs a best skill and its sibling at.
func TestPooled(t *testing.T) {
	p := DefaultPolicy
	tests := []struct {
		name string
		opts []Option
		want float64
		ok   bool
	}{
		{"sibling", []Option{opt("a/x", 0.57), sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin))}, 1 - 0.43*0.53, true},
		{"below the threshold too", []Option{opt("a/x", 0.4), sib(alike(opt("b/x", 0.3), "a/x", AlikeTwin))}, 1 - 0.6*0.7, true},
		{"twin that is no sibling", []Option{opt("a/x", 0.57), alike(opt("b/x", 0.47), "a/x", AlikeTwin)}, 0, false},
		{"under the clarify floor", []Option{opt("a/x", 0.3), sib(alike(opt("b/x", 0.3), "a/x", AlikeTwin))}, 1 - 0.7*0.7, true},
		{"alone", []Option{opt("a/x", 0.9)}, 0, false},
	}
	for _, tt := range tests {
		got, ok := p.Pooled(tt.opts)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Pooled = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
		if ok && got >= p.Threshold {
			if d := p.Decide(tt.opts); d.Action != Delegate || math.Abs(d.Probability-got) > 1e-12 {
				t.Errorf("%s: Decide %s at %v, want a delegation at the pooled %v", tt.name, d.Action, d.Probability, got)
			}
		}
	}
	// A pair whose best one is under the clarify floor reports its pooled
	// probability but is not delegated, even at a threshold under it.
	low := DefaultPolicy
	low.Threshold = 0.5
	weak := []Option{opt("a/x", 0.34), sib(alike(opt("b/x", 0.34), "a/x", AlikeTwin))}
	if d := low.Decide(weak); d.Action == Delegate || math.Abs(d.Probability-(1-0.66*0.66)) > 1e-12 {
		t.Errorf("a weak pair at threshold 0.5: Decide %s at %v, want no delegation at the pooled %v", d.Action, d.Probability, 1-0.66*0.66)
	}
	// Under a threshold under the floor, the best one is delegated on its
	// own probability, which the decision then reports (found in review).
	lower := DefaultPolicy
	lower.Threshold = 0.25
	lone := []Option{opt("a/x", 0.30), sib(alike(opt("b/x", 0.05), "a/x", AlikeTwin))}
	if d := lower.Decide(lone); d.Action != Delegate || d.Probability != 0.30 {
		t.Errorf("a pair under the floor at threshold 0.25: Decide %s at %v, want a delegation at its own 0.30", d.Action, d.Probability)
	}
}

// A calibration fitted where siblings counted as right already gives the
// best one the pair's probability: it is not pooled again.
func TestPooledSiblingsCalibrated(t *testing.T) {
	p := DefaultPolicy
	paired := func(o Option) Option { o.PairCalibrated = true; return o }
	pair := []Option{paired(opt("a/x", 0.57)), paired(sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin)))}
	if got, ok := p.Pooled(pair); !ok || got != 0.57 {
		t.Errorf("Pooled = %v, %v; want the best one's own 0.57, true", got, ok)
	}
	if d := p.Decide(pair); d.Action == Delegate {
		t.Errorf("delegated a pair at %v under the threshold: %s", d.Probability, d.Reason)
	}
	d := p.Decide([]Option{paired(opt("a/x", 0.8)), paired(sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin)))})
	if d.Action != Delegate || d.Probability != 0.8 || len(d.Fallbacks) == 0 || d.Fallbacks[0].Key != "b/x" {
		t.Fatalf("decision %+v, want a delegation at the best one's 0.8 with its sibling first fallback", d)
	}
	if strings.Contains(d.Reason, "that the job is theirs") {
		t.Errorf("reason %q reports a pooled probability", d.Reason)
	}
}

// Reported is what a decision reports for its best option: a sibling
// pair's pooled probability, the best one's share of a pair of two lines
// of services, else the best one's own.
func TestReported(t *testing.T) {
	p := DefaultPolicy
	paired := func(o Option) Option { o.PairCalibrated = true; return o }
	tests := []struct {
		name string
		opts []Option
		want float64
	}{
		{"alone", []Option{opt("a/x", 0.9)}, 0.9},
		{"a sibling pools", []Option{opt("a/x", 0.57), sib(alike(opt("b/x", 0.47), "a/x", AlikeTwin))}, 1 - 0.43*0.53},
		{"another line: a share of the pair", []Option{opt("a/x", 0.6), alike(opt("b/x", 0.4), "a/x", AlikeOtherLine)}, (1 - 0.4*0.6) * 0.6},
		{"another line, even pair: about half", []Option{opt("a/x", 0.7), alike(opt("b/x", 0.7), "a/x", AlikeOtherLine)}, (1 - 0.3*0.3) / 2},
		{"another line, calibrated as a pair", []Option{paired(opt("a/x", 0.9)), paired(alike(opt("b/x", 0.9), "a/x", AlikeOtherLine))}, 0.45},
		{"another line, under the clarify floor: no question, its own", []Option{opt("a/x", 0.3), alike(opt("b/x", 0.3), "a/x", AlikeOtherLine)}, 0.3},
		{"a different handling keeps the best one's own", []Option{opt("a/x", 0.6), alike(opt("b/x", 0.5), "a/x", AlikeDiffers)}, 0.6},
		{"an unnamed best one keeps its own", []Option{unnamed(opt("a/x", 0.6)), alike(opt("b/x", 0.5), "a/x", AlikeOtherLine)}, 0.6},
	}
	for _, tt := range tests {
		if got := p.Reported(tt.opts); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Reported = %v, want %v", tt.name, got, tt.want)
		}
		if d := p.Decide(tt.opts); math.Abs(d.Probability-tt.want) > 1e-12 {
			t.Errorf("%s: Decide reports %v, want %v", tt.name, d.Probability, tt.want)
		}
	}
	// The share is only what is reported: the question is asked as before.
	if d := p.Decide([]Option{opt("a/x", 0.95), alike(opt("b/x", 0.9), "a/x", AlikeOtherLine)}); d.Action != Clarify || len(d.Candidates) != 2 || d.Candidates[0].Prob != 0.95 {
		t.Errorf("decision %+v, want the question with the best one's own probability on its candidate", d)
	}
}

// AsksLookAlikes holds exactly where Decide asks between look-alikes.
func TestAsksLookAlikes(t *testing.T) {
	p := DefaultPolicy
	for _, opts := range [][]Option{
		{opt("a/x", 0.9)},
		{opt("a/x", 0.95), alike(opt("b/x", 0.3), "a/x", AlikeOtherLine)},
		{opt("a/x", 0.2), alike(opt("b/x", 0.02), "a/x", AlikeOtherLine)},
		{opt("a/x", 0.95), opt("c/z", 0.1), alike(opt("b/x", 0.02), "a/x", AlikeDiffers)},
		{opt("a/x", 0.99), alike(opt("b/x", 0.9), "a/x", AlikeCopy)},
		{opt("a/x", 0.95), alike(opt("b/x", 0.02), "a/x", AlikeImpostor)},
		{opt("a/x", 0.9), alike(opt("b/x", 0.3), "a/x", AlikeTwin)},
		{opt("a/x", 0.6), sib(alike(opt("b/x", 0.5), "a/x", AlikeTwin))},
		{unnamed(opt("a/x", 0.9)), alike(opt("b/x", 0.3), "a/x", AlikeDiffers)},
		{opt("a/x", 0.9), alike(opt("b/x", 0.3), "c/z", AlikeDiffers)},
		{opt("a/x", 0.31), alike(opt("b/x", 0.12), "a/x", AlikeDiffers)},
		{opt("a/x", 0.31), alike(opt("b/x", 0.12), "a/x", AlikeOtherLine)},
		{opt("a/x", 0.2), alike(opt("b/x", 0.1), "a/x", AlikeCopy)},
	} {
		d := p.Decide(opts)
		asked := d.Action == Clarify && len(d.Candidates) == 2 && d.Candidates[1].AlikeOf != "" || d.Action == Clarify && d.Candidates[0].AlikeOf != ""
		if got := p.AsksLookAlikes(opts); got != asked {
			t.Errorf("%s vs %v: AsksLookAlikes = %v, Decide %s (%s)", opts[0].Key, opts[1:], got, d.Action, d.Reason)
		}
	}
}
