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
// upper lanes source for scalar conversions), R12 scratch, Y14 (DOT_ROWS)
// or Y11 (AXPY_ROWS) magic52 broadcast; DOT_ROWS on
// short rows also BX, AX, R13 (row pointers), Y13 (v) and Y15 (v's
// masked tail); AXPY_ROWS also R13, BX, AX (see there).

// LOAD4_E(mem, yreg) sets the 4 float64 lanes of yreg to the 4 elements
// at mem. LOAD1_E(mem, xreg) sets the low float64 lane of xreg to the
// element at mem.
//
// uint8: each byte zero-extended to 64 bits (VPMOVZXBQ) and ORed into the
// mantissa of 2^52 (magic52, kept in a register: Y14 in DOT_ROWS, Y11 in
// AXPY_ROWS, hence LOAD4_U8A), which is the float64 2^52 + x; subtracting
// 2^52 leaves x exactly. One shuffle, one integer and one float add per 4
// elements, where VPMOVZXBD + VCVTDQ2PD took the conversion unit twice: on
// an AMD EPYC (Zen 4) 10-15% more elements per second in both kernels, the
// same bits.
#define LOAD4_U8(mem, yreg) VPMOVZXBQ mem, yreg; VPOR Y14, yreg, yreg; VSUBPD Y14, yreg, yreg
#define LOAD4_U8A(mem, yreg) VPMOVZXBQ mem, yreg; VPOR Y11, yreg, yreg; VSUBPD Y11, yreg, yreg
#define LOAD1_U8(mem, xreg) MOVBLZX mem, R12; VCVTSI2SDL R12, X9, xreg
#define LOAD4_F32(mem, yreg) VCVTPS2PD mem, yreg
#define LOAD1_F32(mem, xreg) VCVTSS2SD mem, X9, xreg
#define LOAD4_F64(mem, yreg) VMOVUPD mem, yreg
#define LOAD1_F64(mem, xreg) VMOVSD mem, xreg

// PREFETCH_L2(mem) asks for the cache line at mem in L2 (PREFETCHT1);
// PREFETCH_NONE(mem) does nothing. The float64 and float32 stream kernels
// (dot/axpyRowsF64StreamAVX2, dot/axpyRowsF32StreamAVX2: a pass's
// samples, read from memory once each) ask, in their one-row paths
// (DOT_ROWS' midOne, AXPY_ROWS' one and narrow) and in DOT_ROWS' short
// quads (four adjacent rows of fewer than 16 columns: a request at each
// row's start and one line more), which read in address order, for the
// elements prefetchAhead bytes (8 KiB: 17 of the faces'
// float64 rows of 60) ahead of their loads, at least one request per
// 64-byte line (float32: two per line, the steps being of half as many
// bytes). Float passes are bound by the memory (about 11-13 GB/s on one
// core here, against 40 for data that stays in L3), and the hardware
// prefetcher alone keeps too few lines in flight: the faces 721 x 80 x 60
// float64+frac fit, 2 threads, 2.78-2.98 -> 1.92-2.05 s (min of 5-6,
// bench/gofit interleaved under chrt); nearer (PREFETCHT0 or T1 at 1-4
// KiB) gained less, 16 KiB no more. The gait 731 x 32 x 22 x 10
// float32+frac fit (rows of 220: 880 bytes, one at a time), 1 thread
// 2.58/2.99 -> 1.47/2.12 s, 2 threads 1.22/1.41 -> 0.71/0.73 (min/median
// of 4, bench/gofit interleaved under chrt). Reads past the end are
// harmless: a prefetch never faults. The other kernels (vectors and
// matrices in cache: the Krylov steps, Y v; uint8 samples, narrowed or
// not, whose passes are not bound by the memory) prefetch nothing.
#define PREFETCH_L2(mem) PREFETCHT1 mem
#define PREFETCH_NONE(mem)
#define prefetchAhead 8192

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

DATA magic52<>+0(SB)/8, $0x4330000000000000
GLOBL magic52<>(SB), RODATA|NOPTR, $8

// HSUM4(a0, a1, a2, a3, r, t) sets r to the sums of the 4 lanes of each
// of a0-a3, (l0 + l1) + (l2 + l3) in lane i for ai: VHADDPD gives l0 + l1
// and l2 + l3 of two accumulators in each 128-bit half, the halves are
// exchanged by VPERM2F128 (t scratch) and added. a0 and a2 are clobbered.
#define HSUM4(a0, a1, a2, a3, r, t) \
	VHADDPD    a1, a0, a0; \
	VHADDPD    a3, a2, a2; \
	VPERM2F128 $0x20, a2, a0, r; \
	VPERM2F128 $0x31, a2, a0, t; \
	VADDPD     t, r, r

