//go:build amd64 && !purego

#include "textflag.h"

// func dotsAVX2(q *int16, codes *int8, n, chunks int, out *int32)
//
// For each of n vectors of chunks×16 int8 codes (back to back), out[i] =
// Σ q[j]·code[j]: each step sign-extends 16 codes to int16 (VPMOVSXBW) and
// multiplies them with 16 query entries, adding pairs into eight int32
// lanes (VPMADDWD). Four vectors go through the loop together so that one
// horizontal reduction serves four sums.
TEXT ·dotsAVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ codes+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ chunks+24(FP), BX
	MOVQ out+32(FP), DX
	MOVQ BX, R8
	SHLQ $4, R8               // stride in bytes
	LEAQ (R8)(R8*2), R9       // three strides

loop4:
	CMPQ CX, $4
	JLT  tail
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ BX, R12

inner4:
	VMOVDQU   (R10), Y8
	VPMOVSXBW (R11), Y4
	VPMOVSXBW (R11)(R8*1), Y5
	VPMOVSXBW (R11)(R8*2), Y6
	VPMOVSXBW (R11)(R9*1), Y7
	VPMADDWD  Y8, Y4, Y4
	VPMADDWD  Y8, Y5, Y5
	VPMADDWD  Y8, Y6, Y6
	VPMADDWD  Y8, Y7, Y7
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	VPADDD    Y6, Y2, Y2
	VPADDD    Y7, Y3, Y3
	ADDQ      $32, R10
	ADDQ      $16, R11
	DECQ      R12
	JNZ       inner4

	// Per 128-bit lane: [a0+a1, a2+a3, b0+b1, b2+b3], then [a, b, c, d]
	// partial sums; adding the two lanes finishes them.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VMOVDQU      X0, (DX)
	ADDQ         $16, DX
	LEAQ         (DI)(R8*4), DI
	SUBQ         $4, CX
	JMP          loop4

tail:
	TESTQ CX, CX
	JZ    done

tail1:
	VPXOR Y0, Y0, Y0
	MOVQ  SI, R10
	MOVQ  DI, R11
	MOVQ  BX, R12

inner1:
	VMOVDQU   (R10), Y8
	VPMOVSXBW (R11), Y4
	VPMADDWD  Y8, Y4, Y4
	VPADDD    Y4, Y0, Y0
	ADDQ      $32, R10
	ADDQ      $16, R11
	DECQ      R12
	JNZ       inner1

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPHADDD      X0, X0, X0
	VPHADDD      X0, X0, X0
	VMOVD        X0, (DX)
	ADDQ         $4, DX
	ADDQ         R8, DI
	DECQ         CX
	JNZ          tail1

done:
	VZEROUPPER
	RET
