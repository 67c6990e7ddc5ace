package solver

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/eigen"
)

// tvpFit is the one successive-EMP engine (Sec. 3.2, Algorithm 1) behind
// SO-MPCA, FO-MPCA, TROD and UMPCA, with or without relaxed start. The
// methods differ only in the constraint put on each mode update and in
// TROD's deflation; see constraint and scatter.
type tvpFit struct {
	*fitter
	p  int // number of EMPs P
	nu int // 0-based orthogonal mode of SO-MPCA, -1 otherwise

	u        [][][]float64 // u[p][n]: the mode-n vector of EMP p
	y        [][]float64   // y[p][m]: UMPCA's features, TROD's residual coefficients
	plain    [][]float64   // TROD's features: projections of the undeflated data
	variance []float64     // S_p/(M-1)
	hist     [][]float64   // objective at the start and after each sweep
	modeHist [][]float64   // objective after each mode update (for tests)
	iters    []int

	eig eigen.Solver

	pass     Pass // the partial-projections pass, reused
	projPass Pass // the projection pass, reused
	// the partial-projections pass's offset and deflation matrix
	offsetBuf, deflateBuf []float64
	offset                passOffset // has the local engine's pass compute its offset
	meanProj              [1]float64 // the projection pass's offset
	overlap               []float64  // TROD's overlaps of the previous EMPs with the current one
	// fixed[n] holds the previous EMPs' mode-n vectors for a constrained
	// mode as its rows (P x I_n, used as p x I_n: eigen.Solver's R);
	// constraint is the per-mode view.
	fixed, constraint []*mat.Dense
	// UMPCA's cross term Y^T G (storage I_n x P), the features G (M x P)
	// it is formed from, the scratch of its range, and that range as rows
	// (storage P x I_n).
	umpcaG, umpcaA, umpcaR []float64
	umpcaCross, umpcaRows  mat.Dense
	svd                    eigen.SVDWork

	// ys holds the mode-n partial projections of every sample (M x I_n,
	// centred, deflated for TROD): the mode update finds its eigenvector
	// from them (eigen.Solver.topGram) without forming the I_n x I_n
	// scatter unless that is cheaper. They are part of the workspace, so
	// the fit does not depend on the memory limit. With scatter updates
	// (fitter.scatterUpdates) ys is nil and the pass folds the scatter
	// into S[n] instead.
	ys   []float64
	S    []*mat.SymDense // per mode: the scatter of the last scatter pass
	acc  []float64       // that pass's folded partial
	hint []int           // per mode: Krylov products of its last update (see topGram)

	// start holds the partial projections for the first mode (n = 0) at
	// the uniform start (M x I_1), once startSet: every EMP's first pass
	// (its first sweep's n = 0) contracts the data with the same uniform
	// vectors in every other mode and subtracts the same offset, so the
	// fit makes them once and the later EMPs copy them (see partials).
	// Nil with scatter updates and for TROD, whose deflation changes them
	// from EMP to EMP.
	start    []float64
	startSet bool
}

