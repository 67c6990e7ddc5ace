//go:build !purego

#include "textflag.h"

// The many-vector exact contraction of multi.go; see multi_amd64.go.
// Bounds as in fixed_amd64.s: an int32 lane adds at most MultiMax/2 =
// 128 VPMADDWD pairs, each below 2^24 in magnitude.

// WIDEN widens the R12 bytes at CX to words at R14, 16 by VPMOVZXBW
// and the rest one by one (R13 scratch); CX and R14 end past them.
#define WIDEN \
widen: \
	CMPQ      R12, $16 \
	JLT       widetail \
	VPMOVZXBW (CX), Y4 \
	VMOVDQU   Y4, (R14) \
	ADDQ      $16, CX \
	ADDQ      $32, R14 \
	SUBQ      $16, R12 \
	JMP       widen \
widetail: \
	TESTQ   R12, R12 \
	JZ      widedone \
	MOVBLZX (CX), R13 \
	MOVW    R13, (R14) \
	INCQ    CX \
	ADDQ    $2, R14 \
	DECQ    R12 \
	JMP     widetail \
widedone:

// func multiSumsAVX2(sums *int32, x *uint8, tab *int32, rows, cols, ppad, pairs, limbs, srows int)
//
// For each limb, rows two at a time (the last one of an odd count alone)
// and vectors 16 at a time: Y0, Y1 hold row r's sums of vectors
// pb..pb+15, Y2, Y3 row r+1's. The two rows are first widened to words
// in buf (one VPMOVZXBW a 16 bytes, so that the pair loop broadcasts a
// pair of words by a load alone, VPBROADCASTD, not a load and two
// shuffles), then each pair of a row's words multiplies the limb pairs
// of 8 vectors (VPMADDWD). The pair past an odd row's end reads the
// next row's first word, or a zero word after the last, against a zero
// limb. Sums of limb l, row r go to sums + ((l srows + r) ppad) 4.
TEXT ·multiSumsAVX2(SB), 0, $1080-72
	MOVQ sums+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ tab+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ ppad+40(FP), R10
	SHLQ $2, R10 // bytes of ppad int32
	MOVQ pairs+48(FP), R11
	MOVQ limbs+56(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ R11, AX
	IMULQ R10, AX
	MOVQ AX, tabstep-16(SP) // one limb's table
	MOVQ srows+64(FP), AX
	IMULQ R10, AX
	MOVQ AX, sumstep-24(SP) // one limb's sums

limb:
	XORQ AX, AX // row r

row:
	// Widen rows r and r+1 (or r alone) to words in buf: R12 bytes.
	MOVQ  AX, CX
	IMULQ R9, CX
	ADDQ  SI, CX
	LEAQ  buf-1080(SP), R14
	MOVQ  R9, R12
	XORQ  BX, BX // BX: row r+1 - row r in buf, bytes
	LEAQ  1(AX), R13
	CMPQ  R13, R8
	JGE   widen
	ADDQ  R9, R12
	LEAQ  (R9)(R9*1), BX

	WIDEN

	MOVL $0, (R14) // the word past an odd last row
	XORQ CX, CX    // the vectors' offset in bytes

block:
	LEAQ  buf-1080(SP), R13 // row r's words
	LEAQ  (DX)(CX*1), R14   // the limb pairs of vectors pb..
	MOVQ  R11, R12
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

pair:
	VPBROADCASTD (R13), Y4
	VPBROADCASTD (R13)(BX*1), Y5
	VMOVDQU      (R14), Y6
	VMOVDQU      32(R14), Y7
	VPMADDWD     Y6, Y4, Y8
	VPADDD       Y8, Y0, Y0
	VPMADDWD     Y7, Y4, Y9
	VPADDD       Y9, Y1, Y1
	VPMADDWD     Y6, Y5, Y10
	VPADDD       Y10, Y2, Y2
	VPMADDWD     Y7, Y5, Y11
	VPADDD       Y11, Y3, Y3
	ADDQ         $4, R13
	ADDQ         R10, R14
	DECQ         R12
	JNZ          pair

	MOVQ    AX, R13
	IMULQ   R10, R13
	ADDQ    DI, R13
	ADDQ    CX, R13 // row r's sums
	MOVQ    R13, R14
	LEAQ    (R13)(R10*1), R12
	TESTQ   BX, BX
	CMOVQNE R12, R14 // row r+1's
	VMOVDQU Y0, (R13)
	VMOVDQU Y1, 32(R13)
	VMOVDQU Y2, (R14)
	VMOVDQU Y3, 32(R14)
	ADDQ    $64, CX
	CMPQ    CX, R10
	JLT     block

	ADDQ $2, AX
	CMPQ AX, R8
	JLT  row

	ADDQ tabstep-16(SP), DX
	ADDQ sumstep-24(SP), DI
	DECQ left-8(SP)
	JNZ  limb
	VZEROUPPER
	RET

DATA multiPow15<>+0(SB)/8, $0x40e0000000000000
GLOBL multiPow15<>(SB), RODATA|NOPTR, $8

// func multiCombineAVX2(dst *float64, sums *int32, scale *float64, lead *float64, rows, ppad, limbs, srows int)
//
// MultiCombineGo four values at a time, from sums at row r0 (the
// caller's offset): each limb's int32 sums converted exactly
// (VCVTDQ2PD), acc = acc 2^15 + s_l, h = acc scale; then h to dst, or
// with lead, dst += h lead (dst cleared first).
TEXT ·multiCombineAVX2(SB), NOSPLIT, $0-64
	MOVQ         dst+0(FP), DI
	MOVQ         sums+8(FP), SI
	MOVQ         scale+16(FP), DX
	MOVQ         lead+24(FP), R13
	MOVQ         rows+32(FP), R8
	MOVQ         ppad+40(FP), R9
	MOVQ         limbs+48(FP), R10
	MOVQ         srows+56(FP), R11
	IMULQ        R9, R11
	SHLQ         $2, R11 // bytes of one limb's sums
	VBROADCASTSD multiPow15<>(SB), Y15
	TESTQ        R13, R13
	JZ           crow
	XORQ         CX, CX
	VXORPD       Y0, Y0, Y0

cclear:
	VMOVUPD Y0, (DI)(CX*8)
	ADDQ    $4, CX
	CMPQ    CX, R9
	JLT     cclear

crow:
	XORQ CX, CX

cquad:
	LEAQ      (SI)(CX*4), BX
	VCVTDQ2PD (BX), Y0
	MOVQ      R10, R12
	DECQ      R12
	JZ        cscale

climb:
	ADDQ      R11, BX
	VCVTDQ2PD (BX), Y1
	VMULPD    Y15, Y0, Y0
	VADDPD    Y1, Y0, Y0
	DECQ      R12
	JNZ       climb

cscale:
	VMULPD (DX)(CX*8), Y0, Y0
	TESTQ  R13, R13
	JZ     cstore
	VMULPD (R13)(CX*8), Y0, Y0
	VADDPD (DI)(CX*8), Y0, Y0

cstore:
	VMOVUPD Y0, (DI)(CX*8)
	ADDQ    $4, CX
	CMPQ    CX, R9
	JLT     cquad

	LEAQ  (SI)(R9*4), SI
	TESTQ R13, R13
	JZ    cnext
	LEAQ  (R13)(R9*8), R13
	JMP   cdone

cnext:
	LEAQ (DI)(R9*8), DI

cdone:
	DECQ R8
	JNZ  crow
	VZEROUPPER
	RET

// func multiSumsVNNI(sums *int32, x *uint8, tab *int32, rows, cols, ppad, pairs, limbs, srows int)
//
// multiSumsAVX2 with AVX-512: rows eight at a time (past the last row,
// zero rows whose sums go to the slack rows), vectors 32 at a time;
// Z0-Z15 hold rows r..r+7's sums (two registers a row: 16 chains, enough
// to cover VPDPWSSD's latency at two a cycle), Z16, Z17 the limb pairs
// of 32 vectors, Z18-Z25 the eight rows' pair of words, broadcast. Row
// i of buf is at R13 + i BX: rows 3, 5, 7 from R11 = R13 + 3 BX, row 6
// at R9 = R13 + 6 BX.
TEXT ·multiSumsVNNI(SB), 0, $4160-72
	MOVQ  sums+0(FP), DI
	MOVQ  x+8(FP), SI
	MOVQ  tab+16(FP), DX
	MOVQ  rows+24(FP), R8
	MOVQ  ppad+40(FP), R10
	SHLQ  $2, R10 // bytes of ppad int32
	MOVQ  pairs+48(FP), AX
	MOVQ  AX, npairs-32(SP)
	MOVQ  limbs+56(FP), AX
	MOVQ  AX, left-8(SP)
	MOVQ  npairs-32(SP), AX
	IMULQ R10, AX
	MOVQ  AX, tabstep-16(SP) // one limb's table
	MOVQ  srows+64(FP), AX
	IMULQ R10, AX
	MOVQ  AX, sumstep-24(SP) // one limb's sums
	MOVQ  cols+32(FP), BX
	SHLQ  $1, BX             // bytes of a widened row

vlimb:
	XORQ AX, AX // row r

vrow:
	// Widen rows r..r+7 (those below rows) to words in buf, then zeros
	// to 8 cols + 2 words.
	MOVQ  cols+32(FP), R9
	MOVQ  AX, CX
	IMULQ R9, CX
	ADDQ  SI, CX
	LEAQ  buf-4160(SP), R14
	MOVQ  R8, R12
	SUBQ  AX, R12
	CMPQ  R12, $8
	JLE   vcount
	MOVQ  $8, R12

vcount:
	IMULQ R9, R12

	WIDEN
	LEAQ buf-4160(SP), R12
	LEAQ 4(R12)(BX*8), R12 // past word 8 cols + 1

vzeroloop:
	CMPQ R14, R12
	JGE  vwidedone
	MOVW $0, (R14)
	ADDQ $2, R14
	JMP  vzeroloop

vwidedone:
	XORQ CX, CX // the vectors' offset in bytes

vblock:
	LEAQ   buf-4160(SP), R13 // row r's words
	LEAQ   (R13)(BX*2), R11
	ADDQ   BX, R11           // row r+3's
	LEAQ   (R11)(BX*2), R9
	ADDQ   BX, R9            // row r+6's
	LEAQ   (DX)(CX*1), R14   // the limb pairs of vectors pb..
	MOVQ   npairs-32(SP), R12
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

vpair:
	VMOVDQU32    (R14), Z16
	VMOVDQU32    64(R14), Z17
	VPBROADCASTD (R13), Z18
	VPBROADCASTD (R13)(BX*1), Z19
	VPBROADCASTD (R13)(BX*2), Z20
	VPBROADCASTD (R11), Z21
	VPBROADCASTD (R13)(BX*4), Z22
	VPBROADCASTD (R11)(BX*2), Z23
	VPBROADCASTD (R9), Z24
	VPBROADCASTD (R11)(BX*4), Z25
	VPDPWSSD     Z16, Z18, Z0
	VPDPWSSD     Z17, Z18, Z1
	VPDPWSSD     Z16, Z19, Z2
	VPDPWSSD     Z17, Z19, Z3
	VPDPWSSD     Z16, Z20, Z4
	VPDPWSSD     Z17, Z20, Z5
	VPDPWSSD     Z16, Z21, Z6
	VPDPWSSD     Z17, Z21, Z7
	VPDPWSSD     Z16, Z22, Z8
	VPDPWSSD     Z17, Z22, Z9
	VPDPWSSD     Z16, Z23, Z10
	VPDPWSSD     Z17, Z23, Z11
	VPDPWSSD     Z16, Z24, Z12
	VPDPWSSD     Z17, Z24, Z13
	VPDPWSSD     Z16, Z25, Z14
	VPDPWSSD     Z17, Z25, Z15
	ADDQ         $4, R13
	ADDQ         $4, R11
	ADDQ         $4, R9
	ADDQ         R10, R14
	DECQ         R12
	JNZ          vpair

	MOVQ      AX, R13
	IMULQ     R10, R13
	ADDQ      DI, R13
	ADDQ      CX, R13 // row r's sums
	VMOVDQU32 Z0, (R13)
	VMOVDQU32 Z1, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z2, (R13)
	VMOVDQU32 Z3, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z4, (R13)
	VMOVDQU32 Z5, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z6, (R13)
	VMOVDQU32 Z7, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z8, (R13)
	VMOVDQU32 Z9, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z10, (R13)
	VMOVDQU32 Z11, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z12, (R13)
	VMOVDQU32 Z13, 64(R13)
	ADDQ      R10, R13
	VMOVDQU32 Z14, (R13)
	VMOVDQU32 Z15, 64(R13)
	ADDQ      $128, CX
	CMPQ      CX, R10
	JLT       vblock

	ADDQ $8, AX
	CMPQ AX, R8
	JLT  vrow

	ADDQ tabstep-16(SP), DX
	ADDQ sumstep-24(SP), DI
	DECQ left-8(SP)
	JNZ  vlimb
	VZEROUPPER
	RET
