//go:build amd64 && !purego

package kernel

//go:noescape
func rank2AVX2(out *float64, in *float64, rows, cols, inStride int, v *float64, z *float64)

// Rank2Update sets out[i*cols+j] = in[i*inStride+j] - v[i] z[j] - z[i]
// v[j] for i < rows, j < cols: smallTop.reduce's symmetric rank-2 update
// of a trailing block, written compact. With AVX2 it is rank2AVX2 (see
// rank2_amd64.s), two FMAs an entry, 4 entries at a time, where the Go
// loop (Rank2Go) rounds each product; results differ only by that
// rounding, and are the same bit for bit every time.
func Rank2Update(out, in []float64, rows, cols, inStride int, v, z []float64) {
	if !avx2 || rows <= 0 || cols <= 0 {
		Rank2Go(out, in, rows, cols, inStride, v, z)
		return
	}
	k := max(rows, cols)
	_, _, _, _ = out[rows*cols-1], in[(rows-1)*inStride+cols-1], v[k-1], z[k-1]
	rank2AVX2(&out[0], &in[0], rows, cols, inStride, &v[0], &z[0])
}
