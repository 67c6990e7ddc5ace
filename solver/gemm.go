package solver

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gemmSerial is blas64.Gemm (C = alpha op(A) B + beta C) on the
// calling goroutine: C is computed in tiles small enough that gonum does
// not start goroutines for them. The passes call it from the workers of
// the runner's pool, which already keep the cores busy; goroutines started
// per product there only cost allocations and contention. Every element
// of C gets the same operations in the same order as from one call to
// blas64.Gemm (gonum's serial and parallel paths both sum over k in
// order, by AXPYs, when op(B) = B), so the result is the same bit for bit
// (TestGemmSerial). With op(B) = B^T gonum sums by dot products over
// blocks of k, which tiles would change: that case is not offered.
func gemmSerial(tA blas.Transpose, alpha float64, A, B blas64.General, beta float64, C blas64.General) {
	const tB = blas.NoTrans
	for i := 0; i < C.Rows; i += gemmRows {
		mi := min(gemmRows, C.Rows-i)
		var a blas64.General
		if tA == blas.NoTrans {
			a = blas64.General{Rows: mi, Cols: A.Cols, Stride: A.Stride, Data: A.Data[i*A.Stride:]}
		} else {
			a = blas64.General{Rows: A.Rows, Cols: mi, Stride: A.Stride, Data: A.Data[i:]}
		}
		for j := 0; j < C.Cols; j += gemmCols {
			nj := min(gemmCols, C.Cols-j)
			b := blas64.General{Rows: B.Rows, Cols: nj, Stride: B.Stride, Data: B.Data[j:]}
			c := blas64.General{Rows: mi, Cols: nj, Stride: C.Stride, Data: C.Data[i*C.Stride+j:]}
			blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		}
	}
}
