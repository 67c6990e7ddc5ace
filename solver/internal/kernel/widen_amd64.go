//go:build amd64 && !purego

package kernel

//go:noescape
func widenU8AVX2(dst *float64, x *uint8, n int)

//go:noescape
func centreU8AVX2(dst *float64, x *uint8, mean *float64, n int)

// CentreU8Head writes float64(x[i]) - mean[i] (mean nil: float64(x[i]))
// to dst[i] for the first len(x) rounded down to 16 elements by the AVX2
// kernels (widen_amd64.s), when avx2, and returns how many it wrote.
// The bits are those of the Go loops: the conversion is exact and the
// subtraction one rounding.
func CentreU8Head(dst []float64, x []uint8, mean []float64) int {
	n := len(x) &^ 15
	if !avx2 || n == 0 {
		return 0
	}
	_ = dst[n-1]
	if mean == nil {
		widenU8AVX2(&dst[0], &x[0], n)
		return n
	}
	_ = mean[n-1]
	centreU8AVX2(&dst[0], &x[0], &mean[0], n)
	return n
}
