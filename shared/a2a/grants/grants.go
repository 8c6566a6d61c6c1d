// Package grants restricts which agents and skills a caller may be matched
// to. A grant gives a caller, or a group of callers, either a whole agent
// or one skill of an agent:
//
//	{
//	  "grants": [
//	    {"caller": "alice", "agent": "billing"},
//	    {"group": "finance", "agent": "ap", "skill": "reconcile"}
//	  ],
//	  "groups": {"finance": ["alice", "bob"]}
//	}
//
// Grants are a hard filter (rule "grant"), like the rules of package
// filter:
//
//   - No grants file (a nil *Grants): everything is allowed, for everyone.
//   - A grants file, even one with an empty list: default deny. A caller
//     gets exactly the union of its own grants and its groups' grants; an
//     anonymous caller (empty id) and a caller without grants get nothing.
//   - A whole-agent grant allows every skill of the agent.
//   - A skill grant allows that skill only, and only on an agent that
//     advertises the skill-routing extension (package routing) and lists the
//     skill. An A2A skill is a description, not a boundary: an agent that
//     does not enforce the route answers anything sent to it, so it can only
//     be granted whole, and a skill grant on it allows nothing.
//   - A caller whose access to an agent comes only from skill grants is
//     "scoped" there: its requests must carry the route (routing.Apply
//     returning routing.Routed), follow-ups keep the task's skill, and its
//     tasks start new contexts (Followup).
//
// Caller ids, group names, agent ids and skill ids compare exactly (case
// matters).
package grants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
)

// Rule is the name of the hard filter rule, for filter.Rejection.Rule.
const Rule = "grant"

// Limits on a grants file.
const (
	MaxBytes    = 4 << 20
	maxNameLen  = 256
	maxSkillLen = 128
	maxProblems = 10
)

// ErrInvalid is wrapped by every error about a grants file's content.
var ErrInvalid = errors.New("invalid grants")

// Grant is one entry of a grants file: exactly one of Caller and Group,
// an Agent, and optionally a Skill of it.
type Grant struct {
	Caller string `json:"caller,omitempty"`
	Group  string `json:"group,omitempty"`
	Agent  string `json:"agent"`
	Skill  string `json:"skill,omitempty"`
}

// File is the JSON form of a grants file.
type File struct {
	Grants []Grant             `json:"grants"`
	Groups map[string][]string `json:"groups,omitempty"`
}

// Grants is a validated, indexed grants file. A nil *Grants means no
// grants file: every method then allows everything.
type Grants struct {
	byPrin   map[principal]map[string]*access // principal -> agent id -> access
	groupsOf map[string][]string              // caller -> groups, sorted
}

type principal struct {
	group bool
	name  string
}

type access struct {
	whole  bool
	skills []string // sorted
}

// Parse reads and validates a grants file. Unknown members are an error: a
// misspelt "skill" would otherwise silently widen a grant to the whole
// agent.
func Parse(data []byte) (*Grants, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrInvalid, len(data), MaxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrInvalid)
	}
	return New(f)
}

