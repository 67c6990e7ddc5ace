// Package kernel holds sompca's innermost loops: the contractions of
// sample rows with a vector for uint8, float32 and float64 elements, the
// exact fixed-point contractions of uint8 rows, and the small blocks of
// the Gram, scatter and eigen solvers' products. Each has an AVX2+FMA
// assembly version (amd64, without the purego build tag, on a CPU that
// has AVX2 and FMA) and a portable Go twin (the functions named ...Go).
// For given inputs every function returns the same bits every time; an
// assembly version differs from its Go twin only by rounding (FMA, another
// order of the sums) unless its comment says "the same bits". The package
// imports nothing of sompca.
package kernel

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// AVX2 reports whether the assembly kernels run: amd64 without the purego
// tag, on a CPU and OS with AVX2 and FMA. It never changes; a caller that
// wants the portable route calls the Go twins.
func AVX2() bool { return avx2 }

// DotRowsF64 sets dst[r] = sum_c x[r*cols+c] v[c] for r < rows: by
// DotRows when AVX2 (stream as there), else by gonum's floats.Dot for
// rows of shortRow or more and by DotRowsGo for shorter ones. For given
// inputs and kernels the result is the same bits every time.
func DotRowsF64(dst, x []float64, rows, cols int, v []float64, stream bool) {
	switch {
	case avx2:
		DotRows(dst, x, rows, cols, v, stream)
	case cols >= shortRow:
		for r := range rows {
			dst[r] = floats.Dot(x[r*cols:(r+1)*cols], v)
		}
	default:
		DotRowsGo(dst, x, rows, cols, v)
	}
}

// AxpyRowsF64 sets dst[c] = sum_r v[r] x[r*cols+c] for c < cols (dst is
// cleared first): by AxpyRows when AVX2 (stream as there), else by
// gonum's floats.AddScaled for rows of shortRow or more and by AxpyRowsGo
// for shorter ones.
func AxpyRowsF64(dst, x []float64, rows, cols int, v []float64, stream bool) {
	dst = dst[:cols]
	clear(dst)
	switch {
	case avx2:
		AxpyRows(dst, x, rows, cols, v, stream)
	case cols >= shortRow:
		for r := range rows {
			floats.AddScaled(dst, v[r], x[r*cols:(r+1)*cols])
		}
	default:
		AxpyRowsGo(dst, x, rows, cols, v)
	}
}

// DotRowsGo sets dst[r] = sum_c x[r*cols+c] v[c] for r < rows (the
// contraction of a row-major tensor's last mode), four partial sums a row
// in float64: the portable twin of DotRows.
func DotRowsGo[E float64 | float32 | uint8](dst []float64, x []E, rows, cols int, v []float64) {
	v = v[:cols]
	for r := range rows {
		row := x[r*cols : (r+1)*cols]
		var s0, s1, s2, s3 float64
		c := 0
		for ; c+4 <= len(row); c += 4 {
			s0 += float64(row[c]) * v[c]
			s1 += float64(row[c+1]) * v[c+1]
			s2 += float64(row[c+2]) * v[c+2]
			s3 += float64(row[c+3]) * v[c+3]
		}
		for ; c < len(row); c++ {
			s0 += float64(row[c]) * v[c]
		}
		dst[r] = (s0 + s1) + (s2 + s3)
	}
}

// AxpyRowsGo adds sum_r v[r] x[r*cols+c] to dst[c] for c < len(dst)
// (the contraction of a row-major tensor's first mode), row by row: the
// portable twin of AxpyRows.
func AxpyRowsGo[E float64 | float32 | uint8](dst []float64, x []E, rows, cols int, v []float64) {
	for r := range rows {
		a := v[r]
		row := x[r*cols : (r+1)*cols]
		row = row[:len(dst)]
		c := 0
		for ; c+4 <= len(row); c += 4 {
			d := dst[c : c+4 : c+4]
			e := row[c : c+4 : c+4]
			d[0] += a * float64(e[0])
			d[1] += a * float64(e[1])
			d[2] += a * float64(e[2])
			d[3] += a * float64(e[3])
		}
		for ; c < len(row); c++ {
			dst[c] += a * float64(row[c])
		}
	}
}

