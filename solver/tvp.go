package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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

	work []*tvpWork
	eig  eigenSolver

	// z caches Z_m = X_m x_N u^(N) (M x prod_{n<N} I_n) for N >= 3 when it
	// fits in what Options.MemoryLimit leaves (see cacheFits): u^(N) stays fixed through modes
	// 1..N-1 of a sweep, so the mode-1 pass computes Z on its way and
	// modes 2..N-1 read Z, 1/I_N the size of X. A sweep then reads the
	// data twice instead of N times.
	z    []float64
	zrun *runner
}

// tvpWork is one goroutine's workspace, sized once per fit.
type tvpWork struct {
	c    *contractor
	cz   *contractor // over the first N-1 modes, for the cache z
	rows []float64   // grain x I_n partial projections
	g    []float64   // grain x p previous features (UMPCA)
	s    []float64   // I_n x I_n scatter of the grain
	a    []float64   // I_n x p cross term Y~ G of the grain (UMPCA)
	r    []float64   // p residual coefficients of one sample (TROD)
}

// tvpBound returns the largest number of EMPs the method can give and
// the default number.
func (f *fitter) tvpBound() (bound, def int) {
	minI, maxI := f.shape[0], f.shape[0]
	for _, d := range f.shape {
		minI, maxI = min(minI, d), max(maxI, d)
	}
	switch f.opts.Method {
	case SOMPCA:
		bound = f.shape[f.mode]
	case FOMPCA:
		bound = minI
	case UMPCA:
		bound = min(minI, f.m-1)
	case TROD:
		return f.size, min(maxI, f.size)
	}
	return bound, bound
}

