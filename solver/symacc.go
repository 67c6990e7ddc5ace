package solver

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// symAcc is the one symmetric accumulator of the engine: an n x n
// symmetric matrix held in the upper triangle of a row-major n x n slice
// (the lower triangle is never read nor written). Every scatter matrix a
// pass forms (TVP mode scatters, PCA's scatter, MPCA/CSA's mode scatters)
// is a sum of Gram matrices accumulated per grain into a symAcc and folded
// with add.
type symAcc struct {
	n    int
	data []float64
}

func newSymAcc(n int, data []float64) symAcc { return symAcc{n: n, data: data[:n*n]} }

func (a symAcc) raw() blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Upper, N: a.n, Stride: a.n, Data: a.data}
}

// setGram sets a = Y^T Y for the rows x n row-major Y.
func (a symAcc) setGram(y []float64, rows int) {
	Y := blas64.General{Rows: rows, Cols: a.n, Stride: a.n, Data: y[:rows*a.n]}
	blas64.Syrk(blas.Trans, 1, Y, 0, a.raw())
}

// addGram adds alpha Y^T Y for the rows x n row-major Y.
func (a symAcc) addGram(alpha float64, y []float64, rows int) {
	Y := blas64.General{Rows: rows, Cols: a.n, Stride: a.n, Data: y[:rows*a.n]}
	blas64.Syrk(blas.Trans, alpha, Y, 1, a.raw())
}

// addOuter adds alpha B B^T for the n x cols row-major B (the Gram matrix of B's
// rows, as the mode-n unfolding of a tensor block gives them).
func (a symAcc) addOuter(alpha float64, b []float64, cols int) {
	B := blas64.General{Rows: a.n, Cols: cols, Stride: cols, Data: b[:a.n*cols]}
	blas64.Syrk(blas.NoTrans, alpha, B, 1, a.raw())
}

// clear sets the upper triangle to zero.
func (a symAcc) clear() {
	for i := range a.n {
		clear(a.data[i*a.n+i : (i+1)*a.n])
	}
}

// add adds b's upper triangle to a's.
func (a symAcc) add(b symAcc) {
	for i := range a.n {
		floats.Add(a.data[i*a.n+i:(i+1)*a.n], b.data[i*a.n+i:(i+1)*a.n])
	}
}

// toSym copies a into dst (allocated when nil or of another size) and
// returns it.
func (a symAcc) toSym(dst *mat.SymDense) *mat.SymDense {
	if dst == nil || dst.SymmetricDim() != a.n {
		dst = mat.NewSymDense(a.n, nil)
	}
	raw := dst.RawSymmetric()
	for i := range a.n {
		copy(raw.Data[i*raw.Stride+i:i*raw.Stride+a.n], a.data[i*a.n+i:(i+1)*a.n])
	}
	return dst
}