func (f *fitter) fitTVP() (*Model, error) {
	bound, def, why := f.spec.bound(f)
	P := f.opts.Components
	if P == 0 {
		P = def
	}
	if P > bound {
		return nil, errorf(ErrInvalid, "solver: %d features requested, but %v on samples of shape %v gives at most %s", P, f.opts.Method, f.shape, why)
	}
	t := &tvpFit{fitter: f, p: P, nu: f.mode}
	// SO-MPCA's and FO-MPCA's constraints stay fixed through an EMP's
	// sweeps; UMPCA's change every update.
	cfg := eigen.Config{Threads: f.opts.Threads, Cancel: f.opts.Cancel, FixedRows: t.spec.constraint != uncorrelated, Routes: f.opts.routes.eigenRoutes()}
	if f.run != nil {
		cfg.Team = f.run.team() // the passes' goroutines run the products too
		// the rows passes' reads (0: one read of all), for the layout
		// of S's formation and the products (gramOp.layout)
		if b := f.run.rowsBlock(); b < f.m {
			cfg.Block = b
		}
	}
	t.eig.Init(cfg)
	if f.scatterUpdates {
		t.S = make([]*mat.SymDense, f.n)
	} else {
		t.ys = make([]float64, f.m*slices.Max(f.shape)) // counted in workspaceBytes
	}
	t.hint = make([]int, f.n)
	// The cache of Z_m = X_m x_k u^(k) (M x prod_{j != k} I_j) for N >= 3,
	// when it fits in what Options.MemoryLimit leaves (see cacheFits):
	// u^(k) stays fixed through the updates the cache serves, so the pass
	// that reads the samples computes Z on its way and the next passes
	// read Z, 1/I_k the size of X. A sweep then reads the data 2 times
	// (float32 values: k = 1), or N/(N-1) times (see tvpFit.lead, and
	// runner.runCached, Pass.usesCache). The cache is sized for the
	// longest rows that fit; passes with longer ones read the samples.
	room := f.spare
	if f.run != nil && f.cacheFits() {
		zs := cacheRow(f.shape)
		if !f.float32Values {
			for _, d := range f.shape {
				if r := f.size / d; r > zs && int64(f.m)*int64(r)*8 <= room {
					zs = r
				}
			}
		}
		f.run.z = make([]float64, f.m*zs)
		room -= int64(len(f.run.z)) * 8
		// A fit whose cached mode rotates (tvpFit.lead) starts every EMP
		// with a run of updates served by the samples contracted in mode
		// k = lead(0, 0) - 1 with the uniform u^(k): the same for every
		// EMP, so the runner keeps the first EMP's fill of it (runner.kept)
		// and the later ones read it rather than the samples: K N / (N-1)
		// - 1 sample passes an EMP instead of K N / (N-1) (gait, K = 20:
		// 29 of 30). It takes what the memory limit leaves beside z; it
		// saves nothing unless two EMPs sweep.
		sweeping := P - b2i(f.opts.RelaxedStart)
		if l := t.lead(0, 0); !f.opts.routes.noKeepStart() && l > 0 && sweeping >= 2 {
			if kz := f.m * (f.size / f.shape[l-1]); int64(kz)*8 <= room {
				f.run.kept, f.run.keptValid, f.run.keepNext = make([]float64, kz), false, true
				room -= int64(kz) * 8
			}
		}
	}
	// The partial projections at the uniform start (tvpFit.start) save a
	// pass per EMP, less than the cache does: they take what the memory
	// limit leaves beside it, and the fit makes them anew when that is
	// too little (the same bits either way), or when they would be a
	// sizable share of the samples (startMinRest). A sweep whose cache
	// mode rotates (tvpFit.lead) keeps none: its second update needs the
	// samples contracted in mode N with the uniform u^(N), which it would
	// read anyway, and its first is then served by that pass (K N / (N-1)
	// sample passes an EMP either way).
	if !f.opts.routes.noKeepStart() && !f.scatterUpdates && !f.spec.deflate && t.lead(0, 0) == 0 && f.size/f.shape[0] >= startMinRest && int64(f.m)*int64(f.shape[0])*8 <= room {
		t.start = make([]float64, f.m*f.shape[0])
	}
	t.allocate(P)
	defer t.eig.Close()
	for p := range P {
		if err := t.emp(p); err != nil {
			return nil, err
		}
		if f.opts.Progress != nil && !f.opts.Progress(p+1, P, t.variance[p]) {
			return nil, ErrCanceled
		}
	}
	return t.model(), nil
}

