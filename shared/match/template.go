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
// skill, name and description alike, with no examples to tell a paste by
// (sgd's two event services both "Buy tickets for an event"). Services of
// one kind show it in the rest of their cards (oneKind); a skill pasted
// into a card shows up on its own, in an agent of nothing else, or of
// nothing else in common.
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
}

type skillName struct {
	key string
	doc int
}

// oneKind says whether the agents of docs da and db are services of one
// kind: each describes itself in its own words, and both list another
// skill of one name (sgd's two event services both also "Find Events").
// It merges two sorted lists, so a flood of same-named skills costs each
// pair the agents' skill counts, not their product.
func (m *Matcher) oneKind(da, db int) bool {
	signs := m.signs()
	sa, sb := &signs[m.refs[da].agentN], &signs[m.refs[db].agentN]
	if jaccard(sa.desc, sb.desc) >= copiedDesc {
		return false
	}
	for i, j := 0, 0; i < len(sa.names) && j < len(sb.names); {
		ka, kb := sa.names[i].key, sb.names[j].key
		switch {
		case ka < kb:
			i++
		case ka > kb:
			j++
		default:
			ie, je := i, j
			for ie < len(sa.names) && sa.names[ie].key == ka {
				ie++
			}
			for je < len(sb.names) && sb.names[je].key == ka {
				je++
			}
			if slices.ContainsFunc(sa.names[i:ie], func(n skillName) bool { return n.doc != da }) &&
				slices.ContainsFunc(sb.names[j:je], func(n skillName) bool { return n.doc != db }) {
				return true
			}
			i, j = ie, je
		}
	}
	return false
}

// agentSigns makes every agent's sign, in ref.agentN order. A skill's
// names are the keys sameName matches on: the name itself, its terms and
// its joined form.
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
			s.terms = analyze.Terms(r.agent.Card.Description)
			slices.Sort(s.terms)
			s.terms = slices.Compact(s.terms)
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
		slices.SortFunc(signs[i].names, func(a, b skillName) int { return strings.Compare(a.key, b.key) })
	}
	return signs
}

// wordSet is a text's distinct words, sorted.
func wordSet(text string) []string {
	w := analyze.Words(text)
	slices.Sort(w)
	return slices.Compact(w)
}

// ownThing says whether skill doc d names a thing of its own agent's
// alone: a term its tags, its description and its agent's description
// all hold, and no other agent's card (a dentist's "Book Appointment",
// where another service books a therapist).
func (m *Matcher) ownThing(d int, e *index.Doc) bool {
	own := m.oneAgent()
	terms := m.signs()[m.refs[d].agentN].terms
	for _, t := range e.TagTerms {
		if own[t] && slices.Contains(e.DescTerms, t) && slices.Contains(terms, t) {
			return true
		}
	}
	return false
}
