//go:build amd64 && !purego && !amd64.v3

package vector

// With GOAMD64=v3 the compiler fuses Cosine's multiply and add into one
// instruction (one rounding, not two), which this kernel does not: it is
// left out there so that Cosines stays bit for bit Cosine.
const accelerated = true

// dots4 writes, for each of n vectors of chunks×4 floats starting every
// stride bytes from vecs, the four partial sums Σ q[4j+k]·v[4j+k] (k = 0..3,
// j ascending) to lanes[4i+k].
//
//go:noescape
func dots4(q, vecs *float32, n, chunks, stride int, lanes *float32)

// dots4at is dots4 over n vectors anywhere in one array: vector i starts
// ids[i]·stride bytes after base.
//
//go:noescape
func dots4at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32)

// dots8at is dots4at eight vectors at a time; n must be a multiple of
// eight.
//
//go:noescape
func dots8at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32)

// dots8 is dots4 eight vectors at a time; n must be a multiple of eight.
//
//go:noescape
func dots8(q, vecs *float32, n, chunks, stride int, lanes *float32)
