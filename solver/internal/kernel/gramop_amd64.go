//go:build amd64 && !purego

package kernel

//go:noescape
func dotsI32AVX2(out *float64, a *int32, lda int, z *float64, ldz int, k int)

// DotsI32 is DotsI32Go for 3 rows of a, in assembly when avx2 (the
// same sums in the same order).
func DotsI32(out *[12]float64, a []int32, lda int, z []float64, ldz, k int) {
	k4 := k &^ 3
	if !avx2 || k4 == 0 {
		DotsI32Go(out[:], a, lda, 3, z, ldz, k)
		return
	}
	// The assembly reads a[:2*lda+k4] and z[:3*ldz+k4].
	_, _ = a[2*lda+k4-1], z[3*ldz+k4-1]
	dotsI32AVX2(&out[0], &a[0], lda, &z[0], ldz, k4)
	DotsI32Tail(out[:], a, lda, 3, z, ldz, k4, k)
}
