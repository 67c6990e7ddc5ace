//go:build !purego

#include "textflag.h"

// AVX2 kernels for the exact uint8 contractions of fixed.go; see
// fixed_amd64.go. Each 16 bytes of x are widened once to 16 words
// (VPMOVZXBW) and multiplied by the int16 limbs with VPMADDWD, which adds
// pairs of products into 8 int32 lanes; the lanes are summed and widened
// to int64 before they can overflow, and every result ends as
// fixedVec.combine does, so the bits are those of the Go loops.
//
// Bounds: a VPMADDWD lane is x a + x' a' with x, x' <= 255 and
// |a|, |a'| <= 2^15, at most 16711680 < 2^24 in magnitude; k of them sum to
// less than 2^31 for k <= 128.

// shiftTab+k, k in 1..15, is the VPSHUFB control that moves bytes k..15
// of a vector to 0..15-k (and zeroes the rest): the tail of a row whose
// 16-byte load would run past the end of x is loaded as the 16 bytes that
// end there and shifted down.
DATA shiftTab<>+0(SB)/8, $0x0706050403020100
DATA shiftTab<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA shiftTab<>+16(SB)/8, $0x8080808080808080
DATA shiftTab<>+24(SB)/8, $0x8080808080808080
GLOBL shiftTab<>(SB), RODATA|NOPTR, $32

// CONST4(name, bits) defines name<> as 4 float64 lanes of the bits.
#define CONST4(name, bits) \
	DATA  name<>+0(SB)/8, bits \
	DATA  name<>+8(SB)/8, bits \
	DATA  name<>+16(SB)/8, bits \
	DATA  name<>+24(SB)/8, bits \
	GLOBL name<>(SB), RODATA|NOPTR, $32

// Exact int64 -> float64 of 4 lanes v = h 2^32 + l (h signed, l unsigned
// 32 bits), rounded to nearest as CVTSI2SD: the double 2^52 + l (l in the
// mantissa of 2^52: i2dLo), the double 2^84 + (h + 2^31) 2^32 (h + 2^31 in
// the mantissa of 2^84: i2dHi) minus 2^84 + 2^63 + 2^52 (i2dSub), which is
// h 2^32 - 2^52 exactly, and their sum, rounded once.
CONST4(i2dLo, $0x4330000000000000)
CONST4(i2dHi, $0x4530000080000000)
CONST4(i2dSub, $0x4530000080100000)

// pow30one is (2^30, 1, 2^30, 1): float64(t1) 2^30 (exact) beside
// float64(t2), for VHADDPD to add.
DATA pow30one<>+0(SB)/8, $0x41d0000000000000
DATA pow30one<>+8(SB)/8, $0x3ff0000000000000
DATA pow30one<>+16(SB)/8, $0x41d0000000000000
DATA pow30one<>+24(SB)/8, $0x3ff0000000000000
GLOBL pow30one<>(SB), RODATA|NOPTR, $32

CONST4(pow30, $0x41d0000000000000)

DATA pow15<>+0(SB)/8, $0x40e0000000000000
GLOBL pow15<>(SB), RODATA|NOPTR, $8

// MADD(a, b, acc, t) adds the pairs of products of the words of a and b
// (VPMADDWD, into t) to the int32 lanes of acc; MADD_VNNI does it in one
// instruction, VPDPWSSD (AVX512-VNNI on 256 bits, EVEX), which adds the
// same products without saturation: the same sums, one instruction fewer
// a step. The kernels take the VNNI loops when their vnni argument is set.
#define MADD(a, b, acc, t) \
	VPMADDWD a, b, t \
	VPADDD   t, acc, acc

#define MADD_VNNI(a, b, acc, t) \
	VPDPWSSD a, b, acc

// ZERO_Y0_Y7 zeroes the int32 accumulators Y0-Y7.
#define ZERO_Y0_Y7 \
	VPXOR Y0, Y0, Y0 \
	VPXOR Y1, Y1, Y1 \
	VPXOR Y2, Y2, Y2 \
	VPXOR Y3, Y3, Y3 \
	VPXOR Y4, Y4, Y4 \
	VPXOR Y5, Y5, Y5 \
	VPXOR Y6, Y6, Y6 \
	VPXOR Y7, Y7, Y7

// DOT_STEP(xa, xb, M) adds the products of the 16 words of xa (row A) and
// xb (row B) with the limbs at column CX (loaded once into Y12-Y15 for
// both rows) to the int32 accumulators Y0-Y3 (row A, limbs 0-3) and Y4-Y7
// (row B), by M (MADD or MADD_VNNI).
#define DOT_STEP(xa, xb, M) \
	VMOVDQU  (DX)(CX*2), Y12 \
	VMOVDQU  (AX)(CX*2), Y13 \
	VMOVDQU  (R12)(CX*2), Y14 \
	VMOVDQU  (R13)(CX*2), Y15 \
	M(Y12, xa, Y0, Y10) \
	M(Y12, xb, Y4, Y11) \
	M(Y13, xa, Y1, Y10) \
	M(Y13, xb, Y5, Y11) \
	M(Y14, xa, Y2, Y10) \
	M(Y14, xb, Y6, Y11) \
	M(Y15, xa, Y3, Y10) \
	M(Y15, xb, Y7, Y11)

// DOT_BLOCK(M) is DOT_STEP by M of the 16 bytes of rows A and B at column
// CX, then CX to the next 16, compared with the chunk's end R8.
#define DOT_BLOCK(M) \
	VPMOVZXBW (SI)(CX*1), Y8 \
	VPMOVZXBW (BX)(CX*1), Y9 \
	DOT_STEP(Y8, Y9, M) \
	ADDQ      $16, CX \
	CMPQ      CX, R8

