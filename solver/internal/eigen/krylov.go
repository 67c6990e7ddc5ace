package eigen

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// krylov finds the top eigenpair of a symmetric positive semi-definite
// operator A restricted to the orthogonal complement of span(C), C with
// orthonormal columns given by its rows R = C^T, by explicitly restarted
// Lanczos iterations with full reorthogonalisation, started from a warm
// vector. A is given only as a product v -> A v, so it may be a formed
// matrix or, as in the TVP mode updates, Y^T Y applied from the partial
// projections Y without forming it. The projector Gamma = I - C C^T is
// applied implicitly: every basis vector is kept in range(Gamma), so the
// iteration works on the symmetric Gamma A Gamma whose top eigenvector is
// Theorem 1's solution.
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
	rv      []float64 // the last Ritz vector of this restart cycle
	rvm     int       // its length, 0 if none
	ct      []float64 // C^T v

	// dim, when not 0, is the dimension of the space the iterates span
	// (topComplement's vectors have zeros past it); else it is n less the
	// constraint's rows.
	dim int

	// expect is the number of products the previous update of the same
	// mode needed (0: none): the first restart cycle takes its Ritz
	// estimates from krylovRitzLead products before it on (capped at a
	// cycle's length). Set by the caller before top.
	expect int

	// cancel, if not nil, is polled at every restart and every 2 products
	// (Options.Cancel); once it returns true top stops, reporting no
	// convergence, and sets canceled (reset by the next top).
	cancel   func() bool
	canceled bool

	ritzEach bool // Routes.RitzEveryProduct
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
		k.rv = make([]float64, s)
	}
}

// project sets v = (I - C C^T) v for C = R^T, R (c x n, row-major,
// stride n) with orthonormal rows; R with no rows leaves v as it is. It
// is two of the project's kernels over c rows of n values, ct = R v, then
// v -= R^T ct, as reorth's against the basis. Against the same products
// over C's n rows of c values (short rows use the kernels' lanes badly),
// 165 against 510 ns at 80 x 5, 670 against 670 at 80 x 30, 1350 against
// 1900 at 80 x 59 (a Go benchmark not kept, chrt).
func (k *krylov) project(v []float64, R blas64.General) {
	if R.Rows == 0 {
		return
	}
	if cap(k.ct) < R.Rows {
		k.ct = make([]float64, R.Rows)
	}
	ct, r := k.ct[:R.Rows], R.Data[:R.Rows*R.Cols]
	kernel.DotRowsF64(ct, r, R.Rows, R.Cols, v, false)
	floats.Scale(-1, ct)
	kernel.AxpyRows(v, r, R.Rows, R.Cols, ct, false) // v += R^T (-ct), adding to v
}

// Top writes to u the unit top eigenvector of Gamma A Gamma and returns its
// eigenvalue and whether it converged within maxApply products (counted in
// *applies, which it increments). warm is the starting guess (nil: the
// uniform vector); when it lies (almost) in span(C), a fixed generic vector
// is used instead. A non-converged u is the best Ritz vector found, a good
// warm start for another method.
func (k *krylov) Top(u []float64, apply func(dst, v []float64), R blas64.General, warm []float64, maxApply int, applies *int) (float64, bool) {
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
	k.project(x, R)
	k.project(x, R)
	if nx := floats.Norm(x, 2); nx > 1e-6*n0 {
		floats.Scale(1/nx, x)
	} else {
		// warm lies (almost) in span(C), as the uniform start does for
		// the second EMP of SO-MPCA-RS: start from a generic vector.
		for i := range x {
			x[i] = 1 + math.Sin(float64(i+1))
		}
		k.project(x, R)
		k.project(x, R)
		floats.Scale(1/floats.Norm(x, 2), x)
	}
	dim := n - R.Rows
	if k.dim > 0 {
		dim = k.dim
	}
	steps := min(krylovSteps, dim)
	theta := 0.0
	gate := min(k.expect, steps) - krylovRitzLead // no Ritz estimate before basis size gate in the first cycle
	every := krylovRitzEvery
	if k.ritzEach {
		gate, every = 0, 1
	}
	for *applies < maxApply {
		if k.stop() {
			break
		}
		copy(k.q[:n], x)
		k.rvm = 0
		m := 0        // basis vectors used
		have := false // the top Ritz vector of T_m is in k.h[:m] (ritz's s)
		for j := 0; j < steps; j++ {
			qj := k.q[j*n : (j+1)*n]
			apply(k.w, qj)
			*applies++
			k.d[j] = floats.Dot(k.w, qj)
			b := k.reorth(j, R)
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
			if j%every == every-1 {
				if k.stop() {
					copy(u, x)
					return theta, false
				}
				if m >= gate {
					if res, _ := k.ritz(m, b); res <= 0.1*krylovTol*math.Abs(theta) {
						have = true
						break
					}
				}
			}
			k.e[j] = b
			floats.ScaleTo(k.q[(j+1)*n:(j+2)*n], 1/b, k.w)
		}
		gate = 0
		// Restart from the top Ritz vector (the one whose estimate ended
		// the cycle, if one did).
		s := k.h[:m]
		if !have {
			if _, s = k.ritz(m, 0); s == nil {
				break
			}
		}
		Q := blas64.General{Rows: m, Cols: n, Stride: n, Data: k.q[:m*n]}
		blas64.Gemv(blas.Trans, 1, Q, blas64.Vector{N: m, Inc: 1, Data: s}, 0, blas64.Vector{N: n, Inc: 1, Data: x})
		k.project(x, R)
		floats.Scale(1/floats.Norm(x, 2), x)
	}
	copy(u, x)
	return theta, false
}

