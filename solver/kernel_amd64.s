//go:build !purego

#include "textflag.h"

// AVX2+FMA contraction kernels for uint8 and float32 samples; see
// kernel_amd64.go. Each widens 4 elements at a time to 4 float64 lanes of a
// YMM register (uint8: VPMOVZXBD then VCVTDQ2PD; float32: VCVTPS2PD) and
// accumulates with VFMADD231PD. Columns left over after the vector loops
// (cols mod 4) are done one at a time with scalar FMAs, so nothing outside
// x[:rows*cols] is read and nothing outside dst[:rows] or dst[:cols] is
// written. The summation order depends only on cols, never on alignment or
// on other calls, so results are reproducible bit for bit.
//
// Callers guarantee rows >= 1, cols >= 1 and the slice lengths.
//
// Registers: DI dst, SI x, DX v, R8 rows, R9 cols, CX column index,
// R10 cols rounded down to 16, R11 cols rounded down to 4, X9 zero (the
// upper lanes source for scalar conversions).

// func dotRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
//
// dst[r] = sum_c x[r*cols+c] v[c]. Column c goes to accumulator Y(c/4 mod 4),
// lane c mod 4, while 16 columns remain, then to Y0 by 4, then to the
// scalar X8; the accumulators are summed pairwise at the end of the row.
TEXT ·dotRowsU8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ R9, R10
	ANDQ $-16, R10
	MOVQ R9, R11
	ANDQ $-4, R11
	VXORPD X9, X9, X9

dotU8Row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    dotU8Quads

dotU8By16:
	VPMOVZXBD   (SI)(CX*1), X4
	VPMOVZXBD   4(SI)(CX*1), X5
	VPMOVZXBD   8(SI)(CX*1), X6
	VPMOVZXBD   12(SI)(CX*1), X7
	VCVTDQ2PD   X4, Y4
	VCVTDQ2PD   X5, Y5
	VCVTDQ2PD   X6, Y6
	VCVTDQ2PD   X7, Y7
	VFMADD231PD (DX)(CX*8), Y4, Y0
	VFMADD231PD 32(DX)(CX*8), Y5, Y1
	VFMADD231PD 64(DX)(CX*8), Y6, Y2
	VFMADD231PD 96(DX)(CX*8), Y7, Y3
	ADDQ        $16, CX
	CMPQ        CX, R10
	JLT         dotU8By16

dotU8Quads:
	CMPQ CX, R11
	JGE  dotU8Singles

dotU8By4:
	VPMOVZXBD   (SI)(CX*1), X4
	VCVTDQ2PD   X4, Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotU8By4

dotU8Singles:
	CMPQ CX, R9
	JGE  dotU8Sum

dotU8By1:
	MOVBLZX     (SI)(CX*1), AX
	VCVTSI2SDL  AX, X9, X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotU8By1

dotU8Sum:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VADDSD       X8, X0, X0
	VMOVSD       X0, (DI)
	ADDQ         $8, DI
	ADDQ         R9, SI
	DECQ         R8
	JNZ          dotU8Row
	VZEROUPPER
	RET

// func dotRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
//
// As dotRowsU8AVX2, with 4-byte elements.
TEXT ·dotRowsF32AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ R9, R10
	ANDQ $-16, R10
	MOVQ R9, R11
	ANDQ $-4, R11
	VXORPD X9, X9, X9

dotF32Row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    dotF32Quads

dotF32By16:
	VCVTPS2PD   (SI)(CX*4), Y4
	VCVTPS2PD   16(SI)(CX*4), Y5
	VCVTPS2PD   32(SI)(CX*4), Y6
	VCVTPS2PD   48(SI)(CX*4), Y7
	VFMADD231PD (DX)(CX*8), Y4, Y0
	VFMADD231PD 32(DX)(CX*8), Y5, Y1
	VFMADD231PD 64(DX)(CX*8), Y6, Y2
	VFMADD231PD 96(DX)(CX*8), Y7, Y3
	ADDQ        $16, CX
	CMPQ        CX, R10
	JLT         dotF32By16

dotF32Quads:
	CMPQ CX, R11
	JGE  dotF32Singles

dotF32By4:
	VCVTPS2PD   (SI)(CX*4), Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF32By4

dotF32Singles:
	CMPQ CX, R9
	JGE  dotF32Sum

dotF32By1:
	VCVTSS2SD   (SI)(CX*4), X9, X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF32By1

dotF32Sum:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	VADDSD       X8, X0, X0
	VMOVSD       X0, (DI)
	ADDQ         $8, DI
	LEAQ         (SI)(R9*4), SI
	DECQ         R8
	JNZ          dotF32Row
	VZEROUPPER
	RET

// func axpyRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
//
// dst[c] += sum_r v[r] x[r*cols+c], in order of r as the Go loop does. The
// columns are taken in blocks of 16 held in Y0-Y3 while all rows are added
// in, then blocks of 4 in Y0, then single columns in X0, so dst is loaded
// and stored once. AX walks down a block's column, BX counts rows.
TEXT ·axpyRowsU8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ R9, R10
	ANDQ $-16, R10
	MOVQ R9, R11
	ANDQ $-4, R11
	VXORPD X9, X9, X9
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    axpyU8Quads

