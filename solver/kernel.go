package solver

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// This file holds the contraction kernels: the only code that reads sample
// elements. Each reads its input in the element type it was given and
// accumulates in float64.

// dotRows sets dst[r] = sum_c x[r*cols+c] v[c] for r < rows: the
// contraction of a row-major tensor's last mode.
func dotRows(dst []float64, x Block, rows, cols int, v []float64) {
	dotRowsOf(dst, x, rows, cols, v, false)
}

// dotRowsStream is dotRows on a pass's samples, read from memory once
// (see dotRowsAsm): the same results, bit for bit.
func dotRowsStream(dst []float64, x Block, rows, cols int, v []float64) {
	dotRowsOf(dst, x, rows, cols, v, true)
}

func dotRowsOf(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	switch {
	case x.F64 != nil && useAVX2:
		dotRowsAsm(dst, x.F64, rows, cols, v, stream)
	case x.F64 != nil && cols >= shortRow:
		for r := range rows {
			dst[r] = floats.Dot(x.F64[r*cols:(r+1)*cols], v)
		}
	case x.F64 != nil:
		dotRowsT(dst, x.F64, rows, cols, v)
	case x.F32 != nil:
		dotRowsAsm(dst, x.F32, rows, cols, v, stream)
	default:
		dotRowsAsm(dst, x.U8, rows, cols, v, stream)
	}
}

// shortRow is the row length below which a plain loop beats a call to
// gonum's assembly kernels for float64.
const shortRow = 16

func dotRowsT[E float64 | float32 | uint8](dst []float64, x []E, rows, cols int, v []float64) {
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

// axpyRows sets dst[c] = sum_r v[r] x[r*cols+c] for c < cols: the
// contraction of a row-major tensor's first mode.
func axpyRows(dst []float64, x Block, rows, cols int, v []float64) {
	axpyRowsOf(dst, x, rows, cols, v, false)
}

// axpyRowsStream is axpyRows on a pass's samples, read from memory once
// (see axpyRowsAsm): the same results, bit for bit.
func axpyRowsStream(dst []float64, x Block, rows, cols int, v []float64) {
	axpyRowsOf(dst, x, rows, cols, v, true)
}

func axpyRowsOf(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	dst = dst[:cols]
	clear(dst)
	switch {
	case x.F64 != nil && useAVX2:
		axpyRowsAsm(dst, x.F64, rows, cols, v, stream)
	case x.F64 != nil && cols >= shortRow:
		for r := range rows {
			floats.AddScaled(dst, v[r], x.F64[r*cols:(r+1)*cols])
		}
	case x.F64 != nil:
		axpyRowsT(dst, x.F64, rows, cols, v)
	case x.F32 != nil:
		axpyRowsAsm(dst, x.F32, rows, cols, v, stream)
	default:
		axpyRowsAsm(dst, x.U8, rows, cols, v, stream)
	}
}

func axpyRowsT[E float64 | float32 | uint8](dst []float64, x []E, rows, cols int, v []float64) {
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

// dotBlock returns sum_i x[i] v[i] over the elements of x.
func dotBlock(x Block, v []float64) float64 {
	var out [1]float64
	dotRows(out[:], x, 1, len(v), v)
	return out[0]
}

// gramCols sets S (n x n, row-major, both triangles) to Y^T Y for Y
// (m x n, row-major, m >= 1): the scatter of the partial projections that
// topGram forms. Every entry is one chain of FMAs over the rows in order,
// S[i][j] = fma(Y[m-1][i], Y[m-1][j], ... fma(Y[0][i], Y[0][j], 0)), and
// S[j][i] is the same number, so S is symmetric exactly and the same bit
// for bit whatever computes it (the 4 x 8 blocks of gramCols4x8, with
// AVX2, or gramColsGo).
//
// Blocks: rows i0 = 0, 4, 8, ... of S (the last block moved back to end at
// n), each with the column blocks j0 = i0, i0 + 8, ... (the last moved
// back likewise), which covers the upper triangle; a block's entries are
// written to both triangles. Blocks that overlap compute their shared
// entries twice, to the same value.
func gramCols(S, Y []float64, m, n int) {
	if !useAVX2 || n < 8 {
		gramColsGo(S, Y, m, n)
		return
	}
	var t [32]float64
	for i0 := 0; i0 < n; i0 += 4 {
		i := min(i0, n-4)
		for j0 := i; j0 < n; j0 += 8 {
			j := min(j0, n-8)
			gramCols4x8(t[:], 8, Y[i:], Y[j:], n, m)
			for a := range 4 {
				for b, s := range t[8*a : 8*a+8] {
					S[(i+a)*n+j+b] = s
					S[(j+b)*n+i+a] = s
				}
			}
		}
	}
}

// gramColsGo is gramCols in Go, in the same order.
func gramColsGo(S, Y []float64, m, n int) {
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

// subRowsGo subtracts off from each of the len(x)/len(off) rows of x, by
// floats.Sub on each row (subRows' reference: the same bits).
func subRowsGo(x, off []float64) {
	cols := len(off)
	for i := 0; i+cols <= len(x); i += cols {
		floats.Sub(x[i:i+cols], off)
	}
}
