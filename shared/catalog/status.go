// Package catalog holds a set of agent cards together with what the
// registry knows of each agent beyond its card (health, clearance).
package catalog

import "github.com/skillmatch/skillmatch/shared/card"

// Health of an agent as the registry sees it.
type Health string

const (
	Up       Health = "up"
	Degraded Health = "degraded"
	Down     Health = "down"
)

// Data classes in increasing order of sensitivity.
const (
	Public       = "public"
	Internal     = "internal"
	Confidential = "confidential"
	Restricted   = "restricted"
)

// ClassRank orders data classes: public < internal < confidential <
// restricted. ok is false for an unknown class.
func ClassRank(class string) (rank int, ok bool) {
	switch class {
	case Public:
		return 0, true
	case Internal:
		return 1, true
	case Confidential:
		return 2, true
	case Restricted:
		return 3, true
	}
	return -1, false
}

// Status is the registry's view of one agent.
type Status struct {
	Health    Health `json:"health"`
	Clearance string `json:"clearance"`
	External  bool   `json:"external"`
}

// DefaultStatus applies to agents the registry does not mention.
var DefaultStatus = Status{Health: Up, Clearance: Internal}

// Agent is a card with its registry status.
type Agent struct {
	Card   *card.Card
	Status Status
}

// Catalog is the set of agents the matcher chooses from.
type Catalog struct {
	// Agents are sorted by card id when the catalog comes from New or
	// LoadDir.
	Agents []Agent

	index map[string]int // card id -> position in Agents; see Agent
}
