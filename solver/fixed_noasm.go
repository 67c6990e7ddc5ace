//go:build !amd64 || purego

package solver

// Without assembly (another architecture, or the purego build tag) the
// exact uint8 contractions are the Go loops of fixed.go; these are never
// called (useAVX2 is false).

func dotRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec) {
	panic("solver: dotRowsFixedAsm without assembly")
}

func axpyRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *fixedVec, sums []int64) {
	panic("solver: axpyRowsFixedAsm without assembly")
}
