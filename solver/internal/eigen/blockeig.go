package eigen

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/par"
)

// TopEigenvectors returns the P eigenvectors of S with the largest
// eigenvalues, as sign-fixed columns in descending order, and at least the
// top P eigenvalues in descending order. When P is a small fraction of n
// they come from block Lanczos (lanczosTop), else (or if that did not
// converge) from the tridiagonal reduction (tridiagTop) or, for small n,
// the dense eigendecomposition. S's lower triangle may be overwritten
// (with the upper's values). cancel, if not nil, is polled between the
// steps of the iterative and tridiagonal paths (par.ErrCanceled); the LAPACK
// calls themselves (the reduction, the dense path) cannot poll, so those
// paths run under interruptible. The Lanczos products run on the members
// of crew (nil: the caller alone); the result does not depend on their
// number.
func TopEigenvectors(S *mat.SymDense, P int, cancel func() bool, crew *par.Team, rt *Routes) (*mat.Dense, []float64, error) {
	return TopEigenvectorsWith(S, nil, P, cancel, crew, rt)
}

// LanczosFits reports whether TopEigenvectors takes the P eigenpairs of
// an n x n matrix from block Lanczos.
func LanczosFits(n, P int) bool {
	_, _, _, ok := lanczosShape(n, P)
	return n >= DenseMinN && P > 0 && ok && float64(P) <= lanczosFraction*float64(n)
}

// TopEigenvectorsWith is TopEigenvectors, with block Lanczos's products
// by op (the same matrix as S) when op is not nil; S may then be nil (op
// forms it if the other paths need it).
func TopEigenvectorsWith(S *mat.SymDense, op *IntGram, P int, cancel func() bool, crew *par.Team, rt *Routes) (*mat.Dense, []float64, error) {
	var n int
	if S != nil {
		n = S.SymmetricDim()
	} else {
		n = op.n
	}
	if LanczosFits(n, P) && !rt.noLanczos() {
		var a []float64
		lda := 0
		if op == nil {
			raw := S.RawSymmetric()
			for i := range n { // both triangles, for the products by rows
				for j := i + 1; j < n; j++ {
					raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
				}
			}
			a, lda = raw.Data, raw.Stride
		}
		V, vals, ok, err := lanczosTop(a, lda, op, n, P, cancel, crew, rt)
		if err != nil || ok {
			return V, vals, err
		}
	}
	if S == nil {
		S = op.sym(crew)
	}
	var V *mat.Dense
	var vals []float64
	var err error
	if cerr := par.Interruptible(cancel, func() {
		if n >= DenseMinN && float64(P) < denseFraction*float64(n) {
			if V, vals, err = tridiagTop(S, P, cancel); err == nil || err == par.ErrCanceled {
				return
			}
		}
		V, vals, err = DenseTop(S, P)
	}); cerr != nil {
		return nil, nil, cerr
	}
	return V, vals, err
}

// canceled reports whether cancel (may be nil) asks to stop.
func canceled(cancel func() bool) bool { return cancel != nil && cancel() }

// DenseTop is TopEigenvectors by the full dense eigendecomposition.
func DenseTop(S *mat.SymDense, P int) (*mat.Dense, []float64, error) {
	var es mat.EigenSym
	if !es.Factorize(S, true) {
		return nil, nil, numericalf("solver: symmetric eigendecomposition did not converge")
	}
	asc := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	n := len(asc)
	vals := make([]float64, n)
	for i := range n {
		vals[i] = asc[n-1-i]
	}
	out := mat.NewDense(n, P, nil)
	col := make([]float64, n)
	for j := range P {
		mat.Col(col, n-1-j, &V)
		FixSign(col)
		out.SetCol(j, col)
	}
	return out, vals, nil
}

