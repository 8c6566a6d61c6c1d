package rerank

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Feature names, in the order Features fills them. A model file stores
// its weights by name, so adding a feature keeps old files readable.
var FeatureNames = []string{
	"fused_rr",      // 1 / fused rank
	"bm25_rr",       // 1 / BM25 rank (0 when BM25 did not retrieve it)
	"bm25_norm",     // BM25 score / best BM25 score in the shortlist
	"bm25_log",      // log(1 + BM25 score)
	"bm25_gap",      // lead over the best other candidate's BM25, relative
	"dense_rr",      // 1 / dense rank
	"dense",         // max cosine over description and examples
	"desc_sim",      // cosine with the description
	"example_sim",   // cosine with the best example
	"dense_gap",     // lead over the best other candidate's dense score
	"knn_vote",      // share of the nearest example vectors that are this skill's
	"knn_top",       // 1 when the single nearest vector is this skill's
	"cover_name",    // idf-weighted share of need terms in the name and tags
	"cover_desc",    // ... in the description
	"cover_ex",      // ... in the examples
	"cover_all",     // ... anywhere in the skill's text
	"cover_miss",    // idf-weighted share of need terms found nowhere
	"format_in",     // the skill names every input type exactly (no wildcard)
	"format_out",    // the skill names a wanted output type exactly
	"need_terms",    // log(1 + number of need terms): short needs are vaguer
	"single_agent",  // 1 when every candidate is this candidate's agent
	"centroid_sim",  // cosine with the mean of the skill's examples
	"centroid_gap",  // lead over the best other candidate's centroid_sim
	"ex_bm25_norm",  // best single-example BM25 / best in the shortlist
	"ex_bm25_log",   // log(1 + best single-example BM25)
	"lex_knn_vote",  // share of the BM25-nearest examples that are this skill's
	"lex_knn_top",   // 1 when the BM25-nearest example is this skill's
	"has_history",   // 1 when the task has earlier turns
	"hist_rr",       // 1 / rank among the shortlist for the earlier turns
	"hist_bm25",     // earlier turns' BM25 / best in the shortlist
	"hist_dense",    // earlier turns' max cosine
	"hist_agent",    // best hist_rr among the candidate agent's skills: the topic carried over
	"bm25_z",        // BM25 standardised over the shortlist: the same in any catalog
	"dense_z",       // dense score standardised over the shortlist
	"desc_z",        // description cosine standardised over the shortlist
	"centroid_z",    // prototype cosine standardised over the shortlist
	"align",         // weighted best word-to-word cosine of each task word in the skill's text
	"align_label",   // ... of each name/tag word in the task: how much of the label is asked for
	"align_z",       // align standardised over the shortlist
	"align_label_z", // align_label standardised over the shortlist
	"lex_cover",     // weighted share of task words in the skill's text, themselves or a WordNet relative
	"lex_cover_z",   // lex_cover standardised over the shortlist
	"agent_rr",      // best 1 / fused rank of another skill of the candidate's agent: the topic it shares
	"agent_bm25",    // best BM25 / best in the shortlist of another skill of the candidate's agent
	"class_z",       // the catalog's example classifier's score standardised over the shortlist
	"class_top",     // 1 when that score is the shortlist's best and above 0
}

// NumFeatures is the length of a feature vector.
var NumFeatures = len(FeatureNames)

// Features computes the feature vector of every candidate of in.
func Features(in *Input) [][]float64 { return features(in, new([]float64)) }

