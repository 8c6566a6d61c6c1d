package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// viaEncodingJSON is what Retrieval.MarshalJSON wrote through
// encoding/json before it wrote by hand.
func viaEncodingJSON(r *Retrieval) ([]byte, error) {
	out := retrievalJSON{Allowed: r.Allowed, TermWeights: r.TermWeights}
	out.Candidates = make(packed, 0, candidateFields*len(r.Candidates))
	for _, c := range r.Candidates {
		out.Candidates = append(out.Candidates, float64(c.Doc), c.BM25, float64(c.BM25Rank), float64(c.Dense),
			float64(c.DenseRank), float64(c.DescSim), float64(c.ExampleSim), float64(c.BestExample),
			float64(c.CentroidSim), c.ExampleBM25, c.Fused, float64(c.FusedRank),
			float64(c.Align), float64(c.AlignLabel), float64(c.Lex), float64(c.Class))
	}
	out.Neighbors, out.LexNeighbors = packNeighbors(r.Neighbors), packNeighbors(r.LexNeighbors)
	return json.Marshal(&out)
}

func randomRetrieval(rng *rand.Rand) *Retrieval {
	f := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return rng.NormFloat64() * 1e-9
		case 2:
			return rng.NormFloat64() * 1e22
		}
		return rng.NormFloat64() * 10
	}
	r := &Retrieval{Allowed: rng.IntN(2000) - 1}
	for range rng.IntN(25) {
		r.Candidates = append(r.Candidates, index.Candidate{Doc: rng.IntN(1000), BM25: f(), BM25Rank: rng.IntN(100),
			Dense: float32(f()), DenseRank: rng.IntN(100), DescSim: float32(f()), ExampleSim: float32(f()),
			BestExample: rng.IntN(5) - 1, CentroidSim: float32(f()), ExampleBM25: f(), Fused: f(), FusedRank: rng.IntN(30),
			Align: float32(f()), AlignLabel: float32(f()), Lex: float32(f()), Class: float32(f())})
	}
	for range rng.IntN(12) {
		r.Neighbors = append(r.Neighbors, index.Neighbor{Doc: rng.IntN(1000), Sim: float32(f())})
	}
	for range rng.IntN(12) {
		r.LexNeighbors = append(r.LexNeighbors, index.Neighbor{Doc: rng.IntN(1000), Sim: float32(f())})
	}
	if n := rng.IntN(8); n > 0 {
		r.TermWeights = make([]float64, n-1) // an empty, non-nil list too
		for i := range r.TermWeights {
			r.TermWeights[i] = f()
		}
	}
	return r
}

// The hand-written encoding is byte for byte encoding/json's, and reads
// back to the same result through both decoders.
func TestRetrievalEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		r := randomRetrieval(rng)
		got, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, err := viaEncodingJSON(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
		in, ok := scanRetrieval(got)
		if !ok {
			t.Fatalf("case %d: the scanner refused %s", i, got)
		}
		var ref retrievalJSON
		if err := json.Unmarshal(got, &ref); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, ref) {
			t.Fatalf("case %d: scanned %+v, encoding/json read %+v", i, in, ref)
		}
	}
	if _, err := (&Retrieval{TermWeights: []float64{math.NaN()}}).MarshalJSON(); err == nil {
		t.Error("NaN term weight encoded")
	}
}

// The scanner reads what encoding/json reads, or leaves it to it.
func TestScanRetrieval(t *testing.T) {
	for _, c := range []struct {
		in   string
		scan bool
	}{
		{`{}`, true},
		{` { "candidates" : "" , "allowed" : 3 , "termWeights" : [ 1.5 , 2e-7 ] } `, true},
		{`{"candidates":null,"neighbors":null,"termWeights":null,"allowed":0}`, true},
		{`{"termWeights":[]}`, true},
		{`{"allowed":1,"allowed":2}`, true},
		{`{"Allowed":1}`, false},                  // encoding/json matches keys case-insensitively
		{`{"allow\u0065d":1}`, false},             // an escaped key
		{`{"candidates":"AAAA\u0041AAA"}`, false}, // an escaped string
		{`{"allowed":1.5}`, false},
		{`{"allowed":1e2}`, false},
		{`{"other":1}`, false},
		{`{"candidates":"not base64!"}`, false},
		{`{"candidates":"AAAAAAAA8D8="}`, true}, // one value: scanned, refused by the unpacking
		{`{"termWeights":[1,[2]]}`, false},
	} {
		in, ok := scanRetrieval([]byte(c.in))
		if ok != c.scan {
			t.Errorf("%s: scanned %v, want %v", c.in, ok, c.scan)
		}
		if !ok {
			continue
		}
		var ref retrievalJSON
		if err := json.Unmarshal([]byte(c.in), &ref); err != nil {
			t.Errorf("%s: scanned, but encoding/json says %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(in, ref) {
			t.Errorf("%s: scanned %+v, encoding/json read %+v", c.in, in, ref)
		}
	}
}

// FuzzScanRetrieval: whatever the scanner accepts, encoding/json reads the
// same way.
func FuzzScanRetrieval(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		b, _ := randomRetrieval(rng).MarshalJSON()
		f.Add(b)
	}
	f.Add([]byte(`{"allowed":-0,"termWeights":[ ]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, ok := scanRetrieval(data)
		if !ok || !json.Valid(data) {
			return // encoding/json validates before it calls UnmarshalJSON
		}
		var ref retrievalJSON
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatalf("%q: scanned, but encoding/json says %v", data, err)
		}
		// Printed, not DeepEqual: packed floats may be NaN, which
		// DeepEqual holds unequal to itself.
		if got, want := fmt.Sprintf("%+v", in), fmt.Sprintf("%+v", ref); got != want {
			t.Fatalf("%q: scanned %s, encoding/json read %s", data, got, want)
		}
	})
}
