// Package filter removes the skills that cannot take a task: the hard
// constraints of FORMAT.md ("How the constraints read"). A constraint here
// never lowers a score, it removes the candidate, so that no text match,
// however strong, can send data where it must not go or call a skill that
// would fail.
//
// Rules run cheapest first, agent-level before skill-level, and the first
// that fails is the one reported:
//
//  1. health       the agent is down (degraded agents are kept and Demoted)
//  2. data-policy  the task's data class is above the agent's clearance, or
//     the agent is external and the data is not public
//  3. endpoint     an interface of the card is at a URL the address policy
//     refuses (package endpoint: not http(s), or a private, loopback,
//     link-local... literal address), unless the agent's status allows
//     private addresses; a delegation would carry the caller's data there
//  4. streaming    the task needs streaming and the agent does not offer it
//  5. input-type   the skill does not accept every type the task attaches
//  6. output-type  the skill produces none of the types the task accepts
//  7. security     no entry of the skill's security requirements is
//     satisfied by the caller's scopes
//
// Decisions FORMAT.md leaves open, made here:
//
//   - A skill whose effective mode list is empty (or holds only words that
//     are not media types) has not declared its modes: it is not filtered on
//     them. Rejecting it would remove every skill of a card that forgot its
//     defaults, for a failure the agent may not have.
//   - An unknown health value demotes (health never filters but for down).
//   - An unknown task data class rejects every agent, and an unknown agent
//     clearance reads as public: a policy check must fail closed.
//
// WithStrict(true) closes what is open by default: a task without caller
// scopes is checked as a caller with none, a task without a data class as
// restricted data, and a skill that declares no modes accepts and produces
// nothing a task asks for.
package filter

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// Rule names a hard constraint.
type Rule string

const (
	RuleHealth     Rule = "health"
	RuleDataPolicy Rule = "data-policy"
	RuleEndpoint   Rule = "endpoint"
	RuleStreaming  Rule = "streaming"
	RuleInputType  Rule = "input-type"
	RuleOutputType Rule = "output-type"
	RuleSecurity   Rule = "security"
	// RuleGrant: the caller holds no grant for the agent or skill.
	RuleGrant Rule = grants.Rule
	// RuleTrust: the skill's card text is not trusted (it gives the
	// matcher orders, repeats its words, or claims every other agent's
	// job). Check does not apply it: telling a catch-all takes the whole
	// catalog, so the matcher does.
	RuleTrust Rule = "trust"
)

// Option adds policy beyond the card and the task.
type Option func(*options)

type options struct {
	grants           *grants.Grants
	strict           bool
	privateEndpoints bool
}

// WithPrivateEndpoints lets every agent's interfaces be at private,
// loopback or link-local addresses, as Status.AllowPrivate does for one:
// for a catalog of development cards (localhost URLs) and for evaluating
// matching on golden sets. Schemes other than http(s) stay refused.
func WithPrivateEndpoints(on bool) Option { return func(o *options) { o.privateEndpoints = on } }

// WithGrants restricts callers to the agents and skills granted to them.
// Nil (no grants configured) allows every caller everything.
func WithGrants(g *grants.Grants) Option { return func(o *options) { o.grants = g } }

// WithStrict makes the rules that pass on missing information fail
// closed instead (see the package doc), each with its reason. For
// deployments where every task states its caller and data class and
// every card its modes.
func WithStrict(strict bool) Option { return func(o *options) { o.strict = strict } }

func collect(opts []Option) options {
	if len(opts) == 0 {
		return options{} // the common case costs no allocation
	}
	o := new(options)
	for _, f := range opts {
		f(o)
	}
	return *o
}

// Rejection says why a skill cannot take the task. Reason is a sentence a
// user reads, e.g. "skill accepts text/plain, image/*; task attaches
// application/pdf".
type Rejection struct {
	Agent  string `json:"agent"`
	Skill  string `json:"skill"`
	Rule   Rule   `json:"rule"`
	Reason string `json:"reason"`
}

// Verdict is the outcome for one skill. Demoted is only set on kept skills
// of degraded agents: rank them after equally good healthy ones.
type Verdict struct {
	OK        bool
	Demoted   bool
	Rejection *Rejection
}

// Result is the outcome for a whole catalog. Keep and Demoted are indexed by
// skill in catalog order: agents in order, each agent's skills in card
// order. Rejections are in the same order.
type Result struct {
	Keep       []bool
	Demoted    []bool
	Rejections []Rejection
	Kept       int
}