// tridiagTop finds the top P eigenpairs of S without the full
// eigendecomposition: S is reduced to tridiagonal form T = Q^T S Q
// (LAPACK's Dsytrd, 4/3 n^3 flops), all eigenvalues of T come from Dsterf
// (O(n^2)), each of the top P eigenvectors of T from inverse iteration
// (O(n) per step, reorthogonalised within clusters, as LAPACK's Dstein),
// and Q is applied to those P vectors only (2 n^2 P flops). The full
// decomposition also forms Q and accumulates every rotation into it,
// about six times the work. Direct, not iterative on S: its accuracy is
// that of the dense path whatever the eigengaps.
func tridiagTop(S *mat.SymDense, P int, cancel func() bool) (*mat.Dense, []float64, error) {
	n := S.SymmetricDim()
	raw := S.RawSymmetric()
	t := newTridiagWork(n, P)
	for i := range n {
		copy(t.a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	vals, Z, err := t.Top(n, P, cancel)
	if err != nil {
		return nil, nil, err
	}
	V := mat.NewDense(n, P, Z)
	col := make([]float64, n)
	for j := range P {
		mat.Col(col, j, V)
		floats.Scale(1/floats.Norm(col, 2), col)
		FixSign(col)
		V.SetCol(j, col)
	}
	return V, vals, nil
}

// tridiagWork is the workspace of tridiagonal top-P eigenproblems of
// order up to n: tridiagTop's, and block Lanczos's Rayleigh-Ritz steps.
type tridiagWork struct {
	a            []float64 // the matrix (its upper triangle, stride its order), then Dsytrd's reflectors
	d, e, tau    []float64
	vals, e2     []float64 // eigenvalues, and Dsterf's copy of e
	work         []float64 // Dsytrd's
	z            []float64 // the vectors, order x P row-major
	x, v, w, scr []float64
}

func newTridiagWork(n, P int) *tridiagWork {
	t := &tridiagWork{a: make([]float64, n*n), d: make([]float64, n), e: make([]float64, n), tau: make([]float64, n),
		vals: make([]float64, n), e2: make([]float64, n), z: make([]float64, n*P),
		x: make([]float64, n), v: make([]float64, n), w: make([]float64, P), scr: make([]float64, 4*n)}
	query := []float64{0}
	gonum.Implementation{}.Dsytrd(blas.Upper, n, t.a, n, t.d, t.e, t.tau, query, -1)
	t.work = make([]float64, int(query[0]))
	return t
}

// Top computes the top P eigenpairs of the symmetric matrix of order n
// (n and P at most the workspace's) whose upper triangle is in t.a
// (stride n; overwritten): all n eigenvalues, descending, and the P
// eigenvectors as the columns of Z (n x P, row-major; of unit norm to
// rounding), views into t.
// cancel (may be nil) is polled between the steps.
func (t *tridiagWork) Top(n, P int, cancel func() bool) (vals, Z []float64, err error) {
	a, d, e, tau := t.a[:n*n], t.d[:n], t.e[:n-1], t.tau[:n-1]
	impl := gonum.Implementation{}
	impl.Dsytrd(blas.Upper, n, a, n, d, e, tau, t.work, len(t.work))
	vals = t.vals[:n]
	copy(vals, d)
	if !sterf(vals, append(t.e2[:0], e...)) {
		return nil, nil, numericalf("solver: tridiagonal eigenvalues did not converge")
	}
	slices.Reverse(vals) // descending
	norm := gershgorin(d, e)
	Z = t.z[:n*P] // the vectors of T, then of the matrix
	x := t.x[:n]
	const eps = 2.220446049250313e-16
	for j := range P {
		if canceled(cancel) {
			return nil, nil, par.ErrCanceled
		}
		lam := vals[j]
		for i := range x {
			x[i] = 1 + 0.5*math.Sin(float64((j+1)*(i+1)))
		}
		first := j // the cluster of lam among the vectors found
		for first > 0 && vals[first-1]-lam <= 1e-3*norm {
			first--
		}
		ok := false
		for it := 0; it < 8 && !ok; it++ {
			if !shiftedSolve(d, e, lam, norm, x, t.scr[:4*n]) {
				return nil, nil, numericalf("solver: inverse iteration failed")
			}
			for range 2 {
				for q := first; q < j; q++ {
					dot := 0.0
					for i := range n {
						dot += x[i] * Z[i*P+q]
					}
					for i := range n {
						x[i] -= dot * Z[i*P+q]
					}
				}
			}
			floats.Scale(1/floats.Norm(x, 2), x)
			// Residual ||T x - lam x|| against rounding's n eps ||T||.
			res := 0.0
			for i := range n {
				r := (d[i] - lam) * x[i]
				if i > 0 {
					r += e[i-1] * x[i-1]
				}
				if i < n-1 {
					r += e[i] * x[i+1]
				}
				res += r * r
			}
			ok = it >= 1 && math.Sqrt(res) <= 10*float64(n)*eps*norm
		}
		if !ok {
			return nil, nil, numericalf("solver: inverse iteration did not converge")
		}
		for i := range n {
			Z[i*P+j] = x[i]
		}
	}
	// Z = Q Z with Q = H_{n-2} ... H_0, H_i = I - tau_i v v^T, v[i] = 1,
	// v[:i] = a[:i, i+1], v[i+1:] = 0.
	w, v := t.w[:P], t.v[:n]
	for i := range n - 1 {
		if i%pollEvery == 0 && canceled(cancel) {
			return nil, nil, par.ErrCanceled
		}
		if tau[i] == 0 {
			continue
		}
		for r := range i {
			v[r] = a[r*n+i+1]
		}
		v[i] = 1
		clear(w)
		for r := 0; r <= i; r++ {
			floats.AddScaled(w, v[r], Z[r*P:(r+1)*P])
		}
		for r := 0; r <= i; r++ {
			floats.AddScaled(Z[r*P:(r+1)*P], -tau[i]*v[r], w)
		}
	}
	return vals, Z, nil
}

// sterf computes every eigenvalue of the symmetric tridiagonal T
// (diagonal d, off-diagonal e[:len(d)-1]; both overwritten, d with the
// eigenvalues in ascending order) with gonum's Dsterf, which must never
// rescale a block of T itself: its Dlascl calls there treat d and e as
// columns of an n x n array (a panic, "insufficient length of a", or the
// wrong entries scaled). So T far from norm 1 is first scaled by a power
// of two near 1/||T|| (exact), and entries below 2^-400 of that norm,
// which no eigenvalue can notice (rounding is 2^-53 of it), are set to
// zero, so that each block Dsterf splits off has a norm of 0 or within
// its range [2^-405, 2^509].
func sterf(d, e []float64) bool {
	n := len(d)
	e = e[:max(n-1, 0)]
	norm := max(maxAbs(d), maxAbs(e))
	ex := 0
	if norm != 0 && (norm < 0x1p-300 || norm > 0x1p300) {
		_, ex = math.Frexp(norm)
		for i := range d {
			d[i] = math.Ldexp(d[i], -ex)
		}
		for i := range e {
			e[i] = math.Ldexp(e[i], -ex)
		}
		norm = math.Ldexp(norm, -ex)
	}
	for _, v := range [][]float64{d, e} {
		for i := range v {
			if math.Abs(v[i]) < 0x1p-400*norm {
				v[i] = 0
			}
		}
	}
	if !(gonum.Implementation{}).Dsterf(n, d, e) {
		return false
	}
	for i := range d {
		d[i] = math.Ldexp(d[i], ex)
	}
	return true
}

// shiftedSolve is one step of inverse iteration on the symmetric
// tridiagonal T (diagonal d, off-diagonal e, len(d)-1 of it): it sets x to
// (T - lam I)^-1 x, unnormalised. When T - lam I is singular to working
// precision (lam is an eigenvalue to rounding), the shift is moved away by
// a few multiples of n eps norm, norm bounding ||T||, as LAPACK's Dstein
// does. scratch holds at least 4 len(d) elements. It reports false if no
// shift gave a solvable system.
func shiftedSolve(d, e []float64, lam, norm float64, x, scratch []float64) bool {
	const eps = 2.220446049250313e-16
	n := len(d)
	shift := lam
	for try := 0; try <= 11; try++ {
		if tridiagSolve(d, e, shift, x, scratch) {
			return true
		}
		shift += float64(n) * eps * norm * float64(int(1)<<try)
	}
	return false
}

// tridiagSolve sets x to (T - shift I)^-1 x for the symmetric tridiagonal
// T (d, e), by Gaussian elimination with partial pivoting, reporting false
// (x unchanged) when a pivot is 0. It does Dgtsv's arithmetic, operation
// for operation (so the same bits), but reads T - shift I as it goes and
// keeps the factor's rows in scratch (4 len(d) values) rather than
// working on copies of the three diagonals and of x: at the orders of the
// Ritz steps (10 to 32) Dgtsv and its copies took 1.5x as long.
func tridiagSolve(d, e []float64, shift float64, x, scratch []float64) bool {
	n := len(d)
	// Row i of U is (u0[i], u1[i], u2[i]) on columns i, i+1, i+2, and y[i]
	// is the right-hand side's entry; cd, cu and cb are the row being
	// eliminated (columns i, i+1; right-hand side).
	u0, u1, u2, y := scratch[:n], scratch[n:2*n], scratch[2*n:3*n], scratch[3*n:4*n]
	cd, cb := d[0]-shift, x[0]
	cu := 0.0
	if n > 1 {
		cu = e[0]
	}
	for i := 0; i < n-1; i++ {
		sub, nd, nb := e[i], d[i+1]-shift, x[i+1]
		nu := 0.0
		if i+1 < n-1 {
			nu = e[i+1]
		}
		if math.Abs(cd) >= math.Abs(sub) {
			// No interchange.
			if cd == 0 {
				return false
			}
			f := sub / cd
			u0[i], u1[i], u2[i], y[i] = cd, cu, 0, cb
			cd, cu, cb = nd-f*cu, nu, nb-f*cb
		} else {
			// Rows i and i+1 interchanged.
			f := cd / sub
			u0[i], u1[i], u2[i], y[i] = sub, nd, nu, nb
			cd, cu, cb = cu-f*nd, -f*nu, cb-f*nb
		}
	}
	if cd == 0 {
		return false
	}
	x[n-1] = cb / cd
	if n > 1 {
		x[n-2] = (y[n-2] - u1[n-2]*x[n-1]) / u0[n-2]
	}
	for i := n - 3; i >= 0; i-- {
		x[i] = (y[i] - u1[i]*x[i+1] - u2[i]*x[i+2]) / u0[i]
	}
	return true
}