// Load reads a grants file from disk; errors start with the path.
func Load(path string) (*Grants, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	g, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// New validates f and indexes it.
func New(f File) (*Grants, error) {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	g := &Grants{
		byPrin:   map[principal]map[string]*access{},
		groupsOf: map[string][]string{},
	}
	groupNames := make([]string, 0, len(f.Groups))
	for name := range f.Groups {
		groupNames = append(groupNames, name)
	}
	slices.Sort(groupNames)
	for _, name := range groupNames {
		if msg := badName(name); msg != "" {
			fail("groups: name %q %s", name, msg)
			continue
		}
		members := f.Groups[name]
		for i, m := range members {
			if msg := badName(m); msg != "" {
				fail("groups.%s[%d]: caller %q %s", name, i, m, msg)
			}
		}
		members = slices.Compact(slices.Sorted(slices.Values(members)))
		for _, m := range members {
			g.groupsOf[m] = append(g.groupsOf[m], name) // names sorted: stays sorted
		}
	}
	for i, gr := range f.Grants {
		at := fmt.Sprintf("grants[%d]", i)
		var p principal
		switch {
		case gr.Caller != "" && gr.Group != "":
			fail("%s: names both a caller and a group; write two grants", at)
			continue
		case gr.Caller != "":
			if msg := badName(gr.Caller); msg != "" {
				fail("%s.caller: %q %s", at, gr.Caller, msg)
				continue
			}
			p = principal{name: gr.Caller}
		case gr.Group != "":
			if _, ok := f.Groups[gr.Group]; !ok {
				fail("%s.group: %q is not defined in groups", at, gr.Group)
				continue
			}
			p = principal{group: true, name: gr.Group}
		default:
			fail("%s: names neither a caller nor a group", at)
			continue
		}
		if !card.ValidID(gr.Agent) {
			fail("%s.agent: %q is not an agent id (1-128 characters of [a-z0-9._-])", at, gr.Agent)
			continue
		}
		if gr.Skill != "" {
			if msg := badSkill(gr.Skill); msg != "" {
				fail("%s.skill: %q %s", at, gr.Skill, msg)
				continue
			}
		}
		agents := g.byPrin[p]
		if agents == nil {
			agents = map[string]*access{}
			g.byPrin[p] = agents
		}
		acc := agents[gr.Agent]
		if acc == nil {
			acc = &access{}
			agents[gr.Agent] = acc
		}
		if gr.Skill == "" {
			acc.whole = true
		} else if j, found := slices.BinarySearch(acc.skills, gr.Skill); !found {
			acc.skills = slices.Insert(acc.skills, j, gr.Skill)
		}
	}
	if len(problems) > 0 {
		if len(problems) > maxProblems {
			problems = append(problems[:maxProblems:maxProblems], fmt.Sprintf("and %d more problems", len(problems)-maxProblems))
		}
		return nil, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return g, nil
}

func badName(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > maxNameLen:
		return fmt.Sprintf("is longer than %d bytes", maxNameLen)
	case strings.TrimSpace(s) != s:
		return "has leading or trailing spaces"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0:
		return "contains control or invalid characters"
	}
	return ""
}

func badSkill(s string) string {
	switch {
	case len(s) > maxSkillLen:
		return fmt.Sprintf("is longer than %d bytes", maxSkillLen)
	case strings.Contains(s, "/"):
		return "contains '/'"
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "contains spaces or control characters"
	}
	return ""
}

// Decision is the outcome of Access.
type Decision struct {
	OK bool
	// Scoped says the caller reaches this agent only through skill grants:
	// the request must be routed (routing.Apply must return
	// routing.Routed) and Followup applies the scoped-caller rules.
	Scoped bool
	// Reason says why, in a sentence for a user.
	Reason string
}

// Allowed is the allocation-free form of Access for the filter's hot path.
func (g *Grants) Allowed(callerID string, a *catalog.Agent, s *card.Skill) (ok, scoped bool) {
	if g == nil {
		return true, false
	}
	c := agentCard(a)
	if callerID == "" || c == nil || s == nil {
		return false, false
	}
	whole, skill := false, false
	g.each(callerID, c.ID, func(_ principal, acc *access) {
		whole = whole || acc.whole
		if _, found := slices.BinarySearch(acc.skills, s.ID); found {
			skill = true
		}
	})
	return verdict(whole, skill, c, s)
}

// verdict is Allowed's answer once the caller's grants on the agent are
// known: all of it, or a skill grant the agent can enforce.
func verdict(whole, skill bool, c *card.Card, s *card.Skill) (ok, scoped bool) {
	switch {
	case whole:
		return true, false
	case skill && routing.Supports(c, s.ID):
		return true, true
	}
	return false, false
}

// Caller is one caller's grants, resolved once (its own and its groups'),
// for a filter that asks about every agent of a catalog: a question then
// costs a map lookup per grant holder, not the caller's and each group's
// tables looked up again. A nil *Caller (no grants configured) allows
// everything.
type Caller struct {
	anonymous bool
	agents    []map[string]*access // the caller's, then its groups'
}

// Caller resolves the grants of callerID (nil when g is nil).
func (g *Grants) Caller(callerID string) *Caller {
	if g == nil {
		return nil
	}
	c := &Caller{anonymous: callerID == ""}
	if c.anonymous {
		return c
	}
	if m := g.byPrin[principal{name: callerID}]; m != nil {
		c.agents = append(c.agents, m)
	}
	for _, grp := range g.groupsOf[callerID] {
		if m := g.byPrin[principal{group: true, name: grp}]; m != nil {
			c.agents = append(c.agents, m)
		}
	}
	return c
}

// Agent says whether the caller holds all of agent cd (whole) or at least
// one grant on it (some; then Allowed decides skill by skill). Neither:
// no skill of the agent is allowed.
func (c *Caller) Agent(cd *card.Card) (whole, some bool) {
	if c == nil {
		return true, true
	}
	if c.anonymous || cd == nil {
		return false, false
	}
	for _, m := range c.agents {
		if acc := m[cd.ID]; acc != nil {
			if acc.whole {
				return true, true
			}
			some = true
		}
	}
	return false, some
}

// Allowed is Grants.Allowed for the resolved caller.
func (c *Caller) Allowed(cd *card.Card, s *card.Skill) (ok, scoped bool) {
	if c == nil {
		return true, false
	}
	if c.anonymous || cd == nil || s == nil {
		return false, false
	}
	whole, skill := false, false
	for _, m := range c.agents {
		if acc := m[cd.ID]; acc != nil {
			whole = whole || acc.whole
			if _, found := slices.BinarySearch(acc.skills, s.ID); found {
				skill = true
			}
		}
	}
	return verdict(whole, skill, cd, s)
}

// Check is the hard filter: whether the caller may be matched to skill s of
// agent a, and why (a sentence, also when ok).
func (g *Grants) Check(callerID string, a *catalog.Agent, s *card.Skill) (ok bool, reason string) {
	d := g.Access(callerID, a, s)
	return d.OK, d.Reason
}

// Access is Check with the scope.
func (g *Grants) Access(callerID string, a *catalog.Agent, s *card.Skill) Decision {
	if g == nil {
		return Decision{OK: true, Reason: "no grants are configured: every caller may use every skill"}
	}
	c := agentCard(a)
	switch {
	case c == nil || s == nil:
		return Decision{Reason: "no agent or skill"}
	case callerID == "":
		return Decision{Reason: "the task names no caller, and grants are configured: anonymous callers are granted nothing"}
	}
	var wholeVia, skillVia principal
	var whole, skill bool
	var others []string
	g.each(callerID, c.ID, func(p principal, acc *access) {
		if acc.whole && !whole {
			whole, wholeVia = true, p
		}
		for _, sk := range acc.skills {
			if sk == s.ID {
				if !skill {
					skill, skillVia = true, p
				}
			} else if !slices.Contains(others, sk) {
				others = append(others, sk)
			}
		}
	})
	who := fmt.Sprintf("caller %q", callerID)
	via := func(p principal) string {
		if p.group {
			return fmt.Sprintf(" (via group %q)", p.name)
		}
		return ""
	}
	switch {
	case whole:
		return Decision{OK: true, Reason: fmt.Sprintf("%s is granted all of agent %q%s", who, c.ID, via(wholeVia))}
	case skill:
		if err := routing.Check(c, s.ID); err != nil {
			return Decision{Scoped: true, Reason: fmt.Sprintf(
				"%s is granted only skill %q of agent %q%s, and that grant cannot be enforced: the agent does not advertise the skill-routing extension %s, so it can only be granted whole; this skill grant allows nothing",
				who, s.ID, c.ID, via(skillVia), routing.URI)}
		}
		return Decision{OK: true, Scoped: true, Reason: fmt.Sprintf(
			"%s is granted skill %q of agent %q%s; requests carry the route (skill-routing extension)", who, s.ID, c.ID, via(skillVia))}
	case len(others) > 0:
		slices.Sort(others)
		return Decision{Scoped: true, Reason: fmt.Sprintf("%s is granted only %s %s of agent %q, not %q",
			who, plural(len(others), "skill", "skills"), quoteList(others), c.ID, s.ID)}
	}
	return Decision{Reason: fmt.Sprintf("%s has no grant for agent %q (grants are configured: default deny)", who, c.ID)}
}

// each calls fn for every grant entry of the caller, and of its groups, on
// the agent.
func (g *Grants) each(callerID, agentID string, fn func(principal, *access)) {
	if acc := g.byPrin[principal{name: callerID}][agentID]; acc != nil {
		fn(principal{name: callerID}, acc)
	}
	for _, grp := range g.groupsOf[callerID] {
		p := principal{group: true, name: grp}
		if acc := g.byPrin[p][agentID]; acc != nil {
			fn(p, acc)
		}
	}
}

func agentCard(a *catalog.Agent) *card.Card {
	if a == nil {
		return nil
	}
	return a.Card
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// Reduce returns the card as the caller sees it: only the skills Check
// allows. It returns nil when the caller may use none of the card's skills
// (the agent is hidden), and c itself when no grants are configured. A
// reduced card is a copy; when skills were removed, its description is
// replaced by a generic one (the agent's own may describe skills the caller
// may not see) and its notes by one saying what was reduced (notes point at
// skill positions of the full card).
func (g *Grants) Reduce(c *card.Card, callerID string) *card.Card {
	if g == nil || c == nil {
		return c
	}
	a := &catalog.Agent{Card: c}
	var keep []card.Skill
	for i := range c.Skills {
		if ok, _ := g.Allowed(callerID, a, &c.Skills[i]); ok {
			keep = append(keep, cloneSkill(c.Skills[i]))
		}
	}
	if len(keep) == 0 {
		return nil
	}
	out := *c
	out.Interfaces = slices.Clone(c.Interfaces)
	out.Extensions = slices.Clone(c.Extensions)
	out.DefaultInputModes = slices.Clone(c.DefaultInputModes)
	out.DefaultOutputModes = slices.Clone(c.DefaultOutputModes)
	out.SecuritySchemes = slices.Clone(c.SecuritySchemes)
	out.Security = cloneReqs(c.Security)
	out.Notes = slices.Clone(c.Notes)
	out.Skills = keep
	if len(keep) < len(c.Skills) {
		names := make([]string, len(keep))
		for i, s := range keep {
			names[i] = s.Name
		}
		out.Description = fmt.Sprintf("%s, limited to the %s granted to you: %s.", c.Name,
			plural(len(keep), "skill", "skills"), strings.Join(names, "; "))
		out.Notes = []string{fmt.Sprintf("skills: reduced to the %d of %d granted to caller %q", len(keep), len(c.Skills), callerID)}
	}
	return &out
}

func cloneSkill(s card.Skill) card.Skill {
	s.Tags = slices.Clone(s.Tags)
	s.Examples = slices.Clone(s.Examples)
	s.InputModes = slices.Clone(s.InputModes)
	s.OutputModes = slices.Clone(s.OutputModes)
	s.Security = cloneReqs(s.Security)
	return s
}

func cloneReqs(rs []card.Requirement) []card.Requirement {
	if rs == nil {
		return nil
	}
	out := make([]card.Requirement, len(rs))
	for i, r := range rs {
		out[i] = make(card.Requirement, len(r))
		for k, v := range r {
			out[i][k] = slices.Clone(v)
		}
	}
	return out
}

// ReduceCatalog returns the catalog as the caller sees it: agents it may
// use none of are left out, the others reduced (Reduce). Statuses are kept.
func (g *Grants) ReduceCatalog(cat *catalog.Catalog, callerID string) *catalog.Catalog {
	if g == nil || cat == nil {
		return cat
	}
	var agents []catalog.Agent
	for _, a := range cat.Agents {
		if c := g.Reduce(a.Card, callerID); c != nil {
			agents = append(agents, catalog.Agent{Card: c, Status: a.Status})
		}
	}
	return catalog.New(agents...)
}
