//go:build !purego

#include "textflag.h"

// AVX2+FMA contraction kernels for uint8, float32 and float64 samples; see
// kernel_amd64.go. Each loads 4 elements at a time as 4 float64 lanes of a
// YMM register (uint8: VPMOVZXBD then VCVTDQ2PD; float32: VCVTPS2PD) and
// accumulates with VFMADD231PD. Columns left over after the vector loops
// (cols mod 4) are done one at a time with scalar FMAs in dotRows, and in
// axpyRows as a vector of the last 4 columns stored under a mask, so
// nothing outside x[:rows*cols] is read and nothing outside dst[:rows] or
// dst[:cols] is written. The summation order depends only on cols, never on
// alignment, on the row's position or on other calls, so results are
// reproducible bit for bit.
//
// Callers guarantee rows >= 1, cols >= 1 and the slice lengths.
//
// Registers: DI dst, SI x, DX v, R8 rows, R9 cols, CX column index,
// R10 cols rounded down to 16, R11 cols rounded down to 4, X9 zero (the
// upper lanes source for scalar conversions).

// tailMask+32*t, for t = cols mod 4 in 1..3, has all bits set in the last
// t of 4 float64 lanes: the axpy kernels store those lanes of a vector of
// the last 4 columns, the other lanes being columns already done.
DATA tailMask<>+56(SB)/8, $-1
DATA tailMask<>+80(SB)/8, $-1
DATA tailMask<>+88(SB)/8, $-1
DATA tailMask<>+104(SB)/8, $-1
DATA tailMask<>+112(SB)/8, $-1
DATA tailMask<>+120(SB)/8, $-1
GLOBL tailMask<>(SB), RODATA|NOPTR, $128

// func dotRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
//
// dst[r] = sum_c x[r*cols+c] v[c]. For rows of 16 columns or more, column
// c goes to accumulator Y(c/4 mod 4), lane c mod 4, while 16 columns
// remain, then to Y0 by 4, then to the scalar X8; the accumulators are
// summed pairwise at the end of the row. Shorter rows (dotU8Short) have
// one accumulator each and are taken two at a time, to share the final
// horizontal sum.
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
	TESTQ  R10, R10
	JZ     dotU8Short

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

	// Rows of fewer than 16 columns, two at a time (BX is the second):
	// one vector accumulator per row (Y0, Y1) and one scalar (X8, X10), so
	// the two rows are added up together. A last odd row is done alone, in
	// the same order: ((lane0+lane1) + (lane2+lane3)) + scalar.
dotU8Short:
	CMPQ R8, $2
	JLT  dotU8One

dotU8Pair:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD X8, X8, X8
	VXORPD X10, X10, X10
	LEAQ   (SI)(R9*1), BX
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotU8PairSingles

dotU8PairBy4:
	VMOVUPD     (DX)(CX*8), Y6
	VPMOVZXBD   (SI)(CX*1), X4
	VCVTDQ2PD   X4, Y4
	VPMOVZXBD   (BX)(CX*1), X5
	VCVTDQ2PD   X5, Y5
	VFMADD231PD Y6, Y4, Y0
	VFMADD231PD Y6, Y5, Y1
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotU8PairBy4

dotU8PairSingles:
	CMPQ CX, R9
	JGE  dotU8PairSum

dotU8PairBy1:
	VMOVSD      (DX)(CX*8), X6
	MOVBLZX     (SI)(CX*1), AX
	VCVTSI2SDL  AX, X9, X4
	VFMADD231SD X6, X4, X8
	MOVBLZX     (BX)(CX*1), AX
	VCVTSI2SDL  AX, X9, X5
	VFMADD231SD X6, X5, X10
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotU8PairBy1

dotU8PairSum:
	VHADDPD      Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKLPD    X10, X8, X8
	VADDPD       X8, X0, X0
	VMOVUPD      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (BX)(R9*1), SI
	SUBQ         $2, R8
	CMPQ         R8, $2
	JGE          dotU8Pair

dotU8One:
	TESTQ R8, R8
	JZ    dotU8Done
	VXORPD Y0, Y0, Y0
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotU8OneSingles

dotU8OneBy4:
	VPMOVZXBD   (SI)(CX*1), X4
	VCVTDQ2PD   X4, Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotU8OneBy4

