//go:build !purego

#include "textflag.h"

// AVX2+FMA contraction kernels for uint8, float32 and float64 samples; see
// kernel_amd64.go. Each loads 4 elements at a time as 4 float64 lanes of a
// YMM register (LOAD4_*) and accumulates with VFMADD231PD. Columns left
// over after the vector loops (cols mod 4) are done one at a time with
// scalar FMAs in dotRows, and in axpyRows as a vector of the last 4 columns
// stored under a mask, so nothing outside x[:rows*cols] is read and nothing
// outside dst[:rows] or dst[:cols] is written. The summation order depends
// only on cols, never on alignment, on the row's position or on other
// calls, so results are reproducible bit for bit.
//
// The two kernels are written once, as the macros DOT_ROWS and AXPY_ROWS,
// over the element type: its load macros and its size in bytes.
//
// Callers guarantee rows >= 1, cols >= 1 and the slice lengths.
//
// Registers: DI dst, SI x, DX v, R8 rows, R9 cols, CX column index,
// R10 cols rounded down to 16, R11 cols rounded down to 4, X9 zero (the
// upper lanes source for scalar conversions), R12 scratch.

// LOAD4_E(mem, xreg, yreg) sets the 4 float64 lanes of yreg to the 4
// elements at mem (xreg is the XMM half of yreg, for the uint8 widening).
// LOAD1_E(mem, xreg) sets the low float64 lane of xreg to the element at mem.
#define LOAD4_U8(mem, xreg, yreg) VPMOVZXBD mem, xreg; VCVTDQ2PD xreg, yreg
#define LOAD1_U8(mem, xreg) MOVBLZX mem, R12; VCVTSI2SDL R12, X9, xreg
#define LOAD4_F32(mem, xreg, yreg) VCVTPS2PD mem, yreg
#define LOAD1_F32(mem, xreg) VCVTSS2SD mem, X9, xreg
#define LOAD4_F64(mem, xreg, yreg) VMOVUPD mem, yreg
#define LOAD1_F64(mem, xreg) VMOVSD mem, xreg

// tailMask+32*t, for t = cols mod 4 in 1..3, has all bits set in the last
// t of 4 float64 lanes: AXPY_ROWS stores those lanes of a vector of the
// last 4 columns, the other lanes being columns already done.
DATA tailMask<>+56(SB)/8, $-1
DATA tailMask<>+80(SB)/8, $-1
DATA tailMask<>+88(SB)/8, $-1
DATA tailMask<>+104(SB)/8, $-1
DATA tailMask<>+112(SB)/8, $-1
DATA tailMask<>+120(SB)/8, $-1
GLOBL tailMask<>(SB), RODATA|NOPTR, $128

// DOT_ROWS(LOAD4, LOAD1, size, o4, o8, o12) is the body of
// func dotRows*AVX2(dst *float64, x *E, v *float64, rows, cols int)
// for elements of size bytes (o4, o8, o12 are 4, 8, 12 times size):
// dst[r] = sum_c x[r*cols+c] v[c].
//
// Rows of 16 columns or more (row): column c goes to accumulator
// Y(c/4 mod 4), lane c mod 4, while 16 columns remain, then to Y0 by 4,
// then to the scalar X8; the accumulators are summed pairwise at the end
// of the row.
//
// Shorter rows (short), two at a time, BX being the second: one vector
// accumulator per row (Y0, Y1) and one scalar (X8, X10), so that the two
// rows share the final horizontal sum. A last odd row (one) is done alone
// in the same order: ((lane0+lane1) + (lane2+lane3)) + scalar.
#define DOT_ROWS(LOAD4, LOAD1, size, o4, o8, o12) \
	MOVQ   dst+0(FP), DI; \
	MOVQ   x+8(FP), SI; \
	MOVQ   v+16(FP), DX; \
	MOVQ   rows+24(FP), R8; \
	MOVQ   cols+32(FP), R9; \
	MOVQ   R9, R10; \
	ANDQ   $-16, R10; \
	MOVQ   R9, R11; \
	ANDQ   $-4, R11; \
	VXORPD X9, X9, X9; \
	TESTQ  R10, R10; \
	JZ     short; \
row: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD X8, X8, X8; \
	XORQ   CX, CX; \
by16: \
	LOAD4((SI)(CX*size), X4, Y4); \
	LOAD4(o4(SI)(CX*size), X5, Y5); \
	LOAD4(o8(SI)(CX*size), X6, Y6); \
	LOAD4(o12(SI)(CX*size), X7, Y7); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	VFMADD231PD 32(DX)(CX*8), Y5, Y1; \
	VFMADD231PD 64(DX)(CX*8), Y6, Y2; \
	VFMADD231PD 96(DX)(CX*8), Y7, Y3; \
	ADDQ        $16, CX; \
	CMPQ        CX, R10; \
	JLT         by16; \
	CMPQ        CX, R11; \
	JGE         singles; \