// allocate sizes, once per fit, everything the P EMPs fill: their
// vectors, features, histories and the workspaces of their updates, so
// that no EMP and no sweep allocates (TestAllocations).
func (t *tvpFit) allocate(P int) {
	K, maxI, sumI := t.opts.MaxIter, 0, 0
	for _, d := range t.shape {
		maxI, sumI = max(maxI, d), sumI+d
	}
	t.u = make([][][]float64, P)
	vecs, views := make([]float64, P*sumI), make([][]float64, P*t.n)
	for p := range P {
		t.u[p] = views[p*t.n : (p+1)*t.n : (p+1)*t.n]
		for n, d := range t.shape {
			t.u[p][n], vecs = vecs[:d:d], vecs[d:]
		}
	}
	// Features: UMPCA's and TROD's, and every method's relaxed-start EMP
	// (evaluate writes them).
	t.y = make([][]float64, P)
	y := make([]float64, P*t.m)
	for p := range P {
		t.y[p] = y[p*t.m : (p+1)*t.m : (p+1)*t.m]
	}
	t.plain = make([][]float64, P)
	if t.spec.deflate {
		plain := make([]float64, P*t.m)
		for p := range P {
			t.plain[p] = plain[p*t.m : (p+1)*t.m : (p+1)*t.m]
		}
	}
	t.variance = make([]float64, P)
	t.hist = make([][]float64, P)
	hist := make([]float64, P*(K+1))
	t.modeHist = make([][]float64, P)
	modeHist := make([]float64, P*K*t.n)
	for p := range P {
		t.hist[p] = hist[p*(K+1) : p*(K+1) : (p+1)*(K+1)]
		t.modeHist[p] = modeHist[p*K*t.n : p*K*t.n : (p+1)*K*t.n]
	}
	t.iters = make([]int, P)
	t.overlap = make([]float64, P)
	t.fixed = make([]*mat.Dense, t.n)
	t.constraint = make([]*mat.Dense, t.n)
	for n, d := range t.shape {
		if t.spec.orthogonalIn(n, t.nu) {
			t.fixed[n] = mat.NewDense(P, d, nil)
		}
	}
	if t.spec.constraint == uncorrelated {
		t.umpcaG, t.umpcaA, t.umpcaR = make([]float64, t.m*P), make([]float64, maxI*P), make([]float64, maxI*P)
		t.svd.Reserve(t.shape, P)
	}
	t.offsetBuf = make([]float64, maxI)
	t.deflateBuf = make([]float64, maxI*P)
	if t.run != nil {
		for _, ws := range t.run.ws {
			ws.g = grow(ws.g, grain*max(P, 1))
		}
	}
}

// emp finds EMP p: uniform start, then K sweeps of mode updates
// (Algorithm 1, lines 5-14); with relaxed start the first EMP stays at
// the uniform start (line 3).
func (t *tvpFit) emp(p int) error {
	vs := t.u[p]
	for n, d := range t.shape {
		// the normalised uniform vector 1/||1||
		clear(vs[n])
		floats.AddConst(1/math.Sqrt(float64(d)), vs[n])
	}
	needFeatures := t.spec.keepsFeatures()
	if t.opts.RelaxedStart && p == 0 {
		obj, err := t.evaluate(p)
		t.hist[p] = append(t.hist[p], obj)
		return err
	}
	fixed := t.fixedConstraints(p)
	var lambda float64
	h := t.hist[p]
	for k := 0; k < t.opts.MaxIter; k++ {
		for n := range t.n {
			A, err := t.partials(p, k, n, vs)
			if err != nil {
				return err
			}
			if k == 0 && n == 0 {
				h = append(h, t.quad(vs[0]))
			}
			C := fixed[n]
			umpca := t.spec.constraint == uncorrelated && p > 0
			if umpca {
				C = t.rows(t.svd.OrthonormalRange(A.RawMatrix(), t.crossFloor(p, n)))
			}
			lambda, err = t.update(n, vs[n], C)
			if err == nil && umpca && C != nil && n < t.n-1 && !(lambda > umpcaDeadMode*t.scatterTrace(n)) {
				// The constraint leaves this mode nothing but zero variance
				// (a constant mode meeting a real constraint): the update
				// goes unconstrained, and the sweep's later modes, the last
				// always constrained, make the feature uncorrelated.
				lambda, err = t.update(n, vs[n], nil)
			}
			if err != nil {
				return fmt.Errorf("solver: EMP %d, mode %d: %w", p+1, n, err)
			}
			t.modeHist[p] = append(t.modeHist[p], lambda)
		}
		h = append(h, lambda)
		t.iters[p] = k + 1
		if prev := h[len(h)-2]; t.opts.Tol > 0 && math.Abs(lambda-prev) <= t.opts.Tol*math.Abs(prev) {
			break
		}
	}
	t.hist[p] = h
	t.variance[p] = lambda / float64(t.m-1)
	if needFeatures {
		_, err := t.evaluate(p)
		return err
	}
	return nil
}

