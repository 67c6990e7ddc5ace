//go:build amd64 && !purego

package kernel

//go:noescape
func gramI16AVX2(out *int32, a *int16, lda int, b *int16, ldb int, k int)

// GramI16 is GramI16Go, in assembly when avx2 (the same sums: integer
// arithmetic is exact).
func GramI16(out *[12]int32, a []int16, lda int, b []int16, ldb int, k int) {
	if !avx2 {
		GramI16Go(out, a, lda, b, ldb, k)
		return
	}
	// The assembly reads a[:2*lda+k] and b[:3*ldb+k].
	_, _ = a[2*lda+k-1], b[3*ldb+k-1]
	gramI16AVX2(&out[0], &a[0], lda, &b[0], ldb, k)
}
