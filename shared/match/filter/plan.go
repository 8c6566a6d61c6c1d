package filter

import (
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// Plan is a catalog's skill-level filter fields laid out for Keep: each
// skill's effective input modes, output modes and security requirements
// interned into small tables at build time, so that a decision checks a
// distinct mode list once and a skill with a few integer loads, instead
// of reading every skill's card fields from all over the heap (at 100,000
// skills the cache misses were most of the filters' time).
//
// Agent-level rules still read the agent's status on every decision, so a
// health or clearance change is seen at once. A plan is for the catalog
// it was built from; Keep notices a card replaced or resized since and
// then checks the catalog itself.
type Plan struct {
	cat    *catalog.Catalog
	agents []planAgent
	skills []planSkill // catalog order, as Result.Keep
	ids    []string    // skill ids, in the same order
	in     [][]string
	out    [][]string
	sec    [][]card.Requirement
}

type planAgent struct {
	card   *card.Card
	skills int
	// endpoint is the card's endpoint verdict, with private addresses
	// refused and allowed: parsing its URLs on every decision cost more
	// than the rest of the agent-level rules.
	endpoint [2]string
}

// planSkill holds a skill's ids into the plan's tables.
type planSkill struct{ in, out, sec uint32 }

// NewPlan interns the catalog's skill-level filter fields.
func NewPlan(cat *catalog.Catalog) *Plan {
	p := &Plan{cat: cat}
	if cat == nil {
		return p
	}
	ins, outs, secs := map[string]uint32{}, map[string]uint32{}, map[string]uint32{}
	var key []byte // reused: a key becomes a string only when it is new
	for ai := range cat.Agents {
		cd := cat.Agents[ai].Card
		if cd == nil {
			p.agents = append(p.agents, planAgent{})
			continue
		}
		p.agents = append(p.agents, planAgent{card: cd, skills: len(cd.Skills),
			endpoint: [2]string{endpointReason(cd, false), endpointReason(cd, true)}})
		for si := range cd.Skills {
			s := &cd.Skills[si]
			p.ids = append(p.ids, s.ID)
			p.skills = append(p.skills, planSkill{
				in:  intern(&p.in, ins, cd.EffectiveInputModes(s), appendModesKey(&key, cd.EffectiveInputModes(s))),
				out: intern(&p.out, outs, cd.EffectiveOutputModes(s), appendModesKey(&key, cd.EffectiveOutputModes(s))),
				sec: intern(&p.sec, secs, cd.EffectiveSecurity(s), appendSecurityKey(&key, cd.EffectiveSecurity(s))),
			})
		}
	}
	return p
}

// intern returns the id of v, whose content key is k, adding it to table.
// The key is looked up as bytes (no string made) and copied only when
// new: a string per skill and field was most of an index build's
// allocations.
func intern[T any](table *[]T, ids map[string]uint32, v T, k []byte) uint32 {
	if id, ok := ids[string(k)]; ok {
		return id
	}
	id := uint32(len(*table))
	*table = append(*table, v)
	ids[string(k)] = id
	return id
}

// appendModesKey writes the content of a mode list into *b (emptied
// first) and returns it. Each string is written after its length: card
// text is untrusted, and a separator a mode could hold would let one list
// pass for another.
func appendModesKey(b *[]byte, modes []string) []byte {
	k := (*b)[:0]
	for _, m := range modes {
		k = field(k, m)
	}
	*b = k
	return k
}

func field(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// appendSecurityKey writes the content of a requirement list into *b
// (emptied first) and returns it: scheme names sorted (map order varies),
// each string after its length as in appendModesKey.
func appendSecurityKey(b *[]byte, reqs []card.Requirement) []byte {
	k := (*b)[:0]
	for _, entry := range reqs {
		names := make([]string, 0, len(entry))
		for name := range entry {
			names = append(names, name)
		}
		slices.Sort(names)
		k = strconv.AppendInt(k, int64(len(names)), 10)
		k = append(k, '{')
		for _, name := range names {
			k = field(k, name)
			k = strconv.AppendInt(k, int64(len(entry[name])), 10)
			k = append(k, '[')
			for _, scope := range entry[name] {
				k = field(k, scope)
			}
		}
	}
	*b = k
	return k
}

// Keep is the package's Keep for the plan's catalog, with the same
// result. Grants are resolved once per decision for the caller and asked
// once per agent (a skill-by-skill look only where the caller holds skill
// grants); the strict policy checks each skill itself: it goes the
// catalog's way.
func (p *Plan) Keep(req *extract.Requirement, opts ...Option) Result {
	if req == nil {
		req = &extract.Requirement{}
	}
	o := collect(opts)
	if p.cat == nil || o.strict || !p.current() {
		return Keep(req, p.cat, opts...)
	}
	who := o.grants.Caller(req.CallerID)
	n := len(p.skills)
	flags := make([]bool, 2*n) // one allocation for both
	res := Result{Keep: flags[:n:n], Demoted: flags[n:]}
	v := p.verdicts(req)
	if n >= parallelMinSkills && runtime.GOMAXPROCS(0) > 1 {
		parts := split(p.cat.Agents, runtime.GOMAXPROCS(0))
		kept := make([]int, len(parts))
		var wg sync.WaitGroup
		for i, r := range parts {
			wg.Go(func() {
				kept[i] = p.keepRange(req, r, v, o, who, res.Keep[r.skills:r.skillsEnd], res.Demoted[r.skills:r.skillsEnd])
			})
		}
		wg.Wait()
		for _, k := range kept {
			res.Kept += k
		}
	} else {
		res.Kept = p.keepRange(req, part{agentsEnd: len(p.cat.Agents), skillsEnd: n}, v, o, who, res.Keep, res.Demoted)
	}
	return res
}

// current reports whether the catalog still has the cards the plan was
// built from, with as many skills.
func (p *Plan) current() bool {
	if len(p.cat.Agents) != len(p.agents) {
		return false
	}
	for ai := range p.agents {
		cd := p.cat.Agents[ai].Card
		if cd != p.agents[ai].card || cd != nil && len(cd.Skills) != p.agents[ai].skills {
			return false
		}
	}
	return true
}

// verdicts says, for one requirement, which of the plan's distinct mode
// and security lists fail it.
type verdicts struct{ in, out, sec []bool }

func (p *Plan) verdicts(req *extract.Requirement) verdicts {
	var v verdicts
	if len(req.InputTypes) > 0 {
		v.in = make([]bool, len(p.in))
		for i, modes := range p.in {
			v.in[i] = inputsReason(modes, req.InputTypes, false) != ""
		}
	}
	if len(req.OutputTypes) > 0 {
		v.out = make([]bool, len(p.out))
		for i, modes := range p.out {
			v.out[i] = outputsReason(modes, req.OutputTypes, false) != ""
		}
	}
	if req.Scopes != nil { // nil: not filtered on security
		v.sec = make([]bool, len(p.sec))
		for i, reqs := range p.sec {
			v.sec[i] = securityReason(reqs, req.Scopes, false) != ""
		}
	}
	return v
}

// keepRange is the package's keepRange over the agents and skills of r,
// whose flags keep and demoted are; who is the caller's grants (nil: no
// grants configured).
func (p *Plan) keepRange(req *extract.Requirement, r part, v verdicts, o options, who *grants.Caller, keep, demoted []bool) int {
	var data dataMemo
	skills := p.skills[r.skills:r.skillsEnd]
	i, kept := 0, 0
	for ai := r.agents; ai < r.agentsEnd; ai++ {
		a := &p.cat.Agents[ai]
		if a.Card == nil {
			continue
		}
		end := i + p.agents[ai].skills // the card's, as current checked
		rule, _, demotedAgent := agentRules(req, a, o, false, &p.agents[ai].endpoint, &data)
		if rule != "" {
			i = end
			continue
		}
		whole, some := who.Agent(a.Card)
		if !some { // no grant on the agent
			i = end
			continue
		}
		start := i
		for ; i < end; i++ {
			s := skills[i]
			if v.in != nil && v.in[s.in] || v.out != nil && v.out[s.out] || v.sec != nil && v.sec[s.sec] {
				continue
			}
			if !whole {
				if ok, _ := who.Allowed(a.Card, &a.Card.Skills[i-start]); !ok {
					continue
				}
			}
			keep[i] = true
			demoted[i] = demotedAgent
			kept++
		}
	}
	return kept
}

// Explain is res.Explain for the plan's catalog, with the same reasons:
// a distinct mode or security list's sentence is written once per
// decision, not once per skill that uses it, and the skill ids are read
// from the plan, not from every skill of the catalog.
func (p *Plan) Explain(res *Result, req *extract.Requirement, opts ...Option) {
	if req == nil {
		req = &extract.Requirement{}
	}
	o := collect(opts)
	if p.cat == nil || o.strict || len(res.Keep) != len(p.skills) || !p.current() {
		res.Explain(req, p.cat, opts...)
		return
	}
	n := len(res.Keep)
	if res.Kept == n || res.Rejections != nil {
		return
	}
	res.Rejections = make([]Rejection, n-res.Kept)
	why := p.reasons(req)
	if n < parallelMinSkills || runtime.GOMAXPROCS(0) == 1 {
		p.explainRange(req, part{agentsEnd: len(p.cat.Agents), skillsEnd: n}, why, o, res.Keep, res.Rejections)
		return
	}
	out := res.Rejections
	var wg sync.WaitGroup
	for _, r := range split(p.cat.Agents, runtime.GOMAXPROCS(0)) {
		rejected := r.skillsEnd - r.skills
		for _, k := range res.Keep[r.skills:r.skillsEnd] {
			if k {
				rejected--
			}
		}
		dst := out[:rejected]
		out = out[rejected:]
		wg.Go(func() { p.explainRange(req, r, why, o, res.Keep, dst) })
	}
	wg.Wait()
}

// reasons are the sentences of the plan's distinct lists that fail a
// requirement ("" for those that pass or are not checked).
type reasons struct{ in, out, sec []string }

func (p *Plan) reasons(req *extract.Requirement) reasons {
	var r reasons
	if len(req.InputTypes) > 0 {
		r.in = make([]string, len(p.in))
		for i, modes := range p.in {
			r.in[i] = inputsReason(modes, req.InputTypes, true)
		}
	}
	if len(req.OutputTypes) > 0 {
		r.out = make([]string, len(p.out))
		for i, modes := range p.out {
			r.out[i] = outputsReason(modes, req.OutputTypes, true)
		}
	}
	if req.Scopes != nil {
		r.sec = make([]string, len(p.sec))
		for i, reqs := range p.sec {
			r.sec[i] = securityReason(reqs, req.Scopes, true)
		}
	}
	return r
}

// explainRange writes into out the rejection of each skill of r that
// keep (the whole catalog's flags) says was removed.
func (p *Plan) explainRange(req *extract.Requirement, r part, why reasons, o options, keep []bool, out []Rejection) {
	c := checker{opts: o}
	i, k := r.skills, 0
	for ai := r.agents; ai < r.agentsEnd; ai++ {
		a := &p.cat.Agents[ai]
		if a.Card == nil {
			continue
		}
		start, end := i, i+len(a.Card.Skills)
		if !slices.Contains(keep[i:end], false) {
			i = end
			continue
		}
		c.reset(req, a, true, &p.agents[ai].endpoint)
		for ; i < end; i++ {
			if keep[i] {
				continue
			}
			rj := Rejection{Agent: a.Card.ID, Skill: p.ids[i], Rule: c.rule, Reason: c.reason}
			if c.rule == "" {
				s := p.skills[i]
				granted, grantReason := true, ""
				if o.grants != nil { // checked first, as Check does
					granted, grantReason = o.grants.Check(req.CallerID, a, &a.Card.Skills[i-start])
				}
				switch {
				case !granted:
					rj.Rule, rj.Reason = RuleGrant, grantReason
				case why.in != nil && why.in[s.in] != "":
					rj.Rule, rj.Reason = RuleInputType, why.in[s.in]
				case why.out != nil && why.out[s.out] != "":
					rj.Rule, rj.Reason = RuleOutputType, why.out[s.out]
				case why.sec != nil && why.sec[s.sec] != "":
					rj.Rule, rj.Reason = RuleSecurity, why.sec[s.sec]
				default: // flags from another requirement: ask the card
					rj.Rule, rj.Reason = c.check(req, &a.Card.Skills[i-start])
				}
			}
			out[k] = rj
			k++
		}
	}
}