// DOT_RED(a0, a1, a2, a3, t) sums the int32 lanes of one row's
// accumulators a0-a3 (limbs 0-3) by limb within each 128-bit half, into
// a0 = (s0, s1, s2, s3 of the low half | of the high half), by unpacks
// and adds (VPHADDD takes twice as long on Zen 3); t is scratch. The sums
// are of 4 lanes: at most 32 steps a lane, 4 x 32 x 16711680 < 2^31.
#define DOT_RED(a0, a1, a2, a3, t) \
	VPUNPCKLDQ  a1, a0, t \
	VPUNPCKHDQ  a1, a0, a0 \
	VPADDD      t, a0, a0 \
	VPUNPCKLDQ  a3, a2, t \
	VPUNPCKHDQ  a3, a2, a2 \
	VPADDD      t, a2, a2 \
	VPUNPCKLQDQ a2, a0, t \
	VPUNPCKHQDQ a2, a0, a0 \
	VPADDD      t, a0, a0

// DOT_FOLD(a0, a1, a2, a3, xa0, s) adds one row's sums by limb (DOT_RED),
// the two halves widened to int64, to s(SP) = (s0, s1, s2, s3) int64.
#define DOT_FOLD(a0, a1, a2, a3, xa0, s) \
	DOT_RED(a0, a1, a2, a3, Y10) \
	VPMOVSXDQ    xa0, Y10 \
	VEXTRACTI128 $1, a0, xa0 \
	VPMOVSXDQ    xa0, a0 \
	VPADDQ       s(SP), Y10, Y10 \
	VPADDQ       a0, Y10, Y10 \
	VMOVDQU      Y10, s(SP)

// dotChunk is the number of columns of a chunk, 31 vectors of 16: with a
// tail vector 32 VPMADDWD steps a lane at most (DOT_FOLD).
#define dotChunk 496

// func dotRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64, vnni bool)
//
// Rows two at a time (A at SI, B at BX; an odd last row is its own B and
// only its A result is stored), sharing each limb load and the final
// combination. Columns by 16 in chunks of dotChunk, each chunk's int32
// sums folded into int64 (on the stack); the last cols mod 16
// columns as one more vector of 16 bytes: read in place when 16 bytes
// from there are inside x (bytes past the row meet the limbs' zero
// padding), else as the 16 bytes ending at the end of x, shifted down
// (shiftTab), so nothing outside x is read. The caller guarantees
// rows >= 1, fixedQuadMax < cols <= ld (shorter rows take
// dotRowsFixedQuadAVX2), ld a multiple of 16 and limbs zero past cols.
// With vnni the chunks' steps take MADD_VNNI (the tail step MADD).
//
// Registers: DI dst, SI/BX rows A/B, DX/AX/R12/R13 limb rows 0-3, CX
// column, R8 chunk end, R9 cols &^ 15, R10 cols, R11 end of x; Y12-Y15
// the limbs of a step; on the stack 0(SP) rows left, 8(SP) and 40(SP)
// the int64 sums of A and B, 72(SP) scale in 4 lanes.
TEXT ·dotRowsFixedAVX2(SB), NOSPLIT, $104-57
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ limbs+16(FP), DX
	MOVQ ld+24(FP), R8
	SHLQ $1, R8
	LEAQ (DX)(R8*1), AX
	LEAQ (AX)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	MOVQ rows+32(FP), R9
	MOVQ R9, 0(SP)
	MOVQ cols+40(FP), R10
	IMULQ R10, R9
	LEAQ (SI)(R9*1), R11
	MOVQ R10, R9
	ANDQ $-16, R9
	VBROADCASTSD scale+48(FP), Y10
	VMOVUPD Y10, 72(SP)

dpair:
	LEAQ (SI)(R10*1), BX
	CMPQ 0(SP), $1
	JNE  dtwo
	MOVQ SI, BX

dtwo:
	VPXOR   Y10, Y10, Y10
	VMOVDQU Y10, 8(SP)
	VMOVDQU Y10, 40(SP)
	XORQ    CX, CX

dchunk:
	ZERO_Y0_Y7
	LEAQ  dotChunk(CX), R8
	CMPQ  R8, R9
	CMOVQGT R9, R8
	CMPQ  CX, R8
	JGE   dblocksdone
	CMPB  vnni+56(FP), $0
	JNE   dblockvnni

dblock:
	DOT_BLOCK(MADD)
	JLT  dblock
	JMP  dblocksdone

dblockvnni:
	DOT_BLOCK(MADD_VNNI)
	JLT  dblockvnni

dblocksdone:
	CMPQ CX, R9
	JLT  dfold
	CMPQ CX, R10
	JGE  dfold

	// The tail of row A: 16 bytes at SI+R9 if inside x, else shifted.
	LEAQ (SI)(R9*1), R8
	MOVQ R11, CX
	SUBQ R8, CX
	CMPQ CX, $16
	JLT  dtailashift
	VPMOVZXBW (R8), Y8
	JMP  dtailb

dtailashift:
	NEGQ CX
	ADDQ $16, CX
	LEAQ shiftTab<>(SB), R8
	VMOVDQU (R8)(CX*1), X10
	VMOVDQU -16(R11), X8
	VPSHUFB X10, X8, X8
	VPMOVZXBW X8, Y8

dtailb:
	LEAQ (BX)(R9*1), R8
	MOVQ R11, CX
	SUBQ R8, CX
	CMPQ CX, $16
	JLT  dtailbshift
	VPMOVZXBW (R8), Y9
	JMP  dtailstep

dtailbshift:
	NEGQ CX
	ADDQ $16, CX
	LEAQ shiftTab<>(SB), R8
	VMOVDQU (R8)(CX*1), X10
	VMOVDQU -16(R11), X9
	VPSHUFB X10, X9, X9
	VPMOVZXBW X9, Y9

dtailstep:
	MOVQ R9, CX
	DOT_STEP(Y8, Y9, MADD)
	MOVQ R10, CX

