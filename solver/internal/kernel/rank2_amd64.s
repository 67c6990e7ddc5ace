//go:build !purego

#include "textflag.h"

// func rank2AVX2(out *float64, in *float64, rows, cols, inStride int, v *float64, z *float64)
//
// out[i*cols+j] = in[i*inStride+j] - v[i] z[j] - z[i] v[j] for i < rows,
// j < cols, each entry by two FMAs in that order (the first on in), 4
// columns at a time, the last cols mod 4 by masked loads and a masked
// store (nothing read or written past them): see rank2Update.
//
// Registers: DI out's row, SI in's row, BX rows, CX cols, R8 inStride in
// bytes, DX v, R9 z, R10 cols rounded down to a multiple of 4, R11 i, AX
// j, R12 cols mod 4, Y0 v[i] broadcast, Y1 z[i] broadcast, Y2 the
// entries, Y3 the tail's mask, Y4 and Y5 z's and v's tail.
DATA rank2Mask<>+0(SB)/8, $0
DATA rank2Mask<>+8(SB)/8, $0
DATA rank2Mask<>+16(SB)/8, $0
DATA rank2Mask<>+24(SB)/8, $0
DATA rank2Mask<>+32(SB)/8, $-1
DATA rank2Mask<>+40(SB)/8, $0
DATA rank2Mask<>+48(SB)/8, $0
DATA rank2Mask<>+56(SB)/8, $0
DATA rank2Mask<>+64(SB)/8, $-1
DATA rank2Mask<>+72(SB)/8, $-1
DATA rank2Mask<>+80(SB)/8, $0
DATA rank2Mask<>+88(SB)/8, $0
DATA rank2Mask<>+96(SB)/8, $-1
DATA rank2Mask<>+104(SB)/8, $-1
DATA rank2Mask<>+112(SB)/8, $-1
DATA rank2Mask<>+120(SB)/8, $0
GLOBL rank2Mask<>(SB), RODATA|NOPTR, $128

TEXT ·rank2AVX2(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ rows+16(FP), BX
	MOVQ cols+24(FP), CX
	MOVQ inStride+32(FP), R8
	MOVQ v+40(FP), DX
	MOVQ z+48(FP), R9
	SHLQ $3, R8
	MOVQ CX, R10
	ANDQ $-4, R10
	MOVQ CX, R12
	ANDQ $3, R12
	SHLQ $5, R12
	LEAQ rank2Mask<>(SB), R11
	VMOVUPD (R11)(R12*1), Y3
	SHRQ $5, R12
	XORQ R11, R11

rank2Row:
	VBROADCASTSD (DX)(R11*8), Y0
	VBROADCASTSD (R9)(R11*8), Y1
	XORQ         AX, AX
	CMPQ         AX, R10
	JAE          rank2Tail

rank2Vec:
	VMOVUPD      (SI)(AX*8), Y2
	VFNMADD231PD (R9)(AX*8), Y0, Y2
	VFNMADD231PD (DX)(AX*8), Y1, Y2
	VMOVUPD      Y2, (DI)(AX*8)
	ADDQ         $4, AX
	CMPQ         AX, R10
	JB           rank2Vec

rank2Tail:
	TESTQ        R12, R12
	JZ           rank2Next
	VMASKMOVPD   (SI)(AX*8), Y3, Y2
	VMASKMOVPD   (R9)(AX*8), Y3, Y4
	VMASKMOVPD   (DX)(AX*8), Y3, Y5
	VFNMADD231PD Y4, Y0, Y2
	VFNMADD231PD Y5, Y1, Y2
	VMASKMOVPD   Y2, Y3, (DI)(AX*8)

rank2Next:
	LEAQ (DI)(CX*8), DI
	ADDQ R8, SI
	INCQ R11
	CMPQ R11, BX
	JB   rank2Row
	VZEROUPPER
	RET
