package eigen

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// smallTop is the workspace of the top eigenpair of a small dense
// symmetric matrix (Work.topPair): Householder tridiagonalisation
// T = Q^T A Q (reduce), the top pair of T by Rayleigh quotient iteration
// from the warm vector mapped by Q^T, confirmed by a Sturm count
// (tridiagTopPair), and the vector mapped back by Q. It does the work of
// Dsytrd on a compact copy of each step's trailing block (the products
// with it by the contraction kernel, no LAPACK call, no strided access)
// and needs no eigenvalue but the top one, where tridiagWork.Top also
// finds every eigenvalue (Dsterf). When the iteration settles on another
// eigenvalue (about 4% of the problems below: the first update of each
// EMP, from the uniform start) tridiagTopIsolated finds the top one by
// Sturm counts and inverse iteration above it; Dsterf and inverse
// iteration take over only if that fails. Since 2026-11-27 (7) (replay
// below, min of 9): that fallback (gonum's Dsterf had cost about 15 us a
// call at n = 22) and the reduction's and reflectors' short vector
// operations in Go loops (dotShort) rather than gonum calls, with
// rqiStep's quotient, took the 10 x 10 and 22 x 22 problems of a gait
// fit from 1.35 and 4.10 ms a fit to 1.14 and 3.65.
//
// On the problems of one gait uint8 fit (731 x 32 x 22 x 10, P = 32,
// K = 20: the 10 x 10 and 22 x 22 scatters of its mode updates, with
// their warm starts, recorded and replayed by a Go benchmark not kept,
// chrt) it took 3.2 and 12 us a problem where tridiagWork.Top took 8.7
// and 38. Its vectors agree with Dsyev's to 2.7e-15 (10 x 10) and
// 1.4e-14 (22 x 22), the Krylov iteration's to 2e-14.
type smallTop struct {
	a, b      []float64 // the trailing blocks of the reduction, in turn (compact)
	v         []float64 // reflector k's vector v_k (n-k-1 values, v_k[0] = 1) at k*n
	tau, d, e []float64
	x         []float64 // the first row of the reduction's matrix, past the diagonal
	s, p      []float64 // the vector of T; the reduction's product and scratch
	work      []float64 // Dsterf's copies of d and e
	scr       []float64 // shiftedSolve's scratch (4n)
	n         int
}

func (w *smallTop) Reserve(n int) {
	if n <= w.n {
		return
	}
	w.n = n
	w.a, w.b, w.v = make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	w.tau, w.d, w.e, w.x = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	w.s, w.p, w.work, w.scr = make([]float64, n), make([]float64, n), make([]float64, 2*n), make([]float64, 4*n)
}

// Top writes to u the unit top eigenvector of the n x n symmetric matrix
// whose upper triangle is A (row-major, stride lda) and returns its
// eigenvalue. warm (nil: none) is a guess of the vector that starts the
// iteration; the answer does not depend on it beyond rounding, unless
// the top eigenvalue is (numerically) multiple. ok is false only when
// every method failed to converge.
func (w *smallTop) Top(u []float64, A []float64, lda, n int, warm []float64) (float64, bool) {
	w.Reserve(n)
	if n == 1 {
		u[0] = 1
		return A[0], true
	}
	// The first row, and the rest mirrored from the upper triangle.
	copy(w.x[:n-1], A[1:n])
	b := w.a[:(n-1)*(n-1)]
	for i := 1; i < n; i++ {
		row := A[i*lda : i*lda+n]
		for j := i; j < n; j++ {
			b[(i-1)*(n-1)+j-1] = row[j]
			b[(j-1)*(n-1)+i-1] = row[j]
		}
	}
	w.reduce(n, A[0])
	d, e := w.d[:n], w.e[:n-1]
	norm := gershgorin(d, e)
	if norm == 0 {
		// A = 0: every vector is an eigenvector; e_1, as Dsyev's last
		// column would not be, but the value is exact.
		clear(u[:n])
		u[0] = 1
		return 0, true
	}
	// The start: Q^T warm, or a generic vector.
	s := w.s[:n]
	if warm != nil {
		copy(s, warm[:n])
		w.applyQT(s, n)
	}
	if warm == nil || !normalize(s) {
		for i := range s {
			s[i] = 1 + 0.5*math.Sin(float64(i+1))
		}
		normalize(s)
	}
	theta, ok := tridiagTopPair(d, e, norm, s, w.scr[:4*n])
	if !ok {
		theta, ok = tridiagTopIsolated(d, e, norm, theta, s, w.scr[:4*n])
	}
	if !ok {
		// Both iterations failed: the top eigenvalue from all of T's, the
		// vector by inverse iteration there from a generic start (two
		// steps, the value being exact to rounding).
		dd, ee := w.work[:n], w.work[n:2*n]
		copy(dd, d)
		copy(ee, e[:n-1])
		if !sterf(dd, ee[:n-1]) {
			return 0, false
		}
		theta = slices.Max(dd)
		for i := range s {
			s[i] = 1 + 0.5*math.Sin(float64(i+1))
		}
		for range 2 {
			if !shiftedSolve(d, e, theta, norm, s, w.scr[:4*n]) || !normalize(s) {
				return 0, false
			}
		}
	}
	copy(u[:n], s)
	w.applyQ(u, n)
	floats.Scale(1/norm2(u[:n]), u[:n])
	return theta, true
}

