// Package catalog holds a set of agent cards together with what the
// registry knows of each agent beyond its card (health, clearance).
package catalog

import (
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

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
	// AllowPrivate lets delegations go to the agent's interfaces at
	// private, loopback and similar addresses (package endpoint), for an
	// agent the registry knows runs inside the network. Off by default:
	// a card must not be able to aim the caller's data at the metadata
	// service or a local port.
	AllowPrivate bool `json:"allowPrivate,omitempty"`
	// Signature is the verdict on the card's signatures when it entered
	// the catalog; zero when they were not checked (no trusted keys
	// configured), which is also what entries written before verdicts
	// existed decode to.
	Signature Signature `json:"signature,omitzero"`
}

// SignatureStatus is the outcome of checking a card's signatures.
type SignatureStatus string

// The values of SignatureStatus (those of package signature).
const (
	SignatureVerified SignatureStatus = "verified"
	SignatureUnsigned SignatureStatus = "unsigned"
	SignatureInvalid  SignatureStatus = "invalid"
)

// Valid reports whether s is one of the known statuses.
func (s SignatureStatus) Valid() bool {
	switch s {
	case SignatureVerified, SignatureUnsigned, SignatureInvalid:
		return true
	}
	return false
}

// Signature is the signature verdict kept with an agent, so that a
// listing or an explanation can say why a card was trusted or flagged.
// It stays comparable so that Status does.
type Signature struct {
	Status SignatureStatus `json:"status"`
	// KeyID names the trusted key that verified the card, or the key an
	// invalid signature claimed.
	KeyID string `json:"keyId,omitempty"`
	// Reason is the verifier's sentence, including what the policy did.
	Reason string `json:"reason,omitempty"`
	// Flagged: the card is in the catalog only because the policy flags
	// rather than refuses it.
	Flagged bool `json:"flagged,omitempty"`
}

// Checked reports whether the signatures were checked at all.
func (s Signature) Checked() bool { return s.Status != "" }

// String is the short form for listings: "verified (kid)", "unsigned,
// flagged", or "-" when not checked.
func (s Signature) String() string {
	if !s.Checked() {
		return "-"
	}
	out := string(s.Status)
	if s.KeyID != "" {
		out += " (" + s.KeyID + ")"
	}
	if s.Flagged {
		out += ", flagged"
	}
	return out
}

// Validate is the one check of a status's values, wherever a status is
// read (registry file, catalog bucket): health up, degraded or down, a
// known clearance, and a signature verdict that is either absent (not
// checked, or written before verdicts existed) or one of the known ones.
// Filling empty fields (with EntryDefault's or DefaultStatus's) is the
// caller's choice, since a registry file and the bucket treat a missing
// field differently.
func (s Status) Validate() error {
	switch s.Health {
	case Up, Degraded, Down:
	default:
		return fmt.Errorf("health %q: want up, degraded or down", s.Health)
	}
	if _, ok := ClassRank(s.Clearance); !ok {
		return fmt.Errorf("clearance %q: want public, internal, confidential or restricted", s.Clearance)
	}
	if s.Signature != (Signature{}) && !s.Signature.Status.Valid() {
		return fmt.Errorf("signature status %q: want verified, unsigned or invalid", s.Signature.Status)
	}
	return nil
}

// DefaultStatus applies to agents the registry does not mention: a card
// nobody vetted (found by discovery, added without a registry entry) is
// treated as external and receives public data only, so that a card
// fetched from anywhere cannot draw internal tasks.
var DefaultStatus = Status{Health: Up, Clearance: Public, External: true}

// EntryDefault fills the fields a registry entry leaves out: the registry
// lists the agent, so it is vetted, and an entry such as {"clearance":
// "confidential"} must not be overridden by an external default.
var EntryDefault = Status{Health: Up, Clearance: Internal}

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
