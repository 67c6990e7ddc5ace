package eigen

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Work is the scratch space of the dense eigen path (Solver.dense),
// so that a mode update allocates nothing once a fit's first updates have
// sized it. Its complement basis and B^T S B are made by the very LAPACK
// and BLAS calls that gonum's QR and Dense.Mul make (Dgeqrf + Dorgqr,
// Dsymm, Dgemm, Dgemv, with the same workspace lengths), so they are
// theirs, bit for bit, and so are topVectors's eigenvectors (Dsyev, as
// gonum's EigenSym). A mode update needs only the top eigenpair, which
// topPair finds without the full decomposition (tridiagWork.Top).
type Work struct {
	a, w, work []float64    // Dsyev: the matrix (then its eigenvectors), the eigenvalues, work
	qr, tau    []float64    // Dgeqrf of C
	q          []float64    // the full Q of C (n x n)
	b          []float64    // the complement basis B (n x r)
	c, bsb, t  []float64    // S B (n x r), (S B)^T (r x n), B^T S B (r x r)
	wv, wr     []float64    // the top eigenvector of B^T S B (r), and the guess B^T warm
	small      smallTop     // topPair's for n <= smallTopMax
	ct         []float64    // C = R^T (n x c) for complement
	tri        *tridiagWork // topPair's
	query      [1]float64
	n          int // the dimension the buffers are sized for
}

// workLen returns the work length LAPACK asks for (the optimal one, which
// is what gonum passes), growing e.work to hold it.
func (e *Work) workLen(query func(work []float64)) int {
	query(e.query[:])
	l := int(e.query[0])
	e.work = grow(e.work, l)
	return l
}

// Reserve sizes the buffers for problems of dimension up to n at once,
// so that the constrained problems of the later EMPs (smaller, and with
// more constraints) need nothing new.
func (e *Work) Reserve(n int) {
	if n <= e.n {
		return
	}
	e.n = n
	for _, b := range []*[]float64{&e.a, &e.qr, &e.q, &e.b, &e.c, &e.bsb, &e.t, &e.ct} {
		*b = make([]float64, n*n)
	}
	e.w, e.tau, e.wv, e.wr = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	e.small.Reserve(min(n, smallTopMax))
	e.tri = newTridiagWork(n, 1)
	A := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: e.a}
	e.workLen(func(w []float64) { lapack64.Syev(lapack.EVCompute, A, e.w, w, -1) })
}

// syevTop computes every eigenpair of the n x n symmetric matrix held in
// the upper triangle of e.a and returns the top eigenvalue; the top
// eigenvector is then column n-1 of e.a (row-major, stride n).
func (e *Work) syevTop(n int) (float64, bool) {
	A := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: e.a[:n*n]}
	e.w = grow(e.w, n)
	l := e.workLen(func(w []float64) { lapack64.Syev(lapack.EVCompute, A, e.w, w, -1) })
	if !lapack64.Syev(lapack.EVCompute, A, e.w, e.work, l) {
		return 0, false
	}
	return e.w[n-1], true
}

// topPair writes to v the unit top eigenvector of the n x n symmetric
// matrix held in the upper triangle of e.a and returns its eigenvalue.
// Only that pair is computed (tridiagWork.Top: Dsytrd, Dsterf, inverse
// iteration, the reflectors applied to one vector), where Dsyev would
// also form Q and accumulate every rotation of the tridiagonal QR
// iterations into it (Dorgtr and Dsteqr, about 3/4 of the time at 80 x
// 80). Up to smallTopMax it is smallTop's, from warm (nil: none; a
// guess of the vector) without Dsterf, tridiagWork.Top then taking over
// only if that fails. Should the inverse iteration fail, Dsyev takes
// over. e.a is left as it was.
func (e *Work) topPair(v []float64, n int, warm []float64) (float64, bool) {
	if n == 1 {
		v[0] = 1
		return e.a[0], true
	}
	if n <= smallTopMax {
		if val, ok := e.small.Top(v, e.a, n, n, warm); ok {
			return val, true
		}
	}
	t := e.tri
	for i := range n {
		copy(t.a[i*n+i:(i+1)*n], e.a[i*n+i:(i+1)*n])
	}
	vals, z, err := t.Top(n, 1, nil)
	if err != nil {
		val, ok := e.syevTop(n)
		if !ok {
			return 0, false
		}
		for i := range n {
			v[i] = e.a[i*n+n-1]
		}
		return val, true
	}
	copy(v[:n], z[:n])
	floats.Scale(1/floats.Norm(v[:n], 2), v[:n])
	return vals[0], true
}

