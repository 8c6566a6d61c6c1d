// Package settle turns the policy's decision into the one that is sent:
// a follow-up keeps its task's agent, skill, context and caller; a named
// skill is taken or refused; grants scope what a caller reaches; and the
// chosen skill and its fallbacks are checked once more against every hard
// filter, so that candidates that did not come through this catalog's
// filters (a forged or stale ranked message) are never delegated. The same
// step runs in process (match, eval) and in the decider stage.
package settle

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
)

// Record is what a Store remembers of a delegation.
type Record struct {
	TaskID     string
	DecisionID string
	AgentID    string
	SkillID    string
	// ContextID is the context id the delegation carried; empty when it
	// carried none (the agent then chose one, which skillmatch does not
	// see).
	ContextID string
	// CallerID is the caller that may continue the task.
	CallerID string
	// Need is the start of the task's requirement (MaxNeed bytes): what
	// a verified success of the skill may teach the catalog; empty for
	// confidential and restricted data.
	Need string
	At   time.Time
}

// MaxNeed caps Record.Need, in bytes, cut at a character boundary.
const MaxNeed = 500

// learnableNeed is what a Record keeps of a requirement's need: its
// start, and nothing of confidential or restricted data (or of a class
// it does not know), whose words must not become examples other callers'
// tasks are matched against.
func learnableNeed(req *extract.Requirement) string {
	if req.DataClass != "" {
		if rank, ok := catalog.ClassRank(req.DataClass); !ok || rank > 1 {
			return ""
		}
	}
	return CapNeed(req.Need)
}

// CapNeed is the part of a requirement's need a Record keeps.
func CapNeed(s string) string {
	if len(s) <= MaxNeed {
		return s
	}
	cut := MaxNeed
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// SameDelegation says whether two records describe the same delegation
// (At aside).
func (r Record) SameDelegation(o Record) bool {
	return r.TaskID == o.TaskID && r.DecisionID == o.DecisionID && r.AgentID == o.AgentID &&
		r.SkillID == o.SkillID && r.ContextID == o.ContextID && r.CallerID == o.CallerID
}

// Store remembers delegations, so that a message that continues a task
// (task.Message.TaskID) goes to the same agent and skill, in the same
// context, for the same caller only. Task ids are the callers' own: a
// record is kept per caller and task id, and one caller never sees
// another's.
type Store interface {
	// Get returns the record of a caller's task; ok is false when there
	// is none (never delegated, expired, or another caller's).
	Get(ctx context.Context, caller, taskID string) (rec Record, ok bool, err error)
	// Put records a delegation unless the store already holds a record
	// for its caller and task id, and returns the record the store holds
	// afterwards: rec, or the earlier one (a redelivered task, or a
	// reused task id). Records are never replaced, so a redelivery cannot
	// move a task.
	Put(ctx context.Context, rec Record) (Record, error)
}

// ErrRejected marks a chosen skill or fallback that fails a hard filter or
// is not in the catalog: the candidates were not made by this catalog's
// filters. No retry can change that; callers branch on it (the decider
// dead-letters the message).
var ErrRejected = errors.New("candidate fails the hard filters")

// Settler settles decisions over one catalog snapshot.
type Settler struct {
	// Catalog is the snapshot the candidates were ranked over.
	Catalog *catalog.Catalog
	// Grants restrict callers (nil: every caller may use every skill).
	Grants *grants.Grants
	// Store records delegations for follow-ups (nil: none are recorded,
	// and a task that continues another is refused).
	Store Store
	// Filters are the hard filters' options besides the grants, which
	// Settle checks itself (filter.WithStrict).
	Filters []filter.Option
	// Now stamps records (nil: time.Now).
	Now func() time.Time
	// Threshold is the policy's lowest probability to delegate at
	// (decide.Policy.Threshold): a delegation whose probability was pooled
	// with a sibling the caller may not use stands on its own probability
	// against it.
	Threshold float64
}

// Settled is the decision to send.
type Settled struct {
	Decision decide.Decision
	// Pinned is true when the task fixed the skill itself (a follow-up, a
	// named skill, an earlier delivery) rather than the policy choosing
	// it: the calibration refit must not learn from it.
	Pinned bool
	// ContextID is the context id the delegation carries ("" for none).
	ContextID string
}

// Settle settles the policy's decision d on the ranked options of task t.
// Every option must be in the catalog and pass the hard filters for t:
// options are what this catalog's filters kept, so one that fails was
// forged or made for another task (ErrRejected). A delegation is recorded in the store, when there is one, before it is
// returned. Errors wrap ErrRejected (the candidates are not this catalog's),
// or come from the store (transient). req is t's requirement when the
// caller has it already (nil: extracted from t).
func (s *Settler) Settle(ctx context.Context, t *task.Task, req *extract.Requirement, d decide.Decision, opts []decide.Option, decisionID string) (Settled, error) {
	if req == nil {
		r := extract.FromTask(t)
		req = &r
	}
	st, err := s.settle(ctx, t, req, d, opts)
	if err != nil || st.Decision.Action != decide.Delegate || s.Store == nil {
		return st, err
	}
	rec := Record{TaskID: t.ID, DecisionID: decisionID, AgentID: st.Decision.Chosen.AgentID, SkillID: st.Decision.Chosen.SkillID,
		ContextID: st.ContextID, CallerID: t.Caller.ID, Need: learnableNeed(req), At: s.now().UTC()}
	stored, err := s.Store.Put(ctx, rec)
	switch {
	case err != nil:
		return st, err
	case stored.SameDelegation(rec):
		return st, nil
	}
	// An earlier delivery of this task recorded, and may have published,
	// another delegation (the near-tie posteriors moved in between): the
	// record wins, so that the decision and its follow-ups agree.
	return s.pin(req, t, stored.AgentID, stored.SkillID, stored.SkillID, stored.ContextID, opts,
		fmt.Sprintf("task %s was delegated to %s/%s on an earlier delivery", t.ID, stored.AgentID, stored.SkillID)), nil
}

func (s *Settler) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Settler) settle(ctx context.Context, t *task.Task, req *extract.Requirement, d decide.Decision, opts []decide.Option) (Settled, error) {
	// The caller's access to every option, checked once: the chosen one
	// and the fallbacks are among them.
	access := make(map[string]grants.Decision, len(opts))
	for i := range opts {
		acc, err := s.check(req, t, &opts[i])
		if err != nil {
			return Settled{}, err
		}
		access[opts[i].Key] = acc
	}
	if prev := t.Message.TaskID; prev != "" {
		return s.followup(ctx, req, t, prev, opts)
	}
	if agentID, skillID, ok := t.Constraints.Skill(); ok {
		return s.pin(req, t, agentID, skillID, "", t.Message.ContextID, opts, "the caller named skill "+t.Constraints.SkillID), nil
	}
	return s.scope(req, t, d, access)
}