// DOT_ROWS(LOAD4, LOAD1, PREFETCH, size, o4, o8, o12) is the body of
// func dotRows*AVX2(dst *float64, x *E, v *float64, rows, cols int)
// for elements of size bytes (o4, o8, o12 are 4, 8, 12 times size;
// PREFETCH is PREFETCH_L2 or PREFETCH_NONE):
// dst[r] = sum_c x[r*cols+c] v[c].
//
// Rows of more than midRowCols columns (row): column c < cols &^ 3 goes to
// accumulator Y(c/4 mod 4), lane c mod 4 (by 16 columns, then the up to 3
// groups of 4 left over, unrolled, each into its own accumulator, so that
// their FMAs do not wait on each other), the last cols mod 4 to the scalar
// X8; the accumulators are summed pairwise at the end of the row
// (TestDotRowsAVX2LongExactOrder).
//
// Shorter rows (short, such as the gait data's trailing mode of 10),
// four at a time (quad; BX, AX, R13 the second to fourth): one vector
// accumulator per row (Y0-Y3) and one scalar (X8, X10-X12), the four
// rows' chains independent, so that the loop is bound by throughput, not
// by the latency of one row's chain, and the four rows share the final
// horizontal sums (VHADDPD, then the halves exchanged by VPERM2F128) and
// one 32-byte store. Rows left over go two at a time (pair; BX the
// second, sharing one horizontal sum), then alone (one). The cols mod 4
// columns after the last group of 4 are, when cols >= 4, one more vector
// step on the row's last 4 columns with v masked to them (Y15, made once
// per call from tailMask), instead of scalar FMAs and conversions per
// element (gait's rows of 10: 2 of 10 columns); only rows shorter than 4
// columns use the scalars (X8, X10-X12). Every row's value is ((lane0 +
// lane1) + (lane2 + lane3)) + scalar, whichever group it is in
// (TestDotRowsAVX2ShortExactOrder).
//
// Rows of 16 to midRowCols columns (mid: the faces' rows of 60, images'
// rows up to 256, the gait samples' 32 rows of 220; chosen by columns, not
// bytes, so that every element type takes the same path and narrowing
// stays exact) go four at a time (midQuad; BX, AX, R13 the second to
// fourth), two accumulators per row: group g of 4 columns (g < cols/4)
// into Y(r) when g is even, Y(4+r) when odd, v's groups loaded once for
// the four rows (Y12, Y13), then the last cols mod 4 columns into the odd
// accumulator as the short rows do (Y15). Eight independent chains keep
// both FMA units busy where one row's four chains, a short row ending in a
// horizontal sum, did not (faces 721 x 80 x 60 uint8: 9% less time per
// fit; 128 x 128 float32 images 4-11%; gait the same). Every row's value
// is (l0 + l1) + (l2 + l3), l the sum of its two accumulators; rows left
// over go one at a time the same way (midOne).
//
// In the float64 and float32 stream kernels (quadBytes =
// midQuadRowBytes), rows of more than 256 bytes (float64: 33 columns and
// more, such as the faces' 60; float32: 65 and more, the gait's 220) all go
// one at a time (midOne), reading x strictly in address order, as
// AXPY_ROWS does past quadRowBytes: from memory, four rows read side by
// side are four streams, which the hardware prefetcher does not keep up
// with (BenchmarkKernelsStream, 721 x 80 x 60 float64, min of 3 runs
// interleaved under chrt on the loaded machine: 2.66 -> 1.46 ms a pass).
// In cache (the other kernels: quadBytes = allQuadRowBytes) four at a
// time is faster: the faces uint8 fit, whose Krylov steps and products
// Y v take float64 rows of 60 and 80 from cache, took 10% longer with
// them one at a time. Only the grouping changes, not the order of any
// row's sums, so the path is chosen by bytes while the order (midRowCols)
// is chosen by columns. TestDotRowsAVX2LongExactOrder models both orders.
#define midRowCols 256
#define midQuadRowBytes 256
#define allQuadRowBytes 0x7fffffff

// ROWS4(LOAD4, off, ix, v, t0, t1, t2, t3, a0, a1, a2, a3) is one step
// of four rows (SI, BX, AX, R13: quad and midQuad): the 4 elements at
// off(row)ix of each row are loaded into t0-t3, then their products with
// v added to the accumulators a0-a3.
#define ROWS4(LOAD4, off, ix, v, t0, t1, t2, t3, a0, a1, a2, a3) \
	LOAD4(off(SI)ix, t0); \
	LOAD4(off(BX)ix, t1); \
	LOAD4(off(AX)ix, t2); \
	LOAD4(off(R13)ix, t3); \
	VFMADD231PD v, t0, a0; \
	VFMADD231PD v, t1, a1; \
	VFMADD231PD v, t2, a2; \
	VFMADD231PD v, t3, a3

// V_TAIL sets Y15 to v's last 4 entries, the lanes of the last cols mod 4
// columns kept and the others zeroed (tailMask); it uses R12 and AX.
#define V_TAIL \
	MOVQ    R9, R12; \
	ANDQ    $3, R12; \
	SHLQ    $5, R12; \
	LEAQ    tailMask<>(SB), AX; \
	VMOVUPD (AX)(R12*1), Y15; \
	VANDPD  -32(DX)(R9*8), Y15, Y15

#define DOT_ROWS(LOAD4, LOAD1, PREFETCH, quadBytes, size, o4, o8, o12) \
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
	VBROADCASTSD magic52<>(SB), Y14; \
	TESTQ  R10, R10; \
	JZ     short; \
	CMPQ   R9, $midRowCols; \
	JLE    mid; \
row: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD X8, X8, X8; \
	XORQ   CX, CX; \
by16: \
	LOAD4((SI)(CX*size), Y4); \
	LOAD4(o4(SI)(CX*size), Y5); \
	LOAD4(o8(SI)(CX*size), Y6); \
	LOAD4(o12(SI)(CX*size), Y7); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	VFMADD231PD 32(DX)(CX*8), Y5, Y1; \
	VFMADD231PD 64(DX)(CX*8), Y6, Y2; \
	VFMADD231PD 96(DX)(CX*8), Y7, Y3; \
	ADDQ        $16, CX; \
	CMPQ        CX, R10; \
	JLT         by16; \
	CMPQ        CX, R11; \
	JGE         singles; \
	LOAD4((SI)(CX*size), Y4); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JGE         singles; \
	LOAD4((SI)(CX*size), Y5); \
	VFMADD231PD (DX)(CX*8), Y5, Y1; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JGE         singles; \
	LOAD4((SI)(CX*size), Y6); \
	VFMADD231PD (DX)(CX*8), Y6, Y2; \
	ADDQ        $4, CX; \
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
mid: \
	V_TAIL; \
	MOVQ         R9, R10; \
	ANDQ         $-8, R10; \
	MOVQ         R9, R12; \
	IMULQ        $size, R12; \
	CMPQ         R12, $quadBytes; \
	JGT          midOne; \
	CMPQ         R8, $4; \
	JLT          midOne; \
