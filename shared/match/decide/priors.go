package decide

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Priors gives the success rate learnt for a skill from outcomes
// (feedback.Posteriors implements it).
type Priors interface {
	// Mean is the success rate to rank the skill by, and whether it is
	// backed by outcomes of that skill. For a skill without outcomes it
	// is the prior the implementation assumes (feedback.Posteriors: the
	// fleet mean), which BreakTies uses as it is.
	Mean(skill string) (float64, bool)
}

// Costs optionally gives a skill's mean latency and cost; BreakTies uses
// them when its Priors implements it too (feedback.Posteriors does).
type Costs interface {
	Latency(skill string) (time.Duration, bool)
	Cost(skill string) (float64, bool)
}

// TieConfig sets how BreakTies treats near-ties. Fields are used as
// given: Explore 0 never explores, Epsilon 0 only breaks exact ties.
type TieConfig struct {
	// Epsilon: candidates whose probability is within this of the best
	// are near-ties.
	Epsilon float64 `json:"epsilon"`
	// Explore is the probability of picking the first of the near-ties
	// uniformly at random instead of by success rate.
	Explore float64 `json:"explore"`
}

// DefaultTieConfig is the default near-tie treatment.
var DefaultTieConfig = TieConfig{Epsilon: 0.02, Explore: 0.05}

// TieKind says what BreakTies did.
type TieKind string

const (
	// TieNone: fewer than two near-ties (or no priors and no
	// exploration); the order is Order's.
	TieNone TieKind = "none"
	// TieSuccess: the near-ties were ordered by success rate, then
	// latency, then cost.
	TieSuccess TieKind = "success-rate"
	// TieExplored: the first of the near-ties was picked at random.
	TieExplored TieKind = "explored"
)

// TieCandidate is one near-tie as BreakTies saw it.
type TieCandidate struct {
	Key  string  `json:"key"`
	Prob float64 `json:"probability"`
	// Success is the success rate it was ranked by; Known whether
	// outcomes of the skill back it (false: a prior).
	Success float64 `json:"success"`
	Known   bool    `json:"known"`
	// LatencyMS and Cost are set when known.
	LatencyMS float64 `json:"latencyMs,omitempty"`
	Cost      float64 `json:"cost,omitempty"`
	Demoted   bool    `json:"demoted,omitempty"`
}

// TieNote records what BreakTies did, for the decision to carry.
type TieNote struct {
	Kind TieKind `json:"kind"`
	// Epsilon and Explore are the settings used.
	Epsilon float64 `json:"epsilon"`
	Explore float64 `json:"explore"`
	// Candidates are the near-ties in their new order.
	Candidates []TieCandidate `json:"candidates,omitempty"`
	// Draw is the uniform draw in [0, 1) compared with Explore (set when
	// there were near-ties and a random source); Explored when it fell
	// below. Pick is then the index, among the near-ties eligible to go
	// first, of the one picked.
	Draw float64 `json:"draw,omitempty"`
	Pick int     `json:"pick,omitempty"`
	// Before and After are the first candidate's key before and after;
	// Changed whether the order of the candidates changed.
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Changed bool   `json:"changed"`
}

