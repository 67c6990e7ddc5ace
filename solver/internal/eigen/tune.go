package eigen

import (
	"math"

	"github.com/sompca/sompca/solver/internal/par"
)

// The eigen step's thresholds, in one place (as LAPACK's ilaenv): each
// says what it chooses and the benchmark or measurement that set it.
// The figures behind them are in bench/MEASUREMENTS.md.

// denseLimit is the largest dimension whose eigenproblems are solved by a
// dense symmetric eigendecomposition; larger ones use Krylov iterations
// warm-started from the previous vector (see krylov), so that no update
// costs O(I^3). Set by BenchmarkModeEigen.
const denseLimit = 16

// complementFrom is the share of a constrained problem's dimension n
// that its constraint's c rows must reach for topWith to solve it on the
// complement (topComplement) rather than by krylov with the projection:
// c >= complementFrom n, for n >= complementMinN. Set by measurement (a
// replay of one fit's formed-S Krylov updates, chrt, each timed alone,
// min of 5 runs interleaved): faces uint8's 80 x 80 updates with c = 40..59
// took 30-45% less time, c = 32..39 up to 10% less, fewer rows more; the
// whole replay 81.5 ms with the projection, 71.0 at 0.4, 74.3 at 0.5.
// Gait uint8's 32 x 32 updates gained nothing (11.7, 11.5, 11.0 ms that
// run; 12.5 against 13.2 in another): at n = 32 the projection costs
// little more than the products' fixed costs, so complementMinN.
const complementFrom = 0.45

// complementMinN is the smallest dimension solved by topComplement
// (measured gains at 80, none at 32; the sizes between are untested).
const complementMinN = 64

// lanczosBlock is the block size b, lanczosSteps the number of blocks the
// basis grows by between restarts, and a restart keeps P + lanczosKeep P
// Ritz vectors (at least P + b). Set with TestLanczosExp's counts of
// products on the PCA 3000 x 6000 case: a product reads all of A (72 MB
// there) whatever b, so it costs about as much as 15 vectors' worth of
// multiply-adds at b = 1, and larger blocks need more vectors in all
// (b = 4: 750 vectors, 8: 940-1040, 16: 2100). With the int32 operator
// (36 MB at n = 3000) a block product is bound by memory with 2 threads
// (2.9 ms at b = 4, 4.1 ms at b = 8, 6.8 ms at b = 16:
// BenchmarkIntGramApply), and b = 4, lanczosSteps = 24 needs 726 vectors
// there against 1010 (the gait case: 480 against 672), 10-15% less time
// in the eigen step; but on TestLanczosRankDeficient's rank-30 matrix
// with P = 10 its residuals stall near 1e-9 (b = 3, 5, 6 and 8 converge
// in about 200 products), so b stays 8 until that is understood. Block
// sizes that are not multiples of 4 waste the int32 kernel's columns.
const (
	lanczosBlock, lanczosSteps = 8, 12
	lanczosKeep                = 1.0
)

// lanczosFraction: block Lanczos serves P up to this fraction of n, the
// tridiagonal path larger P. Set by BenchmarkTopEigenvectors (CPU s,
// Lanczos / tridiagonal, on centred Gram matrices of uniform data):
// n = 731: P = 18 0.15/0.22, P = 36 0.22/0.20, P = 73 0.45/0.22;
// n = 1500: P = 37 0.63/1.99, P = 75 1.08/1.96, P = 150 2.9/2.0.
const lanczosFraction = 0.06

// lanczosMaxProducts bounds the vectors multiplied by A, as a multiple of
// n, before lanczosTop gives up and TopEigenvectors falls back to the
// tridiagonal path: 4n products cost about as much as that path's
// reduction (4/3 n^3 flops, at a lower rate), and the cases measured need
// well under n (3000 x 3000, P = 50: 1010; 731 x 731, P = 32: 672).
const lanczosMaxProducts = 4

// lanczosParallel is the work (multiply-adds) of a block product or a par
// call from which it is split between the team's members. 2^18 multiply-adds take some 50 us, the handoff to a helper
// a few: at 2^22 (before) the orthogonalisation against a basis of fewer
// than 175 vectors ran on one core, 0.3 of the 1.0 s wall of the
// eigen step on the PCA 3000 x 6000 case with 2 threads.
const lanczosParallel = 1 << 18

// denseFraction: when P is at least this fraction of n, or n is small,
// the top P eigenpairs come from the dense eigendecomposition (set by
// BenchmarkTopEigenvectors).
const (
	denseFraction = 0.25
	DenseMinN     = 64
)

// pollEvery is how many rows of O(n) or O(n P) work the loops of
// tridiagTop do between polls of the cancellation.
const pollEvery = 64

// smallTopMax is the largest order Work.topPair gives smallTop.
const smallTopMax = 32

