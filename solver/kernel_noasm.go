//go:build !amd64 || purego

package solver

// Without assembly kernels (another architecture, or the purego build tag)
// the contractions are the generic Go loops (and gonum's for long float64
// rows: see dotRows and axpyRows).

// haveAVX2 is false: there are no assembly kernels to use.
const haveAVX2 = false

// useAVX2 stays false here (tests set it only when haveAVX2); it exists so
// that the dispatch in kernel.go and the tests build everywhere.
var useAVX2 = false

// dotRowsAsm is dotRowsT: there is no assembly here.
func dotRowsAsm[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, _ bool) {
	dotRowsT(dst, x, rows, cols, v)
}

// axpyRowsAsm is axpyRowsT: there is no assembly here.
func axpyRowsAsm[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, _ bool) {
	axpyRowsT(dst, x, rows, cols, v)
}

// axpySlabsAsm does nothing and reports false: there is no assembly here.
func axpySlabsAsm(dst, x []float64, rows, cols, slabs int, v []float64) bool { return false }

// gram3x4 is gram3x4Go: there is no assembly here.
func gram3x4(out *[12]float64, a []float64, lda int, b []float64, ldb int, k int) {
	gram3x4Go(out, a, lda, b, ldb, k)
}

// gramCols4x8 is never called here (useAVX2 is false).
func gramCols4x8(out []float64, ldo int, a, b []float64, ld, m int) {
	panic("solver: gramCols4x8 without assembly")
}

// centreU8Asm writes nothing: there is no assembly here.
func centreU8Asm(dst []float64, x []uint8, mean []float64) int { return 0 }

// subRows is subRowsGo: there is no assembly here.
func subRows(x, off []float64) { subRowsGo(x, off) }

// sumU8Asm sets nothing: there is no assembly here.
func sumU8Asm(s []float64, x []uint8, cnt, size int) int { return 0 }
