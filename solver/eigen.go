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
//
// Its workspaces are sized by the first updates of a fit and reused by
// the rest, so that updates allocate nothing (TestAllocations). An
// eigenSolver with threads != 1 starts goroutines for the products with Y
// on first use: close stops them.
type eigenSolver struct {
	work    eigenWork // the dense path's scratch
	kr      krylov
	threads int       // goroutines for the products with Y
	parts   []float64 // per-chunk sums of those products
	tmp     []float64 // Y v
	s       []float64 // the storage of S when topGram forms it
	sym     mat.SymDense
	symS    *mat.SymDense          // the matrix symApply applies
	symFn   func(dst, v []float64) // v -> symS v, made once
	fullN   int                    // the dimension of the S fullApply applies
	fullFn  func(dst, v []float64) // v -> S v for S in s, made once
	gram    gramOp                 // the operator gramApply applies
	gramFn  func(dst, v []float64) // v -> Y^T (Y v), made once
}

var errNoFreedom = errors.New("solver: no direction left outside the constraint")

// top writes to u the unit top eigenvector of S restricted to the
// complement of span(C) (C may be nil) and returns its eigenvalue
// u^T S u. warm, if not nil, is a starting guess for the iterative path;
// *hint is set to the number of Krylov products it used.
func (e *eigenSolver) top(u []float64, S *mat.SymDense, C *mat.Dense, warm []float64, hint *int) (float64, error) {
	return e.topWith(u, S, nil, C, warm, hint)
}

// topWith is top with the Krylov products by apply (nil: symApply(S),
// from S's upper triangle).
func (e *eigenSolver) topWith(u []float64, S *mat.SymDense, apply func(dst, v []float64), C *mat.Dense, warm []float64, hint *int) (float64, error) {
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
		if apply == nil {
			apply = e.symApply(S)
		}
		val, ok = e.kr.top(u, apply, constraint(C, n), warm, krylovMaxApply(n), &applies)
		*hint = applies
		if e.kr.canceled {
			return 0, ErrCanceled
		}
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
		if e.kr.canceled {
			return 0, ErrCanceled
		}
		if ok {
			*hint = applies
			fixSign(u)
			return val, nil
		}
		warm = u
	}
	m := len(Y) / n
	e.s = grow(e.s, n*n)
	if e.kr.cancel == nil {
		gramCols(e.s, Y, m, n)
	} else if err := gramColsInterruptible(e.kr.cancel, e.s, Y, m, n); err != nil {
		// The product goes on in the background into e.s, which this
		// canceled fit never reads again.
		e.s = nil
		return 0, err
	}
	e.sym.SetRawSymmetric(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: e.s[:n*n]})
	return e.topWith(u, &e.sym, e.fullApply(n), C, warm, hint)
}

// gramColsInterruptible runs gramCols under interruptible (a separate
// function, so that the closure's captures do not move topGram's
// variables to the heap when there is no cancellation).
//
//go:noinline
func gramColsInterruptible(cancel func() bool, S, Y []float64, m, n int) error {
	return interruptible(cancel, func() { gramCols(S, Y, m, n) })
}

// fullApply returns v -> S v for the n x n matrix S in e.s with both
// triangles set (as gramCols leaves it), one dot product per row by the
// contraction kernel. The function is made once per eigenSolver.
func (e *eigenSolver) fullApply(n int) func(dst, v []float64) {
	e.fullN = n
	if e.fullFn == nil {
		e.fullFn = func(dst, v []float64) {
			n := e.fullN
			dotRows(dst, Block{F64: e.s[:n*n]}, n, n, v)
		}
	}
	return e.fullFn
}

// gramBudget is the number of products S v = Y^T (Y v) that cost about as
// much as forming S by gramCols (m n^2 / 2 FMAs at about twice the rate of
// the products' 2 m n: BenchmarkModeEigen's Form / YApply is n/10 to n/6
// at m = 300..721, n = 32..256).
func gramBudget(n int) int { return max(4, n/8) }

// gramChunk is the number of rows of Y whose contribution to Y^T (Y v)
// one task sums; the chunks' sums are added in chunk order.
const gramChunk = 64