dfold:
	DOT_FOLD(Y0, Y1, Y2, Y3, X0, 8)
	DOT_FOLD(Y4, Y5, Y6, Y7, X4, 40)
	CMPQ CX, R9
	JLT  dchunk

	// (s0, s1, s2, s3) of A in Y12, of B in Y13: t1 = s0 2^15 + s1 and
	// t2 = s2 2^15 + s3 as (t1A, t2A, t1B, t2B), then to float64 exactly
	// as CVTSI2SD would, then t1 2^30 + t2 (one rounding) times scale.
	VMOVDQU 8(SP), Y12
	VMOVDQU 40(SP), Y13
	VPERM2I128 $0x20, Y13, Y12, Y10
	VPERM2I128 $0x31, Y13, Y12, Y11
	VPUNPCKLQDQ Y11, Y10, Y0
	VPUNPCKHQDQ Y11, Y10, Y1
	VPSLLQ $15, Y0, Y0
	VPADDQ Y1, Y0, Y0
	VPBLENDD $0xaa, i2dLo<>(SB), Y0, Y1
	VPSRLQ $32, Y0, Y2
	VPXOR i2dHi<>(SB), Y2, Y2
	VSUBPD i2dSub<>(SB), Y2, Y2
	VADDPD Y1, Y2, Y0
	VMULPD pow30one<>(SB), Y0, Y0
	VHADDPD Y0, Y0, Y0
	VMULPD 72(SP), Y0, Y0
	VMOVSD X0, (DI)
	CMPQ 0(SP), $1
	JEQ  ddone
	VEXTRACTF128 $1, Y0, X1
	VMOVSD X1, 8(DI)
	ADDQ $16, DI
	LEAQ (BX)(R10*1), SI
	SUBQ $2, 0(SP)
	JGT  dpair

ddone:
	VZEROUPPER
	RET

// AXPY_PAIR(xb, off, M) adds the products of the 16 words of Y8 (a row r)
// and xb (row r+1, or zero) at the current column block with the limb
// pairs (limb[r], limb[r+1]) at off(DX) to the int32 accumulators, by M
// (MADD or MADD_VNNI): Y(2l) holds columns 0-3 and 8-11 of limb l,
// Y(2l+1) columns 4-7 and 12-15.
#define AXPY_PAIR(xb, off, M) \
	VPUNPCKLWD xb, Y8, Y10 \
	VPUNPCKHWD xb, Y8, Y11 \
	VPBROADCASTD off(DX), Y12 \
	M(Y12, Y10, Y0, Y13) \
	M(Y12, Y11, Y1, Y13) \
	VPBROADCASTD off(DX)(R8*1), Y12 \
	M(Y12, Y10, Y2, Y13) \
	M(Y12, Y11, Y3, Y13) \
	VPBROADCASTD off(DX)(R8*2), Y12 \
	M(Y12, Y10, Y4, Y13) \
	M(Y12, Y11, Y5, Y13) \
	VPBROADCASTD off(DX)(R9*1), Y12 \
	M(Y12, Y10, Y6, Y13) \
	M(Y12, Y11, Y7, Y13)

// AXPY_PAIRS2(M) takes the rows r..r+3 at SI, the limb pairs at DX, by M
// (AXPY_PAIR), prefetches the line at R14, steps to the next four rows
// and counts two pairs off CX (setting the flags for the loop's JNZ).
#define AXPY_PAIRS2(M) \
	VPMOVZXBW (SI), Y8 \
	VPMOVZXBW (SI)(R10*1), Y9 \
	AXPY_PAIR(Y9, 0, M) \
	PREFETCHT0 (R14) \
	VPMOVZXBW (SI)(R11*1), Y8 \
	VPMOVZXBW (SI)(BX*1), Y9 \
	AXPY_PAIR(Y9, 4, M) \
	LEAQ (SI)(R11*2), SI \
	ADDQ $64, R14 \
	ADDQ $8, DX \
	SUBQ $2, CX

// AXPY_PAIR_Z(xb, off) is AXPY_PAIR by VPDPWSSD on 512 bits, for a
// block of 32 columns: Y8 and xb are Z registers of 32 words, Z0-Z7 the
// accumulators. The unpacks work within 128-bit lanes, so the low half of
// Z(2l) (Z(2l+1)) is AXPY_PAIR's Y(2l) (Y(2l+1)) for the block's first 16
// columns and the high half that of its last 16.
#define AXPY_PAIR_Z(xb, off) \
	VPUNPCKLWD   xb, Z8, Z10 \
	VPUNPCKHWD   xb, Z8, Z11 \
	VPBROADCASTD off(DX), Z12 \
	VPDPWSSD     Z12, Z10, Z0 \
	VPDPWSSD     Z12, Z11, Z1 \
	VPBROADCASTD off(DX)(R8*1), Z12 \
	VPDPWSSD     Z12, Z10, Z2 \
	VPDPWSSD     Z12, Z11, Z3 \
	VPBROADCASTD off(DX)(R8*2), Z12 \
	VPDPWSSD     Z12, Z10, Z4 \
	VPDPWSSD     Z12, Z11, Z5 \
	VPBROADCASTD off(DX)(R9*1), Z12 \
	VPDPWSSD     Z12, Z10, Z6 \
	VPDPWSSD     Z12, Z11, Z7

// AXPY_PAIRS2_Z is AXPY_PAIRS2 by AXPY_PAIR_Z: 32 bytes of each of the
// four rows, and two lines prefetched (the columns are twice as many).
#define AXPY_PAIRS2_Z \
	VPMOVZXBW  (SI), Z8 \
	VPMOVZXBW  (SI)(R10*1), Z9 \
	AXPY_PAIR_Z(Z9, 0) \
	PREFETCHT0 (R14) \
	PREFETCHT0 64(R14) \
	VPMOVZXBW  (SI)(R11*1), Z8 \
	VPMOVZXBW  (SI)(BX*1), Z9 \
	AXPY_PAIR_Z(Z9, 4) \
	LEAQ       (SI)(R11*2), SI \
	ADDQ       $128, R14 \
	ADDQ       $8, DX \
	SUBQ       $2, CX

