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
	m, sb []float64              // smallComplement's B^T S B and S B (n x n each)
	full  []float64              // S with both triangles, when not e.s (Solver.fullS)
}

// compBasis is an orthonormal basis B of the complement of span(C)
// for the constraint C = R^T.
type compBasis struct {
	rows  []float64 // R (c x n, row-major), as given
	c, n  int       // its shape (n = 0: none)
	r, rp int       // n - c, and that rounded up to a multiple of 4
	b     []float64 // B (n x rp, row-major: zero past column r, so that the kernels' rows are whole vectors of 4)
	spare []float64 // the next b while it is made from b
	bn    []float64 // b with stride n (n x n, zero past column r), for form
	bnOK  bool      // bn holds this b
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
	b.c, b.n, b.bnOK = c, n, false
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
	if cap(b.bn) < n*n {
		b.bn = make([]float64, n*n)
	}
}

// Reserve sizes the workspace of the dense path (smallComplement) for
// problems of dimension n, whichever path the updates take, so that a
// fit's allocations do not depend on which of them go dense
// (TestAllocations): every kept basis, M, T, S's copy, the vectors, and
// the Work that makes a basis anew.
func (cw *complementWork) Reserve(n int, work *Work) {
	work.Reserve(n)
	for i := range cw.bases {
		cw.bases[i].Reserve(n)
	}
	cw.x, cw.t, cw.y = grow(cw.x, n), grow(cw.t, n), grow(cw.y, n+3)
	cw.m, cw.sb, cw.full = grow(cw.m, n*n), grow(cw.sb, n*n), grow(cw.full, n*n)
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
	b.c, b.r, b.rp, b.bnOK = b.c+1, nr, nrp, false
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

// useSmallComplement reports whether topWith solves an n x n problem
// with a fixed constraint of c rows (Solver.fixedRows) densely, by
// smallComplement: for n up to smallTopMax, constraints of at least n/3
// rows, and a previous update that needed at least smallDenseFrom(n-c)
// Krylov products (hint; smallComplement sets it to n-c, so an EMP's
// updates stay on this path until a warm start passes its test). Set by
// measurement: a replay of one gait uint8 fit's 561 constrained 32 x 32
// updates (c = 1..29 rows, 20 sweeps an EMP; the formed scatters with
// their warm starts and constraints, chrt, min of 9 runs): those with
// c >= 11 (r = n-c <= 21) took 26% less time densely (2.06 ms against
// 2.79 a fit; all 561 4.09 against 4.82), c = 11 the same, c = 1..9 up
// to 50% more (a 31 x 31 reduction costs more than the 20 products of
// 32 x 32 the Krylov iteration needs there). In the fit (2 threads,
// timers around topWith, a gofit build not kept, 9 fits each way
// interleaved, chrt) the c >= 11 updates took 2.57/3.53 ms a fit
// (min/median) against 4.88/5.33, and c = 1..10 densely 2.99/3.95
// against 2.50/3.75 by Krylov. Other orders are untested.
func useSmallComplement(n, c, hint int) bool {
	return n <= smallTopMax && 3*c >= n && hint >= smallDenseFrom(n-c)
}

// smallComplement is topWith's dense path for a constrained problem of
// order n <= smallTopMax whose previous update needed many Krylov
// products (smallDenseFrom of the complement's dimension r = n - c). As
// smallDense does, it first tests the warm vector's residual: y = B^T
// warm (B the kept basis, complementWork.basis), and ||B^T S B y - theta
// y|| <= krylovTol theta for y normalised is the Krylov iteration's first
// test (the residual of Gamma S Gamma at B y); if it passes, u = B y and
// *hint = 1 hands the next update back to the Krylov iteration. Else it
// forms M = B^T S B (r x r; compBasis.form, S with both triangles) and
// smallTop (from y) finds its top pair; u = B s, and *hint = r, so that
// the next update of the mode comes here again. ok is false when smallTop
// failed (u is then not set).
func (e *Solver) smallComplement(u, S []float64, apply func(dst, v []float64), R *mat.Dense, warm []float64, hint *int) (float64, bool) {
	cw := &e.comp
	cb := cw.basis(R, &e.work)
	n, r, rp := cb.n, cb.r, cb.rp
	cw.cur, cw.apply = cb, apply
	cw.Reserve(n, &e.work)
	b := cb.b[:n*rp]
	y := cw.y[:rp]
	var start []float64 // smallTop's start: B^T warm, normalised
	if warm != nil {
		kernel.AxpyRowsF64(y, b, n, rp, warm[:n], false)
		if ny := norm2(y); ny > 1e-6*norm2(warm[:n]) {
			floats.Scale(1/ny, y)
			start = y[:r]
			z := cw.m[:rp]
			cw.product(z, y)
			theta := floats.Dot(z, y)
			floats.AddScaled(z, -theta, y)
			if norm2(z) <= krylovTol*math.Abs(theta) {
				*hint = 1
				kernel.DotRowsF64(u[:n], b, n, rp, y, false)
				floats.Scale(1/norm2(u[:n]), u[:n])
				return theta, true
			}
		}
	}
	*hint = r
	cb.form(cw.m, cw.sb, S)
	s := cw.t[:rp] // smallTop's vector (cw.t is free: the product is done)
	val, ok := e.work.small.Top(s, cw.m, n, r, start)
	if !ok {
		return 0, false
	}
	clear(s[r:])
	kernel.DotRowsF64(u[:n], b, n, rp, s, false)
	// Renormalise against rounding in the basis.
	floats.Scale(1/norm2(u[:n]), u[:n])
	return val, true
}

// product sets dst = B^T S B y for the basis of the update under way (cw.fn).
func (cw *complementWork) product(dst, y []float64) {
	cb := cw.cur
	b := cb.b[:cb.n*cb.rp]
	kernel.DotRowsF64(cw.x[:cb.n], b, cb.n, cb.rp, y, false)
	cw.apply(cw.t[:cb.n], cw.x[:cb.n])
	kernel.AxpyRowsF64(dst, b, cb.n, cb.rp, cw.t[:cb.n], false)
}

// form sets the upper triangle of M (r x r, stride n) to B^T S B for S
// (n x n, row-major, both triangles), by kernel.GramCols4x8's 4 x 8 blocks
// (each entry one chain of FMAs in a fixed order, so the same bits every
// time): T = S B (n x r, stride n) as S^T B, then M = B^T T, from the
// basis with stride n (bn, copied from b once per basis). sb holds T.
// Blocks past column r read B's zero columns; those past row r of M
// compute entries smallTop never reads. Without AVX2 (or n < 8) the
// same products by the contraction kernels.
func (b *compBasis) form(M, T, S []float64) {
	n, r, rp := b.n, b.r, b.rp
	if !kernel.AVX2() || n < 8 {
		bb := b.b[:n*rp]
		for i := range n {
			kernel.AxpyRowsF64(T[i*rp:(i+1)*rp], bb, n, rp, S[i*n:(i+1)*n], false) // row i of S B
		}
		// M's row i: B[:, i]^T T = sum_k B[k][i] T[k, :], i.e. T^T B[:, i].
		col := M[(n-1)*n:] // scratch: the last row of M is never read (r < n)
		for i := range r {
			for k := range n {
				col[k] = b.b[k*rp+i]
			}
			kernel.AxpyRowsF64(M[i*n:i*n+rp], T[:n*rp], n, rp, col[:n], false)
		}
		return
	}
	if !b.bnOK {
		b.bn = b.bn[:n*n]
		for i := range n {
			row := b.bn[i*n : (i+1)*n]
			copy(row, b.b[i*rp:i*rp+r])
			clear(row[r:])
		}
		b.bnOK = true
	}
	for i0 := 0; i0 < n; i0 += 4 {
		i := min(i0, n-4)
		for j0 := 0; j0 < r; j0 += 8 {
			j := min(j0, n-8)
			kernel.GramCols4x8(T[i*n+j:], n, S[i:], b.bn[j:], n, n)
		}
	}
	for i0 := 0; i0 < r; i0 += 4 {
		i := min(i0, n-4)
		for j0 := i0; j0 < r; j0 += 8 {
			j := min(j0, n-8)
			kernel.GramCols4x8(M[i*n+j:], n, b.bn[i:], T[j:], n, n)
		}
	}
}