dotU8OneSingles:
	CMPQ CX, R9
	JGE  dotU8OneSum

dotU8OneBy1:
	MOVBLZX     (SI)(CX*1), AX
	VCVTSI2SDL  AX, X9, X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotU8OneBy1

dotU8OneSum:
	VHADDPD      Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSD       X1, X0, X0
	VADDSD       X8, X0, X0
	VMOVSD       X0, (DI)

dotU8Done:
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
	TESTQ  R10, R10
	JZ     dotF32Short

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

	// Rows of fewer than 16 columns, two at a time (BX is the second):
	// one vector accumulator per row (Y0, Y1) and one scalar (X8, X10), so
	// the two rows are added up together. A last odd row is done alone, in
	// the same order: ((lane0+lane1) + (lane2+lane3)) + scalar.
dotF32Short:
	CMPQ R8, $2
	JLT  dotF32One

dotF32Pair:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD X8, X8, X8
	VXORPD X10, X10, X10
	LEAQ   (SI)(R9*4), BX
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotF32PairSingles

dotF32PairBy4:
	VMOVUPD     (DX)(CX*8), Y6
	VCVTPS2PD   (SI)(CX*4), Y4
	VCVTPS2PD   (BX)(CX*4), Y5
	VFMADD231PD Y6, Y4, Y0
	VFMADD231PD Y6, Y5, Y1
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF32PairBy4

dotF32PairSingles:
	CMPQ CX, R9
	JGE  dotF32PairSum

dotF32PairBy1:
	VMOVSD      (DX)(CX*8), X6
	VCVTSS2SD   (SI)(CX*4), X9, X4
	VFMADD231SD X6, X4, X8
	VCVTSS2SD   (BX)(CX*4), X9, X5
	VFMADD231SD X6, X5, X10
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF32PairBy1

dotF32PairSum:
	VHADDPD      Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKLPD    X10, X8, X8
	VADDPD       X8, X0, X0
	VMOVUPD      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (BX)(R9*4), SI
	SUBQ         $2, R8
	CMPQ         R8, $2
	JGE          dotF32Pair

dotF32One:
	TESTQ R8, R8
	JZ    dotF32Done
	VXORPD Y0, Y0, Y0
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotF32OneSingles

dotF32OneBy4:
	VCVTPS2PD   (SI)(CX*4), Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF32OneBy4

dotF32OneSingles:
	CMPQ CX, R9
	JGE  dotF32OneSum

dotF32OneBy1:
	VCVTSS2SD   (SI)(CX*4), X9, X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF32OneBy1

dotF32OneSum:
	VHADDPD      Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSD       X1, X0, X0
	VADDSD       X8, X0, X0
	VMOVSD       X0, (DI)

dotF32Done:
	VZEROUPPER
	RET

// func axpyRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
//
// dst[c] += sum_r v[r] x[r*cols+c], in order of r as the Go loop does. The
// columns are taken in blocks of 16 held in Y0-Y3 while all rows are added
// in, then blocks of 4 in Y0, so dst is loaded and stored once; then the
// last cols mod 4 columns: if cols >= 4, as the block of the last 4
// columns, of which only the new lanes are stored (VMASKMOVPD), else one
// at a time in X0. AX walks down a block's column, BX counts rows.
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
	CMPQ  CX, R9
	JGE   axpyU8Done
	TESTQ R11, R11
	JZ    axpyU8Block1

	// The last 4 columns, of which only the lanes not yet done are stored.
	MOVQ    R9, AX
	ANDQ    $3, AX
	SHLQ    $5, AX
	LEAQ    tailMask<>(SB), R12
	VMOVUPD (R12)(AX*1), Y10
	VMOVUPD -32(DI)(R9*8), Y0
	LEAQ    -4(SI)(R9*1), AX
	XORQ    BX, BX

