//go:build !purego

#include "textflag.h"

// func symvAVX2(dst *float64, s *float64, n int, v *float64)
//
// dst[:n] = S v for the symmetric n x n matrix S at s (row-major, both
// triangles stored, n a positive multiple of 4), reading S's upper
// triangle and the lower halves of its 4 x 4 diagonal blocks: see
// symvUpper for the order of the sums. For each strip of four rows
// i..i+3: the diagonal block's 16 entries go into the rows' accumulators
// only (VMULPD); every 4 columns c right of it are loaded once for two
// FMAs, the rows' accumulators (s[r,c] v[c], one lane per c mod 4) and
// dst[c] += s[i,c] v[i] + ... + s[i+3,c] v[i+3] (one chain, in order of
// rows); then dst[i+r] += (l0 + l1) + (l2 + l3) of row r's accumulator.
//
// Registers: DI dst at the strip (dst[i]), SI s at the strip's diagonal
// (s[i*n+i]), R10-R12 rows i+1..i+3 there, R8 n in bytes (the stride),
// DX v at the strip (v[i]), CX the strip's columns n-i in bytes, AX byte
// offset, Y0-Y3 the rows' accumulators, Y4-Y7 v[i..i+3] broadcast, Y8 v,
// Y9 dst, Y10 and Y11 a row's 4 elements and the reduction.
// SYMV_ROW(row, acc, vi): the 4 entries of a row at byte offset AX, into
// the row's accumulator (times v, in Y8) and into dst's chain (times the
// row's entry of v broadcast, in Y9).
#define SYMV_ROW(row, acc, vi) VMOVUPD (row)(AX*1), Y10; VFMADD231PD Y10, Y8, acc; VFMADD231PD Y10, vi, Y9

TEXT ·symvAVX2(SB), NOSPLIT, $0-32
	MOVQ   dst+0(FP), DI
	MOVQ   s+8(FP), SI
	MOVQ   n+16(FP), CX
	MOVQ   v+24(FP), DX
	SHLQ   $3, CX
	MOVQ   CX, R8
	XORQ   AX, AX
	VXORPD Y0, Y0, Y0

symvZero:
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      symvZero

symvStrip:
	LEAQ         (SI)(R8*1), R10
	LEAQ         (SI)(R8*2), R11
	LEAQ         (R11)(R8*1), R12
	VBROADCASTSD (DX), Y4
	VBROADCASTSD 8(DX), Y5
	VBROADCASTSD 16(DX), Y6
	VBROADCASTSD 24(DX), Y7
	VMOVUPD      (DX), Y8
	VMULPD       (SI), Y8, Y0
	VMULPD       (R10), Y8, Y1
	VMULPD       (R11), Y8, Y2
	VMULPD       (R12), Y8, Y3
	MOVQ         $32, AX
	CMPQ         AX, CX
	JAE          symvReduce

symvLoop:
	VMOVUPD     (DX)(AX*1), Y8
	VMOVUPD     (DI)(AX*1), Y9
	SYMV_ROW(SI, Y0, Y4)
	SYMV_ROW(R10, Y1, Y5)
	SYMV_ROW(R11, Y2, Y6)
	SYMV_ROW(R12, Y3, Y7)
	VMOVUPD     Y9, (DI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JB          symvLoop

symvReduce:
	// Y8 = (r0 l0+l1, r1 l0+l1, r0 l2+l3, r1 l2+l3), Y9 the same for rows
	// 2 and 3; Y10 their low halves, Y11 their high halves.
	VHADDPD    Y1, Y0, Y8
	VHADDPD    Y3, Y2, Y9
	VPERM2F128 $0x20, Y9, Y8, Y10
	VPERM2F128 $0x31, Y9, Y8, Y11
	VADDPD     Y11, Y10, Y10
	VADDPD     (DI), Y10, Y10
	VMOVUPD    Y10, (DI)
	LEAQ       32(SI)(R8*4), SI
	ADDQ       $32, DX
	ADDQ       $32, DI
	SUBQ       $32, CX
	JNZ        symvStrip
	VZEROUPPER
	RET
