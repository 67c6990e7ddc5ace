//go:build !amd64 || purego

package kernel

// GramI16 is GramI16Go: there is no assembly here.
func GramI16(out *[12]int32, a []int16, lda int, b []int16, ldb int, k int) {
	GramI16Go(out, a, lda, b, ldb, k)
}
