//go:build !amd64 || purego || amd64.v3

package vector

const accelerated = false

func dots4(q, vecs *float32, n, chunks, stride int, lanes *float32) {
	panic("vector: no kernel")
}

func dots4at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32) {
	panic("vector: no kernel")
}

func dots8at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32) {
	panic("vector: no kernel")
}

func dots8(q, vecs *float32, n, chunks, stride int, lanes *float32) {
	panic("vector: no kernel")
}