// gramOp is the product v -> Y^T (Y v) of gramApply, with its workers.
type gramOp struct {
	y         []float64 // Y, m x n row-major
	n, chunks int
	threads   int
	v         []float64 // the vector of the product under way
	tasks     chan int  // worker t sums its share of the chunks
	wg        sync.WaitGroup
	started   int // workers running
}

// gramApply returns v -> Y^T (Y v) for Y (m x n, row-major), over chunks
// of gramChunk rows spread on up to threads goroutines. The chunks and the
// order of their sums are fixed, so the result does not depend on the
// number of threads. The goroutines are started once and the returned
// function made once per eigenSolver; a later call redirects both to the
// new Y.
func (e *eigenSolver) gramApply(Y []float64, n int) func(dst, v []float64) {
	g := &e.gram
	m := len(Y) / n
	g.y, g.n, g.chunks = Y, n, (m+gramChunk-1)/gramChunk
	e.parts = grow(e.parts, g.chunks*n)
	e.tmp = grow(e.tmp, m)
	threads := e.threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	g.threads = min(threads, g.chunks)
	for ; g.started < g.threads-1; g.started++ {
		if g.tasks == nil {
			g.tasks = make(chan int, threads)
		}
		go func() {
			for t := range g.tasks {
				e.gramShare(t)
				g.wg.Done()
			}
		}()
	}
	if e.gramFn == nil {
		e.gramFn = func(dst, v []float64) {
			g := &e.gram
			g.v = v
			if g.threads > 1 {
				g.wg.Add(g.threads - 1)
				for t := 1; t < g.threads; t++ {
					g.tasks <- t
				}
			}
			e.gramShare(0)
			g.wg.Wait()
			n := g.n
			copy(dst, e.parts[:n])
			for c := 1; c < g.chunks; c++ {
				floats.Add(dst, e.parts[c*n:(c+1)*n])
			}
		}
	}
	return e.gramFn
}

// gramShare computes the chunks of worker t's share of the product.
func (e *eigenSolver) gramShare(t int) {
	g := &e.gram
	n, m := g.n, len(g.y)/g.n
	for c := t * g.chunks / g.threads; c < (t+1)*g.chunks/g.threads; c++ {
		lo, hi := c*gramChunk, min(m, (c+1)*gramChunk)
		// The contraction kernels (AVX2 where there is AVX2) read the
		// chunk twice, the second time from cache: Y_c v, then Y_c^T of it.
		Yc := Block{F64: g.y[lo*n : hi*n]}
		dotRows(e.tmp[lo:hi], Yc, hi-lo, n, g.v)
		axpyRows(e.parts[c*n:(c+1)*n], Yc, hi-lo, n, e.tmp[lo:hi])
	}
}

// close stops the goroutines of the products with Y, if any.
func (e *eigenSolver) close() {
	if e.gram.tasks != nil {
		close(e.gram.tasks)
		e.gram.tasks = nil
		e.gram.started = 0
	}
}

func (e *eigenSolver) dense(u []float64, S *mat.SymDense, C *mat.Dense) (float64, error) {
	var val float64
	var ok bool
	if C == nil {
		val, ok = e.work.top(u, S)
	} else {
		val, ok = e.work.topConstrained(u, S, C)
	}
	if !ok {
		return 0, errorf(ErrNumerical, "solver: symmetric eigendecomposition did not converge")
	}
	return val, nil
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
	var w svdWork
	return w.orthonormalRange(A.RawMatrix())
}

// symApply returns v -> S v for the upper triangle of S. The function is
// made once per eigenSolver; a later call redirects it to the new S.
func (e *eigenSolver) symApply(S *mat.SymDense) func(dst, v []float64) {
	e.symS = S
	if e.symFn == nil {
		e.symFn = func(dst, v []float64) {
			raw := e.symS.RawSymmetric()
			blas64.Symv(1, raw, blas64.Vector{N: len(v), Inc: 1, Data: v}, 0, blas64.Vector{N: len(dst), Inc: 1, Data: dst})
		}
	}
	return e.symFn
}

// constraint returns C's storage for krylov (no columns when C is nil).
func constraint(C *mat.Dense, n int) blas64.General {
	if C == nil {
		return blas64.General{Rows: n, Cols: 0, Stride: 1}
	}
	return C.RawMatrix()
}
