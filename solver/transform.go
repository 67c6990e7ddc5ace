package solver

import (
	"encoding/binary"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TransformTo projects every sample of src to the model's P features,
// y_p = (X - mean) x_1 u_p^(1)T ... x_N u_p^(N)T (PCA: W^T vec(X - mean)),
// and writes them, sample-major (M x P), into dst, which it returns. A nil
// dst is allocated; otherwise len(dst) must be Len()*P. src's sample shape
// must equal the model's. A sample with a NaN or Inf value is an error
// (ErrData, a *SampleError naming the sample); dst then holds partial
// results. A failed read is ErrSource wrapping the source's error.
func (m *Model) TransformTo(dst []float64, src Source) ([]float64, error) {
	return m.transform(dst, src, 0, nil, false)
}

// TransformToCancel is TransformTo that stops with ErrCanceled once
// cancel, polled every few samples, returns true; dst then holds partial
// results.
func (m *Model) TransformToCancel(dst []float64, src Source, cancel func() bool) ([]float64, error) {
	return m.transform(dst, src, 0, cancel, false)
}

func (m *Model) transform(dst []float64, src Source, threads int, cancel func() bool, perFeature bool) ([]float64, error) {
	if !m.Fitted() {
		return nil, ErrNotFitted
	}
	if src == nil {
		return nil, errorf(ErrInvalid, "solver: nil source")
	}
	if !slices.Equal(src.Shape(), m.Shape) {
		return nil, errorf(ErrShape, "solver: samples of shape %v, but the model was fitted on shape %v", src.Shape(), m.Shape)
	}
	M, P := src.Len(), m.Components()
	if dst == nil {
		dst = make([]float64, M*P)
	}
	if len(dst) != M*P {
		return nil, errorf(ErrShape, "solver: destination has %d values, want %d samples x %d features = %d", len(dst), M, P, M*P)
	}
	if M == 0 {
		return dst, nil
	}
	dims := m.Shape
	if len(m.Projections) == 1 && len(dims) > 1 { // PCA on vectorised samples
		dims = []int{len(m.Mean)}
	}
	// vs[p][n] is feature p's mode-n vector.
	vs := make([][][]float64, P)
	for p := range P {
		vs[p] = make([][]float64, len(dims))
		for n, U := range m.Projections {
			vs[p][n] = mat.Col(nil, p, U)
		}
	}
	c := newContractor(dims)
	meanProj := make([]float64, P)
	for p := range P {
		meanProj[p] = c.full(Block{F64: m.Mean}, vs[p])
	}
	pass := &Pass{Op: OpTransform, Shape: dims, Samples: M, Features: vs, Offset: meanProj}
	if !perFeature {
		pass.Factors, pass.Index = m.tuckerFactors()
	}
	run := newRunner(src, len(m.Mean), threads)
	run.canceled = cancel
	defer run.close()
	if err := run.Run(pass, dst); err != nil {
		return nil, err
	}
	// A NaN or Inf anywhere in a sample reaches every one of its
	// features (it is multiplied by every vector entry, zero or not), so
	// checking the output finds every bad sample without another pass.
	for i, v := range dst {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nonFinite(i / P)
		}
	}
	return dst, nil
}

// tuckerFactors returns, for an MPCA or CSA model, its factor matrices U_n
// (I_n x r_n, the distinct columns of Projections[n] in order of first
// use) and each feature's entry (C order) of the sample projected by every
// U_n^T, so that a transform costs a few mode products per sample
// (projectModes) rather than P contractions of the whole sample: for the
// gait CSA model (5220 features) about 25 times fewer multiply-adds.
// Other models, and any whose columns do not make such factors, give nil.
func (m *Model) tuckerFactors() ([]*mat.Dense, []int) {
	if m.Ranks == nil || len(m.Projections) != len(m.Shape) {
		return nil, nil
	}
	P := m.Components()
	index := make([]int, P)
	factors := make([]*mat.Dense, len(m.Shape))
	stride := 1
	for n := len(m.Shape) - 1; n >= 0; n-- {
		U := m.Projections[n]
		d := m.Shape[n]
		pos := map[string]int{}
		var cols []float64 // the distinct columns, column after column
		col, bits := make([]float64, d), make([]byte, 8*d)
		for f := range P {
			mat.Col(col, f, U)
			for i, v := range col {
				binary.LittleEndian.PutUint64(bits[8*i:], math.Float64bits(v))
			}
			key := string(bits)
			k, ok := pos[key]
			if !ok {
				k = len(pos)
				if k >= m.Ranks[n] {
					return nil, nil
				}
				pos[key] = k
				cols = append(cols, col...)
			}
			index[f] += k * stride
		}
		r := len(pos)
		F := mat.NewDense(d, r, nil)
		for k := range r {
			F.SetCol(k, cols[k*d:(k+1)*d])
		}
		factors[n] = F
		stride *= r
	}
	return factors, index
}

