//go:build !amd64 || purego

package solver

// symvUpper is never called here (useAVX2 is false: fullApply takes the
// rows kernel).
func symvUpper(dst, s []float64, n int, v []float64) {
	panic("solver: symvUpper without assembly")
}
