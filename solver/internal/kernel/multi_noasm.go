//go:build !amd64 || purego

package kernel

// Without assembly the many-vector contraction is multi.go's Go loops;
// these are never called (avx2 is false).

func multiDotFixedAsm(sums []int32, x []uint8, rows, cols int, m *MultiFixed, vnni bool) {
	panic("kernel: multiDotFixedAsm without assembly")
}

func multiCombineAsm(dst []float64, sums []int32, rows int, m *MultiFixed) {
	panic("kernel: multiCombineAsm without assembly")
}

func multiPad() int { return 16 }

const multiVNNI = false