// Top writes the unit top eigenvector of S to u and returns its
// eigenvalue (the path of Solver.dense without a constraint); warm
// is topPair's.
func (e *Work) Top(u []float64, S *mat.SymDense, warm []float64) (float64, bool) {
	n := S.SymmetricDim()
	e.Reserve(n)
	e.a = grow(e.a, n*n)
	raw := S.RawSymmetric()
	for i := range n {
		copy(e.a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	return e.topPair(u, n, warm)
}

// topConstrained is Solver.dense with a constraint given by the
// rows R = C^T (c x n, orthonormal rows): the top eigenvector of B^T S B
// with B an orthonormal basis of the complement of span(C), mapped back
// by B; B^T warm is topPair's warm.
func (e *Work) topConstrained(u []float64, S *mat.SymDense, R *mat.Dense, warm []float64) (float64, bool) {
	c, n := R.Dims()
	r := n - c
	e.Reserve(n) // the buffers below are then resliced, never reallocated
	e.ct = grow(e.ct, n*c)
	for q := range c {
		for i, x := range R.RawRowView(q) {
			e.ct[i*c+q] = x
		}
	}
	B := e.complement(blas64.General{Rows: n, Cols: c, Stride: c, Data: e.ct[:n*c]})
	// B^T S B as gonum's Mul forms it: (S B)^T by Dsymm, copied, then Dgemm.
	e.c = grow(e.c, n*r)
	SB := blas64.General{Rows: n, Cols: r, Stride: r, Data: e.c}
	blas64.Symm(blas.Left, 1, S.RawSymmetric(), B, 0, SB)
	e.bsb = grow(e.bsb, r*n)
	for i := range n {
		for j := range r {
			e.bsb[j*n+i] = e.c[i*r+j]
		}
	}
	e.t = grow(e.t, r*r)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: r, Cols: n, Stride: n, Data: e.bsb}, B, 0,
		blas64.General{Rows: r, Cols: r, Stride: r, Data: e.t})
	e.a = grow(e.a, r*r)
	for i := range r {
		for j := i; j < r; j++ {
			e.a[i*r+j] = 0.5 * (e.t[i*r+j] + e.t[j*r+i])
		}
	}
	e.wv = grow(e.wv, r)
	var wr []float64 // B^T warm
	if warm != nil {
		wr = grow(e.wr, r)
		e.wr = wr
		blas64.Gemv(blas.Trans, 1, B, blas64.Vector{N: n, Inc: 1, Data: warm[:n]}, 0, blas64.Vector{N: r, Inc: 1, Data: wr})
	}
	val, ok := e.topPair(e.wv, r, wr)
	if !ok {
		return 0, false
	}
	blas64.Gemv(blas.NoTrans, 1, B, blas64.Vector{N: r, Inc: 1, Data: e.wv}, 0, blas64.Vector{N: n, Inc: 1, Data: u[:n]})
	// Renormalise against rounding in the basis.
	floats.Scale(1/floats.Norm(u, 2), u)
	return val, true
}

// complement returns B, an orthonormal basis (n x (n-c)) of the
// orthogonal complement of span(C) for C (n x c) with orthonormal columns:
// the last n-c columns of the full Q of C's QR factorisation, by the
// calls complementBasis makes through gonum's QR (the same bits). B is a
// view of e.b, valid until e's next use.
func (e *Work) complement(craw blas64.General) blas64.General {
	n, c := craw.Rows, craw.Cols
	r := n - c
	e.Reserve(n)
	e.qr = grow(e.qr, n*c)
	for i := range n {
		copy(e.qr[i*c:(i+1)*c], craw.Data[i*craw.Stride:i*craw.Stride+c])
	}
	QR := blas64.General{Rows: n, Cols: c, Stride: c, Data: e.qr}
	e.tau = grow(e.tau, c)
	l := e.workLen(func(w []float64) { lapack64.Geqrf(QR, e.tau, w, -1) })
	lapack64.Geqrf(QR, e.tau, e.work, l)
	e.q = grow(e.q, n*n)
	for i := range n {
		copy(e.q[i*n:i*n+c], e.qr[i*c:(i+1)*c])
	}
	Q := blas64.General{Rows: n, Cols: n, Stride: n, Data: e.q}
	l = e.workLen(func(w []float64) { lapack64.Orgqr(Q, e.tau, w, -1) })
	lapack64.Orgqr(Q, e.tau, e.work, l)
	e.b = grow(e.b, n*r)
	for i := range n {
		copy(e.b[i*r:(i+1)*r], e.q[i*n+c:(i+1)*n])
	}
	return blas64.General{Rows: n, Cols: r, Stride: r, Data: e.b}
}

