package solver

import (
	"fmt"
	"slices"

	"github.com/sompca/sompca/solver/internal/par"
)

// FeatureOrder says how a fitted model orders its features.
type FeatureOrder int

const (
	// ByVariance sorts features by captured variance, descending (stable),
	// as the paper does for classification; CSA sorts by energy.
	ByVariance FeatureOrder = iota
	// ByExtraction keeps the order in which the EMPs were found (for MPCA
	// and CSA: the C order of the projected tensor's entries).
	ByExtraction
)

// Options configures a fit. DefaultOptions(method) gives the defaults
// that every surface of sompca uses (the C API's sompca_options_init, the
// Python estimators, the command line); see Defaults. The zero value is
// also valid: SO-MPCA without relaxed start, the default number of
// features, the automatic orthogonal mode, K = 20 sweeps, tol = 0 and all
// cores.
type Options struct {
	Method       Method
	RelaxedStart bool // fix the first EMP to uniform vectors (TVP methods only)

	// Components is the number of features P; 0 selects the default:
	// the method's bound (SO-MPCA: I_nu; FO-MPCA: min_n I_n; UMPCA:
	// min(min_n I_n, M-1); PCA: min(M-1, prod_n I_n); MPCA and CSA:
	// prod_n P_n), and max_n I_n for TROD, which accepts up to prod_n I_n.
	Components int

	// Mode is SO-MPCA's orthogonal mode nu, 0-based (0..N-1) like every
	// mode number in sompca (see "Mode numbering" in the package
	// documentation; the paper's nu = 1 is Mode 0). nil selects
	// argmax_n I_n, the first on ties (eq. 9); set it with
	// OrthogonalMode(n). Other methods ignore it.
	Mode *int

	// MaxIter is the number of alternating sweeps K per EMP (MPCA, CSA:
	// in total); 0 means 20, the paper's setting.
	MaxIter int
	// Tol > 0 ends an EMP's sweeps early once the relative change of its
	// captured variance over a sweep is at most Tol; 0 runs all MaxIter
	// sweeps, exactly as the paper. It must be finite and >= 0.
	Tol float64

	// Q is the fraction of each mode's variance (CSA: energy) that MPCA and
	// CSA keep when choosing the mode ranks P_n; 0 means 0.97.
	Q float64

	// Threads is the number of goroutines that share each pass over the
	// data; 0 means runtime.GOMAXPROCS(0), a negative count is
	// ErrInvalid (as in C). Results do not depend on it.
	Threads int

	// Order says how the fitted features are ordered.
	Order FeatureOrder

	// Progress, if not nil, is called after each unit of work: each EMP of
	// a TVP method (done = EMPs found, variance = the EMP's captured
	// variance), each sweep of MPCA and CSA, once for PCA. Returning false
	// cancels the fit, which then returns ErrCanceled and leaves the model
	// as it was.
	Progress func(done, total int, variance float64) bool

	// ReadProgress, if not nil, is called while the fit reads samples
	// from storage (a source that is a ReadCounter, such as
	// hdf5io.Source): after each run of samples a pass reads from a
	// streamed dataset, and after each read of a dataset loaded whole
	// before the first pass. read is the bytes read so far (it never
	// decreases, and reaches total when the dataset has been read once;
	// a streamed fit reads it once per pass, so read/total counts passes),
	// total the bytes of the dataset in storage. It is called on the
	// goroutine that called Fit, like Progress. Returning false cancels
	// the fit (ErrCanceled). Sources in memory never call it.
	ReadProgress func(read, total int64) bool

	// Cancel, if not nil, is polled by every leaf of every pass (16
	// samples, tens of microseconds of work) and between passes, from
	// several goroutines at once; once it returns true the fit stops and
	// returns ErrCanceled, leaving the model as it was.
	Cancel func() bool

	// MemoryLimit is the fit's memory budget in bytes; 0 means
	// DefaultMemoryLimit(), a quarter of physical memory. It covers the
	// method's workspaces, the samples a source reads from a file (an
	// hdf5io.Source loads a dataset that fits whole, and streams one that
	// does not in runs that do; see MemoryPlanner) and the cache of
	// partial contractions that lets a sweep over samples of order N >= 3
	// read the data twice rather than N times, kept only if it fits. The
	// fitted model is the same, bit for bit, whatever the limit, as long
	// as it holds the TVP methods' M x max_n I_n partial projections
	// (served right after the workspaces); below that a mode update forms
	// the scatter instead and agrees to about 1e-13. Samples
	// the caller holds in memory (SliceSource) are not counted; the exact
	// narrower copy a fit may make of them is (NoNarrowing). A limit
	// too small for the workspaces and one run of samples is ErrMemory.
	MemoryLimit int64

	// ModeUpdates says how a TVP method's mode update gets the scatter of
	// the partial projections it maximises: from the M x I_n rows
	// themselves (ModeUpdatesRows) or from the I_n x I_n scatter folded by
	// the pass (ModeUpdatesScatter). The zero value, ModeUpdatesAuto,
	// chooses by one rule of the data's shape alone (see
	// ModeUpdates.Resolve), the same in Model.Fit, Model.FitWith and fit
	// sessions, so that a default local fit and a default distributed fit
	// of the same samples give the same model bit for bit. See
	// docs/DESIGN.md, "TVP mode updates".
	ModeUpdates ModeUpdates

	// NoNarrowing turns off exact narrowing (docs/DESIGN.md, "Exactness and narrowing"): by
	// default a fit whose float64 or float32 samples are all in memory
	// (SliceSource, an hdf5io.Source that loaded its dataset) and are
	// every one exactly a uint8 (integers 0..255) or a float32 reads them
	// through a copy in that type, 1/8 or 1/2 of their bytes, taken from
	// MemoryLimit and made only when it fits. The model is the same bit
	// for bit either way; only the speed and the copy's memory differ.
	NoNarrowing bool

	// routes overrides the eigen step's route choices; only tests set it,
	// to compare one route with another (nil: the thresholds' routes).
	routes *routes
}

