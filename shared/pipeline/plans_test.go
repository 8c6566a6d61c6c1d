package pipeline

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// The multi-intent dev set (shared/learn/eval/testdata/multi) through the
// embedded pipeline: every decision is the in-process matcher's (plans
// included, with one A2A request per step, each to its step's agent), the
// plan figures computed from the pipeline's decisions reach 0.8, and the
// single-intent controls decide as they do with plans off.
func TestPipelineMultiIntentPlans(t *testing.T) {
	set, err := golden.Load(filepath.Join(exampleDir(), "..", "..", "shared", "learn", "eval", "testdata", "multi"))
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
	off, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithPlanSteps(0))
	if err != nil {
		t.Fatal(err)
	}
	gts := set.Split("dev")
	tasks := make([]*task.Task, len(gts))
	byID := make(map[string]*golden.Task, len(gts))
	for i := range gts {
		tasks[i] = gts[i].ToTask()
		byID[gts[i].ID] = &gts[i]
	}
	want := expected(t, m, tasks)
	wantOff := expected(t, off, tasks)

	cfg := testConfig(t)
	_, js, ctx := serve(t, 60*time.Second)
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	publishTasks(ctx, t, js, tasks)
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), 40*time.Second)
	checkDecisions(t, js, want)

	var outs []eval.Outcome
	plans, controls := 0, 0
	for _, msg := range readAll(t, js, DefaultStreams.Decisions) {
		d, err := wire.DecodeDecision(msg.Data(), wire.InCatalog(m.Catalog()), wire.MaxSteps(match.DefaultPlanSteps))
		if err != nil {
			t.Fatalf("decision: %v", err)
		}
		gt := byID[d.TaskID]
		o := eval.Outcome{Task: gt, Action: d.Action}
		if d.Chosen != nil {
			o.Chosen = d.Chosen.Key
			o.Delegated = []string{o.Chosen}
		}
		for _, s := range d.Steps {
			o.Delegated = append(o.Delegated, s.Chosen.Key)
		}
		outs = append(outs, o)
		if a, _ := wire.ActionOfDecision(msg.Subject()); a != string(d.Action) {
			t.Errorf("task %s: %s decision on %s", d.TaskID, d.Action, msg.Subject())
		}
		if d.Action == decide.Plan {
			plans++
			checkStepRequests(t, m, d)
		}
		if len(gt.ExpectedPlan) == 0 {
			controls++
			got, _ := json.Marshal(d.Decision)
			if d.Action == decide.Plan || string(got) != wantOff[d.TaskID] {
				t.Errorf("control %s: pipeline decided %s\nwith plans off in process: %s", d.TaskID, got, wantOff[d.TaskID])
			}
		}
	}
	rep := eval.Score(outs)
	t.Logf("through the pipeline: %d tasks (%d with an expected plan, %d controls), %d plans; plan recall %.3f, precision %.3f",
		rep.Tasks, rep.PlanTasks, controls, plans, rep.PlanRecall, rep.PlanPrecision)
	if rep.PlanTasks < 40 || controls < 15 || plans < rep.PlanTasks/2 {
		t.Errorf("%d tasks with an expected plan, %d controls, %d plans: the set or the plans are missing", rep.PlanTasks, controls, plans)
	}
	if rep.PlanRecall < 0.8 || rep.PlanPrecision < 0.8 {
		t.Errorf("plan recall %.3f, precision %.3f through the pipeline; want both at least 0.8", rep.PlanRecall, rep.PlanPrecision)
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.DeadLetters); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
}

// checkStepRequests checks that a plan carries one A2A request per step,
// to the step's agent, with the step's part and decision id.
func checkStepRequests(t *testing.T, m *match.Matcher, d *wire.Decision) {
	t.Helper()
	if d.Request != nil || len(d.StepRequests) != len(d.Steps) {
		t.Errorf("task %s: plan of %d steps with %d step requests (single request %v)", d.TaskID, len(d.Steps), len(d.StepRequests), d.Request != nil)
		return
	}
	for i, s := range d.Steps {
		r := d.StepRequests[i]
		a, _ := m.Catalog().Agent(s.Chosen.AgentID)
		body := string(r.Body)
		part, _ := json.Marshal(s.Part)
		if !strings.HasPrefix(r.URL, a.Card.Interfaces[0].URL) || !strings.Contains(body, string(part[1:len(part)-1])) ||
			!strings.Contains(body, d.DecisionID+"-s") {
			t.Errorf("task %s step %d (%s): request to %s carries %s", d.TaskID, i+1, s.Chosen.Key, r.URL, body)
		}
	}
}

// A plan's step outcomes name the step's decision id (<decision>-s<n>):
// evidence kept in the outcomes stream, not dead-lettered as another
// caller's, and not counted, since no step is recorded as a delegation to
// check them against; a step number past any plan is refused.
func TestPlanStepOutcomes(t *testing.T) {
	cfg := testConfig(t)
	cfg.FeedbackInterval = 100 * time.Millisecond
	cfg.RefitInterval = -1
	_, js, ctx := serve(t, 60*time.Second)
	g, err := StartAll(ctx, js, NewSnapshots(testMatcher(t)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	a, err := Submit(ctx, js, Streams{}, &task.Task{ID: "plan-1", Message: task.Message{Parts: []task.Part{{
		Text: "book a flight to Lisbon for Monday; reset my forgotten password; what is the weather forecast in Lisbon"}}}})
	if err != nil || a.Decision == nil || a.Decision.Action != decide.Plan {
		t.Fatalf("plan-1: %+v %v", a, err)
	}
	d := a.Decision
	report := func(decisionID, skill string) {
		t.Helper()
		data, _ := json.Marshal(wire.Outcome{V: wire.Version, DecisionID: decisionID, TaskID: "plan-1", Skill: skill, Success: true})
		if _, err := js.Publish(ctx, wire.SubjectOutcomeBy(""), data); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range d.Steps {
		report(wire.StepDecisionID(d.DecisionID, i+1), s.Chosen.Key)
	}
	report(wire.StepDecisionID(d.DecisionID, wire.MaxPlanSteps+1), d.Steps[0].Chosen.Key)
	waitCount(t, js, DefaultStreams.DeadLetters, 1, 10*time.Second)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := js.Consumer(ctx, DefaultStreams.Outcomes, StageFeedback)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := c.Info(ctx); err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("outcomes not all handled")
		}
	}
	dls := readAll(t, js, DefaultStreams.DeadLetters)
	if len(dls) != 1 {
		t.Fatalf("%d dead letters, want the out-of-range step's only", len(dls))
	}
	if dl, err := wire.DecodeDeadLetter(dls[0].Data()); err != nil || !strings.Contains(string(dl.Payload), wire.StepDecisionID(d.DecisionID, wire.MaxPlanSteps+1)) {
		t.Errorf("dead letter %+v %v", dl, err)
	}
	if p := g.Decider.Posteriors(); p != nil && p.Snapshot().Observed != 0 {
		t.Errorf("posteriors counted %d step outcomes, want none", p.Snapshot().Observed)
	}
	if n, _ := streamCount(ctx, js, DefaultStreams.Outcomes); n != uint64(len(d.Steps))+1 {
		t.Errorf("%d outcomes kept, want every one reported", n)
	}
}
