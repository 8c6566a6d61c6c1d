package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/skillmatch/skillmatch/shared/index"
	"github.com/skillmatch/skillmatch/shared/match"
)

// Shortlist is match.Shortlist on the wire. Candidates name their doc by
// number and key; the reranker resolves them in its own index, which must
// be built from the same catalog snapshot (see Fingerprint). Floats survive
// the JSON round trip exactly, so the reranker scores what an in-process
// matcher would.
type Shortlist struct {
	Terms  []string  `json:"terms"`
	Vector []float32 `json:"vector"`
	// Demoted lists the doc numbers of kept skills of degraded agents.
	Demoted     []int       `json:"demoted,omitempty"`
	Rejected    int         `json:"rejected"`
	Allowed     int         `json:"allowed"`
	Candidates  []Candidate `json:"candidates"`
	Neighbors   []Neighbor  `json:"neighbors,omitempty"`
	TermWeights []float64   `json:"termWeights,omitempty"`
}

// Candidate is index.Candidate without the doc pointer.
type Candidate struct {
	Doc         int     `json:"doc"`
	Key         string  `json:"key"`
	BM25        float64 `json:"bm25"`
	BM25Rank    int     `json:"bm25Rank"`
	Dense       float32 `json:"dense"`
	DenseRank   int     `json:"denseRank"`
	DescSim     float32 `json:"descSim"`
	ExampleSim  float32 `json:"exampleSim"`
	BestExample int     `json:"bestExample"`
	CentroidSim float32 `json:"centroidSim"`
	ExampleBM25 float64 `json:"exampleBm25"`
	Fused       float64 `json:"fused"`
	FusedRank   int     `json:"fusedRank"`
}

// Neighbor is index.Neighbor.
type Neighbor struct {
	Doc int     `json:"doc"`
	Sim float32 `json:"sim"`
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
		out.Allowed = r.Allowed
		out.TermWeights = r.TermWeights
		out.Candidates = make([]Candidate, len(r.Candidates))
		for i, c := range r.Candidates {
			key := ""
			if c.Entry != nil {
				key = c.Entry.Key
			}
			out.Candidates[i] = Candidate{
				Doc: c.Doc, Key: key, BM25: c.BM25, BM25Rank: c.BM25Rank, Dense: c.Dense, DenseRank: c.DenseRank,
				DescSim: c.DescSim, ExampleSim: c.ExampleSim, BestExample: c.BestExample, CentroidSim: c.CentroidSim,
				ExampleBM25: c.ExampleBM25, Fused: c.Fused, FusedRank: c.FusedRank,
			}
		}
		if len(r.Neighbors) > 0 {
			out.Neighbors = make([]Neighbor, len(r.Neighbors))
			for i, n := range r.Neighbors {
				out.Neighbors[i] = Neighbor{Doc: n.Doc, Sim: n.Sim}
			}
		}
	}
	return out
}

// Matcher converts the wire shortlist back for idx, checking that every doc
// number exists there under the same key. Rejection details are not
// carried (only their count), so the result's Rejections is nil.
func (s *Shortlist) Matcher(idx index.Index) (*match.Shortlist, error) {
	n := idx.Len()
	sl := &match.Shortlist{Terms: s.Terms, Vector: s.Vector, Retrieval: &index.Result{
		Allowed: s.Allowed, TermWeights: s.TermWeights,
	}}
	if len(s.Demoted) > 0 {
		sl.Demoted = make([]bool, n)
		for _, d := range s.Demoted {
			if d < 0 || d >= n {
				return nil, fmt.Errorf("wire: shortlist: demoted doc %d outside the index (%d docs)", d, n)
			}
			sl.Demoted[d] = true
		}
	}
	if len(s.Candidates) > 0 {
		cands := make([]index.Candidate, len(s.Candidates))
		for i, c := range s.Candidates {
			if c.Doc < 0 || c.Doc >= n {
				return nil, fmt.Errorf("wire: shortlist: doc %d outside the index (%d docs)", c.Doc, n)
			}
			e := idx.Doc(c.Doc)
			if e.Key != c.Key {
				return nil, fmt.Errorf("wire: shortlist: doc %d is %q here, %q in the message", c.Doc, e.Key, c.Key)
			}
			cands[i] = index.Candidate{
				Doc: c.Doc, Entry: e, BM25: c.BM25, BM25Rank: c.BM25Rank, Dense: c.Dense, DenseRank: c.DenseRank,
				DescSim: c.DescSim, ExampleSim: c.ExampleSim, BestExample: c.BestExample, CentroidSim: c.CentroidSim,
				ExampleBM25: c.ExampleBM25, Fused: c.Fused, FusedRank: c.FusedRank,
			}
		}
		sl.Retrieval.Candidates = cands
	}
	if len(s.Neighbors) > 0 {
		ns := make([]index.Neighbor, len(s.Neighbors))
		for i, nb := range s.Neighbors {
			if nb.Doc < 0 || nb.Doc >= n {
				return nil, fmt.Errorf("wire: shortlist: neighbour doc %d outside the index (%d docs)", nb.Doc, n)
			}
			ns[i] = index.Neighbor{Doc: nb.Doc, Sim: nb.Sim}
		}
		sl.Retrieval.Neighbors = ns
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
