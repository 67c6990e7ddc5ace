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

func dotRowsUint8(dst []float64, x []uint8, rows, cols int, v []float64) {
	dotRowsT(dst, x, rows, cols, v)
}

func dotRowsFloat32(dst []float64, x []float32, rows, cols int, v []float64) {
	dotRowsT(dst, x, rows, cols, v)
}

func axpyRowsUint8(dst []float64, x []uint8, rows, cols int, v []float64) {
	axpyRowsT(dst, x, rows, cols, v)
}

func axpyRowsFloat32(dst []float64, x []float32, rows, cols int, v []float64) {
	axpyRowsT(dst, x, rows, cols, v)
}

func dotRowsFloat64(dst []float64, x []float64, rows, cols int, v []float64) {
	dotRowsT(dst, x, rows, cols, v)
}

func axpyRowsFloat64(dst []float64, x []float64, rows, cols int, v []float64) {
	axpyRowsT(dst, x, rows, cols, v)
}
