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
	orders    bool        // the agent's own name or description talks to the selector
	claims    bool        // the agent's description claims every job (claimedIn)
	mayDirect bool        // they hold an anchor of the directive regexp
	kinds     anchorKind  // the anchor lists its name and description hold
	signals   cardSignals // what its name and description say, for ordersAcross
}

// ReadAgent reads agent card c's own texts, each scanned once.
func ReadAgent(c *card.Card) Agent {
	const kinds = exampleKinds | directiveKind | claimKind
	c = foldedCard(c)
	texts := []scanned{{c.Name, anchorsIn(c.Name, kinds)}, {c.Description, anchorsIn(c.Description, kinds)}}
	return Agent{
		claims: texts[1].kinds&claimKind != 0 && (claimedIn(c.Description) || moralClaim(c.Description) || claimsThroughRequests(c.Description, c.Name)),
		card:   c,
		orders: talksToSelectorIn(c.Name, c.ID, texts) || agentIdentifiersSpeak(c) || scriptsExchange(c.Description) ||
			flowsToSelf(c.Description, c.Name, c.ID) || placeholdsRequest(c.Name) || placeholdsRequest(c.Description) ||
			texts[1].kinds&actKind != 0 && (addressesReader(c.Description) || paysSelector(c.Description)) ||
			threatensElsewhere(c.Description) || texts[1].kinds&catalogKind != 0 && handsElsewhere(c.Description) ||
			handsToSelf(c.Description, c.Name, c.ID) || routesAmongDesks(c.Description, c.Name, c.ID),
		mayDirect: (texts[0].kinds|texts[1].kinds)&directiveKind != 0,
		kinds:     texts[0].kinds | texts[1].kinds,
		signals:   readSignals(selfNames(c.Name, c.ID), c.Name, c.Description),
	}
}

// Skill is the verdict on skill s of the agent.
func (a Agent) Skill(s *card.Skill) Verdict {
	if a.orders {
		return GivesOrders
	}
	s = foldedSkill(s)
	var buf [16]scanned // a skill's texts, most often, without an allocation
	t := readSkill(s, buf[:0])
	switch {
	case identifierSpeaks(s.ID), a.givesOrders(s, t):
		return GivesOrders
	case isKeywordSpam(s):
		return KeywordSpam
	case a.claims, t.claimsAnyTask(), t.texts[1].kinds&claimKind != 0 && claimsThroughRequests(s.Description, a.card.Name):
		return ClaimsAnyTask
	}
	return Trusted
}

// scanned is one text of a card and the anchor lists it holds.
type scanned struct {
	text  string
	kinds anchorKind
}

// skillTexts are the texts of a skill the checks read — its name,
// description and tags (its fields), then its examples — each scanned
// once for every anchor list.
type skillTexts struct {
	texts  []scanned
	fields int
}

// fieldKinds are the lists a field is scanned for, exampleKinds those
// of an example: directives and claims are read in the fields alone.
const (
	exampleKinds = selectorKind | catalogKind | actKind
	fieldKinds   = exampleKinds | directiveKind | claimKind
)

// readSkill scans skill s's texts, appended to buf.
func readSkill(s *card.Skill, buf []scanned) skillTexts {
	buf = append(buf, scanned{s.Name, anchorsIn(s.Name, fieldKinds)}, scanned{s.Description, anchorsIn(s.Description, fieldKinds)})
	for _, tag := range s.Tags {
		buf = append(buf, scanned{tag, anchorsIn(tag, fieldKinds)})
	}
	for _, e := range s.Examples {
		buf = append(buf, scanned{e, anchorsIn(e, exampleKinds)})
	}
	return skillTexts{texts: buf, fields: 2 + len(s.Tags)}
}

// givesOrders says whether skill s's card text gives the matcher orders:
// isDirective over the agent's and the skill's texts (only when one of
// them holds an anchor of the regexp), talksToSelector over the skill's,
// ordersAcross over the agent's and the skill's fields together.
func (a Agent) givesOrders(s *card.Skill, t skillTexts) bool {
	c := a.card
	if a.mayDirect || slices.ContainsFunc(t.texts[:t.fields], func(x scanned) bool { return x.kinds&directiveKind != 0 }) {
		if isDirective(c.Name, c.Description, s.Name, s.Description, strings.Join(s.Tags, "\n")) {
			return true
		}
	}
	return talksToSelectorIn(c.Name, c.ID, t.texts) || a.ordersAcross(t) || a.claimsRepeatedly(t) ||
		slices.ContainsFunc(t.texts, func(x scanned) bool { return placeholdsRequest(x.text) }) ||
		slices.ContainsFunc(t.texts[:t.fields], func(x scanned) bool { return flowsToSelf(x.text, c.Name, c.ID) }) ||
		slices.ContainsFunc(t.texts[:t.fields], func(x scanned) bool { return scriptsExchange(x.text) }) ||
		slices.ContainsFunc(t.texts, func(x scanned) bool {
			return x.kinds&actKind != 0 && (addressesReader(x.text) || paysSelector(x.text))
		}) ||
		slices.ContainsFunc(t.texts[:t.fields], func(x scanned) bool {
			return threatensElsewhere(x.text) || x.kinds&catalogKind != 0 && handsElsewhere(x.text) || handsToSelf(x.text, c.Name, c.ID) ||
				routesAmongDesks(x.text, c.Name, c.ID)
		})
}

// claimsAnyTask says whether a skill's own text claims every job rather
// than describing one (claimedIn, over each field apart).
func (t skillTexts) claimsAnyTask() bool {
	for _, x := range t.texts[:t.fields] {
		if x.kinds&claimKind != 0 && (claimedIn(x.text) || moralClaim(x.text)) {
			return true
		}
	}
	return false
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
