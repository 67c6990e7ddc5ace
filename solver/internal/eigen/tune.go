package eigen

import "math"

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
}

func (r *Routes) denseLimit() int {
	if r != nil && r.DenseAll {
		return math.MaxInt
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
