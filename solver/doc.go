// Package solver learns tensor-to-vector projections (TVPs) from tensor
// samples: Semi-Orthogonal Multilinear PCA with Relaxed Start (SO-MPCA-RS;
// Q. Shi and H. Lu, "Semi-Orthogonal Multilinear PCA with Relaxed Start",
// IJCAI 2015) and its family, in pure Go on gonum.
//
// # Methods
//
// One engine finds P elementary multilinear projections (EMPs)
// {u_p^(1), ..., u_p^(N)}, one unit vector per mode, one EMP after the
// other (Sec. 3.2). Each EMP starts from the normalised uniform vectors
// and runs K sweeps; a sweep updates each mode n = 1..N in turn to the top
// eigenvector of the total scatter matrix (eq. 11) of the partial
// projections (eq. 10), under the method's constraint:
//
//   - SOMPCA: in mode nu only (Options.Mode, 0-based), orthogonal to the previous EMPs' nu-mode
//     vectors (eqs. 7-8): the top eigenvector of Gamma_p S with
//     Gamma_p = I - sum_q u_q u_q^T (Theorem 1). nu defaults to
//     argmax_n I_n, the first on ties (eq. 9). P <= I_nu.
//   - FOMPCA: the same constraint in every mode. P <= min_n I_n.
//   - UMPCA (Lu, Plataniotis and Venetsanopoulos, IEEE TNN 2009): the
//     features are mutually uncorrelated on the training data; the update
//     is the top eigenvector of Psi S with Psi = I - Y G (G'Y'YG)^-1 G'Y'
//     (Y: the partial projections, G: the previous EMPs' features).
//     P <= min(min_n I_n, M-1).
//   - TROD (Shashua and Levin, CVPR 2001), as in Lu's survey of
//     multilinear subspace learning: the data are not centred; each EMP
//     maximises the energy of the residual, and after it every sample is
//     deflated by y_m u^(1) o ... o u^(N) (y_m the residual's projection);
//     the features are the projections of the undeflated samples.
//     P <= prod_n I_n; the default P is max_n I_n.
//
// Relaxed start (Sec. 3.3), for any of them: the first EMP is fixed to the
// uniform vectors without maximisation (Algorithm 1, line 3).
//
// The paper's baselines share the data path: PCA of the vectorised
// samples (P <= min(M-1, prod_n I_n)); MPCA (Lu, Plataniotis and
// Venetsanopoulos, IEEE TNN 2008) and CSA (Xu et al., CVPR 2005), whose
// features are the entries of the projected tensor (see fitTucker).
//
// Choices the paper leaves open, made here and checked against an
// independent implementation (solver/testdata/fixtures.json, agreement 1e-10 or
// better):
//   - the data are centred by the training mean (not TROD, CSA);
//   - eigenvector signs: the entry of largest magnitude is positive (the
//     first such entry on ties);
//   - the constrained updates solve the equivalent symmetric problem in an
//     orthonormal basis of the constraint's complement (see eigenSolver);
//     UMPCA's basis of span(Y G) drops negligible singular values, so a
//     singular G'Y'YG narrows the constraint rather than failing;
//   - features are sorted by captured variance S_p/(M-1), descending and
//     stable (CSA: by energy), as the paper does for classification;
//     Options.Order = ByExtraction keeps the extraction order;
//   - MPCA/CSA keep in each mode the fewest eigenvectors holding Q = 97% of
//     that mode's full-projection variance (CSA: energy); MPCA starts from
//     those eigenvectors, CSA from unit vectors; K = 20 sweeps.
//
// # Mode numbering
//
// This is the one statement of it for all of sompca. Modes are numbered
// from 0: a sample of shape (I_0, ..., I_{N-1}) has modes 0..N-1, the
// numpy axes of one sample (axis n+1 of the (M, ...) data array). The
// Go API (Options.Mode, Model.Mode, Model.Projections[n]), the C API
// (sompca_options.mode, sompca_model_mode, sompca_model_projection), the
// Python estimators (mode=, mode_, projections_[n]), the command line
// (--mode) and model files (format_version 2: attribute mode,
// /projections/U0 ..) all use it. The paper counts from 1: its nu = 1 is
// mode 0. "No mode" is -1 (C, model files, Model.Mode of methods other
// than SO-MPCA) or nil (Options.Mode, Python's None), which selects
// argmax_n I_n for SO-MPCA. Model files of format_version 1 (sompca
// 0.1.0) counted from 1 (attribute nu, /projections/U1 ..); hdf5io
// converts them on load. "All modes" is AllModes = -2 (Go, C
// SOMPCA_MODE_ALL, model files) or "all" (Python, the command line); see
// "Feature fusion".
//
// # Feature fusion
//
// Options.Mode = OrthogonalMode(AllModes) answers the paper's closing
// question (Sec. 5) at the feature level: SO-MPCA (with or without
// relaxed start) is fitted once per mode n = 0..N-1 and the N fits'
// features are concatenated and sorted by captured variance (descending,
// stable: ties keep extraction order), up to I_0 + ... + I_{N-1} - (N - 1)
// features. The N fits' first EMPs are one and the same, bit for bit: no
// orthogonality constraint applies to a first EMP, so the mode does not
// enter it (with relaxed start it is the fixed uniform projection, without
// it the same sweeps from the same uniform start). Kept N times it would
// be N identical features, a rank-deficient feature matrix and one
// feature counted N times in distances, so it is kept once (from mode 0's
// fit). Model.Mode is AllModes and Model.FeatureModes[j] the mode of
// feature j's fit, AllModes for that shared first EMP: it came from every
// mode. (We chose AllModes over labelling it mode 0: no documented
// contract breaks, since the all-modes model and its /feature_modes are
// new in this release, and a consumer that selects "the features of mode
// n" must take the shared one too: its mode is n or AllModes.)
// Extraction indices count the shared first EMP (0), then mode 0's other
// EMPs, then mode 1's, and so on. With Options.Components = P > 0, each
// mode's fit extracts its first min(P, I_n) EMPs and the P of largest
// variance are kept. Every feature is bit for bit the one the single-mode
// fit with Mode n gives, and no two features are alike (fusion_test.go).
//
// What is shared: the two statistics passes (mean, then total scatter)
// run once for the N fits, and the workspaces and memory plan are reused.
// The EMPs themselves are not shared: each mode's fit makes its own
// passes, so an all-modes fit reads the data about N times as often as
// one single-mode fit (the passes of different modes need vectors that
// only the previous sweep of the same mode gives, so they cannot be
// merged without changing the result). Transform needs nothing special:
// a feature is an EMP whatever its mode.
//
// # Defaults
//
// DefaultOptions(method) gives the options every surface uses when the
// caller sets nothing: the table in defaults.go (relaxed start for
// SO-MPCA and FO-MPCA, K = 20, tol = 0, Q = 0.97, features by variance),
// which the C API (sompca_options_init, sompca_options_defaults), the
// Python estimators and the command line read. The zero Options value is
// valid too, but it is plain SO-MPCA without relaxed start.
//
// # Data and speed
//
// Samples reach the engine through a Source, which hands out runs of
// consecutive samples as float64, float32 or uint8; kernels read each type
// as it is and accumulate in float64 (samples of uint8 values: exactly,
// in integers, rounded once; see Kernels). Every mode update is one pass over
// the data (for N >= 3, a cache of the samples contracted in one mode makes
// a sweep two passes, or N/(N-1) for samples with values that are not
// float32 values).
// A TVP mode update needs only the top eigenvector of its (constrained)
// scatter, and the previous sweep's vector is a good start: the pass keeps
// the M x I_n partial projections Y (OpModeRows; part of the workspace, so
// that the fit does not depend on the memory limit) and restarted Lanczos
// iterations find the vector from products Y^T (Y v), the constraint's
// projector applied implicitly, to a residual of 1e-13 of the eigenvalue
// (see krylov); the scatter is formed (gramCols, a 4 x 8 blocked AVX2
// kernel near the FMA peak) when an update's products would cost more
// (gramBudget, set by BenchmarkModeEigen), and the products are then S v
// from S's upper triangle (symvUpper, AVX2; dotRows for dimensions not
// a multiple of 4 and in the purego build). Eigenproblems up to
// 16 x 16 are solved densely. Memory is O(M max_n I_n + I_n^2 + threads x
// grain x max_n I_n + threads x log2(M) partials), plus O(M P) for UMPCA's
// and TROD's training features and the optional cache.
//
// PCA and the eigen steps of MPCA and CSA need the top P eigenvectors of
// a formed symmetric matrix (PCA: the M x M Gram matrix X X^T when M < D,
// else the D x D scatter). PCA forms the Gram matrix of the centred
// samples by the blocked AVX2 dot kernel of gram.go (about 15 G FMAs per
// CPU second, 0.7 of the peak) or, when every value of the samples is an
// integer in [-255, 255] (uint8 images and silhouettes, and float data
// holding such values), exactly (gramint.go): X0 X0^T of the raw samples
// by a 16-bit integer 3 x 4 dot kernel (VPMADDWD: 16 multiply-adds an
// instruction; about 50 G a CPU second measured at 3000 x 6000), centred
// in int64 arithmetic as (M^2 K0 - M (U 1^T + 1 U^T) + V) / M^2 and
// rounded once, the same whatever the blocking and the threads since
// integer sums are exact. On the PCA 3000 x 6000 row (integers 0..255 as
// float64; M^2 D / 2 = 27 G multiply-adds) the Gram matrix took 1.84 CPU
// s in float64 and takes 0.56 s exactly (1 thread, go tool pprof, loaded
// machine); block Lanczos (below) was then two thirds of that fit, about
// 1.7 CPU s, of which the block products with the formed matrix about
// 1.2 (memory-bound: each reads the 72 MB matrix, 7 G FMAs a CPU second
// against 14 when the matrix fits in the cache).
//
// For those products the integer path now keeps the matrix as int32
// (gramop.go): K = L + e 1^T + 1 e^T exactly, with L_ij = K0_ij - g_i -
// g_j integers of the size of K's entries (g_i the integer nearest
// U_i / M - V / 2M^2) and |e_i| <= 1/2 from an exact int64 numerator, so
// a product reads 4 bytes an entry instead of 8 (36 MB at 3000 x 3000)
// and adds the rank-2 term; a 3 x 4 AVX2 kernel converts each 4 entries
// of L once (VCVTDQ2PD) for 4 rows of the block, over chunks of 512
// columns (256 measured 8.5, 512 11.0 G FMAs a second). The raw K0 z
// with a rank-2 centring, the obvious alternative, would lose about 250x
// in accuracy to cancellation (K0's entries are those of K plus the
// squared mean, 1e8 against 4e5 off the diagonal), too much for the
// 1e-13 residual; L z has none. The operator applies the exact K (to
// e's rounding), so the acceptance residual is computed against the exact
// centred matrix; the formed float64 K stays for the tridiagonal and
// dense paths when Lanczos does not serve. BenchmarkIntGramApply, 3000 x
// 3000, blocks of 8, 1 thread: 10.2-11.3 G FMAs a second against 6.6-7.5
// for the float64 rows (1.4-1.6x); in cache (n = 300) both about 15. A
// 1 x 8 kernel (one row of L against all 8 rows of the block, 8
// accumulators, 9 loads for 8 FMAs) was tried first and not kept: 11 G
// FMAs a second in cache, 7.9 from memory, no faster than float64.
// Profile of the whole 3000 x 6000 fit after it (1 thread, go tool
// pprof, per fit): block products 0.75-0.80 CPU s, K0 0.50-0.60, the
// Lanczos basis's orthogonalisation, projection and Ritz vectors (dots)
// 0.45, Dsyev of the projected matrix 0.16, the transform X^T V 0.15,
// reading, narrowing and converting the samples 0.2. At 2 threads every
// part costs 10-25% more CPU (the two cores share the memory's rate), so
// the 2-thread wall time is about 1.6 times less than 1 thread's at best.
// Wall time with 2 threads, per step (a temporary timer, one fit, loaded
// machine): Gram 0.39-0.60 s, block Lanczos 0.99-1.35 s, of which the
// products 0.43-0.56, the orthogonalisation 0.30 and Dsyev 0.23-0.27 on
// one core (the dot products with the basis were split between the
// threads only from 4 M multiply-adds, a basis of 175 vectors). Since:
// every dot product with the basis is split by rows like the products
// (from 2^18 multiply-adds, on a pool of helpers started once per
// lanczosTop, so no allocations per call; since, on the fit's team), the Ritz step takes the top
// 2P pairs of H by Dsytrd and inverse iteration plus one modified
// Gram-Schmidt pass (about 8 ms against Dsyev's 25 at m = 196; Dsyev is
// the fallback), and uint8 samples (given or narrowed) go to int16
// straight from their block, the map X^T V reading them there, with no
// 144 MB float64 copy. After (same timer): Gram 0.54-0.64 s (0.42 s alone
// under the lock, 0.86 on 1 thread: it scales), Lanczos 0.76-0.98 s
// (products 0.39-0.51, orthogonalisation 0.15-0.19, Ritz steps with the
// Ritz vectors 0.15), map 0.08-0.10, input 0.02-0.04. bench/run.py -k
// pca-3000x6000,gait-pca -r 3 --no-sklearn-full --gofit-before (and
// --library-before) the session's start, 2026-11-26 22:40 UTC, wall min /
// median: with --threads 2, Go 1.78 / 1.96 s against 2.16 / 2.18 before,
// Python 1.66 / 1.79 against 2.21 / 2.27, gait 0.19 / 0.27 against 0.27
// / 0.31; with --threads 1 --blas-threads 1, Go 2.46 / 2.56 against 2.77
// / 2.79, gait 0.28 / 0.29 against 0.32 / 0.38.
//
// Since (2026-11-27): one team per fit. Block Lanczos's pool of helpers
// (goroutines woken through a channel at each of its parallel calls,
// about 5 a block, while the runner's team sat idle) is gone: the products, the orthogonalisation's and the Ritz step's dot
// products, the Gram matrix, its operator and the map deal their tasks to
// the runner's members (tasks, gram.go), which take one within a
// microsecond. Those steps poll Options.Cancel themselves, so they no
// longer run on a goroutine of their own under interruptible (only the
// LAPACK fallbacks of topEigenvectors do). The exact Gram matrix sums
// whole rows per kernel call (up to 2^15 columns: the int32 sums' bound)
// in panels of 96 columns, widest first (the panels alone: 38-44 -> 45-53
// G multiply-adds a CPU second, 1 thread), and sums K0 in int32 when
// D 255^2 < 2^31, which becomes the operator's L in place: no float64
// Gram matrix is formed for Lanczos (72 MB less at M = 3000; intGram.sym
// forms the same bits if a fallback path needs it), and L's lower
// triangle is mirrored by 64 x 64 blocks. Per step (the temporary timer,
// 2 threads, lightly loaded machine): Gram matrix with its operator
// 0.32-0.48 s (before: its panels alone 0.59), products 0.43-0.49,
// orthogonalisation 0.15, Ritz steps 0.13-0.14, H 0.04-0.05, map
// 0.07-0.10. bench/run.py -k pca-3000x6000,gait-pca -r 5 --threads 2
// --no-sklearn-full --gofit-before /work/before/gofit-bin
// --library-before /work/before/build/libsompca.so (before = bd7aebc,
// normal priority, 2026-11-27 01:08 UTC, wall min / median): Python 1.29
// / 1.48 s against 1.72 / 2.03 before, Go 1.22 / 1.57 against 1.76 /
// 1.96, scikit-learn's default 1.63 / 2.10 (1.26x Python, 1.33x Go by
// the minimum); gait Python 0.136 / 0.182 s against 0.216 / 0.245, Go
// 0.159 / 0.175 against 0.198 / 0.225, scikit-learn 0.55 / 0.67.
//
// Tried for that row and not kept (measured this session, 1 thread, CPU
// seconds on the loaded machine): Lanczos on the data, C Z = X^T (X Z) in
// one pass over X per block (2 M D b multiply-adds a block, no Gram
// matrix): it needs as many products as the Gram path, about 1000 vectors
// for P = 10 as for P = 50 (on these flat random spectra the residual
// criterion, not P, sets the count), so 36 G multiply-adds against 27 G
// to form the Gram matrix plus 9 G of products with it, and it measured
// 6.5-7 s of Lanczos against 1.4-1.8 s (plus 1.8 s for the float64 Gram
// matrix); the path would win only where the products needed are fewer
// than about M / 4, which these rows never are. Block products reading
// only the upper triangle (half the memory traffic; a new 3-row update
// kernel) ran no faster (about 7 G FMAs a CPU second both ways at n =
// 3000). Blocks of 4 to 16 and restarts keeping 2P to 4P Ritz vectors kept
// the Lanczos time within 10% of the chosen 8 and P (blocks of 4 need 726
// products, but 181 passes over the matrix against 126). A Rayleigh-Ritz
// step inside the cycle where the residuals' fall predicts convergence
// saved 4% of the products (1010 -> 970) but stops nearer the tolerance,
// and moved a PCA case of the v1 fits by 4e-12 (TestV1Fits allows 1e-12):
// not kept either.
//
// When P is at most 6% of the dimension n (and the basis below
// fits in n/2) they come from block Lanczos with full reorthogonalisation
// and thick restarts (lanczos.go: blocks of 8, 2P Ritz vectors kept at a
// restart, found by the tridiagonal reduction and inverse iteration, a
// fixed-seed start, products by the same dot kernel), accepted
// at an explicitly computed residual ||A v - lambda v|| <= 1e-13 lambda_1;
// otherwise from the tridiagonal reduction (Dsytrd) and inverse iteration
// for the P vectors only, and below n = 64 from the dense
// eigendecomposition (the switch set by BenchmarkTopEigenvectors). Every
// path gives the same result whatever the number of threads, and fixSign's
// sign convention.
//
// # Mode updates
//
// A TVP mode update gets its scatter in one of two ways
// (Options.ModeUpdates):
//
//   - rows (OpModeRows): the pass keeps the M x I_n partial projections and
//     the eigenvector comes from Krylov products Y^T (Y v), as above. It is
//     the cheaper update where the samples are read (the pass makes no
//     rank-16 update of a scatter per leaf: 1.15x less CPU on gait-size
//     samples), at the price of M max_n I_n values of workspace and, in a
//     distributed pass, n I_n values per block moved to the driver.
//   - scatter (OpModeScatter): the pass folds the I_n x I_n scatter Y^T Y
//     like any sum pass, and the eigenvector comes from it (densely up to
//     16 x 16, else Krylov products with the formed matrix). A block's
//     partial is I_n^2 values per subtree whatever its size, so a
//     distributed pass moves O(I_n^2) per block instead of O(n I_n).
//
// The default, ModeUpdatesAuto, resolves by one rule of the data's shape
// alone (ModeUpdates.Resolve): rows when the partial projections, M x
// max_n I_n values, are at most RowsLimit (2^20 float64, 8 MiB), the
// scatter beyond. The rule never looks at threads, the memory limit, the
// source or the executor, so Model.Fit (the C API's sompca_fit and
// sompca_fit_hdf5, the Python estimators on arrays and HDF5 files, the
// command line), Model.FitWith and fit Sessions (the C ABI's fit sessions,
// the Python Dask driver) make the same choice for the same data, and a
// default local fit equals a default distributed one bit for bit (with
// blocks of whole BlockMultiples).
//
// The two compute the same scatter with the sums in another order, so
// their models agree to rounding (both match the reference fixtures to
// 1e-10), not bit for bit. Set ModeUpdatesRows or ModeUpdatesScatter (C:
// opts.mode_updates = SOMPCA_MODE_UPDATES_*; Python: the estimators'
// mode_updates=) to force one; a fit is bit for bit the same between Fit
// and FitWith (or a Session) given the same choice.
//
// # Passes
//
// Every pass over the samples is a map over blocks followed by an ordered
// fold, and the engine says so explicitly:
//
//   - a Pass is a value describing the pass: its Op (what is computed per
//     sample) and its operands (the mean to subtract, the vectors to
//     contract each mode with, the per-sample coefficients of TROD's
//     deflation and UMPCA's cross term, the factor matrices of MPCA/CSA);
//   - Pass.Partial (and Pass.BlockSpans for a whole block) is a pure
//     function: the partial result of a block of samples, computed from
//     the pass and those samples only, with a caller's Workspace;
//   - the partials of a sum pass are folded by a fixed reduction tree over
//     leaves of Pass.Grain() samples (16; 64 for PCA's D x D scatter):
//     the value of leaves [lo, hi) is that of [lo, mid) combined with that
//     of [mid, hi). Fold does this from the Spans (whole subtrees) that
//     blocks produce; a rows pass (projections, centred rows, transforms)
//     just places each block's rows;
//   - an Executor runs the passes of a fit. Model.Fit uses the local one
//     (a team of Options.Threads goroutines, started once per fit, reading
//     the Source in runs of whole 256-sample units); Model.FitWith takes
//     any other, such as a driver that computes blocks on other machines;
//   - a Session (session.go) is such an executor turned inside out for
//     drivers in other languages (the C ABI's fit sessions, the Python
//     Dask driver): the engine runs on its own goroutine, each pass is
//     handed out as per-block requests (bytes), PassPartial computes a
//     block's partial where the block lives (its whole subtrees, plus the
//     fragments of leaves its boundaries cut), and the session folds them
//     in block order. Blocks starting at multiples of BlockMultiple give
//     Fit's model bit for bit; for samples of order N >= 3 a per-block
//     cache, which the caller keeps, plays the local runner's cache of
//     X x_1 u^(1).
//
// The tree, not the order in which leaves finish, fixes every addition,
// so a fit is bit for bit the same whatever the number of threads, the
// size of the Source's reads, or the split of the samples into blocks of
// multiples of BlockMultiple (64) samples. Locally a leaf that finishes
// second of two siblings combines them, so the fold runs in parallel and
// no goroutine waits for another's grain.
//
// A sweep's passes (samples of order N >= 3; modes numbered 1..N here,
// 0..N-1 in the code). A mode-n update needs every sample contracted
// with the current vectors of all modes but n. For samples whose values
// are all float32 values (uint8 values are; the sum pass checks,
// fitter.float32Values; Pass.Lead = 0) the contractor
// (contract.go) makes the first contraction, the only one over all of a
// sample, by the exact integer kernels when the sample's values are all
// uint8 values (see Kernels), else in the sample's own type: for n = 1
// one dot product of each
// of the I_1 rows with the Kronecker product of the other modes' vectors
// (u^(2) (x) ... (x) u^(N), prod_{k>1} I_k values, up to 4096 of them;
// past that, and for N = 2, the trailing mode first), for n >= 2 the axpy of the I_1 rows with u^(1),
// which leaves Z = X x_1 u^(1) (prod_{k>1} I_k values), contracted
// further in float64. Z depends only on u^(1), which stays fixed from
// the mode-2 update to the end of the sweep, so the mode-2 pass keeps Z
// of every sample in a cache (M x prod_{k>1} I_k float64; when
// Options.MemoryLimit leaves room, see cacheFits), contracting each
// sample's fresh Z further while it is still in L1, and the passes of
// modes 3..N read the cache instead of the samples (runner.runCached; a
// session's per-block cache likewise). Either way the operations are
// those of contractor.partial, so the cache changes only the speed.
//
// Every EMP starts from the same uniform vectors, so the mode-1 pass of
// every EMP's first sweep contracts the samples with the same vectors and
// subtracts the same offset: the fit keeps those partial projections
// (tvpFit.start, M x I_1 float64, when they fit in what the memory limit
// leaves beside the cache) and later EMPs copy them, one sample pass fewer
// per EMP (TROD, whose deflation changes them, makes them anew; so do
// samples of prod_{k>1} I_k < 128 values, startMinRest, where they would
// be more than 1/16 of the uint8 samples' bytes: 2 MB against 16 for
// 4000 x 64 x 64, which raised that fit's peak memory by as much). With
// relaxed start that is P - 2 of
// (P - 1) K N passes: gait P = 32, K = 20, 30 of 1860, 30 of the 620
// mode-1 passes on rows of 220. Gait uint8, bench/gofit 1 thread, 15
// interleaved fits under chrt: 0.861 / 0.906 -> 0.797 / 0.872 s (min /
// median; the machine's noise is of the same size); faces uint8 within
// the noise. TestUniformStartKept checks the fits against those that
// make them anew.
//
// Per sweep that is 2 passes over the samples (modes 1 and 2) and N-2
// over the cache; before (to bfb8007) it was also 2 and N-2, but the
// cache was X x_N u^(N) (prod_{k<N} I_k values), the mode-1 pass filled
// it by dot products over rows of I_N values, and the mode-N pass read
// the samples. For the gait samples (32 x 22 x 10, uint8) a sweep now
// moves 2 x 7040 sample bytes and writes and reads 220 cached float64
// (17,600 bytes, was 25,344 with the 704-value cache), and both sample
// passes run on rows of 220 (dotRows with the Kronecker vector, axpyRows)
// instead of one on 704 rows of 10, whose short rows ran the uint8
// kernel at 5 G elements/s instead of 8.3. Measured per pass
// (BenchmarkPassThreads, uint8, 1 thread, real-time priority, ms):
// before 1.04 (fill the cache) + 0.16 (read it) + 0.69 (samples) = 1.89
// per sweep; now 0.62 (Kronecker) + 0.63 (fill) + 0.14 (read) = 1.39;
// float64 4.33 -> 3.83. A uint8 fit of 620 sweeps does about 0.79 s of
// its 0.91 CPU s in the two sample passes' kernels (go tool pprof).
// Whole fits (SO-MPCA-RS, P = 32, K = 20; bench/gofit and sompca through
// Python, 5 interleaved runs of the build before and after, real-time
// priority on the loaded machine, min / median wall s): uint8, Go 1
// thread 1.25 / 1.30 -> 0.96 / 0.97, 2 threads 0.69 / 0.79 -> 0.52 /
// 0.59; Python 2 threads 0.74 / 0.90 -> 0.54 / 0.59; float64, Go 1
// thread 2.98 / 3.52 -> 2.34 / 2.64, 2 threads 1.45 / 1.71 -> 1.13 /
// 1.44; Python 2 threads 1.49 / 1.65 -> 1.11 / 1.31 (float64 measured
// before exact narrowing, which now reads these integer-valued samples
// as uint8; the figures hold for float64 samples that do not narrow).
//
// Two threads inside the fit: the uint8 passes alone scale 1.97x
// (BenchmarkPassThreads, once the machine was quiet), the fit 1.8x at
// best (min of 5; medians 1.6-1.7x on the loaded machine). The serial
// work on the caller is small (about 2% of a 1-thread uint8 fit outside
// the team's sections: the Krylov steps on the formed S, the offsets),
// and the 46 leaves split 23/23. What a pass loses at 2 threads is
// memory: the pass over the cache reads Z at 61 us per pass when Z
// stays in each core's L2, but 93 us when a pass over the samples ran
// just before and streamed 2.5 MB through each core's 512 KB L2 (at 1
// thread it costs 110 us either way): Z then comes from L3, which the
// two cores of this virtual machine share slowly. On the loaded machine
// the same pass benchmark scaled only 1.67x, so the fit's ratio there
// says as much about the host as about the code.
//
// Samples that need float64 take fewer passes, through a cache whose
// mode rotates (tvpFit.lead, Pass.Lead): a cache of X x_k u^(k) can only
// be formed after the mode-k update and serves at most the N-1 updates
// until u^(k) changes again, never mode k's own; so the updates t = kN +
// n of an EMP go in runs of N-1 from t0 = 0, N-1, 2(N-1), ..., the run
// from t0 contracting the samples in mode t0 - 1 (mod N) first: its
// first pass reads the samples and fills the cache (X x_N u^(N), then
// X x_{N-1} u^(N-1), ..., X x_1 u^(1) in turn), the next N-2 read the
// cache. A sweep reads the samples N/(N-1) times (gait: 3 in 2 sweeps)
// instead of 2. The order is a property of the update (k, n), the shape
// and whether the values are all float32 values, never of the path: a
// pass whose cache is missing (no room, a session's cache lost) reads
// the samples and contracts them in the same order
// (contractor.partialLead is the one-sample reference), so the bits are
// the same. The first contractions then run over modes other than the
// first, on short rows (gait: X x_3 u^(3) is 704 dot products of 10
// values, X x_2 u^(2) 32 axpys of 22 rows of 10), more work than mode
// 1's: the exact uint8 kernels take 2.6-3.4 times as long (1.3 and 1.7
// against 0.5 ms a pass of the 731 gait samples in one thread), and
// float32 samples (gait: 20 MB, read from L3) lost at 2 threads (0.62 /
// 0.68 s a fit with mode 1 first, 0.74 / 1.02 rotated): samples of
// float32 or uint8 values keep 2 passes of the fast kind. Float64
// passes are bound by the memory, and every kind of first contraction
// takes about as long (3.5-4.3 ms a pass, float64 gait+frac, 1 thread):
// per two sweeps 3 passes instead of 4. The cache takes up to M prod_{j
// != k} I_j float64 (gait: 704 values a sample, 4.1 MB for 731 against
// 41 MB of samples), sized for the longest rows that fit in what
// Options.MemoryLimit leaves; the passes whose rows do not fit read the
// samples. Such fits keep no start projections (tvpFit.start): the
// first run of every EMP contracts the samples with the uniform u^(N),
// the same vector in every EMP, so the runner keeps the first EMP's fill
// of that cache (runner.kept, from what the memory limit leaves beside
// the rotating one: 4.1 MB for gait) and the later EMPs' first runs read
// it instead of the samples: K N/(N-1) - 1 sample passes an EMP (gait,
// K = 20: 29 instead of 30; TestSweepReads counts them).
// SO-MPCA-RS, P = 32, K = 20, on gait float64 with fractions
// (bench/gofit, the build before (ab45f15) and after interleaved under
// flock and chrt, min / median s): 1 thread 3.66 / 3.79 -> 2.87 / 3.06
// (5 runs each), 2 threads 1.47 / 1.99 -> 1.52 / 1.73 (13 runs each,
// after faster in 11 of the 13 pairs; the machine's noise at 2 threads
// is of the size of the gain); float32 and uint8 unchanged.
//
// What bounds that fit at 2 threads (2026-11-27): its 900 sample passes
// (41.2 MB each, 37 GB a fit) take 85-90% of its time on either thread
// count (timers around runner.run, not kept). bench/streamread reads an
// array with AVX2 loads and nothing else, each thread its contiguous
// share, every other pass backward as the runner's turning passes do;
// interleaved with the fit under flock and chrt, 5 rounds (range,
// median, GB/s): one core reads 41.2 MB at 19.9-22.6 (20.7) and 200 MB
// at 18.7-20.0 (19.1), two cores 34.5-50.7 (40.2) and 27.4-33.3 (29.8).
// The fit's sample passes run at 12.6-14.9 (13.7) on 1 thread and
// 22.8-31.6 (26.0) on 2: 0.63-0.72 and 0.60-0.81 of what the same
// cores read from the same 41.2 MB, 0.84 (median) of two cores' rate
// from memory. So the fit is not at the memory's rate on either count,
// and the memory does not cap its ratio at 1.7x: two cores read 1.74-2.25
// (1.93) times what one does on these 41.2 MB (1.45-1.74, 1.56, on 200
// MB that stay in memory), and the passes scaled 1.64-2.24 (1.93) times
// in the same rounds. Both counts lose about a third of the read rate
// to work the reads do not hide (the first contraction is about 1 ms of
// one core's time a pass of the samples in cache, the finish and the
// cache's writes more); the middle-mode slices in one call
// (axpySlabsAsm) took 1.5x less CPU than a call each. Fit times move
// +-15% between rounds on this machine, the rates alike.
//
// Why 16-sample leaves: the gait case (M = 731) has 46 leaves, so 2
// threads get 23 each (balance 100%), and 16 threads get at most 3 of
// 2.9 on average (46/48 = 96% busy); the 256-sample grains of the first
// engine gave 3 grains, which 2 threads could not balance (2 of 1.5 =
// 75%). A leaf of 16 gait samples is about 16 x 7040 = 113,000 FMAs
// (~30 us on one core), while its I_n x I_n partial costs at most 528
// additions to fold: the fold and the bookkeeping stay below 2% of the
// work. PCA's scatter folds D^2/2 values per leaf against 16 D^2/2 FMAs
// of work, hence its 64-sample leaves.
//
// The team: a fit's goroutines form a team (team.go) that runs all its
// parallel work: the passes' leaves, the Krylov products with the
// partial projections Y, the formation of S = Y^T Y (eigen.go
// gramApply, formS), and the eigen steps of PCA, MPCA and CSA (block
// Lanczos, PCA's Gram matrix and map: tasks, gram.go). The faces fit (721 x 80 x 60, P = 60, K = 20) hands
// work to it about 9,400 times (2,400 passes of 0.3-0.6 ms and three steps
// per formation of S), between serial eigen steps of about 0.06 ms, so a
// handoff must cost far less than the work: waking a parked goroutine
// costs tens of microseconds on this virtual machine. A member therefore
// spins between tasks (4096 polls of an atomic counter, then polls with
// sched_yield, at most teamSpin = 200 us, then parks on a channel) and
// takes a task in 0.2-0.4 us (BenchmarkTeam/Handoff, 2 threads). Members
// also own data: member w takes the w-th run of each read's leaves (then
// helps the others), so the same samples pass after pass, and the 64-row
// chunks of Y it wrote, for the products and for S, which is formed by
// chunks of rows summed by a fixed tree (bit for bit the same whatever the
// threads). On a virtual machine a cache line moving between cores costs
// far more than its arithmetic: when both cores read all of Y to form S,
// the next pass's writes to Y cost the faces uint8 fit 0.5 CPU s more
// than the pass's work. Measured (bench/gofit, chrt -f 10 so that the
// shared machine's load did not count, min of 5 fits, 1 and 2 threads in
// one run): faces uint8 1.74 -> 1.14 s (1.53x), float64 3.45 -> 1.41 s
// (2.4x), gait uint8 1.30 -> 0.81 s (1.6x), float64 2.69 -> 1.18 s (2.3x);
// in float64 each core keeps its half of the samples in its own cache,
// hence more than 2x. What does not overlap is the eigen step on each
// mode's formed S (Lanczos steps and Ritz values, on the caller): about
// 0.3 s of the faces uint8 fit's 1.74 s at the time of those figures,
// about 0.2 s since the Ritz step's Rayleigh quotient iteration and the
// single-pass (DGKS) reorthogonalisation (krylov.go ritz, reorth).
//
// What bounds 2 threads, measured 2026-11-26 (faces 721 x 80 x 60 uint8,
// P = 60, K = 20; timers around the steps of a fit in a build not kept,
// 3 fits each, chrt -f 10 on the loaded machine): 1 thread 1.80-1.87 s,
// of which the passes 1.19-1.29, forming S 0.38-0.41 and the Krylov
// iterations on S 0.17-0.20; 2 threads 1.05-1.22 s, of which the passes
// 0.65-0.70 (1.8-1.95x), forming S 0.29-0.34 (1.2-1.4x) and the Krylov
// iterations still 0.17-0.18. Those iterations are the serial part: each
// Lanczos step needs the one before, and costs about 2.5 us (S v 0.8,
// the projection against the up to 59 constraint columns 0.8, the
// reorthogonalisation 0.3, a Ritz step every other product 1); splitting
// a step over two cores would take two or three hand-offs (0.25 us each
// back to back, BenchmarkTeam/Handoff) and move its vectors between the
// cores, about what it would save. About a third of them is the first
// mode-0 update of each EMP, from the uniform start: 39 of the 60 use up
// their 128 products and fall back to the dense eigendecomposition (about
// 1.1 ms each; 0.6 since it finds only the top pair, below). By Amdahl's law 0.18 s serial of a 1.85 s fit caps 2
// threads at 1.85 / (0.18 + 1.67 / 2) = 1.8x, before any loss of the
// parallel parts. Forming S scales 1.75-2.0x when the same Y is formed
// again and again (each core's 512 KB L2 keeps its chunks: lscpu's "1 MiB
// (2 instances)"), but in a fit each pass streams 1.7 MB per core through
// L2 in between, so the chunk scatters and the fold's reads of the other
// core's spans come from L3. The hand-offs matter less: member 1 starts
// a pass on average 3-40 us after the caller (7-93 ms a fit in all), and
// the caller takes its leaves meanwhile. Gait 731 x 32 x 22 x 10 uint8: 1
// thread 0.88-1.04 s of passes and 0.07-0.09 of eigen steps, 2 threads
// 0.49-0.55 and 0.06-0.09. Whole fits (bench/run.py -k faces-u8,gait-u8
// -r 3 --threads 2 --scaling --blas-threads 1, min / median, two runs):
// faces uint8 2 threads 1.09 / 1.13 and 1.06 / 1.23 s, 1.80x / 1.82x and
// 1.66x / 1.50x one thread; gait uint8 0.64 / 0.65 and 0.56 / 0.65 s,
// 1.75x / 1.71x and 2.00x / 1.71x. The spread is the machine's. Where
// the gait uint8 fit's time goes on 2 threads (2026-11-27: perf record
// -F 4000 -g of 3 fits of bench/gofit -threads 2 at chrt -f 10, samples
// by call stack): 88% in the team's tasks (passes, forming S), 3.6% on
// the caller alone (the eigen steps on S: Dsyev for the small modes,
// Ritz steps, Krylov products; 0.044 s a fit), 7.7% waiting in the team
// (5.8% a member, while the caller works alone or finishes its last
// leaf; 2.0% the caller, for the member's last leaf). The tasks took no
// more CPU than with 1 thread (3 fits at -threads 1 in the same minute:
// 14,700 samples in all, as many), so the ceiling is (tasks + serial) /
// (all / 2) = 1.83x; what is missing to 2x is the serial eigen steps and
// the end of each of the ~2,000 passes of a fit, where one thread
// finishes a leaf of 16 samples (about 10 us on one thread) while the
// other waits. Whole fits
// (bench/run.py -k gait-u8 -r 5 --threads 2 --scaling, which now
// settles 1 s before each timed call): 2 threads 0.570 / 0.639 s, 1.78x
// / 1.63x one thread (min / median). With
// samples that stay float64 or float32 (gait with fractional values;
// bench/gofit, 3 interleaved) 2.30x / 2.21x and 2.47x / 2.71x, each core
// keeping its half of the samples in its cache.
//
// One thread on samples that stay float (2026-11-27): the faces 721 x 80
// x 60 float64+frac fit makes 2,360 rows passes over its 27.7 MB with
// the same kernels, reads and mode updates at 1 and 2 threads, and
// nothing else that counts (timers around runner.run, in a build not
// kept): 13-18 GB/s at 1 thread, 35-42 GB/s at 2, hence 2.5-3.2x. One
// core streams 12-16 GB/s from memory and 30-40 from cache, and keeps
// samples of 10-14 MB in cache where two keep 20 (rows passes of modes 0
// and 1 in turn, float64: 20 MB 11-15 GB/s on one core, 40-76 on two;
// 10 MB 34 on one): at 27.7 MB one core finds almost nothing in cache.
// Huge pages made no difference (the pages of the virtual machine's host
// are likely small). So every other pass over the same data walks it
// backward (runner.run), starting on the samples the pass before read
// last, which the cache still holds: each member takes its run from the
// other end (about the same samples, kept by its core), and a rows pass
// over samples in memory takes the reads in reverse order too. Only the
// order changes, never a sum (TestPassOrder). bench/gofit, before and
// after interleaved under chrt -f 10, min / median of 4: faces float64
// 1 thread 5.03 / 5.25 -> 4.50 / 4.67 s, 2 threads 1.70 / 1.88 -> 1.58
// / 1.79; gait float64 (41 MB, two reads) 1 thread 3.71 / 4.31 -> 3.30
// / 3.89, 2 threads 1.78 / 2.18 -> 1.76 / 1.94; gait float32 and uint8,
// faces uint8 within the noise (min ratios 0.93-1.18, medians 0.95-1.16,
// n = 5). At 2 threads, where two cores keep most of the samples anyway,
// it is within the noise: two more runs of 9 interleaved pairs each,
// faces float64 min / median ratios 0.82 / 0.97 and 0.95 / 1.07, gait
// float64 0.94 / 1.12. A pass that ends in cache thus serves the next one
// 10-12% at 1 thread.
//
// Accounting the team's time: a build with the teamstats tag (go build
// -tags teamstats ./bench/gofit; teamstat_on.go, the hooks in team.go are
// empty otherwise) times every task of the team (the caller's share, each
// member's start and share, the waits at the end) and the caller's time
// between tasks, and prints the totals by task at the end of a fit.
// Measured 2026-11-27 at a18a0c8 (chrt -f 10, 1 and 2 threads
// interleaved, medians of 4 fits; ms): gait uint8 1 thread 795 (755 in
// tasks, 40 between), 2 threads 468 = 378 (half the 1-thread tasks) + 43
// serial + 17 idle in tasks + 28 more CPU for the same tasks, 1.70x;
// faces uint8 1460 (1302, 158), 2 threads 868 = 651 + 156 + 34 + 28,
// 1.68x. The passes run at 1.96-1.99 busy cores of 2, even those under 64
// us (a member takes a task 0.2-0.6 us after run, median): the hand-offs
// and the waits cost about 2% of the 2-thread time, and running small
// passes on the caller alone would not gain. What stays is the serial
// eigen step (Amdahl: faces' 156 ms cap it near 1.8x) and the extra CPU
// of the same work when both cores run. That extra comes and goes with
// the spell, not with the code. Measured 2026-11-27
// (SOMPCA_TEAMSTATS_CPU=1 has the teamstats build read each share's
// thread CPU time; its "off" column is the time a thread spent off its core): faces uint8, fits at
// 1 and 2 threads interleaved under chrt, medians; in a quiet spell (5
// fits each) passes 798 and 797 core-ms, forming S 287 and 282, its fold
// 13 and 24; in a busy one (6 fits each) 1,232 and 1,541 core-ms in
// tasks, 7 of them off the core (gait 735 and 832, 1 off): slower
// execution, not preemption. BenchmarkPassForm (the rows pass and S's
// forming of both faces modes back to back, teamstats) sums to the same
// CPU on 1 and 2 goroutines (passes 889 and 893 core-ms per 1,200
// updates, forming 360 and 350), as do two goroutines forming scatters
// of private data. The two virtual CPUs' cache-line round trip
// (BenchmarkPingPong, linux: an atomic ping-pong between threads pinned
// to each) read 66-117 ns in
// some runs and 400-770 ns in others seconds apart, as if the host moved
// them between cores sharing an L3 and cores that do not (the guest sees
// one L3 either way); the tasks' extra CPU followed it only loosely (one
// reading before each fit: +9% after the slow readings, -3% after the
// fast, 3 fits each). The fold of S costs more at 2 threads in every
// spell: it reads the other member's spans, and the rows of S it writes
// are read by the caller next. Tried and not kept: forming S's fold on
// the caller alone (S is then written where the eigen step reads it;
// forming alone 10-20% slower at 2 threads, the fit within the noise);
// the fold evaluated row by row from the spans' rows, writing nothing
// but S (on the two members: fold CPU 29 -> 65 core-ms a fit, medians of
// 8 fits; on the caller alone: its serial time +30-38 ms); the members
// forming only their own chunks' parts, taking none of the other's (idle
// at the end of the forming 5-11 -> 5-54 ms a fit, its wall 145-250 ->
// 165-278 ms, 8 interleaved fits); a partial-projection buffer per mode,
// so that a sample's rows stay with the member that owns it from one mode
// to the next (no change); and rows passes over samples in memory in one
// read rather than reads of 512 (gait: 1,833 team tasks a fit instead of
// 3,666, idle in the passes 11 -> 6 ms, the fit within the noise).
//
// The hand-offs themselves are cheap (2026-11-27, gait uint8 at 2 threads,
// teamstats, fits of the build before and after interleaved under flock
// and chrt, 24 fits each unless said): the tasks' idle time (twice each
// task's wall less its shares) is 12.8-13.9 ms a fit at the minimum and
// 24-25 ms median over the fit's 7,432 tasks, under 2 us a task; S's
// forming takes 31 ms a fit at 2 threads against about 42 core-ms at 1,
// and removing one of its two tasks did not change that (below), which
// suggests that what it pays for is the reads of the other member's values
// (the fold, the stolen parts), not the tasks' starts and ends. Tried, and
// not kept, to cut the tasks of a mode update from four: formClimb carried
// on to the root of the tree for S up to 32 x 32, the member completing
// the root writing S, so that formRowsFold's task goes (forming 30.8 ->
// 31.4 ms a fit median, 54.4 -> 55.0 core-ms: the cross-member additions
// and S's rows then come from one core, in series; faces' 60 and 80 slower
// in a run of 6 fits); the rows passes over resident samples in one read
// again (tasks 7,432 -> 5,601, idle 13.9 -> 9.7 ms a fit at the minimum,
// the span 447 -> 490 ms median: within the noise, the forming slower);
// and each chunk's scatter computed inside the rows pass by the member
// that writes its last rows, added up the whole tree there, so that S is
// formed when the pass returns (one task a mode update instead of three:
// the passes' wait at the end 4.1 -> 16.3 ms a fit, 6 fits each, the last
// chunk's scatter and the tree's top made after the other member is done).
// The team part of a gait sweep alone (BenchmarkPassForm/gait with a 50 us
// pause, chrt, 30 interleaved runs) took 0.994 and 1.017 times as long
// (medians) at 2 and 1 threads with the first two together. Measured and
// not kept, under 1% of the fit: each chunk's scatter at the same place
// for every mode (a stride of the largest n^2, where chunk c of mode n sat
// at c n^2), so that its member writes lines its own core wrote the update
// before (the chunks' task 54.9 -> 49.5 and 56.2 -> 54.8 core-ms a fit,
// 30.8 -> 27.9 and 31.0 -> 30.0 ms wall, two runs). The team part alone
// scales when the host is quiet: BenchmarkPassForm/gait back to back with
// the teamstats tag (600 sweeps, 3 runs of each thread count, chrt) took
// 773-827 ms on 1 thread and 386-409 on 2 (1.93x by medians), the passes
// 718-771 core-ms on 1 and 691-708 on 2, the chunks' task 43-45 and 42-61,
// the fold 2.1-2.4 and 4.5-9.7; seven minutes later, interleaved with
// fits, its passes took 652-764 core-ms on 1 thread and 782-1025 on 2, the
// fits' 625-794 and 587-1059 (3 and 6 runs). So what the gait fit loses at
// 2 threads is the serial eigen step and the spells in which the same work
// takes more CPU on two cores (above), not the team's hand-offs.
//
// Still, a mode update of the gait fit is now two tasks instead of four
// (2026-11-27, session 7): a rows pass over samples held in memory, or
// over the cache z, is one read of all M samples and so one task
// (runner.rowsBlock; gait's 731 took reads of 512 and 219); S's
// formation by rows is one task whose members fold the spans after a
// barrier inside it (formRowsTask, team.gather) instead of in a second
// task; and the last pieces of a rows pass shrink to one sample
// (rowsPieceMin, was 4), so that the members end a pass within about a
// sample of each other. The chunks of S's formation are laid out by the
// rows passes' reads (eigenSolver.block, 0 for one read: chunks 0-5 to
// member 0, 6-11 to member 1, who wrote rows 0-364 and 365-730), so each
// member still forms the rows it wrote; the one-read attempt above left
// that layout on reads of 512, where about a third of the rows of Y are
// formed by the member that did not write them, which may be why its
// forming was slower. The bits do not change (TestPassOrder,
// TestFormRowsTree; TestRowsBlock, TestTeamGather and TestFormRowsPanic
// test the new parts). Gait uint8, 2 threads, teamstats, the builds
// before (75e5c2e) and after interleaved under flock and chrt, 32 fits
// each in two runs, ms min / median: tasks 7,432 -> 3,800 a fit; idle in
// tasks 9.4 / 23.3 -> 4.2 / 11.0 (the passes' 5.6 / 15.2 -> 2.2 / 6.2,
// S's formation about 3.1 / 8.1 -> 1.6 / 4.8); the caller between tasks
// 16.8 / 25.2 -> 15.9 / 23.1; the two together 26.7 / 47.9 -> 20.8 /
// 33.7; the span 315 / 418 -> 308 / 370 (faces uint8, whose rows
// passes already took one read of 721, 12 fits each: tasks 7,100 ->
// 4,740, idle in tasks 21.9 / 54.5 -> 14.1 / 36.6, the caller between
// tasks 83 / 108 -> 77 / 95, the span 663 / 807 -> 638 / 793). Gait's
// whole fits (bench/gofit, both builds and thread counts interleaved
// under flock and chrt, 30 rounds, min / median s): 2 threads 0.345 / 0.438 -> 0.340 / 0.432 (the
// new build faster in 19 of 30 rounds, paired median 1.06x), 1 thread
// 0.622 / 0.804 -> 0.614 / 0.795; paired 1- and 2-thread processes (12
// pairs each, the two builds interleaved, best of 3 fits a process):
// 1.87x and 1.80x by the median pair, within this machine's spread
// (1.67-2.48x and 1.31-2.12x). Commands: go build [-tags teamstats]
// -o B ./bench/gofit; B -data gait.raw -dtype uint8 -shape
// 731,32,22,10 -p 32 -threads 2 -repeat 2 -settle 0.5s, each process
// under flock /work/bench.lock chrt -f 20 timeout -s KILL 150 chrt -f 10.
// The teamstats build also prints the caller's time between tasks by
// the pair of tasks around it ("gap A -> B") and each task's idle time:
// of gait's 15.9 / 19.0 ms (16 fits), 12.3 / 14.0 follow S's formation
// (the eigen step, then the next pass's setup), 1.1 / 1.4 lie between a
// pass and S's formation and 1.0 / 1.2 between passes.
//
// Cancellation: Options.Cancel is polled by every leaf (every 16
// samples, about 30 us of work at the gait size) and between passes, by
// every panel of PCA's Gram matrix and of its map and before every block
// product of block Lanczos; steps that cannot poll (LAPACK's dense and
// tridiagonal eigensolvers) run on a goroutine of their own, which the
// fit stops waiting for (cancel.go, interruptible);
// Options.Progress returning false cancels after the EMP or sweep it
// reports. Either way Fit returns ErrCanceled and the model is unchanged.
//
// Workspaces: a fit allocates its buffers once (the Workspace of each
// goroutine, the runner's partial buffers and reduction-tree slots, the M
// x I_n partial projections, the Krylov basis, the dense eigen path's
// LAPACK scratch in eigenWork, the EMPs' vectors, features and
// histories; for MPCA and CSA the mode scatters, factors and complement
// bases), so that the allocations of a fit do not grow
// with the sweeps K, the features P or the samples M (TestAllocations:
// about 220 per fit, most of them the memory planner's reads of /proc and
// cgroup files; make bench-go reports them with -benchmem).
//
// # Kernels
//
// The contraction kernels (kernel.go and fixed.go; AVX2 in
// kernel_amd64.s) are the only code that contracts sample elements with
// vectors: dotRows contracts the trailing mode of a row-major block (one
// dot product per row), axpyRows the leading one (a weighted sum of
// rows).
//
// The rule: a sample whose values are all integers 0..255 (not -0.0) is
// contracted by the exact kernels dotRowsFixed and axpyRowsFixed
// (fixed.go), whatever its element type. The vector is put in fixed
// point once per vector (61-bit integers q and a power-of-two scale;
// each contractor keeps the vectors of its first contractions so, and
// the Kronecker vector's with it), and the result is the integer x . q
// rounded once to float64: a function of the sample's values and the
// vector alone, whatever the kernel's order, and nearer the true x . v
// than a chain of float64 FMAs. A float64 or float32 sample is checked
// per sample (contractor.sampleBytes, the 2^52 test of toUint8, which
// stops at the first value that is not such an integer: full-mantissa
// data cost one look) and, when its values are uint8 values, converted
// into the contractor's uint8 scratch and contracted so too; a vector
// with no fixed point (a NaN or infinity, or max |v| below 2^-961) sends
// such samples, of every type alike, to the float64 kernels for uint8, and
// so do dot products over rows shorter than 32 values (fixedDotMin: there
// the fixed kernel's whole blocks of 16 columns cost more than the float64
// kernel's widening); the choice is a function of the shape and the
// values only.
// Hence a sample's features and partial projections are the same bits
// whether it came as uint8, float32 or float64: narrowed or not (see
// Narrowing; TestNarrowedFitIsFit), handed to a session as uint8 or as
// float64 (TestSessionMixedBlocks), read whole or streamed from HDF5
// (hdf5io), in training (OpProject) or by Transform (OpTransform, which
// puts each feature's vectors in fixed point once per grain of samples);
// TestSampleBytesRule checks the rule, and the results against big.Int.
// Other samples take the float64 kernels below, each one FMA per
// element, so a core's peak is its FMA rate, 8 float64 FMAs a cycle (two
// 256-bit units; 21 G/s at 2.6 GHz). make bench-kernels reports every
// kernel's elements per CPU second and fraction of that peak, per element type, on
// one sample held in cache (BenchmarkKernels) and in whole passes as a
// fit makes them (BenchmarkPassRate). What bounds them:
//
//   - Memory, for float64 and float32 samples in passes: a pass reads
//     every element once and reuses none, so it does 1 FMA per 8 (4)
//     bytes read; at the peak FMA rate that is 166 (83) GB/s, ten times
//     what one core streams from DRAM. The gait data in float64 is 41 MB
//     a pass, more than the L3 cache, so these passes run at the memory's
//     rate, about a tenth of the FMA peak (9-14% per CPU second in make
//     bench-kernels), and faster kernels would not help; fewer passes
//     (the cache of X x_1 u^(1) for N >= 3) and fewer bytes (uint8
//     samples) do. So do huge pages: the passes walk 41 MB
//     in 4 KB pages, and a TLB miss every 512 float64 elements costs as
//     much as the elements' FMAs. Samples on transparent huge pages
//     (madvise(MADV_HUGEPAGE) on Linux, which numpy does for every array
//     of 4 MB or more, so the Python estimators get it) made the gait
//     float64 fit take 30% less CPU (4.2 -> 2.95 s, 1 thread): callers of
//     Fit and sompca_fit with large float64 or float32 samples should put
//     them there.
//   - The widening and the reductions, for uint8 samples and for samples
//     in cache. A uint8 group of 4 is widened exactly by the 2^52 trick
//     (zero-extend each byte into the mantissa of 2^52, subtract 2^52:
//     VPMOVZXBQ, VPOR, VSUBPD), so each element costs its share of one
//     shuffle, one integer op, one add and the FMA: 4 vector operations per
//     4 elements on the 4 floating-point pipes, which holds uint8 kernels
//     near 8 G elements/s per core (0.35-0.40 of the FMA peak in make
//     bench-kernels, Zen 4), float32 and float64 ones near 10 in cache.
//     Widening with one operation fewer, the zero-extended byte read as
//     the denormal x 2^-1074 and multiplied by 2^1023 (against v times
//     2^51; the same bits), took 6% off axpyRows in cache and 4% off the
//     gait fit on this AMD machine, but is not used: Intel cores handle
//     denormal operands by microcode assists, hundreds of cycles each.
//     dotRows ends each row with a horizontal sum; rows as short as the
//     gait data's trailing mode (10) go 4 at a time sharing the sums, the
//     cols mod 4 columns after the last group of 4 as one more vector step
//     on the row's last 4 columns with v masked: 5.6 G uint8 elements/s
//     there (4.8 with the scalar tail of before), 7.4 on the faces' rows
//     of 60, 8.3 on long rows. Rows of 16 to 256 columns (midRowCols)
//     now go 4 at a time too, two accumulators each, so that 8 FMA
//     chains are in flight rather than one row's 4 ending in a horizontal
//     sum: BenchmarkKernels on one sample in cache, two interleaved runs
//     each on a loaded machine, dotRows 80 x 60 uint8 6.6-7.1 -> 6.2-8.1
//     G elements/s, float32 8.9-10.0 -> 9.2-13.9, 32 x 220 uint8 6.5-7.7
//     -> 8.3-9.0; the faces uint8 fit 9% less time, 300 x 128 x 128
//     float32 4-11% (bench/run.py, 3 interleaved repeats, chrt -f 10).
//     A pass's float64 and float32 samples go through stream variants of
//     the kernels (dotRowsStream, axpyRowsStream), which take rows of more
//     than 256 bytes (float64: 33 columns and more, the faces' 60;
//     float32: 65 and more) one at a time, in the same order: from memory, four rows side by side are four streams
//     the prefetcher does not keep up with (BenchmarkKernelsStream, 721 x
//     80 x 60 float64, dotRows 2.66 -> 1.46 ms a pass), while in cache
//     (the Krylov steps, Y v) four at a time stays faster (the faces
//     uint8 fit took 10% longer with those one at a time).
//     axpyRows streams x row by row, loading and
//     storing dst once per row (per 4 rows when a row is at most 256
//     bytes), so on long rows it is bound by the loads and stores of dst
//     (3 memory operations per vector FMA), not the FMA units. Rows of 4
//     to 16 columns keep dst in registers through all the rows (4
//     vectors, the last moved back to end at the row's end), where each
//     column's chain of FMAs had waited for a store and a reload, a
//     masked one at that, every 4 rows: the gait fit's mode-3 partial
//     projections end with such a contraction from the cache, 22 rows of
//     10 a sample, 136 -> 56 ns in cache (float64, BenchmarkKernels, min
//     of 7 interleaved runs, chrt), and the kernel's CPU time in the gait
//     uint8 fit fell by half (3515, 3120 -> 1802, 1492 perf samples at 5
//     kHz over 9 one-thread fits, two interleaved runs: about 7% -> 3.5%
//     of the fit). A grain's samples now take that contraction in one
//     call (contractor.finishLead, by axpySlabsAsm, the kernel of the
//     float64 middle-mode slices: the same bits), not a call a sample:
//     finishLead's CPU time in the gait uint8 fit 0.68 -> 0.52 s over 12
//     one-thread fits and 0.84 -> 0.58 s over 12 two-thread ones, of
//     about 8 and 10 s (pprof of bench/gofit -repeat 3 -cpuprofile, 4
//     runs each, interleaved with 0d18c7b, chrt -f 10), 1-2.5% of the
//     fit.
//
// The exact uint8 kernels (dotRowsFixed, axpyRowsFixed: fixed.go, AVX2 in
// fixed_amd64.s) take the vector in fixed point as four int16 limbs and
// multiply each 16 bytes, widened once to words, by every limb with
// VPMADDWD (16 multiply-adds an instruction, into 8 int32 lanes, which
// are folded into wider sums before they can overflow): the widening and
// 8 vector operations per 16 elements against the float64 kernels' 16,
// and sums
// that are exact, so that no order or blocking changes a bit. Their loop
// bodies run at 12-16 G elements/s, about twice the float64 ones; per row
// and per 16 columns they have more to do: axpyRows converts 4 limbs
// each 16 columns, and dotRows on rows of more than 240 values sums 4
// limbs x 8 lanes a row and converts them, while shorter rows go four at
// a time, their bytes transposed so that each lane sums one row's
// products, against limbs laid out to match (fixedVec.tab), with no sums
// across lanes, and every row is a whole number of 16-column steps.
// The short rows' loop runs at the rate of the floating-point pipes for
// its mix of operations, not of the multiply-adds: 80 vector operations a
// block of 32 columns of 4 rows in 24-26 cycles (20.6 at a quieter hour),
// 3.1-3.9 a cycle on the 4 pipes; in the fits, with each quad's sums and
// the samples from L3, the kernel takes 9.2-11.6 ns per 128 elements
// (gait uint8) and 11.9-15.1 (faces), 1 thread (fixed_amd64.go).
// BenchmarkKernels, one sample in cache, min ns/op of 9-15 interleaved
// runs under chrt, fixed against float64 uint8 (see fixed_amd64.go):
// dotRows 512 x 512 1.41-1.65x, 128 x 128 1.49x, the gait's 32 x 220
// 1.13x (4 of its 32 rows through the copy for a sample's last rows; in
// a fit, where a call takes a leaf of 16 samples, 4 of 512), the faces'
// 80 x 60 1.19x (1.28x in passes over the 721 faces),
// rows of 10 (704 x 10) 0.92x; axpyRows 512 x 512 1.38x, 128 x 128 1.44x,
// 32 x 220 1.15x, 80 x 60 1.42x (before it prefetched, below). axpyRows
// with fewer than 16 columns is the Go loop. axpyRowsFixed takes two row
// pairs an iteration and prefetches, as it goes, the rows*cols bytes
// after x (a pass's next sample): it reads x by 16 columns down all rows,
// strided streams that the hardware prefetchers do not follow, and in a
// fit the samples come from L3. In cache 32 x 220 730 -> 646 ns, 80 x 60
// 415 -> 364 ns (BenchmarkKernels, min of 8 interleaved runs, chrt); in
// the gait uint8 fit its CPU time fell 21% (4.34 -> 3.43 s over 9
// one-thread fits, pprof, interleaved).
// Its loop is now at the multiply-adds' bound: a row pair of 16 columns
// (8 VPMADDWD and 8 VPADDD, 2 VPMOVZXBW, 2 unpacks, 4 broadcasts) takes
// about 5.5 cycles at 3.1 GHz, which the 8 multiply-adds and adds alone
// take at the 1.44 pairs a cycle measured in C; a block of 16 columns
// cost about 37 cycles more, 33 of them the conversion of its sums at
// its end, which held up the next block's multiply-adds (in cache, the
// kernel without the conversion took 420 against 569 ns at 32 x 220).
// Blocks of up to 255 rows now store their int32 sums in the caller's
// scratch and convert them all after the last block: BenchmarkKernels,
// min ns/op of 18 interleaved runs of test binaries (go test -c) at
// b1f427a and after (chrt -f 10 solver.test -test.run XXX -test.bench
// 'BenchmarkKernels/axpyRows/.*/uint8fixed/avx2' -test.benchtime 0.1s),
// 32 x 220 630 -> 508 ns, 80 x 60 377 -> 335, 32 x 32 91 -> 82, 128 x
// 128 1075 -> 1011, 512 x 512 (several chunks, converted as before)
// unchanged; in the gait uint8 fit its CPU time fell 24% on one thread
// (2.95, 2.82 -> 2.20, 2.21 s over 8 fits, pprof, two interleaved runs)
// and 13% on two (2.74, 2.94 -> 2.44, 2.51 s), in the faces fit (80 rows
// of 60) it stayed as it was (3.04, 2.78 -> 2.98, 3.03 s). A table of
// limb pairs broadcast once per vector (VPMADDWD's memory operands, 64
// bytes a row) instead of 4 VPBROADCASTD a row pair changed nothing in
// cache up to 255 rows and was 10% slower at 300 x 40 and 512 x 512.
// Its gait samples stream from L3 at about the in-cache rate
// (BenchmarkFixedStream); in the fit only a grain's first sample goes
// unprefetched when the pass walks its leaves downwards (half the grains
// at 1 thread; about 0.6% of a fit; see fixed_amd64.go).
//
// A TVP mode update that forms its scatter S = Y^T Y (topGram, when the
// previous update of the mode needed more than gramBudget Krylov
// products; faces 721 x 80 x 60 on random data need about 27 per update
// to reach the 1e-13 residual) forms it with gramCols4x8, a 4 x 8 block of
// S per call from 4 broadcast and 2 loaded values per row of Y and 8 FMAs,
// stored straight into S's rows: 13-15 G FMAs per CPU second
// (BenchmarkGramCols), 0.7 of the peak, about 12 products' worth at 721 x
// 80. S is formed by 64-row chunks, each member of the team forming the
// chunks of Y it wrote, summing its spans of chunks, then adding the
// spans for its share of S's rows by the fixed tree (foldPlan) and
// writing their mirror images below the diagonal, so that nothing of the
// formation is left to the caller: forming S of 721 x 80 took 189 -> 154
// us on one thread and 127 -> 99 us on two (721 x 60: 104 -> 92, 73 ->
// 62; min of 3, chrt -f 10), before -> after that and the direct stores.
// The fits change less than the machine's noise (faces uint8, min of 4-5,
// interleaved, chrt: 1.12-1.13 -> 1.05-1.20 s on 2 threads). The products are then S
// v by dotRows and cost little, and the Ritz estimate of the residual is
// taken every other product (krylovRitzEvery): 26 products per faces
// update on average, where waiting for the previous update's count took
// 35 and every fourth product 27; since 2026-11-27 the first restart
// cycle starts its estimates krylovRitzLead = 6 products before that
// count, which leaves the products as they were. A Ritz estimate needs
// only the top eigenpair of the Lanczos tridiagonal T: Rayleigh quotient
// iteration (O(m) a step) from the previous estimate's vector, checked by
// a Sturm count, with Dsterf (all eigenvalues) only when that check fails;
// and a Lanczos step reorthogonalises by one classical Gram-Schmidt pass
// with dotRows/axpyRows, a second only when the DGKS test asks for it.
// Together these cut the faces uint8 fit's serial Krylov time by a third
// (1.73 -> 1.64 s at 1 thread, median of 5, bench/gofit).
//
// The serial eigen step, measured 2026-11-27 (faces uint8, 2 threads: the
// caller's CPU time in topGram outside the team's tasks, go tool pprof
// on 15 fits of bench/gofit -threads 2 under chrt -f 10): 206 ms a fit of
// about 0.9 s at 05315d7 (the Krylov iterations 136: S v 32-44 ms, the
// projection against the constraint 36-46, the reorthogonalisation 24,
// the Ritz steps 28; the dense fallbacks of 38 first updates of an EMP
// 58), 132 ms after three changes: the dense path finds only the top
// pair (eigenWork.topPair, tridiagWork.top: 0.6 against Dsyev's 1.7 ms at
// 80 x 80, 5.8 against 13.5 us at 10 x 10), the constraint reaches
// krylov.project as its rows (products over c rows of I_n values, not
// I_n rows of c), and the gated Ritz estimates (krylovRitzLead). Gait
// uint8 (20 fits the same way): 36 -> 22 ms a fit, and 45 -> 26 ms of
// serial work in all between the passes. Whole fits (bench/run.py -k
// faces-u8,gait-u8 -r 5 --settle 1 --threads 2 --scaling
// --no-sklearn-full, before = 05315d7, chrt, min / median): faces uint8
// Go 0.646 / 0.811 s (before 0.768 / 0.925), through Python 0.781 /
// 0.926 (0.901 / 1.042), one thread 1.417 / 1.436; gait uint8 through
// Python 0.443 / 0.498 (0.521 / 0.550, with the gait changes of
// 36acaab and 34ae93c), Go 0.456 / 0.508 (0.408 / 0.528: the machine's
// noise). Most of those dense fallbacks were a bug: krylov projected A q
// against span(C) before the Lanczos recurrence's subtractions, so what
// rounding left of span(C) in the basis grew by |d_j| / b_j (3.6 on the
// faces) a step, and the first updates of an EMP, started from a generic
// vector, ran out of products with a corrupted T (krylov.reorth). Since
// 8032f12 they converge and the faces fit goes dense no more: the
// caller's time at 2 threads measured as above, 2 rounds interleaved
// with a18a0c8, 143 / 163 -> 117 / 126 ms a fit (Krylov products 61,943
// -> 59,194). The mean's partial projection, the offset of each mode
// pass, is computed by the pass itself since cafc679 (passOffset), off
// the caller: gait uint8 6-7.5 -> 2.5 ms a fit. Each pass subtracts it
// from all the rows of a piece in one AVX2 call (subRows) since
// 2026-11-27 (7), where floats.Sub was called on each sample's row: the
// offset's share of the gait uint8 fit (perf record -F 5000 of
// bench/gofit -repeat 4, 6 rounds interleaved with 75e5c2e under chrt;
// samples of AxpyUnitaryTo and Pass.modeRows, against those of subRows,
// AxpyUnitaryTo and modeRows) 4,089 -> 2,474 samples over 24 one-thread
// fits (about 13 ms a fit, 1.7% of it) and 4,696 -> 3,355 over 24
// two-thread fits (11 ms of CPU a fit). The mean's pass (sumLeaf) sums
// uint8 samples in int32 lanes, 32 columns through a leaf's samples, and
// converts each sum once (sumU8, sumU8AVX2: exact integers, the same
// bits), where every element was converted and added through memory:
// 0.63/1.06 -> 0.04/0.09 ns an element (min/median, 46 gait leaves of 16
// x 7,040, alternated in one process, 100 rounds, chrt), the pass's
// samples in the fit 491 -> 38 over 16 one-thread gait uint8 fits (perf
// as above, 4 rounds; about 5.7 ms a fit). The dense top pair of
// the small modes (I_n <= denseLimit, and the Krylov fallbacks up to 32)
// is smallTop since 2026-11-27: a Householder reduction on compact copies
// of the trailing blocks and Rayleigh quotient iteration on T from the
// warm vector, where tridiagWork.top (Dsytrd, Dsterf, inverse iteration)
// found every eigenvalue: gait's 10 x 10 mode updates 12 -> about 5 us
// each on the caller at 2 threads (timers around topGram less formS, one
// fit), the caller's time between the team's tasks 32.0 -> 28.0 ms a fit
// (median of 15 fits each, teamstats build, 3 rounds interleaved, chrt).
// The 32 x 32 (constrained) and 22 x 22 updates were Krylov iterations
// on the formed S (about 15 and 20 products, 14-17 us each: the warm
// vectors' residuals are 1e-3..1e-1 of theta through the 20 sweeps, so
// the iteration spans nearly the whole space). Since 2026-11-27 an
// unconstrained update of order 17..32 whose previous one needed at
// least 3/4 n products goes to smallTop (smallDense, after testing the
// warm vector's residual as the iteration's first product would), whose
// reduction's rank-2 updates are an AVX2 kernel (rank2Update); the Ritz
// steps reuse the vector of the estimate that ended a cycle and solve
// their shifted systems without Dgtsv's copies (tridiagSolve, the same
// bits). Timers around topWith in a gofit build (gait uint8, 2 threads,
// 9 fits each, 3 rounds interleaved with 0d18c7b, chrt, min / median ms
// a fit): the 10 x 10 updates 1.88 / 1.99 -> 1.53 / 2.00, the 22 x 22
// 6.14 / 6.44 -> 4.45 / 5.85, the 32 x 32 constrained 5.71 / 6.04 ->
// 5.04 / 6.66 (the median is the machine's noise: replayed, chrt, 5.3-5.5
// -> 4.9-5.0 ms, 3 runs interleaved); the caller's time between tasks
// (teamstats, 15 fits each, twice) 19.4 / 29.9 -> 18.9 / 26.4 and 20.8 /
// 25.5 -> 15.8 / 25.1. The eigen step is about half of that time: the
// rest is the caller's work between the team's ~7,400 tasks a fit (gaps
// of p50 1.3 us).
// What is left of faces' serial step is the cost of a Lanczos step,
// which streams S, the constraint's rows (twice: the projection's dot
// products and its update) and the basis (twice) through a 32 KB L1d,
// about 80 KB a step at faces' 80 x 80 with 30 constraint rows: the
// products read only S's upper triangle (symvUpper, 27 instead of 51 KB;
// 80 x 80 390-410 -> 253-276 ns a product with S hot), the caller's time
// at 2 threads (teamstats "caller between tasks", faces uint8, 10 fits
// each interleaved with 0c2ca38 under chrt, min / median) 110 / 137 ->
// 109 / 119 ms a fit, at 1 thread 107 / 108 -> 98 / 101 (3 each).
// Projecting in the same pass as the reorthogonalisation (the
// constraint's rows in front of the basis: one dotRows and one axpyRows
// over c + j + 1 rows) moved the same bytes and measured the same
// (replay of a fit's 2360 updates, 83 ms either way).
// Since 2026-11-27 an update whose constraint has c >= 0.45 n rows
// (complementFrom; SO-MPCA's and FO-MPCA's later EMPs) runs the Krylov
// iteration on B^T S B instead (topComplement), B an orthonormal basis
// of the constraint's complement: its products are B^T (S (B y)), 2 n
// (n-c) multiply-adds besides S's where the projection costs 2 n c, its
// Lanczos vectors have n-c entries, and its iterates are the projected
// iteration's mapped by B^T, so it needs the same products. B is made by
// a QR factorisation (eigenWork.complement: about 235 us at 80 x 59,
// which would cost 12 us an update if made per EMP) when the constraint
// first reaches the threshold, and then extended, when the constraint
// gains the previous EMP's vector, by one Householder reflector (n (n-c)
// multiply-adds). B's rows are padded with zeros to a multiple of 4
// columns: axpyRows on rows of n-c = 4k+1..4k+3 (its tail stored under a
// mask, reloaded for the next row) took the iteration about twice as
// long. Forming B^T S B (n^2 (n-c) + n (n-c)^2 / 2 multiply-adds by
// gramCols4x8, about 30 us at 80 x 80 with c = 30) and solving it by
// smallTop (n-c <= 32) or Krylov cost more than the projection it saved
// at every c. A replay of one faces uint8 fit's 2360 formed-S Krylov
// updates (recorded from bench/gofit, each update timed alone, min of 7
// runs interleaved, chrt -f 10) took 77.4 -> 71.3 ms, the 80-mode's
// updates with c >= 40 30-45% less each; the caller's time at 2 threads
// (teamstats "caller between tasks", faces uint8, 24 fits each, 2 runs of
// /work/lead/ts.sh's 4 rounds x 3 fits interleaved with b1f427a, chrt -f
// 10, min / median) 92.5 / 115.4 -> 80.5 / 107.6 ms a fit. Gait's 32 x 32
// updates gained nothing and keep the projection (complementMinN).
// At n <= 32 the dense route does pay once the constraint is large: since
// 2026-11-27 (7) an update with c >= n/3 fixed rows whose previous update
// needed many products goes to smallComplement (useSmallComplement): B^T
// S B formed from the kept basis by gramCols4x8 blocks (about 2 us at
// 32 x 32, c = 11), then smallTop. Gait's c >= 11 updates (360 a fit):
// replayed (chrt, min of 9) 2.79 -> 2.06 ms a fit; in the fit (timers
// around topWith in a gofit build, 2 threads, 9 fits each interleaved,
// chrt, min / median) 4.88 / 5.33 -> 2.57 / 3.53. The same session made
// smallTop's fallback (Rayleigh quotient iteration meeting another
// eigenvalue: the first update of each EMP, from the uniform start)
// tridiagTopIsolated instead of Dsterf, took the quotient from the solve
// (rqiStep) and wrote the short vector operations as Go loops: replayed,
// the 10 x 10 and 22 x 22 updates 1.35 -> 1.14 and 4.10 -> 3.65 ms a
// fit, gait's whole eigen step 9.68 -> 8.77. In the fit, against
// 75e5c2e (same timers, 12 fits each, 4 rounds interleaved): the eigen
// step 16.4 / 19.8 -> 15.3 / 17.7 ms a fit, the 22 x 22 updates 6.7 / 7.9
// -> 6.2 / 7.5, the c >= 11 ones 4.1 / 5.0 -> 3.0 / 4.0, the 10 x 10 and
// c = 1..10 within the noise; the caller's time between tasks
// (teamstats, /work/lead/ts.sh's rounds, 27 fits each) 17.7 / 22.0 ->
// 14.9 / 21.5 ms; whole fits within the noise (2 threads, 16 rounds
// against a byte copy of the old binary as control: paired medians
// 1.019, the copy 1.008). In the fit the eigen step takes about twice
// its replayed time: the passes between two updates (5 MB of samples
// each) empty the caches of its code and data. The replay with a 32 MB
// sweep between the problems (the L3's size) took about twice as long
// (11.4-11.6 -> 19.9-25.5 ms, 2 runs each interleaved, chrt, a busy
// hour), with a 4 MB one (L2 emptied) about as long as without
// (10.3-12.0): what is left of the step in the fit is the latency of
// those misses as much as arithmetic.
//
// Where a SO-MPCA-RS fit's time goes (K = 20, 1 thread, go tool pprof on
// bench/gofit): faces 721 x 80 x 60 uint8 (P = 60: 59 x 20 sweeps of 2
// passes, 8.2 G elements), 1.65-1.75 s: the passes 1.16-1.24 s (dotRows
// and axpyRows on rows of 60, about 7-8.5 G elements/s), forming S 0.33
// s, the rest of the Krylov iterations 0.15 s; at 2 threads 0.92-0.99 s:
// the passes 0.59-0.66, forming S 0.18, the Krylov iterations on the
// caller still 0.15 (timers around the steps, chrt -f 10, 2 fits each);
// faces float64, the passes about 3/4,
// at the memory's rate. Gait 731 x 32 x 22 x 10 uint8 (P = 32), about
// 1.4 CPU s then, 0.91 since the cache of X x_1 u^(1) (see Passes): the
// passes 90%, two sample passes per sweep on rows of 220 (dotRows with
// the Kronecker vector, axpyRows) and one over the cache. The float64
// passes are bound by memory. What bounds the uint8 ones is less clear:
// on this machine (AMD EPYC, Zen 4, 2 virtual cores, no performance
// counters) a loop of FMAs with a 256-bit memory operand runs at one a
// cycle (11.4 G elements/s, twice that from registers), the widening
// alone (VPMOVZXBQ, VPOR, VSUBPD) at 13 G elements/s and dotRows at 9 on
// one long row, 7.5 on the faces' rows of 60. Three variants were
// measured in situ and gained nothing (within the +-5% noise of the
// shared machine): dotRows taking long rows two at a time (v loaded once
// for both, the final sums shared; float64 rows of 480 bytes then ran at
// half the speed, the prefetcher losing the two streams), a widening by
// VPBROADCASTD + VPBLENDVB into the mantissa of 2^52 + VSUBPD (two vector
// operations instead of three; byte l of 4 lands in lane l scaled by
// 2^(8l), which the accumulators undo exactly by powers of two unless v
// is near under- or overflow), and software prefetch (PREFETCHT0 1-2 KB
// ahead: float64 30% slower, then). Since the stream kernels read
// float64 rows of 60 one at a time, their one-row paths prefetch the
// rows 8 KiB ahead into L2 (PREFETCHT1; kernel_amd64.s, PREFETCH_L2):
// one core streams about 11-13 GB/s from memory, the hardware prefetcher
// alone keeping too few lines in flight, and the faces float64+frac fit
// at 2 threads took 1.92-2.05 s against 2.78-2.98 (min of 5-6, bench/gofit
// interleaved, chrt -f 10), 1-4 KiB ahead gaining less. The float32
// samples' stream kernels do the same (the gait samples' rows of 220,
// 880 bytes: one at a time, prefetched), where the float32 kernels for
// data in cache had read them four rows side by side unprefetched: the
// gait 731 x 32 x 22 x 10 float32+frac fit took 1.47/2.12 s against
// 2.58/2.99 at 1 thread, 0.71/0.73 against 1.22/1.41 at 2 (min/median of
// 4, bench/gofit interleaved under chrt -f 10, 2026-11-27).
//
// # Narrowing
//
// The passes over float64 samples run at the memory's rate (see Kernels),
// and real float64 tensors often hold values that a narrower type
// represents exactly: images converted with astype(float), float32 data
// upcast, counts. So a local fit (Fit) whose samples are all in memory (a
// Resident source: SliceSource, so every array passed to the Go, C and
// Python APIs, and an hdf5io.Source that loaded its dataset whole) first
// checks them, and when every float64 value is exactly a uint8 (an integer
// 0..255) reads them through a uint8 copy, 1/8 of their bytes; else when
// every one is exactly a finite float32, through a float32 copy (1/2); and
// float32 samples that are all uint8 values through a uint8 copy (1/4).
// The check (narrow.go) stops at the first value that does not narrow, so
// full-mantissa data cost it one look at their first values; data that
// narrow to uint8 are read once more (checked and copied in one pass,
// toUint8), to float32 twice, before the fit's 100 or more passes;
// Options.Cancel is polled every 2^20 values (a cancel leaves the samples
// as they are, and the first pass returns ErrCanceled). The model is the same bit for bit (TestNarrowedFitIsFit
// compares every method, thread count and mode update with ==): a sample
// of uint8 values is contracted by the exact kernels whatever its type
// (the rule of Kernels); the assembly float64 kernels are written once
// over the element's load (DOT_ROWS and AXPY_ROWS in kernel_amd64.s), so
// they take the same FMAs in the same order for float32 and float64
// elements of equal values (TestKernelsSameBitsEveryElem); and the other readers of samples (the sums of the first two passes, the
// conversions to float64 of PCA and the Tucker methods) are the same code
// per element type. Hence also, for sessions and the Dask driver, which
// read blocks the caller hands in: a block given as uint8 and the same
// block as float64 give the same partial result (TestSessionMixedBlocks).
// Conservative choices: -0.0 is no uint8 (a sum of +0 and -0 products
// could differ only in the sign of a zero, but the check need not
// argue it); NaN and infinities narrow to nothing (the fit's own check
// then reports them as before). Narrowing to uint8 is on in every build,
// the portable one (purego, other architectures) included, since the
// rule makes it exact there too; narrowing to float32 only with the
// assembly kernels (narrowingExact: the portable Go loops for float64
// rows of 16 or more use gonum's Dot and AddScaled, another order than
// float32's).
//
// Memory: the copy is the fit's own allocation, taken from
// Options.MemoryLimit after the workspaces (and the source's own memory,
// MemoryPlanner) and before the cache of partial contractions, but never
// at the cache's expense: the copy is made only when it fits beside the
// cache when the cache would fit without it. Without room the fit reads
// the samples as they are. Options.NoNarrowing (C opts.narrowing = 0)
// turns it off; there is no reason to but memory, since the model does
// not change.
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
//     more case where tvpFit.emp builds the constraint matrix C), whether
//     it deflates, its bound on P with the reason shown in errors, and its
//     Defaults;
//  3. add its reference fits, from an independent implementation, to
//     testdata/fixtures.json (testdata/convert_fixtures.py converts them), and its
//     expectations to the table-driven tests (TestInvariants' tvpCases,
//     the C test's method names, Python's test_methods).
//
// A method of another family (a new kind of fit rather than a new
// constraint) adds a family and its fitting function, which makes its
// passes through fitter.pass with the Ops of pass.go (or a new Op: its
// Partial, its combine, and its PartialLen).
//
// # Contract
//
// Inputs are never modified. Fit reports bad input (P above the method's
// bound, nu out of range, fewer than 2 samples, a zero-size mode, NaN or
// Inf in sample m, zero variance) as an error and leaves the model as it
// was; the package panics only on programmer misuse of its internals. A
// fitted Model is read-only and safe for concurrent transforms.
//
// Errors carry their kind for errors.Is: ErrInvalid (options), ErrShape,
// ErrData (the data; a bad sample is a *SampleError whose Index names it,
// for errors.As), ErrSource (Source.Read failed; the source's own error is
// wrapped too, so errors.Is(err, hdf5io.ErrCorrupt) also holds),
// ErrNumerical (an eigensolver that did not converge), ErrCanceled and
// ErrNotFitted.
package solver
