// Package decide turns calibrated, ranked candidates into an action:
// delegate (with fallbacks), ask a clarifying question, or abstain.
package decide

import (
	"fmt"
	"sort"
)

// Action is what the orchestrator should do with the task.
type Action string

const (
	Delegate Action = "delegate"
	Clarify  Action = "clarify"
	Abstain  Action = "abstain"
	// Plan delegates each part of a multi-intent request to its own skill,
	// in order (Decision.Steps).
	Plan Action = "plan"
)

// Step is one delegation of a plan: the part of the request it handles
// and the skill chosen for it.
type Step struct {
	// Part is the request's words this step handles.
	Part   string `json:"part"`
	Chosen Option `json:"chosen"`
	// Probability is the calibrated probability the skill is right for
	// the part.
	Probability float64 `json:"probability"`
}

// Option is one ranked candidate as the decider sees it.
type Option struct {
	Key       string  `json:"key"`
	AgentID   string  `json:"agentId"`
	SkillID   string  `json:"skillId"`
	AgentName string  `json:"agentName,omitempty"`
	SkillName string  `json:"skillName,omitempty"`
	Score     float64 `json:"score"`       // reranker fit, 0-10
	Prob      float64 `json:"probability"` // calibrated probability that it is right
	Demoted   bool    `json:"demoted,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	// AlikeOf is the key of the skill of another agent this one does the
	// same job as (set by the ranker for the best candidate's look-alikes),
	// and Alike says how: the same data handling and line of services (a
	// twin, a fallback), or another (the caller must choose).
	AlikeOf string `json:"alikeOf,omitempty"`
	Alike   Alike  `json:"alike,omitempty"`
	// Sibling says a twin is the same skill as the one it looks like under
	// its own wording: the same skill name and a description written apart,
	// not copied (the ranker decides). Only siblings pool their
	// probability (Policy.Pooled).
	Sibling bool `json:"sibling,omitempty"`
	// PairCalibrated says Prob comes from a calibration fitted where a
	// best candidate's sibling counted as right (model.Model.
	// SiblingsCalibrated): beside a sibling it already is the pair's
	// probability, which Pooled keeps instead of pooling it again. The
	// ranker sets it on every option of a ranking so calibrated.
	PairCalibrated bool `json:"pairCalibrated,omitempty"`
	// Unnamed says the request points at something ("fix it", "help me
	// with this") it does not name, and names nothing of this skill's job:
	// however well it scores, it is no delegation and no choice between
	// two agents.
	Unnamed bool `json:"unnamed,omitempty"`
}

// Alike says how a look-alike skill of another agent relates to the one it
// looks like.
type Alike string

const (
	// AlikeTwin does the same job under the same data handling
	// (clearance, internal or external): either will do.
	AlikeTwin Alike = "twin"
	// AlikeDiffers does the same job but handles the data differently
	// (an internal secure translator and an external one): the caller
	// must choose, the decider must not.
	AlikeDiffers Alike = "differs"
	// AlikeImpostor does the same job under the same agent name as the
	// best one, from another agent: one of the two copies the other's
	// card. Which one is genuine the card cannot say, so the caller is
	// asked instead of either taking the task silently.
	AlikeImpostor Alike = "impostor"
	// AlikeCopy offers the best one's skill under its name and with its
	// examples from another agent: a copied card, whichever agent name it
	// bears and however its description is reworded.
	// Which one is genuine the card cannot say, so the caller is asked, as
	// for an impostor, instead of the copy taking the task silently by
	// winning a tie.
	AlikeCopy Alike = "copy"
	// AlikeOtherLine offers the best one's job from another line of the
	// catalog's numbered services ("Find Movies" of Movies 1 and 2 beside
	// Media 1 and 2's): another kind of service, which the request does
	// not choose, so the caller is asked.
	AlikeOtherLine Alike = "other-line"
)

// Decision is the decider's answer for one task.
type Decision struct {
	Action Action `json:"action"`
	// Chosen is the skill to delegate to (Delegate only).
	Chosen *Option `json:"chosen,omitempty"`
	// Fallbacks are the next skills to try if the chosen one fails.
	Fallbacks []Option `json:"fallbacks,omitempty"`
	// Probability is the calibrated probability of the top candidate; when
	// it has a sibling (Option.Sibling), that one of the two is right
	// (Pooled), which is what a delegation to it is made on.
	Probability float64 `json:"probability"`
	// Candidates are the top two when clarifying.
	Candidates []Option `json:"candidates,omitempty"`
	Question   string   `json:"question,omitempty"`
	// Steps are the ordered delegations of a plan (Plan only).
	Steps  []Step `json:"steps,omitempty"`
	Reason string `json:"reason"`
	// Degraded says which remote model this decision had to do without
	// ("reranker unavailable", "embedder unavailable"; "" when none):
	// the built-in path decided instead.
	Degraded string `json:"degraded,omitempty"`
}

// Policy holds the operating point.
type Policy struct {
	// Threshold is the lowest calibrated probability to delegate at; under
	// it, two options of different agents that reach it together are asked
	// about (eitherLikely).
	Threshold float64 `json:"threshold"`
	// Margin is the lead over a runner-up of another agent needed to
	// delegate; below it the two are "close".
	Margin float64 `json:"margin"`
	// ClarifyFloor is the lowest top probability worth a question: below
	// it, two close candidates are both unlikely and the decider abstains.
	ClarifyFloor float64 `json:"clarifyFloor"`
	// FallbackFloor is the lowest probability a fallback may have.
	FallbackFloor float64 `json:"fallbackFloor"`
	MaxFallbacks  int     `json:"maxFallbacks"`
	// DemoteEpsilon: a degraded agent's skill ranks after a healthy one
	// whose probability is within this much.
	DemoteEpsilon float64 `json:"demoteEpsilon"`
}

// DefaultPolicy is the default operating point.
var DefaultPolicy = Policy{
	Threshold:     0.7,
	Margin:        0.15,
	ClarifyFloor:  0.35,
	FallbackFloor: 0.2,
	MaxFallbacks:  2,
	DemoteEpsilon: 0.05,
}

// Order sorts options by probability, putting a degraded agent's skill
// after healthy ones that are equally good (within DemoteEpsilon).
func (p Policy) Order(opts []Option) {
	sort.SliceStable(opts, func(i, j int) bool {
		a, b := opts[i], opts[j]
		if a.Demoted != b.Demoted && abs(a.Prob-b.Prob) <= p.DemoteEpsilon {
			return !a.Demoted
		}
		return a.Prob > b.Prob
	})
}

// Decide chooses the action for options ordered best first (see Order).
func (p Policy) Decide(opts []Option) Decision {
	if len(opts) == 0 {
		return Decision{Action: Abstain, Reason: "no skill passes constraints"}
	}
	top := opts[0]
	d := Decision{Probability: p.Reported(opts)}
	if top.Unnamed {
		d.Action = Abstain
		d.Reason = fmt.Sprintf("the request does not say what it is about (best match %s at %.2f): name the task and what it applies to", top.Key, top.Prob)
		return d
	}
	var second *Option
	if len(opts) > 1 {
		second = &opts[1]
	}
	close := second != nil && top.Prob-second.Prob < p.Margin
	sameAgent := second != nil && second.AgentID == top.AgentID
	if j, rel := lookAlike(opts); j > 0 && p.worthAsking(top, opts[j], rel) {
		alike := opts[j]
		switch {
		case rel.Alike == AlikeDiffers:
			return ask(d, top, alike,
				whichOf(top, alike)+" They do the same job but handle your data differently.",
				fmt.Sprintf("%s and %s do the same job under different data handling", top.Key, alike.Key))
		case rel.Alike == AlikeImpostor:
			return ask(d, top, alike,
				fmt.Sprintf("Two agents (%s and %s) call themselves %s and offer %s: which one do you mean?",
					top.AgentID, alike.AgentID, agentLabel(top), label(top)),
				fmt.Sprintf("%s and %s do the same job under the same agent name: one copies the other's card", top.Key, alike.Key))
		case rel.Alike == AlikeCopy:
			return ask(d, top, alike,
				fmt.Sprintf("Two agents (%s and %s) offer %s, one copied from the other: which one do you mean?",
					agentLabel(top), agentLabel(alike), label(top)),
				fmt.Sprintf("%s and %s offer the same skill with the same examples: one copies the other's card", top.Key, alike.Key))
		case rel.Alike == AlikeOtherLine:
			return ask(d, top, alike,
				whichOf(top, alike)+" Both offer it as different services.",
				fmt.Sprintf("%s and %s do the same job for different lines of services", top.Key, alike.Key))
		case rel.Alike == AlikeTwin && d.Probability >= p.Threshold:
			d.Action = Delegate
			chosen := top
			d.Chosen = &chosen
			var rest []Option // the other options but another line's: the caller did not choose that service
			for k, o := range opts[1:] {
				if k+1 != j && !(o.Alike == AlikeOtherLine && o.AlikeOf == top.Key) {
					rest = append(rest, o)
				}
			}
			d.Fallbacks = append([]Option{alike}, p.fallbacks(rest)...)
			if len(d.Fallbacks) > max(p.MaxFallbacks, 1) {
				d.Fallbacks = d.Fallbacks[:max(p.MaxFallbacks, 1)]
			}
			if d.Probability > top.Prob {
				d.Reason = fmt.Sprintf("best match %s at %.2f with its sibling %s at %.2f, the first fallback: %.2f that the job is theirs",
					top.Key, top.Prob, alike.Key, alike.Prob, d.Probability)
			} else {
				d.Reason = fmt.Sprintf("best match %s at %.2f; %s does the same job and is the first fallback", top.Key, top.Prob, alike.Key)
			}
			return d
		}
	}
	switch {
	case top.Prob >= p.Threshold && (!close || sameAgent):
		d.Action = Delegate
		if top.Prob < p.ClarifyFloor {
			// A threshold under the clarify floor delegates a best one
			// under it on its own probability, not its pair's (Pooled).
			d.Probability = top.Prob
		}
		chosen := top
		d.Chosen = &chosen
		d.Fallbacks = p.fallbacks(opts[1:])
		if close {
			d.Reason = fmt.Sprintf("best match %s at %.2f; runner-up %s is the same agent", top.Key, top.Prob, second.Key)
		} else {
			d.Reason = fmt.Sprintf("best match %s at %.2f", top.Key, top.Prob)
		}
	case close && !sameAgent && top.Prob >= p.ClarifyFloor:
		return ask(d, top, *second, whichOf(top, *second),
			fmt.Sprintf("top two are close: %s at %.2f, %s at %.2f", top.Key, top.Prob, second.Key, second.Prob))
	case p.eitherLikely(top, second, sameAgent):
		return ask(d, top, *second, whichOf(top, *second),
			fmt.Sprintf("neither is likely alone, but together they are: %s at %.2f, %s at %.2f", top.Key, top.Prob, second.Key, second.Prob))
	default:
		d.Action = Abstain
		switch {
		case top.Prob < p.Threshold:
			d.Reason = fmt.Sprintf("best match only %.2f (%s)", top.Prob, top.Key)
		default:
			d.Reason = fmt.Sprintf("best match %s at %.2f is too close to %s at %.2f", top.Key, top.Prob, second.Key, second.Prob)
		}
	}
	return d
}

// eitherLikely says whether two options of different agents, neither
// sure enough to delegate to nor close to the other, are together likely
// enough to ask the caller between them: a request two agents' skills
// share ("someone to talk to about my tinnitus": an appointment desk at
// 0.44, a support charity at 0.28) splits its probability between them,
// and an abstention then names neither. Measured over the golden and
// hostile sets, such a question names a right skill 74% of the time, as
// often as the questions asked between close options (73%). The runner-up
// must be a plausible fallback on its own (FallbackFloor).
func (p Policy) eitherLikely(top Option, second *Option, sameAgent bool) bool {
	return second != nil && !sameAgent && top.Prob >= p.ClarifyFloor && top.Prob < p.Threshold &&
		second.Prob >= p.FallbackFloor && top.Prob+second.Prob >= p.Threshold
}

// whichOf is the plain question between two options of different agents.
func whichOf(a, b Option) string {
	return fmt.Sprintf("Do you want %s (%s) or %s (%s)?", label(a), agentLabel(a), label(b), agentLabel(b))
}

// ask turns d into a question between the best option and another: its
// look-alike, or a runner-up as likely.
func ask(d Decision, top, alike Option, question, reason string) Decision {
	d.Action = Clarify
	d.Candidates = []Option{top, alike}
	d.Question, d.Reason = question, reason
	return d
}

// Reported is the probability a decision on options ordered best first
// reports: the pair's when the best one has a sibling (Pooled), whatever
// the action; the best one's share of its pair's when the decision asks
// which of two lines of services the caller means (shareOfPair); else the
// best one's own.
func (p Policy) Reported(opts []Option) float64 {
	if pooled, ok := p.Pooled(opts); ok {
		return pooled
	}
	if j, rel := lookAlike(opts); j > 0 && rel.Alike == AlikeOtherLine && p.AsksLookAlikes(opts) {
		return shareOfPair(opts[0], opts[j])
	}
	return opts[0].Prob
}

// AsksLookAlikes says whether Decide asks the caller between the best of
// opts and a look-alike of another agent, at any threshold: different
// data handling, a copied card or name, or another line of services,
// whenever the pair is worth a question (worthAsking). A threshold sweep
// must not replay such a task as a delegation.
func (p Policy) AsksLookAlikes(opts []Option) bool {
	if len(opts) == 0 || opts[0].Unnamed {
		return false
	}
	j, rel := lookAlike(opts)
	if j == 0 || !p.worthAsking(opts[0], opts[j], rel) {
		return false
	}
	switch rel.Alike {
	case AlikeDiffers, AlikeImpostor, AlikeCopy, AlikeOtherLine:
		return true
	}
	return false
}

// worthAsking says whether the best option and its look-alike of
// another agent (related as rel says) are worth a question: the best one
// reaches ClarifyFloor, or, when the two do one job under different data
// handling or one copies the other, the pair does (pooled as siblings
// are): the reranker splits the chance that the job is theirs between
// them, and hostile7's in-house and outsourced support teams stood at
// 0.31 and 0.12, abstained. Two lines of services keep the best one's
// own: pooled, sgd's weak "Find Movies" pairs, mostly another job's
// requests, were asked about.
func (p Policy) worthAsking(top, alike, rel Option) bool {
	if top.Prob >= p.ClarifyFloor {
		return true
	}
	switch rel.Alike {
	case AlikeDiffers, AlikeImpostor, AlikeCopy:
		return either(top, alike) >= p.ClarifyFloor
	}
	return false
}

// shareOfPair is the best one's probability when it and a look-alike do
// one job for different lines of services and the request does not say
// which: the chance the job is the pair's (pooled as for siblings) split
// between them in proportion to their own. Each alone was scored for the
// job, not for the line.
func shareOfPair(top, alike Option) float64 {
	if top.Prob+alike.Prob <= 0 {
		return top.Prob
	}
	pair := either(top, alike)
	if top.PairCalibrated {
		// Calibrated where a same-named skill counted as right, each
		// already holds the pair's probability.
		pair = top.Prob
	}
	return pair * top.Prob / (top.Prob + alike.Prob)
}

// Pooled is, for options ordered best first, the probability that a
// delegation to the best one, with its sibling as the first fallback, goes
// to a skill that does the job, and whether it has such a sibling: what
// Decide weighs against the threshold and reports, and a threshold sweep
// must replay. The reranker weighs each candidate against its rivals, so
// two skills that do one job split the probability that the job is theirs
// between them (SGD's sibling services: delegations made at a top
// probability of 0.5-0.7 beside such a twin were right 77-83% of the
// time); siblings pool it as if each alone could be right. Any other twin
// keeps the top's probability: a shared tag or description is too weak a
// sign that the two are one job, and a copied card is no sign at all
// (pooling a copy with its original would let the copy take the
// original's tasks without a question). A degraded twin is no fallback to
// count on. A best one under ClarifyFloor pools too, for the probability
// reported (on sgd, tops at 0.3-0.35 beside a sibling were right half the
// time), but Decide delegates a pair only from that floor up. A
// calibration fitted where siblings counted as right (Option.
// PairCalibrated) already gives the best one the pair's probability:
// pooling it again would count the sibling twice.
func (p Policy) Pooled(opts []Option) (float64, bool) {
	if len(opts) < 2 || opts[0].Unnamed {
		return 0, false
	}
	j, rel := lookAlike(opts)
	if j == 0 || rel.Alike != AlikeTwin || !rel.Sibling || opts[0].Demoted || opts[j].Demoted {
		return 0, false
	}
	if opts[0].PairCalibrated {
		return opts[0].Prob, true
	}
	return either(opts[0], opts[j]), true
}

// either is the probability that one of two options that do one job is
// right, each scored as if it alone could be: how a pair's split is
// pooled.
func either(a, b Option) float64 { return 1 - (1-a.Prob)*(1-b.Prob) }

// lookAlike is the position of the first option that is a look-alike of
// the best one, 0 for none, and the option that carries the relation. The
// ranker marks the look-alikes of its best candidate; when a near-tie
// break or a degraded best one's demotion put one of them first, the
// relation is read the other way round.
func lookAlike(opts []Option) (int, Option) {
	for j := 1; j < len(opts); j++ {
		if opts[j].AgentID == opts[0].AgentID {
			continue
		}
		switch {
		case opts[j].AlikeOf != "" && opts[j].AlikeOf == opts[0].Key:
			return j, opts[j]
		case opts[0].AlikeOf != "" && opts[0].AlikeOf == opts[j].Key:
			return j, opts[0]
		}
	}
	return 0, Option{}
}

// fallbacks keeps up to MaxFallbacks plausible options, degraded last.
func (p Policy) fallbacks(rest []Option) []Option {
	var healthy, degraded []Option
	for _, o := range rest {
		if o.Prob < p.FallbackFloor {
			continue
		}
		if o.Demoted {
			degraded = append(degraded, o)
		} else {
			healthy = append(healthy, o)
		}
	}
	out := append(healthy, degraded...)
	if len(out) > p.MaxFallbacks {
		out = out[:p.MaxFallbacks]
	}
	return out
}

func label(o Option) string {
	if o.SkillName != "" {
		return o.SkillName
	}
	return o.SkillID
}

func agentLabel(o Option) string {
	if o.AgentName != "" {
		return o.AgentName
	}
	return o.AgentID
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
