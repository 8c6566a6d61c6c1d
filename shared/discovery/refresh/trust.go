package refresh

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/discovery/signature"
	"github.com/skillmatch/skillmatch/shared/pipeline"
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

// PutVerified is how a card gets into the catalog, from `cards add`, `run
// --cards` and the refresher alike: the signatures of raw are checked
// (trust nil: not checked, and no verdict is kept), then the card is
// stored with the status status returns for the agent's current one (the
// default for an agent the catalog does not hold, which is then new),
// with the verdict joined. A refused card is not stored: the error wraps
// ErrRefused and sig says why.
func PutVerified(ctx context.Context, cat Catalog, trust *Trust, id string, raw []byte,
	status func(cur catalog.Status, isNew bool) catalog.Status) (rev uint64, changed, isNew bool, sig catalog.Signature, err error) {
	if sig, err = trust.Check(raw); err != nil {
		return 0, false, false, sig, err
	}
	_, cur, err := cat.Get(ctx, id)
	st := catalog.DefaultStatus
	switch {
	case errors.Is(err, pipeline.ErrNoAgent):
		isNew = true
	case err != nil:
		return 0, false, false, sig, fmt.Errorf("refresh: get %s: %w", id, err)
	case cur != nil:
		st = *cur
	}
	st = status(st, isNew)
	st.Signature = sig
	rev, changed, err = cat.Put(ctx, id, raw, &st)
	if err != nil {
		return 0, false, isNew, sig, fmt.Errorf("refresh: put %s: %w", id, err)
	}
	return rev, changed, isNew, sig, nil
}