// AXPY_STORE_Z(z, y, off) stores the int32 sums of z as those of two
// blocks of 16 columns: its low half y at off(R13)(CX*1), the high half
// at the next block's, 256 bytes on.
#define AXPY_STORE_Z(z, y, off) \
	VMOVDQU       y, off(R13)(CX*1) \
	VEXTRACTI64X4 $1, z, off+256(R13)(CX*1)

// AXPY_FLUSH1(acc, xacc, lo, hi) adds the int32 lanes of acc, converted
// exactly to float64, to the sums at lo(SP) (its low half) and hi(SP).
#define AXPY_FLUSH1(acc, xacc, lo, hi) \
	VCVTDQ2PD    xacc, Y10 \
	VADDPD       lo(SP), Y10, Y10 \
	VMOVUPD      Y10, lo(SP) \
	VEXTRACTI128 $1, acc, X11 \
	VCVTDQ2PD    X11, Y11 \
	VADDPD       hi(SP), Y11, Y11 \
	VMOVUPD      Y11, hi(SP)

// AXPY_FLUSH adds all 8 accumulators to the sums on the stack: limb l,
// columns 4g..4g+3 at (4l+g)*32(SP).
#define AXPY_FLUSH \
	AXPY_FLUSH1(Y0, X0, 0, 64) \
	AXPY_FLUSH1(Y1, X1, 32, 96) \
	AXPY_FLUSH1(Y2, X2, 128, 192) \
	AXPY_FLUSH1(Y3, X3, 160, 224) \
	AXPY_FLUSH1(Y4, X4, 256, 320) \
	AXPY_FLUSH1(Y5, X5, 288, 352) \
	AXPY_FLUSH1(Y6, X6, 384, 448) \
	AXPY_FLUSH1(Y7, X7, 416, 480)

// AXPY_OUTC(off, col) stores columns col+off/8 .. col+off/8+3 from their
// limb sums s0-s3 in Y8-Y11 (float64, exact integers): t1 = s0 2^15 + s1
// and t2 = s2 2^15 + s3 are exact (below 2^53 for rows <= 2^15), then
// t1 2^30 + t2 rounded once (the product is exact, so the FMA rounds as
// combine's addition does), times scale (Y15; Y14 holds 2^15). AXPY_OUT
// is it at the block's column R12.
#define AXPY_OUTC(off, col) \
	VFMADD231PD Y14, Y8, Y9 \
	VFMADD231PD Y14, Y10, Y11 \
	VFMADD231PD pow30<>(SB), Y9, Y11 \
	VMULPD      Y15, Y11, Y11 \
	VMOVUPD     Y11, off(DI)(col*8)

#define AXPY_OUT(off) AXPY_OUTC(off, R12)

// axpyPairs is the number of row pairs of a chunk: with an odd last row,
// 128 VPMADDWD steps a lane at most.
#define axpyPairs 127

// func axpyRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64, sums *int64, vnni bool)
//
// Columns by blocks of 16 (the last block is the last 16 columns, which
// may overlap the one before: its columns are computed again to the same
// bits), each over all rows with the block's int32 sums in Y0-Y7, rows
// two at a time (their words interleaved, against the broadcast pair of
// limbs), two pairs an iteration, in chunks of axpyPairs pairs. When a
// block is one chunk (rows <= 255) its 8 vectors of sums are stored as
// they are, block b's 256 bytes at sums+256b ((cols+15)/16 blocks: at
// most 16 (cols+15) bytes, within the caller's 32 cols), and converted
// to float64 after the last block, block by block (aconv): converted at
// the end of each block, as before, the conversion held up the next
// block's multiply-adds, about 33 cycles a block where the gait's 16
// row pairs take about 90 (32 x 220 in cache: 569 ns, 420 without any
// conversion, 468 converted after the last block; in-process, the
// kernels interleaved, min of 300 rounds, chrt). Longer blocks add each chunk's
// sums as float64 (exact: integers below 2^53) to 512 bytes on the stack
// and convert them at the block's end. The caller guarantees cols >= 16,
// 1 <= rows <= 2^15, rows <= ld, ld a multiple of 16, the limbs zero
// past rows, and sums of at least 4 cols int64 (scratch). With vnni the
// loop of two pairs takes MADD_VNNI, and when rows <= 255 the columns go
// by blocks of 32 while they fit (zblock: AXPY_PAIR on Z registers, the
// sums stored as two blocks of 16 each), then by 16 as above.
//
// Each iteration (4 rows x 16 columns, 64 bytes of x) prefetches the next
// 64 bytes after x (zblock's, of 32 columns, 128), so a call brings the
// rows*cols bytes that follow x (the next sample, when a pass contracts
// sample after sample) into L1 while it works: x is read by 16 columns
// down all rows, as many strided streams as rows, which the hardware
// prefetchers do not follow, and in a fit the samples come from L3. A
// prefetch never faults, past x or not.
//
// Registers: DI dst, SI row r at the block, DX limb pairs of r, R8 the
// limb rows' stride, R9 3 strides, R10 cols, R11 2 cols, BX 3 cols, R14
// the next line to prefetch, AX pairs left (zblock: cols - 32), CX pairs
// left in the chunk, R12 block column, R13 flushed (then the sums'
// address); in aconv SI the block's sums, R12 16b, CX its column, R13
// cols - 16.
TEXT ·axpyRowsFixedAVX2(SB), 0, $512-65
	MOVQ dst+0(FP), DI
	MOVQ ld+24(FP), R8
	SHLQ $1, R8
	LEAQ (R8)(R8*2), R9
	MOVQ cols+40(FP), R10
	LEAQ (R10)(R10*1), R11
	LEAQ (R10)(R11*1), BX
	MOVQ rows+32(FP), R14
	IMULQ R10, R14
	ADDQ x+8(FP), R14
	VBROADCASTSD scale+48(FP), Y15
	VBROADCASTSD pow15<>(SB), Y14
	XORQ R12, R12
	CMPB vnni+64(FP), $0
	JEQ  ablock
	CMPQ rows+32(FP), $255
	JGT  ablock
	LEAQ -32(R10), AX
	TESTQ AX, AX
	JL   ablock