midQuad: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7; \
	LEAQ   (SI)(R9*size), BX; \
	LEAQ   (BX)(R9*size), AX; \
	LEAQ   (AX)(R9*size), R13; \
	XORQ   CX, CX; \
midQuadBy8: \
	VMOVUPD     (DX)(CX*8), Y12; \
	VMOVUPD     32(DX)(CX*8), Y13; \
	ROWS4(LOAD4, 0, (CX*size), Y12, Y8, Y9, Y10, Y11, Y0, Y1, Y2, Y3); \
	ROWS4(LOAD4, o4, (CX*size), Y13, Y8, Y9, Y10, Y11, Y4, Y5, Y6, Y7); \
	ADDQ        $8, CX; \
	CMPQ        CX, R10; \
	JLT         midQuadBy8; \
	CMPQ        CX, R11; \
	JGE         midQuadTail; \
	VMOVUPD     (DX)(CX*8), Y12; \
	ROWS4(LOAD4, 0, (CX*size), Y12, Y8, Y9, Y10, Y11, Y0, Y1, Y2, Y3); \
midQuadTail: \
	CMPQ R11, R9; \
	JEQ  midQuadSum; \
	ROWS4(LOAD4, -o4, (R9*size), Y15, Y8, Y9, Y10, Y11, Y4, Y5, Y6, Y7); \
midQuadSum: \
	VADDPD      Y4, Y0, Y0; \
	VADDPD      Y5, Y1, Y1; \
	VADDPD      Y6, Y2, Y2; \
	VADDPD      Y7, Y3, Y3; \
	HSUM4(Y0, Y1, Y2, Y3, Y4, Y5); \
	VMOVUPD     Y4, (DI); \
	ADDQ        $32, DI; \
	LEAQ        (R13)(R9*size), SI; \
	SUBQ        $4, R8; \
	CMPQ        R8, $4; \
	JGE         midQuad; \
midOne: \
	TESTQ  R8, R8; \
	JZ     done; \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y4, Y4, Y4; \
	XORQ   CX, CX; \
midOneBy8: \
	PREFETCH(prefetchAhead(SI)(CX*size)); \
	LOAD4((SI)(CX*size), Y8); \
	VFMADD231PD (DX)(CX*8), Y8, Y0; \
	LOAD4(o4(SI)(CX*size), Y9); \
	VFMADD231PD 32(DX)(CX*8), Y9, Y4; \
	ADDQ        $8, CX; \
	CMPQ        CX, R10; \
	JLT         midOneBy8; \
	CMPQ        CX, R11; \
	JGE         midOneTail; \
	LOAD4((SI)(CX*size), Y8); \
	VFMADD231PD (DX)(CX*8), Y8, Y0; \
midOneTail: \
	CMPQ R11, R9; \
	JEQ  midOneSum; \
	LOAD4(-o4(SI)(R9*size), Y8); \
	VFMADD231PD Y15, Y8, Y4; \
midOneSum: \
	VADDPD       Y4, Y0, Y0; \
	VHADDPD      Y0, Y0, Y0; \
	VEXTRACTF128 $1, Y0, X1; \
	VADDSD       X1, X0, X0; \
	VMOVSD       X0, (DI); \
	ADDQ         $8, DI; \
	LEAQ         (SI)(R9*size), SI; \
	DECQ         R8; \
	JMP          midOne; \
short: \
	TESTQ        R11, R11; \
	JZ           shortRows; \
	V_TAIL; \
shortRows: \
	CMPQ R8, $4; \
	JLT  pairs; \
quad: \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD X8, X8, X8; \
	VXORPD X10, X10, X10; \
	VXORPD X11, X11, X11; \
	VXORPD X12, X12, X12; \
	LEAQ   (SI)(R9*size), BX; \
	LEAQ   (BX)(R9*size), AX; \
	LEAQ   (AX)(R9*size), R13; \
	PREFETCH(prefetchAhead(SI)); \
	PREFETCH(prefetchAhead(BX)); \
	PREFETCH(prefetchAhead(AX)); \
	PREFETCH(prefetchAhead(R13)); \
	PREFETCH(prefetchAhead+64(R13)); \
	XORQ   CX, CX; \
	CMPQ   CX, R11; \
	JGE    quadSingles; \
quadBy4: \
	VMOVUPD     (DX)(CX*8), Y13; \
	ROWS4(LOAD4, 0, (CX*size), Y13, Y4, Y5, Y6, Y7, Y0, Y1, Y2, Y3); \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         quadBy4; \
quadSingles: \
	CMPQ CX, R9; \
	JGE  quadSum; \
	TESTQ R11, R11; \
	JZ    quadBy1; \
	ROWS4(LOAD4, -o4, (R9*size), Y15, Y4, Y5, Y6, Y7, Y0, Y1, Y2, Y3); \
	JMP         quadSum; \
quadBy1: \
	VMOVSD      (DX)(CX*8), X13; \
	LOAD1((SI)(CX*size), X4); \
	VFMADD231SD X13, X4, X8; \
	LOAD1((BX)(CX*size), X5); \
	VFMADD231SD X13, X5, X10; \
	LOAD1((AX)(CX*size), X6); \
	VFMADD231SD X13, X6, X11; \
	LOAD1((R13)(CX*size), X7); \
	VFMADD231SD X13, X7, X12; \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         quadBy1; \
