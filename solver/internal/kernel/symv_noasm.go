//go:build !amd64 || purego

package kernel

// SymvUpper is never called here (avx2 is false: fullApply takes the
// rows kernel).
func SymvUpper(dst, s []float64, n int, v []float64) {
	panic("solver: SymvUpper without assembly")
}