// reduce tridiagonalises the n x n symmetric matrix [d0 x^T; x B] (the
// first row's diagonal entry, the rest of it in w.x, and B, the trailing
// (n-1) x (n-1) block, compact in w.a): d and e get T's diagonal and
// off-diagonal, v and tau the reflectors H_k = I - tau_k v_k v_k^T
// (acting on entries k+1..n-1), Q = H_0 H_1 ... H_{n-3}. Step k makes the
// reflector that maps x to e[k] e_1 and updates B to B - v z^T - z v^T
// (z = p - (tau/2)(p.v) v, p = tau B v, by the contraction kernel on B's
// contiguous rows), writing its first row's diagonal entry and the rest
// of that row as the next step's d0 and x and the rest compact as its B.
func (w *smallTop) reduce(n int, d0 float64) {
	cur, nxt := w.a, w.b
	for k := 0; k < n-2; k++ {
		m1 := n - k - 1 // the order of B, the length of x
		w.d[k] = d0
		x := w.x[:m1]
		v := w.v[k*n : k*n+m1]
		alpha := x[0]
		sigma := 0.0
		for _, xi := range x[1:] {
			sigma += xi * xi
		}
		tau := 0.0
		switch ss := alpha*alpha + sigma; {
		case sigma == 0:
			// Already reduced.
			w.e[k] = alpha
		case 0x1p-900 < ss && ss < 0x1p900:
			mu := math.Sqrt(ss)
			beta := -math.Copysign(mu, alpha)
			tau = (beta - alpha) / beta
			f := 1 / (alpha - beta)
			v[0] = 1
			for i := 1; i < m1; i++ {
				v[i] = x[i] * f
			}
			w.e[k] = beta
		default:
			// Squares that under- or overflow (entries of order 1e-135
			// or 1e+135): the norm by floats.Norm's scaled sum.
			tau = w.reflectScaled(x, v, k)
		}
		w.tau[k] = tau
		B, z := cur[:m1*m1], w.p[:m1]
		if tau == 0 {
			clear(v)
			clear(z)
		} else {
			kernel.DotRowsF64(z, B, m1, m1, v, false)
			for i := range z {
				z[i] *= tau
			}
			half := 0.5 * tau * dotShort(z, v)
			for i, vi := range v {
				z[i] -= half * vi
			}
		}
		// Row 0 of the updated B: the next d0 and x.
		v0, z0 := v[0], z[0]
		d0 = B[0] - 2*v0*z0
		nx := w.x[:m1-1]
		for j := range nx {
			nx[j] = B[j+1] - v0*z[j+1] - z0*v[j+1]
		}
		// Rows 1.. less their first entries: the next B.
		m2 := m1 - 1
		rank2Update(nxt[:m2*m2], B[m1+1:], m2, m2, m1, v[1:m1], z[1:m1])
		cur, nxt = nxt, cur
	}
	// The last 2 x 2 matrix.
	w.d[n-2], w.e[n-2], w.d[n-1] = d0, w.x[0], cur[0]
}

// gershgorin returns max_i |d_i| + |e_{i-1}| + |e_i|, Gershgorin's bound
// on the norm of the symmetric tridiagonal matrix with diagonal d and
// off-diagonal e (len(d)-1 entries).
func gershgorin(d, e []float64) float64 {
	n, norm := len(d), 0.0
	for i := range n {
		r := math.Abs(d[i])
		if i > 0 {
			r += math.Abs(e[i-1])
		}
		if i < n-1 {
			r += math.Abs(e[i])
		}
		norm = max(norm, r)
	}
	return norm
}

