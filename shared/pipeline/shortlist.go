package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// shortlistToWire converts a matcher's shortlist for the wire.
func shortlistToWire(sl *match.Shortlist) wire.Shortlist {
	out := wire.Shortlist{Terms: sl.Terms, Vector: sl.Vector, Rejected: sl.Rejected, Degraded: sl.Degraded}
	for i, d := range sl.Demoted {
		if d {
			out.Demoted = append(out.Demoted, i)
		}
	}
	if r := sl.Retrieval; r != nil {
		res := *r
		res.Candidates = make([]index.Candidate, len(r.Candidates))
		out.Keys = make([]string, len(r.Candidates))
		for i, c := range r.Candidates {
			if c.Entry != nil {
				out.Keys[i] = c.Entry.Key
			}
			c.Entry = nil
			res.Candidates[i] = c
		}
		out.Retrieval = (*wire.Retrieval)(&res)
	}
	if h := sl.History; h != nil {
		res := *h
		res.Candidates = make([]index.Candidate, len(h.Candidates))
		for i, c := range h.Candidates {
			c.Entry = nil
			res.Candidates[i] = c
		}
		out.History = (*wire.Retrieval)(&res)
	}
	return out
}

// shortlistFromWire converts the wire shortlist back for idx, checking that every doc
// number exists there under the same key. The result's Rejections is nil.
func shortlistFromWire(s *wire.Shortlist, idx index.Index) (*match.Shortlist, error) {
	n := idx.Len()
	sl := &match.Shortlist{Rejected: s.Rejected, Terms: s.Terms, Vector: s.Vector, Retrieval: (*index.Result)(s.Retrieval), Degraded: s.Degraded}
	if sl.Retrieval == nil {
		sl.Retrieval = &index.Result{}
	}
	if len(s.Demoted) > 0 {
		sl.Demoted = make([]bool, n)
		for _, d := range s.Demoted {
			if d < 0 || d >= n {
				return nil, fmt.Errorf("wire: shortlist: demoted doc %d outside the index (%d docs)", d, n)
			}
			sl.Demoted[d] = true
		}
	}
	cands := sl.Retrieval.Candidates
	if len(s.Keys) != len(cands) {
		return nil, fmt.Errorf("wire: shortlist: %d keys for %d candidates", len(s.Keys), len(cands))
	}
	for i := range cands {
		c := &cands[i]
		if c.Doc < 0 || c.Doc >= n {
			return nil, fmt.Errorf("wire: shortlist: doc %d outside the index (%d docs)", c.Doc, n)
		}
		e := idx.Doc(c.Doc)
		if e.Key != s.Keys[i] {
			return nil, fmt.Errorf("wire: shortlist: doc %d is %q here, %q in the message", c.Doc, e.Key, s.Keys[i])
		}
		c.Entry = e
	}
	if s.History != nil {
		// The earlier turns' retrieval travels trimmed to the shortlist:
		// a history doc outside it is not this shortlist's.
		short := make(map[int]bool, len(cands))
		for _, c := range cands {
			short[c.Doc] = true
		}
		sl.History = (*index.Result)(s.History)
		for i := range sl.History.Candidates {
			c := &sl.History.Candidates[i]
			if !short[c.Doc] {
				return nil, fmt.Errorf("wire: shortlist: history doc %d is not shortlisted", c.Doc)
			}
			c.Entry = idx.Doc(c.Doc)
		}
	}
	nbss := [][]index.Neighbor{sl.Retrieval.Neighbors, sl.Retrieval.LexNeighbors}
	if sl.History != nil {
		nbss = append(nbss, sl.History.Neighbors, sl.History.LexNeighbors)
	}
	for _, nbs := range nbss {
		for _, nb := range nbs {
			if nb.Doc < 0 || nb.Doc >= n {
				return nil, fmt.Errorf("wire: shortlist: neighbour doc %d outside the index (%d docs)", nb.Doc, n)
			}
		}
	}
	return sl, nil
}

// SnapshotFingerprint names a matcher's catalog snapshot: its doc numbering
// (Fingerprint) and the content of every agent (parsed card and status).
// Two matchers built from the same catalog bucket state get the same
// fingerprint in any process, so stages use it to check that a message
// was made over the snapshot they hold; a replaced card with the same
// skill ids changes it too.
func SnapshotFingerprint(m *match.Matcher) string {
	h := sha256.New()
	h.Write([]byte(wire.Fingerprint(m.Index())))
	enc := json.NewEncoder(h)
	for _, a := range m.Catalog().Agents {
		_ = enc.Encode(a.Card)
		_ = enc.Encode(a.Status)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
