//go:build amd64 && !purego && !amd64.v3

#include "textflag.h"

// func dots4(q, vecs *float32, n, chunks, stride int, lanes *float32)
//
// SSE (the amd64 baseline): lane k of an accumulator adds q[4j+k]·v[4j+k]
// for j ascending, a multiply then an add each rounded to float32, exactly
// as Cosine's partial sum s_k does. Four vectors go through the loop
// together, their accumulators independent chains.
TEXT ·dots4(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ vecs+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ chunks+24(FP), BX
	MOVQ stride+32(FP), R8
	MOVQ lanes+40(FP), DX
	LEAQ (R8)(R8*2), R9       // three strides

loop4:
	CMPQ CX, $4
	JLT  tail
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVQ  SI, R10
	MOVQ  DI, R11
	MOVQ  BX, R12

inner4:
	MOVUPS (R10), X8
	MOVUPS (R11), X4
	MOVUPS (R11)(R8*1), X5
	MOVUPS (R11)(R8*2), X6
	MOVUPS (R11)(R9*1), X7
	MULPS  X8, X4
	MULPS  X8, X5
	MULPS  X8, X6
	MULPS  X8, X7
	ADDPS  X4, X0
	ADDPS  X5, X1
	ADDPS  X6, X2
	ADDPS  X7, X3
	ADDQ   $16, R10
	ADDQ   $16, R11
	DECQ   R12
	JNZ    inner4

	MOVUPS X0, (DX)
	MOVUPS X1, 16(DX)
	MOVUPS X2, 32(DX)
	MOVUPS X3, 48(DX)
	ADDQ   $64, DX
	LEAQ   (DI)(R8*4), DI
	SUBQ   $4, CX
	JMP    loop4

tail:
	TESTQ CX, CX
	JZ    done

tail1:
	XORPS X0, X0
	MOVQ  SI, R10
	MOVQ  DI, R11
	MOVQ  BX, R12

inner1:
	MOVUPS (R10), X8
	MOVUPS (R11), X4
	MULPS  X8, X4
	ADDPS  X4, X0
	ADDQ   $16, R10
	ADDQ   $16, R11
	DECQ   R12
	JNZ    inner1

	MOVUPS X0, (DX)
	ADDQ   $16, DX
	ADDQ   R8, DI
	DECQ   CX
	JNZ    tail1

done:
	RET

// func dots4at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32)
//
// dots4 over n vectors anywhere in one array: vector i starts
// ids[i]·stride bytes after base.
TEXT ·dots4at(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ base+8(FP), DI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ chunks+32(FP), BX
	MOVQ stride+40(FP), R9
	MOVQ lanes+48(FP), DX

at4:
	CMPQ    CX, $4
	JLT     attail
	MOVLQSX 0(R8), R10
	IMULQ   R9, R10
	ADDQ    DI, R10
	MOVLQSX 4(R8), R11
	IMULQ   R9, R11
	ADDQ    DI, R11
	MOVLQSX 8(R8), R12
	IMULQ   R9, R12
	ADDQ    DI, R12
	MOVLQSX 12(R8), R13
	IMULQ   R9, R13
	ADDQ    DI, R13
	XORPS   X0, X0
	XORPS   X1, X1
	XORPS   X2, X2
	XORPS   X3, X3
	MOVQ    SI, AX
	MOVQ    BX, R14

atinner4:
	MOVUPS (AX), X8
	MOVUPS (R10), X4
	MOVUPS (R11), X5
	MOVUPS (R12), X6
	MOVUPS (R13), X7
	MULPS  X8, X4
	MULPS  X8, X5
	MULPS  X8, X6
	MULPS  X8, X7
	ADDPS  X4, X0
	ADDPS  X5, X1
	ADDPS  X6, X2
	ADDPS  X7, X3
	ADDQ   $16, AX
	ADDQ   $16, R10
	ADDQ   $16, R11
	ADDQ   $16, R12
	ADDQ   $16, R13
	DECQ   R14
	JNZ    atinner4

	MOVUPS X0, (DX)
	MOVUPS X1, 16(DX)
	MOVUPS X2, 32(DX)
	MOVUPS X3, 48(DX)
	ADDQ   $64, DX
	ADDQ   $16, R8
	SUBQ   $4, CX
	JMP    at4

attail:
	TESTQ CX, CX
	JZ    atdone

attail1:
	MOVLQSX (R8), R10
	IMULQ   R9, R10
	ADDQ    DI, R10
	XORPS   X0, X0
	MOVQ    SI, AX
	MOVQ    BX, R14

atinner1:
	MOVUPS (AX), X8
	MOVUPS (R10), X4
	MULPS  X8, X4
	ADDPS  X4, X0
	ADDQ   $16, AX
	ADDQ   $16, R10
	DECQ   R14
	JNZ    atinner1

	MOVUPS X0, (DX)
	ADDQ   $16, DX
	ADDQ   $4, R8
	DECQ   CX
	JNZ    attail1

atdone:
	RET

// func dots8at(q, base *float32, ids *int32, n, chunks, stride int, lanes *float32)
//
// dots4at eight vectors at a time (n a multiple of eight): eight
// independent chains instead of four, each lane's products added in the
// same order. The vectors are addressed from their starts by one offset.
TEXT ·dots8at(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ ids+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ chunks+32(FP), R12
	SHLQ $4, R12              // bytes per vector's body
	MOVQ lanes+48(FP), R15

at8:
	CMPQ    R9, $8
	JLT     at8done
	MOVQ    base+8(FP), AX
	MOVLQSX 0(R8), BX
	IMULQ   stride+40(FP), BX
	ADDQ    AX, BX
	MOVLQSX 4(R8), CX
	IMULQ   stride+40(FP), CX
	ADDQ    AX, CX
	MOVLQSX 8(R8), DX
	IMULQ   stride+40(FP), DX
	ADDQ    AX, DX
	MOVLQSX 12(R8), DI
	IMULQ   stride+40(FP), DI
	ADDQ    AX, DI
	MOVLQSX 16(R8), R10
	IMULQ   stride+40(FP), R10
	ADDQ    AX, R10
	MOVLQSX 20(R8), R11
	IMULQ   stride+40(FP), R11
	ADDQ    AX, R11
	MOVLQSX 24(R8), R13
	IMULQ   stride+40(FP), R13
	ADDQ    AX, R13
	MOVLQSX 28(R8), R14
	IMULQ   stride+40(FP), R14
	ADDQ    AX, R14
	XORPS   X0, X0
	XORPS   X1, X1
	XORPS   X2, X2
	XORPS   X3, X3
	XORPS   X4, X4
	XORPS   X5, X5
	XORPS   X6, X6
	XORPS   X7, X7
	XORQ    AX, AX

at8inner:
	MOVUPS (SI)(AX*1), X8
	MOVUPS (BX)(AX*1), X9
	MOVUPS (CX)(AX*1), X10
	MOVUPS (DX)(AX*1), X11
	MOVUPS (DI)(AX*1), X12
	MULPS  X8, X9
	MULPS  X8, X10
	MULPS  X8, X11
	MULPS  X8, X12
	ADDPS  X9, X0
	ADDPS  X10, X1
	ADDPS  X11, X2
	ADDPS  X12, X3
	MOVUPS (R10)(AX*1), X13
	MOVUPS (R11)(AX*1), X14
	MOVUPS (R13)(AX*1), X15
	MOVUPS (R14)(AX*1), X9
	MULPS  X8, X13
	MULPS  X8, X14
	MULPS  X8, X15
	MULPS  X8, X9
	ADDPS  X13, X4
	ADDPS  X14, X5
	ADDPS  X15, X6
	ADDPS  X9, X7
	ADDQ   $16, AX
	CMPQ   AX, R12
	JLT    at8inner

	MOVUPS X0, (R15)
	MOVUPS X1, 16(R15)
	MOVUPS X2, 32(R15)
	MOVUPS X3, 48(R15)
	MOVUPS X4, 64(R15)
	MOVUPS X5, 80(R15)
	MOVUPS X6, 96(R15)
	MOVUPS X7, 112(R15)
	ADDQ   $128, R15
	ADDQ   $32, R8
	SUBQ   $8, R9
	JMP    at8

at8done:
	RET

// func dots8(q, vecs *float32, n, chunks, stride int, lanes *float32)
//
// dots4 eight vectors at a time (n a multiple of eight), as dots8at.
TEXT ·dots8(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ n+16(FP), R9
	MOVQ chunks+24(FP), R12
	SHLQ $4, R12              // bytes per vector's body
	MOVQ lanes+40(FP), R15

d8:
	CMPQ R9, $8
	JLT  d8done
	MOVQ vecs+8(FP), BX
	MOVQ stride+32(FP), AX
	LEAQ (BX)(AX*1), CX
	LEAQ (CX)(AX*1), DX
	LEAQ (DX)(AX*1), DI
	LEAQ (DI)(AX*1), R10
	LEAQ (R10)(AX*1), R11
	LEAQ (R11)(AX*1), R13
	LEAQ (R13)(AX*1), R14
	LEAQ (R14)(AX*1), AX
	MOVQ AX, vecs+8(FP)       // the next eight
	XORPS   X0, X0
	XORPS   X1, X1
	XORPS   X2, X2
	XORPS   X3, X3
	XORPS   X4, X4
	XORPS   X5, X5
	XORPS   X6, X6
	XORPS   X7, X7
	XORQ    AX, AX

d8inner:
	MOVUPS (SI)(AX*1), X8
	MOVUPS (BX)(AX*1), X9
	MOVUPS (CX)(AX*1), X10
	MOVUPS (DX)(AX*1), X11
	MOVUPS (DI)(AX*1), X12
	MULPS  X8, X9
	MULPS  X8, X10
	MULPS  X8, X11
	MULPS  X8, X12
	ADDPS  X9, X0
	ADDPS  X10, X1
	ADDPS  X11, X2
	ADDPS  X12, X3
	MOVUPS (R10)(AX*1), X13
	MOVUPS (R11)(AX*1), X14
	MOVUPS (R13)(AX*1), X15
	MOVUPS (R14)(AX*1), X9
	MULPS  X8, X13
	MULPS  X8, X14
	MULPS  X8, X15
	MULPS  X8, X9
	ADDPS  X13, X4
	ADDPS  X14, X5
	ADDPS  X15, X6
	ADDPS  X9, X7
	ADDQ   $16, AX
	CMPQ   AX, R12
	JLT    d8inner

	MOVUPS X0, (R15)
	MOVUPS X1, 16(R15)
	MOVUPS X2, 32(R15)
	MOVUPS X3, 48(R15)
	MOVUPS X4, 64(R15)
	MOVUPS X5, 80(R15)
	MOVUPS X6, 96(R15)
	MOVUPS X7, 112(R15)
	ADDQ   $128, R15
	SUBQ   $8, R9
	JMP    d8

d8done:
	RET
