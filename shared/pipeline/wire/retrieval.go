package wire

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Retrieval is index.Result on the wire. Candidates and neighbours are
// numbers only, and decimal JSON made the shortlist the most expensive
// message of the pipeline to encode and decode (about a tenth of a
// stage's CPU), so they travel packed: each a run of little-endian
// float64 in the order below, base64-encoded. Every value survives
// exactly (float32 and int widen to float64 losslessly). The candidates'
// doc pointers are not carried (see Shortlist).
//
//	candidates: Doc, BM25, BM25Rank, Dense, DenseRank, DescSim, ExampleSim,
//	            BestExample, CentroidSim, ExampleBM25, Fused, FusedRank,
//	            Align, AlignLabel, Lex
//	neighbors, lexNeighbors: Doc, Sim
type Retrieval index.Result

// candidateFields is the packed width of an index.Candidate; a test checks
// it against the struct, so that a field the index gains is not dropped.
const candidateFields = 15

type retrievalJSON struct {
	Candidates   packed    `json:"candidates"`
	Neighbors    packed    `json:"neighbors,omitempty"`
	LexNeighbors packed    `json:"lexNeighbors,omitempty"`
	Allowed      int       `json:"allowed"`
	TermWeights  []float64 `json:"termWeights,omitempty"`
}

// MarshalJSON packs the result.
func (r *Retrieval) MarshalJSON() ([]byte, error) {
	out := retrievalJSON{Allowed: r.Allowed, TermWeights: r.TermWeights}
	out.Candidates = make(packed, 0, candidateFields*len(r.Candidates))
	for _, c := range r.Candidates {
		out.Candidates = append(out.Candidates, float64(c.Doc), c.BM25, float64(c.BM25Rank), float64(c.Dense),
			float64(c.DenseRank), float64(c.DescSim), float64(c.ExampleSim), float64(c.BestExample),
			float64(c.CentroidSim), c.ExampleBM25, c.Fused, float64(c.FusedRank),
			float64(c.Align), float64(c.AlignLabel), float64(c.Lex))
	}
	out.Neighbors, out.LexNeighbors = packNeighbors(r.Neighbors), packNeighbors(r.LexNeighbors)
	return json.Marshal(&out)
}

// UnmarshalJSON unpacks the result, refusing values that are not what
// they must be (a fractional doc number, say).
func (r *Retrieval) UnmarshalJSON(data []byte) error {
	var in retrievalJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	if len(in.Candidates)%candidateFields != 0 {
		return fmt.Errorf("retrieval: %d packed values is not a whole number of candidates", len(in.Candidates))
	}
	out := Retrieval{Allowed: in.Allowed, TermWeights: in.TermWeights}
	if n := len(in.Candidates) / candidateFields; n > 0 {
		out.Candidates = make([]index.Candidate, n)
	}
	var err error
	for i := range out.Candidates {
		v := in.Candidates[i*candidateFields : (i+1)*candidateFields]
		c := &out.Candidates[i]
		c.Doc, err = whole(v[0], err)
		c.BM25 = v[1]
		c.BM25Rank, err = whole(v[2], err)
		c.Dense = float32(v[3])
		c.DenseRank, err = whole(v[4], err)
		c.DescSim, c.ExampleSim = float32(v[5]), float32(v[6])
		c.BestExample, err = whole(v[7], err)
		c.CentroidSim, c.ExampleBM25, c.Fused = float32(v[8]), v[9], v[10]
		c.FusedRank, err = whole(v[11], err)
		c.Align, c.AlignLabel, c.Lex = float32(v[12]), float32(v[13]), float32(v[14])
	}
	if err != nil {
		return fmt.Errorf("retrieval: candidates: %w", err)
	}
	if out.Neighbors, err = unpackNeighbors(in.Neighbors); err != nil {
		return fmt.Errorf("retrieval: neighbors: %w", err)
	}
	if out.LexNeighbors, err = unpackNeighbors(in.LexNeighbors); err != nil {
		return fmt.Errorf("retrieval: lexNeighbors: %w", err)
	}
	*r = out
	return nil
}

func packNeighbors(nbs []index.Neighbor) packed {
	if len(nbs) == 0 {
		return nil
	}
	p := make(packed, 0, 2*len(nbs))
	for _, nb := range nbs {
		p = append(p, float64(nb.Doc), float64(nb.Sim))
	}
	return p
}

func unpackNeighbors(p packed) ([]index.Neighbor, error) {
	if len(p)%2 != 0 {
		return nil, fmt.Errorf("%d packed values is not a whole number of neighbours", len(p))
	}
	if len(p) == 0 {
		return nil, nil
	}
	out := make([]index.Neighbor, len(p)/2)
	var err error
	for i := range out {
		out[i].Doc, err = whole(p[2*i], err)
		out[i].Sim = float32(p[2*i+1])
	}
	return out, err
}

// whole converts an integral value, keeping the first error.
func whole(v float64, err error) (int, error) {
	if err == nil && (v != math.Trunc(v) || math.Abs(v) > 1<<31) {
		err = fmt.Errorf("%v is not an integer", v)
	}
	return int(v), err
}

// packed is a float64 slice that travels as base64 of its little-endian
// bytes.
type packed []float64

func (p packed) MarshalJSON() ([]byte, error) {
	raw := make([]byte, 8*len(p))
	for i, v := range p {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	return quoteBase64(raw), nil
}

func (p *packed) UnmarshalJSON(data []byte) error {
	raw, err := unquoteBase64(data)
	if err != nil || raw == nil {
		*p = nil
		return err
	}
	if len(raw)%8 != 0 {
		return fmt.Errorf("%d bytes is not a whole number of float64s", len(raw))
	}
	out := make(packed, len(raw)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	*p = out
	return nil
}

// quoteBase64 is raw as a JSON string of its standard base64.
func quoteBase64(raw []byte) []byte {
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(raw))+2)
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, raw)
	return append(out, '"')
}

// unquoteBase64 reads a JSON string of standard base64 (nil for null).
func unquoteBase64(data []byte) ([]byte, error) {
	if string(data) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if raw == nil && err == nil {
		raw = []byte{}
	}
	return raw, err
}