// reorth orthogonalises k.w, the product A q_j, against span(C) and the
// basis q_0..q_j and returns its norm, the Lanczos b_j. The three-term
// recurrence's terms (d_j q_j and b_{j-1} q_{j-1}) are subtracted first,
// then w is projected (krylov.project): after the subtractions, so that
// what rounding left of span(C) in q_j and q_{j-1} goes too. Projected
// before them (as until 2026-11-27), that remainder was multiplied by
// about |d_j| / b_j a step, A mapping span(C) to 0: within a restart
// cycle of the faces' first updates of an EMP it grew from 1e-16 to
// order 1 and corrupted T, whose Ritz estimates then reported
// convergence the true residual denied (TestKrylovColdClustered). Then
// one classical Gram-Schmidt pass against the whole basis removes
// what rounding left along it, and a second pass runs only when the first
// cut the norm by more than 1/sqrt(2) (the DGKS criterion: w then held a
// sizeable part of span(Q), so one pass may not have made it orthogonal to
// working precision). The passes' products with the basis are dotRows and
// axpyRows, the project's float64 kernels.
func (k *krylov) reorth(j int, R blas64.General) float64 {
	n := k.n
	w, h := k.w, k.h[:j+1]
	floats.AddScaled(w, -k.d[j], k.q[j*n:(j+1)*n])
	if j > 0 {
		floats.AddScaled(w, -k.e[j-1], k.q[(j-1)*n:j*n])
	}
	k.project(w, R)
	eta := norm2(w)
	Q := k.q[:(j+1)*n]
	for range 2 {
		kernel.DotRowsF64(h, Q, j+1, n, w, false)
		floats.Scale(-1, h)
		kernel.AxpyRows(w, Q, j+1, n, h, false) // w += Q^T h, adding to w
		b := norm2(w)
		if b > eta/math.Sqrt2 {
			return b
		}
		eta = b
	}
	return eta
}

