//go:build amd64 && !purego && !amd64.v3

#include "textflag.h"

// Each 128-bit lane gathers one group's 3 bytes into each of its 4 dwords
// (VPSHUFB works within lanes): the low lane the pair's first group, the
// high lane its second.
DATA spread6<>+0(SB)/8, $0x8002010080020100
DATA spread6<>+8(SB)/8, $0x8002010080020100
DATA spread6<>+16(SB)/8, $0x8005040380050403
DATA spread6<>+24(SB)/8, $0x8005040380050403
GLOBL spread6<>(SB), RODATA|NOPTR, $32

// Shifting code k's 6 bits to the top of its dword (by 26, 20, 14, 8), then
// arithmetically back by 26, sign-extends it.
DATA shifts6<>+0(SB)/8, $0x000000140000001a
DATA shifts6<>+8(SB)/8, $0x000000080000000e
DATA shifts6<>+16(SB)/8, $0x000000140000001a
DATA shifts6<>+24(SB)/8, $0x000000080000000e
GLOBL shifts6<>(SB), RODATA|NOPTR, $32

// func addPairs6AVX2(acc *float32, row *byte, pairs int, f float32)
//
// acc[i] += f·float32(code i), a multiply then an add, each rounded to
// float32 as the Go loop does, eight codes (two groups of 3 bytes) a step.
TEXT ·addPairs6AVX2(SB), NOSPLIT, $0-28
	MOVQ         acc+0(FP), DI
	MOVQ         row+8(FP), SI
	MOVQ         pairs+16(FP), CX
	VBROADCASTSS f+24(FP), Y3
	VMOVDQU      spread6<>(SB), Y4
	VMOVDQU      shifts6<>(SB), Y5
	TESTQ        CX, CX
	JZ           done

loop:
	VPBROADCASTQ (SI), Y0
	VPSHUFB      Y4, Y0, Y0
	VPSLLVD      Y5, Y0, Y0
	VPSRAD       $26, Y0, Y0
	VCVTDQ2PS    Y0, Y0
	VMULPS       Y3, Y0, Y0
	VADDPS       (DI), Y0, Y0
	VMOVUPS      Y0, (DI)
	ADDQ         $6, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          loop

done:
	VZEROUPPER
	RET
