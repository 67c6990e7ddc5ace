package eigen

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/par"
)

// The top P eigenpairs of a formed symmetric matrix A (n x n) by block
// Lanczos with full reorthogonalisation and thick restarts (Wu and Simon's
// thick-restart Lanczos, in block form; see also Stewart's Krylov-Schur
// method, of which it is the symmetric case), used by TopEigenvectors when
// P is a small fraction of n.
//
// The basis Q (rows of n, orthonormal) grows by blocks of b vectors: the
// next block is the part of A Q_last orthogonal to Q (Q_last the block
// added last), orthogonalised twice against all of Q (classical
// Gram-Schmidt twice, "twice is enough") and within itself. A Q is kept
// beside Q, and the projected matrix H = Q^T A Q is formed from it
// explicitly, so that H stays exact to rounding whatever the history of
// the basis. When the basis holds mMax vectors, the Rayleigh-Ritz step
// finds the top `keep` eigenpairs of H (m^3 flops, m << n; see ritz) and
// keeps the top `keep` Ritz vectors Y = Q S, with A Y = (A Q) S and H = diag(theta):
// the thick restart, which loses none of the convergence gained. The next
// block is the one that would have come next without the restart (the
// residuals A y - theta y of all Ritz vectors lie in its span), so the
// iteration goes on as if it had not restarted. (Taking it from some Ritz
// vectors' residuals instead is the same in exact arithmetic, but the
// residual of a nearly converged vector is mostly rounding: its direction
// breaks the Krylov structure, and the iteration needed 3 times the
// products.)
//
// Acceptance: every one of the top P Ritz pairs has
// ||A y - theta y|| <= lanczosTol * theta_1, the residual computed from an
// explicit product A Y (not from the running A Q, which restarts update
// by linear combinations). By Davis-Kahan an accepted vector is within
// about lanczosTol theta_1 / gap of the eigenvector, the dense path's own
// error is about n eps theta_1 / gap, and eigenvalues are within
// lanczosTol^2 theta_1^2 / gap.
//
// Repeated and clustered eigenvalues: a block of b vectors finds
// multiplicities up to b in exact arithmetic and, with the restarts and
// the random refills below, any multiplicity in practice; the vectors of
// an eigenvalue repeated across the P boundary span part of its
// eigenspace, as the dense path's do. When the residuals of a block lose
// rank (an invariant subspace was found: zero eigenvalues of rank
// deficient data, exhausted multiplicities), the lost vectors are
// replaced by pseudo-random ones from a generator with a fixed seed, so
// the result depends only on A. Products with A, and the products with Q
// of the orthogonalisation and the Ritz vectors, are split by rows between
// the members of the fit's team (tasks), every entry summed in one fixed
// order, so the result is the same bit for bit whatever the number of
// threads.

// lanczosShape returns the block size b, the Ritz vectors kept at a
// restart and the largest basis for P eigenpairs of an n x n matrix, or
// ok = false when the basis would not be small beside n (use the dense
// path then).
func lanczosShape(n, P int) (b, keep, mMax int, ok bool) {
	b = lanczosBlock
	keep = P + max(b, int(lanczosKeep*float64(P)))
	mMax = keep + lanczosSteps*b
	return b, keep, mMax, 2*mMax <= n
}

// lanczosWork is the workspace of lanczosTop.
type lanczosWork struct {
	rt       *Routes   // route overrides (nil: none)
	a        []float64 // A, n x n, both triangles, row-major
	op       *IntGram  // A as an operator, if not nil (then a is not read)
	lda, n   int
	q, aq    []float64 // Q and A Q, mMax x n
	qt, aqt  []float64 // their transposes, n x mMax (the products by Q^T's rows)
	tmp      []float64 // b x n
	y, ay    []float64 // Ritz vectors and their products, keep x n
	h, hs    []float64 // H (mMax x mMax) and Dsyev's copy
	w, work  []float64 // Dsyev's eigenvalues and work
	tri      *tridiagWork
	c        []float64 // coefficients, b x mMax
	st       []float64 // S^T, keep x mMax
	res      []float64 // residual norms
	nrm      []float64 // norms of a block before orthogonalisation
	nrm2     []float64 // orthogonalise's norms
	rng      *rand.Rand
	tasks    *par.Tasks // the team's members, for par and the products by op
	job      dotsJob    // par's call, for tasks
	products int        // vectors multiplied by A
}