// BreakTies orders the options (a copy: opts is not modified) as Order
// does, then reorders only the near-ties: the candidates whose calibrated
// probability is within cfg.Epsilon of the best. They are ranked by
// success rate from pri (higher first), then latency, then cost (lower
// first, unknown last), then their order from Order. With probability
// cfg.Explore, drawn from rng, one of the near-ties chosen uniformly goes
// first instead, the rest following by success rate.
//
// Every candidate that is not a near-tie keeps its position, so however
// bad a clear winner's success rate, it stays first. Among the near-ties,
// degraded (Demoted) candidates stay behind healthy ones, and exploration
// picks among the healthy ones (among all only when none is healthy).
//
// rng may be nil (no exploration); pri may be nil (near-ties keep Order's
// order unless explored). rng is not safe for concurrent use: give each
// goroutine its own, or derive one per task with TieRand, which also makes
// a replayed task explore the same way.
func (p Policy) BreakTies(opts []Option, pri Priors, rng *rand.Rand, cfg TieConfig) ([]Option, TieNote) {
	out := append([]Option(nil), opts...)
	p.Order(out)
	eps := cfg.Epsilon
	if !(eps >= 0) {
		eps = 0
	}
	explore := cfg.Explore
	if !(explore >= 0) {
		explore = 0
	}
	explore = min(explore, 1)
	note := TieNote{Kind: TieNone, Epsilon: eps, Explore: explore}
	if len(out) == 0 {
		return out, note
	}
	note.Before = out[0].Key
	note.After = out[0].Key

	best := math.Inf(-1)
	for _, o := range out {
		best = max(best, o.Prob)
	}
	var pos []int // positions of the near-ties, ascending
	for i, o := range out {
		if o.Prob >= best-eps {
			pos = append(pos, i)
		}
	}
	if len(pos) < 2 {
		return out, note
	}

	type tie struct {
		opt  Option
		c    TieCandidate
		lat  float64 // ms, +Inf unknown
		cost float64 // +Inf unknown
		rank int     // position from Order
	}
	costs, _ := pri.(Costs)
	ties := make([]tie, len(pos))
	for k, i := range pos {
		o := out[i]
		t := tie{opt: o, rank: k, lat: math.Inf(1), cost: math.Inf(1),
			c: TieCandidate{Key: o.Key, Prob: o.Prob, Demoted: o.Demoted}}
		if pri != nil {
			t.c.Success, t.c.Known = pri.Mean(o.Key)
			if math.IsNaN(t.c.Success) {
				t.c.Success, t.c.Known = 0, false
			}
		}
		if costs != nil {
			if d, ok := costs.Latency(o.Key); ok {
				t.lat = float64(d) / float64(time.Millisecond)
				t.c.LatencyMS = t.lat
			}
			if c, ok := costs.Cost(o.Key); ok {
				t.cost = c
				t.c.Cost = c
			}
		}
		ties[k] = t
	}
	if pri != nil {
		note.Kind = TieSuccess
		sort.SliceStable(ties, func(a, b int) bool {
			x, y := ties[a], ties[b]
			switch {
			case x.opt.Demoted != y.opt.Demoted:
				return !x.opt.Demoted
			case x.c.Success != y.c.Success:
				return x.c.Success > y.c.Success
			case x.lat != y.lat:
				return x.lat < y.lat
			case x.cost != y.cost:
				return x.cost < y.cost
			}
			return x.rank < y.rank
		})
	} else {
		// Keep Order's order, but healthy before degraded.
		sort.SliceStable(ties, func(a, b int) bool { return !ties[a].opt.Demoted && ties[b].opt.Demoted })
	}

	if rng != nil && explore > 0 {
		eligible := len(ties) // the healthy ones lead after the sort
		for k, t := range ties {
			if t.opt.Demoted {
				eligible = k
				break
			}
		}
		if eligible == 0 {
			eligible = len(ties)
		}
		note.Draw = rng.Float64()
		if eligible >= 2 && note.Draw < explore {
			pick := rng.IntN(eligible)
			note.Kind, note.Pick = TieExplored, pick
			picked := ties[pick]
			copy(ties[1:pick+1], ties[:pick])
			ties[0] = picked
		}
	}

	for k, i := range pos {
		if out[i].Key != ties[k].opt.Key {
			note.Changed = true
		}
		out[i] = ties[k].opt
		note.Candidates = append(note.Candidates, ties[k].c)
	}
	note.After = out[0].Key
	return out, note
}

// TieRand returns a random source for one task's tie-break, seeded from
// seed and the task id: the same task explores the same way on every
// replica, redelivery and replay, whatever order tasks come in.
func TieRand(seed uint64, taskID string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(taskID))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
