//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// The contraction kernels in AVX2+FMA assembly (kernel_amd64.s), for
// uint8, float32 and float64 samples. They compute what DotRowsGo and
// AxpyRowsGo do (for float64, also gonum's floats.Dot and AddScaled), with the
// same float64 accumulation; results differ from the Go loops only by
// rounding, since the sums are taken in another order and each product is
// rounded once with its addition (FMA). For given inputs the result is
// always the same, bit for bit.

// avx2 reports whether the CPU and the OS support the AVX2 and FMA
// instructions the assembly kernels use: read once, never changed.
var avx2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// vnni reports whether the exact uint8 kernels (fixed_amd64.s) may add
// their products by VPDPWSSD (AVX512-VNNI) on 256 bits (EVEX-encoded, so
// AVX512VL too) and on 512 (AVX512F, and AVX512BW for the word shuffles):
// read once, never changed.
var vnni = avx2 && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VL &&
	cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

//go:noescape
func dotRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)

//go:noescape
func dotRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)

//go:noescape
func dotRowsF32StreamAVX2(dst *float64, x *float32, v *float64, rows, cols int)

//go:noescape
func dotRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)

//go:noescape
func dotRowsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols int)

//go:noescape
func axpyRowsU8AVX2(dst *float64, x *uint8, v *float64, rows, cols int)

//go:noescape
func axpyRowsF32AVX2(dst *float64, x *float32, v *float64, rows, cols int)

//go:noescape
func axpyRowsF32StreamAVX2(dst *float64, x *float32, v *float64, rows, cols int)

//go:noescape
func axpyRowsF64AVX2(dst *float64, x *float64, v *float64, rows, cols int)

//go:noescape
func axpyRowsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols int)

// DotRows is DotRowsGo, in assembly when avx2. With stream, float64
// and float32 rows are read as a pass's samples, from memory
// (dotRowsF64StreamAVX2, dotRowsF32StreamAVX2: rows of more than 256
// bytes one at a time, prefetched; see kernel_amd64.s); the results are
// the same bit for bit either way.
func DotRows[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, stream bool) {
	if !avx2 || rows == 0 || cols == 0 {
		DotRowsGo(dst, x, rows, cols, v)
		return
	}
	// The assembly reads x[:rows*cols] and v[:cols] and writes dst[:rows]:
	// these index expressions give the panics the Go loop would.
	_, _, _ = dst[rows-1], x[rows*cols-1], v[cols-1]
	switch x := any(x).(type) {
	case []uint8:
		dotRowsU8AVX2(&dst[0], &x[0], &v[0], rows, cols)
	case []float32:
		if stream {
			dotRowsF32StreamAVX2(&dst[0], &x[0], &v[0], rows, cols)
			return
		}
		dotRowsF32AVX2(&dst[0], &x[0], &v[0], rows, cols)
	case []float64:
		if stream {
			dotRowsF64StreamAVX2(&dst[0], &x[0], &v[0], rows, cols)
			return
		}
		dotRowsF64AVX2(&dst[0], &x[0], &v[0], rows, cols)
	}
}

// AxpyRows is AxpyRowsGo, in assembly when avx2; stream as for
// DotRows (axpyRowsF64StreamAVX2, axpyRowsF32StreamAVX2: rows read
// one at a time prefetched).
func AxpyRows[E uint8 | float32 | float64](dst []float64, x []E, rows, cols int, v []float64, stream bool) {
	if !avx2 || rows == 0 || cols == 0 {
		AxpyRowsGo(dst, x, rows, cols, v)
		return
	}
	// The assembly reads x[:rows*cols] and v[:rows] and updates dst[:cols].
	_, _, _ = dst[cols-1], x[rows*cols-1], v[rows-1]
	switch x := any(x).(type) {
	case []uint8:
		axpyRowsU8AVX2(&dst[0], &x[0], &v[0], rows, cols)
	case []float32:
		if stream {
			axpyRowsF32StreamAVX2(&dst[0], &x[0], &v[0], rows, cols)
			return
		}
		axpyRowsF32AVX2(&dst[0], &x[0], &v[0], rows, cols)
	case []float64:
		if stream {
			axpyRowsF64StreamAVX2(&dst[0], &x[0], &v[0], rows, cols)
			return
		}
		axpyRowsF64AVX2(&dst[0], &x[0], &v[0], rows, cols)
	}
}

//go:noescape
func axpySlabsF64StreamAVX2(dst *float64, x *float64, v *float64, rows, cols, slabs int)

// AxpySlabs sets dst[s*cols:(s+1)*cols] to axpyRowsStream's result for
// each of the slabs slabs of rows x cols values in x (x[s*rows*cols:]),
// bit for bit, in one call (axpySlabsF64StreamAVX2), and reports true;
// or reports false, having done nothing, when that kernel does not apply
// (no assembly, or cols outside 4..16).
func AxpySlabs(dst, x []float64, rows, cols, slabs int, v []float64) bool {
	if !avx2 || cols < 4 || cols > 16 || rows == 0 || slabs == 0 {
		return false
	}
	// The assembly reads x[:slabs*rows*cols] and v[:rows] and writes
	// dst[:slabs*cols].
	_, _, _ = dst[slabs*cols-1], x[slabs*rows*cols-1], v[rows-1]
	axpySlabsF64StreamAVX2(&dst[0], &x[0], &v[0], rows, cols, slabs)
	return true
}

//go:noescape
func gram3x4AVX2(out *float64, a *float64, lda int, b *float64, ldb int, k int)

// Gram3x4 sets out[4i+j] = sum_{c<k} a[i*lda+c] b[j*ldb+c] for i < 3,
// j < 4, k a positive multiple of 4: in assembly when avx2, else as
// Gram3x4Go.
func Gram3x4(out *[12]float64, a []float64, lda int, b []float64, ldb int, k int) {
	if !avx2 {
		Gram3x4Go(out, a, lda, b, ldb, k)
		return
	}
	// The assembly reads a[:2*lda+k] and b[:3*ldb+k].
	_, _ = a[2*lda+k-1], b[3*ldb+k-1]
	gram3x4AVX2(&out[0], &a[0], lda, &b[0], ldb, k)
}

//go:noescape
func gramCols4x8AVX2(out *float64, ldo int, a *float64, b *float64, ld int, m int)

// GramCols4x8 sets out[i*ldo+j] = sum_{r<m} a[r*ld+i] b[r*ld+j] for i < 4,
// j < 8, in the order of GramColsGo (avx2 only).
func GramCols4x8(out []float64, ldo int, a, b []float64, ld, m int) {
	// The assembly writes out[i*ldo+j] and reads a[:(m-1)*ld+4] and
	// b[:(m-1)*ld+8].
	_, _, _ = out[3*ldo+7], a[(m-1)*ld+3], b[(m-1)*ld+7]
	gramCols4x8AVX2(&out[0], ldo, &a[0], &b[0], ld, m)
}

//go:noescape
func sumU8AVX2(s *float64, x *uint8, cnt, size, n int)

// SumU8Head sets s[j] for the first size rounded down to 32 columns j of
// sumU8 (cnt < 2^23 samples of size elements in x) by sumU8AVX2, when
// avx2, and returns how many it set.
func SumU8Head(s []float64, x []uint8, cnt, size int) int {
	n := size &^ 31
	if !avx2 || n == 0 || cnt == 0 {
		return 0
	}
	// The assembly reads x[:(cnt-1)*size+n] and writes s[:n].
	_, _ = s[n-1], x[(cnt-1)*size+n-1]
	sumU8AVX2(&s[0], &x[0], cnt, size, n)
	return n
}