axpyU8RowsTail:
	VBROADCASTSD (DX)(BX*8), Y8
	VPMOVZXBD    (AX), X4
	VCVTDQ2PD    X4, Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R9, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyU8RowsTail
	VMASKMOVPD   Y0, Y10, -32(DI)(R9*8)
	JMP          axpyU8Done

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
	CMPQ  CX, R9
	JGE   axpyF32Done
	TESTQ R11, R11
	JZ    axpyF32Block1

	// The last 4 columns, of which only the lanes not yet done are stored.
	MOVQ    R9, AX
	ANDQ    $3, AX
	SHLQ    $5, AX
	LEAQ    tailMask<>(SB), R12
	VMOVUPD (R12)(AX*1), Y10
	VMOVUPD -32(DI)(R9*8), Y0
	LEAQ    -16(SI)(R9*4), AX
	XORQ    BX, BX

axpyF32RowsTail:
	VBROADCASTSD (DX)(BX*8), Y8
	VCVTPS2PD    (AX), Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF32RowsTail
	VMASKMOVPD   Y0, Y10, -32(DI)(R9*8)
	JMP          axpyF32Done

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

// func dotRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
//
// As dotRowsU8AVX2, with 8-byte elements.
TEXT ·dotRowsF64AVX2(SB), NOSPLIT, $0-40
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
	TESTQ  R10, R10
	JZ     dotF64Short

dotF64Row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    dotF64Quads

dotF64By16:
	VMOVUPD   (SI)(CX*8), Y4
	VMOVUPD   32(SI)(CX*8), Y5
	VMOVUPD   64(SI)(CX*8), Y6
	VMOVUPD   96(SI)(CX*8), Y7
	VFMADD231PD (DX)(CX*8), Y4, Y0
	VFMADD231PD 32(DX)(CX*8), Y5, Y1
	VFMADD231PD 64(DX)(CX*8), Y6, Y2
	VFMADD231PD 96(DX)(CX*8), Y7, Y3
	ADDQ        $16, CX
	CMPQ        CX, R10
	JLT         dotF64By16

dotF64Quads:
	CMPQ CX, R11
	JGE  dotF64Singles

dotF64By4:
	VMOVUPD   (SI)(CX*8), Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF64By4

dotF64Singles:
	CMPQ CX, R9
	JGE  dotF64Sum

dotF64By1:
	VMOVSD      (SI)(CX*8), X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF64By1

dotF64Sum:
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
	LEAQ         (SI)(R9*8), SI
	DECQ         R8
	JNZ          dotF64Row
	VZEROUPPER
	RET

	// Rows of fewer than 16 columns, two at a time (BX is the second):
	// one vector accumulator per row (Y0, Y1) and one scalar (X8, X10), so
	// the two rows are added up together. A last odd row is done alone, in
	// the same order: ((lane0+lane1) + (lane2+lane3)) + scalar.
dotF64Short:
	CMPQ R8, $2
	JLT  dotF64One

dotF64Pair:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD X8, X8, X8
	VXORPD X10, X10, X10
	LEAQ   (SI)(R9*8), BX
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotF64PairSingles

dotF64PairBy4:
	VMOVUPD     (DX)(CX*8), Y6
	VMOVUPD   (SI)(CX*8), Y4
	VMOVUPD   (BX)(CX*8), Y5
	VFMADD231PD Y6, Y4, Y0
	VFMADD231PD Y6, Y5, Y1
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF64PairBy4

dotF64PairSingles:
	CMPQ CX, R9
	JGE  dotF64PairSum

dotF64PairBy1:
	VMOVSD      (DX)(CX*8), X6
	VMOVSD      (SI)(CX*8), X4
	VFMADD231SD X6, X4, X8
	VMOVSD      (BX)(CX*8), X5
	VFMADD231SD X6, X5, X10
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF64PairBy1

dotF64PairSum:
	VHADDPD      Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKLPD    X10, X8, X8
	VADDPD       X8, X0, X0
	VMOVUPD      X0, (DI)
	ADDQ         $16, DI
	LEAQ         (BX)(R9*8), SI
	SUBQ         $2, R8
	CMPQ         R8, $2
	JGE          dotF64Pair

dotF64One:
	TESTQ R8, R8
	JZ    dotF64Done
	VXORPD Y0, Y0, Y0
	VXORPD X8, X8, X8
	XORQ   CX, CX
	CMPQ   CX, R11
	JGE    dotF64OneSingles

dotF64OneBy4:
	VMOVUPD   (SI)(CX*8), Y4
	VFMADD231PD (DX)(CX*8), Y4, Y0
	ADDQ        $4, CX
	CMPQ        CX, R11
	JLT         dotF64OneBy4

