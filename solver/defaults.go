package solver

// Defaults are the values a fit uses, per method, for the options a caller
// leaves unset. The method table (method.go) is the one place they are
// written: Go reads it
// through DefaultOptions, the C API through sompca_options_init (whose
// relaxed_start = -1 means "the method's default") and
// sompca_options_defaults, the Python estimators take their keyword
// defaults from sompca_options_defaults, and the command line uses the
// estimators. A test in each of Go, C and Python compares its surface with
// the expected table.
type Defaults struct {
	// RelaxedStart is on for the methods the paper proposes it for
	// (SO-MPCA-RS, the paper's method, and FO-MPCA-RS, Sec. 3.3 and 5);
	// off for TROD and UMPCA, which the paper runs as published, and for
	// the methods without successive EMPs (PCA, MPCA, CSA).
	RelaxedStart bool
	// MaxIter is the number of sweeps K (per EMP; MPCA and CSA: in total):
	// 20, the paper's setting (Sec. 5.1).
	MaxIter int
	// Tol is 0: every sweep runs, as in the paper.
	Tol float64
	// Q is MPCA's and CSA's kept-variance fraction, 97% (Lu et al. 2008).
	Q float64
	// Order is ByVariance, the paper's order for classification.
	Order FeatureOrder
}

// MethodDefaults returns the defaults of method m (those of SOMPCA for an
// unknown method).
func MethodDefaults(m Method) Defaults {
	if m.spec() == nil {
		m = SOMPCA
	}
	return m.spec().defaults
}

// DefaultOptions returns the options every surface of sompca uses for
// method m when the caller sets nothing else: the method's Defaults, the
// default number of features (Components = 0), the automatic orthogonal
// mode (Mode = nil) and all cores (Threads = 0).
func DefaultOptions(m Method) Options {
	d := MethodDefaults(m)
	return Options{Method: m, RelaxedStart: d.RelaxedStart, MaxIter: d.MaxIter, Tol: d.Tol, Q: d.Q, Order: d.Order}
}