// reflectScaled makes reflector k from x (its vector into v, its tau
// returned, e[k] set) with the norm computed by floats.Norm's scaled sum,
// for entries whose squares under- or overflow.
func (w *smallTop) reflectScaled(x, v []float64, k int) float64 {
	alpha := x[0]
	mu := floats.Norm(x, 2)
	beta := -math.Copysign(mu, alpha)
	tau := (beta - alpha) / beta
	v[0] = 1
	for i := 1; i < len(x); i++ {
		v[i] = x[i] / (alpha - beta)
	}
	w.e[k] = beta
	return tau
}

// applyQT sets x = Q^T x = H_{n-3} ... H_0 x.
func (w *smallTop) applyQT(x []float64, n int) {
	for k := 0; k < n-2; k++ {
		w.reflect(x[k+1:n], k, n)
	}
}

// applyQ sets x = Q x = H_0 ... H_{n-3} x.
func (w *smallTop) applyQ(x []float64, n int) {
	for k := n - 3; k >= 0; k-- {
		w.reflect(x[k+1:n], k, n)
	}
}

// reflect applies H_k to y (the entries k+1.. of a vector).
func (w *smallTop) reflect(y []float64, k, n int) {
	tau := w.tau[k]
	if tau == 0 {
		return
	}
	v := w.v[k*n : k*n+len(y)]
	f := -tau * dotShort(v, y)
	for i := range y {
		y[i] += f * v[i]
	}
}

// dotShort returns x . y for short vectors (four partial sums).
func dotShort(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// tridiagTopIsolated finds the top eigenpair of the symmetric tridiagonal
// T (d, e) when Rayleigh quotient iteration met another eigenvalue:
// bisection by Sturm counts (sturmBelow) from [lo, norm], lo below the
// top eigenvalue lambda_1 (the value the iteration found, else -norm),
// until exactly one eigenvalue lies above lo (so lambda_2 <= lo) and the
// interval [lo, hi] holding lambda_1 is a sixteenth of what it was then;
// two steps of inverse iteration at hi, above lambda_1 and so nearest to
// it (each shrinking the other components by (hi - lambda_1) / (hi -
// lambda_i) <= 1/16), from a generic vector; then tridiagTopPair from that
// vector, whose Sturm count confirms the value. ok is false if that
// failed too. s and scratch as tridiagTopPair's.
func tridiagTopIsolated(d, e []float64, norm, lo float64, s, scratch []float64) (float64, bool) {
	const eps = 2.220446049250313e-16
	m := len(d)
	if !(lo > -norm && lo < norm) {
		lo = -norm
	}
	hi := norm * (1 + 4*eps)
	if sturmBelow(d, e, lo) == m || sturmBelow(d, e, hi) != m {
		return 0, false
	}
	width := -1.0 // hi - lo when the top eigenvalue was first isolated
	for range 100 {
		mid := 0.5 * (lo + hi)
		if mid <= lo || mid >= hi {
			break
		}
		above := m - sturmBelow(d, e, mid)
		if above == 0 {
			hi = mid
		} else {
			lo = mid
			if above == 1 && width < 0 {
				width = hi - lo
			}
		}
		if width >= 0 && hi-lo <= width/16 {
			break
		}
	}
	for i := range s {
		s[i] = 1 + 0.5*math.Sin(float64(i+1))
	}
	for range 2 {
		if !shiftedSolve(d, e, hi, norm, s, scratch) || !normalize(s) {
			return 0, false
		}
	}
	return tridiagTopPair(d, e, norm, s, scratch)
}

// rank2Update sets out[i*cols+j] = in[i*inStride+j] - v[i] z[j] - z[i]
// v[j] for i < rows, j < cols: reduce's symmetric rank-2 update of a
// trailing block, written compact.
func rank2Update(out, in []float64, rows, cols, inStride int, v, z []float64) {
	v, z = v[:max(rows, cols)], z[:max(rows, cols)]
	vt, zt := v[:cols], z[:cols]
	for i := range rows {
		row, o := in[i*inStride:i*inStride+cols], out[i*cols:(i+1)*cols]
		vi, zi := v[i], z[i]
		for j := range o {
			o[j] = row[j] - vi*zt[j] - zi*vt[j]
		}
	}
}
