package eval

import (
	"context"
	"testing"

	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// TestMultiIntentSet runs the built-in model on the hand-written
// multi-intent set (testdata/multi): plans must find at least 0.8 of the
// expected skills with at least 0.8 of their steps right, and the
// single-intent controls must keep the decision they get with plans off. The misses are in
// the log (go test -v -run MultiIntent).
func TestMultiIntentSet(t *testing.T) {
	set, err := golden.Load("testdata/multi")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.CardErrors) > 0 {
		t.Fatalf("cards must all load: %v", set.CardErrors)
	}
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithPlanSteps(match.DefaultPlanSteps))
	if err != nil {
		t.Fatal(err)
	}
	rep, outs, err := Run(context.Background(), m, set.Split("dev"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks < 60 || rep.PlanTasks < 40 {
		t.Fatalf("set has %d tasks, %d with an expected plan; want at least 60 and 40", rep.Tasks, rep.PlanTasks)
	}
	controls, controlsRight := 0, 0
	for _, o := range outs {
		switch {
		case len(o.Task.ExpectedPlan) > 0:
			if o.Action != decide.Plan || len(o.Delegated) != len(o.Task.ExpectedPlan) {
				t.Logf("%s: %s %v, want plan %v: %q", o.Task.ID, o.Action, o.Delegated, o.Task.ExpectedPlan, o.Task.Text)
			}
		default:
			controls++
			if o.Action == decide.Plan {
				t.Errorf("control %s was planned %v: %q", o.Task.ID, o.Delegated, o.Task.Text)
			}
			if o.Action == decide.Delegate && o.Task.Correct(o.Chosen) {
				controlsRight++
			} else {
				t.Logf("control %s: %s %v, want %s: %q", o.Task.ID, o.Action, o.Delegated, o.Task.Expected, o.Task.Text)
			}
		}
	}
	t.Logf("plan recall %.3f, precision %.3f over %d tasks; %d planned; controls delegated right %d/%d",
		rep.PlanRecall, rep.PlanPrecision, rep.PlanTasks, rep.Planned, controlsRight, controls)
	if controls < 15 {
		t.Errorf("%d single-intent controls, want at least 15", controls)
	}
	if rep.PlanRecall < 0.8 || rep.PlanPrecision < 0.8 {
		t.Errorf("plan recall %.3f, precision %.3f; want both at least 0.8", rep.PlanRecall, rep.PlanPrecision)
	}

	// With plans off the same set gets single decisions only: the figures
	// above are the plans' doing.
	off, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithPlanSteps(0))
	if err != nil {
		t.Fatal(err)
	}
	repOff, outsOff, err := Run(context.Background(), off, set.Split("dev"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plans off: recall %.3f, precision %.3f", repOff.PlanRecall, repOff.PlanPrecision)
	for i, o := range outs {
		if len(o.Task.ExpectedPlan) == 0 && (o.Action != outsOff[i].Action || o.Chosen != outsOff[i].Chosen) {
			t.Errorf("control %s: %s %s with plans, %s %s without", o.Task.ID, o.Action, o.Chosen, outsOff[i].Action, outsOff[i].Chosen)
		}
	}
	if repOff.Planned != 0 || repOff.PlanRecall >= rep.PlanRecall {
		t.Errorf("plans off: %d planned, recall %.3f (on: %.3f)", repOff.Planned, repOff.PlanRecall, rep.PlanRecall)
	}
}
