package index

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// randomVectors builds docs of 1 to 4 unit vectors around a few shared
// directions, so that many scores crowd near the top as on real catalogs.
func randomVectors(r *rand.Rand, docs, dim int, shape string) Vectors {
	centers := make([][]float32, 8)
	for i := range centers {
		centers[i] = randomUnit(r, dim)
	}
	per := make([]int, docs)
	total := 0
	for i := range per {
		per[i] = 1 + r.IntN(4)
		total += per[i]
	}
	vs := NewVectors(dim, docs, total)
	for d := range docs {
		vecs := make([][]float32, per[d])
		for j := range vecs {
			v := make([]float32, dim)
			switch shape {
			case "zero":
			case "ties": // every doc repeats one of four vectors
				copy(v, centers[(d+j)%4])
			default:
				c := centers[r.IntN(len(centers))]
				for i := range v {
					v[i] = c[i] + 0.3*float32(r.NormFloat64())/float32(math.Sqrt(float64(dim)))
				}
				Normalize(v)
			}
			vecs[j] = v
		}
		vs.AddDoc(d, vecs[0], vecs[1:])
	}
	return vs
}

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalize(v)
}

// reference sorts every allowed doc and vector by exact score.
func reference(vs *Vectors, qv []float32, allow []bool, depth, k int) ([]int, []Neighbor) {
	var docs []scored
	var near []scored
	for d := range len(vs.First) - 1 {
		if allow != nil && !allow[d] {
			continue
		}
		b := float32(math.Inf(-1))
		for v := vs.First[d]; v < vs.First[d+1]; v++ {
			s := vector.Cosine(qv, vs.Vec(int(v)))
			b = max(b, s)
			near = append(near, scored{d, s})
		}
		docs = append(docs, scored{d, b})
	}
	less := func(a []scored) func(i, j int) bool { return func(i, j int) bool { return better(a[i], a[j]) } }
	sort.SliceStable(docs, less(docs))
	sort.SliceStable(near, less(near))
	ids := []int{}
	for _, e := range docs[:min(depth, len(docs))] {
		ids = append(ids, e.doc)
	}
	ns := []Neighbor{}
	for _, e := range near[:min(k, len(near))] {
		ns = append(ns, Neighbor{e.doc, e.s})
	}
	return ids, ns
}

func TestDenseIsExact(t *testing.T) {
	tests := []struct {
		name            string
		docs, dim       int
		shape           string
		allow           string
		depth, k        int
		zeroQuery       bool
		wantQuantizable bool
	}{
		{name: "clustered, 100 dims", docs: 3000, dim: 100, depth: 100, k: 10, wantQuantizable: true},
		{name: "dims not a multiple of 16", docs: 2000, dim: 17, depth: 50, k: 20, wantQuantizable: true},
		{name: "three dims", docs: 2000, dim: 3, depth: 100, k: 10, wantQuantizable: true},
		{name: "ties everywhere", docs: 2000, dim: 100, shape: "ties", depth: 100, k: 10, wantQuantizable: true},
		{name: "zero vectors", docs: 1500, dim: 100, shape: "zero", depth: 20, k: 5, wantQuantizable: true},
		{name: "zero query", docs: 1500, dim: 100, depth: 20, k: 5, zeroQuery: true, wantQuantizable: true},
		{name: "half allowed", docs: 3000, dim: 100, allow: "half", depth: 100, k: 10, wantQuantizable: true},
		{name: "runs allowed", docs: 3000, dim: 100, allow: "runs", depth: 100, k: 10, wantQuantizable: true},
		{name: "runs allowed, split across goroutines", docs: 20000, dim: 32, allow: "runs", depth: 100, k: 10, wantQuantizable: true},
		{name: "few allowed", docs: 3000, dim: 100, allow: "few", depth: 20, k: 1},
		{name: "none allowed", docs: 3000, dim: 100, allow: "none", depth: 20, k: 1},
		{name: "depth beyond the catalog", docs: 30, dim: 100, depth: 100, k: 500},
		{name: "no neighbours asked", docs: 2000, dim: 100, depth: 100, k: 0, wantQuantizable: true},
		{name: "nothing asked", docs: 2000, dim: 100, depth: 0, k: 0, wantQuantizable: true},
		{name: "one doc", docs: 1, dim: 100, depth: 100, k: 10},
		{name: "empty catalog", docs: 0, dim: 100, depth: 100, k: 10},
		{name: "split across goroutines", docs: 20000, dim: 32, depth: 100, k: 10, wantQuantizable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tt.docs), uint64(tt.dim)))
			vs := randomVectors(r, tt.docs, tt.dim, tt.shape)
			d := NewDense(&vs, 2)
			var allow []bool
			allowed := tt.docs
			if tt.allow != "" {
				allow = make([]bool, tt.docs)
				allowed = 0
				for i := range allow {
					// runs: agents of 10 docs, a third of them filtered out.
					allow[i] = tt.allow == "half" && i%2 == 0 || tt.allow == "few" && i%500 == 7 ||
						tt.allow == "runs" && (i/10)%3 != 1
					if allow[i] {
						allowed++
					}
				}
			}
			if tt.name == "split across goroutines" && len(vs.Owner) < parallelMinVectors {
				t.Fatalf("%d vectors: too few to split", len(vs.Owner))
			}
			if tt.wantQuantizable != (allowed*len(vs.Owner)/max(tt.docs, 1) >= quantMinVectors) {
				t.Fatalf("the case does not exercise the path it names (%d vectors allowed)", allowed*len(vs.Owner)/max(tt.docs, 1))
			}
			for i := range 20 {
				qv := randomUnit(r, tt.dim)
				if tt.zeroQuery {
					qv = make([]float32, tt.dim)
				}
				if i == 1 && tt.docs > 0 { // a query equal to a stored vector
					qv = slices.Clone(vs.Vec(r.IntN(len(vs.Owner))))
				}
				wantDocs, wantNear := reference(&vs, qv, allow, tt.depth, tt.k)
				for name, f := range map[string]func() ([]int, []Neighbor){
					"exact":     func() ([]int, []Neighbor) { return d.Exact(qv, allow, tt.depth, tt.k) },
					"quantized": func() ([]int, []Neighbor) { return d.quantized(qv, allow, tt.depth, tt.k) },
					"search":    func() ([]int, []Neighbor) { return d.Search(qv, allow, allowed, tt.depth, tt.k) },
				} {
					if tt.docs == 0 && name == "quantized" {
						continue
					}
					gotDocs, gotNear := f()
					if len(gotDocs)+len(wantDocs) > 0 && !slices.Equal(gotDocs, wantDocs) {
						t.Fatalf("query %d, %s: docs\n%v\nwant\n%v", i, name, gotDocs, wantDocs)
					}
					if len(gotNear)+len(wantNear) > 0 && !slices.Equal(gotNear, wantNear) {
						t.Fatalf("query %d, %s: neighbours\n%v\nwant\n%v", i, name, gotNear, wantNear)
					}
				}
			}
		})
	}
}

