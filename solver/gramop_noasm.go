//go:build !amd64 || purego

package solver

// dotsI32 is dotsI32Go for 3 rows of a: there is no assembly here.
func dotsI32(out *[12]float64, a []int32, lda int, z []float64, ldz, k int) {
	dotsI32Go(out[:], a, lda, 3, z, ldz, k)
}
