//go:build !amd64 || purego

package kernel

// Rank2Update sets out[i*cols+j] = in[i*inStride+j] - v[i] z[j] - z[i]
// v[j] for i < rows, j < cols (Rank2Go; see the amd64 version).
func Rank2Update(out, in []float64, rows, cols, inStride int, v, z []float64) {
	Rank2Go(out, in, rows, cols, inStride, v, z)
}