by4: \
	LOAD4((SI)(CX*size), X4, Y4); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         by4; \
singles: \
	CMPQ CX, R9; \
	JGE  sum; \
by1: \
	LOAD1((SI)(CX*size), X4); \
	VFMADD231SD (DX)(CX*8), X4, X8; \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         by1; \
sum: \
	VADDPD       Y1, Y0, Y0; \
	VADDPD       Y3, Y2, Y2; \
	VADDPD       Y2, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPD       X1, X0, X0; \
	VUNPCKHPD    X0, X0, X1; \
	VADDSD       X1, X0, X0; \
	VADDSD       X8, X0, X0; \
	VMOVSD       X0, (DI); \
	ADDQ         $8, DI; \
	LEAQ         (SI)(R9*size), SI; \
	DECQ         R8; \
	JNZ          row; \
	VZEROUPPER; \
	RET; \
short: \
	CMPQ R8, $2; \
	JLT  one; \
pair: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD X8, X8, X8; \
	VXORPD X10, X10, X10; \
	LEAQ   (SI)(R9*size), BX; \
	XORQ   CX, CX; \
	CMPQ   CX, R11; \
	JGE    pairSingles; \
pairBy4: \
	VMOVUPD     (DX)(CX*8), Y6; \
	LOAD4((SI)(CX*size), X4, Y4); \
	LOAD4((BX)(CX*size), X5, Y5); \
	VFMADD231PD Y6, Y4, Y0; \
	VFMADD231PD Y6, Y5, Y1; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         pairBy4; \
pairSingles: \
	CMPQ CX, R9; \
	JGE  pairSum; \
pairBy1: \
	VMOVSD      (DX)(CX*8), X6; \
	LOAD1((SI)(CX*size), X4); \
	VFMADD231SD X6, X4, X8; \
	LOAD1((BX)(CX*size), X5); \
	VFMADD231SD X6, X5, X10; \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         pairBy1; \
pairSum: \
	VHADDPD      Y1, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPD       X1, X0, X0; \
	VUNPCKLPD    X10, X8, X8; \
	VADDPD       X8, X0, X0; \
	VMOVUPD      X0, (DI); \
	ADDQ         $16, DI; \
	LEAQ         (BX)(R9*size), SI; \
	SUBQ         $2, R8; \
	CMPQ         R8, $2; \
	JGE          pair; \
one: \
	TESTQ  R8, R8; \
	JZ     done; \
	VXORPD Y0, Y0, Y0; \
	VXORPD X8, X8, X8; \
	XORQ   CX, CX; \
	CMPQ   CX, R11; \
	JGE    oneSingles; \
oneBy4: \
	LOAD4((SI)(CX*size), X4, Y4); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         oneBy4; \
oneSingles: \
	CMPQ CX, R9; \
	JGE  oneSum; \
oneBy1: \
	LOAD1((SI)(CX*size), X4); \
	VFMADD231SD (DX)(CX*8), X4, X8; \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         oneBy1; \
oneSum: \
	VHADDPD      Y0, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDSD       X1, X0, X0; \
	VADDSD       X8, X0, X0; \
	VMOVSD       X0, (DI); \
done: \
	VZEROUPPER; \
	RET

// AXPY_ROWS(LOAD4, LOAD1, size, o4, o8, o12) is the body of
// func axpyRows*AVX2(dst *float64, x *E, v *float64, rows, cols int),
// arguments as for DOT_ROWS: dst[c] += sum_r v[r] x[r*cols+c], in order of
// r as the Go loop does. The columns are taken in blocks of 16 held in
// Y0-Y3 while all rows are added in, then blocks of 4 in Y0, so dst is
// loaded and stored once; then the last cols mod 4 columns: if cols >= 4,
// as the block of the last 4 columns, of which only the new lanes are
// stored (VMASKMOVPD), else one at a time in X0. AX walks down a block's
// column by the row stride R13, BX counts rows.
#define AXPY_ROWS(LOAD4, LOAD1, size, o4, o8, o12) \
	MOVQ   dst+0(FP), DI; \
	MOVQ   x+8(FP), SI; \
	MOVQ   v+16(FP), DX; \
	MOVQ   rows+24(FP), R8; \
	MOVQ   cols+32(FP), R9; \
	MOVQ   R9, R10; \
	ANDQ   $-16, R10; \
	MOVQ   R9, R11; \
	ANDQ   $-4, R11; \
	MOVQ   R9, R13; \
	IMULQ  $size, R13; \
	VXORPD X9, X9, X9; \
	XORQ   CX, CX; \
	CMPQ   CX, R10; \
	JGE    quads; \
