//go:build !purego

#include "textflag.h"

// func dotsI32AVX2(out *float64, a *int32, lda int, z *float64, ldz int, k int)
//
// out[4*i+j] = sum_{t<k} float64(a[i*lda+t]) z[j*ldz+t] for i < 3, j < 4,
// k a positive multiple of 4 (strides in elements): 3 rows of the int32
// matrix L of intGram (gramop.go) against 4 rows of a block. As
// gram3x4AVX2, but a's rows are int32, 4 entries converted to float64 by
// one VCVTDQ2PD. Lane l of accumulator Y(4i+j) sums the terms t = l mod 4
// in order by fused multiply-adds; the lanes are then summed as
// (l0 + l1) + (l2 + l3). Registers: DI out, SI a, R10, R11 a's rows 1
// and 2, R8 a stride in bytes, DX z, R12, R13, BX z's rows 1..3, R9 z
// stride in bytes, CX k, AX the element offset, Y0-Y11 accumulators,
// Y12-Y14 a's rows, Y15 one row of z.
TEXT ·dotsI32AVX2(SB), NOSPLIT, $0-48
	MOVQ   out+0(FP), DI
	MOVQ   a+8(FP), SI
	MOVQ   lda+16(FP), R8
	SHLQ   $2, R8
	MOVQ   z+24(FP), DX
	MOVQ   ldz+32(FP), R9
	SHLQ   $3, R9
	MOVQ   k+40(FP), CX
	LEAQ   (SI)(R8*1), R10
	LEAQ   (SI)(R8*2), R11
	LEAQ   (DX)(R9*1), R12
	LEAQ   (DX)(R9*2), R13
	LEAQ   (R13)(R9*1), BX
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

loop:
	VCVTDQ2PD   (SI)(AX*4), Y12
	VCVTDQ2PD   (R10)(AX*4), Y13
	VCVTDQ2PD   (R11)(AX*4), Y14
	VMOVUPD     (DX)(AX*8), Y15
	VFMADD231PD Y12, Y15, Y0
	VFMADD231PD Y13, Y15, Y4
	VFMADD231PD Y14, Y15, Y8
	VMOVUPD     (R12)(AX*8), Y15
	VFMADD231PD Y12, Y15, Y1
	VFMADD231PD Y13, Y15, Y5
	VFMADD231PD Y14, Y15, Y9
	VMOVUPD     (R13)(AX*8), Y15
	VFMADD231PD Y12, Y15, Y2
	VFMADD231PD Y13, Y15, Y6
	VFMADD231PD Y14, Y15, Y10
	VMOVUPD     (BX)(AX*8), Y15
	VFMADD231PD Y12, Y15, Y3
	VFMADD231PD Y13, Y15, Y7
	VFMADD231PD Y14, Y15, Y11
	ADDQ        $4, AX
	CMPQ        AX, CX
	JLT         loop

	VHADDPD    Y1, Y0, Y0
	VHADDPD    Y3, Y2, Y2
	VPERM2F128 $0x20, Y2, Y0, Y12
	VPERM2F128 $0x31, Y2, Y0, Y13
	VADDPD     Y13, Y12, Y12
	VMOVUPD    Y12, (DI)
	VHADDPD    Y5, Y4, Y4
	VHADDPD    Y7, Y6, Y6
	VPERM2F128 $0x20, Y6, Y4, Y12
	VPERM2F128 $0x31, Y6, Y4, Y13
	VADDPD     Y13, Y12, Y12
	VMOVUPD    Y12, 32(DI)
	VHADDPD    Y9, Y8, Y8
	VHADDPD    Y11, Y10, Y10
	VPERM2F128 $0x20, Y10, Y8, Y12
	VPERM2F128 $0x31, Y10, Y8, Y13
	VADDPD     Y13, Y12, Y12
	VMOVUPD    Y12, 64(DI)
	VZEROUPPER
	RET
