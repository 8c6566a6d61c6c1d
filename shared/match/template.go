package match

import (
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// sibling is the package's sibling for docs da and db, but for skills
// that each name a thing of their own agent's (ownThing: a dentist's and
// a therapist's "Book Appointment" book different things), with one more
// kind: services written from one template. Two agents may list one stock
// skill, its name (or id, sameSkill) and description alike, with no
// examples to tell a paste by (sgd's two event services both "Buy tickets
// for an event"). Services of one kind show it in the rest of their cards
// (oneKind). Card text cannot prove that two services are not one
// copying the other; the rule asks of a paste what sibling asks of any
// pair, a description written apart, only of another skill: a card
// pasted whole, or a skill pasted into a card of nothing else in common,
// is no sibling.
func (m *Matcher) sibling(da, db int, a, b *index.Doc) bool {
	switch {
	case !sameName(a, b) && !sameSkill(a, b), m.ownThing(da, a) && m.ownThing(db, b):
		return false
	case sibling(a, b):
		return true
	}
	return len(m.refs[da].skill.Examples) == 0 && len(m.refs[db].skill.Examples) == 0 && m.oneKind(da, db)
}

// agentSign is what oneKind compares of an agent: its description's
// words, and its skills' names as sameName reads them, sorted.
type agentSign struct {
	desc  []string
	terms []string // the description's terms
	names []skillName
	// untrusted says whether one of the agent's skills is not trusted:
	// oneAgentTerms leaves such an agent out.
	untrusted bool
}

type skillName struct {
	key string
	doc int
}

// oneKind says whether the agents of docs da and db are services of one
// kind: each describes itself in words of its own (minAgentTerms or more,
// not a copy of the other's), and both list another trusted skill of one
// name described apart (sgd's two event services both also "Find
// Events", each in its own words). It merges two sorted lists and reads
// at most maxSharedNames shared names, so a flood of same-named skills
// costs a pair about the agents' skill counts, not their product.
func (m *Matcher) oneKind(da, db int) bool {
	signs := m.signs()
	sa, sb := &signs[m.refs[da].agentN], &signs[m.refs[db].agentN]
	if len(sa.terms) < minAgentTerms || len(sb.terms) < minAgentTerms || jaccard(sa.desc, sb.desc) >= copiedDesc {
		return false
	}
	shared := 0
	for i, j := 0, 0; i < len(sa.names) && j < len(sb.names) && shared < maxSharedNames; {
		ka, kb := sa.names[i].key, sb.names[j].key
		switch {
		case ka < kb:
			i++
		case ka > kb:
			j++
		default:
			shared++
			ie, je := i, j
			for ie < len(sa.names) && sa.names[ie].key == ka {
				ie++
			}
			for je < len(sb.names) && sb.names[je].key == ka {
				je++
			}
			for _, x := range sa.names[i:ie] {
				for _, y := range sb.names[j:je] {
					if x.doc != da && y.doc != db && jaccard(m.idx.Doc(x.doc).DescTerms, m.idx.Doc(y.doc).DescTerms) < copiedDesc {
						return true
					}
				}
			}
			i, j = ie, je
		}
	}
	return false
}

// maxSharedNames is how many names two agents share that oneKind reads:
// services of one kind share a few, and past that a pair is judged no
// sibling, which only ever refuses.
const maxSharedNames = 8

// minAgentTerms is the fewest description terms an agent describes
// itself in for oneKind ("Bank accounts."): an empty or one-word
// description is no copy of anything, and no sign of a service's own
// either. It asks little; the skill described apart is the sign.
const minAgentTerms = 2

// agentSigns makes every agent's sign, in ref.agentN order. A skill's
// names are the keys sameName matches on: the name itself, its terms and
// its joined form, each kept for at most two skills of the agent (one
// of them not the pair's own is all oneKind needs). An untrusted skill
// names nothing.
func (m *Matcher) agentSigns() []agentSign {
	if len(m.refs) == 0 {
		return nil
	}
	signs := make([]agentSign, m.refs[len(m.refs)-1].agentN+1)
	for d := range m.refs {
		r := &m.refs[d]
		s := &signs[r.agentN]
		if s.desc == nil && r.agent != nil && r.agent.Card != nil {
			s.desc = wordSet(r.agent.Card.Description)
			s.terms = sortedSet(analyze.Terms(r.agent.Card.Description))
		}
		if r.distrust != "" {
			s.untrusted = true
			continue
		}
		e := m.idx.Doc(d)
		if name := strings.ToLower(strings.TrimSpace(e.Name)); name != "" {
			s.names = append(s.names, skillName{"=" + name, d})
		}
		if len(e.NameTerms) > 0 {
			s.names = append(s.names, skillName{"t" + strings.Join(e.NameTerms, " "), d})
			if e.JoinedName != "" {
				s.names = append(s.names, skillName{"j" + e.JoinedName, d})
			}
		}
	}
	for i := range signs {
		signs[i].names = keepTwoPerName(signs[i].names)
	}
	return signs
}

// keepTwoPerName sorts names by key, in place, and keeps the first two
// of each key (in their order).
func keepTwoPerName(names []skillName) []skillName {
	slices.SortStableFunc(names, func(a, b skillName) int { return strings.Compare(a.key, b.key) })
	kept := names[:0]
	for _, n := range names {
		if len(kept) < 2 || kept[len(kept)-2].key != n.key {
			kept = append(kept, n)
		}
	}
	return kept
}

// wordSet is a text's distinct words, sorted.
func wordSet(text string) []string { return sortedSet(analyze.Words(text)) }

// sortedSet sorts s in place and drops repeats.
func sortedSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// ownThing says whether skill doc d names a thing of its own agent's
// alone: a term its tags, its description and its agent's description
// all hold, and no other agent's skills or name (oneAgentTerms; a
// dentist's "Book Appointment", where another service books a
// therapist). It only ever refuses a sibling. An agent that
// oneAgentTerms leaves out names nothing of its own: a term it shares
// with one other agent counts as that agent's alone.
func (m *Matcher) ownThing(d int, e *index.Doc) bool {
	sign := &m.signs()[m.refs[d].agentN]
	if sign.untrusted {
		return false
	}
	own, terms := m.oneAgent(), sign.terms
	for _, t := range e.TagTerms {
		if own[t] && slices.Contains(e.DescTerms, t) && slices.Contains(terms, t) {
			return true
		}
	}
	return false
}
