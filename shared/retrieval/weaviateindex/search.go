package weaviateindex

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"

	"github.com/skillmatch/skillmatch/shared/retrieval/fusion"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// slack is how many results beyond the wanted ones each list fetches, so
// that float32 rounding and ties in Weaviate's order cannot push a doc of
// the exact top out of the fetched set.
func slack(want int) int { return 10 + want/10 }

// Search runs BM25 and nearVector in Weaviate over the allowed docs, takes
// each skill's best vector, and fuses both lists as index.Memory does.
func (x *Index) Search(ctx context.Context, q index.Query) (*index.Result, error) {
	q, n, err := index.Prepare(q, len(x.docs))
	if err != nil {
		return nil, err
	}
	allowed := func(d int) bool { return q.Allow == nil || q.Allow[d] }
	res := &index.Result{Allowed: n}
	if res.Allowed == 0 {
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	where := x.pushDown(q.Allow, res.Allowed)
	// How much deeper than wanted a list must go when the filter stays here.
	spread := 1.0
	if q.Allow != nil && where == nil {
		spread = float64(len(x.docs)) / float64(res.Allowed)
	}
	terms := searchable(q.Terms)
	dense := len(q.Vector) == x.dim

	var (
		wg                      sync.WaitGroup
		lexIDs, lexNb           []hit
		denseIDs                []hit
		neighbors               []index.Neighbor
		lexErr, nbErr, denseErr error
	)
	if len(terms) > 0 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			lexIDs, lexErr = x.lexical(ctx, x.skillCls, terms, q.Depth, spread, where, allowed,
				func(doc, _ int) int { return doc },
				func(id int) float64 { return x.lex.Score(q.Terms, id) })
		}()
		go func() {
			defer wg.Done()
			// The examples collection is fetched deeper: a skill has several.
			tspread := spread * float64(max(len(x.vs.Owner)-len(x.docs), 1)) / float64(max(len(x.docs), 1))
			lexNb, nbErr = x.lexical(ctx, x.textCls, terms, q.Neighbors, max(spread, tspread), where, allowed,
				func(doc, ex int) int { return int(x.vs.First[doc]) + 1 + ex },
				func(id int) float64 { return x.exLex.Score(q.Terms, id) })
		}()
	}
	if dense {
		wg.Add(1)
		go func() {
			defer wg.Done()
			denseIDs, neighbors, denseErr = x.dense(ctx, q.Vector, q.Depth, q.Neighbors, spread, where, allowed)
		}()
	}
	wg.Wait()
	for _, err := range []error{lexErr, nbErr, denseErr} {
		if err != nil {
			return nil, fmt.Errorf("weaviate index search: %w", x.heal(err))
		}
	}

	lexDocs := make([]int, len(lexIDs))
	for i, h := range lexIDs {
		lexDocs[i] = h.id
	}
	denseDocs := make([]int, len(denseIDs))
	for i, h := range denseIDs {
		denseDocs[i] = h.id
	}
	res.Neighbors = neighbors
	fused := fusion.RRF(q.K, lexDocs, denseDocs)
	if len(fused) > q.Shortlist {
		fused = fused[:q.Shortlist]
	}
	res.Candidates = make([]index.Candidate, len(fused))
	for i, f := range fused {
		c := index.Candidate{Doc: f.ID, Entry: &x.docs[f.ID], Fused: f.Score, FusedRank: i + 1,
			BM25Rank: f.Ranks[0], DenseRank: f.Ranks[1], BestExample: -1}
		if c.BM25Rank > 0 {
			c.BM25 = lexIDs[c.BM25Rank-1].score
		} else {
			c.BM25 = x.lex.Score(q.Terms, f.ID)
		}
		if dense {
			x.vs.Detail(q.Vector, &c)
		}
		for v := x.vs.First[c.Doc] + 1; v < x.vs.First[c.Doc+1]; v++ {
			c.ExampleBM25 = max(c.ExampleBM25, x.exLex.Score(q.Terms, int(v)))
		}
		res.Candidates[i] = c
	}
	for _, h := range lexNb {
		res.LexNeighbors = append(res.LexNeighbors, index.Neighbor{Doc: int(x.vs.Owner[h.id]), Sim: float32(h.score)})
	}
	res.TermWeights = make([]float64, len(q.Terms))
	for i, t := range q.Terms {
		res.TermWeights[i] = x.lex.IDF(t)
	}
	return res, nil
}

// searchable keeps the query terms an indexed term can equal: runs of
// letters and digits (what analyze.Terms yields). Others match nothing in
// either index, and Weaviate would split them.
func searchable(terms []string) []string {
	out := make([]string, 0, len(terms))
next:
	for _, t := range terms {
		if t == "" {
			continue
		}
		for _, r := range t {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				continue next
			}
		}
		out = append(out, t)
	}
	return out
}

type hit struct {
	id    int
	score float64
}

func sortHits(h []hit) {
	sort.Slice(h, func(i, j int) bool {
		if h[i].score != h[j].score {
			return h[i].score > h[j].score
		}
		return h[i].id < h[j].id
	})
}

