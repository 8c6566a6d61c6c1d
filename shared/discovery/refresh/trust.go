package refresh

import (
	"errors"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/discovery/signature"
)

// ErrRefused is wrapped by Trust.Check when the policy keeps a card out of
// the catalog.
var ErrRefused = errors.New("card refused by the signature policy")

// Trust is the signature check a card passes before it enters the catalog:
// the trusted keys and what to do with unsigned and badly signed cards.
// A nil *Trust checks nothing, so catalogs without signing keep working.
type Trust struct {
	Keys   signature.KeySet
	Policy signature.Policy
}

// Check verifies a card's raw JSON. It returns the verdict to keep with
// the card (zero for a nil Trust) and, when the policy refuses the card,
// an error wrapping ErrRefused with the verifier's reason.
func (t *Trust) Check(raw []byte) (catalog.Signature, error) {
	if t == nil {
		return catalog.Signature{}, nil
	}
	v, err := signature.Verify(raw, t.Keys, t.Policy)
	sig := catalog.Signature{Status: catalog.SignatureStatus(v.Status), KeyID: v.KeyID, Reason: v.Reason, Flagged: v.Flagged}
	if err != nil || !v.Accept {
		return sig, fmt.Errorf("%w: %s", ErrRefused, v.Reason)
	}
	return sig, nil
}
