//go:build !amd64 || purego

package kernel

// Without assembly (another architecture, or the purego build tag) the
// exact uint8 contractions are the Go loops of fixed.go; these are never
// called (avx2 is false).

func dotRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *FixedVec, vnni bool) {
	panic("solver: dotRowsFixedAsm without assembly")
}

func axpyRowsFixedAsm(dst []float64, x []uint8, rows, cols int, f *FixedVec, sums []int64, vnni bool) {
	panic("solver: axpyRowsFixedAsm without assembly")
}
