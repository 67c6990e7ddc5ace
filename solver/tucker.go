package solver

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
	full := make([]*mat.Dense, N) // nil: the mode is not projected
	phi, err := f.modeScatters(full)
	if err != nil {
		return nil, err
	}
	U := make([]*mat.Dense, N)
	ranks := make([]int, N)
	for n := range N {
		_, vals, err := denseTop(phi[n], 1) // all eigenvalues, for the rank
		if err != nil {
			return nil, err
		}
		ranks[n] = rankForShare(vals, f.opts.Q)
		if f.opts.Method == CSA {
			// Xu et al. start CSA from the identity: the first P_n unit
			// vectors. (The reference fits agree to 1e-15 with this start;
			// from the eigenvectors they differ by 1e-9 after K = 20.)
			U[n] = mat.NewDense(f.shape[n], ranks[n], nil)
			for i := range ranks[n] {
				U[n].Set(i, i, 1)
			}
			continue
		}
		if U[n], _, err = topEigenvectors(phi[n], ranks[n]); err != nil {
			return nil, err
		}
	}
	for k := 0; k < f.opts.MaxIter; k++ {
		for n := range N {
			proj := append([]*mat.Dense(nil), U...)
			proj[n] = nil
			phi, err := f.modeScatters(proj)
			if err != nil {
				return nil, err
			}
			if U[n], _, err = topEigenvectors(phi[n], ranks[n]); err != nil {
				return nil, err
			}
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
	for e := range F {
		for n := range N {
			m.Projections[n].SetCol(e, mat.Col(nil, idx[n], U[n]))
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
	m.sortFeatures(ByVariance, f.opts.Method == CSA)
	m.truncate(P)
	if f.opts.Method == CSA {
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

// truncate keeps the first p features.
func (m *Model) truncate(p int) {
	m.Variance = m.Variance[:p]
	m.Extraction = m.Extraction[:p]
	m.Iterations = m.Iterations[:p]
	for n, U := range m.Projections {
		r, _ := U.Dims()
		m.Projections[n] = mat.DenseCopyOf(U.Slice(0, r, 0, p))
	}
}

// projectModes sets out = x x_k U_k^T for every k with proj[k] != nil and
// returns out's shape. tmp is scratch of at least len(x).
func projectModes(out, tmp, x []float64, dims []int, proj []*mat.Dense) []int {
	cur := append([]int(nil), dims...)
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
		ik := cur[k]
		ur := U.RawMatrix()
		for a := range pre {
			// dst block (pk x post) = U^T (pk x ik) * src block (ik x post)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1,
				blas64.General{Rows: ik, Cols: pk, Stride: ur.Stride, Data: ur.Data},
				blas64.General{Rows: ik, Cols: post, Stride: post, Data: src[a*ik*post : (a+1)*ik*post]},
				0, blas64.General{Rows: pk, Cols: post, Stride: post, Data: dst[a*pk*post : (a+1)*pk*post]})
		}
		cur[k] = pk
		src = dst
		which = 1 - which
	}
	if len(src) > 0 && &src[0] != &out[0] {
		copy(out, src)
	}
	return cur
}

// modeScatters makes one pass and returns, for every mode n with
// proj[n] == nil, the mode-n scatter sum_m Y_m(n) Y_m(n)^T of the samples
// projected in the other modes (centred for MPCA).
func (f *fitter) modeScatters(proj []*mat.Dense) ([]*mat.SymDense, error) {
	p := &Pass{Op: OpModeScatters, Shape: f.shape, Samples: f.m, Mean: f.meanUsed, Factors: proj}
	out := make([]float64, p.PartialLen())
	if err := f.pass(p, out); err != nil {
		return nil, err
	}
	phi := make([]*mat.SymDense, f.n)
	off := 0
	for n, U := range proj {
		if U == nil {
			d := f.shape[n]
			phi[n] = newSymAcc(d, out[off:]).toSym(nil)
			off += d * d
		}
	}
	return phi, nil
}

// modeGram adds to acc (d x d, d = dims[n]) the mode-n Gram matrix
// Y(n) Y(n)^T of the tensor y.
func modeGram(acc symAcc, y []float64, dims []int, n int) {
	d := dims[n]
	pre, post := 1, 1
	for _, v := range dims[:n] {
		pre *= v
	}
	for _, v := range dims[n+1:] {
		post *= v
	}
	for a := range pre {
		acc.addOuter(y[a*d*post:(a+1)*d*post], post)
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
