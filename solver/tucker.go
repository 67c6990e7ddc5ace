package solver

import (
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/eigen"
	"github.com/sompca/sompca/solver/internal/par"
)

// fitTucker fits the paper's tensor-to-tensor baselines, MPCA (Lu,
// Plataniotis and Venetsanopoulos 2008) and CSA (Xu et al. 2005):
//
//   - the full projection: for each mode n, the mode-n scatter
//     Phi^(n) = sum_m X_m(n) X_m(n)^T of the whole samples (MPCA: centred;
//     CSA: uncentred, i.e. energy);
//   - keep in each mode the fewest eigenvectors P_n whose eigenvalues hold
//     the fraction Q of that mode's total (Q = 97% by default); MPCA
//     starts from them, CSA from the first P_n unit vectors (Xu et al.);
//   - K alternating sweeps: Phi^(n) of the samples projected in every
//     other mode, U_n = its top P_n eigenvectors;
//   - the features are all prod_n P_n entries of the projected tensor,
//     ranked by captured variance (CSA: energy sum_m y_m^2), and the top P
//     are kept.
//
// Each entry (i_1, ..., i_N) of the projected tensor is the EMP
// {U_1[:, i_1], ..., U_N[:, i_N]}, so the model stores the features as a
// TVP like every other method; Extraction holds the entry's C-order index.
func (f *fitter) fitTucker() (*Model, error) {
	N := f.n
	var tw tuckerWork
	full := make([]*mat.Dense, N) // nil: the mode is not projected
	phi, err := f.modeScatters(&tw, full, nil, false)
	if err != nil {
		return nil, err
	}
	phiFull := make([]*mat.SymDense, N) // kept: the sweeps reuse tw's scatters
	for n := range N {
		phiFull[n] = mat.NewSymDense(f.shape[n], nil)
		phiFull[n].CopySym(phi[n])
	}
	U := make([]*mat.Dense, N)
	ranks := make([]int, N)
	for n := range N {
		var vals []float64
		if cerr := par.Interruptible(f.opts.Cancel, func() { _, vals, err = eigen.DenseTop(phi[n], 1) }); cerr != nil {
			return nil, cerr
		}
		if err != nil { // all eigenvalues, for the rank
			return nil, err
		}
		ranks[n] = rankForShare(vals, f.opts.Q)
		if f.spec.start == identityStart {
			// Xu et al. start CSA from the identity: the first P_n unit
			// vectors. (The reference fits agree to 1e-15 with this start;
			// from the eigenvectors they differ by 1e-9 after K = 20.)
			U[n] = mat.NewDense(f.shape[n], ranks[n], nil)
			for i := range ranks[n] {
				U[n].Set(i, i, 1)
			}
			continue
		}
		U[n] = mat.NewDense(f.shape[n], ranks[n], nil)
		if err = f.topVectorsInto(&tw, U[n], phi[n]); err != nil {
			return nil, err
		}
	}
	// A mode kept at rank P_k > I_k / 2 is projected as I - W W^T, W its
	// I_k - P_k complementary eigenvectors (see Pass.Complements).
	comp := make([]*mat.Dense, N)
	compBuf := make([]*mat.Dense, N) // comp's storage, reused by the sweeps
	none := new(mat.Dense)           // the empty complement, read only
	setComp := func(n int) {
		comp[n] = nil
		switch {
		case f.opts.routes.noComplements():
		case ranks[n] == f.shape[n]:
			comp[n] = none // U U^T = I: the full-projection shortcut
		case 2*ranks[n] > f.shape[n]:
			if compBuf[n] == nil {
				compBuf[n] = mat.NewDense(f.shape[n], f.shape[n]-ranks[n], nil)
			}
			comp[n] = compBuf[n]
			tw.eig.ComplementTo(comp[n], U[n])
		}
	}
	for n := range N {
		setComp(n)
	}
	proj, pc := make([]*mat.Dense, N), make([]*mat.Dense, N)
	for k := 0; k < f.opts.MaxIter; k++ {
		for n := range N {
			copy(proj, U)
			proj[n] = nil
			// When every other mode goes through its complement, the
			// unprojected term is the full mode scatter found above.
			// When every other mode is kept whole (U U^T = I, an empty
			// complement), the pass would add nothing to it: it is
			// skipped (MPCA on data whose every mode needs its full
			// rank for Q, such as the gait bench's, made K N passes
			// that only read the data).
			noFull, skip := true, !f.opts.routes.noSkip()
			for k := range N {
				if k != n {
					noFull = noFull && comp[k] != nil
					skip = skip && comp[k] == none
				}
			}
			var phiN *mat.SymDense
			if skip {
				phiN = tw.sym[n] // the pass's result: zero
				newSymAcc(f.shape[n], phiN.RawSymmetric().Data).clear()
			} else {
				copy(pc, comp)
				pc[n] = nil
				phi, err := f.modeScatters(&tw, proj, pc, noFull)
				if err != nil {
					return nil, err
				}
				phiN = phi[n]
			}
			if noFull {
				a, b := newSymAcc(f.shape[n], phiN.RawSymmetric().Data), newSymAcc(f.shape[n], phiFull[n].RawSymmetric().Data)
				a.add(b)
			}
			if err = f.topVectorsInto(&tw, U[n], phiN); err != nil {
				return nil, err
			}
			setComp(n)
		}
		if f.opts.Progress != nil && !f.opts.Progress(k+1, f.opts.MaxIter, 0) {
			return nil, ErrCanceled
		}
	}
	variance, energy, err := f.coreMoments(U)
	if err != nil {
		return nil, err
	}
	F := len(variance)
	floats.Scale(1/float64(f.m-1), variance)
	P := f.opts.Components
	if P == 0 {
		P = F
	}
	if P > F {
		return nil, errorf(ErrInvalid, "solver: %d features requested, but %v with Q = %v keeps mode ranks %v on samples of shape %v, which give at most %d", P, f.opts.Method, f.opts.Q, ranks, f.shape, F)
	}
	m := &Model{Ranks: ranks}
	if f.meanUsed != nil {
		m.Mean = append([]float64(nil), f.mean...)
	}
	for n := range N {
		m.Projections = append(m.Projections, mat.NewDense(f.shape[n], F, nil))
	}
	idx := make([]int, N)
	col := make([]float64, slices.Max(f.shape))
	for e := range F {
		for n := range N {
			m.Projections[n].SetCol(e, mat.Col(col[:f.shape[n]], idx[n], U[n]))
		}
		for n := N - 1; n >= 0; n-- { // next C-order multi-index
			if idx[n]++; idx[n] < ranks[n] {
				break
			}
			idx[n] = 0
		}
	}
	m.Variance = variance
	m.energy = energy
	m.Extraction = make([]int, F)
	m.Iterations = make([]int, F)
	for e := range F {
		m.Extraction[e] = e
		m.Iterations[e] = f.opts.MaxIter
	}
	// Keep the top P by the ranking key; Fit then orders them as asked.
	m.sortFeatures(ByVariance, f.spec.rankByEnergy)
	m.truncate(P)
	if f.spec.rankByEnergy {
		m.energy = make([]float64, P)
		for j, e := range m.Extraction {
			m.energy[j] = energy[e]
		}
	}
	return m, nil
}

