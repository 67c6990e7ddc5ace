//go:build !purego

#include "textflag.h"

// The samples widened to float64 for the passes that take them whole
// (widen_amd64.go): 16 elements an iteration, each 4 zero-extended to
// int32 (VPMOVZXBD) and converted (VCVTDQ2PD), exact, then (centre)
// minus the mean's 4 values (VSUBPD, one rounding, as floats.Sub), and
// stored. Callers pass n, a multiple of 16, >= 16, and the slices' lengths.

// WIDEN16 sets Y0-Y3 to the 16 bytes at SI as float64s.
#define WIDEN16 \
	VPMOVZXBD 0(SI), X0; \
	VPMOVZXBD 4(SI), X1; \
	VPMOVZXBD 8(SI), X2; \
	VPMOVZXBD 12(SI), X3; \
	VCVTDQ2PD X0, Y0; \
	VCVTDQ2PD X1, Y1; \
	VCVTDQ2PD X2, Y2; \
	VCVTDQ2PD X3, Y3

// STORE16 stores Y0-Y3 at DI and moves SI, DI and the count CX on by 16
// elements.
#define STORE16 \
	VMOVUPD Y0, 0(DI); \
	VMOVUPD Y1, 32(DI); \
	VMOVUPD Y2, 64(DI); \
	VMOVUPD Y3, 96(DI); \
	ADDQ    $16, SI; \
	ADDQ    $128, DI; \
	SUBQ    $16, CX

// func widenU8AVX2(dst *float64, x *uint8, n int)
TEXT ·widenU8AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
loop:
	WIDEN16
	STORE16
	JNZ loop
	VZEROUPPER
	RET

// func centreU8AVX2(dst *float64, x *uint8, mean *float64, n int)
TEXT ·centreU8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ mean+16(FP), DX
	MOVQ n+24(FP), CX
loop:
	WIDEN16
	VSUBPD 0(DX), Y0, Y0
	VSUBPD 32(DX), Y1, Y1
	VSUBPD 64(DX), Y2, Y2
	VSUBPD 96(DX), Y3, Y3
	ADDQ   $128, DX
	STORE16
	JNZ    loop
	VZEROUPPER
	RET