// ComplementTo sets B (n x (n-c)) to complement(C) (complementBasis's
// result, allocating nothing once e is sized).
func (e *Work) ComplementTo(B *mat.Dense, C *mat.Dense) {
	b := e.complement(C.RawMatrix())
	for i := range b.Rows {
		copy(B.RawRowView(i), b.Data[i*b.Stride:i*b.Stride+b.Cols])
	}
}

// TopVectors sets the r columns of U (n x r) to the top r eigenvectors of
// S (n x n), sign-fixed, in descending order: DenseTop's result (the same
// Dsyev call as gonum's EigenSym, so the same bits) without allocating.
func (e *Work) TopVectors(U *mat.Dense, S *mat.SymDense) bool {
	n, r := U.Dims()
	e.Reserve(n)
	e.a = grow(e.a, n*n)
	raw := S.RawSymmetric()
	for i := range n {
		copy(e.a[i*n+i:(i+1)*n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	if _, ok := e.syevTop(n); !ok {
		return false
	}
	col := e.wv[:n]
	for j := range r {
		for i := range n {
			col[i] = e.a[i*n+n-1-j]
		}
		FixSign(col)
		U.SetCol(j, col)
	}
	return true
}

// SVDWork is the scratch space of orthonormalRange, so that UMPCA's
// constraint costs no allocation per update once sized. It makes the
// LAPACK call gonum's mat.SVD makes for SVDThin (Gesvd storing the thin U
// and V^T, with the work length the query gives), so its results are
// mat.SVD's, bit for bit.
type SVDWork struct {
	a, u, vt, s, work []float64
	query             [1]float64
	out               mat.Dense // the basis returned, a view of u
}

// Reserve sizes w for matrices of n rows and up to c columns, for each n
// in rows, so that the updates of a fit, whose constraints gain a column
// per EMP, need nothing new.
func (w *SVDWork) Reserve(rows []int, c int) {
	maxA, maxU, maxVt, maxWork := 0, 0, 0, 0
	for _, n := range rows {
		k := min(n, c)
		maxA, maxU, maxVt = max(maxA, n*c), max(maxU, n*k), max(maxVt, k*c)
	}
	w.a, w.u, w.vt, w.s = grow(w.a, maxA), grow(w.u, maxU), grow(w.vt, maxVt), grow(w.s, c)
	for _, n := range rows {
		for cc := 1; cc <= c; cc++ {
			kk := min(n, cc)
			a := blas64.General{Rows: n, Cols: cc, Stride: cc, Data: w.a}
			u := blas64.General{Rows: n, Cols: kk, Stride: kk, Data: w.u}
			vt := blas64.General{Rows: kk, Cols: cc, Stride: cc, Data: w.vt}
			lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, a, u, vt, w.s, w.query[:], -1)
			maxWork = max(maxWork, int(w.query[0]))
		}
	}
	w.work = grow(w.work, maxWork)
}

// OrthonormalRange is the function of that name on scratch w; the basis
// it returns is valid until the next call.
func (w *SVDWork) OrthonormalRange(A blas64.General, floor float64) *mat.Dense {
	n, c := A.Rows, A.Cols
	k := min(n, c)
	w.a = grow(w.a, n*c)
	for i := range n {
		copy(w.a[i*c:(i+1)*c], A.Data[i*A.Stride:i*A.Stride+c])
	}
	a := blas64.General{Rows: n, Cols: c, Stride: c, Data: w.a}
	w.u, w.vt, w.s = grow(w.u, n*k), grow(w.vt, k*c), grow(w.s, k)
	u := blas64.General{Rows: n, Cols: k, Stride: k, Data: w.u}
	vt := blas64.General{Rows: k, Cols: c, Stride: c, Data: w.vt}
	lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, a, u, vt, w.s, w.query[:], -1)
	l := int(w.query[0])
	w.work = grow(w.work, l)
	if !lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, a, u, vt, w.s, w.work, l) {
		return nil
	}
	s := w.s
	if len(s) == 0 || s[0] <= floor {
		return nil
	}
	tol := max(float64(max(n, c))*2.220446049250313e-16*s[0], floor)
	r := 0
	for _, v := range s {
		if v > tol {
			r++
		}
	}
	w.out.SetRawMatrix(blas64.General{Rows: n, Cols: r, Stride: k, Data: w.u[:(n-1)*k+r]})
	return &w.out
}