// lanczosTop returns the top P eigenvectors of the symmetric n x n matrix
// whose rows (both triangles) are a, as sign-fixed columns in descending
// order, and their eigenvalues. It reports ok = false if it did not
// converge within lanczosMaxProducts n products; cancel (may be nil) is polled before
// every block product (par.ErrCanceled). Its products run on the members of
// crew (nil: the caller alone), with the same result whatever their
// number.
//
// With op not nil, the products are op's (the same matrix as a, which is
// then not read).
func lanczosTop(a []float64, lda int, op *IntGram, n, P int, cancel func() bool, crew *par.Team, rt *Routes) (V *mat.Dense, vals []float64, ok bool, err error) {
	b, keep, mMax, _ := lanczosShape(n, P)
	w := &lanczosWork{a: a, lda: lda, op: op, n: n, tasks: par.NewTasks(crew), rt: rt}
	if op != nil {
		op.rt = rt
	}
	if op != nil {
		op.setBlock(max(b, P))
	}
	w.q, w.aq = make([]float64, (mMax+b)*n), make([]float64, mMax*n)
	w.qt, w.aqt, w.tmp = make([]float64, n*mMax), make([]float64, n*mMax), make([]float64, b*n)
	w.y, w.ay = make([]float64, keep*n), make([]float64, keep*n)
	w.h, w.hs = make([]float64, mMax*mMax), make([]float64, mMax*mMax)
	w.w, w.c, w.st = make([]float64, mMax), make([]float64, b*mMax), make([]float64, keep*mMax)
	w.res, w.nrm, w.nrm2 = make([]float64, keep), make([]float64, b), make([]float64, b)
	var query [1]float64
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: mMax, Stride: mMax, Data: w.hs}, w.w, query[:], -1)
	w.work = make([]float64, int(query[0]))
	w.tri = newTridiagWork(mMax, keep)
	w.rng = rand.New(rand.NewPCG(0x736f6d7063612d6c, uint64(n))) // fixed: "sompca-l"

	// The start: b pseudo-random vectors.
	m := 0
	for j := range b {
		w.random(w.q[j*n : (j+1)*n])
	}
	w.orthonormalise(0, b)
	w.transpose(w.qt, w.q, 0, b)
	last := make([]int, b) // the rows whose residuals make the next block
	first := true          // the block Q[m:m+b] is set
	for restarts := 0; ; {
		// Grow the basis to mMax.
		for m+b <= mMax {
			if !first {
				w.expand(m, last)
				w.transpose(w.qt, w.q, m, m+b)
			}
			first = false
			if canceled(cancel) {
				return nil, nil, false, par.ErrCanceled
			}
			w.applyRows(w.aq[m*n:(m+b)*n], w.q[m*n:(m+b)*n], b)
			w.transpose(w.aqt, w.aq, m, m+b)
			w.project(m, b)
			for j := range b {
				last[j] = m + j
			}
			m += b
		}
		// The next block, before the basis changes: Q[m:m+b].
		w.expand(m, last)
		// Rayleigh-Ritz.
		theta, err := w.ritz(m, keep)
		if err != nil {
			return nil, nil, false, err
		}
		tol := lanczosTol * math.Abs(theta[0])
		done := true
		for k := range P {
			done = done && w.res[k] <= tol
		}
		if done {
			// Confirm with explicit products.
			if canceled(cancel) {
				return nil, nil, false, par.ErrCanceled
			}
			w.applyRows(w.ay[:P*n], w.y[:P*n], P)
			for k := range P {
				w.res[k] = w.residual(k, theta[k])
				done = done && w.res[k] <= tol
			}
			if done {
				if w.rt != nil && w.rt.LanczosTrace != nil {
					w.rt.LanczosTrace(restarts, w.products)
				}
				V = mat.NewDense(n, P, nil)
				col := make([]float64, n)
				for k := range P {
					copy(col, w.y[k*n:(k+1)*n])
					FixSign(col)
					V.SetCol(k, col)
				}
				return V, append([]float64(nil), theta[:P]...), true, nil
			}
		}
		if restarts++; w.products > w.rt.maxProducts()*n {
			return nil, nil, false, nil
		}
		// Thick restart: Q = [Y, the next block], A Q = A Y, H = diag(theta);
		// the next block's column of H comes with its product.
		copy(w.q, w.y[:keep*n])
		copy(w.q[keep*n:(keep+b)*n], w.q[m*n:(m+b)*n])
		copy(w.aq, w.ay[:keep*n])
		w.transpose(w.qt, w.q, 0, keep+b)
		w.transpose(w.aqt, w.aq, 0, keep)
		clear(w.h)
		for k := range keep {
			w.h[k*mMax+k] = theta[k]
		}
		m = keep
		first = true
	}
}