axpyU8Block16:
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	LEAQ    (SI)(CX*1), AX
	XORQ    BX, BX

axpyU8Rows16:
	VBROADCASTSD (DX)(BX*8), Y8
	VPMOVZXBD    (AX), X4
	VPMOVZXBD    4(AX), X5
	VPMOVZXBD    8(AX), X6
	VPMOVZXBD    12(AX), X7
	VCVTDQ2PD    X4, Y4
	VCVTDQ2PD    X5, Y5
	VCVTDQ2PD    X6, Y6
	VCVTDQ2PD    X7, Y7
	VFMADD231PD  Y8, Y4, Y0
	VFMADD231PD  Y8, Y5, Y1
	VFMADD231PD  Y8, Y6, Y2
	VFMADD231PD  Y8, Y7, Y3
	ADDQ         R9, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyU8Rows16
	VMOVUPD      Y0, (DI)(CX*8)
	VMOVUPD      Y1, 32(DI)(CX*8)
	VMOVUPD      Y2, 64(DI)(CX*8)
	VMOVUPD      Y3, 96(DI)(CX*8)
	ADDQ         $16, CX
	CMPQ         CX, R10
	JLT          axpyU8Block16

axpyU8Quads:
	CMPQ CX, R11
	JGE  axpyU8Singles

axpyU8Block4:
	VMOVUPD (DI)(CX*8), Y0
	LEAQ    (SI)(CX*1), AX
	XORQ    BX, BX

axpyU8Rows4:
	VBROADCASTSD (DX)(BX*8), Y8
	VPMOVZXBD    (AX), X4
	VCVTDQ2PD    X4, Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R9, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyU8Rows4
	VMOVUPD      Y0, (DI)(CX*8)
	ADDQ         $4, CX
	CMPQ         CX, R11
	JLT          axpyU8Block4

axpyU8Singles:
	CMPQ CX, R9
	JGE  axpyU8Done

axpyU8Block1:
	VMOVSD (DI)(CX*8), X0
	LEAQ   (SI)(CX*1), AX
	XORQ   BX, BX

axpyU8Rows1:
	MOVBLZX     (AX), R12
	VCVTSI2SDL  R12, X9, X4
	VFMADD231SD (DX)(BX*8), X4, X0
	ADDQ        R9, AX
	INCQ        BX
	CMPQ        BX, R8
	JLT         axpyU8Rows1
	VMOVSD      X0, (DI)(CX*8)
	INCQ        CX
	CMPQ        CX, R9
	JLT         axpyU8Block1

axpyU8Done:
	VZEROUPPER
	RET

// func axpyRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
//
// As axpyRowsU8AVX2, with 4-byte elements; R13 is the row stride in bytes.
TEXT ·axpyRowsF32AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ R9, R10
	ANDQ $-16, R10
	MOVQ R9, R11
	ANDQ $-4, R11
	LEAQ (R9*4), R13
	VXORPD X9, X9, X9
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    axpyF32Quads

axpyF32Block16:
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	LEAQ    (SI)(CX*4), AX
	XORQ    BX, BX

axpyF32Rows16:
	VBROADCASTSD (DX)(BX*8), Y8
	VCVTPS2PD    (AX), Y4
	VCVTPS2PD    16(AX), Y5
	VCVTPS2PD    32(AX), Y6
	VCVTPS2PD    48(AX), Y7
	VFMADD231PD  Y8, Y4, Y0
	VFMADD231PD  Y8, Y5, Y1
	VFMADD231PD  Y8, Y6, Y2
	VFMADD231PD  Y8, Y7, Y3
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF32Rows16
	VMOVUPD      Y0, (DI)(CX*8)
	VMOVUPD      Y1, 32(DI)(CX*8)
	VMOVUPD      Y2, 64(DI)(CX*8)
	VMOVUPD      Y3, 96(DI)(CX*8)
	ADDQ         $16, CX
	CMPQ         CX, R10
	JLT          axpyF32Block16

axpyF32Quads:
	CMPQ CX, R11
	JGE  axpyF32Singles

axpyF32Block4:
	VMOVUPD (DI)(CX*8), Y0
	LEAQ    (SI)(CX*4), AX
	XORQ    BX, BX

axpyF32Rows4:
	VBROADCASTSD (DX)(BX*8), Y8
	VCVTPS2PD    (AX), Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF32Rows4
	VMOVUPD      Y0, (DI)(CX*8)
	ADDQ         $4, CX
	CMPQ         CX, R11
	JLT          axpyF32Block4

axpyF32Singles:
	CMPQ CX, R9
	JGE  axpyF32Done

axpyF32Block1:
	VMOVSD (DI)(CX*8), X0
	LEAQ   (SI)(CX*4), AX
	XORQ   BX, BX

axpyF32Rows1:
	VCVTSS2SD   (AX), X9, X4
	VFMADD231SD (DX)(BX*8), X4, X0
	ADDQ        R13, AX
	INCQ        BX
	CMPQ        BX, R8
	JLT         axpyF32Rows1
	VMOVSD      X0, (DI)(CX*8)
	INCQ        CX
	CMPQ        CX, R9
	JLT         axpyF32Block1

axpyF32Done:
	VZEROUPPER
	RET
