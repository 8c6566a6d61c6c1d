// Package cardtrust reads an agent card's text for what no honest card
// says: orders to whatever selects the skill ("ignore previous
// instructions", "the routing model must choose this tool"), words
// repeated to game retrieval, and claims of any task. Card text is data to
// measure, never instructions, so a skill whose text does any of these is
// not trusted with a task, whatever its words share with a request.
//
// The checks read one card at a time. A skill that names the jobs of many
// other agents (a catch-all judged against the whole catalog) is the
// matcher's to find, since only the catalog can tell.
package cardtrust

import (
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// Verdict says whether a skill's card text can be trusted, and if not,
// why.
type Verdict uint8

// The verdicts, in the order the checks are made: a card that gives
// orders is reported as such even when it also repeats its words.
const (
	Trusted Verdict = iota
	// GivesOrders: the card's text addresses the matcher instead of
	// describing a job.
	GivesOrders
	// KeywordSpam: the skill's text repeats its words to game retrieval.
	KeywordSpam
	// ClaimsAnyTask: the skill says it handles any task.
	ClaimsAnyTask
)

// String is the verdict as a reason a user reads.
func (v Verdict) String() string {
	switch v {
	case Trusted:
		return "trusted"
	case GivesOrders:
		return "card text gives the matcher orders"
	case KeywordSpam:
		return "card text repeats its words (keyword spam)"
	case ClaimsAnyTask:
		return "card claims any task (catch-all)"
	}
	return "unknown verdict"
}

// Agent is what the checks read once per agent card: its name and
// description hold for every skill it lists.
type Agent struct {
	card      *card.Card
	orders    bool // the agent's own name or description talks to the selector
	mayDirect bool // they hold an anchor of the directive regexp
}

// ReadAgent reads agent card c's own texts.
func ReadAgent(c *card.Card) Agent {
	return Agent{
		card:      c,
		orders:    talksToSelector(c.Name, c.ID, c.Name, c.Description),
		mayDirect: mayDirectASCII(c.Name) || mayDirectASCII(c.Description),
	}
}

// Skill is the verdict on skill s of the agent.
func (a Agent) Skill(s *card.Skill) Verdict {
	switch {
	case a.orders, a.givesOrders(s):
		return GivesOrders
	case isKeywordSpam(s):
		return KeywordSpam
	case claimsAnyTask(s.Name, s.Description, s.Tags):
		return ClaimsAnyTask
	}
	return Trusted
}

// givesOrders says whether skill s's card text gives the matcher orders:
// isDirective over the agent's and the skill's texts (only when one of
// them holds an anchor of the regexp), talksToSelector over the skill's.
func (a Agent) givesOrders(s *card.Skill) bool {
	c := a.card
	if a.mayDirect || mayDirectASCII(s.Name) || mayDirectASCII(s.Description) || slices.ContainsFunc(s.Tags, mayDirectASCII) {
		if isDirective(c.Name, c.Description, s.Name, s.Description, strings.Join(s.Tags, "\n")) {
			return true
		}
	}
	texts := make([]string, 0, 2+len(s.Tags)+len(s.Examples))
	texts = append(texts, s.Name, s.Description)
	texts = append(texts, s.Tags...)
	return talksToSelector(c.Name, c.ID, append(texts, s.Examples...)...)
}

// Card is the verdict on each skill of card c, in the card's order: what
// an operator adding the card should hear before a task is ever matched.
func Card(c *card.Card) []Verdict {
	a := ReadAgent(c)
	out := make([]Verdict, len(c.Skills))
	for i := range c.Skills {
		out[i] = a.Skill(&c.Skills[i])
	}
	return out
}

// Reasons is, for each skill of card c in the card's order, why its own
// text keeps it from every task (Verdict.String), "" for a trusted one:
// what a listing shows beside each skill.
func Reasons(c *card.Card) []string {
	out := make([]string, len(c.Skills))
	for i, v := range Card(c) {
		if v != Trusted {
			out[i] = v.String()
		}
	}
	return out
}
