// Package solver learns tensor-to-vector projections (TVPs) from tensor
// samples: Semi-Orthogonal Multilinear PCA with Relaxed Start (SO-MPCA-RS;
// Q. Shi and H. Lu, "Semi-Orthogonal Multilinear PCA with Relaxed Start",
// IJCAI 2015) and its family, in pure Go on gonum.
//
// A fit reads M samples of one shape (I_0, ..., I_{N-1}) from a Source
// and returns a Model: P projections, their captured variances and the
// training mean. Model.TransformTo maps samples to P features. How the
// engine is built (passes, reduction tree, caches, kernels, the team of
// goroutines, the routes of the eigen step and the benchmarks that set
// their thresholds) is in docs/DESIGN.md; figures are in
// bench/MEASUREMENTS.md.
//
// # Methods
//
// One engine finds P elementary multilinear projections (EMPs)
// {u_p^(0), ..., u_p^(N-1)}, one unit vector per mode, one EMP after the
// other (Sec. 3.2). Each EMP starts from the normalised uniform vectors
// and runs K sweeps; a sweep updates each mode in turn to the top
// eigenvector of the total scatter (eq. 11) of the partial projections
// (eq. 10), under the method's constraint:
//
//   - SOMPCA: in mode nu only (Options.Mode), orthogonal to the previous
//     EMPs' nu-mode vectors (eqs. 7-8): the top eigenvector of Gamma_p S
//     with Gamma_p = I - sum_q u_q u_q^T (Theorem 1). nu defaults to
//     argmax_n I_n, the first on ties (eq. 9). P <= I_nu.
//   - FOMPCA: the same constraint in every mode (Sec. 3.1). P <= min_n I_n.
//   - UMPCA (Lu, Plataniotis and Venetsanopoulos, IEEE TNN 2009): the
//     features are mutually uncorrelated on the training data; the update
//     is the top eigenvector of Psi S, Psi = I - Y G (G'Y'YG)^-1 G'Y'
//     (Y the partial projections, G the previous EMPs' features).
//     P <= min(min_n I_n, M-1).
//   - TROD (Shashua and Levin, CVPR 2001): the data are not centred; each
//     EMP maximises the energy of the residual, after which every sample
//     is deflated by y_m u^(0) o ... o u^(N-1); the features are the
//     projections of the undeflated samples. P <= prod_n I_n; the default
//     P is max_n I_n.
//
// Relaxed start (Sec. 3.3, Algorithm 1 line 3), for any of them: the first
// EMP is fixed to the uniform vectors without maximisation.
//
// The paper's baselines share the data path: PCA of the vectorised
// samples (P <= min(M-1, prod_n I_n)); MPCA (Lu, Plataniotis and
// Venetsanopoulos, IEEE TNN 2008) and CSA (Xu et al., CVPR 2005), whose
// features are the entries of the projected tensor.
//
// Choices the paper leaves open, checked against an independent
// implementation (testdata/fixtures.json, agreement 1e-10 or better):
//   - the data are centred by the training mean (not TROD, CSA);
//   - eigenvector signs: the entry of largest magnitude is positive (the
//     first such entry on ties);
//   - constrained updates solve the equivalent symmetric problem
//     Gamma S Gamma, or B^T S B for B an orthonormal basis of the
//     constraint's complement; UMPCA's basis of span(Y G) drops negligible
//     singular values, so a singular G'Y'YG narrows the constraint rather
//     than failing;
//   - features are sorted by captured variance S_p/(M-1), descending and
//     stable (CSA: by energy), as the paper does for classification;
//     Options.Order = ByExtraction keeps the extraction order;
//   - MPCA and CSA keep in each mode the fewest eigenvectors holding
//     Q = 97% of that mode's full-projection variance (CSA: energy); MPCA
//     starts from those eigenvectors, CSA from unit vectors.
//
// # Mode numbering
//
// This is the one statement of it for all of sompca. Modes are numbered
// from 0: a sample of shape (I_0, ..., I_{N-1}) has modes 0..N-1, the
// numpy axes of one sample (axis n+1 of the (M, ...) data array). The Go
// API (Options.Mode, Model.Mode, Model.Projections[n]), the C API
// (sompca_options.mode, sompca_model_mode, sompca_model_projection), the
// Python estimators (mode=, mode_, projections_[n]), the command line
// (--mode) and model files (format_version 2: attribute mode,
// /projections/U0 ..) all use it. The paper counts from 1: its nu = 1 is
// mode 0. "No mode" is -1 (C, model files, Model.Mode of methods other
// than SO-MPCA) or nil (Options.Mode, Python's None), which selects
// argmax_n I_n for SO-MPCA. Model files of format_version 1 counted from
// 1 (attribute nu, /projections/U1 ..); hdf5io converts them on load.
// "All modes" is AllModes = -2 (Go, C SOMPCA_MODE_ALL, model files) or
// "all" (Python, the command line).
//
// # Feature fusion
//
// Options.Mode = OrthogonalMode(AllModes) answers the paper's closing
// question (Sec. 5) at the feature level: SO-MPCA is fitted once per mode
// n = 0..N-1 and the fits' features are concatenated and sorted by
// captured variance (descending, stable), up to I_0 + ... + I_{N-1} -
// (N-1) features. The first EMP is the same bits in every mode's fit (no
// constraint applies to it), so it is kept once; Model.FeatureModes[j] is
// the mode of feature j's fit, AllModes for that shared first EMP.
// Extraction indices count the shared EMP (0), then mode 0's other EMPs,
// then mode 1's, and so on. With Components = P > 0 each mode's fit
// extracts min(P, I_n) EMPs and the P of largest variance are kept. Every
// feature is bit for bit the one of the single-mode fit with Mode n. The
// statistics passes (mean, total variance) run once for all modes; the EMPs'
// passes do not merge, so the data are read about N times as often.
//
// # Defaults
//
// DefaultOptions(method) gives the options every surface uses when the
// caller sets nothing: the method table's Defaults (relaxed start for
// SO-MPCA and FO-MPCA, K = 20 sweeps as in the paper's experiments,
// tol = 0, Q = 0.97, features by variance), all cores, the automatic mode
// and mode updates, a quarter of physical memory (DefaultMemoryLimit).
// The C API (sompca_options_init, sompca_options_defaults), the Python
// estimators and the command line read the same table. The zero Options
// value is valid too: plain SO-MPCA without relaxed start.
//
// # Sources, passes and executors
//
// Samples reach the engine through a Source (SliceSource over float64,
// float32 or uint8 memory; hdf5io.Source over a file), which hands out
// runs of consecutive samples in their own element type. Every pass over
// the samples is a Pass: a pure function from a block of samples to a
// partial result (Pass.Partial), whose partials a Fold adds by a fixed
// binary reduction tree over leaves of Pass.Grain() samples. An Executor
// runs a fit's passes: Model.Fit uses the local one (a team of
// Options.Threads goroutines), Model.FitWith takes any other, and a
// Session turns the engine inside out for drivers in other languages (the
// C ABI's fit sessions, the Python Dask driver): each pass is handed out
// as byte requests per block, PassPartial computes a block's partial
// where the block lives, JoinPartials joins neighbouring blocks' partials
// there into one, and the session folds the partials in block order.
//
// Options.ModeUpdates chooses how a TVP mode update gets its scatter:
// from the M x I_n partial projections kept by the pass (rows), or from
// the I_n x I_n scatter folded by the pass (scatter). The default resolves
// by the data's shape alone (rows while M max_n I_n <= RowsLimit), so
// every surface and executor makes the same choice for the same data.
// The two agree to rounding, not bit for bit.
//
// # Determinism
//
// Every method is deterministic: there is no random state to set (the
// iterative solvers start from fixed vectors; block Lanczos draws its
// refills from a generator with a fixed seed). A model is the same bit
// for bit whatever
//   - Options.Threads (the reduction tree, not the order in which work
//     finishes, fixes every addition);
//   - the Source's read sizes, streaming or loading a file, the direction
//     of a pass, and whether the caches of partial contractions and start
//     projections fit in Options.MemoryLimit;
//   - the executor: Fit, FitWith or a Session whose blocks start at
//     multiples of BlockMultiple samples (other blocks agree to about
//     1e-12 relative);
//   - narrowing (Options.NoNarrowing) and, for samples whose values are
//     all integers 0..255, their element type (such samples are
//     contracted exactly, in integers; see docs/DESIGN.md);
//   - the surface: Go, C, Python, the command line and the Dask driver run
//     this code with the same options.
//
// What changes the bits: the sample values and their order; the options
// that define the fit (Method, RelaxedStart, Components, Mode, MaxIter,
// Tol, Q, ModeUpdates; Order only permutes the features); the element
// type of values that are not all integers 0..255 in the portable build
// (float32 and float64 of equal values agree bit for bit with the amd64
// assembly kernels); the build (amd64 with AVX2 and FMA runs assembly
// kernels, other CPUs and -tags purego run Go loops that agree to
// rounding); and the versions of sompca, Go and gonum.
//
// # Memory, cancellation and progress
//
// A fit allocates its buffers once, so its allocations do not grow with
// K, P or M, and plans its memory within Options.MemoryLimit (0: the
// default, DefaultMemoryLimit): the workspaces first,
// then what a MemoryPlanner source holds (a file loaded whole or read in
// runs), then the optional caches and narrowed copies, which change the
// speed only. A limit too small for the workspaces is ErrMemory, with
// both sizes in the message. Options.Cancel is polled by every leaf of a
// pass and between the steps of the eigensolvers (the LAPACK calls, which
// cannot poll, run on a goroutine the fit stops waiting for);
// Options.Progress returning
// false cancels after the EMP or sweep it reports. Either way the fit
// returns ErrCanceled and the model is unchanged.
//
// # Contract and errors
//
// Inputs are never modified. Fit reports bad input (P above the method's
// bound, a mode out of range, fewer than 2 samples, a zero-size mode, NaN
// or Inf in sample m, zero variance) as an error and leaves the model as
// it was; the package panics only on programmer misuse of its internals.
// A fitted Model is read-only and safe for concurrent transforms.
//
// Errors carry their kind for errors.Is: ErrInvalid (options), ErrShape,
// ErrData (the data; a bad sample is a *SampleError whose Index names it,
// for errors.As), ErrSource (Source.Read failed; the source's own error
// is wrapped too, so errors.Is(err, hdf5io.ErrCorrupt) also holds),
// ErrMemory, ErrNumerical (an eigensolver that did not converge),
// ErrCanceled and ErrNotFitted. Messages name the option, shape, sample or
// size that is wrong.
//
// # Adding a method
//
// A method is one entry of the method table (method.go), not branches in
// the engine. To add a successive-EMP method:
//
//  1. append a Method constant (and the same number as a SOMPCA_METHOD_*
//     macro in include/sompca.h; capi fails to compile if they differ);
//  2. append its methodSpec to methods: its name (files, C, Python and
//     ParseMethod all read it from there), family familyTVP, whether it
//     centres the data, its constraint (a new kind of constraint is one
//     more case where tvpFit.emp builds the constraint matrix), whether it
//     deflates, its bound on P with the reason shown in errors, and its
//     Defaults;
//  3. add its reference fits, from an independent implementation, to
//     testdata/fixtures.json (testdata/convert_fixtures.py converts them),
//     and its expectations to the table-driven tests (TestInvariants'
//     tvpCases, the C test's method names, Python's test_methods).
//
// A method of another family (a new kind of fit rather than a new
// constraint) adds a family and its fitting function, which makes its
// passes through fitter.pass with the Ops of pass.go (or a new Op: its
// Partial, its combine and its PartialLen).
package solver