// krylovTol is the residual at which a top eigenvector is accepted:
// ||A u - theta u|| <= krylovTol theta. The eigenvector's error is then
// about krylovTol theta / gap (Davis-Kahan), where gap separates theta
// from the rest of the spectrum; with the gaps of the scatter matrices
// met in practice (1e-3 theta and wider) that is 1e-10 or better, and
// rounding in forming A v (relative error near 1e-15) stays well below it.
const krylovTol = 1e-13

// krylovSteps is the size of the Krylov basis before a restart.
const krylovSteps = 32

// krylovRitzEvery is how often (in products) the Ritz estimate of the
// residual is taken to decide a restart. The Ritz step (ritz) costs O(m)
// a Rayleigh quotient iteration step on the m x m tridiagonal matrix, less
// than a product with a formed 80 x 80 scatter and its reorthogonalisation,
// so it is taken every other product: on the faces benchmark (721 x 80 x
// 60, P = 60) an update then needs 26 products on average, against 35 when
// the estimate waited for the previous update's count and 27 when taken
// every 4 products.
const krylovRitzEvery = 2

// krylovRitzLead is how many products before the count the previous
// update needed (krylov.expect) the first restart cycle starts taking
// Ritz estimates. Successive updates of a mode need about as many products
// (faces uint8: 95% within 4 of the previous), so the estimates earlier
// in the cycle, about 8 of an update's 11, decided nothing. An update
// that needs fewer products than that runs on to it (at most a cycle).
const krylovRitzLead = 6

// lanczosTol is the accepted residual, relative to the top eigenvalue.
// Rounding in a product A y is near 1e-15 theta_1 at the sizes met.
const lanczosTol = 1e-13

// lanczosPanel bounds the rows of a of one task of par (a multiple of the
// kernel's 3).
const lanczosPanel = 96

// formRowsMax bounds the storage (float64s) of formRows's chunk
// scatters: up to it, S is formed by rows.
const formRowsMax = 1 << 18

// formParts bounds the parts of a chunk's scatter in formRows.
const formParts = 4

// gramChunk is the number of rows of Y whose contribution to Y^T (Y v)
// is one leaf of the product's fixed reduction tree (as in a pass, see
// Fold). The chunks of each read are dealt to the fit's team as the
// runner deals the read's leaves (gramOp.layout), so the member that
// wrote most of a chunk's rows of Y in the pass computes the chunk in the
// products, from its own core's cache. 64 rows rather than the passes'
// 16: the kernels' per-call work and the tree's additions then cost less
// than the misses on the few rows whose owner differs.
const gramChunk = 4 * par.Grain

// The PCA Gram matrix X X^T (M x M, M < D): the upper triangle by a
// blocked kernel of 3 x 4 dot products (kernel.Gram3x4, AVX2 where there is AVX2)
// instead of gonum's Dgemm, whose pure-Go inner loop (AxpyUnitary) reaches
// about a fifth of the FMA rate.
//
// Blocking: the columns of X (the D sums) go in chunks of gramChunkK, the
// rows of K in panels of gramPanel; within a panel and a chunk, the rows
// of X a 3 x 4 block reads (6 KB) stay in L1 and the panel's rows (256 KB)
// in L2. Each entry of K is the sum over the chunks, in order, of the
// chunk's dot product (the kernel's 4 lanes, then a scalar tail of
// chunk mod 4 terms); rows and columns past the last full block of 3 or 4
// are done by floats.Dot per chunk. One goroutine computes a whole panel,
// so K is the same bit for bit whatever the number of threads.
const (
	gramChunkK = 256
	gramPanel  = 128
)

// gramHaltRows is how many rows of a panel gramPanelUpper and gramPanelInt
// sum between polls of halt (a wide panel of a large Gram matrix takes
// seconds in the portable kernels; 48 rows of it, milliseconds).
const gramHaltRows = 48

// gramMapChunk is the number of columns of X that GramMap transposes at a
// time (a multiple of the kernel's 3).
const gramMapChunk = 96

