package solver

import (
	"github.com/sompca/sompca/solver/internal/kernel"

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
// (see kernel.DotRows): the same results, bit for bit.
func dotRowsStream(dst []float64, x Block, rows, cols int, v []float64) {
	dotRowsOf(dst, x, rows, cols, v, true)
}

func dotRowsOf(dst []float64, x Block, rows, cols int, v []float64, stream bool) {
	switch {
	case x.F64 != nil && kernel.AVX2():
		kernel.DotRows(dst, x.F64, rows, cols, v, stream)
	case x.F64 != nil && cols >= shortRow:
		for r := range rows {
			dst[r] = floats.Dot(x.F64[r*cols:(r+1)*cols], v)
		}
	case x.F64 != nil:
		kernel.DotRowsGo(dst, x.F64, rows, cols, v)
	case x.F32 != nil:
		kernel.DotRows(dst, x.F32, rows, cols, v, stream)
	default:
		kernel.DotRows(dst, x.U8, rows, cols, v, stream)
	}
}

// shortRow is the row length below which a plain loop beats a call to
// gonum's assembly kernels for float64.
const shortRow = 16

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
	dst = dst[:cols]
	clear(dst)
	switch {
	case x.F64 != nil && kernel.AVX2():
		kernel.AxpyRows(dst, x.F64, rows, cols, v, stream)
	case x.F64 != nil && cols >= shortRow:
		for r := range rows {
			floats.AddScaled(dst, v[r], x.F64[r*cols:(r+1)*cols])
		}
	case x.F64 != nil:
		kernel.AxpyRowsGo(dst, x.F64, rows, cols, v)
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
