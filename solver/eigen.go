package solver

import (
	"errors"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// denseLimit is the largest dimension whose eigenproblems are solved by a
// dense symmetric eigendecomposition; larger ones use Krylov iterations
// warm-started from the previous vector (see krylov), so that no update
// costs O(I^3). Set by BenchmarkModeEigen.
var denseLimit = 16

// fixSign flips v so that its entry of largest magnitude (the first such
// on ties) is positive. An eigenvector is defined up to sign; this one
// rule makes results reproducible and comparable. (A "sum positive" rule
// would not do: every later nu-mode vector of SO-MPCA-RS sums to zero.)
func fixSign(v []float64) {
	best, bi := -1.0, 0
	for i, x := range v {
		if a := math.Abs(x); a > best {
			best, bi = a, i
		}
	}
	if len(v) > 0 && v[bi] < 0 {
		floats.Scale(-1, v)
	}
}

// eigenSolver finds the top eigenvector of a scatter matrix S restricted
// to the orthogonal complement of span(C), for C with orthonormal columns.
//
// Theorem 1 of the paper gives the constrained vector as the top
// eigenvector of Gamma S with Gamma = I - C C^T; UMPCA's Psi S has the same
// form. Gamma S is not symmetric, but Gamma is an orthogonal projector and
// the solution lies in its range, so the same vector is the top
// eigenvector of the symmetric Gamma S Gamma = B (B^T S B) B^T, with B an
// orthonormal basis of range(Gamma). The dense path solves the small
// symmetric B^T S B exactly; the Lanczos path applies Gamma S Gamma,
// keeping its vectors in range(Gamma). Either way the answer satisfies
// the constraint to rounding, even when S has a zero eigenvalue there.
type eigenSolver struct {
	es      mat.EigenSym
	vecs    mat.Dense
	kr      krylov
	threads int       // goroutines for the products with Y
	parts   []float64 // per-chunk sums of those products
	tmp     []float64 // Y v
}

var errNoFreedom = errors.New("solver: no direction left outside the constraint")

// top writes to u the unit top eigenvector of S restricted to the
// complement of span(C) (C may be nil) and returns its eigenvalue
// u^T S u. warm, if not nil, is a starting guess for the iterative path;
// *hint is set to the number of Krylov products it used.
func (e *eigenSolver) top(u []float64, S *mat.SymDense, C *mat.Dense, warm []float64, hint *int) (float64, error) {
	n := S.SymmetricDim()
	c := 0
	if C != nil {
		_, c = C.Dims()
	}
	if c >= n {
		return 0, errNoFreedom
	}
	var val float64
	var err error
	if n <= denseLimit {
		val, err = e.dense(u, S, C)
	} else {
		var ok bool
		applies := 0
		val, ok = e.kr.top(u, symApply(S), constraint(C, n), warm, krylovMaxApply(n), &applies)
		*hint = applies
		if !ok {
			val, err = e.dense(u, S, C)
		}
	}
	if err != nil {
		return 0, err
	}
	fixSign(u)
	return val, nil
}

// krylovMaxApply bounds the products krylov may spend on an n x n
// problem before the dense eigendecomposition takes over.
func krylovMaxApply(n int) int { return max(4*krylovSteps, n) }

// topGram is top for S = Y^T Y, Y (m x n, row-major) the partial
// projections of the samples (len(Y) = m n, n = len(u)), forming S only
// when that is cheaper: a product S v = Y^T (Y v) costs 2 m n
// multiply-adds, forming S about gramBudget(n) of them. *hint carries
// the number of products the previous update of the same mode needed
// (0 at first): when it is within the budget the Krylov iteration runs on
// Y, and forms S and goes on from its best vector if the budget runs out;
// otherwise S is formed at once. Either way the iteration is the same, so
// the choice changes the cost, not the answer beyond rounding.
func (e *eigenSolver) topGram(u []float64, Y []float64, C *mat.Dense, warm []float64, hint *int) (float64, error) {
	n := len(u)
	c := 0
	if C != nil {
		_, c = C.Dims()
	}
	if c >= n {
		return 0, errNoFreedom
	}
	if n > denseLimit && *hint <= gramBudget(n) {
		applies := 0
		val, ok := e.kr.top(u, e.gramApply(Y, n), constraint(C, n), warm, gramBudget(n), &applies)
		statCalls++
		statApplies += applies
		if ok {
			*hint = applies
			fixSign(u)
			return val, nil
		}
		statFall++
		warm = u
	}
	m := len(Y) / n
	S := mat.NewSymDense(n, nil)
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: m, Cols: n, Stride: n, Data: Y}, 0, S.RawSymmetric())
	return e.top(u, S, C, warm, hint)
}

// gramBudget is the number of products S v = Y^T (Y v) that cost about as
// much as forming S (m n^2 / 2 multiply-adds against 2 m n each).
func gramBudget(n int) int { return max(16, n) }

// gramChunk is the number of rows of Y whose contribution to Y^T (Y v)
// one task sums; the chunks' sums are added in chunk order.
const gramChunk = 64

