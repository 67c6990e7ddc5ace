package eigen

import (
	"bytes"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// useComplement reports whether an n x n problem with a constraint of c
// rows is solved by topComplement (asked only when the constraints are
// fixed for an EMP: Solver.fixedRows; UMPCA's, new at every update,
// would cost a QR factorisation each).
func (r *Routes) useComplement(n, c int) bool {
	if r != nil && r.Complement != 0 {
		return r.Complement > 0 && c > 0
	}
	return n >= complementMinN && c > 0 && float64(c) >= complementFrom*float64(n)
}

// complementWork is the state of Solver.topComplement: orthonormal
// bases of the complements of the constraints met, kept for as long as a
// constraint stays the same (SO-MPCA's and FO-MPCA's constraints are
// fixed for an EMP's sweeps) and updated when it gains a row (the next
// EMP's), for up to complementBases constraints (FO-MPCA's modes take
// turns).
type complementWork struct {
	bases [complementBases]compBasis
	next  int                    // the entry the next new constraint replaces
	cur   *compBasis             // the basis of the update under way
	x, t  []float64              // B y and S B y (n)
	y     []float64              // the iterate (r rounded up to a multiple of 4)
	apply func(dst, v []float64) // v -> S v, set by topComplement
	fn    func(dst, y []float64) // y -> B^T S B y, made once
}

// compBasis is an orthonormal basis B of the complement of span(C)
// for the constraint C = R^T.
type compBasis struct {
	rows  []float64 // R (c x n, row-major), as given
	c, n  int       // its shape (n = 0: none)
	r, rp int       // n - c, and that rounded up to a multiple of 4
	b     []float64 // B (n x rp, row-major: zero past column r, so that the kernels' rows are whole vectors of 4)
	spare []float64 // the next b while it is made from b
}

// basis returns the basis for the constraint's rows R (c x n, orthonormal
// rows): a kept one made for the same rows (bit for bit), else a kept one
// made for all but R's last row, extended (compBasis.extend), else
// one made anew (compBasis.make).
func (cw *complementWork) basis(R *mat.Dense, work *Work) *compBasis {
	c, n := R.Dims()
	raw := R.RawMatrix()
	if raw.Stride != n {
		panic("solver: constraint rows not contiguous")
	}
	rows := raw.Data[:c*n]
	for i := range cw.bases {
		if b := &cw.bases[i]; b.n == n && b.c == c && sameBits(b.rows, rows) {
			return b
		}
	}
	for i := range cw.bases {
		if b := &cw.bases[i]; b.n == n && b.c == c-1 && sameBits(b.rows, rows[:(c-1)*n]) && b.extend(rows[(c-1)*n:]) {
			return b
		}
	}
	b := &cw.bases[cw.next]
	cw.next = (cw.next + 1) % complementBases
	b.make(rows, c, n, work)
	return b
}

// sameBits reports whether a and b hold the same float64 bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b)))
}

// make sets B to the last n-c columns of the full Q of C's QR
// factorisation (Work.complement).
func (b *compBasis) make(rows []float64, c, n int, work *Work) {
	b.c, b.n = c, n
	b.Reserve(n)
	b.rows = append(b.rows[:0], rows...)
	work.Reserve(n)
	C := work.ct[:n*c] // C = R^T (n x c)
	for q := range c {
		for i, x := range rows[q*n : (q+1)*n] {
			C[i*c+q] = x
		}
	}
	B := work.complement(blas64.General{Rows: n, Cols: c, Stride: c, Data: C})
	b.r = n - c
	b.rp = (b.r + 3) &^ 3
	b.b = b.b[:n*b.rp]
	for i := range n {
		row := b.b[i*b.rp : (i+1)*b.rp]
		copy(row, B.Data[i*B.Stride:i*B.Stride+b.r])
		clear(row[b.r:])
	}
}

// Reserve sizes b's storage for constraints on R^n at once (rows for
// up to n of them, b and spare for any r), so that the bases a fit makes
// and extends, EMP after EMP, allocate nothing more (TestAllocations).
func (b *compBasis) Reserve(n int) {
	size := n*(n+6) + 3 // n rp + rp + n for rp <= n+3 (extend's spare)
	if cap(b.b) < size {
		b.b, b.spare = make([]float64, size), make([]float64, size)
	}
	if cap(b.rows) < n*n {
		b.rows = make([]float64, 0, n*n)
	}
}

