//go:build !amd64 || purego

package solver

// rank2Update sets out[i*cols+j] = in[i*inStride+j] - v[i] z[j] - z[i]
// v[j] for i < rows, j < cols (rank2Go; see the amd64 version).
func rank2Update(out, in []float64, rows, cols, inStride int, v, z []float64) {
	rank2Go(out, in, rows, cols, inStride, v, z)
}
