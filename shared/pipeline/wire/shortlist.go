package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

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
	// Degraded says why retrieval fell back to the built-in path
	// ("embedder unavailable"), carried on to the decision.
	Degraded string `json:"degraded,omitempty"`
	// History is the retrieval of the task's earlier turns over the
	// shortlisted skills (match.Shortlist.History), candidates without
	// their keys; absent without earlier turns.
	History *Retrieval `json:"history,omitempty"`
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
	*f, err = unpackFloats(raw)
	return err
}

// unpackFloats reads little-endian float32s.
func unpackFloats(raw []byte) (Floats, error) {
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("vector: %d bytes is not a whole number of float32s", len(raw))
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v, nil
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