// extend makes B the basis for the constraint with one more row q (unit,
// orthogonal to the others), reporting false (B unchanged) when q is not
// in range(B) to 1e-10. For y = B^T q and the Householder reflector H
// with H y = beta e_1, the columns of B H are orthonormal, the first is
// B y / beta = +-q, and the rest span the complement of q in range(B):
// they are the new B. n (r+1) multiply-adds where make's QR costs about
// 2 n c^2 and its Q n^3.
func (b *compBasis) extend(q []float64) bool {
	n, r, rp := b.n, b.r, b.rp
	if r < 2 {
		return false
	}
	B := b.b[:n*rp]
	b.spare = b.spare[:n*rp+rp+n]
	v, w := b.spare[n*rp:n*rp+rp], b.spare[n*rp+rp:]
	kernel.AxpyRowsF64(v, B, n, rp, q, false) // y = B^T q
	sigma := norm2(v)
	if !(math.Abs(sigma-1) <= 1e-10) {
		return false
	}
	// v = y - beta e_1, beta = -sign(y_0) sigma; H = I - s v v^T, s = 2 / v^T v.
	beta := -math.Copysign(sigma, v[0])
	v[0] -= beta
	s := 2 / floats.Dot(v, v)
	kernel.DotRowsF64(w, B, n, rp, v, false) // B v
	nr, nrp := r-1, (r+2)&^3
	nb := b.spare[:n*nrp]
	for i := range n {
		old, row := b.b[i*rp+1:i*rp+r], nb[i*nrp:(i+1)*nrp]
		f := s * w[i]
		for j, x := range old {
			row[j] = x - f*v[j+1]
		}
		clear(row[nr:])
	}
	b.spare, b.b = b.b, nb[:cap(nb)]
	b.rows = append(b.rows, q...)
	b.c, b.r, b.rp = b.c+1, nr, nrp
	return true
}

// topComplement is topWith's Krylov iteration for a problem whose
// constraint has many rows (useComplement): on the (n-c) x (n-c)
// B^T S B, for B an orthonormal basis of the complement of span(C) made
// once per constraint (complementWork.basis), its products B^T (S (B y))
// (dotRows, apply, axpyRows), without a projection; u = B y. Lanczos on
// B^T S B from B^T x is Lanczos on Gamma S Gamma from Gamma x (the same
// iterates, mapped by B), so the products needed are the same and so is
// the residual tested (||B^T S B y - theta y|| = ||Gamma S u - theta u||
// to rounding), but a product costs 2 n (n-c) multiply-adds besides S's
// where the projection costs 2 n c, and the basis and its
// reorthogonalisation have n-c entries a vector instead of n. ok is
// false when the iteration did not converge within krylovMaxApply(n)
// products (u then holds its best vector).
func (e *Solver) topComplement(u []float64, apply func(dst, v []float64), R *mat.Dense, warm []float64, applies *int) (float64, bool) {
	cw := &e.comp
	cb := cw.basis(R, &e.work)
	n, r, rp := cb.n, cb.r, cb.rp
	cw.cur, cw.apply = cb, apply
	cw.x, cw.t, cw.y = grow(cw.x, n), grow(cw.t, n), grow(cw.y, n+3)
	if cw.fn == nil {
		cw.fn = e.comp.product
	}
	b := cb.b[:n*rp]
	y := cw.y[:rp]
	ok := false
	if warm != nil {
		kernel.AxpyRowsF64(y, b, n, rp, warm[:n], false)
		ok = norm2(y) > 1e-6*norm2(warm[:n])
	}
	if !ok {
		// warm lies (almost) in span(C): a generic start.
		clear(y)
		for i := range r {
			y[i] = 1
		}
	}
	e.kr.dim = r
	val, ok := e.kr.Top(y, cw.fn, constraint(nil, rp), y, krylovMaxApply(n), applies)
	e.kr.dim = 0
	kernel.DotRowsF64(u[:n], b, n, rp, y, false)
	// Renormalise against rounding in the basis.
	floats.Scale(1/norm2(u[:n]), u[:n])
	return val, ok
}

// product sets dst = B^T S B y for the basis of the update under way (cw.fn).
func (cw *complementWork) product(dst, y []float64) {
	cb := cw.cur
	b := cb.b[:cb.n*cb.rp]
	kernel.DotRowsF64(cw.x[:cb.n], b, cb.n, cb.rp, y, false)
	cw.apply(cw.t[:cb.n], cw.x[:cb.n])
	kernel.AxpyRowsF64(dst, b, cb.n, cb.rp, cw.t[:cb.n], false)
}