// ld is the stride of H.
func (w *lanczosWork) ld() int { return len(w.w) }

// random fills v with pseudo-random normal values from w's generator.
func (w *lanczosWork) random(v []float64) {
	for i := range v {
		v[i] = w.rng.NormFloat64()
	}
}

// expand sets the block Q[m:m+b] to the residuals A q_l - Q H[:, l] of the
// rows l in last (their part of A Q outside the basis) and
// orthonormalises it against Q[:m] and within itself.
func (w *lanczosWork) expand(m int, last []int) {
	n, ld, b := w.n, w.ld(), len(last)
	blk := w.q[m*n : (m+b)*n]
	for j, l := range last {
		copy(blk[j*n:(j+1)*n], w.aq[l*n:(l+1)*n])
		for i := range m {
			w.c[j*m+i] = w.h[i*ld+l]
		}
	}
	w.subtractQ(blk, m, b)
	w.orthonormalise(m, b)
}

// orthonormalise makes the block Q[m:m+b] orthonormal and orthogonal to
// Q[:m]: classical Gram-Schmidt against Q[:m], repeated while a pass
// removes more than half of some vector's norm (Kahan and Parlett's "twice
// is enough": expand's subtraction of Q H is the first pass, so one more
// is the rule and a third the exception), then modified Gram-Schmidt
// within the block, twice. A vector that loses all but 1e-10 of its norm
// (it lay in the span already) is replaced by a pseudo-random one,
// orthogonalised the same way.
func (w *lanczosWork) orthonormalise(m, b int) {
	n := w.n
	blk := w.q[m*n : (m+b)*n]
	for j := range b {
		w.nrm[j] = floats.Norm(blk[j*n:(j+1)*n], 2)
	}
	w.orthogonalise(m, m, b)
	for j := 0; j < b; j++ {
		v := blk[j*n : (j+1)*n]
		for try := 0; ; try++ {
			for range 2 {
				for t := range j {
					u := blk[t*n : (t+1)*n]
					floats.AddScaled(v, -floats.Dot(u, v), u)
				}
			}
			nv := floats.Norm(v, 2)
			if nv > 1e-10*w.nrm[j] && nv > 0 {
				floats.Scale(1/nv, v)
				break
			}
			if try == 3 {
				panic("solver: lanczos cannot extend its basis") // n > 2 mMax: cannot happen
			}
			w.random(v)
			w.nrm[j] = floats.Norm(v, 2)
			w.orthogonalise(m, m+j, 1)
		}
	}
}

// orthogonalise removes from the rows Q[r:r+b] their components along
// Q[:m] by classical Gram-Schmidt: one pass, and another while a pass
// left some row with less than half its norm (at most 3 passes).
func (w *lanczosWork) orthogonalise(m, r, b int) {
	if m == 0 {
		return
	}
	n := w.n
	blk := w.q[r*n : (r+b)*n]
	before := w.nrm2[:b]
	for j := range b {
		before[j] = floats.Norm(blk[j*n:(j+1)*n], 2)
	}
	for pass := 0; pass < 3; pass++ {
		w.par(w.c, m, w.q, n, m, blk, n, b, n)
		w.subtractQ(blk, m, b)
		again := false
		for j := range b {
			after := floats.Norm(blk[j*n:(j+1)*n], 2)
			again = again || after < 0.5*before[j]
			before[j] = after
		}
		if !again {
			return
		}
	}
}