// Check applies every rule to one skill of one agent. A nil requirement has
// no constraints.
func Check(req *extract.Requirement, a *catalog.Agent, s *card.Skill, opts ...Option) Verdict {
	if req == nil {
		req = &extract.Requirement{}
	}
	if a.Card == nil {
		a = &catalog.Agent{Card: &card.Card{}, Status: a.Status}
	}
	var c checker
	c.opts = collect(opts)
	c.reset(req, a, true, nil)
	rule, reason := c.check(req, s)
	if rule != "" {
		return Verdict{Rejection: &Rejection{Agent: a.Card.ID, Skill: s.ID, Rule: rule, Reason: reason}}
	}
	return Verdict{OK: true, Demoted: c.demoted}
}

// Keep runs Check over every skill of the catalog without writing
// reasons: the hot path, which at 100,000 skills cannot afford a sentence
// per rejection. Explain adds the reasons when someone asks. Agent-level
// rules run once per agent, and skill-level rules once per agent for the
// skills that use the card's defaults, so a kept skill costs no
// allocation.
func Keep(req *extract.Requirement, cat *catalog.Catalog, opts ...Option) Result {
	if req == nil {
		req = &extract.Requirement{}
	}
	if cat == nil {
		return Result{}
	}
	n := 0
	for _, a := range cat.Agents {
		if a.Card != nil {
			n += len(a.Card.Skills)
		}
	}
	flags := make([]bool, 2*n) // one allocation for both
	res := Result{Keep: flags[:n:n], Demoted: flags[n:]}
	o := collect(opts)
	if n >= parallelMinSkills && runtime.GOMAXPROCS(0) > 1 {
		res.Kept = keepParallel(*req, cat.Agents, o, res.Keep, res.Demoted)
	} else {
		res.Kept = keepRange(req, cat.Agents, o, res.Keep, res.Demoted)
	}
	return res
}

// keepParallel splits a large catalog by agents across the cores, each
// part writing its own range of the flags. It takes the requirement by
// value so that the small catalogs' path does not move it to the heap.
func keepParallel(req extract.Requirement, agents []catalog.Agent, o options, keep, demoted []bool) int {
	parts := split(agents, runtime.GOMAXPROCS(0))
	kept := make([]int, len(parts))
	var wg sync.WaitGroup
	for p, r := range parts {
		wg.Go(func() {
			kept[p] = keepRange(&req, agents[r.agents:r.agentsEnd], o, keep[r.skills:r.skillsEnd], demoted[r.skills:r.skillsEnd])
		})
	}
	wg.Wait()
	total := 0
	for _, k := range kept {
		total += k
	}
	return total
}

// part is a range of agents and the range of skill numbers they hold.
type part struct{ agents, agentsEnd, skills, skillsEnd int }

// split cuts agents into n ranges of about as many agents.
func split(agents []catalog.Agent, n int) []part {
	parts := make([]part, 0, n)
	step := (len(agents) + n - 1) / n
	skill := 0
	for lo := 0; lo < len(agents); lo += step {
		p := part{agents: lo, agentsEnd: min(lo+step, len(agents)), skills: skill}
		for i := p.agents; i < p.agentsEnd; i++ {
			if agents[i].Card != nil {
				skill += len(agents[i].Card.Skills)
			}
		}
		p.skillsEnd = skill
		parts = append(parts, p)
	}
	return parts
}

// parallelMinSkills is the catalog size from which Keep splits its work
// across goroutines.
const parallelMinSkills = 20000

// keepRange checks the skills of agents, whose flags keep and demoted
// are, and returns how many it kept.
func keepRange(req *extract.Requirement, agents []catalog.Agent, o options, keep, demoted []bool) int {
	c := checker{opts: o}
	i, kept := 0, 0
	for ai := range agents {
		a := &agents[ai]
		if a.Card == nil {
			continue
		}
		c.reset(req, a, false, nil)
		for si := range a.Card.Skills {
			if rule, _ := c.check(req, &a.Card.Skills[si]); rule == "" {
				keep[i] = true
				demoted[i] = c.demoted
				kept++
			}
			i++
		}
	}
	return kept
}

// Explain fills res.Rejections with the reason of every skill Keep
// removed (a no-op when they are already there).
func (res *Result) Explain(req *extract.Requirement, cat *catalog.Catalog, opts ...Option) {
	if req == nil {
		req = &extract.Requirement{}
	}
	n := len(res.Keep)
	if cat == nil || res.Kept == n || res.Rejections != nil {
		return
	}
	o := collect(opts)
	res.Rejections = make([]Rejection, n-res.Kept)
	if n >= parallelMinSkills && runtime.GOMAXPROCS(0) > 1 {
		explainParallel(*req, cat.Agents, o, res.Keep, res.Rejections)
	} else {
		explainRange(req, cat.Agents, res.Keep, o, res.Rejections)
	}
}

