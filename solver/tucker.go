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
		_, vals, err := topEigenvectors(phi[n], 1)
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

// tuckerWork is one goroutine's workspace for the MPCA/CSA passes.
type tuckerWork struct {
	x, y, tmp []float64
	phi       [][]float64
}

// modeScatters makes one pass and returns, for every mode n with
// proj[n] == nil, the mode-n scatter sum_m Y_m(n) Y_m(n)^T of the samples
// projected in the other modes (centred for MPCA).
func (f *fitter) modeScatters(proj []*mat.Dense) ([]*mat.SymDense, error) {
	N := f.n
	work := make([]*tuckerWork, f.run.threads)
	for i := range work {
		w := &tuckerWork{x: make([]float64, f.size), y: make([]float64, f.size), tmp: make([]float64, f.size), phi: make([][]float64, N)}
		for n := range N {
			if proj[n] == nil {
				w.phi[n] = make([]float64, f.shape[n]*f.shape[n])
			}
		}
		work[i] = w
	}
	phi := make([]*mat.SymDense, N)
	for n := range N {
		if proj[n] == nil {
			phi[n] = mat.NewSymDense(f.shape[n], nil)
		}
	}
	err := f.run.each(func(wi, start int, x Block) {
		w := work[wi]
		for n := range N {
			clear(w.phi[n])
		}
		cnt := x.elems() / f.size
		for i := range cnt {
			f.sampleF64(w.x, x, i)
			dims := projectModes(w.y, w.tmp, w.x, f.shape, proj)
			size := 1
			for _, d := range dims {
				size *= d
			}
			y := w.y[:size]
			for n := range N {
				if proj[n] == nil {
					modeGram(w.phi[n], y, dims, n)
				}
			}
		}
	}, func(wi int) {
		for n := range N {
			if proj[n] != nil {
				continue
			}
			raw := phi[n].RawSymmetric()
			d := f.shape[n]
			for i := range d {
				floats.Add(raw.Data[i*raw.Stride+i:i*raw.Stride+d], work[wi].phi[n][i*d+i:i*d+d])
			}
		}
	})
	return phi, err
}

// sampleF64 writes sample i of x, centred when the method centres, to dst.
func (f *fitter) sampleF64(dst []float64, x Block, i int) {
	for j := range f.size {
		dst[j] = x.at(i*f.size + j)
	}
	if f.meanUsed != nil {
		floats.Sub(dst, f.meanUsed)
	}
}

// modeGram adds to the upper triangle of acc (d x d, d = dims[n]) the
// mode-n Gram matrix Y(n) Y(n)^T of the tensor y.
func modeGram(acc, y []float64, dims []int, n int) {
	d := dims[n]
	pre, post := 1, 1
	for _, v := range dims[:n] {
		pre *= v
	}
	for _, v := range dims[n+1:] {
		post *= v
	}
	for a := range pre {
		B := blas64.General{Rows: d, Cols: post, Stride: post, Data: y[a*d*post : (a+1)*d*post]}
		blas64.Syrk(blas.NoTrans, 1, B, 1, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: acc})
	}
}

// coreMoments makes one pass and returns, for every entry of the
// projected tensor, its scatter sum_m (y_m - mean)^2 over the samples and
// its energy sum_m y_m^2. Per-grain moments are merged in order (Chan et
// al.'s pairwise update), which stays accurate for uncentred CSA
// features.
func (f *fitter) coreMoments(U []*mat.Dense) (scatter, energy []float64, err error) {
	F := 1
	for _, u := range U {
		_, r := u.Dims()
		F *= r
	}
	type part struct {
		n            float64
		mean, m2, sq []float64
		x, y, tmp    []float64
		rows         []float64
	}
	parts := make([]*part, f.run.threads)
	for i := range parts {
		parts[i] = &part{mean: make([]float64, F), m2: make([]float64, F), sq: make([]float64, F),
			x: make([]float64, f.size), y: make([]float64, f.size), tmp: make([]float64, f.size), rows: make([]float64, grain*F)}
	}
	var total part
	total.mean, total.m2, total.sq = make([]float64, F), make([]float64, F), make([]float64, F)
	err = f.run.each(func(wi, start int, x Block) {
		p := parts[wi]
		cnt := x.elems() / f.size
		for i := range cnt {
			f.sampleF64(p.x, x, i)
			projectModes(p.y, p.tmp, p.x, f.shape, U)
			copy(p.rows[i*F:(i+1)*F], p.y[:F])
		}
		p.n = float64(cnt)
		clear(p.mean)
		clear(p.m2)
		clear(p.sq)
		for i := range cnt {
			floats.Add(p.mean, p.rows[i*F:(i+1)*F])
		}
		floats.Scale(1/p.n, p.mean)
		for i := range cnt {
			for e, v := range p.rows[i*F : (i+1)*F] {
				d := v - p.mean[e]
				p.m2[e] += d * d
				p.sq[e] += v * v
			}
		}
	}, func(wi int) {
		p := parts[wi]
		n := total.n + p.n
		for e := range F {
			delta := p.mean[e] - total.mean[e]
			total.m2[e] += p.m2[e] + delta*delta*total.n*p.n/n
			total.mean[e] += delta * p.n / n
			total.sq[e] += p.sq[e]
		}
		total.n = n
	})
	return total.m2, total.sq, err
}
