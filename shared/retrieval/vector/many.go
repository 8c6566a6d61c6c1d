package vector

import "fmt"

// Cosines sets out[i] to Cosine(q, vecs[i·len(q):(i+1)·len(q)]) for every
// i < len(out), bit for bit: it adds the same products in the same order
// into the same four partial sums, only several vectors at a time, so
// that their sums' chains of additions overlap instead of each waiting on
// its own (the four-accumulator loop of one Cosine is bound by the
// latency of its additions, not by the arithmetic). Retrieval and the
// reranker's word alignment compare one vector with many; a vector of
// different length is a programming error and makes Cosines panic.
func Cosines(q, vecs, out []float32) {
	dim := len(q)
	if len(vecs) != len(out)*dim {
		panic(fmt.Sprintf("vector: Cosines of %d floats as vectors of length %d into %d results", len(vecs), dim, len(out)))
	}
	if len(out) == 0 {
		return
	}
	body := dim &^ 3
	if body == 0 || !accelerated {
		for i := range out {
			out[i] = Cosine(q, vecs[i*dim:(i+1)*dim])
		}
		return
	}
	// The kernel writes each vector's four partial sums over the first
	// body components; the last dim%4 products are added to the first
	// sum after them and the sums combined as Cosine does.
	var lanes [4 * batch]float32
	for lo := 0; lo < len(out); lo += batch {
		n := min(batch, len(out)-lo)
		n8 := n &^ 7 // eight chains at a time, as CosinesAt
		if n8 > 0 {
			dots8(&q[0], &vecs[lo*dim], n8, body/4, dim*4, &lanes[0])
		}
		if n > n8 {
			dots4(&q[0], &vecs[(lo+n8)*dim], n-n8, body/4, dim*4, &lanes[4*n8])
		}
		for i := range n {
			out[lo+i] = finish(q, vecs[(lo+i)*dim:(lo+i+1)*dim], lanes[4*i:4*i+4:4*i+4], body)
		}
	}
}

// CosinesAt sets out[i] to Cosine(q, vecs[ids[i]·len(q):(ids[i]+1)·len(q)])
// for every i < len(out), bit for bit, as Cosines does for vectors
// scattered in one array: a shortlist's vectors, a request's words. An id
// outside vecs makes it panic.
func CosinesAt(q, vecs []float32, ids []int32, out []float32) {
	dim := len(q)
	if len(ids) != len(out) || dim == 0 || len(vecs)%dim != 0 {
		panic(fmt.Sprintf("vector: CosinesAt of %d ids into %d results over %d floats as vectors of length %d", len(ids), len(out), len(vecs), dim))
	}
	n := len(vecs) / dim
	for _, id := range ids {
		if id < 0 || int(id) >= n {
			panic(fmt.Sprintf("vector: CosinesAt: vector %d of %d", id, n))
		}
	}
	body := dim &^ 3
	if body == 0 || !accelerated {
		for i, id := range ids {
			out[i] = Cosine(q, vecs[int(id)*dim:(int(id)+1)*dim])
		}
		return
	}
	var lanes [4 * batch]float32
	for lo := 0; lo < len(out); lo += batch {
		k := min(batch, len(out)-lo)
		// Eight chains at a time, then four, then one: each waits on
		// its additions, so the more side by side the better.
		k8 := k &^ 7
		if k8 > 0 {
			dots8at(&q[0], &vecs[0], &ids[lo], k8, body/4, dim*4, &lanes[0])
		}
		if k > k8 {
			dots4at(&q[0], &vecs[0], &ids[lo+k8], k-k8, body/4, dim*4, &lanes[4*k8])
		}
		for i := range k {
			id := int(ids[lo+i])
			out[lo+i] = finish(q, vecs[id*dim:(id+1)*dim], lanes[4*i:4*i+4:4*i+4], body)
		}
	}
}

// finish is Cosine of q and v from the kernel's four partial sums s over
// their first body components: the last products are added to the first
// sum and the sums combined as Cosine does, in the same order.
func finish(q, v, s []float32, body int) float32 {
	s0 := s[0]
	for j := body; j < len(q); j++ {
		s0 += q[j] * v[j]
	}
	return (s0 + s[1]) + (s[2] + s[3])
}

// batch is how many vectors one kernel call handles: their partial sums
// stay on the stack.
const batch = 64