// explainParallel is Explain split like keepParallel: each part fills its
// own range of out, the rejections of the skills it covers.
func explainParallel(req extract.Requirement, agents []catalog.Agent, o options, keep []bool, out []Rejection) {
	var wg sync.WaitGroup
	for _, r := range split(agents, runtime.GOMAXPROCS(0)) {
		k := keep[r.skills:r.skillsEnd]
		rejected := len(k)
		for _, x := range k {
			if x {
				rejected--
			}
		}
		dst := out[:rejected]
		out = out[rejected:]
		wg.Go(func() { explainRange(&req, agents[r.agents:r.agentsEnd], k, o, dst) })
	}
	wg.Wait()
}

// explainRange writes into out the rejection of each skill of agents that
// keep (their skills' flags) says was removed.
func explainRange(req *extract.Requirement, agents []catalog.Agent, keep []bool, o options, out []Rejection) {
	c := checker{opts: o}
	i, r := 0, 0
	for ai := range agents {
		a := &agents[ai]
		if a.Card == nil {
			continue
		}
		skills := a.Card.Skills
		if !slices.Contains(keep[i:i+len(skills)], false) {
			i += len(skills)
			continue
		}
		c.reset(req, a, true, nil)
		for si := range skills {
			if !keep[i] {
				s := &skills[si]
				rule, reason := c.check(req, s)
				out[r] = Rejection{Agent: a.Card.ID, Skill: s.ID, Rule: rule, Reason: reason}
				r++
			}
			i++
		}
	}
}

// checker holds one agent's verdicts: the agent-level one, and the
// skill-level ones for skills that use the card's defaults, computed the
// first time a skill needs them. It does not keep the requirement, so that
// a caller's requirement need not escape to the heap.
type checker struct {
	opts  options
	agent *catalog.Agent
	card  *card.Card
	// why asks for reasons; without it a failing check returns a
	// placeholder, so that deciding costs no allocation.
	why     bool
	rule    Rule // agent-level failure, if any
	reason  string
	demoted bool
	in      memo
	out     memo
	sec     memo
	// data is the last agent's data policy verdict, kept across reset:
	// agents share a few clearances, and the verdict depends on nothing
	// else of theirs.
	data dataMemo
}

// dataMemo is one data policy verdict and what it was worked out from.
type dataMemo struct {
	set       bool
	class     string
	clearance string
	external  bool
	reason    string
}

// verdict is dataPolicyWhy, remembered for the next agent of the same
// status.
func (m *dataMemo) verdict(class string, st catalog.Status, strict, why bool) string {
	if m.set && m.class == class && m.clearance == st.Clearance && m.external == st.External {
		return m.reason
	}
	*m = dataMemo{set: true, class: class, clearance: st.Clearance, external: st.External,
		reason: dataPolicyWhy(class, st, strict, why)}
	return m.reason
}

// memo is a lazily computed reason; "" means the rule passed.
type memo struct {
	done   bool
	reason string
}

// reset checks the agent-level rules. ep, when not nil, holds the card's
// endpoint verdicts worked out ahead (refused, then private allowed).
func (c *checker) reset(req *extract.Requirement, a *catalog.Agent, why bool, ep *[2]string) {
	data := c.data
	if why != c.why {
		data = dataMemo{} // a verdict without its reason, or the reverse
	}
	*c = checker{opts: c.opts, agent: a, card: a.Card, why: why, data: data}
	c.rule, c.reason, c.demoted = agentRules(req, a, c.opts, why, ep, &c.data)
}

// agentRules is the first agent-level rule a fails (rule "" when none)
// and whether its skills rank lower (degraded). data remembers the last
// data policy verdict (worked out with why, as the caller's other calls).
func agentRules(req *extract.Requirement, a *catalog.Agent, o options, why bool, ep *[2]string, data *dataMemo) (rule Rule, reason string, demoted bool) {
	cd, st := a.Card, &a.Status
	switch {
	case strings.EqualFold(string(st.Health), string(catalog.Down)):
		return RuleHealth, "agent is down", false
	case st.Health == "" || strings.EqualFold(string(st.Health), string(catalog.Up)):
	default: // degraded, or a value we do not know: keep, rank lower
		demoted = true
	}
	if reason := data.verdict(req.DataClass, *st, o.strict, why); reason != "" {
		return RuleDataPolicy, reason, demoted
	}
	allowPrivate := st.AllowPrivate || o.privateEndpoints
	if ep != nil {
		reason = ep[0]
		if allowPrivate {
			reason = ep[1]
		}
	} else {
		reason = endpointReason(cd, allowPrivate)
	}
	if reason != "" {
		return RuleEndpoint, reason, demoted
	}
	if req.Streaming && !cd.Streaming {
		return RuleStreaming, "task needs streaming; agent does not offer it", demoted
	}
	return "", "", demoted
}