zblock:
	// Blocks of 32 columns on Z registers while they fit (R12 <= AX =
	// cols - 32); rows <= 255 is one chunk, stored as two blocks of 16.
	MOVQ x+8(FP), SI
	ADDQ R12, SI
	MOVQ limbs+16(FP), DX
	MOVQ rows+32(FP), CX
	SHRQ $1, CX
	ZERO_Y0_Y7 // a VEX write zeroes the Z register above its Y too
	// An odd pair first, then two pairs an iteration, as in achunk.
	TESTQ $1, CX
	JZ    zpairs
	VPMOVZXBW (SI), Z8
	VPMOVZXBW (SI)(R10*1), Z9
	AXPY_PAIR_Z(Z9, 0)
	ADDQ R11, SI
	ADDQ $4, DX
	DECQ CX

zpairs:
	TESTQ CX, CX
	JZ    zlast

zpair2:
	AXPY_PAIRS2_Z
	JNZ zpair2

zlast:
	// The odd last row against zero words, as in alast.
	TESTQ $1, rows+32(FP)
	JZ    zout
	VPMOVZXBW (SI), Z8
	VPXORD Z9, Z9, Z9
	AXPY_PAIR_Z(Z9, 0)

zout:
	MOVQ sums+56(FP), R13
	MOVQ R12, CX
	SHLQ $4, CX
	AXPY_STORE_Z(Z0, Y0, 0)
	AXPY_STORE_Z(Z1, Y1, 32)
	AXPY_STORE_Z(Z2, Y2, 64)
	AXPY_STORE_Z(Z3, Y3, 96)
	AXPY_STORE_Z(Z4, Y4, 128)
	AXPY_STORE_Z(Z5, Y5, 160)
	AXPY_STORE_Z(Z6, Y6, 192)
	AXPY_STORE_Z(Z7, Y7, 224)
	ADDQ $32, R12
	CMPQ R12, AX
	JLE  zblock
	// The columns left (fewer than 32) by blocks of 16, the first one
	// clamped already if fewer than 16 are left.
	CMPQ R12, R10
	JGE  adone
	LEAQ -16(R10), R13
	CMPQ R12, R13
	CMOVQGT R13, R12

ablock:
	MOVQ x+8(FP), SI
	ADDQ R12, SI
	MOVQ limbs+16(FP), DX
	MOVQ rows+32(FP), AX
	SHRQ $1, AX
	XORQ R13, R13

achunk:
	ZERO_Y0_Y7
	MOVQ  $axpyPairs, CX
	CMPQ  AX, CX
	CMOVQLT AX, CX
	SUBQ  CX, AX
	TESTQ CX, CX
	JZ    apairsdone

	// An odd pair first, then two pairs (rows r..r+3) an iteration.
	TESTQ $1, CX
	JZ    apairs
	VPMOVZXBW (SI), Y8
	VPMOVZXBW (SI)(R10*1), Y9
	AXPY_PAIR(Y9, 0, MADD)
	ADDQ R11, SI
	ADDQ $4, DX
	DECQ CX
	JZ   apairsdone

apairs:
	CMPB vnni+64(FP), $0
	JNE  apair2vnni

apair2:
	AXPY_PAIRS2(MADD)
	JNZ  apair2
	JMP  apairsdone

apair2vnni:
	AXPY_PAIRS2(MADD_VNNI)
	JNZ  apair2vnni

apairsdone:
	TESTQ AX, AX
	JZ    alast
	// More pairs to come: flush this chunk's sums to the stack.
	TESTQ R13, R13
	JNZ   aflush
	VPXOR Y8, Y8, Y8
	MOVQ  $0, CX

azero:
	VMOVUPD Y8, (SP)(CX*1)
	ADDQ  $32, CX
	CMPQ  CX, $512
	JLT   azero
	MOVQ  $1, R13

aflush:
	AXPY_FLUSH
	JMP achunk

alast:
	// The odd last row, against zero words (its pair's second limb is
	// padding or the next limb's first entry, times zero).
	TESTQ $1, rows+32(FP)
	JZ    aout
	VPMOVZXBW (SI), Y8
	VPXOR Y9, Y9, Y9
	AXPY_PAIR(Y9, 0, MADD)

aout:
	TESTQ R13, R13
	JNZ   aoutstack
	MOVQ sums+56(FP), R13
	LEAQ 15(R12), CX
	ANDQ $~15, CX
	SHLQ $4, CX
	VMOVDQU Y0, 0(R13)(CX*1)
	VMOVDQU Y1, 32(R13)(CX*1)
	VMOVDQU Y2, 64(R13)(CX*1)
	VMOVDQU Y3, 96(R13)(CX*1)
	VMOVDQU Y4, 128(R13)(CX*1)
	VMOVDQU Y5, 160(R13)(CX*1)
	VMOVDQU Y6, 192(R13)(CX*1)
	VMOVDQU Y7, 224(R13)(CX*1)
	JMP anext

aoutstack:
	AXPY_FLUSH
	VMOVUPD 0(SP), Y8
	VMOVUPD 128(SP), Y9
	VMOVUPD 256(SP), Y10
	VMOVUPD 384(SP), Y11
	AXPY_OUT(0)
	VMOVUPD 32(SP), Y8
	VMOVUPD 160(SP), Y9
	VMOVUPD 288(SP), Y10
	VMOVUPD 416(SP), Y11
	AXPY_OUT(32)
	VMOVUPD 64(SP), Y8
	VMOVUPD 192(SP), Y9
	VMOVUPD 320(SP), Y10
	VMOVUPD 448(SP), Y11
	AXPY_OUT(64)
	VMOVUPD 96(SP), Y8
	VMOVUPD 224(SP), Y9
	VMOVUPD 352(SP), Y10
	VMOVUPD 480(SP), Y11
	AXPY_OUT(96)

