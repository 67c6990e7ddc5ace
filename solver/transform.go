package solver

import (
	"math"
	"slices"

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
	return m.transform(dst, src, 0, nil)
}

// TransformToCancel is TransformTo that stops with ErrCanceled once
// cancel, polled every few samples, returns true; dst then holds partial
// results.
func (m *Model) TransformToCancel(dst []float64, src Source, cancel func() bool) ([]float64, error) {
	return m.transform(dst, src, 0, cancel)
}

func (m *Model) transform(dst []float64, src Source, threads int, cancel func() bool) ([]float64, error) {
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
	run := newRunner(src, len(m.Mean), threads)
	run.canceled = cancel
	defer run.close()
	if err := run.Run(&Pass{Op: OpTransform, Shape: dims, Samples: M, Features: vs, Offset: meanProj}, dst); err != nil {
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
