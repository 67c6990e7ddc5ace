//go:build !amd64 || purego

package kernel

// Without assembly kernels (another architecture, or the purego build tag)
// the contractions are the generic Go loops (and gonum's for long float64
// rows: see dotRows and axpyRows).

// avx2 is false: there are no assembly kernels to use.
const avx2 = false

// vnni is false: there are no assembly kernels to use.
const vnni = false

// DotRows is DotRowsGo: there is no assembly here.
func DotRows[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, _ bool) {
	DotRowsGo(dst, x, rows, cols, v)
}

// AxpyRows is AxpyRowsGo: there is no assembly here.
func AxpyRows[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, _ bool) {
	AxpyRowsGo(dst, x, rows, cols, v)
}

// AxpySlabs does nothing and reports false: there is no assembly here.
func AxpySlabs(dst, x []float64, rows, cols, slabs int, v []float64) bool { return false }

// Gram3x4 is Gram3x4Go: there is no assembly here.
func Gram3x4(out *[12]float64, a []float64, lda int, b []float64, ldb int, k int) {
	Gram3x4Go(out, a, lda, b, ldb, k)
}

// GramCols4x8 is never called here (avx2 is false).
func GramCols4x8(out []float64, ldo int, a, b []float64, ld, m int) {
	panic("solver: GramCols4x8 without assembly")
}

// CentreU8Head writes nothing: there is no assembly here.
func CentreU8Head(dst []float64, x []uint8, mean []float64) int { return 0 }

// SumU8Head sets nothing: there is no assembly here.
func SumU8Head(s []float64, x []uint8, cnt, size int) int { return 0 }
