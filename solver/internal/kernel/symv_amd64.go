//go:build amd64 && !purego

package kernel

//go:noescape
func symvAVX2(dst *float64, s *float64, n int, v *float64)

// SymvUpper sets dst[:n] = S v by symvAVX2 (see there and symv_amd64.s)
// for the symmetric n x n matrix S in s[:n*n] (row-major, both triangles
// stored), n a positive multiple of 4. It reads S's upper triangle and
// the lower halves of its 4 x 4 diagonal blocks, each entry right of a
// diagonal block once for two FMAs (its row's dot product with v and its
// column's entry of dst): n(n+4)/2 values instead of a row-by-row
// product's n^2. For 80 x 80 that is 27 of 51 KB, which fit in a core's
// 32 KB L1d. The order of the sums depends only on n: the result is the
// same bit for bit every time, and differs from the row-by-row product's
// only by rounding.
func SymvUpper(dst, s []float64, n int, v []float64) {
	if n <= 0 || n%4 != 0 {
		panic("solver: SymvUpper needs n a positive multiple of 4")
	}
	_, _, _ = dst[n-1], s[n*n-1], v[n-1]
	symvAVX2(&dst[0], &s[0], n, &v[0])
}