// project sets the rows and columns m..m+b of H from the new block of A Q:
// H[i, m+j] = q_i . (A q_{m+j}) for i < m+b.
func (w *lanczosWork) project(m, b int) {
	n, ld := w.n, w.ld()
	w.par(w.h[m*ld:], ld, w.q, n, m+b, w.aq[m*n:], n, b, n)
	for j := range b {
		for i := range m {
			w.h[i*ld+m+j] = w.h[(m+j)*ld+i]
		}
	}
}

// ritz diagonalises H[:m, :m], sets the top `keep` Ritz vectors and their
// products A Y (from A Q) in w.y and w.ay and their residual norms in
// w.res, and returns the Ritz values in descending order.
//
// The top `keep` eigenvectors S of H come from the tridiagonal reduction
// and inverse iteration (tridiagWork.Top, about a third of Dsyev's time
// at m = 196 with keep = 100: Dsyev accumulates every rotation of its QR
// sweeps into all m vectors), then one pass of modified Gram-Schmidt
// makes them orthonormal to rounding: inverse iteration makes vectors
// orthogonal within clusters of Ritz values closer than 1e-3 ||H|| only,
// and between them to about 1e3 eps, which the thick restart, taking
// Y^T A Y as diagonal, would carry into the residuals. Dsyev is the
// fallback when inverse iteration fails.
func (w *lanczosWork) ritz(m, keep int) ([]float64, error) {
	n, ld := w.n, w.ld()
	vals := w.w[:m]
	ok := false
	if w.rt == nil || !w.rt.DenseRitz {
		a := w.tri.a[:m*m]
		for i := range m {
			copy(a[i*m+i:(i+1)*m], w.h[i*ld+i:i*ld+m])
		}
		theta, Z, err := w.tri.Top(m, keep, nil)
		if ok = err == nil; ok {
			copy(vals, theta)
			for k := range keep {
				s := w.st[k*m : (k+1)*m]
				for i := range m {
					s[i] = Z[i*keep+k]
				}
				for q := range k {
					u := w.st[q*m : (q+1)*m]
					floats.AddScaled(s, -floats.Dot(u, s), u)
				}
				floats.Scale(1/floats.Norm(s, 2), s)
			}
		}
	}
	if !ok {
		hs := w.hs[:m*m]
		for i := range m {
			copy(hs[i*m+i:(i+1)*m], w.h[i*ld+i:i*ld+m])
		}
		if !lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: hs}, vals, w.work, len(w.work)) {
			return nil, numericalf("solver: symmetric eigendecomposition did not converge")
		}
		for k := range keep {
			for i := range m {
				w.st[k*m+i] = hs[i*m+m-1-k]
			}
		}
		// Descending, in place: vals[k] = theta_k.
		for i, j := 0, m-1; i < j; i, j = i+1, j-1 {
			vals[i], vals[j] = vals[j], vals[i]
		}
	}
	// Y = S^T Q and A Y = S^T (A Q), by rows of Q^T and (A Q)^T.
	w.par(w.y, n, w.qt, w.ld(), n, w.st, m, keep, m)
	w.par(w.ay, n, w.aqt, w.ld(), n, w.st, m, keep, m)
	for k := range keep {
		w.res[k] = w.residual(k, vals[k])
	}
	return vals, nil
}

// residual returns ||A y_k - theta y_k|| from w.ay and w.y.
func (w *lanczosWork) residual(k int, theta float64) float64 {
	n := w.n
	y, ay := w.y[k*n:(k+1)*n], w.ay[k*n:(k+1)*n]
	s := 0.0
	for i := range n {
		r := ay[i] - theta*y[i]
		s += r * r
	}
	return math.Sqrt(s)
}

// applyRows sets dst[j] = A z_j for the rows z_j of z (rows of n): the
// dot products of A's rows with z's (A symmetric).
func (w *lanczosWork) applyRows(dst, z []float64, b int) {
	w.products += b
	if w.op != nil {
		w.op.apply(dst, z, b, w.tasks)
		return
	}
	w.par(dst, w.n, w.a, w.lda, w.n, z, w.n, b, w.n)
}