block16: \
	VMOVUPD (DI)(CX*8), Y0; \
	VMOVUPD 32(DI)(CX*8), Y1; \
	VMOVUPD 64(DI)(CX*8), Y2; \
	VMOVUPD 96(DI)(CX*8), Y3; \
	LEAQ    (SI)(CX*size), AX; \
	XORQ    BX, BX; \
rows16: \
	VBROADCASTSD (DX)(BX*8), Y8; \
	LOAD4((AX), X4, Y4); \
	LOAD4(o4(AX), X5, Y5); \
	LOAD4(o8(AX), X6, Y6); \
	LOAD4(o12(AX), X7, Y7); \
	VFMADD231PD  Y8, Y4, Y0; \
	VFMADD231PD  Y8, Y5, Y1; \
	VFMADD231PD  Y8, Y6, Y2; \
	VFMADD231PD  Y8, Y7, Y3; \
	ADDQ         R13, AX; \
	INCQ         BX; \
	CMPQ         BX, R8; \
	JLT          rows16; \
	VMOVUPD      Y0, (DI)(CX*8); \
	VMOVUPD      Y1, 32(DI)(CX*8); \
	VMOVUPD      Y2, 64(DI)(CX*8); \
	VMOVUPD      Y3, 96(DI)(CX*8); \
	ADDQ         $16, CX; \
	CMPQ         CX, R10; \
	JLT          block16; \
quads: \
	CMPQ CX, R11; \
	JGE  singles; \
block4: \
	VMOVUPD (DI)(CX*8), Y0; \
	LEAQ    (SI)(CX*size), AX; \
	XORQ    BX, BX; \
rows4: \
	VBROADCASTSD (DX)(BX*8), Y8; \
	LOAD4((AX), X4, Y4); \
	VFMADD231PD  Y8, Y4, Y0; \
	ADDQ         R13, AX; \
	INCQ         BX; \
	CMPQ         BX, R8; \
	JLT          rows4; \
	VMOVUPD      Y0, (DI)(CX*8); \
	ADDQ         $4, CX; \
	CMPQ         CX, R11; \
	JLT          block4; \
singles: \
	CMPQ  CX, R9; \
	JGE   done; \
	TESTQ R11, R11; \
	JZ    block1; \
	MOVQ    R9, AX; \
	ANDQ    $3, AX; \
	SHLQ    $5, AX; \
	LEAQ    tailMask<>(SB), R12; \
	VMOVUPD (R12)(AX*1), Y10; \
	VMOVUPD -32(DI)(R9*8), Y0; \
	LEAQ    -o4(SI)(R9*size), AX; \
	XORQ    BX, BX; \
rowsTail: \
	VBROADCASTSD (DX)(BX*8), Y8; \
	LOAD4((AX), X4, Y4); \
	VFMADD231PD  Y8, Y4, Y0; \
	ADDQ         R13, AX; \
	INCQ         BX; \
	CMPQ         BX, R8; \
	JLT          rowsTail; \
	VMASKMOVPD   Y0, Y10, -32(DI)(R9*8); \
	JMP          done; \
block1: \
	VMOVSD (DI)(CX*8), X0; \
	LEAQ   (SI)(CX*size), AX; \
	XORQ   BX, BX; \
rows1: \
	LOAD1((AX), X4); \
	VFMADD231SD (DX)(BX*8), X4, X0; \
	ADDQ        R13, AX; \
	INCQ        BX; \
	CMPQ        BX, R8; \
	JLT         rows1; \
	VMOVSD      X0, (DI)(CX*8); \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         block1; \
done: \
	VZEROUPPER; \
	RET

// func dotRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
TEXT ·dotRowsU8AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_U8, LOAD1_U8, 1, 4, 8, 12)

// func dotRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·dotRowsF32AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F32, LOAD1_F32, 4, 16, 32, 48)

// func dotRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·dotRowsF64AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F64, LOAD1_F64, 8, 32, 64, 96)

// func axpyRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
TEXT ·axpyRowsU8AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_U8, LOAD1_U8, 1, 4, 8, 12)

// func axpyRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·axpyRowsF32AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F32, LOAD1_F32, 4, 16, 32, 48)

// func axpyRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·axpyRowsF64AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F64, LOAD1_F64, 8, 32, 64, 96)
