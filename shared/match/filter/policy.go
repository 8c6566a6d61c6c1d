package filter

import (
	"slices"
	"strconv"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/endpoint"
)

// dataPolicy returns why the agent may not receive data of the class, or "".
// Under the strict policy a task without a class is restricted data.
func dataPolicy(class string, st catalog.Status, strict bool) string {
	return dataPolicyWhy(class, st, strict, true)
}

// dataPolicyWhy is dataPolicy; without why a refusal is "-": deciding
// which of 10,000 agents a confidential task may reach must not write a
// sentence for each one refused.
func dataPolicyWhy(class string, st catalog.Status, strict, why bool) string {
	unstated := ""
	if class == "" {
		if !strict {
			return "" // the task states no class: no constraint
		}
		class, unstated = catalog.Restricted, "task states no data class, read as restricted (strict policy); "
	}
	if r := dataPolicyOf(class, st, why); r != "" {
		if !why {
			return r
		}
		return unstated + r
	}
	return ""
}

func dataPolicyOf(class string, st catalog.Status, why bool) string {
	class = strings.ToLower(strings.TrimSpace(class)) // no allocation when already clean
	say := func(f func() string) string {
		if !why {
			return "-"
		}
		return f()
	}
	rank, ok := catalog.ClassRank(class)
	if !ok {
		return say(func() string {
			return "task data class " + strconv.Quote(class) + " is not one of public, internal, confidential, restricted"
		})
	}
	if st.External {
		if rank > 0 {
			return say(func() string { return "agent is external and receives public data only; task data is " + class })
		}
		return ""
	}
	clearance := strings.ToLower(strings.TrimSpace(st.Clearance))
	if clearance == "" {
		clearance = catalog.DefaultStatus.Clearance
	}
	limit, ok := catalog.ClassRank(clearance)
	if !ok {
		if rank > 0 {
			return say(func() string {
				return "agent clearance " + strconv.Quote(clearance) + " is unknown, so it receives public data only; task data is " + class
			})
		}
		return ""
	}
	if rank > limit {
		return say(func() string { return "task data is " + class + "; agent is cleared for " + clearance + " only" })
	}
	return ""
}

// securityReason returns why the caller's scopes satisfy no entry of the
// requirement list, or "". An empty list is open; an entry holds when every
// scheme in it does, a scheme when the caller has all its scopes (a scheme
// without scopes is satisfied by any caller).
func securityReason(reqs []card.Requirement, scopes []string, why bool) string {
	if len(reqs) == 0 {
		return ""
	}
	for _, entry := range reqs {
		if satisfied(entry, scopes) {
			return ""
		}
	}
	if !why {
		return failed
	}
	return "skill requires " + describe(reqs) + "; caller has " + hasScopes(scopes)
}

func satisfied(entry card.Requirement, scopes []string) bool {
	for _, need := range entry {
		for _, s := range need {
			if !slices.Contains(scopes, s) {
				return false
			}
		}
	}
	return true
}

// describe writes a requirement list the way a user reads it:
// "oauth [finance.read finance.write] or apiKey". Scheme names are sorted:
// map order would make the same rejection read differently run to run.
func describe(reqs []card.Requirement) string {
	const max = 4
	var b strings.Builder
	for i, entry := range reqs {
		if i == max {
			b.WriteString(" or …")
			break
		}
		if i > 0 {
			b.WriteString(" or ")
		}
		names := make([]string, 0, len(entry))
		for name := range entry {
			names = append(names, name)
		}
		slices.Sort(names)
		for j, name := range names {
			if j > 0 {
				b.WriteString(" + ")
			}
			b.WriteString(name)
			if sc := entry[name]; len(sc) > 0 {
				b.WriteString(" [")
				b.WriteString(list(sc, " "))
				b.WriteString("]")
			}
		}
	}
	return b.String()
}

func hasScopes(scopes []string) string {
	if len(scopes) == 0 {
		return "no scopes"
	}
	return list(scopes, ", ")
}

// endpointReason returns why none of the card's interfaces may be
// delegated to, or "": a delegation goes to the first interface the
// address policy accepts (wire.NewA2ARequest picks the same), so the agent
// is removed only when it has none. The registry can allow private
// addresses for an agent it knows (Status.AllowPrivate).
func endpointReason(c *card.Card, allowPrivate bool) string {
	var first error
	for i := range c.Interfaces {
		err := endpoint.CheckInterface(c.Interfaces[i].Binding, c.Interfaces[i].URL, allowPrivate)
		if err == nil {
			return ""
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		return ""
	}
	return "card interface " + first.Error()
}
