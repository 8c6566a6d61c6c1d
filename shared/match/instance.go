package match

import (
	"slices"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A vendor may list one job many times over, once per thing it is done at
// or with (a venue, a depot, a restaurant): "Room hire - Pennock Scout Hut",
// "Room hire - St Brannoc's Church Hall", each tagged alike. Such a skill
// is an instance of its list, and what sets it apart is the thing's name.
// A request that names none of those things ("a room for my son's birthday
// party on Saturday") has chosen none of them: the ranker picked one for
// its example's words, and a flood of such listings took three of a blind
// set's four room bookings from the landlord's own community rooms at
// 0.79-0.99. An instance the request does not choose (see listInstance)
// loses half its confidence and, with it, its rank over the candidates it
// no longer outscores (demoteMarked). Kept first, such instances still
// stood before the right skill, undelegated: let fall, six more requests
// of the twenty hostile sets have their right skill first, and no
// decision to delegate changes. It pools with no sibling.
const (
	// minInstances is how many skills, tagged alike, make a list of
	// instances.
	minInstances = 3
	// instanceTemplateAt is how alike the instances' descriptions, their
	// names taken out, must be: one template, filled in. Skills tagged
	// alike and named "<job> - <thing>" but described each in its own
	// words are no list: read as one, sgd-x1's reworded provider searches
	// lost 60 right delegations on its train split (and withdrew 7 wrong
	// ones over both splits).
	instanceTemplateAt = 0.8
)

// listInstance is what a request must name to choose an instance of a
// list: one of its own terms (the terms of its name that the list's other
// names do not all hold) and one of the list's job terms (the terms its
// names share, but those that a quarter of the catalog's agents use). A
// vet group's hydrotherapy pools, named after its practices, were chosen
// for "where do I take my dog to have his stitches out at Ashby Fell" and
// for a booster "at Ashby Fell" by the place alone; their tags' "dog pool"
// would have named the job for any dog.
type listInstance struct {
	own, job []string
}

// commonWordingShare is the share of the catalog's agents from which a
// term is common wording, no job of a list.
const commonWordingShare = 0.25

// instanceTerms is, for each doc that is an instance of a list (see
// above), what sets it apart and what its list does; nil for the others,
// most docs of most catalogs.
func instanceTerms(doc func(int) *index.Doc, n int, untrusted func(int) bool) []*listInstance {
	var out []*listInstance
	var agents map[string]int // how many agents' texts hold each term, made for the first list
	var allAgents int
	trusted := func(d int) bool { return !untrusted(d) }
	groups := termGroups(n, func(d int) []string { return doc(d).TagTerms }, trusted)
	// A list may tag each instance with its thing too ("MOT", "online
	// booking", "Castlebridge"): grouped again by the tags its name does
	// not hold (made once a doc: termGroups reads a group's first again).
	// Or its tags may be its name over again ("pallet booking", "Pennock
	// Trade Park"): grouped a third time by the description its name's
	// terms taken out, the template itself.
	beside, filled := make([][]string, n), make([][]string, n)
	for d := range n {
		beside[d] = termsBesideName(doc(d).TagTerms, doc(d))
		filled[d] = termsBesideName(doc(d).DescTerms, doc(d))
	}
	groups = append(groups, termGroups(n, func(d int) []string { return beside[d] }, trusted)...)
	groups = append(groups, termGroups(n, func(d int) []string { return filled[d] }, trusted)...)
	for _, g := range groups {
		if len(g) < minInstances || len(g) > maxJobGroup || out != nil && out[g[0]] != nil {
			continue
		}
		common := slices.Clone(doc(g[0]).NameTerms)
		for _, d := range g[1:] {
			common = slices.DeleteFunc(common, func(t string) bool { return !slices.Contains(doc(d).NameTerms, t) })
		}
		if len(common) == 0 {
			continue
		}
		owns := make([][]string, len(g))
		var all []string // every instance's own name terms
		for k, d := range g {
			for _, t := range doc(d).NameTerms {
				if !slices.Contains(common, t) && !slices.Contains(owns[k], t) {
					owns[k] = append(owns[k], t)
				}
			}
			all = append(all, owns[k]...)
		}
		// One template: the descriptions, the instances' names taken out,
		// all but alike (a name may hold a word of the template: "Old
		// School Rooms").
		var template []string
		same := true
		for k, d := range g {
			rest := sortedSet(slices.DeleteFunc(slices.Clone(doc(d).DescTerms), func(t string) bool { return slices.Contains(all, t) }))
			if k == 0 {
				template = rest
			}
			same = same && len(owns[k]) > 0 && len(rest) > 0 && jaccard(rest, template) >= instanceTemplateAt
		}
		if !same {
			continue
		}
		if agents == nil {
			agents, allAgents = termAgents(doc, n, nil, func(d *index.Doc, _ []string) [][]string {
				return [][]string{d.NameTerms, d.TagTerms, d.DescTerms}
			})
		}
		var job []string
		for _, t := range common {
			if float64(agents[t]) <= commonWordingShare*float64(allAgents) && !slices.Contains(job, t) {
				job = append(job, t)
			}
		}
		if len(job) == 0 {
			continue
		}
		for k, d := range g {
			if out == nil {
				out = make([]*listInstance, n)
			}
			out[d] = &listInstance{own: distinctive(owns[k]), job: job}
		}
	}
	return out
}

// distinctive is an instance's own terms but those of under three
// letters ("St", "3G"), unless it has no other: a request naming "St
// Brendan's Primary" did not choose "Pitch hire - St Oswin's Astro", and a
// flood's listing took it at 0.94 from the club's own pitches.
func distinctive(own []string) []string {
	long := slices.DeleteFunc(slices.Clone(own), func(t string) bool { return len(t) < 3 })
	if len(long) == 0 {
		return own
	}
	return long
}

// termsBesideName is the terms of a doc's text that its name does not
// hold: terms itself, not copied, when the name holds none of them.
func termsBesideName(terms []string, d *index.Doc) []string {
	inName := func(t string) bool { return slices.Contains(d.NameTerms, t) }
	if !slices.ContainsFunc(terms, inName) {
		return terms
	}
	return slices.DeleteFunc(slices.Clone(terms), inName)
}

// shrinkUnnamedInstances lowers the probability of each candidate that is
// an instance of a list whose thing the request (with its earlier turns)
// does not name.
func (m *Matcher) shrinkUnnamedInstances(req *extract.Requirement, out []Ranked) {
	inst := m.instances()
	if inst == nil || req == nil {
		return
	}
	var terms []string // the request's terms, made for the first instance
	var note []string
	for i := range out {
		r := &out[i]
		if r.Doc >= len(inst) || inst[r.Doc] == nil || r.Unnamed {
			continue
		}
		li := inst[r.Doc]
		if terms == nil {
			terms = requestTerms(req.Need)
			for _, h := range req.History {
				terms = append(terms, requestTerms(h)...)
			}
		}
		named := func(ts []string) bool {
			return slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(terms, t) })
		}
		if named(li.own) && named(li.job) {
			continue
		}
		if note == nil {
			note = make([]string, len(out))
		}
		if named(li.own) {
			note[i] = "the request names what this listing is for but not the job of the listings like it. "
		} else {
			note[i] = "the request names none of what sets this listing apart from the others like it. "
		}
		r.Sibling = false
		for j := range out {
			if out[j].AlikeOf == r.Entry.Key {
				out[j].Sibling = false
			}
		}
	}
	if note != nil {
		demoteMarked(out, note)
	}
}
