//go:build amd64 && !purego

package solver

// The exact uint8 contractions in AVX2 assembly (fixed_amd64.s): the bits
// of dotRowsFixedGo and axpyRowsFixedGo, since every sum is exact and
// combined as fixedVec.combine does.

//go:noescape
func dotRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64)

//go:noescape
func axpyRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64)

// dotRowsFixedAsm is dotRowsFixedGo in assembly, for rows*cols >= 16
// (useAVX2 only).
func dotRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec) {
	// The assembly reads x[:rows*cols] and the limb rows to cols rounded
	// up to fixedPad (zero past cols), and writes dst[:rows].
	if f.n != cols || rows*cols < fixedPad {
		panic("solver: dotRowsFixedAsm: bad shape")
	}
	_, _, _ = dst[rows-1], x[rows*cols-1], f.limbs[fixedLimbs*f.ld-1]
	dotRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale)
}

// axpyRowsFixedAsm is axpyRowsFixedGo in assembly, for cols >= 16 and
// 1 <= rows <= 2^15 (useAVX2 only); it needs no scratch.
func axpyRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec) {
	// The assembly reads x[:rows*cols] and the limb rows to rows + 1,
	// and writes dst[:cols].
	if f.n != rows || cols < fixedPad || rows < 1 || rows > 1<<15 {
		panic("solver: axpyRowsFixedAsm: bad shape")
	}
	_, _, _ = dst[cols-1], x[rows*cols-1], f.limbs[fixedLimbs*f.ld-1]
	axpyRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale)
}