// norm2 returns the Euclidean norm of v as the square root of v . v, a
// third of the cost of floats.Norm's scaled sum, which it falls back to
// when the sum of squares may have under- or overflowed.
func norm2(v []float64) float64 {
	ss := floats.Dot(v, v)
	if 0x1p-900 < ss && ss < 0x1p900 {
		return math.Sqrt(ss)
	}
	return floats.Norm(v, 2)
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
// (Dsteqr with vectors, O(m^3)) or all eigenvalues (Dsterf, O(m^2) with a
// square root a step), it runs Rayleigh quotient iteration (tridiagTopPair,
// O(m) a step) from the previous Ritz vector of the same restart cycle
// padded with zeros (its Rayleigh quotient is the previous Ritz value) or
// from e_1, the restart vector; a Sturm count confirms that the value
// found is the top one. When it is not, tridiagTopIsolated finds it
// (bisection by Sturm counts, inverse iteration above the top value, then
// the same iteration); should that fail too, the eigenvalues come from
// Dsterf and the vector from inverse iteration at the top one (two steps
// from a generic start, as a Ritz value is accurate to rounding). It
// leaves k.d and k.e as they were.
func (k *krylov) ritz(m int, b float64) (float64, []float64) {
	s := k.h[:m]
	if m == 1 {
		s[0] = 1
		return math.Abs(b), s
	}
	norm := gershgorin(k.d[:m], k.e[:m-1])
	clear(s)
	if 0 < k.rvm && k.rvm <= m {
		copy(s, k.rv[:k.rvm])
	} else {
		s[0] = 1
	}
	theta, ok := tridiagTopPair(k.d[:m], k.e[:m-1], norm, s, k.tri[:4*m])
	if !ok {
		_, ok = tridiagTopIsolated(k.d[:m], k.e[:m-1], norm, theta, s, k.tri[:4*m])
	}
	if !ok {
		d := k.work[:m]
		e := k.work[m : 2*m]
		copy(d, k.d[:m])
		copy(e[:m-1], k.e[:m-1])
		if !sterf(d, e) {
			k.rvm = 0
			return math.Inf(1), nil
		}
		theta := slices.Max(d)
		for i := range s {
			s[i] = 1 + 0.5*math.Sin(float64(i+1))
		}
		for range 2 {
			if !shiftedSolve(k.d[:m], k.e[:m-1], theta, norm, s, k.tri[:4*m]) || !normalize(s) {
				k.rvm = 0
				return math.Inf(1), nil
			}
		}
	}
	copy(k.rv, s)
	k.rvm = m
	return math.Abs(b * s[m-1]), s
}

// normalize scales s to unit length, reporting false when its norm is 0,
// infinite or NaN.
func normalize(s []float64) bool {
	nrm := norm2(s)
	if nrm == 0 || math.IsInf(nrm, 0) || math.IsNaN(nrm) {
		return false
	}
	floats.Scale(1/nrm, s)
	return true
}

// tridiagTopPair finds the top eigenpair of the symmetric tridiagonal T with
// diagonal d and off-diagonal e (len(d)-1 entries) by Rayleigh quotient
// iteration from the unit vector s, which it overwrites with the
// eigenvector; norm bounds ||T|| (Gershgorin) and scratch holds 4 len(d)
// values. The iteration converges (cubically) to the eigenvalue nearest
// the start's Rayleigh quotient, which need not be the top one: ok reports
// that it converged and that a Sturm count puts no eigenvalue of T above
// the value found by more than a few rounding errors of ||T||.
func tridiagTopPair(d, e []float64, norm float64, s, scratch []float64) (theta float64, ok bool) {
	const eps = 2.220446049250313e-16
	theta = tridiagQuad(d, e, s)
	var prev [krylovSteps]float64
	for range 8 {
		next, ok := rqiStep(d, e, theta, norm, s, scratch, prev[:])
		if !ok {
			return theta, false
		}
		if math.Abs(next-theta) <= 4*eps*norm {
			return next, sturmBelow(d, e, next+64*eps*norm) == len(d)
		}
		theta = next
	}
	return theta, false
}

// rqiStep is a step of Rayleigh quotient iteration on the symmetric
// tridiagonal T (d, e): s, a unit vector whose quotient is theta, becomes
// x = (T - theta I)^-1 s normalised, and the step returns x's quotient,
// reporting false when no solve succeeded. When the solve at theta
// itself succeeds (tridiagSolve) the quotient is theta + (x . s) / (x .
// x), as x^T T x = theta x^T x + x^T s: two independent dot products
// (prev holds s; up to len(prev) entries), where s^T T s (tridiagQuad)
// is a chain of 2 len(d) dependent multiply-adds; and it is accurate to
// the rounding of (x . s) / (x . x), about lambda - theta, rather than of
// ||T||. Otherwise (T - theta I singular to working precision, x's
// squares out of range, or too long a vector) it is shiftedSolve's x and
// tridiagQuad's quotient. On the problems of a gait uint8 fit's smallTop
// calls (replayed, chrt, min of 9) the quotient from the solve cut their
// time by 3%, the whole eigen step's (with smallTop's other changes of
// 2026-11-27 (7)) by 9%.
func rqiStep(d, e []float64, theta, norm float64, s, scratch, prev []float64) (float64, bool) {
	m := len(s)
	if m <= len(prev) {
		copy(prev, s)
		if tridiagSolve(d, e, theta, s, scratch) {
			if xx := dotShort(s, s); 0x1p-900 < xx && xx < 0x1p900 {
				next := theta + dotShort(s, prev[:m])/xx
				f := 1 / math.Sqrt(xx)
				for i := range s {
					s[i] *= f
				}
				return next, true
			}
			if !normalize(s) {
				return 0, false
			}
			return tridiagQuad(d, e, s), true
		}
	}
	if !shiftedSolve(d, e, theta, norm, s, scratch) || !normalize(s) {
		return 0, false
	}
	return tridiagQuad(d, e, s), true
}

// tridiagQuad returns s^T T s for the symmetric tridiagonal T (d, e).
func tridiagQuad(d, e, s []float64) float64 {
	q := 0.0
	for i, di := range d {
		q += di * s[i] * s[i]
	}
	for i, ei := range e {
		q += 2 * ei * s[i] * s[i+1]
	}
	return q
}

// sturmBelow returns the number of eigenvalues of the symmetric
// tridiagonal T (d, e) below x: the number of negative pivots of the LDL^T
// factorisation of T - x I (Sylvester's law of inertia), a zero pivot
// replaced by a tiny negative one as LAPACK's Dlaebz does.
func sturmBelow(d, e []float64, x float64) int {
	const pivmin = 0x1p-1000
	count := 0
	q := d[0] - x
	for i := 1; ; i++ {
		if math.Abs(q) < pivmin {
			q = -pivmin
		}
		if q < 0 {
			count++
		}
		if i == len(d) {
			return count
		}
		q = d[i] - x - e[i-1]*e[i-1]/q
	}
}