// features is Features with its vectors in *buf (whatever it held),
// grown when too short, for a caller that reuses the memory.
func features(in *Input, buf *[]float64) [][]float64 {
	cands := in.Result.Candidates
	out := make([][]float64, len(cands))
	if len(cands) == 0 {
		return out
	}
	maxBM, best1, best2 := 0.0, -1.0, -1.0
	dense1, dense2 := float32(-2), float32(-2)
	for _, c := range cands {
		maxBM = max(maxBM, c.BM25)
		switch {
		case c.BM25 > best1:
			best1, best2 = c.BM25, best1
		case c.BM25 > best2:
			best2 = c.BM25
		}
		switch {
		case c.Dense > dense1:
			dense1, dense2 = c.Dense, dense1
		case c.Dense > dense2:
			dense2 = c.Dense
		}
	}
	maxEx := 0.0
	for _, c := range cands {
		maxEx = max(maxEx, c.ExampleBM25)
	}
	// A candidate's votes are summed where it is read (see vote), in
	// the neighbours' order as a map's running sums added them.
	total := 0.0
	for _, n := range in.Result.Neighbors {
		total += math.Max(float64(n.Sim), 0)
	}
	lexTotal := 0.0
	for _, n := range in.Result.LexNeighbors {
		lexTotal += float64(n.Sim)
	}
	terms, weights := uniqueTerms(in.Terms, in.Result.TermWeights)
	var set termSet
	hashed := set.fill(terms)
	wsum := 0.0
	for _, w := range weights {
		wsum += w
	}
	hist := newHistory(in.History)
	// One array holds every vector, and after them the standardised
	// scores' working rows: a shortlist's features are read together and
	// dropped together.
	n := len(cands)
	all := *buf
	if need := n*NumFeatures + 11*n; cap(all) < need {
		all = make([]float64, need)
		*buf = all
	}
	rows := all[n*NumFeatures : n*NumFeatures+11*n]
	row := func(k int) []float64 { return rows[k*n : (k+1)*n : (k+1)*n] }
	zs := [4][]float64{
		zscores(row(0), cands, func(c *index.Candidate) float64 { return c.BM25 }),
		zscores(row(1), cands, func(c *index.Candidate) float64 { return float64(c.Dense) }),
		zscores(row(2), cands, func(c *index.Candidate) float64 { return float64(c.DescSim) }),
		zscores(row(3), cands, func(c *index.Candidate) float64 { return float64(c.CentroidSim) }),
	}
	al := alignFeatures(rows[4*n:], cands)
	classZ := zscores(row(10), cands, func(c *index.Candidate) float64 { return float64(c.Class) })
	bestClass := -1
	for i, c := range cands {
		if c.Class > 0 && (bestClass < 0 || c.Class > cands[bestClass].Class) {
			bestClass = i
		}
	}
	agent := cands[0].Entry.AgentID
	single := 1.0
	for _, c := range cands {
		if c.Entry.AgentID != agent {
			single = 0
			break
		}
	}
	all = all[:n*NumFeatures]
	clear(all)
	for i, c := range cands {
		f := all[i*NumFeatures : (i+1)*NumFeatures : (i+1)*NumFeatures]
		f[0] = 1 / float64(c.FusedRank)
		if c.BM25Rank > 0 {
			f[1] = 1 / float64(c.BM25Rank)
		}
		if maxBM > 0 {
			f[2] = c.BM25 / maxBM
		}
		f[3] = math.Log1p(c.BM25)
		other := best1
		if c.BM25 == best1 {
			other = max(best2, 0)
		}
		f[4] = (c.BM25 - other) / (maxBM + 1)
		if c.DenseRank > 0 {
			f[5] = 1 / float64(c.DenseRank)
		}
		f[6] = float64(c.Dense)
		f[7] = float64(c.DescSim)
		f[8] = float64(c.ExampleSim)
		otherD := dense1
		if c.Dense == dense1 {
			otherD = dense2
		}
		if otherD > -2 {
			f[9] = float64(c.Dense - otherD)
		}
		if total > 0 {
			f[10] = vote(in.Result.Neighbors, c.Doc, true) / total
		}
		if n := in.Result.Neighbors; len(n) > 0 && n[0].Doc == c.Doc {
			f[11] = 1
		}
		if wsum > 0 {
			d := c.Entry
			var name, desc, ex, all, miss float64
			var nameBits, descBits, exBits uint64
			if hashed {
				nameBits = set.present(d.NameTerms) | set.present(d.TagTerms)
				descBits, exBits = set.present(d.DescTerms), set.present(d.ExampleTerms)
			}
			for j, t := range terms {
				w := weights[j] / wsum
				var inName, inDesc, inEx bool
				if hashed {
					bit := uint64(1) << j
					inName, inDesc, inEx = nameBits&bit != 0, descBits&bit != 0, exBits&bit != 0
				} else {
					inName = has(d.NameTerms, t) || has(d.TagTerms, t)
					inDesc = has(d.DescTerms, t)
					inEx = has(d.ExampleTerms, t)
				}
				if inName {
					name += w
				}
				if inDesc {
					desc += w
				}
				if inEx {
					ex += w
				}
				if inName || inDesc || inEx {
					all += w
				} else {
					miss += w
				}
			}
			f[12], f[13], f[14], f[15], f[16] = name, desc, ex, all, miss
		}
		f[17] = exactFormat(in.Req.InputTypes, c.Entry.InputModes, true)
		f[18] = exactFormat(in.Req.OutputTypes, c.Entry.OutputModes, false)
		f[19] = math.Log1p(float64(len(terms)))
		f[20] = single
		f[21] = float64(c.CentroidSim)
		f[22] = float64(c.CentroidSim - otherCen(cands, i))
		if maxEx > 0 {
			f[23] = c.ExampleBM25 / maxEx
		}
		f[24] = math.Log1p(c.ExampleBM25)
		if lexTotal > 0 {
			f[25] = vote(in.Result.LexNeighbors, c.Doc, false) / lexTotal
		}
		if n := in.Result.LexNeighbors; len(n) > 0 && n[0].Doc == c.Doc {
			f[26] = 1
		}
		historyFeatures(f[27:32], c, hist)
		f[32] = zs[0][i]
		f[33] = zs[1][i]
		f[34] = zs[2][i]
		f[35] = zs[3][i]
		f[36], f[37], f[38], f[39] = al[0][i], al[2][i], al[1][i], al[3][i]
		f[40], f[41] = al[4][i], al[5][i]
		f[42], f[43] = siblingSupport(cands, i, maxBM)
		f[44] = classZ[i]
		if i == bestClass {
			f[45] = 1
		}
		out[i] = f
	}
	return out
}