// followup settles a task that continues task prev: it keeps prev's agent
// and skill, for prev's caller only, and never goes elsewhere.
func (s *Settler) followup(ctx context.Context, req *extract.Requirement, t *task.Task, prev string, opts []decide.Option) (Settled, error) {
	if s.Store == nil {
		return refuse("task %s continues task %s, but no record of delegated tasks is kept here (no follow-up store)", t.ID, prev), nil
	}
	rec, ok, err := s.Store.Get(ctx, t.Caller.ID, prev)
	switch {
	case err != nil:
		return Settled{}, err
	case !ok:
		return refuse("task %s continues task %s, which is unknown to this caller: it was never delegated for it, or its record expired", t.ID, prev), nil
	case rec.CallerID != t.Caller.ID:
		return refuse("task %s continues task %s, which was delegated for another caller: only that caller can continue it", t.ID, prev), nil
	}
	if agentID, skillID, named := t.Constraints.Skill(); named && (agentID != rec.AgentID || skillID != rec.SkillID) {
		return refuse("%v: task %s is delegated to %s/%s, and its follow-up %s names %s",
			grants.ErrSkillChange, prev, rec.AgentID, rec.SkillID, t.ID, t.Constraints.SkillID), nil
	}
	contextID := rec.ContextID
	if own := t.Message.ContextID; own != "" && contextID != "" && own != contextID {
		return refuse("task %s continues task %s but names context %q, which is not that task's", t.ID, prev, own), nil
	}
	if contextID == "" {
		// The delegation carried no context id: the agent made one, which
		// only the caller saw in the agent's reply.
		contextID = t.Message.ContextID
	}
	return s.pin(req, t, rec.AgentID, rec.SkillID, rec.SkillID, contextID, opts,
		fmt.Sprintf("follow-up of task %s keeps its skill %s/%s", prev, rec.AgentID, rec.SkillID)), nil
}

// pin delegates the task to the one skill it fixed, or refuses, saying
// why: the skill must still be in the catalog, granted to the caller and
// pass every hard filter. taskSkill is the skill of the task being
// continued ("" for a new task), for grants.Followup. The chosen option is
// the ranked candidate when the matcher ranked the skill, so the
// probability is the matcher's, else 0.
func (s *Settler) pin(req *extract.Requirement, t *task.Task, agentID, skillID, taskSkill, contextID string, opts []decide.Option, why string) Settled {
	a, ok := s.Catalog.Agent(agentID)
	if !ok {
		return refuse("%s, but agent %q is not in the catalog", why, agentID)
	}
	sk, ok := a.Card.Skill(skillID)
	if !ok {
		return refuse("%s, but agent %q lists no skill %q", why, agentID, skillID)
	}
	acc := s.Grants.Access(t.Caller.ID, a, sk)
	if !acc.OK {
		return refuse("%s, but %s", why, acc.Reason)
	}
	v := filter.Check(req, a, sk, s.Filters...)
	if !v.OK {
		return refuse("%s, but it cannot take the task: %s", why, v.Rejection.Reason)
	}
	// Followup fails only on a changed or missing skill, which the
	// callers of pin rule out.
	if _, newContext, _ := grants.Followup(taskSkill, skillID, acc.Scoped, contextID != ""); newContext {
		contextID = ""
	}
	key := agentID + "/" + skillID
	opt := decide.Option{Key: key, AgentID: agentID, SkillID: skillID, AgentName: a.Card.Name, SkillName: sk.Name, Demoted: v.Demoted}
	for _, o := range opts {
		if o.Key == key {
			opt = o
			break
		}
	}
	return Settled{Pinned: true, ContextID: contextID,
		Decision: decide.Decision{Action: decide.Delegate, Chosen: &opt, Probability: opt.Prob, Reason: why}}
}

