package solver

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// denseLimit is the largest dimension whose eigenproblems are solved by a
// dense symmetric eigendecomposition; larger ones use Lanczos iterations
// warm-started from the previous vector, so that no update costs O(I^3).
var denseLimit = 128

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
	es   mat.EigenSym
	vecs mat.Dense
}

var errNoFreedom = errors.New("solver: no direction left outside the constraint")

// top writes to u the unit top eigenvector of S restricted to the
// complement of span(C) (C may be nil) and returns its eigenvalue
// u^T S u. warm, if not nil, is a starting guess for the iterative path.
func (e *eigenSolver) top(u []float64, S *mat.SymDense, C *mat.Dense, warm []float64) (float64, error) {
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
		val, err = lanczosTop(u, S, C, warm)
	}
	if err != nil {
		return 0, err
	}
	fixSign(u)
	return val, nil
}

func (e *eigenSolver) dense(u []float64, S *mat.SymDense, C *mat.Dense) (float64, error) {
	n := S.SymmetricDim()
	if C == nil {
		if !e.es.Factorize(S, true) {
			return 0, errors.New("solver: symmetric eigendecomposition did not converge")
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
		return 0, errors.New("solver: symmetric eigendecomposition did not converge")
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

// lanczosTop finds the top eigenvector of Gamma S Gamma (Gamma = I - C C^T,
// or I when C is nil) by restarted Lanczos with full reorthogonalisation,
// started from warm (or the uniform vector). It stops when the residual
// ||S u - theta u|| (in range(Gamma)) is below 1e-13 ||S||_max-norm bound.
func lanczosTop(u []float64, S *mat.SymDense, C *mat.Dense, warm []float64) (float64, error) {
	n := S.SymmetricDim()
	project := func(v []float64) {
		if C == nil {
			return
		}
		_, c := C.Dims()
		for j := range c {
			col := mat.Col(nil, j, C)
			floats.AddScaled(v, -floats.Dot(col, v), col)
		}
	}
	apply := func(dst, v []float64) {
		tmp := make([]float64, n)
		copy(tmp, v)
		project(tmp)
		mat.NewVecDense(n, dst).MulVec(S, mat.NewVecDense(n, tmp))
		project(dst)
	}
	scale := 0.0
	for i := range n {
		for j := range n {
			scale = math.Max(scale, math.Abs(S.At(i, j)))
		}
	}
	scale *= float64(n)
	x := make([]float64, n)
	if warm != nil {
		copy(x, warm)
	} else {
		floats.AddConst(1, x)
	}
	// Project twice: once is not enough when x lies almost in span(C).
	n0 := floats.Norm(x, 2)
	project(x)
	project(x)
	if nx := floats.Norm(x, 2); nx > 1e-6*n0 {
		floats.Scale(1/nx, x)
	} else {
		// warm lies (almost) in span(C), as the uniform start does for
		// the second EMP of SO-MPCA-RS: start from a generic vector.
		for i := range x {
			x[i] = 1 + math.Sin(float64(i+1))
		}
		project(x)
		project(x)
		floats.Scale(1/floats.Norm(x, 2), x)
	}
	const steps = 40
	k := min(steps, n)
	Q := make([][]float64, 0, k+1)
	w := make([]float64, n)
	theta := 0.0
	for restart := 0; restart < 200; restart++ {
		Q = Q[:0]
		alpha := make([]float64, 0, k)
		beta := make([]float64, 0, k)
		q := append([]float64(nil), x...)
		for j := 0; j < k; j++ {
			Q = append(Q, q)
			apply(w, q)
			a := floats.Dot(w, q)
			alpha = append(alpha, a)
			// Full reorthogonalisation, twice, keeps the basis orthonormal.
			for range 2 {
				for _, qi := range Q {
					floats.AddScaled(w, -floats.Dot(w, qi), qi)
				}
			}
			b := floats.Norm(w, 2)
			if b <= 1e-14*scale || j == k-1 {
				break
			}
			beta = append(beta, b)
			q = make([]float64, n)
			floats.ScaleTo(q, 1/b, w)
		}
		m := len(alpha)
		T := mat.NewSymDense(m, nil)
		for i := range m {
			T.SetSym(i, i, alpha[i])
			if i+1 < m {
				T.SetSym(i, i+1, beta[i])
			}
		}
		var es mat.EigenSym
		if !es.Factorize(T, true) {
			return 0, errors.New("solver: Lanczos tridiagonal eigendecomposition did not converge")
		}
		var V mat.Dense
		es.VectorsTo(&V)
		theta = es.Values(nil)[m-1]
		clear(x)
		for i := range m {
			floats.AddScaled(x, V.At(i, m-1), Q[i])
		}
		project(x)
		floats.Scale(1/floats.Norm(x, 2), x)
		apply(w, x)
		theta = floats.Dot(w, x)
		floats.AddScaled(w, -theta, x)
		if floats.Norm(w, 2) <= 1e-13*scale {
			copy(u, x)
			return theta, nil
		}
	}
	return 0, errors.New("solver: Lanczos iterations did not converge")
}