func (f *fitter) fitTVP() (*Model, error) {
	bound, def := f.tvpBound()
	P := f.opts.Components
	if P == 0 {
		P = def
	}
	if P > bound {
		why := map[Method]string{
			SOMPCA: fmt.Sprintf("I_nu = %d (the size of orthogonal mode %d)", bound, f.mode),
			FOMPCA: fmt.Sprintf("min_n I_n = %d", bound),
			UMPCA:  fmt.Sprintf("min(min_n I_n, M-1) = %d", bound),
			TROD:   fmt.Sprintf("prod_n I_n = %d", bound),
		}[f.opts.Method]
		return nil, errorf(ErrInvalid, "solver: %d features requested, but %v on samples of shape %v gives at most %s", P, f.opts.Method, f.shape, why)
	}
	t := &tvpFit{fitter: f, p: P, nu: f.mode}
	maxI := 0
	for _, d := range f.shape {
		maxI = max(maxI, d)
	}
	if f.cacheFits() {
		zs := f.size / f.shape[f.n-1]
		t.z = make([]float64, f.m*zs)
		t.zrun = newRunner(must(NewSliceSource(t.z, f.m, f.shape[:f.n-1])), zs, f.run.threads)
	}
	for range f.run.threads {
		t.work = append(t.work, &tvpWork{
			c:    newContractor(f.shape),
			cz:   newContractor(f.shape[:max(f.n-1, 1)]),
			rows: make([]float64, grain*maxI),
			g:    make([]float64, grain*P),
			s:    make([]float64, maxI*maxI),
			a:    make([]float64, maxI*P),
			r:    make([]float64, P),
		})
	}
	t.u = make([][][]float64, P)
	t.y = make([][]float64, P)
	t.plain = make([][]float64, P)
	t.variance = make([]float64, P)
	t.hist = make([][]float64, P)
	t.modeHist = make([][]float64, P)
	t.iters = make([]int, P)
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

// uniform returns the normalised uniform vector 1/||1|| of length n.
func uniform(n int) []float64 {
	v := make([]float64, n)
	floats.AddConst(1/math.Sqrt(float64(n)), v)
	return v
}

// emp finds EMP p: uniform start, then K sweeps of mode updates
// (Algorithm 1, lines 5-14); with relaxed start the first EMP stays at
// the uniform start (line 3).
func (t *tvpFit) emp(p int) error {
	vs := make([][]float64, t.n)
	for n, d := range t.shape {
		vs[n] = uniform(d)
	}
	t.u[p] = vs
	needFeatures := t.opts.Method == UMPCA || t.opts.Method == TROD
	if t.opts.RelaxedStart && p == 0 {
		obj, err := t.evaluate(p)
		t.hist[p] = []float64{obj}
		return err
	}
	fixed := t.fixedConstraints(p)
	var lambda float64
	h := make([]float64, 0, t.opts.MaxIter+1)
	for k := 0; k < t.opts.MaxIter; k++ {
		for n := range t.n {
			S, A, err := t.scatter(p, n, vs)
			if err != nil {
				return err
			}
			if k == 0 && n == 0 {
				h = append(h, quadForm(S, vs[0]))
			}
			C := fixed[n]
			if t.opts.Method == UMPCA && p > 0 {
				C = orthonormalRange(A)
			}
			lambda, err = t.eig.top(vs[n], S, C, vs[n])
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

// fixedConstraints returns, for each mode, the orthonormal vectors that
// EMP p's mode vector must be orthogonal to: SO-MPCA's previous nu-mode
// vectors (Theorem 1), FO-MPCA's previous vectors in every mode. The
// previous vectors are orthonormal by construction.
func (t *tvpFit) fixedConstraints(p int) []*mat.Dense {
	C := make([]*mat.Dense, t.n)
	if p == 0 {
		return C
	}
	for n, d := range t.shape {
		if t.opts.Method == FOMPCA || (t.opts.Method == SOMPCA && n == t.nu) {
			c := mat.NewDense(d, p, nil)
			for q := range p {
				c.SetCol(q, t.u[q][n])
			}
			C[n] = c
		}
	}
	return C
}

func quadForm(S *mat.SymDense, v []float64) float64 {
	x := mat.NewVecDense(len(v), v)
	return mat.Inner(x, S, x)
}

// scatter makes one pass over the data and returns the total scatter
// matrix (eq. 11) of the mode-n partial projections (eq. 10) of EMP p with
// the vectors vs, and for UMPCA the cross term Y~ G with the previous
// EMPs' features. The partial projections are of the centred data (of the
// residual, uncentred, for TROD).
func (t *tvpFit) scatter(p, n int, vs [][]float64) (*mat.SymDense, *mat.Dense, error) {
	In := t.shape[n]
	var meanPart []float64
	if t.meanUsed != nil {
		meanPart = make([]float64, In)
		t.work[0].c.partial(meanPart, Block{F64: t.meanUsed}, n, vs)
	}
	// TROD deflation: the partial projection of the residual
	// X_m - sum_q r_mq u_q^(1) o ... o u_q^(N) is that of X_m minus
	// sum_q r_mq (prod_{k != n} <u_q^(k), vs[k]>) u_q^(n).
	var deflate *mat.Dense
	if t.opts.Method == TROD && p > 0 {
		deflate = mat.NewDense(In, p, nil)
		for q := range p {
			c := 1.0
			for k := range t.n {
				if k != n {
					c *= floats.Dot(t.u[q][k], vs[k])
				}
			}
			for i := range In {
				deflate.Set(i, q, c*t.u[q][n][i])
			}
		}
	}
	umpca := t.opts.Method == UMPCA && p > 0
	S := mat.NewSymDense(In, nil)
	var A *mat.Dense
	if umpca {
		A = mat.NewDense(In, p, nil)
	}
	sraw := S.RawSymmetric()
	// With the cache of Z_m = X_m x_N u^(N) (see tvpFit.z), the mode-1
	// pass fills it on its way and modes 2..N-1 read it instead of X.
	// The operations are the same as without it, so are the results.
	run, size, partial := t.run, t.size, func(ws *tvpWork, row []float64, x Block, m int) {
		ws.c.partial(row, x, n, vs)
	}
	if t.z != nil && n < t.n-1 {
		last := t.n - 1
		zs := t.size / t.shape[last]
		if n == 0 {
			partial = func(ws *tvpWork, row []float64, x Block, m int) {
				z := t.z[m*zs : (m+1)*zs]
				dotRows(z, x, zs, t.shape[last], vs[last])
				ws.cz.partial(row, Block{F64: z}, 0, vs[:last])
			}
		} else {
			run, size = t.zrun, zs
			partial = func(ws *tvpWork, row []float64, z Block, m int) {
				ws.cz.partial(row, z, n, vs[:last])
			}
		}
	}
	err := run.each(func(w, start int, x Block) {
		ws := t.work[w]
		cnt := x.elems() / size
		rows := ws.rows[:cnt*In]
		for i := range cnt {
			row := rows[i*In : (i+1)*In]
			partial(ws, row, x.slice(i*size, (i+1)*size), start+i)
			if meanPart != nil {
				floats.Sub(row, meanPart)
			}
			if deflate != nil {
				r := ws.r[:p]
				for q := range p {
					r[q] = t.y[q][start+i]
				}
				blas64.Gemv(blas.NoTrans, -1, deflate.RawMatrix(), blas64.Vector{N: p, Inc: 1, Data: r}, 1, blas64.Vector{N: In, Inc: 1, Data: row})
			}
		}
		Y := blas64.General{Rows: cnt, Cols: In, Stride: In, Data: rows}
		blas64.Syrk(blas.Trans, 1, Y, 0, blas64.Symmetric{Uplo: blas.Upper, N: In, Stride: In, Data: ws.s[:In*In]})
		if umpca {
			g := ws.g[:cnt*p]
			for i := range cnt {
				for q := range p {
					g[i*p+q] = t.y[q][start+i]
				}
			}
			G := blas64.General{Rows: cnt, Cols: p, Stride: p, Data: g}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, Y, G, 0, blas64.General{Rows: In, Cols: p, Stride: p, Data: ws.a[:In*p]})
		}
	}, func(w int) {
		ws := t.work[w]
		for i := range In {
			floats.Add(sraw.Data[i*sraw.Stride+i:i*sraw.Stride+In], ws.s[i*In+i:i*In+In])
		}
		if umpca {
			floats.Add(A.RawMatrix().Data, ws.a[:In*p])
		}
	})
	return S, A, err
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
		meanProj = t.work[0].c.full(Block{F64: t.meanUsed}, vs)
	}
	trod := t.opts.Method == TROD
	var overlap []float64 // prod_k <u_q^(k), u_p^(k)>
	if trod {
		overlap = make([]float64, p)
		for q := range p {
			overlap[q] = 1
			for k := range t.n {
				overlap[q] *= floats.Dot(t.u[q][k], vs[k])
			}
		}
		t.plain[p] = make([]float64, t.m)
	}
	y := make([]float64, t.m)
	err := t.run.each(func(w, start int, x Block) {
		ws := t.work[w]
		cnt := x.elems() / t.size
		for i := range cnt {
			m := start + i
			v := ws.c.full(x.slice(i*t.size, (i+1)*t.size), vs) - meanProj
			if trod {
				t.plain[p][m] = v
				for q := range p {
					v -= t.y[q][m] * overlap[q]
				}
			}
			y[m] = v
		}
	}, nil)
	if err != nil {
		return 0, err
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