// check returns the first rule the skill fails, or "".
func (c *checker) check(req *extract.Requirement, s *card.Skill) (Rule, string) {
	if c.rule != "" {
		return c.rule, c.reason
	}
	// Grants first: a caller is not told about agents it cannot use.
	if g := c.opts.grants; g != nil {
		if !c.why {
			if ok, _ := g.Allowed(req.CallerID, c.agent, s); !ok {
				return RuleGrant, "-"
			}
		} else if ok, reason := g.Check(req.CallerID, c.agent, s); !ok {
			return RuleGrant, reason
		}
	}
	if len(req.InputTypes) > 0 {
		modes := c.card.EffectiveInputModes(s)
		if c.opts.strict && !mediatype.Declared(modes) {
			return RuleInputType, c.say(func() string {
				return "skill declares no input modes (strict policy); task attaches " + list(req.InputTypes, " and ")
			})
		}
		reason := c.cached(&c.in, sameSlice(modes, c.card.DefaultInputModes), modes, req.InputTypes, inputsReason)
		if reason != "" {
			return RuleInputType, reason
		}
	}
	if len(req.OutputTypes) > 0 {
		modes := c.card.EffectiveOutputModes(s)
		if c.opts.strict && !mediatype.Declared(modes) {
			return RuleOutputType, c.say(func() string {
				return "skill declares no output modes (strict policy); task wants " + list(req.OutputTypes, " or ")
			})
		}
		reason := c.cached(&c.out, sameSlice(modes, c.card.DefaultOutputModes), modes, req.OutputTypes, outputsReason)
		if reason != "" {
			return RuleOutputType, reason
		}
	}
	if req.Scopes != nil { // nil: not filtered on security
		reqs := c.card.EffectiveSecurity(s)
		var reason string
		if sameSlice(reqs, c.card.Security) {
			if !c.sec.done {
				c.sec = memo{true, securityReason(reqs, req.Scopes, c.why)}
			}
			reason = c.sec.reason
		} else {
			reason = securityReason(reqs, req.Scopes, c.why)
		}
		if reason != "" {
			return RuleSecurity, reason
		}
	} else if c.opts.strict {
		// No scopes stated: checked as a caller that holds none, so
		// only open skills and scope-less schemes pass.
		if reason := securityReason(c.card.EffectiveSecurity(s), nil, c.why); reason != "" {
			if c.why {
				reason = "task states no caller scopes (strict policy): " + reason
			}
			return RuleSecurity, reason
		}
	}
	return "", ""
}

// say returns the reason when asked why, else the placeholder without
// building the sentence.
func (c *checker) say(reason func() string) string {
	if !c.why {
		return failed
	}
	return reason()
}

// cached returns f(modes, wanted, c.why), through m when the modes are the
// card's defaults.
func (c *checker) cached(m *memo, shared bool, modes, wanted []string, f func(modes, wanted []string, why bool) string) string {
	if !shared {
		return f(modes, wanted, c.why)
	}
	if !m.done {
		*m = memo{true, f(modes, wanted, c.why)}
	}
	return m.reason
}

// failed is the reason a check returns when not asked why.
const failed = "failed"

// sameSlice reports whether a is b (the effective list is the card's). Empty
// lists count as different: checking them costs nothing.
func sameSlice[T any](a, b []T) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// inputsReason checks that the modes accept every wanted type.
func inputsReason(modes, wanted []string, why bool) string {
	for i, w := range wanted {
		if mediatype.Covers(modes, w) {
			continue
		}
		if !mediatype.Declared(modes) {
			return ""
		}
		if !why {
			return failed
		}
		// Name every type that is missing, not just the first.
		missing := []string{w}
		for _, w := range wanted[i+1:] {
			if !mediatype.Covers(modes, w) {
				missing = append(missing, w)
			}
		}
		return "skill accepts " + list(modes, ", ") + "; task attaches " + list(missing, " and ")
	}
	return ""
}

// outputsReason checks that the modes produce at least one wanted type.
func outputsReason(modes, wanted []string, why bool) string {
	for _, w := range wanted {
		if mediatype.Covers(modes, w) {
			return ""
		}
	}
	if !mediatype.Declared(modes) {
		return ""
	}
	if !why {
		return failed
	}
	return "skill produces " + list(modes, ", ") + "; task wants " + list(wanted, " or ")
}

// list joins items for a reason, cut short so that a card with a thousand
// modes cannot make a thousand-word reason.
func list(items []string, sep string) string {
	const max = 8
	if len(items) <= max {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:max], sep) + sep + "…"
}
