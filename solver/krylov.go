package solver

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
)

// krylovTol is the residual at which a top eigenvector is accepted:
// ||A u - theta u|| <= krylovTol theta. The eigenvector's error is then
// about krylovTol theta / gap (Davis-Kahan), where gap separates theta
// from the rest of the spectrum; with the gaps of the scatter matrices
// met in practice (1e-3 theta and wider) that is 1e-10 or better, and
// rounding in forming A v (relative error near 1e-15) stays well below it.
const krylovTol = 1e-13

// krylovSteps is the size of the Krylov basis before a restart.
const krylovSteps = 32

// krylov finds the top eigenpair of a symmetric positive semi-definite
// operator A restricted to the orthogonal complement of span(C), C with
// orthonormal columns, by explicitly restarted Lanczos iterations with
// full reorthogonalisation, started from a warm vector. A is given only as
// a product v -> A v, so it may be a formed matrix or, as in the TVP mode
// updates, Y^T Y applied from the partial projections Y without forming
// it. The projector Gamma = I - C C^T is applied implicitly: every basis
// vector is kept in range(Gamma), so the iteration works on the symmetric
// Gamma A Gamma whose top eigenvector is Theorem 1's solution.
//
// Every restart begins by applying A to the current vector, so the
// acceptance test is on an explicitly computed residual, not the Lanczos
// estimate; with an already converged warm start (the late sweeps of a
// fit) an update costs one product.
//
// The workspace is sized on first use and reused; a krylov is not safe
// for concurrent use.
type krylov struct {
	n       int
	q       []float64 // basis, krylovSteps x n, row-major
	w, h, x []float64
	d, e    []float64 // the tridiagonal Lanczos matrix
	work    []float64 // copies of d and e for Dsterf
	tri     []float64 // shiftedSolve's scratch
	ct      []float64 // C^T v

	// expect, if positive, is the number of products the caller expects
	// the update to need (the previous update's of the same mode): the
	// Ritz estimate of the residual, which costs more than a product with
	// a formed n x n matrix, is not computed before expect - 4 products.
	// Any expect gives the same answer to the tolerance, at another cost.
	expect int

	// cancel, if not nil, is polled at every restart and every 4 products
	// (Options.Cancel); once it returns true top stops, reporting no
	// convergence, and sets canceled (reset by the next top).
	cancel   func() bool
	canceled bool
}

// reset sizes the workspace for operators of dimension n, reusing the
// storage of a larger one (the modes of a fit take turns).
func (k *krylov) reset(n int) {
	if k.n == n {
		return
	}
	s := krylovSteps
	k.n = n
	k.q, k.w, k.x = grow(k.q, s*n), grow(k.w, n), grow(k.x, n)
	k.ct = grow(k.ct, n) // a constraint has fewer than n columns
	if k.h == nil {
		k.h, k.d, k.e, k.work, k.tri = make([]float64, s), make([]float64, s), make([]float64, s), make([]float64, 2*s), make([]float64, 4*s)
	}
}

// project sets v = (I - C C^T) v for C (n x c, row-major, orthonormal
// columns); C with no columns leaves v as it is.
func (k *krylov) project(v []float64, C blas64.General) {
	if C.Cols == 0 {
		return
	}
	if cap(k.ct) < C.Cols {
		k.ct = make([]float64, C.Cols)
	}
	ct := blas64.Vector{N: C.Cols, Inc: 1, Data: k.ct[:C.Cols]}
	vv := blas64.Vector{N: len(v), Inc: 1, Data: v}
	blas64.Gemv(blas.Trans, 1, C, vv, 0, ct)
	blas64.Gemv(blas.NoTrans, -1, C, ct, 1, vv)
}

