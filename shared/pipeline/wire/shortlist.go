package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Shortlist is match.Shortlist on the wire. The retrieval result travels
// as Retrieval (every field of index.Result, numbers packed) without the
// candidates' doc pointers: the reranker resolves doc numbers in its own
// index, which must be built from the same catalog snapshot (see
// Fingerprint), and Keys lets it check that. Floats survive the round trip
// exactly, so the reranker scores what an in-process matcher would.
type Shortlist struct {
	Terms  []string `json:"terms"`
	Vector Floats   `json:"vector"`
	// Demoted lists the doc numbers of kept skills of degraded agents.
	Demoted []int `json:"demoted,omitempty"`
	// Rejected counts the skills the filters removed (their reasons are
	// not carried).
	Rejected int `json:"rejected"`
	// Keys[i] is the key of Retrieval.Candidates[i].
	Keys      []string   `json:"keys"`
	Retrieval *Retrieval `json:"retrieval"`
}

// Floats is a float32 vector that travels as base64 of its little-endian
// IEEE 754 bytes (as embedding APIs offer): exact, a third of the size of
// decimal text, and far cheaper to encode and decode, which matters on
// every shortlist. It also reads a JSON array of numbers.
type Floats []float32

// MarshalJSON writes the base64 string.
func (f Floats) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	raw := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return quoteBase64(raw), nil
}

// UnmarshalJSON reads the base64 string or an array of numbers.
func (f *Floats) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '[' {
		var v []float32
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*f = v
		return nil
	}
	raw, err := unquoteBase64(data)
	if err != nil {
		return fmt.Errorf("vector: %w", err)
	}
	if raw == nil {
		*f = nil
		return nil
	}
	if len(raw)%4 != 0 {
		return fmt.Errorf("vector: %d bytes is not a whole number of float32s", len(raw))
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	*f = v
	return nil
}

// FromShortlist converts a matcher's shortlist for the wire.
func FromShortlist(sl *match.Shortlist) Shortlist {
	out := Shortlist{Terms: sl.Terms, Vector: sl.Vector, Rejected: len(sl.Rejections)}
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
		out.Retrieval = (*Retrieval)(&res)
	}
	return out
}

// Matcher converts the wire shortlist back for idx, checking that every doc
// number exists there under the same key. The result's Rejections is nil.
func (s *Shortlist) Matcher(idx index.Index) (*match.Shortlist, error) {
	n := idx.Len()
	sl := &match.Shortlist{Terms: s.Terms, Vector: s.Vector, Retrieval: (*index.Result)(s.Retrieval)}
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
	for _, nbs := range [][]index.Neighbor{sl.Retrieval.Neighbors, sl.Retrieval.LexNeighbors} {
		for _, nb := range nbs {
			if nb.Doc < 0 || nb.Doc >= n {
				return nil, fmt.Errorf("wire: shortlist: neighbour doc %d outside the index (%d docs)", nb.Doc, n)
			}
		}
	}
	return sl, nil
}

// Fingerprint names an index's doc numbering: stages that pass doc numbers
// to each other must agree on it.
func Fingerprint(idx index.Index) string {
	h := sha256.New()
	for i := 0; i < idx.Len(); i++ {
		h.Write([]byte(idx.Doc(i).Key))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
