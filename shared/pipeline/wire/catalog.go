package wire

import (
	"encoding/json"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
)

// BucketCatalog is the JetStream KV bucket of the card catalog: key = agent
// id, value = a CatalogEntry. Stages that match watch it and rebuild their
// matcher on every change; a deleted key removes the agent.
const BucketCatalog = "skillmatch_catalog"

// CatalogEntry is one agent in the catalog bucket: its card JSON exactly as
// given (A2A v1.0, the a2a-go SDK's JSON or v0.3; read with card.Parse
// under the key as the agent id) and, optionally, the registry's status
// of the agent (catalog.DefaultStatus when absent), which carries the
// signature verdict when the card's signatures were checked.
type CatalogEntry struct {
	V      int             `json:"v"`
	Card   json.RawMessage `json:"card"`
	Status *catalog.Status `json:"status,omitempty"`
}

// NewCatalogEntry checks a card (card.Parse under id) and a status, and
// returns the bucket value. It refuses what a stage would refuse, with the
// reason.
func NewCatalogEntry(id string, cardJSON []byte, st *catalog.Status) ([]byte, error) {
	e := CatalogEntry{V: Version, Card: cardJSON, Status: st}
	data, err := json.Marshal(&e)
	if err != nil {
		return nil, fmt.Errorf("%w: card %q: %v", ErrBadMessage, id, err)
	}
	if _, err := DecodeCatalogEntry(id, data); err != nil {
		return nil, err
	}
	return data, nil
}

// DecodeCatalogEntry reads a bucket value under key id into an agent: the
// card through card.Parse (every limit and check applies), the status
// checked like a registry.json entry.
func DecodeCatalogEntry(id string, data []byte) (catalog.Agent, error) {
	if !card.ValidID(id) {
		return catalog.Agent{}, fmt.Errorf("%w: catalog entry %q: id: want 1-128 of [a-z0-9._-]", ErrBadMessage, id)
	}
	var e CatalogEntry
	if err := decode(data, "catalog entry "+id, &e); err != nil {
		return catalog.Agent{}, err
	}
	if !present(e.Card) {
		return catalog.Agent{}, fmt.Errorf("%w: catalog entry %q: no card", ErrBadMessage, id)
	}
	c, err := card.Parse(id, e.Card)
	if err != nil {
		return catalog.Agent{}, fmt.Errorf("%w: catalog entry %q: %w", ErrBadMessage, id, err)
	}
	st := catalog.DefaultStatus
	if e.Status != nil {
		st = *e.Status
		if st.Health == "" {
			st.Health = catalog.DefaultStatus.Health
		}
		if st.Clearance == "" {
			st.Clearance = catalog.DefaultStatus.Clearance
		}
		if err := st.Validate(); err != nil {
			return catalog.Agent{}, fmt.Errorf("%w: catalog entry %q: %w", ErrBadMessage, id, err)
		}
	}
	return catalog.Agent{Card: c, Status: st}, nil
}