// crossFloor returns the size below which a singular value of UMPCA's
// cross term A = Y~ G (the I_n x M mode-n partial projections times the
// M x p previous features) is rounding: (M + I_n) eps ||Y~||_F ||G||_F.
// A column of A that small says that the feature is already uncorrelated
// with that previous one whatever this mode's vector: the constraint
// then holds in the whole space, and is dropped rather than turned, by
// the relative rank test alone, into a direction the vector must avoid.
// When a mode is constant (every partial projection a multiple of 1), A
// is such a column of rounding along 1 once the other modes have made
// the feature uncorrelated, and avoiding 1 would leave only features of
// zero variance.
func (t *tvpFit) crossFloor(p, n int) float64 {
	gg := 0.0
	for q := range p {
		gg += floats.Dot(t.y[q], t.y[q])
	}
	return float64(t.m+t.shape[n]) * 0x1p-52 * math.Sqrt(t.scatterTrace(n)) * math.Sqrt(gg)
}

// scatterTrace returns the trace of the mode-n scatter of the last
// partials: ||Y~||_F^2, the sum of its eigenvalues.
func (t *tvpFit) scatterTrace(n int) float64 {
	In := t.shape[n]
	if t.S != nil {
		tr := 0.0
		for i := range In {
			tr += t.S[n].At(i, i)
		}
		return tr
	}
	Y := t.ys[:t.m*In]
	return floats.Dot(Y, Y)
}

// update sets v to the top eigenvector of the mode-n scatter under the
// constraint rows C (nil: none), from v, and returns its eigenvalue.
func (t *tvpFit) update(n int, v []float64, C *mat.Dense) (float64, error) {
	if t.S != nil {
		return t.eig.Top(v, t.S[n], C, v, &t.hint[n])
	}
	return t.eig.TopGram(v, t.ys[:t.m*t.shape[n]], C, v, &t.hint[n])
}

// rows returns UMPCA's constraint C (I_n x r, orthonormal columns; nil:
// none) as the rows R = C^T that eigen.Solver takes, in storage sized once
// per fit.
func (t *tvpFit) rows(C *mat.Dense) *mat.Dense {
	if C == nil {
		return nil
	}
	n, r := C.Dims()
	R := t.umpcaR[:r*n]
	for i := range n {
		for q, x := range C.RawRowView(i) {
			R[q*n+i] = x
		}
	}
	t.umpcaRows.SetRawMatrix(blas64.General{Rows: r, Cols: n, Stride: n, Data: R})
	return &t.umpcaRows
}

// fixedConstraints returns, for each mode, the orthonormal vectors that
// EMP p's mode vector must be orthogonal to, as the rows of a p x I_n
// matrix: SO-MPCA's previous nu-mode vectors (Theorem 1), FO-MPCA's
// previous vectors in every mode. The previous vectors are orthonormal by
// construction.
func (t *tvpFit) fixedConstraints(p int) []*mat.Dense {
	C := t.constraint
	clear(C)
	if p == 0 {
		return C
	}
	for n, d := range t.shape {
		if c := t.fixed[n]; c != nil {
			// The p x d matrix of the previous vectors, in the storage of
			// the P x d one allocated once per fit.
			c.Reset()
			c.ReuseAs(p, d)
			for q := range p {
				c.SetRow(q, t.u[q][n])
			}
			C[n] = c
		}
	}
	return C
}

// quad returns v^T S v = ||Y v||^2 for the scatter S = Y^T Y of the
// mode-0 partial projections Y in t.ys (or S in t.S[0]).
func (t *tvpFit) quad(v []float64) float64 {
	if t.S != nil {
		x := mat.NewVecDense(len(v), v)
		return mat.Inner(x, t.S[0], x)
	}
	q := 0.0
	for r := range t.m {
		d := floats.Dot(t.ys[r*len(v):(r+1)*len(v)], v)
		q += d * d
	}
	return q
}