quadSum: \
	HSUM4(Y0, Y1, Y2, Y3, Y4, Y5); \
	VUNPCKLPD   X10, X8, X8; \
	VUNPCKLPD   X12, X11, X11; \
	VINSERTF128 $1, X11, Y8, Y8; \
	VADDPD      Y8, Y4, Y4; \
	VMOVUPD     Y4, (DI); \
	ADDQ        $32, DI; \
	LEAQ        (R13)(R9*size), SI; \
	SUBQ        $4, R8; \
	CMPQ        R8, $4; \
	JGE         quad; \
pairs: \
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
	LOAD4((SI)(CX*size), Y4); \
	LOAD4((BX)(CX*size), Y5); \
	VFMADD231PD Y6, Y4, Y0; \
	VFMADD231PD Y6, Y5, Y1; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         pairBy4; \
pairSingles: \
	CMPQ CX, R9; \
	JGE  pairSum; \
	TESTQ R11, R11; \
	JZ    pairBy1; \
	LOAD4(-o4(SI)(R9*size), Y4); \
	LOAD4(-o4(BX)(R9*size), Y5); \
	VFMADD231PD Y15, Y4, Y0; \
	VFMADD231PD Y15, Y5, Y1; \
	JMP         pairSum; \
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
	LOAD4((SI)(CX*size), Y4); \
	VFMADD231PD (DX)(CX*8), Y4, Y0; \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         oneBy4; \
oneSingles: \
	CMPQ CX, R9; \
	JGE  oneSum; \
	TESTQ R11, R11; \
	JZ    oneBy1; \
	LOAD4(-o4(SI)(R9*size), Y4); \
	VFMADD231PD Y15, Y4, Y0; \
	JMP         oneSum; \
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

// AXPY_ROWS(LOAD4, LOAD1, PREFETCH, size, o4, o8, o12) is the body of
// func axpyRows*AVX2(dst *float64, x *E, v *float64, rows, cols int),
// arguments as for DOT_ROWS: dst[c] += sum_r v[r] x[r*cols+c], each column
// a chain of FMAs in order of r as the Go loop adds (so the result is the
// same, bit for bit, whatever the blocking below).
//
// The rows are taken 4 at a time (quad), v[r..r+3] broadcast in Y12-Y15,
// and the 4 rows are streamed left to right together: each block of 16
// columns of dst is loaded into Y0-Y3, gets the 4 rows' terms in order and
// is stored back (then blocks of 4 in Y0; then the last cols mod 4
// columns: if cols >= 4 as the block of the last 4 columns, of which only
// the new lanes are stored (VMASKMOVPD, mask in Y10), else one at a time
// in X0). The rows left over (rows mod 4) go the same way one at a time
// (one). The FMA chains are 4 long and the blocks independent, so they
// overlap; dst is loaded and stored once per 4 rows.
//
// Rows of 4 to 16 columns (narrow) keep dst in Y0-Y3 through all the rows
// instead (AXPY_NARROW), loaded once and stored once: then a column's
// chain is not held up by a store and a reload (a masked one at that)
// every 4 rows. The finish of a gait partial projection is such a
// contraction, 22 rows of 10 columns a sample.
//
// Rows longer than quadRowBytes all go the one-row way, reading x strictly
// in address order: then the hardware prefetcher keeps up, which it does
// not when 4 rows are read side by side and the group jumps ahead by 4 rows
// (measured with BenchmarkKernelsStream on an AMD EPYC: at rows of 480 bytes
// and more, one row at a time took half the CPU time of 4 at a time; at 256
// bytes and less, 4 at a time took 10-25% less than one). Either way the
// result is the same, bit for bit.
//
// SI is the first row of the group, R13 the row stride in bytes, BX 3 times
// it, AX the group's current column in row 0.
#define quadRowBytes 256

// ROW16(LOAD4, o4, o8, o12, m, v) adds to Y0-Y3 the 16 elements at m of
// one row (loaded into Y4-Y7) times v.
#define ROW16(LOAD4, o4, o8, o12, m, v) \
	LOAD4(m, Y4); \
	LOAD4(o4 m, Y5); \
	LOAD4(o8 m, Y6); \
	LOAD4(o12 m, Y7); \
	VFMADD231PD v, Y4, Y0; \
	VFMADD231PD v, Y5, Y1; \
	VFMADD231PD v, Y6, Y2; \
	VFMADD231PD v, Y7, Y3

// QUAD_COL4(LOAD4) adds to Y0 the 4 elements at AX of each of the group's
// 4 rows (loaded into Y4-Y7) times their v (Y12-Y15), in order of rows.
#define QUAD_COL4(LOAD4) \
	LOAD4((AX), Y4); \
	LOAD4((AX)(R13*1), Y5); \
	LOAD4((AX)(R13*2), Y6); \
	LOAD4((AX)(BX*1), Y7); \
	VFMADD231PD Y12, Y4, Y0; \
	VFMADD231PD Y13, Y5, Y0; \
	VFMADD231PD Y14, Y6, Y0; \
	VFMADD231PD Y15, Y7, Y0

// NARROW_BLOCKS sets CX, R12 and R14 to the first columns of the narrow
// path's blocks at 4, 8 and 12, each moved back to end at cols (R9, 4 to
// 16) at the latest; it uses AX.
#define NARROW_BLOCKS \
	LEAQ    -4(R9), AX; \
	MOVQ    $4, CX; \
	CMPQ    CX, AX; \
	CMOVQGT AX, CX; \
	MOVQ    $8, R12; \
	CMPQ    R12, AX; \
	CMOVQGT AX, R12; \
	MOVQ    $12, R14; \
	CMPQ    R14, AX; \
	CMOVQGT AX, R14

