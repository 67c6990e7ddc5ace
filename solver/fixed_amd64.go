//go:build amd64 && !purego

package solver

// The exact uint8 contractions in AVX2 assembly (fixed_amd64.s): the bits
// of dotRowsFixedGo and axpyRowsFixedGo, since every sum is exact and
// combined as fixedVec.combine does.
//
// What bounds them: each 16 bytes of a row are widened once (VPMOVZXBW)
// and take one VPMADDWD and one VPADDD per limb, 8 vector operations per
// 16 elements (axpyRows adds 2 unpacks per 16 columns of a row pair),
// where the float64 uint8 kernels take 4 per 4 elements. Zen 3 issues 2
// VPMADDWD a cycle, so the loop bodies alone run at 13-16 G elements/s
// (2 rows x 16 columns every 2.0-2.4 ns; C with inline assembly under
// the lock), against 7.4-7.9 for the float64 kernels' widen-and-FMA body.
// The rest is per row and per block: dotRows sums each row's 4 x 8 int32
// lanes by limb (18 unpacks and adds a row pair; VPHADDD is slower) and
// converts them (about 8 operations a row pair, four rows at a time), and
// its cols mod 16 tail is a whole step; axpyRows converts and combines
// each 16 columns (about 60 operations) once per block of rows. Hence
// BenchmarkKernels on one sample in cache (min ns/op over 15 interleaved
// runs, chrt; fixed vs float64 uint8 kernel): 512 x 512 dotRows 1.65x,
// axpyRows 1.38x; 128 x 128 1.15x, 1.44x; gait 32 x 220 1.23x, 1.15x;
// faces 80 x 60 1.0x, 1.42x; rows of 10 (704 x 10) dotRows 0.54x, where
// the per-row sums dominate.

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
