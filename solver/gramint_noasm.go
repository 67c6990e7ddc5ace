//go:build !amd64 || purego

package solver

// gramI16 is gramI16Go: there is no assembly here.
func gramI16(out *[12]int32, a []int16, lda int, b []int16, ldb int, k int) {
	gramI16Go(out, a, lda, b, ldb, k)
}