// lexical runs Weaviate's BM25 on cls and returns the want best allowed
// ids, each rescored exactly by score, best first, ties by id (the order of
// bm25.Index.Search). Without a pushed-down filter the list is fetched
// deeper, growing until want allowed ids are found or the list ends.
func (x *Index) lexical(ctx context.Context, cls string, terms []string, want int, spread float64,
	where *filters.WhereBuilder, allowed func(int) bool, idOf func(doc, ex int) int, score func(int) float64,
) ([]hit, error) {
	query := strings.Join(terms, " ")
	limit := min(int(math.Ceil(float64(want+slack(want))*spread)), x.maxResult)
	for {
		rows, err := x.get(ctx, cls, limit, where, func(gb *graphql.GetBuilder) {
			gb.WithBM25(x.client.GraphQL().Bm25ArgBuilder().WithQuery(query).WithProperties("terms"))
		})
		if err != nil {
			return nil, err
		}
		seen := make(map[int]struct{}, len(rows))
		hits := make([]hit, 0, len(rows))
		for _, r := range rows {
			doc, ex := r.doc, r.example
			if doc < 0 || doc >= len(x.docs) || !allowed(doc) {
				continue
			}
			id := idOf(doc, ex)
			if _, dup := seen[id]; dup {
				continue
			}
			seen[id] = struct{}{}
			if s := score(id); s > 0 {
				hits = append(hits, hit{id, s})
			}
		}
		if len(hits) >= want || len(rows) < limit || limit >= x.maxResult {
			sortHits(hits)
			if len(hits) > want {
				hits = hits[:want]
			}
			return hits, nil
		}
		limit = min(limit*4, x.maxResult)
	}
}

// dense returns the want allowed docs with the best max cosine over their
// vectors (best first, ties by doc) and the nearest vectors. Weaviate finds
// the nearest description and example vectors; every doc it names is then
// scored exactly over all its vectors. A doc Weaviate did not name has no
// vector above the lowest similarity of a full list, so the docs scoring
// above that bound are in their true order; the lists grow until want of
// them are found or the lists end.
func (x *Index) dense(ctx context.Context, qv []float32, want, k int, spread float64,
	where *filters.WhereBuilder, allowed func(int) bool,
) ([]hit, []index.Neighbor, error) {
	if isZero(qv) {
		// Every cosine is 0: index.Memory keeps the first docs and vectors.
		var docs []hit
		var nb []index.Neighbor
		for d := range x.docs {
			if !allowed(d) {
				continue
			}
			if len(docs) < want {
				docs = append(docs, hit{d, 0})
			}
			for v := x.vs.First[d]; v < x.vs.First[d+1] && len(nb) < k; v++ {
				nb = append(nb, index.Neighbor{Doc: d, Sim: 0})
			}
		}
		return docs, nb, nil
	}
	texts := len(x.vs.Owner) - len(x.docs)
	perDoc := max(float64(texts)/float64(max(len(x.docs), 1)), 1)
	limD := min(int(math.Ceil(float64(want+slack(want))*spread)), x.maxResult)
	limT := min(int(math.Ceil(float64(want+slack(want))*spread*min(perDoc, 3))), x.maxResult)
	if texts == 0 {
		limT = 0
	}
	for {
		denseRounds.Add(1)
		var rowsD, rowsT []row
		var errD, errT error
		var wg sync.WaitGroup
		near := func(cls string, limit int, out *[]row, errp *error) {
			defer wg.Done()
			*out, *errp = x.get(ctx, cls, limit, where, func(gb *graphql.GetBuilder) {
				gb.WithNearVector(x.client.GraphQL().NearVectorArgBuilder().WithVector(qv).WithTargetVectors("text"))
			})
		}
		wg.Add(1)
		go near(x.skillCls, limD, &rowsD, &errD)
		if limT > 0 {
			wg.Add(1)
			go near(x.textCls, limT, &rowsT, &errT)
		}
		wg.Wait()
		if errD != nil {
			return nil, nil, errD
		}
		if errT != nil {
			return nil, nil, errT
		}
		// Every vector named, scored exactly, and the bound on the rest.
		vecSim := map[int]float32{}
		bound := float32(math.Inf(-1))
		take := func(rows []row, limit int, desc bool) {
			low := float32(math.Inf(1))
			for _, r := range rows {
				if r.doc < 0 || r.doc >= len(x.docs) {
					continue
				}
				v := int(x.vs.First[r.doc])
				if !desc {
					v += 1 + r.example
					if r.example < 0 || v >= int(x.vs.First[r.doc+1]) {
						continue
					}
				}
				s := vector.Cosine(qv, x.vs.Vec(v))
				low = min(low, s)
				if allowed(r.doc) {
					vecSim[v] = s
				}
			}
			if len(rows) >= limit && limit > 0 {
				bound = max(bound, low)
			}
		}
		take(rowsD, limD, true)
		take(rowsT, limT, false)
		docs := map[int]struct{}{}
		for v := range vecSim {
			docs[int(x.vs.Owner[v])] = struct{}{}
		}
		for _, d := range x.zero {
			if allowed(d) {
				docs[d] = struct{}{}
				for v := x.vs.First[d]; v < x.vs.First[d+1]; v++ {
					vecSim[int(v)] = vector.Cosine(qv, x.vs.Vec(int(v)))
				}
			}
		}
		hits := make([]hit, 0, len(docs))
		above := 0
		for d := range docs {
			b := float32(-2)
			for v := x.vs.First[d]; v < x.vs.First[d+1]; v++ {
				b = max(b, vector.Cosine(qv, x.vs.Vec(int(v))))
			}
			hits = append(hits, hit{d, float64(b)})
			if b > bound {
				above++
			}
		}
		fullD, fullT := len(rowsD) >= limD, limT > 0 && len(rowsT) >= limT
		capped := (!fullD || limD >= x.maxResult) && (!fullT || limT >= x.maxResult)
		if above >= want || (!fullD && !fullT) || capped {
			sortHits(hits)
			if len(hits) > want {
				hits = hits[:want]
			}
			return hits, neighborsOf(x, vecSim, k), nil
		}
		if fullD {
			limD = min(limD*4, x.maxResult)
		}
		if fullT {
			limT = min(limT*4, x.maxResult)
		}
	}
}

