//go:build amd64 && !purego

#include "textflag.h"

// func prefetchWrite(p *float64, n int)
// One PREFETCHW a 64-byte line of p[0:n] (n >= 1): the line is fetched
// for ownership, so the stores that follow find it in cache. A hint: it
// changes no value and cannot fault. The Go assembler has no PREFETCHW
// mnemonic; 0F 0D /1 with ModRM 0x0E is PREFETCHW (SI).
TEXT ·prefetchWrite(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ (SI)(CX*8), CX
	ANDQ $-64, SI

loop:
	BYTE $0x0F; BYTE $0x0D; BYTE $0x0E // PREFETCHW (SI)
	ADDQ $64, SI
	CMPQ SI, CX
	JB   loop
	RET