// AXPY_NARROW(MADDS, LOAD4, PREFETCH, size, START) is the narrow path for one
// slab: R8 >= 1 rows of 4 to 16 columns (R9) from SI, R13 bytes apart,
// their v from DX, into the dst at DI, held in Y0-Y3 through all the rows
// as the 4 blocks of 4 columns at 0, CX, R12 and R14 (NARROW_BLOCKS;
// blocks that overlap compute their shared columns in the same order, to
// the same bits), started by START (START_DST: dst's values; START_ZERO:
// +0) and stored once. It leaves SI past the last row and DX past its v,
// and uses Y4-Y7 and Y12. AXPY_ROWS takes it for its one slab on dst,
// axpySlabsF64StreamAVX2 for each of its slabs from +0.
#define START_DST(mem, yreg) VMOVUPD mem, yreg
#define START_ZERO(mem, yreg) VXORPD yreg, yreg, yreg

// MADDS(LOAD4, size) adds the row's 4 blocks at SI times v (Y12) to
// Y0-Y3: NARROW_LOADS loads them first (LOAD4, into Y4-Y7), NARROW_F64
// (float64) takes them as the FMAs' memory operands. In cache the loop
// takes about one FMA latency a row (a gait sample's 704 rows in 0.86 us),
// bound by its 4 chains; with 4 instructions fewer a row, presumably more
// of the next slab's independent chains overlap a slab's last rows:
// axpySlabsF64StreamAVX2 over 4 gait samples in cache (as
// BenchmarkAxpySlabs/4x32x22x10) took 5-7% more time by the min, 7-9% by
// paired medians, with NARROW_LOADS than with NARROW_F64 or with the loop
// this one replaced (in one process, the kernels alternated pass by pass,
// 400 and 1,500 rounds, chrt); from memory (731 samples) all three took
// the same. AXPY_ROWS keeps NARROW_LOADS: its machine code is the same,
// byte for byte, as before AXPY_NARROW was shared.
#define NARROW_LOADS(LOAD4, size) \
	LOAD4((SI), Y4); \
	LOAD4((SI)(CX*size), Y5); \
	LOAD4((SI)(R12*size), Y6); \
	LOAD4((SI)(R14*size), Y7); \
	VFMADD231PD Y12, Y4, Y0; \
	VFMADD231PD Y12, Y5, Y1; \
	VFMADD231PD Y12, Y6, Y2; \
	VFMADD231PD Y12, Y7, Y3
#define NARROW_F64(LOAD4, size) \
	VFMADD231PD (SI), Y12, Y0; \
	VFMADD231PD (SI)(CX*8), Y12, Y1; \
	VFMADD231PD (SI)(R12*8), Y12, Y2; \
	VFMADD231PD (SI)(R14*8), Y12, Y3

#define AXPY_NARROW(MADDS, LOAD4, PREFETCH, size, START) \
	START((DI), Y0); \
	START((DI)(CX*8), Y1); \
	START((DI)(R12*8), Y2); \
	START((DI)(R14*8), Y3); \
narrowRow: \
	PREFETCH(prefetchAhead(SI)); \
	PREFETCH(prefetchAhead+64(SI)); \
	VBROADCASTSD (DX), Y12; \
	MADDS(LOAD4, size); \
	ADDQ $8, DX; \
	ADDQ R13, SI; \
	DECQ R8; \
	JNZ  narrowRow; \
	VMOVUPD Y3, (DI)(R14*8); \
	VMOVUPD Y2, (DI)(R12*8); \
	VMOVUPD Y1, (DI)(CX*8); \
	VMOVUPD Y0, (DI)

#define AXPY_ROWS(LOAD4, LOAD1, PREFETCH, size, o4, o8, o12) \
	MOVQ    dst+0(FP), DI; \
	MOVQ    x+8(FP), SI; \
	MOVQ    v+16(FP), DX; \
	MOVQ    rows+24(FP), R8; \
	MOVQ    cols+32(FP), R9; \
	MOVQ    R9, R10; \
	ANDQ    $-16, R10; \
	MOVQ    R9, R11; \
	ANDQ    $-4, R11; \
	MOVQ    R9, R13; \
	IMULQ   $size, R13; \
	LEAQ    (R13)(R13*2), BX; \
	VXORPD  X9, X9, X9; \
	VBROADCASTSD magic52<>(SB), Y11; \
	MOVQ    R9, AX; \
	ANDQ    $3, AX; \
	SHLQ    $5, AX; \
	LEAQ    tailMask<>(SB), R12; \
	VMOVUPD (R12)(AX*1), Y10; \
	CMPQ    R9, $4; \
	JLT     wide; \
	CMPQ    R9, $16; \
	JLE     narrow; \
wide: \
	CMPQ    R13, $quadRowBytes; \
	JGT     one; \
	CMPQ    R8, $4; \
	JLT     one; \
quad: \
	VBROADCASTSD (DX), Y12; \
	VBROADCASTSD 8(DX), Y13; \
	VBROADCASTSD 16(DX), Y14; \
	VBROADCASTSD 24(DX), Y15; \
	XORQ         CX, CX; \
	CMPQ         CX, R10; \
	JGE          quad4; \
quad16: \
	LEAQ        (SI)(CX*size), AX; \
	VMOVUPD     (DI)(CX*8), Y0; \
	VMOVUPD     32(DI)(CX*8), Y1; \
	VMOVUPD     64(DI)(CX*8), Y2; \
	VMOVUPD     96(DI)(CX*8), Y3; \
	ROW16(LOAD4, o4, o8, o12, (AX), Y12); \
	ROW16(LOAD4, o4, o8, o12, (AX)(R13*1), Y13); \
	ROW16(LOAD4, o4, o8, o12, (AX)(R13*2), Y14); \
	ROW16(LOAD4, o4, o8, o12, (AX)(BX*1), Y15); \
	VMOVUPD     Y0, (DI)(CX*8); \
	VMOVUPD     Y1, 32(DI)(CX*8); \
	VMOVUPD     Y2, 64(DI)(CX*8); \
	VMOVUPD     Y3, 96(DI)(CX*8); \
	ADDQ        $16, CX; \
	CMPQ        CX, R10; \
	JLT         quad16; \
