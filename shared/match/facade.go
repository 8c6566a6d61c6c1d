package match

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A card that names other agents of the catalog as its own ("One front door
// to Harcastle Rovers, powered by the Box Office, the Season Tickets Office,
// Rovers Membership ...", its skill listing their skills' keys as
// "sub-skills, delegated internally") claims their jobs as a catch-all
// does, in their names rather than their tags, and took six of a blind
// set's requests first. An agent is named by its name of two words or more
// ("Box Office"), or by one of its skills' keys ("tickets/match-tickets").
// Over the twenty-four hostile sets, the golden sets and the examples, no
// honest skill's card names two other agents; the attack cards that name
// three or more (up to ten) are all hubs and catch-alls.
const facadeAgentsAt = 3

// catalogNames indexes the agents' names of two words or more by their
// first word, and their skills' keys, for facadeNames.
type catalogNames struct {
	byFirst map[string][]agentName
	keys    map[string]int32
}

type agentName struct {
	words []string
	agent int32
}

func newCatalogNames(refs []ref, docs []index.Doc) *catalogNames {
	n := &catalogNames{byFirst: map[string][]agentName{}, keys: map[string]int32{}}
	for i := range refs {
		n.keys[strings.ToLower(docs[i].Key)] = refs[i].agentN
		if i > 0 && refs[i-1].agentN == refs[i].agentN {
			continue
		}
		if w := analyze.Words(refs[i].agent.Card.Name); len(w) >= 2 {
			n.byFirst[w[0]] = append(n.byFirst[w[0]], agentName{words: w, agent: refs[i].agentN})
		}
	}
	return n
}

// named adds to seen the agents other than own that text names, its
// words read as the index reads them (analyze.AppendWords) into words,
// scratch returned for reuse.
func (n *catalogNames) named(text string, own int32, seen map[int32]bool, words []string) []string {
	words = analyze.AppendWords(words[:0], text)
	for k, w := range words {
		for _, a := range n.byFirst[w] {
			if a.agent != own && k+len(a.words) <= len(words) && slices.Equal(words[k:k+len(a.words)], a.words) {
				seen[a.agent] = true
			}
		}
	}
	for i := strings.IndexByte(text, '/'); i >= 0; {
		start, end := i, i+1
		for start > 0 && keyByte(text[start-1]) {
			start--
		}
		for end < len(text) && keyByte(text[end]) {
			end++
		}
		for end > i+1 && strings.IndexByte(".-_", text[end-1]) >= 0 {
			end-- // a full stop after a key ends its sentence
		}
		if a, ok := n.keys[strings.ToLower(text[start:end])]; ok && a != own {
			seen[a] = true
		}
		next := strings.IndexByte(text[i+1:], '/')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return words
}

// keyByte says whether c may be part of a skill key's agent or skill id,
// in any case.
func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

// markFacades sets distrust on each skill, not already distrusted, whose
// card (its agent's description, its name, description and tags; the
// descriptions as written, past the length cap) names
// facadeAgentsAt other agents or more. docs are one per ref.
func markFacades(refs []ref, docs []index.Doc) {
	if len(docs) != len(refs) || len(refs) == 0 || refs[len(refs)-1].agentN+1 <= facadeAgentsAt {
		return
	}
	names := newCatalogNames(refs, docs)
	seen, agentSeen := map[int32]bool{}, map[int32]bool{} // agentSeen: what the agent's own description names
	var words []string
	for i := range refs {
		r := &refs[i]
		if i == 0 || refs[i-1].agentN != r.agentN {
			clear(agentSeen)
			words = names.named(r.agent.Card.WrittenDescription(), r.agentN, agentSeen, words)
		}
		if r.distrust != "" {
			continue
		}
		clear(seen)
		for a := range agentSeen {
			seen[a] = true
		}
		words = names.named(r.skill.Name, r.agentN, seen, words)
		words = names.named(r.skill.WrittenDescription(), r.agentN, seen, words)
		for _, tag := range r.skill.Tags {
			words = names.named(tag, r.agentN, seen, words)
		}
		if len(seen) >= facadeAgentsAt {
			r.distrust = fmt.Sprintf("card names %d other agents of the catalog as its own (a front door to their jobs); not trusted. ", len(seen))
		}
	}
}