// InverseTransformTo reconstructs samples from their features (least
// squares) and writes them, sample-major and in C order within a sample,
// into dst, which it returns. features holds n samples' P features,
// sample-major, as TransformTo writes them; a nil dst is allocated,
// otherwise len(dst) must be n*prod(Shape).
//
// A feature vector is z = A^T vec(x - mean), A the prod(Shape) x P matrix
// whose column p is feature p's projection (PCA: its column of
// Projections[0]; the other methods: the outer product of the p-th columns
// of the N matrices, first mode slowest). The reconstruction is the
// smallest least-squares solution, x = mean + A (A^T A)^+ z: mean + A z
// for the methods whose projections are orthonormal (PCA, MPCA, CSA,
// SO-MPCA, FO-MPCA). A^T A is the entrywise product of the modes' Gram
// matrices; its pseudo-inverse drops the eigenvalues at most P * 2^-52
// times the largest (numpy's pinv, hermitian, by default). A NaN or Inf
// feature is ErrData naming the sample.
func (m *Model) InverseTransformTo(dst, features []float64) ([]float64, error) {
	if !m.Fitted() {
		return nil, ErrNotFitted
	}
	P, size := m.Components(), len(m.Mean)
	if len(features)%P != 0 {
		return nil, errorf(ErrShape, "solver: %d feature values are not a whole number of samples of %d features", len(features), P)
	}
	n := len(features) / P
	if dst == nil {
		dst = make([]float64, n*size)
	}
	if len(dst) != n*size {
		return nil, errorf(ErrShape, "solver: destination has %d values, want %d samples x %d elements = %d", len(dst), n, size, n*size)
	}
	for i, v := range features {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &SampleError{Index: i / P, Reason: "has a NaN or Inf feature"}
		}
	}
	if n == 0 {
		return dst, nil
	}
	// The Gram matrix A^T A and its pseudo-inverse.
	gram := mat.NewDense(P, P, nil)
	for k, u := range m.Projections {
		var g mat.Dense
		g.Mul(u.T(), u)
		if k == 0 {
			gram.Copy(&g)
		} else {
			gram.MulElem(gram, &g)
		}
	}
	var eig mat.EigenSym
	sym := mat.NewSymDense(P, nil)
	for i := range P {
		for j := i; j < P; j++ {
			sym.SetSym(i, j, gram.At(i, j))
		}
	}
	if !eig.Factorize(sym, true) {
		return nil, errorf(ErrNumerical, "solver: the eigendecomposition of the %d x %d Gram matrix of the projections failed", P, P)
	}
	w := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	largest := 0.0
	for _, x := range w {
		largest = max(largest, math.Abs(x))
	}
	cutoff := float64(P) * 0x1p-52 * largest
	scaled := mat.DenseCopyOf(&v) // V diag(1/w), the dropped columns zero
	for j, x := range w {
		f := 0.0
		if math.Abs(x) > cutoff {
			f = 1 / x
		}
		for i := range P {
			scaled.Set(i, j, scaled.At(i, j)*f)
		}
	}
	var pinv mat.Dense
	pinv.Mul(scaled, v.T())
	// Coefficients C = Z (A^T A)^+, then samples C A^T + mean.
	var coef mat.Dense
	coef.Mul(mat.NewDense(n, P, features), &pinv)
	var out mat.Dense
	out.Mul(&coef, m.basis().T())
	raw := out.RawMatrix()
	for s := range n {
		row := dst[s*size : (s+1)*size]
		copy(row, raw.Data[s*raw.Stride:s*raw.Stride+size])
		floats.Add(row, m.Mean)
	}
	return dst, nil
}

// basis returns A, prod(Shape) x P, whose column p is feature p's
// projection on the vectorised (C order) sample.
func (m *Model) basis() *mat.Dense {
	a := mat.DenseCopyOf(m.Projections[0])
	for _, u := range m.Projections[1:] {
		r, P := a.Dims()
		d, _ := u.Dims()
		next := mat.NewDense(r*d, P, nil)
		for i := range r {
			for k := range d {
				for p := range P {
					next.Set(i*d+k, p, a.At(i, p)*u.At(k, p))
				}
			}
		}
		a = next
	}
	return a
}