// rankForShare returns the fewest leading values (descending) whose sum
// reaches the fraction q of the total.
func rankForShare(vals []float64, q float64) int {
	total := 0.0
	for _, v := range vals {
		total += max(v, 0)
	}
	sum := 0.0
	for i, v := range vals {
		sum += max(v, 0)
		if sum >= q*total {
			return i + 1
		}
	}
	return len(vals)
}

// projectModes sets out = x x_k U_k^T for every k with proj[k] != nil and
// returns out's shape. tmp is scratch of at least len(x); sc holds
// scratch for the transposes of modeProduct, grown as needed.
func projectModes(out, tmp, x []float64, dims []int, proj []*mat.Dense, sc *scratch) []int {
	cur := append(sc.cur[:0], dims...) // valid until projectModes' next call on sc
	sc.cur = cur
	src := x
	bufs := [2][]float64{out, tmp}
	which := 0
	for k, U := range proj {
		if U == nil {
			continue
		}
		_, pk := U.Dims()
		pre, post := 1, 1
		for _, d := range cur[:k] {
			pre *= d
		}
		for _, d := range cur[k+1:] {
			post *= d
		}
		dst := bufs[which][:pre*pk*post]
		modeProduct(dst, src, pre, cur[k], post, U, sc)
		cur[k] = pk
		src = dst
		which = 1 - which
	}
	if len(src) > 0 && &src[0] != &out[0] {
		copy(out, src)
	}
	return cur
}

// scratch is the space modeProduct and modeGram transpose into.
// cur is projectModes' result shape.
type scratch struct {
	a, b   []float64
	cur    []int
	routes *routes // the fit's route overrides (Workspace.ready sets it)
}