// GramCols sets S (n x n, row-major, both triangles) to Y^T Y for Y
// (m x n, row-major, m >= 1): the scatter of the partial projections that
// topGram forms. Every entry is one chain of FMAs over the rows in order,
// S[i][j] = fma(Y[m-1][i], Y[m-1][j], ... fma(Y[0][i], Y[0][j], 0)), and
// S[j][i] is the same number, so S is symmetric exactly and the same bit
// for bit whatever computes it (the 4 x 8 blocks of GramCols4x8, with
// AVX2, or GramColsGo).
//
// Blocks: rows i0 = 0, 4, 8, ... of S (the last block moved back to end at
// n), each with the column blocks j0 = i0, i0 + 8, ... (the last moved
// back likewise), which covers the upper triangle; a block's entries are
// written to both triangles. Blocks that overlap compute their shared
// entries twice, to the same value.
func GramCols(S, Y []float64, m, n int) {
	if !avx2 || n < 8 {
		GramColsGo(S, Y, m, n)
		return
	}
	var t [32]float64
	for i0 := 0; i0 < n; i0 += 4 {
		i := min(i0, n-4)
		for j0 := i; j0 < n; j0 += 8 {
			j := min(j0, n-8)
			GramCols4x8(t[:], 8, Y[i:], Y[j:], n, m)
			for a := range 4 {
				for b, s := range t[8*a : 8*a+8] {
					S[(i+a)*n+j+b] = s
					S[(j+b)*n+i+a] = s
				}
			}
		}
	}
}

// GramColsGo is GramCols in Go, in the same order.
func GramColsGo(S, Y []float64, m, n int) {
	Y = Y[:m*n]
	for i := range n {
		for j := i; j < n; j++ {
			s := 0.0
			for r := i; r < len(Y); r += n {
				s = math.FMA(Y[r], Y[r+j-i], s)
			}
			S[i*n+j], S[j*n+i] = s, s
		}
	}
}

// Gram3x4Go is Gram3x4 in Go, in the kernel's order: lane l of each sum
// takes the terms c = l mod 4 in order, the lanes are added as
// (l0 + l1) + (l2 + l3).
func Gram3x4Go(out *[12]float64, a []float64, lda int, b []float64, ldb int, k int) {
	for i := range 3 {
		for j := range 4 {
			ai, bj := a[i*lda:i*lda+k], b[j*ldb:j*ldb+k]
			var l [4]float64
			for c := 0; c < k; c += 4 {
				for q := range 4 {
					l[q] += ai[c+q] * bj[c+q]
				}
			}
			out[4*i+j] = (l[0] + l[1]) + (l[2] + l[3])
		}
	}
}

// GramI16Go is GramI16 in Go.
func GramI16Go(out *[12]int32, a []int16, lda int, b []int16, ldb int, k int) {
	for i := range 3 {
		for j := range 4 {
			ai, bj := a[i*lda:i*lda+k], b[j*ldb:j*ldb+k]
			var s int32
			for c, x := range ai {
				s += int32(x) * int32(bj[c])
			}
			out[4*i+j] = s
		}
	}
}

// DotsI32Go sets out[4*i+j] = sum_t float64(a[i*lda+t]) z[j*ldz+t] for
// i < ni, j < 4, t < k, summed as the assembly of DotsI32 does: 4 lanes
// (t mod 4, fused multiply-adds) for t below k rounded down to a multiple
// of 4, added as (l0 + l1) + (l2 + l3), then the rest in order.
func DotsI32Go(out []float64, a []int32, lda, ni int, z []float64, ldz, k int) {
	k4 := k &^ 3
	for i := range ni {
		ai := a[i*lda:]
		for j := range 4 {
			var l [4]float64
			zj := z[j*ldz:]
			for t := 0; t < k4; t += 4 {
				for q := range 4 {
					l[q] = math.FMA(float64(ai[t+q]), zj[t+q], l[q])
				}
			}
			out[4*i+j] = (l[0] + l[1]) + (l[2] + l[3])
		}
	}
	DotsI32Tail(out, a, lda, ni, z, ldz, k4, k)
}

// DotsI32Tail adds to out the terms t in [k4, k) of DotsI32Go's sums.
func DotsI32Tail(out []float64, a []int32, lda, ni int, z []float64, ldz, k4, k int) {
	for i := range ni {
		for j := range 4 {
			v := out[4*i+j]
			for t := k4; t < k; t++ {
				v = math.FMA(float64(a[i*lda+t]), z[j*ldz+t], v)
			}
			out[4*i+j] = v
		}
	}
}