// top writes to u the unit top eigenvector of Gamma A Gamma and returns its
// eigenvalue and whether it converged within maxApply products (counted in
// *applies, which it increments). warm is the starting guess (nil: the
// uniform vector); when it lies (almost) in span(C), a fixed generic vector
// is used instead. A non-converged u is the best Ritz vector found, a good
// warm start for another method.
func (k *krylov) top(u []float64, apply func(dst, v []float64), C blas64.General, warm []float64, maxApply int, applies *int) (float64, bool) {
	n := len(u)
	k.reset(n)
	k.canceled = false
	x := k.x
	if warm != nil {
		copy(x, warm)
	} else {
		for i := range x {
			x[i] = 1
		}
	}
	// Project twice: once is not enough when x lies almost in span(C).
	n0 := floats.Norm(x, 2)
	k.project(x, C)
	k.project(x, C)
	if nx := floats.Norm(x, 2); nx > 1e-6*n0 {
		floats.Scale(1/nx, x)
	} else {
		// warm lies (almost) in span(C), as the uniform start does for
		// the second EMP of SO-MPCA-RS: start from a generic vector.
		for i := range x {
			x[i] = 1 + math.Sin(float64(i+1))
		}
		k.project(x, C)
		k.project(x, C)
		floats.Scale(1/floats.Norm(x, 2), x)
	}
	steps := min(krylovSteps, n-C.Cols)
	theta := 0.0
	first := *applies
	for *applies < maxApply {
		if k.stop() {
			break
		}
		copy(k.q[:n], x)
		m := 0 // basis vectors used
		for j := 0; j < steps; j++ {
			qj := k.q[j*n : (j+1)*n]
			apply(k.w, qj)
			*applies++
			k.project(k.w, C)
			k.d[j] = floats.Dot(k.w, qj)
			// Full reorthogonalisation, twice, keeps the basis orthonormal.
			Q := blas64.General{Rows: j + 1, Cols: n, Stride: n, Data: k.q[:(j+1)*n]}
			wv := blas64.Vector{N: n, Inc: 1, Data: k.w}
			hv := blas64.Vector{N: j + 1, Inc: 1, Data: k.h[:j+1]}
			for range 2 {
				blas64.Gemv(blas.NoTrans, 1, Q, wv, 0, hv)
				blas64.Gemv(blas.Trans, -1, Q, hv, 1, wv)
			}
			b := floats.Norm(k.w, 2)
			m = j + 1
			if j == 0 {
				// The residual of x itself, computed explicitly.
				theta = k.d[0]
				if b <= krylovTol*math.Abs(theta) {
					copy(u, x)
					return theta, true
				}
			}
			if j == steps-1 || *applies >= maxApply || b <= 1e-15*math.Abs(k.d[0]) {
				break
			}
			// The Ritz estimate of the residual decides when to restart.
			if j%4 == 3 && *applies-first+4 >= k.expect {
				if k.stop() {
					copy(u, x)
					return theta, false
				}
				if res, _ := k.ritz(m, b); res <= 0.1*krylovTol*math.Abs(theta) {
					break
				}
			}
			k.e[j] = b
			floats.ScaleTo(k.q[(j+1)*n:(j+2)*n], 1/b, k.w)
		}
		// Restart from the top Ritz vector.
		_, s := k.ritz(m, 0)
		if s == nil {
			break
		}
		Q := blas64.General{Rows: m, Cols: n, Stride: n, Data: k.q[:m*n]}
		blas64.Gemv(blas.Trans, 1, Q, blas64.Vector{N: m, Inc: 1, Data: s}, 0, blas64.Vector{N: n, Inc: 1, Data: x})
		k.project(x, C)
		floats.Scale(1/floats.Norm(x, 2), x)
	}
	copy(u, x)
	return theta, false
}

// stop polls k.cancel, recording a cancellation in k.canceled.
func (k *krylov) stop() bool {
	if k.cancel != nil && k.cancel() {
		k.canceled = true
	}
	return k.canceled
}

// ritz finds the top eigenpair of the m x m tridiagonal Lanczos matrix
// T (k.d, k.e) and returns the Ritz estimate |b s_m| of the top Ritz
// pair's residual and the pair's unit vector s (nil if that failed). Only
// the top pair is needed, so rather than the full eigendecomposition
// (Dsteqr with vectors, O(m^3) and most of the cost of small updates) the
// eigenvalues come from Dsterf and the vector from inverse iteration at the
// top one (shiftedSolve, O(m) a step; two steps from a generic start, as a
// Ritz value is accurate to rounding). It leaves k.d and k.e as they were.
func (k *krylov) ritz(m int, b float64) (float64, []float64) {
	d := k.work[:m]
	e := k.work[m : 2*m]
	copy(d, k.d[:m])
	copy(e[:max(m-1, 0)], k.e[:max(m-1, 0)])
	s := k.h[:m]
	if m == 1 {
		s[0] = 1
		return math.Abs(b), s
	}
	if !(gonum.Implementation{}).Dsterf(m, d, e) {
		return math.Inf(1), nil
	}
	theta, norm := slices.Max(d), 0.0
	for i := range m {
		r := math.Abs(k.d[i])
		if i > 0 {
			r += math.Abs(k.e[i-1])
		}
		if i < m-1 {
			r += math.Abs(k.e[i])
		}
		norm = max(norm, r)
	}
	for i := range s {
		s[i] = 1 + 0.5*math.Sin(float64(i+1))
	}
	for range 2 {
		if !shiftedSolve(k.d[:m], k.e[:m-1], theta, norm, s, k.tri[:4*m]) {
			return math.Inf(1), nil
		}
		nrm := floats.Norm(s, 2)
		if nrm == 0 || math.IsInf(nrm, 0) || math.IsNaN(nrm) {
			return math.Inf(1), nil
		}
		floats.Scale(1/nrm, s)
	}
	return math.Abs(b * s[m-1]), s
}