anext:
	ADDQ $16, R12
	CMPQ R12, R10
	JGE  adone
	LEAQ -16(R10), R13
	CMPQ R12, R13
	CMOVQGT R13, R12
	JMP  ablock

adone:
	CMPQ rows+32(FP), $255
	JGT  aret
	MOVQ sums+56(FP), SI
	XORQ R12, R12
	LEAQ -16(R10), R13

aconv:
	MOVQ R12, CX
	CMPQ CX, R13
	CMOVQGT R13, CX
	VCVTDQ2PD 0(SI), Y8
	VCVTDQ2PD 64(SI), Y9
	VCVTDQ2PD 128(SI), Y10
	VCVTDQ2PD 192(SI), Y11
	AXPY_OUTC(0, CX)
	VCVTDQ2PD 32(SI), Y8
	VCVTDQ2PD 96(SI), Y9
	VCVTDQ2PD 160(SI), Y10
	VCVTDQ2PD 224(SI), Y11
	AXPY_OUTC(32, CX)
	VCVTDQ2PD 16(SI), Y8
	VCVTDQ2PD 80(SI), Y9
	VCVTDQ2PD 144(SI), Y10
	VCVTDQ2PD 208(SI), Y11
	AXPY_OUTC(64, CX)
	VCVTDQ2PD 48(SI), Y8
	VCVTDQ2PD 112(SI), Y9
	VCVTDQ2PD 176(SI), Y10
	VCVTDQ2PD 240(SI), Y11
	AXPY_OUTC(96, CX)
	ADDQ $256, SI
	ADDQ $16, R12
	CMPQ R12, R10
	JLT  aconv

aret:
	VZEROUPPER
	RET

// QUAD_MADD(t, off) multiplies the words of t (rows 0-3 of the quad at
// one column pair | at the pair four further) by the table's limb pairs
// for them, limbs 0-3 at off(R9) .. off+96(R9), and adds the products to
// the int32 accumulators Y0-Y3 (one a limb, lane i row i mod 4).
#define QUAD_MADD(t, off) \
	VPMADDWD off(R9), t, Y8 \
	VPADDD   Y8, Y0, Y0 \
	VPMADDWD off+32(R9), t, Y9 \
	VPADDD   Y9, Y1, Y1 \
	VPMADDWD off+64(R9), t, Y10 \
	VPADDD   Y10, Y2, Y2 \
	VPMADDWD off+96(R9), t, Y11 \
	VPADDD   Y11, Y3, Y3

// QUAD_WIDEN(v, off) widens the low and the high 8 bytes of each half of
// v (rows 0-3 at two column pairs) to words against Y12 (zero) and takes
// each by QUAD_MADD, against the table's entries at off and off+128.
#define QUAD_WIDEN(v, off) \
	VPUNPCKLBW Y12, v, Y13 \
	QUAD_MADD(Y13, off) \
	VPUNPCKHBW Y12, v, Y13 \
	QUAD_MADD(Y13, off+128)

// quadAhead is how many quads of rows ahead of the one it contracts
// dotRowsFixedQuadAVX2 prefetches (4 x 4 x cols bytes: 3.5 KiB for the
// gait's rows of 220).
#define quadAhead 4

// QUAD_START sets, for the four-row kernels (SI the first row, R10 cols),
// R8 = cols - 16, R11 = 3 cols and R14 the quad quadAhead ahead.
#define QUAD_START \
	LEAQ  -16(R10), R8 \
	LEAQ  (R10)(R10*2), R11 \
	MOVQ  R10, R14 \
	IMULQ $(4*quadAhead), R14 \
	ADDQ  SI, R14

// QUAD_ROWS sets BX, R12, R13 to rows 1-3 of the quad at SI, R9 to the
// table at DX and CX to column 0.
#define QUAD_ROWS \
	LEAQ (SI)(R10*1), BX \
	LEAQ (SI)(R10*2), R12 \
	LEAQ (SI)(R11*1), R13 \
	MOVQ DX, R9 \
	XORQ CX, CX

// func dotRowsFixedQuadAVX2(dst *float64, x *uint8, tab *int16, rows, cols int, scale float64)
//
// Short rows (cols <= fixedQuadMax, 240) four at a time, with no sums
// across lanes: the four rows' bytes are transposed so that a vector
// holds one column pair of the four rows (as words) in its low half and
// another pair in its high half, multiplied by the table's limb pairs for
// those columns (fixedVec.tab) and added, so that lane i of accumulator l
// sums limb l's products of row i mod 4. While more than 16 columns are
// left, 32 at a time: 32 bytes of each row, interleaved by words and then
// by dwords (8 unpacks), then widened (8 unpacks against zero), pairs i
// and i+8 of the 16 in a vector; the last 16 or fewer columns as one
// block of 16: each row's 16 bytes widened (VPMOVZXBW) and transposed by
// dwords (8 unpacks), pairs j and j+4 of the 8 in a vector. The halves
// are added at the end and the four rows' sums converted together as
// fixedVec.combine does. Bounds: a lane takes 4 VPMADDWD results each 16
// columns, at most 60 for 240 columns, 120 with the other half: less
// than 2^31 (see the top of this file).
//
// The caller guarantees rows a positive multiple of 4, 1 <= cols <=
// fixedQuadMax and that the first (cols + 15) &^ 15 bytes of every row
// are inside x (bytes past a row meet the table's zero limbs).
//
// Each step of 32 columns prefetches 128 bytes (16 columns, 64 bytes)
// quadAhead quads ahead, the quad's 4 x cols bytes by the time its
// columns are done: in a fit the rows come from L3, and the four side by
// side are streams the hardware prefetcher follows only in part
// (gait uint8 fits on 1 thread, perf: the ratio of this kernel's samples
// to axpyRowsFixedAVX2's 0.803 -> 0.773, mean of 4 interleaved runs of 6
// fits each, lower in every pair: about 4% of the kernel, 1% of the fit).
// A prefetch past x does not fault.
//
// Registers: DI dst, SI row 0 of the quad, BX/R12/R13 rows 1-3, DX table,
// R9 table at the block, CX column, R8 cols - 16, R10 cols, R11 3 cols,
// R14 the quad quadAhead ahead, AX rows left; Y12 zero, Y14 2^15 x 4,
// Y15 scale x 4.
TEXT ·dotRowsFixedQuadAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ tab+16(FP), DX
	MOVQ rows+24(FP), AX
	MOVQ cols+32(FP), R10
	VBROADCASTSD scale+40(FP), Y15
	VBROADCASTSD pow15<>(SB), Y14
	VPXOR Y12, Y12, Y12
	QUAD_START

