package filter

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
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
	in     [][]string
	out    [][]string
	sec    [][]card.Requirement
}

type planAgent struct {
	card   *card.Card
	skills int
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
	var key strings.Builder
	for ai := range cat.Agents {
		cd := cat.Agents[ai].Card
		if cd == nil {
			p.agents = append(p.agents, planAgent{})
			continue
		}
		p.agents = append(p.agents, planAgent{card: cd, skills: len(cd.Skills)})
		for si := range cd.Skills {
			s := &cd.Skills[si]
			p.skills = append(p.skills, planSkill{
				in:  intern(&p.in, ins, cd.EffectiveInputModes(s), modesKey(&key, cd.EffectiveInputModes(s))),
				out: intern(&p.out, outs, cd.EffectiveOutputModes(s), modesKey(&key, cd.EffectiveOutputModes(s))),
				sec: intern(&p.sec, secs, cd.EffectiveSecurity(s), securityKey(&key, cd.EffectiveSecurity(s))),
			})
		}
	}
	return p
}

// intern returns the id of v, whose content key is k, adding it to table.
func intern[T any](table *[]T, ids map[string]uint32, v T, k string) uint32 {
	if id, ok := ids[k]; ok {
		return id
	}
	id := uint32(len(*table))
	*table = append(*table, v)
	ids[k] = id
	return id
}

func modesKey(b *strings.Builder, modes []string) string {
	b.Reset()
	for _, m := range modes {
		b.WriteString(m)
		b.WriteByte(0)
	}
	return b.String()
}

// securityKey is the content of a requirement list, scheme names sorted
// (map order varies).
func securityKey(b *strings.Builder, reqs []card.Requirement) string {
	b.Reset()
	for _, entry := range reqs {
		names := make([]string, 0, len(entry))
		for name := range entry {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			b.WriteString(name)
			b.WriteByte(1)
			for _, scope := range entry[name] {
				b.WriteString(scope)
				b.WriteByte(0)
			}
			b.WriteByte(1)
		}
		b.WriteByte(2)
	}
	return b.String()
}

// Keep is the package's Keep for the plan's catalog, with the same
// result. Grants and the strict policy check each skill itself: they go
// the catalog's way.
func (p *Plan) Keep(req *extract.Requirement, opts ...Option) Result {
	if req == nil {
		req = &extract.Requirement{}
	}
	o := collect(opts)
	if p.cat == nil || o.grants != nil || o.strict || !p.current() {
		return Keep(req, p.cat, opts...)
	}
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
				kept[i] = p.keepRange(req, r, v, o, res.Keep[r.skills:r.skillsEnd], res.Demoted[r.skills:r.skillsEnd])
			})
		}
		wg.Wait()
		for _, k := range kept {
			res.Kept += k
		}
	} else {
		res.Kept = p.keepRange(req, part{agentsEnd: len(p.cat.Agents), skillsEnd: n}, v, o, res.Keep, res.Demoted)
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
// whose flags keep and demoted are.
func (p *Plan) keepRange(req *extract.Requirement, r part, v verdicts, o options, keep, demoted []bool) int {
	c := checker{opts: o}
	skills := p.skills[r.skills:r.skillsEnd]
	i, kept := 0, 0
	for ai := r.agents; ai < r.agentsEnd; ai++ {
		a := &p.cat.Agents[ai]
		if a.Card == nil {
			continue
		}
		end := i + len(a.Card.Skills)
		c.reset(req, a, false)
		if c.rule != "" {
			i = end
			continue
		}
		for ; i < end; i++ {
			s := skills[i]
			if v.in != nil && v.in[s.in] || v.out != nil && v.out[s.out] || v.sec != nil && v.sec[s.sec] {
				continue
			}
			keep[i] = true
			demoted[i] = c.demoted
			kept++
		}
	}
	return kept
}
