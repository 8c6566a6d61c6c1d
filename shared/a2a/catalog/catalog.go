package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// New returns a catalog of the given agents, sorted by id so that every
// walk over it is deterministic. Agents without a status get the zero
// Status; use DefaultStatus explicitly for registry defaults.
//
// New panics on a nil card or a duplicate id: its input comes from code,
// and such a catalog would make lookups ambiguous. Untrusted input goes
// through LoadDir, which reports errors instead.
func New(agents ...Agent) *Catalog {
	c := &Catalog{Agents: slices.Clone(agents)}
	for i, a := range c.Agents {
		if a.Card == nil {
			panic(fmt.Sprintf("catalog.New: agent %d has no card", i))
		}
	}
	slices.SortStableFunc(c.Agents, func(a, b Agent) int { return strings.Compare(a.Card.ID, b.Card.ID) })
	c.index = make(map[string]int, len(c.Agents))
	for i, a := range c.Agents {
		if _, dup := c.index[a.Card.ID]; dup {
			panic(fmt.Sprintf("catalog.New: duplicate agent id %q", a.Card.ID))
		}
		c.index[a.Card.ID] = i
	}
	return c
}

// Agent returns the agent with the given id. The pointer is into the
// catalog: changes through it are visible to every user of the catalog.
func (c *Catalog) Agent(id string) (*Agent, bool) {
	if c == nil {
		return nil, false
	}
	if i, ok := c.index[id]; ok && i < len(c.Agents) && c.Agents[i].Card != nil && c.Agents[i].Card.ID == id {
		return &c.Agents[i], true
	}
	// The catalog was built by hand or changed after New: scan.
	for i := range c.Agents {
		if c.Agents[i].Card != nil && c.Agents[i].Card.ID == id {
			return &c.Agents[i], true
		}
	}
	return nil, false
}

// SkillRef is one skill of the catalog together with its agent.
type SkillRef struct {
	Agent *Agent
	Skill *card.Skill
}

// Key returns the skill's catalog-wide key, "<agent>/<skillId>".
func (r SkillRef) Key() string { return card.Key(r.Agent.Card.ID, r.Skill.ID) }

// Skills returns every skill of the catalog: agents in id order, each
// agent's skills in card order. The order is stable across calls and
// loads, so positions can serve as document ids in an index.
func (c *Catalog) Skills() []SkillRef {
	if c == nil {
		return nil
	}
	n := 0
	for _, a := range c.Agents {
		if a.Card != nil {
			n += len(a.Card.Skills)
		}
	}
	out := make([]SkillRef, 0, n)
	for i := range c.Agents {
		a := &c.Agents[i]
		if a.Card == nil {
			continue
		}
		for j := range a.Card.Skills {
			out = append(out, SkillRef{Agent: a, Skill: &a.Card.Skills[j]})
		}
	}
	return out
}

// Skill returns the skill with the key "<agent>/<skillId>". The key splits
// at the first '/': agent ids cannot contain one.
func (c *Catalog) Skill(key string) (SkillRef, bool) {
	agentID, skillID, ok := strings.Cut(key, "/")
	if !ok {
		return SkillRef{}, false
	}
	a, ok := c.Agent(agentID)
	if !ok {
		return SkillRef{}, false
	}
	s, ok := a.Card.Skill(skillID)
	if !ok {
		return SkillRef{}, false
	}
	return SkillRef{Agent: a, Skill: s}, true
}
