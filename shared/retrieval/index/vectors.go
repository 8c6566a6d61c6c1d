package index

import (
	"fmt"
	"math"

	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Vectors holds every doc's vectors back to back (its description first,
// then its examples) and one prototype per doc. Both the memory and the
// Weaviate index keep it to compute the dense details of a candidate
// exactly the same way.
type Vectors struct {
	Dim  int
	Vecs []float32
	// Owner and Example say whose each vector is; Example is -1 for a
	// description vector.
	Owner   []int32
	Example []int32
	// First[d] is the index of doc d's first vector; First[len(docs)] is
	// the number of vectors.
	First []int32
	// Centroid holds each doc's prototype: the normalised mean of its
	// example vectors, or its description vector when it has none.
	Centroid []float32
}

// NewVectors makes room for docs with total vectors in all.
func NewVectors(dim, docs, total int) Vectors {
	return Vectors{
		Dim:      dim,
		Vecs:     make([]float32, 0, total*dim),
		Owner:    make([]int32, 0, total),
		Example:  make([]int32, 0, total),
		First:    make([]int32, docs+1),
		Centroid: make([]float32, 0, docs*dim),
	}
}

// newVectorsFor makes room for the vectors first numbers (First), to be
// filled by put in any order.
func newVectorsFor(dim int, first []int32) Vectors {
	total, docs := int(first[len(first)-1]), len(first)-1
	return Vectors{
		Dim:      dim,
		Vecs:     make([]float32, total*dim),
		Owner:    make([]int32, total),
		Example:  make([]int32, total),
		First:    first,
		Centroid: make([]float32, docs*dim),
	}
}

// put writes doc's vectors and prototype in their places (see
// newVectorsFor), as AddDoc computes them. Docs may be put concurrently.
func (vs *Vectors) put(doc int, desc []float32, examples [][]float32) {
	v := int(vs.First[doc])
	if n := int(vs.First[doc+1]) - v; n != 1+len(examples) {
		panic(fmt.Sprintf("index: doc %d has %d vectors, want %d", doc, 1+len(examples), n))
	}
	set := func(v int, x []float32) {
		if len(x) != vs.Dim {
			panic(fmt.Sprintf("index: embedder returned %d dims, want %d", len(x), vs.Dim))
		}
		copy(vs.Vecs[v*vs.Dim:(v+1)*vs.Dim], x)
	}
	set(v, desc)
	for j, x := range examples {
		set(v+1+j, x)
	}
	vs.placed(doc)
}

// placed fills in the owner, example numbers and prototype of doc, whose
// vectors are in their places (its description's, then its examples').
func (vs *Vectors) placed(doc int) {
	v, end := int(vs.First[doc]), int(vs.First[doc+1])
	vs.Owner[v], vs.Example[v] = int32(doc), -1
	cen := vs.Centroid[doc*vs.Dim : (doc+1)*vs.Dim]
	for j := 0; v+1+j < end; j++ {
		vs.Owner[v+1+j], vs.Example[v+1+j] = int32(doc), int32(j)
		x := vs.Vec(v + 1 + j)
		for k := range cen {
			cen[k] += x[k]
		}
	}
	if end-v == 1 {
		copy(cen, vs.Vec(v))
	}
	Normalize(cen)
}

// AddDoc appends doc's description vector and example vectors, in doc
// order, and its prototype.
func (vs *Vectors) AddDoc(doc int, desc []float32, examples [][]float32) {
	vs.First[doc] = int32(len(vs.Owner))
	vs.push(doc, -1, desc)
	cen := make([]float32, vs.Dim)
	for j, v := range examples {
		vs.push(doc, j, v)
		for k := range cen {
			cen[k] += v[k]
		}
	}
	if len(examples) == 0 {
		copy(cen, desc)
	}
	vs.Centroid = append(vs.Centroid, Normalize(cen)...)
	vs.First[doc+1] = int32(len(vs.Owner))
}

func (vs *Vectors) push(doc, example int, v []float32) {
	if len(v) != vs.Dim {
		panic(fmt.Sprintf("index: embedder returned %d dims, want %d", len(v), vs.Dim))
	}
	vs.Vecs = append(vs.Vecs, v...)
	vs.Owner = append(vs.Owner, int32(doc))
	vs.Example = append(vs.Example, int32(example))
}

// Vec returns vector v.
func (vs *Vectors) Vec(v int) []float32 { return vs.Vecs[v*vs.Dim : (v+1)*vs.Dim] }

// cosines fills sims with the cosines of qv and vectors v0, v0+1, ...
func (vs *Vectors) cosines(qv []float32, v0 int, sims []float32) {
	vector.Cosines(qv, vs.Vecs[v0*vs.Dim:(v0+len(sims))*vs.Dim], sims)
}

// Detail fills the dense fields of one candidate: the best cosine over its
// vectors, the description and best example cosines, and the prototype's.
func (vs *Vectors) Detail(qv []float32, c *Candidate) {
	c.Dense = -2
	c.ExampleSim = -1
	v0, v1 := int(vs.First[c.Doc]), int(vs.First[c.Doc+1])
	var buf [8]float32 // a skill's vectors: its description and a few examples
	sims := buf[:]
	if v1-v0 > len(buf) {
		sims = make([]float32, v1-v0)
	}
	vs.cosines(qv, v0, sims[:v1-v0])
	for v := v0; v < v1; v++ {
		s := sims[v-v0]
		if s > c.Dense {
			c.Dense = s
		}
		if ex := vs.Example[v]; ex < 0 {
			c.DescSim = s
		} else if s > c.ExampleSim {
			c.ExampleSim, c.BestExample = s, int(ex)
		}
	}
	if c.ExampleSim < 0 {
		c.ExampleSim = c.DescSim
	}
	c.CentroidSim = vector.Cosine(qv, vs.Centroid[c.Doc*vs.Dim:(c.Doc+1)*vs.Dim])
}

// Normalize scales v to unit length in place (the zero vector stays zero)
// and returns it.
func Normalize(v []float32) []float32 {
	var n float32
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return v
	}
	inv := 1 / float32(math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= inv
	}
	return v
}
