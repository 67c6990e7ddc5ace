//go:build !amd64 || purego

package kernel

// DotsI32 is DotsI32Go for 3 rows of a: there is no assembly here.
func DotsI32(out *[12]float64, a []int32, lda int, z []float64, ldz, k int) {
	DotsI32Go(out[:], a, lda, 3, z, ldz, k)
}