qquad:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	QUAD_ROWS

qdouble:
	CMPQ CX, R8
	JGE  qsingle
	PREFETCHT0  (R14)(CX*4)
	PREFETCHT0  64(R14)(CX*4)
	VMOVDQU     (SI)(CX*1), Y4
	VMOVDQU     (BX)(CX*1), Y5
	VMOVDQU     (R12)(CX*1), Y6
	VMOVDQU     (R13)(CX*1), Y7
	VPUNPCKLWD  Y5, Y4, Y8
	VPUNPCKHWD  Y5, Y4, Y9
	VPUNPCKLWD  Y7, Y6, Y10
	VPUNPCKHWD  Y7, Y6, Y11
	VPUNPCKLDQ  Y10, Y8, Y4
	VPUNPCKHDQ  Y10, Y8, Y5
	VPUNPCKLDQ  Y11, Y9, Y6
	VPUNPCKHDQ  Y11, Y9, Y7
	QUAD_WIDEN(Y4, 0)
	QUAD_WIDEN(Y5, 256)
	QUAD_WIDEN(Y6, 512)
	QUAD_WIDEN(Y7, 768)
	ADDQ $1024, R9
	ADDQ $32, CX
	JMP  qdouble

qsingle:
	CMPQ CX, R10
	JGE  qsums
	PREFETCHT0  (R14)(CX*4)
	VPMOVZXBW   (SI)(CX*1), Y4
	VPMOVZXBW   (BX)(CX*1), Y5
	VPMOVZXBW   (R12)(CX*1), Y6
	VPMOVZXBW   (R13)(CX*1), Y7
	VPUNPCKLDQ  Y5, Y4, Y8
	VPUNPCKHDQ  Y5, Y4, Y9
	VPUNPCKLDQ  Y7, Y6, Y10
	VPUNPCKHDQ  Y7, Y6, Y11
	VPUNPCKLQDQ Y10, Y8, Y4
	VPUNPCKHQDQ Y10, Y8, Y5
	VPUNPCKLQDQ Y11, Y9, Y6
	VPUNPCKHQDQ Y11, Y9, Y7
	QUAD_MADD(Y4, 0)
	QUAD_MADD(Y5, 128)
	QUAD_MADD(Y6, 256)
	QUAD_MADD(Y7, 384)
	JMP qsums

qsums:
	// s_l of the four rows: the halves added, converted exactly; then
	// t1 = s0 2^15 + s1 and t2 = s2 2^15 + s3 (exact, below 2^53),
	// t1 2^30 + t2 rounded once (the product is exact), times scale.
	VEXTRACTI128 $1, Y0, X4
	VEXTRACTI128 $1, Y1, X5
	VEXTRACTI128 $1, Y2, X6
	VEXTRACTI128 $1, Y3, X7
	VPADDD       X4, X0, X0
	VPADDD       X5, X1, X1
	VPADDD       X6, X2, X2
	VPADDD       X7, X3, X3
	VCVTDQ2PD    X0, Y0
	VCVTDQ2PD    X1, Y1
	VCVTDQ2PD    X2, Y2
	VCVTDQ2PD    X3, Y3
	VFMADD231PD  Y14, Y0, Y1
	VFMADD231PD  Y14, Y2, Y3
	VFMADD231PD  pow30<>(SB), Y1, Y3
	VMULPD       Y15, Y3, Y3
	VMOVUPD      Y3, (DI)
	ADDQ $32, DI
	LEAQ (SI)(R10*4), SI
	LEAQ (R14)(R10*4), R14
	SUBQ $4, AX
	JGT  qquad
	VZEROUPPER
	RET

// The powers of two that dotRowsFixedQuadVNNI combines its digits' sums
// with.
DATA pow8<>+0(SB)/8, $0x4070000000000000
GLOBL pow8<>(SB), RODATA|NOPTR, $8
DATA pow16<>+0(SB)/8, $0x40f0000000000000
GLOBL pow16<>(SB), RODATA|NOPTR, $8
DATA pow32<>+0(SB)/8, $0x41f0000000000000
GLOBL pow32<>(SB), RODATA|NOPTR, $8

// BYTE_BLOCK(off, a0, ..., a7) adds the products of the 16 bytes at
// column CX+off of the quad's four rows (each broadcast to the four
// 128-bit lanes) with the digits at off*8(R9) (digits 0-3, one a lane)
// and off*8+64(R9) (digits 4-7) to the int32 accumulators: a(2r) row r's
// digits 0-3, a(2r+1) its digits 4-7, by VPDPBUSD (unsigned bytes times
// signed bytes, four products a lane).
#define BYTE_BLOCK(off, a0, a1, a2, a3, a4, a5, a6, a7) \
	VBROADCASTI32X4 off(SI)(CX*1), Z8 \
	VBROADCASTI32X4 off(BX)(CX*1), Z9 \
	VBROADCASTI32X4 off(R12)(CX*1), Z10 \
	VBROADCASTI32X4 off(R13)(CX*1), Z11 \
	VMOVDQU64       (off*8)(R9), Z12 \
	VMOVDQU64       (off*8+64)(R9), Z13 \
	VPDPBUSD        Z12, Z8, a0 \
	VPDPBUSD        Z13, Z8, a1 \
	VPDPBUSD        Z12, Z9, a2 \
	VPDPBUSD        Z13, Z9, a3 \
	VPDPBUSD        Z12, Z10, a4 \
	VPDPBUSD        Z13, Z10, a5 \
	VPDPBUSD        Z12, Z11, a6 \
	VPDPBUSD        Z13, Z11, a7