// gramApply returns v -> Y^T (Y v) for Y (m x n, row-major), over chunks
// of gramChunk rows spread on up to threads goroutines. The chunks and the
// order of their sums are fixed, so the result does not depend on the
// number of threads.
func (e *eigenSolver) gramApply(Y []float64, n int) func(dst, v []float64) {
	m := len(Y) / n
	chunks := (m + gramChunk - 1) / gramChunk
	if cap(e.parts) < chunks*n {
		e.parts = make([]float64, chunks*n)
	}
	parts := e.parts[:chunks*n]
	threads := e.threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, chunks)
	if cap(e.tmp) < m {
		e.tmp = make([]float64, m)
	}
	tmp := e.tmp[:m]
	do := func(c int, v []float64) {
		lo, hi := c*gramChunk, min(m, (c+1)*gramChunk)
		Yc := blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: Y[lo*n : hi*n]}
		t := blas64.Vector{N: hi - lo, Inc: 1, Data: tmp[lo:hi]}
		blas64.Gemv(blas.NoTrans, 1, Yc, blas64.Vector{N: n, Inc: 1, Data: v}, 0, t)
		blas64.Gemv(blas.Trans, 1, Yc, t, 0, blas64.Vector{N: n, Inc: 1, Data: parts[c*n : (c+1)*n]})
	}
	return func(dst, v []float64) {
		if threads == 1 {
			for c := range chunks {
				do(c, v)
			}
		} else {
			var wg sync.WaitGroup
			wg.Add(threads)
			for t := range threads {
				go func() {
					defer wg.Done()
					for c := t * chunks / threads; c < (t+1)*chunks/threads; c++ {
						do(c, v)
					}
				}()
			}
			wg.Wait()
		}
		copy(dst, parts[:n])
		for c := 1; c < chunks; c++ {
			floats.Add(dst, parts[c*n:(c+1)*n])
		}
	}
}

func (e *eigenSolver) dense(u []float64, S *mat.SymDense, C *mat.Dense) (float64, error) {
	n := S.SymmetricDim()
	if C == nil {
		if !e.es.Factorize(S, true) {
			return 0, errorf(ErrNumerical, "solver: symmetric eigendecomposition did not converge")
		}
		vals := e.es.Values(nil)
		e.vecs.Reset()
		e.es.VectorsTo(&e.vecs)
		top := len(vals) - 1 // ascending order
		mat.Col(u, top, &e.vecs)
		return vals[top], nil
	}
	B := complementBasis(C)
	_, r := B.Dims()
	var BSB mat.Dense
	BSB.Mul(B.T(), S)
	var T mat.Dense
	T.Mul(&BSB, B)
	Ts := mat.NewSymDense(r, nil)
	for i := range r {
		for j := i; j < r; j++ {
			Ts.SetSym(i, j, 0.5*(T.At(i, j)+T.At(j, i)))
		}
	}
	if !e.es.Factorize(Ts, true) {
		return 0, errorf(ErrNumerical, "solver: symmetric eigendecomposition did not converge")
	}
	vals := e.es.Values(nil)
	e.vecs.Reset()
	e.es.VectorsTo(&e.vecs)
	w := mat.Col(nil, r-1, &e.vecs)
	uv := mat.NewVecDense(n, u)
	uv.MulVec(B, mat.NewVecDense(r, w))
	// Renormalise against rounding in the basis.
	floats.Scale(1/floats.Norm(u, 2), u)
	return vals[r-1], nil
}

// complementBasis returns an orthonormal basis (n x (n-c)) of the
// orthogonal complement of span(C), for C (n x c) with orthonormal
// columns: the last n-c columns of the full Q of C's QR factorisation.
func complementBasis(C *mat.Dense) *mat.Dense {
	n, c := C.Dims()
	var qr mat.QR
	qr.Factorize(C)
	var Q mat.Dense
	qr.QTo(&Q)
	return mat.DenseCopyOf(Q.Slice(0, n, c, n))
}

// orthonormalRange returns an orthonormal basis of the column span of A,
// dropping directions whose singular value is negligible (below
// max(n, c) eps sigma_max, as numpy's matrix_rank), or nil when A is
// (numerically) zero. A singular G'Y'YG in UMPCA thus narrows the
// constraint instead of breaking the fit.
func orthonormalRange(A *mat.Dense) *mat.Dense {
	n, c := A.Dims()
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil
	}
	s := svd.Values(nil)
	if len(s) == 0 || s[0] == 0 {
		return nil
	}
	tol := float64(max(n, c)) * 2.220446049250313e-16 * s[0]
	r := 0
	for _, v := range s {
		if v > tol {
			r++
		}
	}
	var U mat.Dense
	svd.UTo(&U)
	return mat.DenseCopyOf(U.Slice(0, n, 0, r))
}

// symApply returns v -> S v for the upper triangle of S.
func symApply(S *mat.SymDense) func(dst, v []float64) {
	raw := S.RawSymmetric()
	return func(dst, v []float64) {
		blas64.Symv(1, raw, blas64.Vector{N: len(v), Inc: 1, Data: v}, 0, blas64.Vector{N: len(dst), Inc: 1, Data: dst})
	}
}

// constraint returns C's storage for krylov (no columns when C is nil).
func constraint(C *mat.Dense, n int) blas64.General {
	if C == nil {
		return blas64.General{Rows: n, Cols: 0, Stride: 1}
	}
	return C.RawMatrix()
}

var statCalls, statApplies, statFall int