// transpose copies the rows r0..r1 of src (rows of n) into the columns
// r0..r1 of dst (n x mMax): Q^T or (A Q)^T kept beside Q and A Q.
func (w *lanczosWork) transpose(dst, src []float64, r0, r1 int) {
	n, ld := w.n, w.ld()
	for r := r0; r < r1; r++ {
		for t, v := range src[r*n : (r+1)*n] {
			dst[t*ld+r] = v
		}
	}
}

// subtractQ sets the b rows of blk to blk - C Q[:m], for the coefficients
// C (b x m) in w.c: by dot products of Q^T's rows (w.qt, its first m
// columns set) with C's.
func (w *lanczosWork) subtractQ(blk []float64, m, b int) {
	n := w.n
	tmp := w.tmp[:b*n]
	w.par(tmp, n, w.qt, w.ld(), n, w.c, m, b, m)
	floats.Sub(blk[:b*n], tmp)
}

// par sets dst[j*ldd+i] = sum_{t<k} a[i*lda+t] z[j*ldz+t] for i < ni,
// j < nj: the products of A, Q or A Q with rows, and the dot products of
// Q's rows with a block, by dots on panels of rows of a, spread over the
// team's members when the work is large. Panels start at multiples of
// 3, so dots groups the rows of a panel as it groups them in one call
// over all ni rows: every entry is the same sum whatever the panels and
// the number of goroutines.
func (w *lanczosWork) par(dst []float64, ldd int, a []float64, lda, ni int, z []float64, ldz, nj, k int) {
	threads := w.tasks.Size()
	if threads < 2 || ni*nj*k < w.rt.parallel() {
		dots(dst, ldd, a, lda, ni, z, ldz, nj, k)
		return
	}
	// Panels of at most lanczosPanel rows, at least 4 per goroutine.
	rows := min(lanczosPanel, ((ni+4*threads-1)/(4*threads)+2)/3*3)
	w.job = dotsJob{dst: dst, ldd: ldd, a: a, lda: lda, ni: ni, z: z, ldz: ldz, nj: nj, k: k, rows: rows}
	w.tasks.Run((ni+rows-1)/rows, &w.job)
	w.job = dotsJob{}
}

// dotsJob is a call of par, task p its rows [p rows, (p+1) rows).
type dotsJob struct {
	dst        []float64
	ldd        int
	a          []float64
	lda, ni    int
	z          []float64
	ldz, nj, k int
	rows       int
}

func (j *dotsJob) RunTask(_, p int) {
	lo, hi := p*j.rows, min(j.ni, (p+1)*j.rows)
	dots(j.dst[lo:], j.ldd, j.a[lo*j.lda:], j.lda, hi-lo, j.z, j.ldz, j.nj, j.k)
}

// dots sets c[j*ldc+i] = sum_{t<k} a[i*lda+t] b[j*ldb+t] for i < ni,
// j < nj: every dot product of a row of a with a row of b. The sums go
// over chunks of gramChunkK in order, each chunk's by the kernel.Gram3x4 kernel
// (its 4 lanes, AVX2 where there is AVX2) plus a scalar tail, and by
// floats.Dot for the rows past the last full block of 3 x 4.
func dots(c []float64, ldc int, a []float64, lda, ni int, b []float64, ldb, nj, k int) {
	for j := range nj {
		clear(c[j*ldc : j*ldc+ni])
	}
	var out [12]float64
	for c0 := 0; c0 < k; c0 += gramChunkK {
		c1 := min(k, c0+gramChunkK)
		c4 := c0 + (c1-c0)&^3
		for i := 0; i < ni; i += 3 {
			for j := 0; j < nj; j += 4 {
				if i+3 <= ni && j+4 <= nj && c4 > c0 {
					tile3x4(&out, a[i*lda:], lda, b[j*ldb:], ldb, c0, c4, c1)
					for r := range 3 {
						for s := range 4 {
							c[(j+s)*ldc+i+r] += out[4*r+s]
						}
					}
					continue
				}
				for r := i; r < min(i+3, ni); r++ {
					for s := j; s < min(j+4, nj); s++ {
						c[s*ldc+r] += floats.Dot(a[r*lda+c0:r*lda+c1], b[s*ldb+c0:s*ldb+c1])
					}
				}
			}
		}
	}
}
