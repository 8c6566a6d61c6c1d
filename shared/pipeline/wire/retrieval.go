package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

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
//	            Align, AlignLabel, Lex, Class
//	neighbors, lexNeighbors: Doc, Sim
type Retrieval index.Result

// candidateFields is the packed width of an index.Candidate; a test checks
// it against the struct, so that a field the index gains is not dropped.
const candidateFields = 16

type retrievalJSON struct {
	Candidates   packed    `json:"candidates"`
	Neighbors    packed    `json:"neighbors,omitempty"`
	LexNeighbors packed    `json:"lexNeighbors,omitempty"`
	Allowed      int       `json:"allowed"`
	TermWeights  []float64 `json:"termWeights,omitempty"`
}

// MarshalJSON packs the result. It writes what json.Marshal of
// retrievalJSON writes (a test holds it to that), by hand: through
// encoding/json every packed field was encoded, then checked and copied
// twice over (each Marshaler's output is compacted), most of a
// shortlist's encoding cost.
func (r *Retrieval) MarshalJSON() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, r.encodedLen()))
}

// encodedLen is about the length MarshalJSON writes.
func (r *Retrieval) encodedLen() int {
	packed := 8 * (candidateFields*len(r.Candidates) + 2*len(r.Neighbors) + 2*len(r.LexNeighbors))
	return base64.StdEncoding.EncodedLen(packed) + 24*len(r.TermWeights) + 96
}

// appendJSON appends what MarshalJSON writes to out.
func (r *Retrieval) appendJSON(out []byte) ([]byte, error) {
	raw := make([]byte, 0, 8*(candidateFields*len(r.Candidates)+2*len(r.Neighbors)+2*len(r.LexNeighbors)))
	for _, c := range r.Candidates {
		for _, v := range [candidateFields]float64{float64(c.Doc), c.BM25, float64(c.BM25Rank), float64(c.Dense),
			float64(c.DenseRank), float64(c.DescSim), float64(c.ExampleSim), float64(c.BestExample),
			float64(c.CentroidSim), c.ExampleBM25, c.Fused, float64(c.FusedRank),
			float64(c.Align), float64(c.AlignLabel), float64(c.Lex), float64(c.Class)} {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
		}
	}
	nc := len(raw)
	for _, nbs := range [][]index.Neighbor{r.Neighbors, r.LexNeighbors} {
		for _, nb := range nbs {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(float64(nb.Doc)))
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(float64(nb.Sim)))
		}
	}
	nn := nc + 16*len(r.Neighbors)
	b64 := base64.StdEncoding
	out = append(out, `{"candidates":"`...)
	out = b64.AppendEncode(out, raw[:nc])
	out = append(out, '"')
	if len(r.Neighbors) > 0 {
		out = append(out, `,"neighbors":"`...)
		out = b64.AppendEncode(out, raw[nc:nn])
		out = append(out, '"')
	}
	if len(r.LexNeighbors) > 0 {
		out = append(out, `,"lexNeighbors":"`...)
		out = b64.AppendEncode(out, raw[nn:])
		out = append(out, '"')
	}
	out = append(out, `,"allowed":`...)
	out = strconv.AppendInt(out, int64(r.Allowed), 10)
	if len(r.TermWeights) > 0 {
		out = append(out, `,"termWeights":[`...)
		for i, w := range r.TermWeights {
			if i > 0 {
				out = append(out, ',')
			}
			var err error
			if out, err = appendJSONFloat(out, w); err != nil {
				return nil, fmt.Errorf("retrieval: termWeights: %w", err)
			}
		}
		out = append(out, ']')
	}
	return append(out, '}'), nil
}

// appendJSONFloat appends f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// UnmarshalJSON unpacks the result, refusing values that are not what
// they must be (a fractional doc number, say).
func (r *Retrieval) UnmarshalJSON(data []byte) error {
	in, ok := scanRetrieval(data)
	if !ok {
		// Anything but the plain shape MarshalJSON writes (other spacing
		// aside) takes encoding/json's path, and its errors.
		in = retrievalJSON{}
		if err := json.Unmarshal(data, &in); err != nil {
			return err
		}
	}
	out, err := in.result()
	if err != nil {
		return err
	}
	*r = out
	return nil
}

