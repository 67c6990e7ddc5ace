package solver

import (
	"github.com/sompca/sompca/solver/internal/kernel"
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
// (see kernel.DotRows): the same results, bit for bit.
func dotRowsStream(dst []float64, x Block, rows, cols int, v []float64) {
	dotRowsOf(dst, x, rows, cols, v, true)
}

func dotRowsOf(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	switch {
	case x.F64 != nil:
		kernel.DotRowsF64(dst, x.F64, rows, cols, v, stream)
	case x.F32 != nil:
		kernel.DotRows(dst, x.F32, rows, cols, v, stream)
	default:
		kernel.DotRows(dst, x.U8, rows, cols, v, stream)
	}
}

// axpyRows sets dst[c] = sum_r v[r] x[r*cols+c] for c < cols: the
// contraction of a row-major tensor's first mode.
func axpyRows(dst []float64, x Block, rows, cols int, v []float64) {
	axpyRowsOf(dst, x, rows, cols, v, false)
}

// axpyRowsStream is axpyRows on a pass's samples, read from memory once
// (see kernel.AxpyRows): the same results, bit for bit.
func axpyRowsStream(dst []float64, x Block, rows, cols int, v []float64) {
	axpyRowsOf(dst, x, rows, cols, v, true)
}

func axpyRowsOf(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	if x.F64 != nil {
		kernel.AxpyRowsF64(dst, x.F64, rows, cols, v, stream)
		return
	}
	dst = dst[:cols]
	clear(dst)
	switch {
	case x.F32 != nil:
		kernel.AxpyRows(dst, x.F32, rows, cols, v, stream)
	default:
		kernel.AxpyRows(dst, x.U8, rows, cols, v, stream)
	}
}

// dotBlock returns sum_i x[i] v[i] over the elements of x.
func dotBlock(x Block, v []float64) float64 {
	var out [1]float64
	dotRows(out[:], x, 1, len(v), v)
	return out[0]
}