// lead returns the Pass.Lead of the mode-n update of sweep k: which mode
// the samples are contracted in first, so that one pass over the samples
// serves as many updates as it can. A cache of X_m x_j u^(j) serves every
// update up to the next of mode j; the longest run is N-1 updates, from
// the update after mode j's. So the updates, numbered t = kN + n within
// an EMP, go in runs of N-1: the run from t0 (a multiple of N-1)
// contracts mode j = t0 - 1 mod N first, its first pass reads the
// samples and fills the cache, the other N-2 read the cache: N/(N-1)
// passes over the samples a sweep (gait, N = 3: 3 every 2 sweeps)
// instead of 2. The first contraction then runs over each mode in turn;
// over modes past the first it takes rows as short as I_N (gait: 10
// values), which costs more work than mode 1's: the exact uint8 kernels
// take 2.6-3.4 times as long (1.3 and 1.7 against 0.5 ms a pass of the
// 731 gait samples, 1 thread), and float32 passes, read from L3 (gait:
// 20 MB), are not bound by the memory either (2 threads, gait float32:
// 0.62 / 0.68 s a fit with Lead 0, 0.74 / 1.02 rotated). So samples
// whose values are all float32 values (fitter.float32Values; uint8
// values are) keep Lead 0, mode 1 first for n >= 1 and the Kronecker
// dot for n = 0 (2 passes a sweep); only samples that need float64, read
// at 8 bytes a value and bound by the memory, rotate. The order is a
// function of (k, n, the shape, whether the values are all float32
// values): of the data, never of the path or the memory limit (narrowing
// reads float32 values as float32 exactly when they all are), so the
// cache changes only the speed.
func (t *tvpFit) lead(k, n int) int {
	N := t.n
	if N < 3 || t.float32Values || t.opts.routes.noRotate() {
		return 0
	}
	u := k*N + n
	u0 := u - u%(N-1)
	return (u0+N-1)%N + 1
}

// partials makes one pass over the data and writes to t.ys the mode-n
// partial projections (eq. 10) of EMP p with the vectors vs in sweep k,
// whose total scatter (eq. 11) the mode update maximises, or with scatter
// updates that scatter itself to t.S[n], and returns for UMPCA the cross
// term Y~ G with the previous EMPs' features. The partial projections are
// of the centred data (of the residual, uncentred, for TROD). At the
// uniform start (n = 0 in an EMP's first sweep) the projections are
// t.start's when it holds them, and are kept there when it does not yet.
func (t *tvpFit) partials(p, k, n int, vs [][]float64) (*mat.Dense, error) {
	In := t.shape[n]
	start := k == 0 && n == 0
	ps := &t.pass
	*ps = Pass{Op: OpModeScatter, Shape: t.shape, Samples: t.m, Mode: n, Vectors: vs, Lead: t.lead(k, n)}
	if t.meanUsed != nil {
		ps.Offset = t.offsetBuf[:In]
		if t.run != nil {
			// the local engine's pass computes it (passOffset)
			t.offset.reset(t.meanUsed)
			ps.offset = &t.offset
		} else {
			t.c.partial(ps.Offset, Block{F64: t.meanUsed}, n, vs)
		}
	}
	// TROD deflation: the partial projection of the residual
	// X_m - sum_q r_mq u_q^(1) o ... o u_q^(N) is that of X_m minus
	// sum_q r_mq (prod_{k != n} <u_q^(k), vs[k]>) u_q^(n).
	if t.spec.deflate && p > 0 {
		ps.Deflate = t.deflateBuf[:In*p]
		ps.Coef = t.y[:p]
		for q := range p {
			c := 1.0
			for k := range t.n {
				if k != n {
					c *= floats.Dot(t.u[q][k], vs[k])
				}
			}
			for i := range In {
				ps.Deflate[i*p+q] = c * t.u[q][n][i]
			}
		}
	}
	umpca := t.spec.constraint == uncorrelated && p > 0
	if t.S != nil {
		// The scatter and, for UMPCA, the cross term, folded by the pass.
		if umpca {
			ps.Cross, ps.Coef = true, t.y[:p]
		}
		t.acc = grow(t.acc, ps.PartialLen())
		if err := t.fitter.pass(ps, t.acc); err != nil {
			return nil, err
		}
		t.S[n] = newSymAcc(In, t.acc).toSym(t.S[n])
		if !umpca {
			return nil, nil
		}
		return mat.NewDense(In, p, append([]float64(nil), t.acc[In*In:]...)), nil
	}
	// The rows themselves (OpModeRows); their scatter is left to topGram.
	ps.Op = OpModeRows
	Y := t.ys[:t.m*In]
	start = start && t.start != nil
	if start && t.startSet {
		copy(Y, t.start)
	} else {
		if err := t.fitter.pass(ps, Y); err != nil {
			return nil, err
		}
		if start {
			copy(t.start, Y)
			t.startSet = true
		}
	}
	if !umpca {
		return nil, nil
	}
	// A = Y^T G, G (M x p) the previous EMPs' features by columns, by the
	// product mat.Dense.Mul makes, into storage sized once per fit.
	G := blas64.General{Rows: t.m, Cols: p, Stride: p, Data: t.umpcaG[:t.m*p]}
	for q := range p {
		for m, v := range t.y[q] {
			G.Data[m*p+q] = v
		}
	}
	A := blas64.General{Rows: In, Cols: p, Stride: p, Data: t.umpcaA[:In*p]}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: t.m, Cols: In, Stride: In, Data: Y}, G, 0, A)
	t.umpcaCross.SetRawMatrix(A)
	return &t.umpcaCross, nil
}

