//go:build amd64 && !purego && !amd64.v3

package vecfile

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernel on CPUs that have it. With
// GOAMD64=v3 the compiler fuses the generic loop's multiply and add
// into one instruction (one rounding, not two), which the kernel does
// not: it is left out there so that both give the same floats.
var useAVX2 = cpu.X86.HasAVX2

// addPairs6AVX2 does addScaled6Generic for pairs×2 groups of codes, eight
// floats a step; it reads 8 bytes at each group pair, 2 past the pair.
//
//go:noescape
func addPairs6AVX2(acc *float32, row *byte, pairs int, f float32)

// addScaled6 is addScaled6Generic. Embedding a text adds up one row per
// word, and unpacking the codes one by one was a seventh of an index build.
func addScaled6(acc []float32, row string, f float32) {
	groups := 0
	if useAVX2 && len(row) >= 8 {
		// Every pair whose 8-byte read stays in the row: 6p+8 ≤ len.
		pairs := (len(row) - 2) / 6
		addPairs6AVX2(&acc[0], unsafe.StringData(row), pairs, f)
		groups = 2 * pairs
	}
	addScaled6Generic(acc[4*groups:], row[3*groups:], f)
}
