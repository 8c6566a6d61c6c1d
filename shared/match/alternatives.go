package match

import (
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// maxJobPosting bounds the skills a term may lead to when the catalog's
// alternatives are worked out: a term that hundreds of skills share says
// nothing about which of them do the same job, and following it would make
// the work quadratic in the catalog.
const maxJobPosting = 1024

// alternativesOf lists, for each skill, the skills of other agents that do
// its job (sameJob) but that the caller must choose between rather than
// the matcher: another agent's data handling (clearance, internal or
// external), or the same agent name (one card copies the other). A request
// may name words that only one of the two uses ("how do you say good
// morning in Swedish" against "Secure document translation"), so the other
// need not be shortlisted at all; the decider must still ask.
//
// Catalogs with one data handling and no two agents of one name (every
// golden set, most real ones) have none, and nothing is computed. Otherwise
// the candidates of a skill come from prefix filtering: a skill sharing
// half of a field's terms with it holds at least one of its rarest
// ⌊n/2⌋+1 terms of that field, so only those terms' postings are read.
func alternativesOf(refs []ref, docs []index.Doc) map[int][]int {
	if len(docs) != len(refs) || !mixedHandling(refs) {
		return nil
	}
	type field func(*index.Doc) []string
	fields := []field{
		func(d *index.Doc) []string { return d.NameTerms },
		func(d *index.Doc) []string { return d.TagTerms },
		func(d *index.Doc) []string { return d.DescTerms },
	}
	postings := make([]map[string][]int, len(fields))
	for f, terms := range fields {
		postings[f] = map[string][]int{}
		for i := range docs {
			for _, t := range terms(&docs[i]) {
				postings[f][t] = append(postings[f][t], i)
			}
		}
	}
	var out map[int][]int
	seen := make([]int, len(docs)) // seen[j] == i+1: j was weighed for i
	for i := range docs {
		for f, terms := range fields {
			ts := slices.Clone(terms(&docs[i]))
			slices.SortFunc(ts, func(a, b string) int { return len(postings[f][a]) - len(postings[f][b]) })
			for _, t := range ts[:min(len(ts), len(ts)/2+1)] {
				p := postings[f][t]
				if len(p) > maxJobPosting {
					continue
				}
				for _, j := range p {
					if seen[j] == i+1 || refs[j].agent == refs[i].agent {
						continue
					}
					seen[j] = i + 1
					if !handledAlike(refs[i], refs[j]) && sameJob(&docs[i], &docs[j]) {
						if out == nil {
							out = map[int][]int{}
						}
						out[i] = append(out[i], j)
					}
				}
			}
		}
	}
	for i := range out {
		slices.Sort(out[i])
	}
	return out
}

// mixedHandling says whether the catalog's agents differ in data handling
// or two of them share a name: only then can a skill have alternatives.
func mixedHandling(refs []ref) bool {
	names := map[string]bool{}
	var first *ref
	for i := range refs {
		r := &refs[i]
		if first == nil {
			first = r
		} else if r.agent != first.agent && !handledAlike(*first, *r) {
			return true
		}
		if i > 0 && refs[i-1].agent == r.agent {
			continue
		}
		n := strings.Join(analyze.Words(r.agent.Card.Name), " ")
		if n != "" && names[n] {
			return true
		}
		names[n] = true
	}
	return false
}

// handledAlike: two agents under different names with the same data
// handling, whose same-job skills are twins, not alternatives.
func handledAlike(a, b ref) bool {
	return !sameName(a.agent.Card.Name, b.agent.Card.Name) &&
		a.agent.Status.Clearance == b.agent.Status.Clearance && a.agent.Status.External == b.agent.Status.External
}

// addAlternatives appends to a ranking whose best candidate has an
// alternative the caller must choose (see alternativesOf), but none in the
// shortlist, the first such skill the hard filters let take this task: at
// probability 0, for the decider to name beside the best one, never to
// delegate to. A card that orders the matcher about is never offered.
func (m *Matcher) addAlternatives(req *extract.Requirement, out []Ranked) []Ranked {
	if len(out) == 0 || m.alts == nil {
		return out
	}
	top := out[0]
	alts := m.alts[top.Doc]
	if len(alts) == 0 || top.Prob == 0 {
		return out
	}
	for _, r := range out[1:] {
		if r.AlikeOf == top.Entry.Key && r.Alike != decide.AlikeTwin {
			return out
		}
	}
	for _, d := range alts {
		if m.refs[d].directive || slices.ContainsFunc(out, func(r Ranked) bool { return r.Doc == d }) {
			continue
		}
		if !filter.Check(req, m.refs[d].agent, m.refs[d].skill, m.cfg.filters...).OK {
			continue
		}
		return append(out, Ranked{
			Scored: rerank.Scored{
				Candidate: index.Candidate{Doc: d, Entry: m.idx.Doc(d), BestExample: -1},
				Reason:    "not shortlisted; does " + top.Entry.Key + "'s job under other data handling or the same agent name",
			},
			AlikeOf: top.Entry.Key, Alike: m.alikeKind(top.Doc, d),
		})
	}
	return out
}

// referents are the words that point at something without naming it: the
// closed class of pronouns and placeholder nouns ("fix it", "help me with
// this", "do the thing we talked about", "handle the usual").
var referents = map[string]bool{
	"it": true, "this": true, "that": true, "these": true, "those": true, "them": true,
	"something": true, "anything": true, "everything": true, "whatever": true,
	"thing": true, "stuff": true, "usual": true,
}

// markUnnamed marks the best candidate Unnamed when the request is thin —
// it points at something ("it", "this") that no earlier turn or attached
// file supplies, and beside that holds at most one content word — and none
// of its words is part of the skill's stated job (its name, tags or
// description). "repeat that" names a repeat skill's job; "fix it" says
// nothing of a pull-request review's, though a review example mentions a
// fix. A thin request can be right for a skill only through the words
// that define the skill.
func markUnnamed(req *extract.Requirement, out []Ranked) {
	if len(out) == 0 || req == nil || len(req.History) > 0 || len(req.InputTypes) > 0 {
		return
	}
	words := analyze.Words(req.Need)
	pointers, content := 0, 0
	for _, w := range words {
		switch {
		case referents[w]:
			pointers++
		case !analyze.IsStopword(w):
			content++
		}
	}
	if pointers == 0 || content > 1 {
		return
	}
	d := out[0].Entry
	for _, w := range words {
		if referents[w] {
			continue
		}
		if slices.ContainsFunc(d.Tags, func(t string) bool { return strings.EqualFold(strings.TrimSpace(t), w) }) {
			return
		}
		for _, t := range analyze.Terms(w) {
			if has(d.NameTerms, t) || has(d.TagTerms, t) || has(d.DescTerms, t) {
				return
			}
		}
	}
	out[0].Unnamed = true
}

// has reports whether the sorted set holds t.
func has(set []string, t string) bool {
	_, ok := slices.BinarySearch(set, t)
	return ok
}