// siblingSupport is what the shortlist says of the candidate's agent
// through its other skills: the best 1 / fused rank and the best relative
// BM25 among them (0, 0 when none is shortlisted). A request may name its
// domain in words that a sibling's text holds ("four tickets to the
// concert" beside a card whose search skill finds concerts). A scan of
// the shortlist, not a map: a few dozen string compares.
func siblingSupport(cands []index.Candidate, i int, maxBM float64) (rr, bm float64) {
	agent := cands[i].Entry.AgentID
	for j := range cands {
		c := &cands[j]
		if j == i || c.Entry.AgentID != agent {
			continue
		}
		rr = max(rr, 1/float64(c.FusedRank))
		if maxBM > 0 {
			bm = max(bm, c.BM25/maxBM)
		}
	}
	return rr, bm
}

// vote is the sum of the similarities (clipped at 0 when clip) of the
// neighbours that are doc, added in the neighbours' order. A shortlist
// and its neighbours are a few dozen each: a scan, not a map.
func vote(ns []index.Neighbor, doc int, clip bool) float64 {
	v := 0.0
	for _, n := range ns {
		if n.Doc != doc {
			continue
		}
		if clip {
			v += math.Max(float64(n.Sim), 0)
		} else {
			v += float64(n.Sim)
		}
	}
	return v
}

// zscores standardises one score over the shortlist into dst (one per
// candidate): raw BM25 and cosine levels depend on the catalog's wording
// and size, a candidate's standing among its rivals much less. All zero
// when the scores do not vary.
func zscores(dst []float64, cands []index.Candidate, score func(*index.Candidate) float64) []float64 {
	dst = dst[:len(cands)]
	for i := range cands {
		dst[i] = score(&cands[i])
	}
	return standardiseInto(dst, dst)
}

// standardiseInto writes (v - mean) / sd of each value into out
// (len(vals) long, which may be vals itself); all zero for fewer than two
// values or values that do not vary.
func standardiseInto(out, vals []float64) []float64 {
	out = out[:len(vals)]
	if len(vals) < 2 {
		clear(out)
		return out
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= float64(len(vals))
	ss := 0.0
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(vals)))
	if sd < 1e-9 {
		clear(out)
		return out
	}
	for i, v := range vals {
		out[i] = (v - mean) / sd
	}
	return out
}

// history is what the earlier turns said of each shortlisted doc.
type history struct {
	byDoc map[int]*index.Candidate
	agent map[string]float64
	maxBM float64
}

