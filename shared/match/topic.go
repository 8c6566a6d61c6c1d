package match

import (
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A conversation's topic is carried by its domain words. A catalog says
// which words those are, with no labels: the words that every skill of
// some agent holds (in its name, tags, description, examples or the
// agent's name) and that never tell two skills of one agent apart. "hotel"
// is in both of a hotel agent's skills; "reserve", "book", "find" or
// "play" each tell one agent's skills apart, so they are job words, which
// say what to do and never where.

// domainTerms lists the domain terms of docs (see above), whose skills
// of one agent are consecutive, as the matcher numbers them.
func domainTerms(docs func(i int) *index.Doc, n int) map[string]bool {
	common := map[string]bool{}
	varies := map[string]bool{}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && docs(hi).AgentID == docs(lo).AgentID {
			hi++
		}
		name := analyze.Terms(docs(lo).AgentName)
		all, every := map[string]bool{}, map[string]bool{}
		for d := lo; d < hi; d++ {
			set := docTerms(docs(d), name)
			for t := range set {
				all[t] = true
			}
			if d == lo {
				for t := range set {
					every[t] = true
				}
				continue
			}
			for t := range every {
				if !set[t] {
					delete(every, t)
				}
			}
		}
		for t := range all {
			if every[t] {
				common[t] = true
			} else {
				varies[t] = true
			}
		}
		lo = hi
	}
	out := make(map[string]bool, len(common))
	for t := range common {
		// A number ("Hotels 2") names an instance, not a domain.
		if !varies[t] && strings.IndexFunc(t, unicode.IsDigit) < 0 {
			out[t] = true
		}
	}
	return out
}

// docTerms is the set of terms of a skill's text and its agent's name.
func docTerms(d *index.Doc, agentName []string) map[string]bool {
	set := map[string]bool{}
	for _, ts := range [][]string{d.NameTerms, d.TagTerms, d.DescTerms, d.ExampleTerms, agentName} {
		for _, t := range ts {
			set[t] = true
		}
	}
	return set
}

// carryTopic is the query text q of a turn with the conversation's topic
// carried in: when the turn names no domain of its own ("yes, book it for
// Friday"), the domain words of the latest earlier turn that has any
// ("a hotel in Paris") join the query, so the turn's own job words pick a
// skill in the domain the conversation is about. A turn that names its
// own domain ("now find me some songs") is left alone, and so is one whose
// earlier turns name none. Only words the caller wrote are added, so a
// skill's fit rests on the caller's words as for any other task and the
// calibration stays honest.
func carryTopic(q string, req *extract.Requirement, domain map[string]bool) string {
	if len(req.History) == 0 || len(domain) == 0 {
		return q
	}
	for _, t := range analyze.Terms(req.Need) {
		if domain[t] {
			return q
		}
	}
	for i := len(req.History) - 1; i >= 0; i-- {
		var words []string
		seen := map[string]bool{}
		for _, w := range analyze.Words(req.History[i]) {
			if analyze.IsStopword(w) {
				continue
			}
			if t := analyze.Stem(w); domain[t] && !seen[t] {
				seen[t] = true
				words = append(words, w)
			}
		}
		if len(words) > 0 {
			return q + " " + strings.Join(words, " ")
		}
	}
	return q
}