quad4: \
	CMPQ CX, R11; \
	JGE  quadTail; \
quad4Loop: \
	LEAQ        (SI)(CX*size), AX; \
	VMOVUPD     (DI)(CX*8), Y0; \
	QUAD_COL4(LOAD4); \
	VMOVUPD     Y0, (DI)(CX*8); \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         quad4Loop; \
quadTail: \
	CMPQ  CX, R9; \
	JGE   quadNext; \
	TESTQ R11, R11; \
	JZ    quad1; \
	LEAQ        -o4(SI)(R9*size), AX; \
	VMOVUPD     -32(DI)(R9*8), Y0; \
	QUAD_COL4(LOAD4); \
	VMASKMOVPD  Y0, Y10, -32(DI)(R9*8); \
	JMP         quadNext; \
quad1: \
	LEAQ        (SI)(CX*size), AX; \
	VMOVSD      (DI)(CX*8), X0; \
	LOAD1((AX), X4); \
	VFMADD231SD X12, X4, X0; \
	LOAD1((AX)(R13*1), X4); \
	VFMADD231SD X13, X4, X0; \
	LOAD1((AX)(R13*2), X4); \
	VFMADD231SD X14, X4, X0; \
	LOAD1((AX)(BX*1), X4); \
	VFMADD231SD X15, X4, X0; \
	VMOVSD      X0, (DI)(CX*8); \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         quad1; \
quadNext: \
	ADDQ $32, DX; \
	LEAQ (SI)(R13*4), SI; \
	SUBQ $4, R8; \
	CMPQ R8, $4; \
	JGE  quad; \
one: \
	TESTQ R8, R8; \
	JZ    done; \
	VBROADCASTSD (DX), Y12; \
	XORQ         CX, CX; \
	CMPQ         CX, R10; \
	JGE          one4; \
one16: \
	LEAQ        (SI)(CX*size), AX; \
	PREFETCH(prefetchAhead(AX)); \
	PREFETCH(prefetchAhead+64(AX)); \
	VMOVUPD     (DI)(CX*8), Y0; \
	VMOVUPD     32(DI)(CX*8), Y1; \
	VMOVUPD     64(DI)(CX*8), Y2; \
	VMOVUPD     96(DI)(CX*8), Y3; \
	ROW16(LOAD4, o4, o8, o12, (AX), Y12); \
	VMOVUPD     Y0, (DI)(CX*8); \
	VMOVUPD     Y1, 32(DI)(CX*8); \
	VMOVUPD     Y2, 64(DI)(CX*8); \
	VMOVUPD     Y3, 96(DI)(CX*8); \
	ADDQ        $16, CX; \
	CMPQ        CX, R10; \
	JLT         one16; \
one4: \
	CMPQ CX, R11; \
	JGE  oneTail; \
one4Loop: \
	LEAQ        (SI)(CX*size), AX; \
	PREFETCH(prefetchAhead(AX)); \
	VMOVUPD     (DI)(CX*8), Y0; \
	LOAD4((AX), Y4); \
	VFMADD231PD Y12, Y4, Y0; \
	VMOVUPD     Y0, (DI)(CX*8); \
	ADDQ        $4, CX; \
	CMPQ        CX, R11; \
	JLT         one4Loop; \
oneTail: \
	CMPQ  CX, R9; \
	JGE   oneNext; \
	TESTQ R11, R11; \
	JZ    one1; \
	LEAQ        -o4(SI)(R9*size), AX; \
	VMOVUPD     -32(DI)(R9*8), Y0; \
	LOAD4((AX), Y4); \
	VFMADD231PD Y12, Y4, Y0; \
	VMASKMOVPD  Y0, Y10, -32(DI)(R9*8); \
	JMP         oneNext; \
one1: \
	LEAQ        (SI)(CX*size), AX; \
	VMOVSD      (DI)(CX*8), X0; \
	LOAD1((AX), X4); \
	VFMADD231SD X12, X4, X0; \
	VMOVSD      X0, (DI)(CX*8); \
	INCQ        CX; \
	CMPQ        CX, R9; \
	JLT         one1; \
oneNext: \
	ADDQ $8, DX; \
	ADDQ R13, SI; \
	DECQ R8; \
	JMP  one; \
narrow: \
	TESTQ   R8, R8; \
	JZ      done; \
	NARROW_BLOCKS; \
	AXPY_NARROW(NARROW_LOADS, LOAD4, PREFETCH, size, START_DST); \
done: \
	VZEROUPPER; \
	RET

// func dotRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
TEXT ·dotRowsU8AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_U8, LOAD1_U8, PREFETCH_NONE, allQuadRowBytes, 1, 4, 8, 12)

// func dotRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·dotRowsF32AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F32, LOAD1_F32, PREFETCH_NONE, allQuadRowBytes, 4, 16, 32, 48)

// func dotRowsF32StreamAVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·dotRowsF32StreamAVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F32, LOAD1_F32, PREFETCH_L2, midQuadRowBytes, 4, 16, 32, 48)

// func dotRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·dotRowsF64AVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F64, LOAD1_F64, PREFETCH_NONE, allQuadRowBytes, 8, 32, 64, 96)