// The first pass must rule out most docs, or it costs more than it saves.
func TestDenseFirstPassPrunes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	vs := randomVectors(r, 20000, 100, "")
	d := NewDense(&vs, 1)
	q := d.codes.Query(randomUnit(r, 100))
	var p part
	p.reset(100, 10)
	d.firstPass(q, nil, 0, 20000, &p)
	if len(p.docs) > 2000 || len(p.vecs) > 2000 {
		t.Errorf("first pass kept %d docs and %d vectors of 20,000 docs; want ≤ 2,000 each", len(p.docs), len(p.vecs))
	}
	t.Logf("first pass kept %d docs and %d vectors of 20,000 docs", len(p.docs), len(p.vecs))
}

// BenchmarkDense compares the quantized search with the exact scan on
// clustered random vectors (2.5 a doc, 100 dimensions), depth 100, k 10:
//
//	go test -run '^$' -bench Dense ./shared/retrieval/index/
func BenchmarkDense(b *testing.B) {
	for _, docs := range []int{300, 1000, 10000, 100000} {
		r := rand.New(rand.NewPCG(uint64(docs), 1))
		vs := randomVectors(r, docs, 100, "")
		d := NewDense(&vs, 2)
		queries := make([][]float32, 64)
		for i := range queries {
			queries[i] = randomUnit(r, 100)
		}
		for _, m := range []struct {
			name   string
			search func(qv []float32) ([]int, []Neighbor)
		}{
			{"search", func(qv []float32) ([]int, []Neighbor) { return d.Search(qv, nil, docs, 100, 10) }},
			{"exact", func(qv []float32) ([]int, []Neighbor) { return d.Exact(qv, nil, 100, 10) }},
		} {
			b.Run(fmt.Sprintf("docs=%d/%s", docs, m.name), func(b *testing.B) {
				i := 0
				for b.Loop() {
					m.search(queries[i%len(queries)])
					i++
				}
			})
		}
	}
}

// sortByBound orders bounds as a comparison sort by cmp.Compare does, up
// to the order of equal bounds, and gives every bound back bit for bit:
// zeros of both signs, infinities, NaN (last), subnormals.
func TestSortByBound(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	odd := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 1e-45, -1e-45, math.MaxFloat32, -math.MaxFloat32, 0.5}
	var keys []uint64
	for n := range 300 {
		bs := make([]bound, n)
		for i := range bs {
			bs[i] = bound{id: int32(r.IntN(1 << 20)), up: float32(r.NormFloat64())}
			if r.IntN(4) == 0 {
				bs[i].up = odd[r.IntN(len(odd))]
			}
		}
		want := slices.Clone(bs)
		slices.SortStableFunc(want, func(a, b bound) int { return cmp.Compare(b.up, a.up) })
		got := slices.Clone(bs)
		keys = sortByBound(got, keys)
		for i := range got {
			g, w := got[i].up, want[i].up
			if cmp.Compare(g, w) != 0 {
				t.Fatalf("%d bounds: place %d holds %v, want %v", n, i, g, w)
			}
		}
		bits := func(bs []bound) []uint64 {
			var out []uint64
			for _, b := range bs {
				u := math.Float32bits(b.up)
				if b.up != b.up {
					u = 0x7fc00000 // any NaN
				}
				out = append(out, uint64(u)<<32|uint64(uint32(b.id)))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(bits(got), bits(bs)) {
			t.Fatalf("%d bounds: the sorted bounds are not the bounds given", n)
		}
	}
}
