package solver

import "github.com/sompca/sompca/solver/internal/eigen"

// The engine's thresholds, in one place (as LAPACK's ilaenv): each says
// what it chooses and the benchmark or measurement that set it. The eigen
// step's are in internal/eigen/tune.go, the team's in internal/par. The
// exported limits (RowsLimit, BlockMultiple) stay with the API they
// document.

// rowsPieceMin is the fewest samples of a piece of a rows pass that a
// member takes at the end of a read (deal.takeRange): the last pieces
// shrink to it so that the members finish within about that many
// samples of each other; the per-call costs of the contraction kernels
// stay small beside even one sample's work (gait: 7,040 values). Gait
// uint8 at 2 threads (teamstats, 10 fits each interleaved, chrt): the
// passes' idle time 10.2 / 21.0 ms a fit (min / median) with pieces down
// to 4 samples, 7.7 / 12.6 down to 1, the caller's wait at their end 3.5
// / 6.1 and 2.2 / 3.2.
const rowsPieceMin = 1

// readUnit is the unit of a read: every Read but the last of a pass holds
// a multiple of readUnit samples, a multiple of every pass's grain, so
// the leaves, and with them the results, do not depend on read sizes.
const readUnit = 256

// readBytes bounds the size of one Read, counted as float64 elements.
const readBytes = 32 << 20

// kronMax bounds the length of the Kronecker vector of partial's mode-0
// contraction (32 KiB of float64, an L1 cache): beyond it the rows it
// is dotted with would stream it from farther away than the samples.
const kronMax = 4096

// fixedDotMin is the shortest row dotSample contracts by kernel.DotRowsFixed:
// shorter rows take the float64 kernel for uint8, whatever the sample's
// type, as well. The fixed kernel rounds rows up to whole blocks of 16
// columns, four rows at a time up to kernel.FixedQuadMax columns (fixed_amd64.go):
// against the float64 kernel for uint8 it gains from 32 columns
// (BenchmarkKernels, fixed/float64; see fixed_amd64.go), and rows of
// 8-24 columns lose or gain nothing to speak of.
const fixedDotMin = 32

// gemmTile bounds the tiles of C that gemmSerial hands to gonum's Dgemm:
// gonum runs a product on its own goroutines when C spans 4 or more of its
// 64 x 64 blocks, and a tile of at most 64 x 192 spans 3.
const gemmRows, gemmCols = 64, 192

// Extreme scales. A fit forms sums of squares and products of the samples
// (scatter matrices, Gram matrices, norms), which overflow for values much
// above 1e150 and lose every digit to underflow much below 1e-150. When
// the largest |value| of the samples lies outside [2^-scaleLimit,
// 2^scaleLimit], the fit reads them multiplied by a power of two 2^k that
// brings it into [0.5, 1) (exact: only the exponents change) and scales
// the results back: projections do not change, the mean scales by 2^-k,
// variances and objective histories by 2^-2k. Samples within the window
// are read as they are, so ordinary fits are unchanged bit for bit. A
// model whose variances cannot be represented in float64 (the data's
// scale squared is outside its range) is an ErrData naming the scale.
const scaleLimit = 100

// modeProductNarrow bounds the columns of U for which modeProduct's last
// mode (post = 1) goes through narrowProduct rather than gonum's
// NoTrans Dgemm, which makes one AXPY call of r elements for each of the
// pre x d entries of src: for CSA's complements of 1-3 columns and the
// core's last mode (gait: 10 x 10), those calls took most of the time.
const modeProductNarrow = 16

// startMinRest is the smallest prod_{k>1} I_k for which a fit keeps the
// partial projections at the uniform start: their M x I_1 float64 are
// then at most 1/16 of the samples' bytes (of uint8 samples; less for
// the others). For smaller samples they would add a sizable share of the
// data to the fit's memory (4000 x 64 x 64 uint8: 2 MB against 16, which
// raised the fit's peak resident size by as much) to save a pass per EMP
// that costs little.
const startMinRest = 128

// probe is how many leading values narrowTo converts before it allocates;
// narrowChunk how many values narrowBlock reads between polls of its
// canceled (a millisecond or two of work).
const (
	probe       = 256
	narrowChunk = 1 << 20
)

// sumChunk is the number of columns sumU8 sums at a time in Go (4 KiB of
// uint32 on the stack).
const sumChunk = 1024

// routes overrides a fit's route choices, so that a test can compare one
// route with another without changing package state (tests may run in
// parallel); Options carries it in an unexported field, and a nil
// *routes or the zero value takes the routes the thresholds choose.
type routes struct {
	eigen          eigen.Routes // the eigen step's (internal/eigen)
	complementsOff bool         // MPCA and CSA: no complement projections (fitTucker)
	skipOff        bool         // MPCA and CSA: no mode update's pass is skipped (fitTucker)
	keepStartOff   bool         // TVP: the partial projections at the uniform start are not kept (fitTVP)

	// Each switches one kernel route off, for BenchmarkRouteBudget: the
	// work takes the route the special one replaces.
	kronOff   bool // mode 0 contracted by axpyRows, not the Kronecker vector (contractor.byKron)
	slabsOff  bool // a sample's slices by one axpyRows call each (no kernel.AxpySlabs)
	sumU8Off  bool // the mean's uint8 sums by the float64 loop (no sumU8)
	narrowOff bool // MPCA/CSA's last-mode products by gemmSerial (no narrowProduct)
	piecesOf  int  // > 0: the smallest piece of a rows pass (else rowsPieceMin)
	rotateOff bool // TVP: the cache's mode does not rotate (tvpFit.lead is 0)
}

func (r *routes) eigenRoutes() *eigen.Routes {
	if r == nil {
		return nil
	}
	return &r.eigen
}

func (r *routes) noComplements() bool { return r != nil && r.complementsOff }
func (r *routes) noSkip() bool        { return r != nil && r.skipOff }
func (r *routes) noKeepStart() bool   { return r != nil && r.keepStartOff }
func (r *routes) noKron() bool        { return r != nil && r.kronOff }
func (r *routes) noSlabs() bool       { return r != nil && r.slabsOff }
func (r *routes) noSumU8() bool       { return r != nil && r.sumU8Off }
func (r *routes) noNarrow() bool      { return r != nil && r.narrowOff }
func (r *routes) noRotate() bool      { return r != nil && r.rotateOff }

func (r *routes) pieceMin() int {
	if r != nil && r.piecesOf > 0 {
		return r.piecesOf
	}
	return rowsPieceMin
}

// umpcaDeadMode is the share of a mode scatter's trace at or below which
// UMPCA's constrained optimum counts as nothing but zero variance (a
// constant mode meeting a real uncorrelation constraint): that update of a
// mode other than the last goes unconstrained, and the last mode, always
// constrained, makes the feature uncorrelated. Not a speed threshold:
// ordinary data stay orders of magnitude above it (the stored fits keep
// their bits), and TestUMPCAConstantMode fails without it.
const umpcaDeadMode = 1e-12
