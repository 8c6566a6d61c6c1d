//go:build amd64 && !purego

package quant

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel; tests switch it off to compare.
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func dotsAVX2(q *int16, codes *int8, n, chunks int, out *int32)

func dots(q []int16, codes []int8, stride int, out []int32) {
	if useAVX2 {
		dotsAVX2(&q[0], &codes[0], len(out), stride/lanes, &out[0])
		return
	}
	dotsGeneric(q, codes, stride, out)
}
