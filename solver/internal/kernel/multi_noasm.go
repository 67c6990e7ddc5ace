//go:build !amd64 || purego

package kernel

// Without assembly the many-vector contraction is multi.go's Go loops;
// these are never called (avx2 is false).

func multiSumsAsm(sums []int32, x []uint8, rows, cols int, m *MultiFixed, vnni bool) {
	panic("kernel: multiSumsAsm without assembly")
}

func multiCombineAsm(dst []float64, sums []int32, srows, r0, n int, m *MultiFixed, lead []float64) {
	panic("kernel: multiCombineAsm without assembly")
}

func multiPad() int { return 16 }

const multiVNNI = false