dotF64OneSingles:
	CMPQ CX, R9
	JGE  dotF64OneSum

dotF64OneBy1:
	VMOVSD      (SI)(CX*8), X4
	VFMADD231SD (DX)(CX*8), X4, X8
	INCQ        CX
	CMPQ        CX, R9
	JLT         dotF64OneBy1

dotF64OneSum:
	VHADDPD      Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDSD       X1, X0, X0
	VADDSD       X8, X0, X0
	VMOVSD       X0, (DI)

dotF64Done:
	VZEROUPPER
	RET

// func axpyRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
//
// As axpyRowsU8AVX2, with 8-byte elements; R13 is the row stride in bytes.
TEXT ·axpyRowsF64AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ R9, R10
	ANDQ $-16, R10
	MOVQ R9, R11
	ANDQ $-4, R11
	LEAQ (R9*8), R13
	VXORPD X9, X9, X9
	XORQ   CX, CX
	CMPQ   CX, R10
	JGE    axpyF64Quads

axpyF64Block16:
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	LEAQ    (SI)(CX*8), AX
	XORQ    BX, BX

axpyF64Rows16:
	VBROADCASTSD (DX)(BX*8), Y8
	VMOVUPD    (AX), Y4
	VMOVUPD    32(AX), Y5
	VMOVUPD    64(AX), Y6
	VMOVUPD    96(AX), Y7
	VFMADD231PD  Y8, Y4, Y0
	VFMADD231PD  Y8, Y5, Y1
	VFMADD231PD  Y8, Y6, Y2
	VFMADD231PD  Y8, Y7, Y3
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF64Rows16
	VMOVUPD      Y0, (DI)(CX*8)
	VMOVUPD      Y1, 32(DI)(CX*8)
	VMOVUPD      Y2, 64(DI)(CX*8)
	VMOVUPD      Y3, 96(DI)(CX*8)
	ADDQ         $16, CX
	CMPQ         CX, R10
	JLT          axpyF64Block16

axpyF64Quads:
	CMPQ CX, R11
	JGE  axpyF64Singles

axpyF64Block4:
	VMOVUPD (DI)(CX*8), Y0
	LEAQ    (SI)(CX*8), AX
	XORQ    BX, BX

axpyF64Rows4:
	VBROADCASTSD (DX)(BX*8), Y8
	VMOVUPD    (AX), Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF64Rows4
	VMOVUPD      Y0, (DI)(CX*8)
	ADDQ         $4, CX
	CMPQ         CX, R11
	JLT          axpyF64Block4

axpyF64Singles:
	CMPQ  CX, R9
	JGE   axpyF64Done
	TESTQ R11, R11
	JZ    axpyF64Block1

	// The last 4 columns, of which only the lanes not yet done are stored.
	MOVQ    R9, AX
	ANDQ    $3, AX
	SHLQ    $5, AX
	LEAQ    tailMask<>(SB), R12
	VMOVUPD (R12)(AX*1), Y10
	VMOVUPD -32(DI)(R9*8), Y0
	LEAQ    -32(SI)(R9*8), AX
	XORQ    BX, BX

axpyF64RowsTail:
	VBROADCASTSD (DX)(BX*8), Y8
	VMOVUPD    (AX), Y4
	VFMADD231PD  Y8, Y4, Y0
	ADDQ         R13, AX
	INCQ         BX
	CMPQ         BX, R8
	JLT          axpyF64RowsTail
	VMASKMOVPD   Y0, Y10, -32(DI)(R9*8)
	JMP          axpyF64Done

axpyF64Block1:
	VMOVSD (DI)(CX*8), X0
	LEAQ   (SI)(CX*8), AX
	XORQ   BX, BX

axpyF64Rows1:
	VMOVSD      (AX), X4
	VFMADD231SD (DX)(BX*8), X4, X0
	ADDQ        R13, AX
	INCQ        BX
	CMPQ        BX, R8
	JLT         axpyF64Rows1
	VMOVSD      X0, (DI)(CX*8)
	INCQ        CX
	CMPQ        CX, R9
	JLT         axpyF64Block1

axpyF64Done:
	VZEROUPPER
	RET