func newHistory(r *index.Result) *history {
	if r == nil {
		return nil
	}
	h := &history{byDoc: make(map[int]*index.Candidate, len(r.Candidates)), agent: map[string]float64{}}
	for i := range r.Candidates {
		c := &r.Candidates[i]
		h.byDoc[c.Doc] = c
		h.maxBM = max(h.maxBM, c.BM25)
		h.agent[c.Entry.AgentID] = max(h.agent[c.Entry.AgentID], 1/float64(c.FusedRank))
	}
	return h
}

// historyFeatures fills has_history .. hist_agent; all zero without
// earlier turns.
func historyFeatures(f []float64, c index.Candidate, h *history) {
	if h == nil {
		return
	}
	f[0] = 1
	if hc, ok := h.byDoc[c.Doc]; ok {
		f[1] = 1 / float64(hc.FusedRank)
		if h.maxBM > 0 {
			f[2] = hc.BM25 / h.maxBM
		}
		f[3] = float64(hc.Dense)
	}
	f[4] = h.agent[c.Entry.AgentID]
}

// exactFormat is 1 when the skill names the wanted types without a
// wildcard (every one for inputs, any one for outputs), 0 otherwise or
// when nothing is wanted.
func exactFormat(wanted, offered []string, every bool) float64 {
	if len(wanted) == 0 {
		return 0
	}
	hits := 0
	for _, w := range wanted {
		if slices.ContainsFunc(offered, func(o string) bool { return strings.EqualFold(o, w) }) {
			hits++
		}
	}
	if (every && hits == len(wanted)) || (!every && hits > 0) {
		return 1
	}
	return 0
}

func uniqueTerms(terms []string, weights []float64) ([]string, []float64) {
	ts := make([]string, 0, len(terms))
	ws := make([]float64, 0, len(terms))
	for i, t := range terms {
		if slices.Contains(ts, t) {
			continue
		}
		w := 1.0
		if i < len(weights) {
			w = weights[i]
		}
		ts = append(ts, t)
		ws = append(ws, w)
	}
	return ts, ws
}

// termSet finds a request's terms (up to 64) in a skill's term sets: each
// of the skill's terms looks up the request terms of its length (one
// table read, the string's bytes untouched unless some term has its
// length) rather than each request term scanning the skill's terms (the
// scans were a twentieth of a decision at 1,000 skills). A candidate is
// confirmed by comparing the strings.
type termSet struct {
	terms []string
	// byLen[n] holds bit j when terms[j] is n bytes long (64: longer).
	byLen [65]uint64
}

// fill makes s the set of terms (distinct), false when there are more
// than 64 of them (the caller then scans with has).
func (s *termSet) fill(terms []string) bool {
	if len(terms) > 64 {
		return false
	}
	s.terms = terms
	for j, t := range terms {
		s.byLen[min(len(t), 64)] |= 1 << j
	}
	return true
}

// present returns the bits of the set's terms that list holds (bit j for
// terms[j]).
func (s *termSet) present(list []string) uint64 {
	var found uint64
	for _, t := range list {
		for m := s.byLen[min(len(t), 64)] &^ found; m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			if u := s.terms[j]; len(u) == len(t) && (len(t) == 0 || u[0] == t[0]) && u == t {
				found |= 1 << j
				break
			}
		}
	}
	return found
}

// has says whether the sorted set holds t. A skill's term sets are short
// (a name's, a description's): comparing t with each, which a length
// mismatch mostly settles, was twice as fast as a binary search of full
// string comparisons, up to a few dozen terms.
func has(sorted []string, t string) bool {
	if len(sorted) <= 32 {
		// The first byte settles most words of t's length without a
		// call to compare the rest (terms are never empty, but an empty
		// t is matched like any other string).
		for _, s := range sorted {
			if len(s) == len(t) && (len(t) == 0 || s[0] == t[0]) && s == t {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(sorted, t)
	return ok
}

// otherCen is the best centroid similarity among the other candidates.
func otherCen(cands []index.Candidate, i int) float32 {
	best := float32(-1)
	for j, c := range cands {
		if j != i && c.CentroidSim > best {
			best = c.CentroidSim
		}
	}
	if best < -0.5 {
		return cands[i].CentroidSim
	}
	return best
}
