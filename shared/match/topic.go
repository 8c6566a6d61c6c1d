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
// of one agent are consecutive, as the matcher numbers them. One counting
// map per agent, reused: at 100,000 skills a set per skill made the first
// follow-up take 1.3 s; counting takes 0.18 s, once per matcher.
func domainTerms(docs func(i int) *index.Doc, n int, skip func(doc int) bool) map[string]bool {
	const (
		common = 1 // every skill of some agent holds it
		varies = 2 // it tells two skills of some agent apart
	)
	state := map[string]uint8{}
	// count[t] is how many of the agent's skills hold t; seen[t] the
	// last skill that counted it (a term is in several fields).
	count, seen := map[string]int{}, map[string]int{}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && docs(hi).AgentID == docs(lo).AgentID {
			hi++
		}
		if hi-lo < 2 || skipAgent(skip, lo, hi) {
			// One skill tells nothing apart: every word of it would
			// pass for a domain word ("book" of a library that lends
			// books). An untrusted card says nothing either way.
			lo = hi
			continue
		}
		clear(count)
		clear(seen)
		name := analyze.Terms(docs(lo).AgentName)
		for d := lo; d < hi; d++ {
			doc := docs(d)
			for _, ts := range [][]string{doc.NameTerms, doc.TagTerms, doc.DescTerms, doc.ExampleTerms, name} {
				for _, t := range ts {
					if s, ok := seen[t]; !ok || s != d {
						seen[t] = d
						count[t]++
					}
				}
			}
		}
		for t, c := range count {
			switch {
			case c < hi-lo:
				state[t] = varies
			case state[t] == 0:
				state[t] = common
			}
		}
		lo = hi
	}
	out := make(map[string]bool)
	for t, s := range state {
		// A number ("Hotels 2") names an instance, not a domain.
		if s == common && strings.IndexFunc(t, unicode.IsDigit) < 0 {
			out[t] = true
		}
	}
	return out
}

// skipAgent says whether any of an agent's docs lo..hi-1 is one skip
// leaves out.
func skipAgent(skip func(doc int) bool, lo, hi int) bool {
	if skip == nil {
		return false
	}
	for d := lo; d < hi; d++ {
		if skip(d) {
			return true
		}
	}
	return false
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
