package solver

import (
	"fmt"
	"strings"
)

// Method selects the algorithm a Model is fitted with.
type Method int

const (
	// SOMPCA is semi-orthogonal multilinear PCA (Shi and Lu 2015, Sec. 3):
	// successive EMPs, orthogonal in mode nu only. With RelaxedStart it is
	// SO-MPCA-RS, the paper's proposed method.
	SOMPCA Method = iota
	// FOMPCA is full-orthogonal multilinear PCA (Sec. 3.1): successive EMPs
	// orthogonal in every mode.
	FOMPCA
	// TROD is the tensor rank-one decomposition (Shashua and Levin 2001):
	// successive rank-one EMPs of the uncentred, deflated residual.
	TROD
	// UMPCA is uncorrelated multilinear PCA (Lu, Plataniotis and
	// Venetsanopoulos 2009): successive EMPs whose training features are
	// mutually uncorrelated.
	UMPCA
	// PCA is ordinary PCA of the vectorised samples.
	PCA
	// MPCA is multilinear PCA (Lu, Plataniotis and Venetsanopoulos 2008), a
	// tensor-to-tensor projection whose projected entries are the features.
	MPCA
	// CSA is concurrent subspace analysis (Xu et al. 2005): MPCA's shape on
	// uncentred data, ranked by energy.
	CSA
)

