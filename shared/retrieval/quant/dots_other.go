//go:build !amd64 || purego

package quant

var useAVX2 = false

func dots(q []int16, codes []int8, stride int, out []int32) { dotsGeneric(q, codes, stride, out) }