// The PCA Gram matrix of integer samples: when every value of the samples
// is an integer in [-gramIntMax, gramIntMax] (uint8 images and gait
// silhouettes, and float data holding such integers), the Gram matrix of
// the centred samples is computed exactly, in integer arithmetic, and
// rounded once:
//
//	K_ij = sum_c (x_ic - mu_c)(x_jc - mu_c)
//	     = (M^2 K0_ij - M (U_i + U_j) + V) / M^2,
//
// with K0 = X0 X0^T the Gram matrix of the raw samples X0 (M x D), S_c the
// column sums (mu_c = S_c / M), U_i = sum_c x_ic S_c and V = sum_c S_c^2,
// all integers. K0 comes from a kernel of 3 x 4 blocks of dot products of
// 16-bit integers (kernel.GramI16: AVX2's VPMADDWD multiplies 16 pairs and adds
// adjacent products in one instruction, 32 multiply-adds per cycle where
// float64 FMAs give 8), accumulated exactly in float64 (integers below
// 2^53); U, V and the numerators in int64. The result is the exact
// centred Gram matrix rounded to float64 (two roundings: the numerator's
// conversion when it exceeds 2^53, and the division), where the float64
// path rounds at every one of its D additions; and it is the same whatever
// the blocking and the number of threads, since integer sums are exact in
// any order.
//
// Blocking: each kernel call sums whole rows (up to gramIntChunk columns),
// in panels of gramIntPanel columns of K, widest first. Measured on the
// panels alone (3000 x 6000, 1 thread, loaded machine, multiply-adds a
// CPU second): chunks of 2048 columns and panels of 128 (before) 38-44 G,
// whole rows 45-53 G (a call's lane reduction and its 12 additions into
// K amortised over 3 times the columns, K's panel swept once instead of 3
// times); panels of 64, 96 and 128 within noise of each other, smaller
// chunks slower. The kernel alone, in L1, makes about 66 G.
// BenchmarkGramCentredInt (the whole step, with the operator), 2 threads:
// 0.32-0.33 s, 44 G multiply-adds a CPU second.
const (
	gramIntMax   = 255
	gramIntChunk = 1 << 15 // columns per kernel call: its sums of gramIntChunk products of at most 255^2 stay below 2^31
	gramIntPanel = 96
)

// The centred Gram matrix of integer samples as an operator for block
// Lanczos, at half the memory traffic of the formed float64 matrix.
//
// With K0 = X0 X0^T, U and V as in gramint.go, a_i = U_i / M and
// c = V / M^2, the centred Gram matrix is K = K0 - a 1^T - 1 a^T + c 1 1^T.
// Rounding a_i - c/2 to an integer g_i splits it exactly as
//
//	K = L + e 1^T + 1 e^T,  L_ij = K0_ij - g_i - g_j,  e_i = g_i - a_i + c/2,
//
// where L is an integer matrix with entries about those of K (|e_i| <= 1/2,
// so |L_ij| <= |K_ij| + 1, within int32 for the sizes met) and e is computed
// from an exact int64 numerator, rounded once. A product K z is then
// L z + e (1 . z) + 1 (e . z): L is read as int32 (4 bytes an entry
// against 8: the products of block Lanczos are memory-bound on large
// matrices), each entry converted to float64 once for the whole block.
// Unlike K0 z, whose entries are hundreds of times those of K z (the raw
// data's mean), L z carries no cancellation, so the product is as accurate
// as one with the formed K, and it is the exact K (to e's rounding) that
// it applies, not K rounded entry by entry.
const intGramChunk = 512

// complementBases is the number of constraints whose bases are kept.
const complementBases = 4

// Routes overrides the route choices of the thresholds above, so that a
// test can compare one route with another without changing package state
// (tests may run in parallel); a nil *Routes, or the zero value, takes
// the routes the thresholds choose. Fits pass one down from an
// unexported field of solver.Options that only tests set.
type Routes struct {
	DenseAll      bool                         // every mode update solved densely, as if denseLimit were unbounded
	FloatGram     bool                         // PCA's Gram matrix in float64 even for integer samples (no GramIntegers)
	Complement    int                          // > 0: the complement basis for every fixed constraint; < 0: never
	SplitAll      bool                         // every block product and Lanczos product split between the team's members
	LanczosGiveUp bool                         // block Lanczos gives up at its first check (the tridiagonal path then)
	DenseRitz     bool                         // block Lanczos's Ritz step by Dsyev always
	LanczosTrace  func(restarts, products int) // if set, gets the counts of every block Lanczos run

	// Each switches one speed route off, for BenchmarkRouteBudget (solver)
	// and tests: the problem takes the route the special one replaces.
	NoDense          bool // no dense route up to denseLimit (Krylov instead)
	FormAlways       bool // TopGram forms S at once (no Krylov on Y)
	NoFormRows       bool // S formed by 4 x 8 blocks only (no formRows)
	RitzEveryProduct bool // Krylov's Ritz estimate after every product, from the first (no krylovRitzEvery, krylovRitzLead)
	NoLanczos        bool // the top P eigenpairs never by block Lanczos (tridiagonal or dense instead)
}

func (r *Routes) denseLimit() int {
	if r != nil && r.DenseAll {
		return math.MaxInt
	}
	if r != nil && r.NoDense {
		return 0
	}
	return denseLimit
}

func (r *Routes) parallel() int {
	if r != nil && r.SplitAll {
		return 0
	}
	return lanczosParallel
}

func (r *Routes) maxProducts() int {
	if r != nil && r.LanczosGiveUp {
		return 0
	}
	return lanczosMaxProducts
}

func (r *Routes) formAlways() bool { return r != nil && r.FormAlways }
func (r *Routes) noFormRows() bool { return r != nil && r.NoFormRows }
func (r *Routes) noLanczos() bool  { return r != nil && r.NoLanczos }
