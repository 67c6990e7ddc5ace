package solver

import (
	"gonum.org/v1/gonum/mat"
)

// Model is a fitted tensor-to-vector projection. The zero value is an
// unfitted model; Fit fills it. A fitted model is read-only and safe for
// concurrent use by transforms.
//
// Every per-feature field is indexed by feature j = 0..P-1 in the model's
// feature order (by captured variance unless Options.Order said
// otherwise); Order maps each feature to its extraction index.
type Model struct {
	Method       Method
	RelaxedStart bool
	// Mode is the orthogonal mode nu of SO-MPCA, 0-based (0..N-1, see
	// "Mode numbering" in the package documentation); -1 for other
	// methods.
	Mode int
	// FeatureModes, for a model fitted with Options.Mode = AllModes
	// (Mode == AllModes), is the 0-based orthogonal mode of each
	// feature's SO-MPCA fit, or AllModes for the first EMP, which every
	// mode's fit shares (at most one feature; see "Feature fusion" in the
	// package documentation); nil for every other model.
	FeatureModes []int
	// Shape is the sample shape I_1, ..., I_N the model was fitted on.
	Shape []int
	// Samples is the number M of training samples.
	Samples int
	// MaxIter, Tol, Q and Order record the options of the fit.
	MaxIter int
	Tol     float64
	Q       float64
	Order   FeatureOrder

	// Mean is the training mean (prod_n I_n values, C order); all zeros
	// for TROD and CSA, which do not centre.
	Mean []float64

	// Projections holds the projection vectors: for the TVP methods, MPCA
	// and CSA, N matrices, the n-th I_n x P with column j the mode-n vector
	// of feature j's EMP (for MPCA and CSA a feature is an entry of the
	// projected tensor, whose EMP takes one column of each factor matrix);
	// for PCA one prod_n I_n x P matrix on the vectorised (C order) sample.
	Projections []*mat.Dense

	// Variance is the captured variance of each feature on the training
	// data, S_p/(M-1) with S_p the total scatter of eq. (6).
	Variance []float64
	// TotalVariance is the total variance of the training data, the trace
	// of its covariance (sum_m ||X_m - mean||^2/(M-1)), so
	// Variance/TotalVariance is the explained variance ratio.
	TotalVariance float64
	// Extraction is the extraction index (0-based) of each feature.
	Extraction []int
	// Iterations is the number of sweeps run for each feature's EMP: 0
	// for the fixed first EMP of relaxed start and for PCA; for MPCA and
	// CSA the sweeps of the whole fit.
	Iterations []int
	// History is, for each feature of a TVP method, its EMP's objective
	// (the scatter S_p; for TROD the residual energy) at the uniform start
	// and after each sweep: len(History[j]) = Iterations[j]+1 (the paper's
	// Fig. 3). nil for PCA, MPCA and CSA.
	History [][]float64
	// Ranks holds the mode ranks P_n of MPCA and CSA; nil otherwise.
	Ranks []int

	energy []float64 // CSA's sort key during a fit; nil otherwise
}

// Components returns the number of features P, 0 if m is not fitted.
func (m *Model) Components() int { return len(m.Variance) }

// Fitted reports whether m holds a fitted model.
func (m *Model) Fitted() bool { return len(m.Projections) > 0 }

// Validate checks that m is a consistent fitted model: the shapes of the
// mean, projections and per-feature fields agree with Shape and with each
// other. Models read from files should be validated before use.
func (m *Model) Validate() error {
	size, err := sampleSize(m.Shape)
	if err != nil {
		return err
	}
	if len(m.Projections) == 0 {
		return ErrNotFitted
	}
	if len(m.Mean) != size {
		return errorf(ErrShape, "solver: model mean has %d values, want %d for shape %v", len(m.Mean), size, m.Shape)
	}
	p := len(m.Variance)
	if p == 0 {
		return errorf(ErrShape, "solver: model has no features")
	}
	spec := m.Method.spec()
	switch {
	case spec == nil:
		return errorf(ErrInvalid, "solver: unknown method %d", int(m.Method))
	case spec.family == familyPCA:
		if len(m.Projections) != 1 {
			return errorf(ErrShape, "solver: pca model has %d projection matrices, want 1", len(m.Projections))
		}
		if r, c := m.Projections[0].Dims(); r != size || c != p {
			return errorf(ErrShape, "solver: pca projection is %dx%d, want %dx%d", r, c, size, p)
		}
	default:
		if len(m.Projections) != len(m.Shape) {
			return errorf(ErrShape, "solver: model has %d projection matrices for %d modes", len(m.Projections), len(m.Shape))
		}
		for n, u := range m.Projections {
			if r, c := u.Dims(); r != m.Shape[n] || c != p {
				return errorf(ErrShape, "solver: mode-%d projection is %dx%d, want %dx%d", n, r, c, m.Shape[n], p)
			}
		}
	}
	if len(m.Extraction) != p || len(m.Iterations) != p {
		return errorf(ErrShape, "solver: model has %d features but %d extraction indices and %d iteration counts", p, len(m.Extraction), len(m.Iterations))
	}
	hasMode := spec.constraint == orthogonalNu
	if hasMode && (m.Mode < 0 || m.Mode >= len(m.Shape)) && m.Mode != AllModes {
		return errorf(ErrInvalid, "solver: so-mpca model has orthogonal mode %d, want 0..%d (0-based) or %d (all modes)", m.Mode, len(m.Shape)-1, AllModes)
	}
	if m.Mode == AllModes {
		if len(m.FeatureModes) != p {
			return errorf(ErrShape, "solver: all-modes so-mpca model has %d features but %d feature modes", p, len(m.FeatureModes))
		}
		shared := -1
		for j, n := range m.FeatureModes {
			if n == AllModes && shared < 0 {
				shared = j // the first EMP, shared by every mode's fit
				continue
			}
			if n < 0 || n >= len(m.Shape) {
				return errorf(ErrInvalid, "solver: feature %d of an all-modes so-mpca model has mode %d, want 0..%d (0-based), or %d (all modes) for the one shared first EMP", j, n, len(m.Shape)-1, AllModes)
			}
		}
	} else if m.FeatureModes != nil {
		return errorf(ErrInvalid, "solver: model of orthogonal mode %d has per-feature modes (only an all-modes so-mpca model has them)", m.Mode)
	}
	if !hasMode && m.Mode != -1 {
		return errorf(ErrInvalid, "solver: %v model has orthogonal mode %d, want -1 (only so-mpca has one)", m.Method, m.Mode)
	}
	return nil
}
