package solver

import "errors"

// TransformTo projects every sample of src to the model's P features and
// writes them, sample-major (M x P), into dst, which it returns. A nil dst
// is allocated; otherwise len(dst) must be Len()*P.
func (m *Model) TransformTo(dst []float64, src Source) ([]float64, error) {
	return nil, errors.New("solver: not implemented yet")
}