// scope checks the policy's delegation: the chosen skill and every
// fallback must be in the catalog and pass the hard filters (else the
// candidates are not this catalog's: ErrRejected); a chosen skill the
// grants do not allow (a retriever running on other grants) is refused
// rather than sent, and such fallbacks are dropped; a caller that reaches
// the chosen agent only through skill grants starts a new context.
func (s *Settler) scope(req *extract.Requirement, t *task.Task, d decide.Decision, access map[string]grants.Decision) (Settled, error) {
	st := Settled{Decision: d, ContextID: t.Message.ContextID}
	if d.Action != decide.Delegate || d.Chosen == nil {
		return st, nil
	}
	// accessOf is the checked access of an option (an option the policy
	// did not take from opts is checked now).
	accessOf := func(o *decide.Option) (grants.Decision, error) {
		if acc, ok := access[o.Key]; ok {
			return acc, nil
		}
		return s.check(req, t, o)
	}
	acc, err := accessOf(d.Chosen)
	if err != nil {
		return Settled{}, err
	}
	if !acc.OK {
		return Settled{Decision: decide.Decision{Action: decide.Abstain, Probability: d.Probability,
			Reason: fmt.Sprintf("best match %s is not granted: %s", d.Chosen.Key, acc.Reason)}}, nil
	}
	kept := d.Fallbacks[:0:0]
	for i := range d.Fallbacks {
		facc, err := accessOf(&d.Fallbacks[i])
		if err != nil {
			return Settled{}, fmt.Errorf("fallback %d: %w", i+1, err)
		}
		if facc.OK {
			kept = append(kept, d.Fallbacks[i])
		}
	}
	st.Decision.Fallbacks = kept
	if pooled := d.Probability > d.Chosen.Prob && len(d.Fallbacks) > 0; pooled && (len(kept) == 0 || kept[0].Key != d.Fallbacks[0].Key) {
		// The sibling the probability was pooled with is refused: the
		// delegation stands on the chosen skill's own probability.
		if d.Chosen.Prob < s.Threshold {
			return Settled{Decision: decide.Decision{Action: decide.Abstain, Probability: d.Chosen.Prob,
				Reason: fmt.Sprintf("best match only %.2f (%s): its sibling %s is not granted", d.Chosen.Prob, d.Chosen.Key, d.Fallbacks[0].Key)}}, nil
		}
		st.Decision.Probability = d.Chosen.Prob
		st.Decision.Reason = fmt.Sprintf("best match %s at %.2f", d.Chosen.Key, d.Chosen.Prob)
	}
	// Followup fails only on a changed or missing skill; here there is
	// no earlier task and a chosen skill.
	if _, newContext, _ := grants.Followup("", d.Chosen.SkillID, acc.Scoped, st.ContextID != ""); newContext {
		st.ContextID = ""
	}
	return st, nil
}

// check finds a delegated option in the catalog, runs every hard filter on
// it and returns the caller's access to it.
func (s *Settler) check(req *extract.Requirement, t *task.Task, o *decide.Option) (grants.Decision, error) {
	a, ok := s.Catalog.Agent(o.AgentID)
	if !ok {
		return grants.Decision{}, fmt.Errorf("%w: %s: agent %q is not in the catalog", ErrRejected, o.Key, o.AgentID)
	}
	sk, ok := a.Card.Skill(o.SkillID)
	if !ok {
		return grants.Decision{}, fmt.Errorf("%w: %s: agent %q lists no skill %q", ErrRejected, o.Key, o.AgentID, o.SkillID)
	}
	// Outputs read loosely from the words give way when no skill passes
	// with them (match.Shortlist): a candidate that fails only them came
	// through the shortlist's filters all the same.
	fr := req.WithoutLooseOutputs()
	if v := filter.Check(&fr, a, sk, s.Filters...); !v.OK {
		return grants.Decision{}, fmt.Errorf("%w: %s: %s: %s", ErrRejected, o.Key, v.Rejection.Rule, v.Rejection.Reason)
	}
	return s.Grants.Access(t.Caller.ID, a, sk), nil
}

// refuse is an abstention on a task that fixed its skill.
func refuse(format string, args ...any) Settled {
	return Settled{Pinned: true, Decision: decide.Decision{Action: decide.Abstain, Reason: fmt.Sprintf(format, args...)}}
}
