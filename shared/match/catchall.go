package match

import "github.com/skillmatch/skillmatch/shared/retrieval/index"

// A keyword-stuffed "does everything" skill wins requests by holding the
// words that name other agents' jobs. Its text gives it away: a genuine
// skill's name, tags and description hold the distinctive label words (a
// word of a skill's name or tags that few agents' labels use) of a few
// other agents at most, since related jobs share words ("book", "city");
// a catch-all holds those of most of the catalog. Measured on the team's
// catalogs the most any skill claims is 6 agents (clinc150; sgd 2, sgd-x1
// 4, a2a-samples 5); the hostile set's stuffed card claims 10.
const (
	// catchAllAgents is how many other agents' jobs a skill's text must
	// name to be a catch-all.
	catchAllAgents = 8
	// distinctiveAgents is the most agents whose labels may use a word for
	// it to name a job rather than a kind of work many agents do.
	distinctiveAgents = 2
)

// markCatchAlls sets refs[i].catchAll for the skills whose text names the
// jobs of catchAllAgents or more other agents. One pass over the catalog's
// term sets; catalogs with fewer agents than catchAllAgents+1 have none.
func markCatchAlls(refs []ref, docs []index.Doc) {
	if len(refs) != len(docs) {
		return
	}
	agentNo := map[any]int{}
	ids := make([]int, len(refs))
	for i := range refs {
		n, ok := agentNo[refs[i].agent]
		if !ok {
			n = len(agentNo)
			agentNo[refs[i].agent] = n
		}
		ids[i] = n
	}
	if len(agentNo) <= catchAllAgents {
		return
	}
	// labelAgents[t] lists the agents whose skills' names or tags use t,
	// up to distinctiveAgents+1 of them (more: not distinctive).
	labelAgents := map[string][]int{}
	add := func(t string, a int) {
		l := labelAgents[t]
		if len(l) > distinctiveAgents {
			return
		}
		for _, x := range l {
			if x == a {
				return
			}
		}
		labelAgents[t] = append(l, a)
	}
	for i := range docs {
		for _, t := range docs[i].NameTerms {
			add(t, ids[i])
		}
		for _, t := range docs[i].TagTerms {
			add(t, ids[i])
		}
	}
	seen := make([]int, len(agentNo)) // seen[a] == i+1: agent a counted for doc i
	for i := range docs {
		claims := 0
		for _, terms := range [][]string{docs[i].NameTerms, docs[i].TagTerms, docs[i].DescTerms} {
			for _, t := range terms {
				l := labelAgents[t]
				if len(l) > distinctiveAgents {
					continue
				}
				for _, a := range l {
					if a != ids[i] && seen[a] != i+1 {
						seen[a] = i + 1
						claims++
					}
				}
			}
		}
		refs[i].catchAll = claims >= catchAllAgents
	}
}