// unfold copies the tensor src (pre, d, post) into dst as the d x
// (pre post) matrix whose row i holds src[:, i, :]: the mode's unfolding,
// so that a mode product or a mode Gram matrix is one matrix product.
func unfold(dst, src []float64, pre, d, post int) {
	for a := range pre {
		for i := range d {
			copy(dst[i*pre*post+a*post:i*pre*post+(a+1)*post], src[(a*d+i)*post:(a*d+i+1)*post])
		}
	}
}

// modeProduct sets dst (pre, r, post) = src (pre, d, post) x U^T, U d x r:
// for post = 1 one product src U, for pre = 1 one product U^T src, and
// otherwise one product of U^T with src's unfolding, folded back, so that
// a block of samples costs a few large products rather than many small
// ones.
func modeProduct(dst, src []float64, pre, d, post int, U *mat.Dense, sc *scratch) {
	_, r := U.Dims()
	ur := U.RawMatrix()
	Um := blas64.General{Rows: d, Cols: r, Stride: ur.Stride, Data: ur.Data}
	switch {
	case post == 1 && r < modeProductNarrow && !sc.routes.noNarrow():
		narrowProduct(dst[:pre*r], src[:pre*d], pre, d, Um, sc)
	case post == 1:
		gemmSerial(blas.NoTrans, 1, blas64.General{Rows: pre, Cols: d, Stride: d, Data: src[:pre*d]}, Um,
			0, blas64.General{Rows: pre, Cols: r, Stride: r, Data: dst[:pre*r]})
	case pre == 1:
		gemmSerial(blas.Trans, 1, Um, blas64.General{Rows: d, Cols: post, Stride: post, Data: src[:d*post]},
			0, blas64.General{Rows: r, Cols: post, Stride: post, Data: dst[:r*post]})
	default:
		cols := pre * post
		sc.a, sc.b = grow(sc.a, d*cols), grow(sc.b, r*cols)
		unfold(sc.a, src, pre, d, post)
		gemmSerial(blas.Trans, 1, Um, blas64.General{Rows: d, Cols: cols, Stride: cols, Data: sc.a},
			0, blas64.General{Rows: r, Cols: cols, Stride: cols, Data: sc.b})
		for a := range pre {
			for j := range r {
				copy(dst[(a*r+j)*post:(a*r+j+1)*post], sc.b[j*cols+a*post:j*cols+(a+1)*post])
			}
		}
	}
}

// narrowProduct sets dst (rows x r) = src (rows x d) U, U d x r, as
// (U^T src^T)^T: src transposed into sc.a, one gemmSerial with op(A) =
// U^T (AXPYs of rows elements, d r of them), the result transposed back
// from sc.b. Every entry is summed over l in order, each product rounded
// before its addition, as by the NoTrans product; that one skips the
// zero entries of src, this one those of U, which for finite values
// changes nothing (a zero product leaves a sum that is not -0 as it is),
// so the bits are the same (TestNarrowProduct).
func narrowProduct(dst, src []float64, rows, d int, U blas64.General, sc *scratch) {
	r := U.Cols
	sc.a, sc.b = grow(sc.a, d*rows), grow(sc.b, r*rows)
	for i := range rows {
		for l, v := range src[i*d : (i+1)*d] {
			sc.a[l*rows+i] = v
		}
	}
	gemmSerial(blas.Trans, 1, U, blas64.General{Rows: d, Cols: rows, Stride: rows, Data: sc.a},
		0, blas64.General{Rows: r, Cols: rows, Stride: rows, Data: sc.b})
	for j := range r {
		for i, v := range sc.b[j*rows : (j+1)*rows] {
			dst[i*r+j] = v
		}
	}
}

// tuckerWork is the scratch space of a Tucker fit, sized by its first
// updates and reused by the sweeps, so that a sweep allocates nothing
// (TestAllocations): the pass's partial result, the mode scatters, the
// dense eigen path's and the complement's LAPACK work.
type tuckerWork struct {
	out  []float64
	phi  []*mat.SymDense // the scatters returned
	sym  []*mat.SymDense // their storage, per mode
	pass Pass
	eig  eigen.Work
}