// result unpacks what UnmarshalJSON read.
func (in *retrievalJSON) result() (Retrieval, error) {
	if len(in.Candidates)%candidateFields != 0 {
		return Retrieval{}, fmt.Errorf("retrieval: %d packed values is not a whole number of candidates", len(in.Candidates))
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
		c.Align, c.AlignLabel, c.Lex, c.Class = float32(v[12]), float32(v[13]), float32(v[14]), float32(v[15])
	}
	if err != nil {
		return Retrieval{}, fmt.Errorf("retrieval: candidates: %w", err)
	}
	if out.Neighbors, err = unpackNeighbors(in.Neighbors); err != nil {
		return Retrieval{}, fmt.Errorf("retrieval: neighbors: %w", err)
	}
	if out.LexNeighbors, err = unpackNeighbors(in.LexNeighbors); err != nil {
		return Retrieval{}, fmt.Errorf("retrieval: lexNeighbors: %w", err)
	}
	return out, nil
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
	*p, err = unpack(raw)
	return err
}

// unpack reads little-endian float64s.
func unpack(raw []byte) (packed, error) {
	if len(raw)%8 != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of float64s", len(raw))
	}
	out := make(packed, len(raw)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return out, nil
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
	if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data[1:n-1], '\\') < 0 {
		// The string as written, without escapes (what quoteBase64
		// writes): decoded in place of a JSON unquote, which copied it
		// and validated it again, a third of a shortlist's decode.
		s := data[1 : n-1]
		raw := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		k, err := base64.StdEncoding.Decode(raw, s)
		return raw[:k], err
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

// scanRetrieval reads the object MarshalJSON writes without encoding/json,
// which checked the whole of it again (encoding/json has checked it
// before calling UnmarshalJSON) and copied every packed string; ok is
// false for anything else it would have to interpret (an unknown or
// escaped key, an escaped string, a fractional count, a bad packed
// value), which the caller leaves to encoding/json.
func scanRetrieval(data []byte) (in retrievalJSON, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return in, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return in, skipSpace(data, i+1) == len(data)
	}
	for {
		key, j, ok := scanPlainString(data, i)
		if !ok {
			return in, false
		}
		if i = skipSpace(data, j); i >= len(data) || data[i] != ':' {
			return in, false
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return in, false
		}
		switch string(key) {
		case "candidates", "neighbors", "lexNeighbors":
			var p packed
			if bytes.HasPrefix(data[i:], []byte("null")) {
				i += 4
			} else {
				_, j, ok := scanPlainString(data, i)
				if !ok || p.UnmarshalJSON(data[i:j]) != nil {
					return in, false
				}
				i = j
			}
			switch string(key) {
			case "candidates":
				in.Candidates = p
			case "neighbors":
				in.Neighbors = p
			default:
				in.LexNeighbors = p
			}
		case "allowed":
			j := i
			for j < len(data) && (data[j] == '-' || data[j] >= '0' && data[j] <= '9') {
				j++
			}
			n, err := strconv.Atoi(string(data[i:j]))
			if err != nil {
				return in, false
			}
			in.Allowed, i = n, j
		case "termWeights":
			if bytes.HasPrefix(data[i:], []byte("null")) {
				in.TermWeights, i = nil, i+4
				break
			}
			end := bytes.IndexByte(data[i:], ']')
			if data[i] != '[' || end < 0 {
				return in, false
			}
			body := data[i+1 : i+end]
			in.TermWeights = []float64{}
			if len(bytes.TrimSpace(body)) > 0 {
				for f := range bytes.SplitSeq(body, []byte(",")) {
					w, err := strconv.ParseFloat(string(bytes.TrimSpace(f)), 64)
					if err != nil {
						return in, false
					}
					in.TermWeights = append(in.TermWeights, w)
				}
			}
			i += end + 1
		default:
			return in, false
		}
		if i = skipSpace(data, i); i >= len(data) {
			return in, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return in, skipSpace(data, i+1) == len(data)
		default:
			return in, false
		}
	}
}

// scanPlainString reads the JSON string at data[i:] when it has no
// escapes: its contents and the index after its closing quote.
func scanPlainString(data []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, i, false
	}
	n := bytes.IndexByte(data[i+1:], '"')
	if n < 0 {
		return nil, i, false
	}
	s = data[i+1 : i+1+n]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, i, false
	}
	return s, i + n + 2, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