// ModeUpdates chooses the passes of the TVP mode updates (Options.ModeUpdates).
type ModeUpdates int

const (
	// ModeUpdatesAuto: rows when the M x max_n I_n partial projections
	// are at most RowsLimit values, else the scatter (ModeUpdates.Resolve).
	ModeUpdatesAuto ModeUpdates = iota
	// ModeUpdatesRows: each update's pass (OpModeRows) keeps the M x I_n
	// partial projections Y, and the top eigenvector is found by Krylov
	// products Y^T (Y v), the I_n x I_n scatter formed only when that is
	// cheaper. A pass returns M I_n values: the fastest choice when the
	// samples are read where the fit runs, and M max_n I_n values of
	// workspace.
	ModeUpdatesRows
	// ModeUpdatesScatter: each update's pass (OpModeScatter) folds the
	// scatter Y^T Y, I_n x I_n, and the eigenvector is found from it. A
	// block's partial is I_n^2 values whatever its number of samples,
	// which is what a distributed pass should move. The model agrees with
	// ModeUpdatesRows' to rounding (the same sums in another order).
	ModeUpdatesScatter
)

// RowsLimit is the most partial projections, M x max_n I_n values, for
// which ModeUpdatesAuto takes rows: 2^20 float64, 8 MiB per pass. Up to
// it the rows cost the fit little memory and a distributed pass little to
// move to the driver, and they are the cheaper update (no rank-16 update
// of the I_n x I_n scatter per leaf in the pass: 1.15x less CPU on gait
// samples, docs/DESIGN.md "TVP mode updates"); beyond it the scatter keeps what a pass
// moves and keeps at I_n^2 values per block.
const RowsLimit = 1 << 20

// Resolve returns the mode updates a fit of m samples of the given shape
// makes: u itself unless it is ModeUpdatesAuto, which resolves to
// ModeUpdatesRows when m max_n I_n <= RowsLimit and to ModeUpdatesScatter
// otherwise. The rule depends on the data's shape only: never on threads,
// memory limit, source or executor, so that every surface (Model.Fit,
// Model.FitWith, fit sessions; C, Python, Dask) fits the same samples the
// same way. Methods other than the TVP ones make no mode updates and
// ignore the choice.
func (u ModeUpdates) Resolve(shape []int, m int) ModeUpdates {
	if u != ModeUpdatesAuto {
		return u
	}
	rows := int64(m)
	if len(shape) > 0 {
		rows *= int64(slices.Max(shape))
	}
	if rows <= RowsLimit {
		return ModeUpdatesRows
	}
	return ModeUpdatesScatter
}

var modeUpdatesNames = [...]string{"auto", "rows", "scatter"}

func (u ModeUpdates) String() string {
	if u >= 0 && int(u) < len(modeUpdatesNames) {
		return modeUpdatesNames[u]
	}
	return fmt.Sprintf("ModeUpdates(%d)", int(u))
}

// ErrCanceled is returned by Fit when Options.Progress asked to stop or
// Options.Cancel returned true.
var ErrCanceled = par.ErrCanceled

// OrthogonalMode returns a pointer to n, for Options.Mode: SO-MPCA's
// orthogonal mode, 0-based.
func OrthogonalMode(n int) *int { return &n }
