//go:build !purego

#include "textflag.h"

// func gramI16AVX2(out *int32, a *int16, lda int, b *int16, ldb int, k int)
//
// out[4*i+j] = sum_c a[i*lda+c] b[j*ldb+c] for i < 3, j < 4 and c < k, k a
// positive multiple of 16 (strides in elements), in 32-bit integer
// arithmetic: the 3 x 4 block of the integer Gram matrix (gramint.go).
// VPMADDWD multiplies 16 pairs of 16-bit integers and adds adjacent
// products into 8 32-bit lanes; the lanes are added at the end. Integer
// sums are exact (callers bound k and the entries so that no lane
// overflows), so the order does not matter. Registers: DI out, SI a, R10,
// R11 a's rows 1 and 2, R8 a stride in bytes, DX b, R12, R13, BX b's rows
// 1..3, R9 b stride, CX k in bytes, AX byte offset, Y0-Y11 accumulators
// (row i, column j in Y(4i+j)), Y12-Y14 a's rows, Y15 a product.
TEXT ·gramI16AVX2(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), DI
	MOVQ   a+8(FP), SI
	MOVQ   lda+16(FP), R8
	SHLQ   $1, R8
	MOVQ   b+24(FP), DX
	MOVQ   ldb+32(FP), R9
	SHLQ   $1, R9
	MOVQ   k+40(FP), CX
	SHLQ   $1, CX
	LEAQ   (SI)(R8*1), R10
	LEAQ   (SI)(R8*2), R11
	LEAQ   (DX)(R9*1), R12
	LEAQ   (DX)(R9*2), R13
	LEAQ   (R13)(R9*1), BX
	VPXOR  Y0, Y0, Y0
	VPXOR  Y1, Y1, Y1
	VPXOR  Y2, Y2, Y2
	VPXOR  Y3, Y3, Y3
	VPXOR  Y4, Y4, Y4
	VPXOR  Y5, Y5, Y5
	VPXOR  Y6, Y6, Y6
	VPXOR  Y7, Y7, Y7
	VPXOR  Y8, Y8, Y8
	VPXOR  Y9, Y9, Y9
	VPXOR  Y10, Y10, Y10
	VPXOR  Y11, Y11, Y11
	XORQ   AX, AX

gramI16Loop:
	VMOVDQU  (SI)(AX*1), Y12
	VMOVDQU  (R10)(AX*1), Y13
	VMOVDQU  (R11)(AX*1), Y14
	VPMADDWD (DX)(AX*1), Y12, Y15
	VPADDD   Y15, Y0, Y0
	VPMADDWD (DX)(AX*1), Y13, Y15
	VPADDD   Y15, Y4, Y4
	VPMADDWD (DX)(AX*1), Y14, Y15
	VPADDD   Y15, Y8, Y8
	VPMADDWD (R12)(AX*1), Y12, Y15
	VPADDD   Y15, Y1, Y1
	VPMADDWD (R12)(AX*1), Y13, Y15
	VPADDD   Y15, Y5, Y5
	VPMADDWD (R12)(AX*1), Y14, Y15
	VPADDD   Y15, Y9, Y9
	VPMADDWD (R13)(AX*1), Y12, Y15
	VPADDD   Y15, Y2, Y2
	VPMADDWD (R13)(AX*1), Y13, Y15
	VPADDD   Y15, Y6, Y6
	VPMADDWD (R13)(AX*1), Y14, Y15
	VPADDD   Y15, Y10, Y10
	VPMADDWD (BX)(AX*1), Y12, Y15
	VPADDD   Y15, Y3, Y3
	VPMADDWD (BX)(AX*1), Y13, Y15
	VPADDD   Y15, Y7, Y7
	VPMADDWD (BX)(AX*1), Y14, Y15
	VPADDD   Y15, Y11, Y11
	ADDQ     $32, AX
	CMPQ     AX, CX
	JLT      gramI16Loop

	// Lane sums, 4 accumulators at a time: two rounds of VPHADDD leave
	// each 128-bit half with the half-sums of Y(4i)..Y(4i+3), the
	// cross-half add the totals.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VMOVDQU      X0, (DI)
	VPHADDD      Y5, Y4, Y4
	VPHADDD      Y7, Y6, Y6
	VPHADDD      Y6, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	VPADDD       X5, X4, X4
	VMOVDQU      X4, 16(DI)
	VPHADDD      Y9, Y8, Y8
	VPHADDD      Y11, Y10, Y10
	VPHADDD      Y10, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VMOVDQU      X8, 32(DI)
	VZEROUPPER
	RET