// func dotRowsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·dotRowsF64StreamAVX2(SB), NOSPLIT, $0-40
	DOT_ROWS(LOAD4_F64, LOAD1_F64, PREFETCH_L2, midQuadRowBytes, 8, 32, 64, 96)

// func axpyRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)
TEXT ·axpyRowsU8AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_U8A, LOAD1_U8, PREFETCH_NONE, 1, 4, 8, 12)

// func axpyRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·axpyRowsF32AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F32, LOAD1_F32, PREFETCH_NONE, 4, 16, 32, 48)

// func axpyRowsF32StreamAVX2(dst *float64, x *float32, v *float64, rows, cols int)
TEXT ·axpyRowsF32StreamAVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F32, LOAD1_F32, PREFETCH_L2, 4, 16, 32, 48)

// func axpyRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·axpyRowsF64AVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F64, LOAD1_F64, PREFETCH_NONE, 8, 32, 64, 96)

// func axpyRowsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols int)
TEXT ·axpyRowsF64StreamAVX2(SB), NOSPLIT, $0-40
	AXPY_ROWS(LOAD4_F64, LOAD1_F64, PREFETCH_L2, 8, 32, 64, 96)

// func gram3x4AVX2(out *float64, a *float64, lda int, b *float64, ldb int, k int)
//
// out[4*i+j] = sum_c a[i*lda+c] b[j*ldb+c] for i < 3, j < 4 and c < k,
// k a positive multiple of 4 (strides in elements): the 3 x 4 block of
// dot products of gramBlock (pca.go). Lane l of accumulator Y(4i+j) sums
// the terms c = l mod 4 in order of c; the 4 lanes are then summed as
// (l0 + l1) + (l2 + l3). Registers: DI out, SI a, R8 a stride in bytes,
// DX b, R9 b stride, CX k in bytes, AX byte offset, Y0-Y11 accumulators,
// Y12-Y14 a's rows, Y15 one row of b.
TEXT ·gram3x4AVX2(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), DI
	MOVQ   a+8(FP), SI
	MOVQ   lda+16(FP), R8
	SHLQ   $3, R8
	MOVQ   b+24(FP), DX
	MOVQ   ldb+32(FP), R9
	SHLQ   $3, R9
	MOVQ   k+40(FP), CX
	SHLQ   $3, CX
	LEAQ   (SI)(R8*1), R10  // a row 1
	LEAQ   (SI)(R8*2), R11  // a row 2
	LEAQ   (DX)(R9*1), R12  // b row 1
	LEAQ   (DX)(R9*2), R13  // b row 2
	LEAQ   (R13)(R9*1), BX  // b row 3
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ   AX, AX

gramLoop:
	VMOVUPD     (SI)(AX*1), Y12
	VMOVUPD     (R10)(AX*1), Y13
	VMOVUPD     (R11)(AX*1), Y14
	VMOVUPD     (DX)(AX*1), Y15
	VFMADD231PD Y12, Y15, Y0
	VFMADD231PD Y13, Y15, Y4
	VFMADD231PD Y14, Y15, Y8
	VMOVUPD     (R12)(AX*1), Y15
	VFMADD231PD Y12, Y15, Y1
	VFMADD231PD Y13, Y15, Y5
	VFMADD231PD Y14, Y15, Y9
	VMOVUPD     (R13)(AX*1), Y15
	VFMADD231PD Y12, Y15, Y2
	VFMADD231PD Y13, Y15, Y6
	VFMADD231PD Y14, Y15, Y10
	VMOVUPD     (BX)(AX*1), Y15
	VFMADD231PD Y12, Y15, Y3
	VFMADD231PD Y13, Y15, Y7
	VFMADD231PD Y14, Y15, Y11
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         gramLoop

	// Horizontal sums, 4 accumulators at a time.
	HSUM4(Y0, Y1, Y2, Y3, Y12, Y13)
	VMOVUPD      Y12, (DI)
	HSUM4(Y4, Y5, Y6, Y7, Y12, Y13)
	VMOVUPD      Y12, 32(DI)
	HSUM4(Y8, Y9, Y10, Y11, Y12, Y13)
	VMOVUPD      Y12, 64(DI)
	VZEROUPPER
	RET