// BYTE_RED(a0, a1, a2, a3, out) sums the four int32 lanes of each 128-bit
// lane of the rows' accumulators a0-a3 (rows 0-3, one digit group):
// 128-bit lane k of out holds rows 0-3's sums of that group's digit k.
// Z8-Z10 scratch.
#define BYTE_RED(a0, a1, a2, a3, out) \
	VPUNPCKLDQ  a1, a0, Z8 \
	VPUNPCKHDQ  a1, a0, Z9 \
	VPADDD      Z9, Z8, Z8 \
	VPUNPCKLDQ  a3, a2, Z9 \
	VPUNPCKHDQ  a3, a2, Z10 \
	VPADDD      Z10, Z9, Z9 \
	VPUNPCKLQDQ Z9, Z8, Z10 \
	VPUNPCKHQDQ Z9, Z8, Z8 \
	VPADDD      Z10, Z8, out

// BYTE_HALF(z, y, t) sets the float64 lanes of t to rows 0-3's
// s_0 + s_1 2^8 + s_2 2^16 + s_3 2^24 from the sums s_k of one digit
// group in z (BYTE_RED; y is its low half): exact, |s_k| < 2^23 so each
// step is an integer below 2^48. Z9-Z11 scratch.
#define BYTE_HALF(z, y, t) \
	VCVTDQ2PD     y, Z9 \
	VEXTRACTI64X4 $1, z, Y10 \
	VCVTDQ2PD     Y10, Z10 \
	VFMADD231PD   Z25, Z10, Z9 \
	VEXTRACTF64X4 $1, Z9, Y11 \
	VFMADD231PD   Y24, Y11, Y9 \
	VMOVAPD       Y9, t

// func dotRowsFixedQuadVNNI(dst *float64, x *uint8, digits *int8, rows, cols int, scale float64)
//
// dotRowsFixedQuadAVX2 on AVX-512 VNNI, from FixedVec.bytes: q[i] as
// eight signed digits (q = sum d_k 256^k), so the rows' bytes multiply
// the digits as they are, four columns a lane, with no widening and no
// transposes: for each 16 columns, each row's 16 bytes are broadcast to
// the four 128-bit lanes and multiplied by digits 0-3 (one a lane) and
// 4-7, two VPDPBUSD a row. Blocks of 16 columns alternate between two
// sets of accumulators (Z0-Z7, Z16-Z23) to cover VPDPBUSD's latency. At
// the quad's end the lanes are summed (BYTE_RED), converted exactly, and
// t_lo = sum_{k<4} s_k 2^8k and t_hi = sum_{k<4} s_{k+4} 2^8k (exact,
// below 2^48) give t_hi 2^32 + t_lo = x . q rounded once, times scale:
// the bits of fixedVec.combine. Bounds: a lane adds 4 products of at
// most 255 x 128 a block, the sums of a row at most 240 x 255 x 128 <
// 2^23. The caller's guarantees are dotRowsFixedQuadAVX2's; prefetching
// is too.
//
// Registers: DI dst, SI row 0 of the quad, BX/R12/R13 rows 1-3, DX
// digits, R9 digits at the block, CX column, R8 cols - 16, R10 cols, R11
// 3 cols, R14 the quad quadAhead ahead, AX rows left; Z24 2^8, Z25 2^16,
// Z26 2^32, Z27 scale.
TEXT ·dotRowsFixedQuadVNNI(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         digits+16(FP), DX
	MOVQ         rows+24(FP), AX
	MOVQ         cols+32(FP), R10
	VBROADCASTSD scale+40(FP), Z27
	VBROADCASTSD pow8<>(SB), Z24
	VBROADCASTSD pow16<>(SB), Z25
	VBROADCASTSD pow32<>(SB), Z26
	QUAD_START

bquad:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	QUAD_ROWS

bdouble:
	CMPQ       CX, R8
	JGE        bsingle
	PREFETCHT0 (R14)(CX*4)
	PREFETCHT0 64(R14)(CX*4)
	BYTE_BLOCK(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	BYTE_BLOCK(16, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	ADDQ       $256, R9
	ADDQ       $32, CX
	JMP        bdouble

bsingle:
	CMPQ       CX, R10
	JGE        bsums
	PREFETCHT0 (R14)(CX*4)
	BYTE_BLOCK(0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

bsums:
	VPADDD Z16, Z0, Z0
	VPADDD Z17, Z1, Z1
	VPADDD Z18, Z2, Z2
	VPADDD Z19, Z3, Z3
	VPADDD Z20, Z4, Z4
	VPADDD Z21, Z5, Z5
	VPADDD Z22, Z6, Z6
	VPADDD Z23, Z7, Z7
	BYTE_RED(Z0, Z2, Z4, Z6, Z12)
	BYTE_RED(Z1, Z3, Z5, Z7, Z13)
	BYTE_HALF(Z12, Y12, Y14)
	BYTE_HALF(Z13, Y13, Y15)
	VFMADD231PD Y26, Y15, Y14
	VMULPD      Y27, Y14, Y14
	VMOVUPD     Y14, (DI)
	ADDQ        $32, DI
	LEAQ        (SI)(R10*4), SI
	LEAQ        (R14)(R10*4), R14
	SUBQ        $4, AX
	JGT         bquad
	VZEROUPPER
	RET