// evaluate makes one pass computing EMP p's projection of every training
// sample: UMPCA keeps them as features (centred data), TROD keeps the
// projections of the undeflated data as features and those of the
// residual as deflation coefficients. It sets the EMP's captured variance
// and returns its objective (TROD: the residual energy; otherwise S_p).
func (t *tvpFit) evaluate(p int) (float64, error) {
	vs := t.u[p]
	meanProj := 0.0
	if t.meanUsed != nil {
		meanProj = t.c.full(Block{F64: t.meanUsed}, vs)
	}
	y := t.y[p]
	t.meanProj[0] = meanProj
	t.projPass = Pass{Op: OpProject, Shape: t.shape, Samples: t.m, Vectors: vs, Offset: t.meanProj[:]}
	if err := t.fitter.pass(&t.projPass, y); err != nil {
		return 0, err
	}
	trod := t.spec.deflate
	if trod {
		// The projections of the undeflated data are the features; those
		// of the residual, the deflation coefficients.
		overlap := t.overlap[:p] // prod_k <u_q^(k), u_p^(k)>
		for q := range p {
			overlap[q] = 1
			for k := range t.n {
				overlap[q] *= floats.Dot(t.u[q][k], vs[k])
			}
		}
		copy(t.plain[p], y)
		for m := range y {
			for q := range p {
				y[m] -= t.y[q][m] * overlap[q]
			}
		}
	}
	t.y[p] = y
	feat := y
	if trod {
		feat = t.plain[p]
	}
	t.variance[p] = scatterOf(feat) / float64(t.m-1)
	if trod {
		return floats.Dot(y, y), nil
	}
	return t.variance[p] * float64(t.m-1), nil
}

// scatterOf returns sum_m (x_m - mean(x))^2.
func scatterOf(x []float64) float64 {
	mu := floats.Sum(x) / float64(len(x))
	s := 0.0
	for _, v := range x {
		d := v - mu
		s += d * d
	}
	return s
}

func (t *tvpFit) model() *Model {
	m := &Model{Mean: append([]float64(nil), t.mean...)}
	if t.meanUsed == nil {
		m.Mean = make([]float64, t.size)
	}
	for n, d := range t.shape {
		U := mat.NewDense(d, t.p, nil)
		for p := range t.p {
			U.SetCol(p, t.u[p][n])
		}
		m.Projections = append(m.Projections, U)
	}
	m.Variance = append([]float64(nil), t.variance...)
	m.Extraction = make([]int, t.p)
	for p := range m.Extraction {
		m.Extraction[p] = p
	}
	m.Iterations = append([]int(nil), t.iters...)
	m.History = t.hist
	return m
}
