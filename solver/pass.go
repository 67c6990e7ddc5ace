package solver

import (
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// Op says what a Pass computes from each sample.
type Op int

const (
	// OpSum: the sum of the samples (prod_n I_n values), the index of
	// the first sample holding a NaN or Inf (-1 if none) and that of the
	// first sample holding a value that is not a float32 value (-1 if
	// none; float32 and uint8 samples hold none), as a sum pass of
	// PartialLen = prod_n I_n + 2.
	OpSum Op = iota
	// OpSquares: sum_m ||X_m - Mean||^2, a sum pass of one value.
	OpSquares
	// OpModeScatter: the total scatter (eq. 11) of the mode-Mode partial
	// projections y_m (eq. 10): y_m = X_m contracted with Vectors[k] in
	// every mode k != Mode, minus Offset, minus Deflate * c_m when Deflate
	// is set (c_m = Coef[.][m]); the partial is the upper triangle of
	// sum_m y_m y_m^T (I x I, I = Shape[Mode]) followed, when Cross, by
	// sum_m y_m c_m^T (I x len(Coef)).
	OpModeScatter
	// OpProject: one row per sample, X_m contracted with Vectors in every
	// mode, minus Offset[0].
	OpProject
	// OpCentred: one row per sample, vec(X_m) - Mean.
	OpCentred
	// OpScatter: the upper triangle of sum_m (x_m - Mean)(x_m - Mean)^T of
	// the vectorised samples.
	OpScatter
	// OpModeScatters: for every mode n with Factors[n] == nil, in order,
	// the upper triangle of sum_m Y_m(n) Y_m(n)^T, Y_m = (X_m - Mean)
	// projected by Factors[k]^T in every mode k with a factor.
	OpModeScatters
	// OpCoreMoments: with Y_m = (X_m - Mean) projected by every factor
	// (F entries), the count, mean, sum of squared deviations and sum of
	// squares of each entry: 1 + 3F values, merged by Chan et al.'s
	// pairwise update.
	OpCoreMoments
	// OpTransform: one row of P = len(Features) values per sample, X_m
	// contracted with Features[p] in every mode, minus Offset[p]. With
	// Index set (MPCA and CSA models), the same computed as X_m projected
	// by Factors[k]^T in every mode, feature p being entry Index[p] of
	// that tensor: a few mode products instead of P full contractions.
	OpTransform
	// OpModeRows: one row per sample, the partial projection y_m of
	// OpModeScatter (I = Shape[Mode] values), whose scatter the TVP mode
	// update then handles without forming it (see eigen.Solver.topGram).
	OpModeRows
	// OpPeak: the largest |value| of the samples, a sum pass of one value
	// combined by max (the engine's test for an extreme scale, scale.go).
	OpPeak
)

var opNames = [...]string{"sum", "squares", "mode-scatter", "project", "centred", "scatter", "mode-scatters", "core-moments", "transform", "mode-rows", "peak"}

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Pass describes one pass over the samples: what each sample is
// contracted with and what is kept. It is a plain value: the engine makes
// one per pass and hands it to an Executor, which computes each block's
// partial result with Partial (a pure function of the pass and the
// block's samples) and folds the partials in the fixed order of Fold.
//
// A sum pass (Rows() == false) folds its partials into PartialLen()
// values; a rows pass gives RowLen() values per sample, in sample order.
// Fields an Op does not name are ignored.
type Pass struct {
	Op    Op
	Shape []int // sample shape I_1..I_N
	// Samples is the number M of samples the pass runs over.
	Samples int

	Mean    []float64   // subtracted from each sample (nil: nothing)
	Mode    int         // OpModeScatter: the mode left free, 0-based
	Vectors [][]float64 // one vector per mode (OpModeScatter, OpProject)
	Offset  []float64   // subtracted from the contraction (see Op)
	// Coef holds per-sample coefficients c_m: Coef[q][m-CoefFirst] for
	// the global sample index m. OpModeScatter uses them for Deflate and
	// Cross. CoefFirst is 0 in the engine; a fit session's requests carry
	// only their block's coefficients (see Session).
	Coef      [][]float64
	CoefFirst int
	Deflate   []float64 // I x len(Coef), row-major: y_m -= Deflate c_m
	Cross     bool      // OpModeScatter: also sum_m y_m c_m^T
	// Lead (OpModeScatter, OpModeRows; samples of order N >= 3): when
	// positive, the samples are contracted in mode Lead-1 first and the
	// result further by contractor.finishLead's order
	// (contractor.partialLead), the order of a TVP sweep that caches X_m
	// x_k u^(k) for k = Lead-1 (see tvpFit.lead); 0: contractor.partial's
	// order. Either way the order is a property of the pass, not of the
	// path: a pass made from the samples, or from a cache, gives the same
	// bits.
	Lead int

	Factors []*mat.Dense // OpModeScatters, OpCoreMoments: I_n x P_n, nil = free mode
	// Complements (OpModeScatters, optional): for a projected mode k with
	// Complements[k] = W (I_k x (I_k - P_k), orthonormal columns spanning
	// the complement of Factors[k]'s), the projector U U^T is applied as
	// I - W W^T: the mode scatter is then the signed sum, over the subsets
	// T of such modes, of (-1)^|T| times the scatter of the samples
	// contracted with W_k in the modes of T (and projected by the other
	// factors), which costs I_k - P_k instead of P_k per element. An empty
	// W (a zero mat.Dense) says P_k = I_k: the mode is not contracted.
	// With NoFull, the term of T = {} (the scatter of the samples
	// unprojected in the complement modes) is left out: the caller, which
	// has it from an earlier pass, adds it.
	Complements []*mat.Dense
	NoFull      bool
	Features    [][][]float64 // OpTransform: Features[p][n], feature p's mode-n vector
	Index       []int         // OpTransform with Factors: feature p's entry of the projected tensor

	// Scale: when not 0, every value of the samples is read times
	// 2^Scale (exact: only the exponents change) before anything else.
	// The engine sets it on the passes it hands to an Executor other
	// than its own runner once it finds the samples at an extreme scale
	// (scale.go), so that every path fits the same rescaled values.
	Scale int

	// offset, when set (OpModeScatter, OpModeRows, by the local engine),
	// has the pass compute Offset itself: see passOffset.
	offset *passOffset
	routes *routes // the fit's route overrides (runner.run sets it)
}

// passOffset lets a mode pass run on the local engine compute its Offset,
// the partial projection of the mean (contractor.partial, as the caller
// would), instead of the caller before the pass: the first member to
// start a piece computes it into Offset while the others contract their
// samples, and every member waits for it only when it subtracts it from
// its rows, by which time it is ready (it costs one sample's contraction,
// a piece up to a grain of them). The caller's serial time between passes
// shrinks by that contraction: gait 731 x 32 x 22 x 10 uint8 at 2
// threads, tvpFit.partials on the caller 6-7.5 -> 2.5 ms a fit (1860
// passes; the rest is the runner's dispatch), pprof of 2 x 20 fits
// interleaved, chrt. The values are the same bits (TestPassOffset).
type passOffset struct {
	mean  []float64
	state atomic.Int32 // 0: not started, 1: being computed, 2: done
}

// reset readies o for a pass whose offset is mean's partial projection.
func (o *passOffset) reset(mean []float64) {
	o.mean = mean
	o.state.Store(0)
}

// begin computes p.Offset with c if no member has begun to.
func (o *passOffset) begin(p *Pass, c *contractor) {
	if o.state.Load() != 0 || !o.state.CompareAndSwap(0, 1) {
		return
	}
	defer o.state.Store(2) // also on a panic, which the pass raises: nobody waits forever
	c.partial(p.Offset, Block{F64: o.mean}, p.Mode, p.Vectors)
}

// wait returns once p.Offset is computed.
func (o *passOffset) wait() {
	for i := 0; o.state.Load() != 2; i++ {
		if i >= 1<<10 {
			par.Yield()
		}
	}
}

// grain returns the number of samples of one leaf of the pass's
// reduction tree: 16 (see docs/DESIGN.md, "The reduction tree"), and 64 for OpScatter, whose
// partial (D x D) is as large as 1/8 of a leaf's work at 16 samples.
// Both divide readUnit.
func (p *Pass) grain() int {
	if p.Op == OpScatter {
		return 64
	}
	return grain
}

// Grain returns the number of samples in one leaf of the pass's
// reduction tree. Blocks handed to Partial start at a multiple of it.
func (p *Pass) Grain() int { return p.grain() }

// Rows reports whether the pass gives one row per sample (OpProject,
// OpCentred, OpTransform, OpModeRows) rather than a folded sum.
func (p *Pass) Rows() bool {
	return p.Op == OpProject || p.Op == OpCentred || p.Op == OpTransform || p.Op == OpModeRows
}

func (p *Pass) size() int {
	s := 1
	for _, d := range p.Shape {
		s *= d
	}
	return s
}

// RowLen returns the number of values per sample of a rows pass.
func (p *Pass) RowLen() int {
	switch p.Op {
	case OpProject:
		return 1
	case OpCentred:
		return p.size()
	case OpTransform:
		return len(p.Features)
	case OpModeRows:
		return p.Shape[p.Mode]
	}
	return 0
}

// factorRanks returns the number of entries of the fully projected
// tensor (OpCoreMoments).
func (p *Pass) coreSize() int {
	F := 1
	for n, U := range p.Factors {
		if U == nil {
			F *= p.Shape[n]
		} else {
			_, r := U.Dims()
			F *= r
		}
	}
	return F
}

// PartialLen returns the number of values of a sum pass's partial result.
func (p *Pass) PartialLen() int {
	switch p.Op {
	case OpSum:
		return p.size() + 2
	case OpSquares, OpPeak:
		return 1
	case OpModeScatter:
		in := p.Shape[p.Mode]
		if p.Cross {
			return in*in + in*len(p.Coef)
		}
		return in * in
	case OpScatter:
		return p.size() * p.size()
	case OpModeScatters:
		l := 0
		for n, U := range p.Factors {
			if U == nil {
				l += p.Shape[n] * p.Shape[n]
			}
		}
		return l
	case OpCoreMoments:
		return 1 + 3*p.coreSize()
	}
	return 0
}

// Workspace is the scratch space Partial needs: one per goroutine,
// reused across passes, grown only when a pass needs more.
type Workspace struct {
	c         *contractor // over the sample shape
	wa, wb    []float64   // a grain of rows of the cache, contracted (finishLead)
	wz        []float64   // a grain of rows X_m x_k u^(k) of a Lead pass made without the cache
	rows, g   []float64
	x, y, tmp []float64
	u8        []uint8 // OpTransform: a leaf's float samples of uint8 values
	xs        []Block // and its samples so held, at
	at        []int   // these indices
	shapeOf   []int
	sc        scratch      // transposes of the mode products
	x2        []float64    // a leaf contracted with complements
	dims      []int        // a leaf's tensor shape, samples first
	factors   []*mat.Dense // and its factors
	scaled    []float64    // the samples times 2^Pass.Scale
	mt        *multiWork   // OpTransform: transformMulti's plan and scratch
}

// NewWorkspace returns an empty workspace.
func NewWorkspace() *Workspace { return &Workspace{} }

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// ready sizes ws for pass p.
func (ws *Workspace) ready(p *Pass) {
	if ws.c == nil || !equalInts(ws.shapeOf, p.Shape) {
		ws.shapeOf = append(ws.shapeOf[:0], p.Shape...)
		ws.c = newContractor(ws.shapeOf)
	}
	ws.c.routes, ws.sc.routes = p.routes, p.routes
	g, size := p.grain(), p.size()
	switch p.Op {
	case OpModeScatter, OpModeRows:
		in := p.Shape[p.Mode]
		ws.rows = grow(ws.rows, g*in)
		ws.g = grow(ws.g, g*max(len(p.Coef), 1))
		if p.usesCache() {
			zs := p.zRow()
			ws.wa, ws.wb, ws.wz = grow(ws.wa, g*zs), grow(ws.wb, g*zs), grow(ws.wz, g*zs)
		}
	case OpScatter:
		ws.rows = grow(ws.rows, g*size)
	case OpTransform:
		if p.Index != nil {
			ws.x, ws.y, ws.tmp = grow(ws.x, size), grow(ws.y, size), grow(ws.tmp, size)
		} else if cap(ws.u8) < g*size {
			ws.u8 = make([]uint8, g*size)
		}
	case OpModeScatters, OpCoreMoments:
		// OpModeScatters projects a whole leaf at once.
		ws.x, ws.y, ws.tmp = grow(ws.x, g*size), grow(ws.y, g*size), grow(ws.tmp, g*size)
		if p.Op == OpCoreMoments {
			F := p.coreSize()
			ws.rows = grow(ws.rows, g*F)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// input says where a leaf of OpModeScatter or OpModeRows reads from: the
// samples, the samples while filling the cache of X_m x_k u^(k) (the
// samples contracted in mode k = Pass.cacheMode(): zRow values each), or
// that cache.
type input int

const (
	fromX input = iota
	fromXFillZ
	fromZ
)

// cacheRow returns the number of values per sample of the cache of
// X_m x_1 u^(1), for samples of the given shape.
func cacheRow(shape []int) int { return prod(shape) / shape[0] }

// usesCache reports whether pass p reads or fills a cache of the samples
// contracted in one mode: the mode passes of order N >= 3 samples that
// contract mode k = cacheMode() first, k != Mode. With Lead = 0 that is
// mode 0 for modes 1..N-1: the mode-1 pass of a sweep fills the cache of
// X_m x_1 u^(1), modes 2..N-1 read it (u^(1) is not updated in between);
// a sweep of N mode updates reads the samples twice (modes 0 and 1). With
// Lead, see tvpFit.lead.
func (p *Pass) usesCache() bool {
	return (p.Op == OpModeScatter || p.Op == OpModeRows) && len(p.Shape) >= 3 && (p.Lead > 0 || p.Mode >= 1)
}

// cacheMode returns the mode k of the cache that p reads or fills (see
// usesCache): Lead-1, or 0.
func (p *Pass) cacheMode() int { return max(p.Lead-1, 0) }

// zRow returns the number of values per sample of p's cache,
// prod_{j != k} I_j for k = cacheMode().
func (p *Pass) zRow() int { return prod(p.Shape) / p.Shape[p.cacheMode()] }

// Partial computes the partial result of the samples [start, start+n) in
// x (n*prod(Shape) elements; start a multiple of Grain()) into dst: for a
// sum pass, one leaf's PartialLen() values (n <= Grain()); for a rows
// pass, n*RowLen() values. It reads only p, x and the coefficients of its
// samples, writes only dst and ws: blocks can be computed anywhere.
func (p *Pass) Partial(ws *Workspace, dst []float64, start int, x Block) {
	ws.ready(p)
	p.leaf(ws, dst, start, x, fromX, nil)
}

// leaf computes one leaf (or, for a rows pass, any run of samples). z is
// the cache's slice for these samples when in is fromXFillZ or fromZ (then
// x is ignored and z holds the samples contracted in their first mode).
func (p *Pass) leaf(ws *Workspace, dst []float64, start int, x Block, in input, z []float64) {
	size := p.size()
	cnt := x.elems() / size
	if in == fromZ {
		cnt = len(z) / p.zRow()
	} else if p.Scale != 0 {
		x = ws.scaleBlock(x, p.Scale)
	}
	switch p.Op {
	case OpSum:
		p.sumLeaf(dst, start, x, cnt, size)
	case OpSquares:
		dst[0] = squaresAbout(x, p.Mean)
	case OpPeak:
		dst[0] = peakOf(x)
	case OpModeScatter:
		p.modeScatterLeaf(ws, dst, start, x, cnt, in, z)
	case OpModeRows:
		p.modeRows(ws, dst[:cnt*p.Shape[p.Mode]], start, x, cnt, in, z)
	case OpProject:
		c := ws.c
		for i := range cnt {
			dst[i] = c.full(x.slice(i*size, (i+1)*size), p.Vectors) - p.Offset[0]
		}
	case OpCentred:
		for i := range cnt {
			centreInto(dst[i*size:(i+1)*size], x.slice(i*size, (i+1)*size), p.Mean)
		}
	case OpScatter:
		rows := ws.rows[:cnt*size]
		for i := range cnt {
			centreInto(rows[i*size:(i+1)*size], x.slice(i*size, (i+1)*size), p.Mean)
		}
		newSymAcc(size, dst).setGram(rows, cnt)
	case OpModeScatters:
		p.modeScattersLeaf(ws, dst, x, cnt, size)
	case OpCoreMoments:
		p.coreMomentsLeaf(ws, dst, x, cnt, size)
	case OpTransform:
		P := len(p.Features)
		if p.Index != nil {
			for i := range cnt {
				toFloat64(ws.x[:size], x.slice(i*size, (i+1)*size))
				projectModes(ws.y, ws.tmp, ws.x[:size], p.Shape, p.Factors, &ws.sc)
				row := dst[i*P : (i+1)*P]
				for f, e := range p.Index {
					row[f] = ws.y[e] - p.Offset[f]
				}
			}
			break
		}
		if !p.transformMulti(ws, dst, x, cnt, size) {
			p.transformLeaf(ws, dst, x, cnt, size)
		}
	default:
		panic(fmt.Sprintf("solver: unknown pass %v", p.Op))
	}
}

// transformLeaf computes OpTransform's rows by P full contractions of
// each sample, a grain of samples at a time (a rows pass may be handed
// any number). The samples whose values are uint8 values (bytesOf: all
// of a uint8 block) are taken feature after feature, so that each
// feature's vectors are put in fixed point (contractor.dotSample) once a
// grain rather than once a sample (a float one's values converted once,
// into ws.u8); the others sample after sample, as before. Either way each
// row is the same function of its sample's values.
func (p *Pass) transformLeaf(ws *Workspace, dst []float64, x Block, cnt, size int) {
	P, g := len(p.Features), p.grain()
	c := ws.c
	for lo := 0; lo < cnt; lo += g {
		ws.xs, ws.at = ws.xs[:0], ws.at[:0]
		for i := lo; i < min(lo+g, cnt); i++ {
			xi := x.slice(i*size, (i+1)*size)
			if u, ok := bytesOf(ws.u8[(i-lo)*size:(i-lo+1)*size], xi); ok {
				ws.xs, ws.at = append(ws.xs, Block{U8: u}), append(ws.at, i)
				continue
			}
			row := dst[i*P : (i+1)*P]
			for f := range P {
				row[f] = c.full(xi, p.Features[f]) - p.Offset[f]
			}
		}
		for f := range P {
			for j, xi := range ws.xs {
				dst[ws.at[j]*P+f] = c.full(xi, p.Features[f]) - p.Offset[f]
			}
		}
	}
}

func (p *Pass) sumLeaf(dst []float64, start int, x Block, cnt, size int) {
	s := dst[:size]
	clear(s)
	bad, notF32 := -1, -1
	if x.F64 == nil && x.F32 == nil && cnt < 1<<23 && !p.routes.noSumU8() {
		sumU8(s, x.U8, cnt, size)
		cnt = 0
	}
	for i := range cnt {
		xi := x.slice(i*size, (i+1)*size)
		switch {
		case xi.F64 != nil:
			if bad < 0 && !allFinite(xi.F64) {
				bad = start + i
			}
			if notF32 < 0 && notFloat32(xi.F64) < len(xi.F64) {
				notF32 = start + i
			}
			floats.Add(s, xi.F64)
		case xi.F32 != nil:
			for j, v := range xi.F32 {
				if bad < 0 && (v != v || math.IsInf(float64(v), 0)) {
					bad = start + i
				}
				s[j] += float64(v)
			}
		default:
			for j, v := range xi.U8 {
				s[j] += float64(v)
			}
		}
	}
	dst[size], dst[size+1] = float64(bad), float64(notF32)
}

// sumU8 sets s[j] to the sum of x[i*size+j] over the cnt < 2^23 samples i
// (float64): sumLeaf's sum of uint8 samples, the same bits as adding
// float64(x[i*size+j]) to s[j] sample by sample from +0, because every
// partial sum is an integer below 2^31 (so integer sums are exact) and
// below 2^53 (so were the float64 ones, in any order). Columns by 32 in
// int32 lanes (kernel.SumU8Head), the rest in a uint32 array on the stack, a
// chunk of sumChunk columns at a time, each converted once, where the
// float64 loop converted every element and added it through memory
// (figures in bench/MEASUREMENTS.md).
func sumU8(s []float64, x []uint8, cnt, size int) {
	var acc [sumChunk]uint32
	for j0 := kernel.SumU8Head(s, x, cnt, size); j0 < size; j0 += sumChunk {
		a := acc[:min(sumChunk, size-j0)]
		clear(a)
		for i := range cnt {
			row := x[i*size+j0:]
			row = row[:len(a)]
			for j, v := range row {
				a[j] += uint32(v)
			}
		}
		for j, v := range a {
			s[j0+j] = float64(v)
		}
	}
}

// squaresAbout returns sum_i (x[i] - mean[i mod len(mean)])^2.
func squaresAbout(x Block, mean []float64) float64 {
	size := len(mean)
	t := 0.0
	switch {
	case x.F64 != nil:
		for i := 0; i < len(x.F64); i += size {
			for j, v := range x.F64[i : i+size] {
				d := v - mean[j]
				t += d * d
			}
		}
	case x.F32 != nil:
		for i := 0; i < len(x.F32); i += size {
			for j, v := range x.F32[i : i+size] {
				d := float64(v) - mean[j]
				t += d * d
			}
		}
	default:
		for i := 0; i < len(x.U8); i += size {
			for j, v := range x.U8[i : i+size] {
				d := float64(v) - mean[j]
				t += d * d
			}
		}
	}
	return t
}

// centreInto writes the elements of x, minus mean when mean is not nil
// (len x.elems()), into dst: uint8 elements by the AVX2 kernels where
// there are (kernel.CentreU8Head), the same bits as toFloat64 and floats.Sub,
// which take 8 instructions an element in the conversion alone.
func centreInto(dst []float64, x Block, mean []float64) {
	n := x.elems()
	k := 0
	if x.F64 == nil && x.F32 == nil {
		k = kernel.CentreU8Head(dst[:n], x.U8, mean)
		x = x.slice(k, n)
	}
	toFloat64(dst[k:n], x)
	if mean != nil {
		floats.Sub(dst[k:n], mean[k:n])
	}
}

// toFloat64 converts the elements of x into dst (len x.elems()).
func toFloat64(dst []float64, x Block) {
	switch {
	case x.F64 != nil:
		copy(dst, x.F64)
	case x.F32 != nil:
		for i, v := range x.F32 {
			dst[i] = float64(v)
		}
	default:
		for i, v := range x.U8 {
			dst[i] = float64(v)
		}
	}
}

func (p *Pass) modeScatterLeaf(ws *Workspace, dst []float64, start int, x Block, cnt int, in input, z []float64) {
	In := p.Shape[p.Mode]
	q := len(p.Coef)
	rows := ws.rows[:cnt*In]
	p.modeRows(ws, rows, start, x, cnt, in, z)
	newSymAcc(In, dst).setGram(rows, cnt)
	if p.Cross {
		g := ws.g[:cnt*q]
		for i := range cnt {
			for k := range q {
				g[i*q+k] = p.Coef[k][start+i-p.CoefFirst]
			}
		}
		Y := blas64.General{Rows: cnt, Cols: In, Stride: In, Data: rows}
		G := blas64.General{Rows: cnt, Cols: q, Stride: q, Data: g}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, Y, G, 0, blas64.General{Rows: In, Cols: q, Stride: q, Data: dst[In*In : In*In+In*q]})
	}
}

// modeRows writes the partial projections y_m of OpModeScatter of the
// samples [start, start+cnt) to rows (cnt x Shape[Mode]), with the
// operations of contractor.partial (contractor.partialLead for a Lead
// pass) on each sample whatever the input: the mode-0 contraction of
// order 2 or by the Kronecker vector is one dotRows (or kernel.DotRowsFixed)
// over all the samples' rows of a uint8 block (contractor.rows0), the
// cache is filled by the first step (contractor.lead: mode0 for k = 0),
// and its rows are contracted a grain of samples at a time
// (contractor.finishLead), as are those of a Lead pass made from the
// samples, in ws.wz.
func (p *Pass) modeRows(ws *Workspace, rows []float64, start int, x Block, cnt int, in input, z []float64) {
	n := p.Mode
	In := p.Shape[n]
	size := p.size()
	c := ws.c
	if p.offset != nil {
		p.offset.begin(p, c)
	}
	switch {
	case in == fromX && n == 0 && p.Lead == 0 && c.oneDot():
		c.rows0(rows, x, cnt, p.Vectors)
	case in == fromX && len(p.Shape) == 2:
		c.mode0(rows, x, cnt, p.Vectors[0]) // n = 1: partial's one step
	case in == fromX && p.Lead == 0:
		for i := range cnt {
			c.partial(rows[i*In:(i+1)*In], x.slice(i*size, (i+1)*size), n, p.Vectors)
		}
	default:
		k := p.cacheMode()
		zs, g := p.zRow(), p.grain()
		for lo := 0; lo < cnt; lo += g {
			hi := min(lo+g, cnt)
			var zl []float64
			if in == fromX {
				zl = ws.wz[:(hi-lo)*zs]
			} else {
				zl = z[lo*zs : hi*zs]
			}
			if in != fromZ {
				// X_m x_k u^(k), kept in the cache when filling it.
				c.lead(zl, x.slice(lo*size, hi*size), hi-lo, k, p.Vectors[k])
			}
			c.finishLead(rows[lo*In:hi*In], zl, hi-lo, k, n, p.Vectors, ws.wa, ws.wb)
		}
	}
	if p.offset != nil {
		p.offset.wait()
	}
	if p.Offset != nil {
		for i := range cnt {
			floats.Sub(rows[i*In:(i+1)*In], p.Offset[:In])
		}
	}
	if p.Deflate == nil {
		return
	}
	q := len(p.Coef)
	for i := range cnt {
		r := ws.g[:q]
		for k := range q {
			r[k] = p.Coef[k][start+i-p.CoefFirst]
		}
		blas64.Gemv(blas.NoTrans, -1, blas64.General{Rows: In, Cols: q, Stride: q, Data: p.Deflate},
			blas64.Vector{N: q, Inc: 1, Data: r}, 1, blas64.Vector{N: In, Inc: 1, Data: rows[i*In : (i+1)*In]})
	}
}

// centredSample writes sample i of x, minus Mean when set, to dst.
func (p *Pass) centredSample(dst []float64, x Block, i, size int) {
	centreInto(dst[:size], x.slice(i*size, (i+1)*size), p.Mean)
}

// modeScattersLeaf treats the leaf's samples as one tensor of order N+1,
// samples first, so that each mode product and each mode Gram matrix is a
// few large matrix products over the whole leaf (see modeProduct).
func (p *Pass) modeScattersLeaf(ws *Workspace, dst []float64, x Block, cnt, size int) {
	for i := range cnt {
		p.centredSample(ws.x[i*size:], x, i, size)
	}
	// Project by the factors whose modes have no complement.
	ws.dims = append(append(ws.dims[:0], cnt), p.Shape...)
	ws.factors = append(ws.factors[:0], nil)
	var comp []int // modes applied through their complement
	for k, U := range p.Factors {
		if U != nil && k < len(p.Complements) && p.Complements[k] != nil {
			U = nil
			if _, c := p.Complements[k].Dims(); c > 0 {
				comp = append(comp, k)
			}
		}
		ws.factors = append(ws.factors, U)
	}
	dims := projectModes(ws.y, ws.tmp, ws.x[:cnt*size], ws.dims, ws.factors, &ws.sc)
	ws.dims = append(ws.dims[:0], dims...)
	off := 0
	for n, U := range p.Factors {
		if U != nil {
			continue
		}
		acc := newSymAcc(p.Shape[n], dst[off:])
		acc.clear()
		for set := b2i(p.NoFull); set < 1<<len(comp); set++ {
			y, d, sign := ws.y, ws.dims, 1.0
			if set != 0 {
				clear(ws.factors)
				for b, k := range comp {
					if set&(1<<b) != 0 {
						ws.factors[k+1] = p.Complements[k]
						sign = -sign
					}
				}
				ws.x2 = grow(ws.x2, len(ws.y))
				d = projectModes(ws.x2, ws.tmp, ws.y[:prod(ws.dims)], ws.dims, ws.factors, &ws.sc)
				y = ws.x2
			}
			modeGram(acc, sign, y, d, n+1, &ws.sc)
		}
		off += p.Shape[n] * p.Shape[n]
	}
}

func prod(dims []int) int {
	s := 1
	for _, d := range dims {
		s *= d
	}
	return s
}

func (p *Pass) coreMomentsLeaf(ws *Workspace, dst []float64, x Block, cnt, size int) {
	F := p.coreSize()
	rows := ws.rows[:cnt*F]
	for i := range cnt {
		p.centredSample(ws.x, x, i, size)
		projectModes(ws.y, ws.tmp, ws.x, p.Shape, p.Factors, &ws.sc)
		copy(rows[i*F:(i+1)*F], ws.y[:F])
	}
	nn := float64(cnt)
	mean, m2, sq := dst[1:1+F], dst[1+F:1+2*F], dst[1+2*F:1+3*F]
	clear(mean)
	clear(m2)
	clear(sq)
	for i := range cnt {
		floats.Add(mean, rows[i*F:(i+1)*F])
	}
	floats.Scale(1/nn, mean)
	for i := range cnt {
		for e, v := range rows[i*F : (i+1)*F] {
			d := v - mean[e]
			m2[e] += d * d
			sq[e] += v * v
		}
	}
	dst[0] = nn
}

// combine folds the partial right, of the samples that follow left's,
// into left.
func (p *Pass) combine(left, right []float64) {
	switch p.Op {
	case OpSum:
		size := len(left) - 2
		floats.Add(left[:size], right[:size])
		for i := size; i < size+2; i++ {
			if left[i] < 0 {
				left[i] = right[i]
			}
		}
	case OpPeak:
		left[0] = max(left[0], right[0])
	case OpModeScatter:
		In := p.Shape[p.Mode]
		newSymAcc(In, left).add(newSymAcc(In, right))
		if p.Cross {
			floats.Add(left[In*In:], right[In*In:])
		}
	case OpScatter:
		newSymAcc(p.size(), left).add(newSymAcc(p.size(), right))
	case OpModeScatters:
		off := 0
		for n, U := range p.Factors {
			if U == nil {
				d := p.Shape[n]
				newSymAcc(d, left[off:]).add(newSymAcc(d, right[off:]))
				off += d * d
			}
		}
	case OpCoreMoments:
		F := (len(left) - 1) / 3
		ln, rn := left[0], right[0]
		n := ln + rn
		lm, l2, ls := left[1:1+F], left[1+F:1+2*F], left[1+2*F:]
		rm, r2, rs := right[1:1+F], right[1+F:1+2*F], right[1+2*F:]
		for e := range F {
			delta := rm[e] - lm[e]
			l2[e] += r2[e] + delta*delta*ln*rn/n
			lm[e] += delta * rn / n
			ls[e] += rs[e]
		}
		left[0] = n
	default:
		floats.Add(left, right)
	}
}