// func gramCols4x8AVX2(out *float64, ldo int, a *float64, b *float64, ld int, m int)
//
// out[i*ldo+j] = sum_r a[r*ld+i] b[r*ld+j] for i < 4, j < 8 and r < m
// (ld and ldo in elements, m >= 1): a 4 x 8 block of Y^T Y for Y (m x ld,
// row-major), a and b pointing at its columns i0 and j0 (gramCols in
// kernel.go), stored straight into rows of S (ldo its stride) or into a
// scratch block (ldo = 8). Each of the 32 sums is one chain of FMAs in
// order of r from zero, as math.FMA gives it (gramColsGo). Registers: DI
// out, R9 ldo in bytes, SI a, DX b, R8 the row stride in bytes, CX rows
// left, Y0-Y7 the accumulators (row i of the block in Y(2i), Y(2i+1)),
// Y8-Y9 b's 8 columns, Y10-Y13 a's 4 entries broadcast.
TEXT ·gramCols4x8AVX2(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), DI
	MOVQ   ldo+8(FP), R9
	SHLQ   $3, R9
	MOVQ   a+16(FP), SI
	MOVQ   b+24(FP), DX
	MOVQ   ld+32(FP), R8
	SHLQ   $3, R8
	MOVQ   m+40(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

gramColsLoop:
	VMOVUPD      (DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD (SI), Y10
	VBROADCASTSD 8(SI), Y11
	VBROADCASTSD 16(SI), Y12
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y10, Y8, Y0
	VFMADD231PD  Y10, Y9, Y1
	VFMADD231PD  Y11, Y8, Y2
	VFMADD231PD  Y11, Y9, Y3
	VFMADD231PD  Y12, Y8, Y4
	VFMADD231PD  Y12, Y9, Y5
	VFMADD231PD  Y13, Y8, Y6
	VFMADD231PD  Y13, Y9, Y7
	ADDQ         R8, SI
	ADDQ         R8, DX
	DECQ         CX
	JNZ          gramColsLoop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    R9, DI
	VMOVUPD Y2, (DI)
	VMOVUPD Y3, 32(DI)
	ADDQ    R9, DI
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ    R9, DI
	VMOVUPD Y6, (DI)
	VMOVUPD Y7, 32(DI)
	VZEROUPPER
	RET

// func axpySlabsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols, slabs int)
//
// For each of slabs slabs s of rows x cols float64 (x + s*rows*cols, 4 <= cols
// <= 16): dst[s*cols+c] = sum_r v[r] x[s*rows*cols+r*cols+c], each column a
// chain of FMAs in order of r from +0: axpyRowsF64StreamAVX2's narrow path
// (AXPY_NARROW, its prefetches too) on each slab from +0, bit for bit
// (TestAxpySlabsExact), one slab after the other in one call: the gait
// samples' middle-mode contraction is 32 slabs of 22 x 10 a sample, one
// axpyRows call each before. Taking two slabs at a time, their eight
// chains side by side, cost as little CPU on samples in cache but read two
// streams 1,760 bytes apart, and from memory took a quarter longer than
// one at a time. The uint8 fit's call (contractor.finishLead: a grain's
// 16 slabs of 22 x 10 of the cache X x_1 u^(1)) is no faster with them
// either, though it looks in cache: two at a time (without prefetches, or
// with T1 at 4 or 8 KiB ahead, T0 at 2 or 4 KiB) took 0.68-0.74 of the
// time on 4 grains in L2 and 0.82-0.88 on 46 (1.3 MB), in one process
// alternated with this kernel (200-400 rounds, chrt), but 0.99-1.02 on
// 46 grains rewritten after a 4 MB sweep; in the fit the mode-3 pass
// reads the cache filled by the pass before (a fromZ pass, 1.3 MB against
// 512 KB of L2), and perf record (5 kHz, 4 rounds of 4 one-thread gait
// uint8 fits, the variants alternated) counted 455-561 samples in this
// kernel a round against 461-736, 487-819 and 449-715 for the pair
// kernels without prefetches, T1 at 8 and at 4 KiB: not kept (2026-11-27
// (7)).
//
// Registers as in AXPY_NARROW (SI runs on from one slab to the next), and
// R10 the slabs left.
TEXT ·axpySlabsF64StreamAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ cols+32(FP), R9
	MOVQ slabs+40(FP), R10
	MOVQ R9, R13
	SHLQ $3, R13
	NARROW_BLOCKS

slab:
	MOVQ v+16(FP), DX
	MOVQ rows+24(FP), R8
	AXPY_NARROW(NARROW_F64, LOAD4_F64, PREFETCH_L2, 8, START_ZERO)
	LEAQ (DI)(R9*8), DI
	DECQ R10
	JNZ  slab
	VZEROUPPER
	RET

// func sumU8AVX2(s *float64, x *uint8, cnt, size, n int)
//
// s[j] = sum_{i < cnt} x[i*size+j] for j < n (n a positive multiple of
// 32, cnt < 2^23): sumU8's columns by 32, each sample's 32 bytes widened
// to int32 (VPMOVZXBD) and added into Y0-Y3 through the cnt samples, then
// converted to float64 once (exact: the sums are below 2^31). Registers:
// DI s, SI x, R8 cnt, R9 size (the sample stride), R10 n, CX the column,
// AX the sample's row, DX the samples left.
TEXT ·sumU8AVX2(SB), NOSPLIT, $0-40
	MOVQ s+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ cnt+16(FP), R8
	MOVQ size+24(FP), R9
	MOVQ n+32(FP), R10
	XORQ CX, CX

sumCols:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	LEAQ  (SI)(CX*1), AX
	MOVQ  R8, DX

sumSample:
	VPMOVZXBD (AX), Y4
	VPMOVZXBD 8(AX), Y5
	VPMOVZXBD 16(AX), Y6
	VPMOVZXBD 24(AX), Y7
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	VPADDD    Y6, Y2, Y2
	VPADDD    Y7, Y3, Y3
	ADDQ      R9, AX
	DECQ      DX
	JNZ       sumSample
	VCVTDQ2PD    X0, Y4
	VEXTRACTI128 $1, Y0, X0
	VCVTDQ2PD    X0, Y5
	VCVTDQ2PD    X1, Y6
	VEXTRACTI128 $1, Y1, X1
	VCVTDQ2PD    X1, Y7
	VMOVUPD      Y4, (DI)(CX*8)
	VMOVUPD      Y5, 32(DI)(CX*8)
	VMOVUPD      Y6, 64(DI)(CX*8)
	VMOVUPD      Y7, 96(DI)(CX*8)
	VCVTDQ2PD    X2, Y4
	VEXTRACTI128 $1, Y2, X2
	VCVTDQ2PD    X2, Y5
	VCVTDQ2PD    X3, Y6
	VEXTRACTI128 $1, Y3, X3
	VCVTDQ2PD    X3, Y7
	VMOVUPD      Y4, 128(DI)(CX*8)
	VMOVUPD      Y5, 160(DI)(CX*8)
	VMOVUPD      Y6, 192(DI)(CX*8)
	VMOVUPD      Y7, 224(DI)(CX*8)
	ADDQ         $32, CX
	CMPQ         CX, R10
	JLT          sumCols
	VZEROUPPER
	RET