// String returns the method's lower-case name, as used in model files
// ("so-mpca", "fo-mpca", "trod", "umpca", "pca", "mpca", "csa").
func (m Method) String() string {
	if s := m.spec(); s != nil {
		return s.name
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// IsTVP reports whether the method is one of the successive-EMP
// (tensor-to-vector projection) methods, which support RelaxedStart.
func (m Method) IsTVP() bool { return m.spec() != nil && m.spec().family == familyTVP }

// methodAliases are names ParseMethod accepts besides the table's: the
// estimators' names, which mean their default, relaxed start on (as
// sompca.SOMPCA() in Python), so "sompca" is "so-mpca-rs" everywhere.
var methodAliases = map[string]Method{"sompca": SOMPCA, "fompca": FOMPCA}

// ParseMethod parses a method name such as "so-mpca-rs", "SO-MPCA", "umpca"
// or "trod-rs" (case and '_' for '-' do not matter); a "-rs" suffix sets
// relaxed start, which only the TVP methods accept. The aliases "sompca"
// and "fompca" are so-mpca-rs and fo-mpca-rs.
func ParseMethod(name string) (m Method, relaxedStart bool, err error) {
	s := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
	if t, ok := strings.CutSuffix(s, "-rs"); ok {
		s, relaxedStart = t, true
	}
	m, ok := methodAliases[s]
	relaxedStart = relaxedStart || ok
	for i := range methods {
		if methods[i].name == s {
			m, ok = Method(i), true
		}
	}
	if !ok {
		return 0, false, errorf(ErrInvalid, "solver: unknown method %q (want one of %s)", name, strings.Join(MethodNames(), ", "))
	}
	if relaxedStart && !m.IsTVP() {
		return 0, false, errorf(ErrInvalid, "solver: method %q: relaxed start applies only to %s", name, strings.Join(tvpNames(), ", "))
	}
	return m, relaxedStart, nil
}

// MethodNames returns every name ParseMethod accepts in canonical form:
// each method's name, and for the TVP methods also name + "-rs".
func MethodNames() []string {
	var out []string
	for i := range methods {
		out = append(out, methods[i].name)
		if Method(i).IsTVP() {
			out = append(out, methods[i].name+"-rs")
		}
	}
	return out
}

func tvpNames() []string {
	var out []string
	for i := range methods {
		if Method(i).IsTVP() {
			out = append(out, methods[i].name)
		}
	}
	return out
}

// Name returns the canonical name of the method with or without relaxed
// start ("so-mpca-rs"), which ParseMethod reads back.
func (m Method) Name(relaxedStart bool) string {
	if relaxedStart && m.IsTVP() {
		return m.String() + "-rs"
	}
	return m.String()
}

// The method table: one entry per Method says everything in which the
// methods differ, and the engine reads it instead of testing which method
// it runs. See doc.go, "Adding a method".

// family is the engine that fits a method.
type family int

const (
	familyTVP    family = iota // successive EMPs (tvp.go)
	familyPCA                  // PCA of the vectorised samples (pca.go)
	familyTucker               // alternating Tucker factors (tucker.go)
)

// constraint is what each mode update of a TVP method is subject to.
type constraintKind int

const (
	unconstrained constraintKind = iota // TROD
	orthogonalNu                        // SO-MPCA: orthogonal to the previous EMPs in mode nu (Theorem 1)
	orthogonalAll                       // FO-MPCA: orthogonal to the previous EMPs in every mode
	uncorrelated                        // UMPCA: training features uncorrelated with the previous ones
)

// startRule is the first iterate of a method.
type startRule int

const (
	uniformStart  startRule = iota // TVP: the normalised uniform vectors (Sec. 3.2)
	noStart                        // PCA: a direct eigendecomposition
	eigenStart                     // MPCA: the full projection's top eigenvectors
	identityStart                  // CSA: the first P_n unit vectors (Xu et al.)
)

// methodSpec is one entry of the method table.
type methodSpec struct {
	name   string // the lower-case name of files, C and Python
	family family
	// centred: the data are centred by the training mean (else the
	// method works on the raw data: energy rather than variance).
	centred    bool
	constraint constraintKind
	// deflate: after each EMP the residual is deflated by it (TROD), and
	// the objective is the residual's energy.
	deflate bool
	start   startRule
	// rankByEnergy: features are ranked by energy sum_m y_m^2 rather than
	// captured variance (CSA).
	rankByEnergy bool
	// bound returns the largest and the default number of features on
	// the fit's data, and says why the bound is what it is. Only the TVP
	// and PCA families have a bound before fitting; Tucker's follows the
	// ranks it finds.
	bound    func(f *fitter) (bound, def int, why string)
	defaults Defaults
}

// keepsFeatures reports whether a TVP method needs every EMP's training
// features during the fit (UMPCA's constraint, TROD's deflation).
func (s *methodSpec) keepsFeatures() bool { return s.constraint == uncorrelated || s.deflate }

// orthogonalIn reports whether EMP vectors of mode n are constrained to be
// orthogonal to the previous EMPs' (mode nu is the fit's SO-MPCA mode).
func (s *methodSpec) orthogonalIn(n, nu int) bool {
	return s.constraint == orthogonalAll || (s.constraint == orthogonalNu && n == nu)
}

func modeRange(f *fitter) (minI, maxI int) {
	minI, maxI = f.shape[0], f.shape[0]
	for _, d := range f.shape {
		minI, maxI = min(minI, d), max(maxI, d)
	}
	return minI, maxI
}

var tvpDefaults = Defaults{MaxIter: 20, Q: 0.97}

// methods is the method table, indexed by Method.
var methods = [...]methodSpec{
	SOMPCA: {name: "so-mpca", family: familyTVP, centred: true, constraint: orthogonalNu, start: uniformStart,
		bound: func(f *fitter) (int, int, string) {
			b := f.shape[f.mode]
			return b, b, fmt.Sprintf("I_nu = %d (the size of orthogonal mode %d)", b, f.mode)
		},
		defaults: Defaults{RelaxedStart: true, MaxIter: 20, Q: 0.97}},
	FOMPCA: {name: "fo-mpca", family: familyTVP, centred: true, constraint: orthogonalAll, start: uniformStart,
		bound: func(f *fitter) (int, int, string) {
			minI, _ := modeRange(f)
			return minI, minI, fmt.Sprintf("min_n I_n = %d", minI)
		},
		defaults: Defaults{RelaxedStart: true, MaxIter: 20, Q: 0.97}},
	TROD: {name: "trod", family: familyTVP, constraint: unconstrained, deflate: true, start: uniformStart,
		bound: func(f *fitter) (int, int, string) {
			_, maxI := modeRange(f)
			return f.size, min(maxI, f.size), fmt.Sprintf("prod_n I_n = %d", f.size)
		},
		defaults: tvpDefaults},
	UMPCA: {name: "umpca", family: familyTVP, centred: true, constraint: uncorrelated, start: uniformStart,
		bound: func(f *fitter) (int, int, string) {
			minI, _ := modeRange(f)
			b := min(minI, f.m-1)
			return b, b, fmt.Sprintf("min(min_n I_n, M-1) = %d", b)
		},
		defaults: tvpDefaults},
	PCA: {name: "pca", family: familyPCA, centred: true, start: noStart,
		bound: func(f *fitter) (int, int, string) {
			b := min(f.m-1, f.size)
			return b, b, fmt.Sprintf("min(M-1, prod_n I_n) = %d", b)
		},
		defaults: tvpDefaults},
	MPCA: {name: "mpca", family: familyTucker, centred: true, start: eigenStart, defaults: tvpDefaults},
	CSA:  {name: "csa", family: familyTucker, start: identityStart, rankByEnergy: true, defaults: tvpDefaults},
}

// spec returns the table entry of m, or nil for an unknown method.
func (m Method) spec() *methodSpec {
	if m < 0 || int(m) >= len(methods) {
		return nil
	}
	return &methods[m]
}
