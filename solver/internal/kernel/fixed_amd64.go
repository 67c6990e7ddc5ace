//go:build amd64 && !purego

package kernel

// The exact uint8 contractions in AVX2 assembly (fixed_amd64.s): the bits
// of DotRowsFixedGo and AxpyRowsFixedGo, since every sum is exact and
// combined as FixedVec.combine does.
//
// The vector operations per element, not the multiply-adds, bound them;
// rows up to FixedQuadMax columns go four at a time with no sums across
// lanes. Cycle counts and the variants tried are in bench/MEASUREMENTS.md
// ("Moved from code comments"). On a CPU with AVX512-VNNI (vnni) their
// loops add the products by VPDPWSSD, one instruction for VPMADDWD and
// VPADDD, and the short rows take q as eight signed bytes
// (FixedVec.bytes) by VPDPBUSD on 512 bits, with no widening and no
// transposes: the same integer x . q, so the same bits. axpyRows takes its
// blocks of 32 columns on 512-bit registers then, twice the multiply-adds
// a cycle.

//go:noescape
func dotRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64, vnni bool)

//go:noescape
func dotRowsFixedQuadAVX2(dst *float64, x *uint8, tab *int16, rows, cols int, scale float64)

//go:noescape
func dotRowsFixedQuadVNNI(dst *float64, x *uint8, digits *int8, rows, cols int, scale float64)

//go:noescape
func axpyRowsFixedAVX2(dst *float64, x *uint8, limbs *int16, ld, rows, cols int, scale float64, sums *int64, vnni bool)

// dotRowsFixedAsm is DotRowsFixedGo in assembly, for rows, cols >= 1
// (avx2 only): rows of up to FixedQuadMax columns four at a time
// (dotRowsFixedQuad), longer ones two at a time; by VPDPWSSD when vnni
// (the caller's to check).
func dotRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *FixedVec, vnni bool) {
	if f.n != cols || rows < 1 || cols < 1 {
		panic("solver: dotRowsFixedAsm: bad shape")
	}
	if cols <= FixedQuadMax {
		dotRowsFixedQuad(dst, x, rows, cols, f, vnni)
		return
	}
	// The assembly reads x[:rows*cols] and the limb rows to cols rounded
	// up to FixedPad (zero past cols), and writes dst[:rows].
	_, _, _ = dst[rows-1], x[rows*cols-1], f.limbs[FixedLimbs*f.ld-1]
	dotRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale, vnni)
}

// dotRowsFixedQuad is dotRowsFixedAsm for cols <= FixedQuadMax, four rows
// at a time by dotRowsFixedQuadAVX2 (dotRowsFixedQuadVNNI when vnni),
// which reads each row's blocks of 16 bytes whole (f.tab's limbs and
// f.bytes's digits are zero past cols): the rows whose blocks
// end inside x in place, the last few (fewer than 4 + 16/cols) copied
// four at a time to a buffer with zeros after them. Each row's result is
// its own, so the rows a call groups together cannot change a bit.
func dotRowsFixedQuad(dst []float64, x []uint8, rows, cols int, f *FixedVec, vnni bool) {
	span := (cols + FixedPad - 1) / FixedPad * FixedPad
	_, _ = f.tab[span*16-1], f.bytes[span*8-1] // FixedTabLen(cols), 8 ld
	// Row r's blocks end inside x when r*cols + span <= rows*cols.
	inside := 0
	if n := rows * cols; n >= span {
		inside = min((n-span)/cols+1, rows)
	}
	quads := inside &^ 3
	if quads > 0 {
		_, _ = dst[quads-1], x[quads*cols-1]
		f.quads(&dst[0], &x[0], quads, cols, vnni)
	}
	var buf [3*FixedQuadMax + 256]uint8 // 3 cols + span
	var out [4]float64
	for r := quads; r < rows; r += 4 {
		k := min(4, rows-r)
		m := copy(buf[:], x[r*cols:(r+k)*cols])
		clear(buf[m : 3*cols+span])
		f.quads(&out[0], &buf[0], 4, cols, vnni)
		copy(dst[r:r+k], out[:k])
	}
}

// quads contracts rows (a multiple of 4) rows of cols bytes at x with f
// into dst, by the assembly of dotRowsFixedQuad.
func (f *FixedVec) quads(dst *float64, x *uint8, rows, cols int, vnni bool) {
	if vnni {
		dotRowsFixedQuadVNNI(dst, x, &f.bytes[0], rows, cols, f.scale)
	} else {
		dotRowsFixedQuadAVX2(dst, x, &f.tab[0], rows, cols, f.scale)
	}
}

// axpyRowsFixedAsm is AxpyRowsFixedGo in assembly, for cols >= 16 and
// 1 <= rows <= 2^15 (avx2 only), with sums as scratch of FixedLimbs*cols
// int64; by VPDPWSSD when vnni (the caller's to check).
func axpyRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *FixedVec, sums []int64, vnni bool) {
	// The assembly reads x[:rows*cols] and the limb rows to rows + 1,
	// writes dst[:cols], and for rows <= 255 uses 256 bytes of sums a
	// block of 16 columns ((cols+15)/16 blocks: at most 16 (cols+15)
	// bytes, less than the 32 cols of FixedLimbs*cols int64).
	if f.n != rows || cols < FixedPad || rows < 1 || rows > 1<<15 {
		panic("solver: axpyRowsFixedAsm: bad shape")
	}
	_, _, _, _ = dst[cols-1], x[rows*cols-1], f.limbs[FixedLimbs*f.ld-1], sums[(cols+15)/16*32-1]
	axpyRowsFixedAVX2(&dst[0], &x[0], &f.limbs[0], f.ld, rows, cols, f.scale, &sums[0], vnni)
}