// modeScatters makes one pass and returns, for every mode n with
// proj[n] == nil, the mode-n scatter sum_m Y_m(n) Y_m(n)^T of the samples
// projected in the other modes (centred for MPCA). The scatters are
// tw's, valid until its next use.
func (f *fitter) modeScatters(tw *tuckerWork, proj, comp []*mat.Dense, noFull bool) ([]*mat.SymDense, error) {
	tw.pass = Pass{Op: OpModeScatters, Shape: f.shape, Samples: f.m, Mean: f.meanUsed, Factors: proj, Complements: comp, NoFull: noFull}
	p := &tw.pass
	tw.out = grow(tw.out, p.PartialLen())
	out := tw.out[:p.PartialLen()]
	if err := f.pass(p, out); err != nil {
		return nil, err
	}
	if tw.phi == nil {
		tw.phi, tw.sym = make([]*mat.SymDense, f.n), make([]*mat.SymDense, f.n)
	}
	phi := tw.phi
	off := 0
	for n, U := range proj {
		phi[n] = nil
		if U == nil {
			d := f.shape[n]
			if tw.sym[n] == nil {
				tw.sym[n] = mat.NewSymDense(d, nil)
			}
			phi[n] = newSymAcc(d, out[off:]).toSym(tw.sym[n])
			off += d * d
		}
	}
	return phi, nil
}

// modeGram adds to acc (d x d, d = dims[n]) the mode-n Gram matrix
// alpha Y(n) Y(n)^T of the tensor y, as one symmetric rank-k update of its
// mode-n unfolding.
func modeGram(acc symAcc, alpha float64, y []float64, dims []int, n int, sc *scratch) {
	d := dims[n]
	pre, post := 1, 1
	for _, v := range dims[:n] {
		pre *= v
	}
	for _, v := range dims[n+1:] {
		post *= v
	}
	switch {
	case post == 1:
		acc.addGram(alpha, y[:pre*d], pre)
	case pre == 1:
		acc.addOuter(alpha, y[:d*post], post)
	default:
		sc.a = grow(sc.a, d*pre*post)
		unfold(sc.a, y, pre, d, post)
		acc.addOuter(alpha, sc.a, pre*post)
	}
}

// coreMoments makes one pass and returns, for every entry of the
// projected tensor, its scatter sum_m (y_m - mean)^2 over the samples and
// its energy sum_m y_m^2. Per-grain moments are merged in order (Chan et
// al.'s pairwise update), which stays accurate for uncentred CSA
// features.
func (f *fitter) coreMoments(U []*mat.Dense) (scatter, energy []float64, err error) {
	p := &Pass{Op: OpCoreMoments, Shape: f.shape, Samples: f.m, Mean: f.meanUsed, Factors: U}
	out := make([]float64, p.PartialLen())
	if err := f.pass(p, out); err != nil {
		return nil, nil, err
	}
	F := p.coreSize()
	return out[1+F : 1+2*F], out[1+2*F:], nil
}

// topVectorsInto sets U (I_n x P_n) to the top P_n eigenvectors of the
// mode scatter phi: for modes below eigen.DenseMinN by the dense
// eigendecomposition in tw's workspace (eigen.DenseTop's result, allocating
// nothing), else by eigen.TopEigenvectors (block Lanczos when P_n is a small
// fraction of I_n, else the tridiagonal path); under interruptible when
// the fit can be canceled.
func (f *fitter) topVectorsInto(tw *tuckerWork, U *mat.Dense, phi *mat.SymDense) error {
	n, r := U.Dims()
	if n >= eigen.DenseMinN {
		V, err := f.topVectors(phi, r)
		if err == nil {
			U.Copy(V)
		}
		return err
	}
	var ok bool
	if f.opts.Cancel == nil {
		ok = tw.eig.TopVectors(U, phi)
	} else {
		var err error
		if ok, err = denseInterruptible(f.opts.Cancel, &tw.eig, U, phi); err != nil {
			return err
		}
	}
	if !ok {
		return errorf(ErrNumerical, "solver: symmetric eigendecomposition did not converge")
	}
	return nil
}

// denseInterruptible runs e.topVectors(U, phi) under interruptible (a
// separate function, so that the closure does not move topVectorsInto's
// variables to the heap when the fit cannot be canceled). Once canceled,
// e is still in use by the abandoned computation: the fit ends there.
//
//go:noinline
func denseInterruptible(cancel func() bool, e *eigen.Work, U *mat.Dense, phi *mat.SymDense) (bool, error) {
	ok := false
	err := par.Interruptible(cancel, func() { ok = e.TopVectors(U, phi) })
	return ok, err
}

// topVectors returns the top r eigenvectors of a mode scatter, block
// Lanczos on the fit's team; the LAPACK paths, which cannot poll the
// cancellation, run under interruptible (eigen.TopEigenvectors).
func (f *fitter) topVectors(phi *mat.SymDense, r int) (*mat.Dense, error) {
	crew, done := f.crew()
	defer done()
	U, _, err := eigen.TopEigenvectors(phi, r, f.opts.Cancel, crew, f.opts.routes.eigenRoutes())
	return U, err
}
