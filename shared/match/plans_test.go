package match_test

import (
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
)

func TestPlans(t *testing.T) {
	cat := exampleCatalog(t)
	m := newMatcher(t, cat, match.WithPlanSteps(match.DefaultPlanSteps))
	tests := []struct {
		name   string
		text   string
		action decide.Action
		steps  []string // skill keys of a plan, in order
	}{
		{"two intents", "reconcile the supplier invoices against the purchase order and then translate the attached document into German",
			decide.Plan, []string{"ap-reconciler/reconcile-invoices", "polyglot-translator/translate-document"}},
		{"three intents", "book a flight to Lisbon for Monday; reset my forgotten password; give me the Lisbon weather forecast",
			decide.Plan, []string{"travel-concierge/book-flight", "it-helpdesk/password-reset", "world-info/weather-forecast"}},
		{"single intent takes the usual path", "book a flight to Lisbon for Monday morning", decide.Delegate, nil},
		// A plain "and" after three words: two agents' jobs, not the one
		// the first part names best.
		{"two intents, short first clause", "reset my password and translate this contract into German",
			decide.Plan, []string{"it-helpdesk/password-reset", "polyglot-translator/translate-text"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustMatch(t, m, textTask("t", tt.text))
			d := res.Decision
			if d.Action != tt.action {
				t.Fatalf("action %s (%s), want %s", d.Action, d.Reason, tt.action)
			}
			if tt.action != decide.Plan {
				if len(d.Steps) != 0 {
					t.Errorf("a single decision carries steps: %+v", d.Steps)
				}
				return
			}
			var got []string
			for _, s := range d.Steps {
				got = append(got, s.Chosen.Key)
				if s.Probability < m.Policy().Threshold || s.Part == "" {
					t.Errorf("step %s: probability %.2f below threshold or no part %q", s.Chosen.Key, s.Probability, s.Part)
				}
			}
			if len(got) != len(tt.steps) {
				t.Fatalf("steps %v, want %v", got, tt.steps)
			}
			for i := range got {
				if got[i] != tt.steps[i] {
					t.Errorf("step %d: %s, want %s", i, got[i], tt.steps[i])
				}
			}
		})
	}
}

func TestPlanStepsCapAndOff(t *testing.T) {
	cat := exampleCatalog(t)
	text := "book a flight to Lisbon for Monday; reset my forgotten password; give me the Lisbon weather forecast"
	capped := mustMatch(t, newMatcher(t, cat, match.WithPlanSteps(2)), textTask("t", text)).Decision
	if capped.Action != decide.Plan || len(capped.Steps) != 2 {
		t.Fatalf("cap 2: %s with %d steps, want a plan of 2", capped.Action, len(capped.Steps))
	}
	single := mustMatch(t, newMatcher(t, cat, match.WithPlanSteps(match.DefaultPlanSteps)), textTask("t", "book a flight to Lisbon for Monday morning")).Decision
	for name, m := range map[string]*match.Matcher{"0": newMatcher(t, cat, match.WithPlanSteps(0)), "default": newMatcher(t, cat)} {
		if off := mustMatch(t, m, textTask("t", text)).Decision; off.Action == decide.Plan || len(off.Steps) > 0 {
			t.Fatalf("plans off (%s) still planned: %+v", name, off)
		}
	}
	if single.Action != decide.Delegate {
		t.Fatalf("single intent: %s", single.Action)
	}
}

func TestNamedSkillIsNeverPlanned(t *testing.T) {
	m := newMatcher(t, exampleCatalog(t), match.WithPlanSteps(match.DefaultPlanSteps))
	tk := textTask("t", "reconcile the supplier invoices against the purchase order and then translate the attached document into German")
	tk.Constraints.SkillID = "polyglot-translator/translate-document"
	d := mustMatch(t, m, tk).Decision
	if d.Action == decide.Plan {
		t.Fatalf("a named skill was planned around: %+v", d)
	}
}
