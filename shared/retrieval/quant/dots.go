package quant

// Dots sets out[i] to the dot product of q with codes[i·stride:(i+1)·stride]
// for every i < len(out); q has stride entries and stride is a multiple of
// 16. The sums are exact (integers), so the assembly kernel and the
// portable loop agree bit for bit.
func Dots(q []int16, codes []int8, stride int, out []int32) {
	if len(out) == 0 {
		return
	}
	if stride%lanes != 0 || len(q) < stride || len(codes) < len(out)*stride {
		panic("quant: Dots: bad lengths")
	}
	if stride == 0 {
		clear(out)
		return
	}
	dots(q, codes, stride, out)
}

// Accelerated reports whether Dots runs the assembly kernel. The portable
// loop is slower than a float32 dot product, so without it a caller scores
// in float32 directly.
func Accelerated() bool { return useAVX2 }

// dotsGeneric is the portable kernel.
func dotsGeneric(q []int16, codes []int8, stride int, out []int32) {
	q = q[:stride]
	for i := range out {
		c := codes[i*stride : (i+1)*stride]
		c = c[:len(q)]
		var s0, s1, s2, s3 int32
		for j := 0; j < len(q); j += 4 {
			s0 += int32(q[j]) * int32(c[j])
			s1 += int32(q[j+1]) * int32(c[j+1])
			s2 += int32(q[j+2]) * int32(c[j+2])
			s3 += int32(q[j+3]) * int32(c[j+3])
		}
		out[i] = (s0 + s1) + (s2 + s3)
	}
}