// neighborsOf returns the k best vectors, best first, ties by doc then
// vector (the order index.Memory reports).
func neighborsOf(x *Index, vecSim map[int]float32, k int) []index.Neighbor {
	type nv struct {
		v   int
		sim float32
	}
	all := make([]nv, 0, len(vecSim))
	for v, s := range vecSim {
		all = append(all, nv{v, s})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sim != all[j].sim {
			return all[i].sim > all[j].sim
		}
		return all[i].v < all[j].v
	})
	if len(all) > k {
		all = all[:k]
	}
	out := make([]index.Neighbor, len(all))
	for i, n := range all {
		out[i] = index.Neighbor{Doc: int(x.vs.Owner[n.v]), Sim: n.sim}
	}
	return out
}

// row is one object of a Get answer.
type row struct{ doc, example int }

// get runs a Get on cls with the search set by with, returning each
// object's docNo and exampleNo.
func (x *Index) get(ctx context.Context, cls string, limit int, where *filters.WhereBuilder,
	with func(*graphql.GetBuilder),
) ([]row, error) {
	var out []row
	err := x.retry(ctx, "get "+cls, func(ctx context.Context) error {
		gb := x.client.GraphQL().Get().WithClassName(cls).
			WithFields(graphql.Field{Name: "docNo"}, graphql.Field{Name: "exampleNo"}).WithLimit(limit)
		if where != nil {
			gb.WithWhere(where)
		}
		if x.tenant != "" {
			gb.WithTenant(x.tenant)
		}
		with(gb)
		resp, err := gb.Do(ctx)
		if err != nil {
			return err
		}
		if err := gqlErr(len(resp.Errors), func(i int) string { return resp.Errors[i].Message }); err != nil {
			return err
		}
		rs, err := rows(resp.Data, "Get", cls)
		if err != nil {
			return err
		}
		out = make([]row, 0, len(rs))
		for _, r := range rs {
			d, ok1 := r["docNo"].(float64)
			e, ok2 := r["exampleNo"].(float64)
			if !ok1 || !ok2 {
				return fmt.Errorf("%s: object without docNo/exampleNo: %v", cls, r)
			}
			out = append(out, row{int(d), int(e)})
		}
		return nil
	})
	return out, err
}

// pushDown returns a docNo filter expressing allow exactly, or nil when
// there is none to apply or it would be too large.
func (x *Index) pushDown(allow []bool, n int) *filters.WhereBuilder {
	if allow == nil || n == len(allow) {
		return nil
	}
	path := []string{"docNo"}
	if n <= x.cfg.PushDownMax {
		vals := make([]int64, 0, n)
		for d, ok := range allow {
			if ok {
				vals = append(vals, int64(d))
			}
		}
		return filters.Where().WithPath(path).WithOperator(filters.ContainsAny).WithValueInt(vals...)
	}
	var runs [][2]int
	for d := 0; d < len(allow); d++ {
		if !allow[d] {
			continue
		}
		lo := d
		for d+1 < len(allow) && allow[d+1] {
			d++
		}
		runs = append(runs, [2]int{lo, d})
		if len(runs) > x.cfg.PushDownRuns {
			return nil
		}
	}
	ops := make([]*filters.WhereBuilder, len(runs))
	for i, r := range runs {
		ops[i] = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			filters.Where().WithPath(path).WithOperator(filters.GreaterThanEqual).WithValueInt(int64(r[0])),
			filters.Where().WithPath(path).WithOperator(filters.LessThanEqual).WithValueInt(int64(r[1])),
		})
	}
	if len(ops) == 1 {
		return ops[0]
	}
	return filters.Where().WithOperator(filters.Or).WithOperands(ops)
}

// denseRounds counts the rounds of nearVector fetches (more than one per
// search means the lists had to grow); the benchmark reports it.
var denseRounds atomic.Int64
