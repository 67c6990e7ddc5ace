package eigen

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/kernel"
	"github.com/sompca/sompca/solver/internal/par"
)

// FixSign flips v so that its entry of largest magnitude (the first such
// on ties) is positive. An eigenvector is defined up to sign; this one
// rule makes results reproducible and comparable. (A "sum positive" rule
// would not do: every later nu-mode vector of SO-MPCA-RS sums to zero.)
func FixSign(v []float64) {
	best, bi := -1.0, 0
	for i, x := range v {
		if a := math.Abs(x); a > best {
			best, bi = a, i
		}
	}
	if len(v) > 0 && v[bi] < 0 {
		floats.Scale(-1, v)
	}
}

// Solver finds the top eigenvector of a scatter matrix S restricted
// to the orthogonal complement of span(C), for C with orthonormal columns,
// given by its rows R = C^T (c x n, row-major): the vectors the answer
// must be orthogonal to, each contiguous, as the projection's kernels read
// them (krylov.project).
//
// Theorem 1 of the paper gives the constrained vector as the top
// eigenvector of Gamma S with Gamma = I - C C^T; UMPCA's Psi S has the same
// form. Gamma S is not symmetric, but Gamma is an orthogonal projector and
// the solution lies in its range, so the same vector is the top
// eigenvector of the symmetric Gamma S Gamma = B (B^T S B) B^T, with B an
// orthonormal basis of range(Gamma). The dense path solves the small
// symmetric B^T S B exactly; the Lanczos path applies Gamma S Gamma,
// keeping its vectors in range(Gamma). Either way the answer satisfies
// the constraint to rounding, even when S has a zero eigenvalue there.
//
// Its workspaces are sized by the first updates of a fit and reused by
// the rest, so that updates allocate nothing (TestAllocations). The
// products with Y run on a team of goroutines: the fit's (set team before
// the first update), or one the Solver starts on first use and close
// stops.
type Solver struct {
	work    Work // the dense path's scratch
	kr      krylov
	threads int       // goroutines for the products with Y (0: GOMAXPROCS)
	team    *par.Team // runs them
	block   int       // the samples of the fit's reads (0: one read), for gramOp.layout
	ownTeam bool      // team was started here: close stops it
	parts   []float64 // per-chunk sums of those products
	tmp     []float64 // Y v
	s       []float64 // the storage of S when topGram forms it
	sym     mat.SymDense
	symS    *mat.SymDense          // the matrix symApply applies
	symFn   func(dst, v []float64) // v -> symS v, made once
	fullN   int                    // the dimension of the S fullApply applies
	fullFn  func(dst, v []float64) // v -> S v for S in s, made once
	gram    gramOp                 // the operator gramApply applies
	form    formOp                 // formS's state
	chunkS  []float64              // formRows's chunk scatters
	gramFn  func(dst, v []float64) // v -> Y^T (Y v), made once

	// fixedRows says that a constraint stays the same for many updates
	// (an EMP's sweeps) and gains a row from one EMP to the next, so that
	// topComplement's bases (in comp) are made once and extended; see
	// useComplement.
	fixedRows bool
	comp      complementWork
	routes    *Routes // route overrides (Config.Routes)
}

// Config is what a fit tells its Solver before the first update.
type Config struct {
	Threads   int         // goroutines for the products with Y (0: GOMAXPROCS)
	Cancel    func() bool // polled by the Krylov iterations (nil: never canceled)
	FixedRows bool        // a constraint stays the same for an EMP's updates (see Solver.fixedRows)
	Team      *par.Team   // runs the products (nil: the Solver starts one on first use)
	Block     int         // the samples of the fit's reads (0: one read), for gramOp.layout
	Routes    *Routes     // route overrides, for tests (nil: none)
}

// Init sets e's configuration; call it before the first update.
func (e *Solver) Init(c Config) {
	e.threads, e.kr.cancel, e.fixedRows, e.team, e.block, e.routes = c.Threads, c.Cancel, c.FixedRows, c.Team, c.Block, c.Routes
	e.kr.ritzEach = c.Routes != nil && c.Routes.RitzEveryProduct
}

var errNoFreedom = errors.New("solver: no direction left outside the constraint")

// Top writes to u the unit top eigenvector of S restricted to the
// complement of span(C), C = R^T (R may be nil: no constraint), and
// returns its eigenvalue u^T S u. warm, if not nil, is a starting guess
// for the iterative path; *hint is set to the number of Krylov products
// it used.
func (e *Solver) Top(u []float64, S *mat.SymDense, R *mat.Dense, warm []float64, hint *int) (float64, error) {
	return e.topWith(u, S, nil, R, warm, hint)
}

// topWith is top with the Krylov products by apply (nil: symApply(S),
// from S's upper triangle).
func (e *Solver) topWith(u []float64, S *mat.SymDense, apply func(dst, v []float64), R *mat.Dense, warm []float64, hint *int) (float64, error) {
	n := S.SymmetricDim()
	c := 0
	if R != nil {
		c, _ = R.Dims()
	}
	if c >= n {
		return 0, errNoFreedom
	}
	var val float64
	var err error
	if n <= e.routes.denseLimit() {
		val, err = e.denseFrom(u, S, R, warm)
	} else {
		var ok bool
		applies := 0
		if apply == nil {
			apply = e.symApply(S)
		}
		e.kr.expect = *hint
		if e.fixedRows && e.routes.useComplement(n, c) {
			val, ok = e.topComplement(u, apply, R, warm, &applies)
		} else {
			val, ok = e.kr.Top(u, apply, constraint(R, n), warm, krylovMaxApply(n), &applies)
		}
		*hint = applies
		if e.kr.canceled {
			return 0, par.ErrCanceled
		}
		if !ok {
			val, err = e.dense(u, S, R)
		}
	}
	if err != nil {
		return 0, err
	}
	FixSign(u)
	return val, nil
}

// krylovMaxApply bounds the products krylov may spend on an n x n
// problem before the dense eigendecomposition takes over.
func krylovMaxApply(n int) int { return max(4*krylovSteps, n) }

// TopGram is top for S = Y^T Y, Y (m x n, row-major) the partial
// projections of the samples (len(Y) = m n, n = len(u)), forming S only
// when that is cheaper: a product S v = Y^T (Y v) costs 2 m n
// multiply-adds, forming S about gramBudget(n) of them. *hint carries
// the number of products the previous update of the same mode needed
// (0 at first): when it is within the budget the Krylov iteration runs on
// Y, and forms S and goes on from its best vector if the budget runs out;
// otherwise S is formed at once. Either way the iteration is the same, so
// the choice changes the cost, not the answer beyond rounding.
func (e *Solver) TopGram(u []float64, Y []float64, R *mat.Dense, warm []float64, hint *int) (float64, error) {
	n := len(u)
	c := 0
	if R != nil {
		c, _ = R.Dims()
	}
	if c >= n {
		return 0, errNoFreedom
	}
	if n > e.routes.denseLimit() && *hint <= gramBudget(n) && !e.routes.formAlways() {
		applies := 0
		e.kr.expect = *hint
		val, ok := e.kr.Top(u, e.gramApply(Y, n), constraint(R, n), warm, gramBudget(n), &applies)
		if e.kr.canceled {
			return 0, par.ErrCanceled
		}
		if ok {
			*hint = applies
			FixSign(u)
			return val, nil
		}
		warm = u
	}
	m := len(Y) / n
	e.s = grow(e.s, n*n)
	if err := e.formS(Y, m, n); err != nil {
		return 0, err
	}
	e.sym.SetRawSymmetric(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: e.s[:n*n]})
	return e.topWith(u, &e.sym, e.fullApply(n), R, warm, hint)
}

// FormS sets the solver's scatter to S = Y^T Y for Y (m x n, row-major),
// as TopGram forms it when products on Y would cost more (benchmarks time
// it alone).
func (e *Solver) FormS(Y []float64, m, n int) error {
	e.s = grow(e.s, n*n)
	return e.formS(Y, m, n)
}

// formS sets e.s (n x n, both triangles) to S = Y^T Y for Y (m x n,
// row-major, m >= 1), spread on e.team, the same bits whatever the number
// of threads. Up to formRowsMax it sums the chunks of rows' scatters by a
// fixed tree (formRows); beyond, it computes S as kernel.GramCols does, bit for
// bit (every entry the same chain of FMAs over all rows, by the same 4 x
// 8 block kernel): the 4-row blocks of the upper triangle are dealt to
// the members in runs of about equal work, each member writing only its
// blocks' rows, then each member fills the lower triangle of a share of
// the rows. Options.Cancel is polled before every chunk or block; once it
// returns true formS returns par.ErrCanceled.
func (e *Solver) formS(Y []float64, m, n int) error {
	if chunks := (m + gramChunk - 1) / gramChunk; chunks > 1 && chunks*n*n <= formRowsMax && !e.routes.noFormRows() {
		return e.formRows(Y, m, n, chunks)
	}
	if !kernel.AVX2() || n < 8 {
		// kernel.GramCols's portable path (and short rows): under
		// interruptible when the fit can be canceled.
		if e.kr.cancel == nil {
			kernel.GramCols(e.s, Y, m, n)
			return nil
		}
		if err := gramColsInterruptible(e.kr.cancel, e.s, Y, m, n); err != nil {
			// The product goes on in the background into e.s, which
			// this canceled fit never reads again.
			e.s = nil
			return err
		}
		return nil
	}
	f := &e.form
	crew := e.crew()
	f.y, f.m, f.n, f.cancel = Y, m, n, e.kr.cancel
	f.stopped.Store(false)
	// Block u computes rows [4u, min(4u+4, n)) from column i = min(4u,
	// n-4) on: ceil((n-i)/8) 4 x 8 kernel calls. Runs of equal calls.
	units := (n + 3) / 4
	total := 0
	for u := range units {
		total += bandCost(n, u)
	}
	f.deal.Reset(units, crew.Size())
	u, acc := 0, 0
	for w := range crew.Size() {
		lo := u
		for u < units && (w == crew.Size()-1 || (acc+bandCost(n, u))*crew.Size() <= (w+1)*total) {
			acc += bandCost(n, u)
			u++
		}
		f.deal.Set(w, lo, u)
	}
	if f.share == nil {
		f.share, f.mirror = e.formShare, e.formMirror
	}
	crew.Run(f.share)
	if f.stopped.Load() {
		return par.ErrCanceled
	}
	crew.Run(f.mirror)
	return nil
}

// formOp is formS's state, read by the members.
type formOp struct {
	y             []float64
	m, n          int
	cancel        func() bool
	stopped       atomic.Bool
	deal          par.Deal    // formS: the 4-row blocks; formRows: the chunks' parts; by member
	share, mirror func(w int) // e.formShare, e.formMirror, made once
	rows          func(w int) // e.formRowsTask, made once
	// arrived counts the members done with formRows's chunks (formRowsTask).
	arrived atomic.Int32
	// formRows: a chunk's scatter is computed in parts, each the 4-row
	// bands [bands[q], bands[q+1]) of its upper triangle; left[c] counts
	// chunk c's parts not yet done, top[c] is the level of the span
	// (gramOp.spans) that holds chunk c, met[k] says whether one of the
	// two children of node k of the tree (levels 1 up, at offsets
	// levelAt) is done.
	bands   []int
	left    []atomic.Int32
	Top     []int
	met     []atomic.Bool
	levelAt []int
}

// formRows is formS by chunks of rows, for S of moderate size: the
// scatter of each chunk of gramChunk rows (kernel.GramCols), summed by the
// products' fixed tree over the same chunks, dealt to the same members
// (gramOp.layout). The bits do not depend on the number of threads; each
// member reads the rows of Y it wrote in the pass, where splitting S by
// columns would make both cores read all of Y and the next pass's writes
// to it invalidate the other core's copies (on a virtual machine, that
// cost as much as the formation). One task of the team, in two steps
// (formRowsTask): first the chunks, each in up to formParts parts
// (bands of its rows of S) of about equal work, so that a member that
// has run out of chunks takes
// the last parts of the other's rather than waiting for a whole chunk
// (the end of a task left one member idle for 3-9 us of a 70-100 us
// formation at faces' 721 x 80); the member that completes a chunk adds
// it up its span's tree as far as the other child of each node is done
// (formClimb), so the spans are summed within the same step; then,
// once every member is done with the chunks (team.gather), each member
// adds the spans' values for its share of S's rows and fills their
// mirror images in the lower triangle (formRowsFold).
func (e *Solver) formRows(Y []float64, m, n, chunks int) error {
	g, f := &e.gram, &e.form
	crew := e.crew()
	g.layout(chunks, crew.Size(), e.block)
	f.y, f.m, f.n, f.cancel = Y, m, n, e.kr.cancel
	f.stopped.Store(false)
	e.chunkS = grow(e.chunkS, chunks*n*n)
	f.bands = formBands(f.bands[:0], n)
	parts := len(f.bands) - 1
	f.deal.Reset(0, g.size)
	for w := range g.size {
		f.deal.Set(w, g.chunkRuns[w]*parts, g.chunkRuns[w+1]*parts)
	}
	if len(f.left) < chunks {
		f.left = make([]atomic.Int32, chunks)
	}
	for c := range chunks {
		f.left[c].Store(int32(parts))
	}
	if cap(f.Top) < chunks {
		f.Top = make([]int, chunks)
	}
	f.Top = f.Top[:chunks]
	f.levelAt = f.levelAt[:0]
	nodes := 0
	for _, sp := range g.spans {
		for c := sp.First; c < sp.First+1<<sp.Level; c++ {
			f.Top[c] = sp.Level
		}
		for len(f.levelAt) < sp.Level {
			f.levelAt = append(f.levelAt, 0)
		}
	}
	for k := 1; k <= len(f.levelAt); k++ {
		f.levelAt[k-1] = nodes
		nodes += (chunks + 1<<k - 1) >> k
	}
	if len(f.met) < nodes {
		f.met = make([]atomic.Bool, nodes)
	}
	for i := range nodes {
		f.met[i].Store(false)
	}
	f.arrived.Store(0)
	if f.rows == nil {
		f.rows = e.formRowsTask
	}
	crew.Run(f.rows)
	if f.stopped.Load() {
		return par.ErrCanceled
	}
	return nil
}

// formRowsTask is formRows's task for member w: its parts of the chunks
// (formRowsShare), then, once every member is done with them (a barrier
// inside the task, which costs less than ending it and handing out
// another), its share of the fold (formRowsFold).
func (e *Solver) formRowsTask(w int) {
	f := &e.form
	arrived := false
	defer func() {
		if !arrived { // a panic: let the others pass the barrier, and fold nothing
			f.stopped.Store(true)
			f.arrived.Add(1)
		}
	}()
	e.formRowsShare(w)
	arrived = true
	e.team.Gather(&f.arrived)
	if !f.stopped.Load() {
		e.formRowsFold(w)
	}
}

// formBands returns the bounds of the parts of an n x n chunk scatter:
// up to formParts runs of its 4-row bands (ceil(n/4) of them, bandCost)
// of about equal cost, one part for every 16 columns, so that a part is worth
// more than the handing out (one part without the AVX2 kernel).
func formBands(dst []int, n int) []int {
	units := (n + 3) / 4
	total := 0
	for u := range units {
		total += bandCost(n, u)
	}
	parts := min(formParts, max(1, n/16), units)
	if !kernel.AVX2() || n < 8 {
		parts = 1 // kernel.GramCols makes the whole chunk
	}
	dst = append(dst, 0)
	acc := 0
	for u := range units {
		acc += bandCost(n, u)
		if q := len(dst); q < parts && acc*parts >= q*total {
			dst = append(dst, u+1)
		}
	}
	return append(dst, units)
}

// formRowsShare computes, as member w, parts of chunk scatters in
// formRows until none is left, adding each chunk it completes up the
// tree.
func (e *Solver) formRowsShare(w int) {
	g, f := &e.gram, &e.form
	Y, m, n := f.y, f.m, f.n
	nn, parts := n*n, len(f.bands)-1
	for {
		i, ok := f.deal.Take(w)
		if !ok || f.stopped.Load() {
			return
		}
		if f.cancel != nil && f.cancel() {
			f.stopped.Store(true)
			return
		}
		c, q := g.chunkOrder[i/parts], i%parts
		lo, hi := c*gramChunk, min(m, (c+1)*gramChunk)
		Sc, Yc := e.chunkS[c*nn:(c+1)*nn], Y[lo*n:hi*n]
		if !kernel.AVX2() || n < 8 {
			kernel.GramCols(Sc, Yc, hi-lo, n) // in one part (formBands)
		} else {
			gramBands(Sc, Yc, hi-lo, n, f.bands[q], f.bands[q+1])
		}
		if f.left[c].Add(-1) == 0 {
			e.formClimb(c)
		}
	}
}

// bandCost returns the 4 x 8 kernel calls of 4-row band u of the upper
// triangle of an n x n scatter (gramBands): from column min(4u, n-4) on.
func bandCost(n, u int) int { return (n - min(4*u, n-4) + 7) / 8 }

// gramBands writes the 4-row bands [u0, u1) of the upper triangle of the
// scatter S (n x n, n >= 8) of the rows of Y (rows x n) by kernel.GramCols's
// 4 x 8 blocks, stored straight into S's rows (with some entries of the
// lower triangle near the diagonal); the last band, moved back to rows
// n-4.. when 4 does not divide n, writes only its own rows, so that
// bands computed at once by different members never write the same
// entry.
func gramBands(S, Y []float64, rows, n, u0, u1 int) {
	var t [32]float64
	for u := u0; u < u1; u++ {
		i := min(4*u, n-4)
		r0, r1 := 4*u, min(4*u+4, n)
		for j0 := i; j0 < n; j0 += 8 {
			j := min(j0, n-8)
			if i == r0 {
				kernel.GramCols4x8(S[i*n+j:], n, Y[i:], Y[j:], n, rows)
				continue
			}
			kernel.GramCols4x8(t[:], 8, Y[i:], Y[j:], n, rows)
			for r := r0; r < r1; r++ {
				copy(S[r*n+j:r*n+j+8], t[8*(r-i):8*(r-i)+8])
			}
		}
	}
}

// formClimb adds the scatter of chunk c, just completed, up the tree of
// its span (gramOp.spans): at each node the first child done leaves, the
// second adds the right child's value (in its first chunk's place) to the
// left's. The span's value ends in its first chunk's place, for
// formRowsFold.
func (e *Solver) formClimb(c int) {
	f := &e.form
	nn := f.n * f.n
	node := c
	for k := 1; k <= f.Top[c]; k++ {
		parent := node >> 1
		if f.met[f.levelAt[k-1]+parent].CompareAndSwap(false, true) {
			return // the sibling is not done: it goes on
		}
		left, right := parent<<k, (2*parent+1)<<(k-1)
		e.formAdd(e.chunkS[left*nn:(left+1)*nn], e.chunkS[right*nn:(right+1)*nn])
		node = parent
	}
}

// formRowsFold adds, as member w, the spans' values (each in its first
// chunk's place) for its share of the rows of S's upper triangle by the
// tree's additions, in order (gramOp.foldPairs), so every entry is the
// same sum whatever the number of members; it writes those rows of S and
// their transposes, the columns below the diagonal. The rows are split so
// that the shares hold about as many entries.
func (e *Solver) formRowsFold(w int) {
	g, n := &e.gram, e.form.n
	nn, size := n*n, e.team.Size()
	lo := n - int(float64(n)*math.Sqrt(float64(size-w)/float64(size)))
	hi := n - int(float64(n)*math.Sqrt(float64(size-w-1)/float64(size)))
	for _, p := range g.foldPairs {
		dst, src := e.chunkS[p[0]*nn:(p[0]+1)*nn], e.chunkS[p[1]*nn:(p[1]+1)*nn]
		for r := lo; r < hi; r++ {
			floats.Add(dst[r*n+r:(r+1)*n], src[r*n+r:(r+1)*n])
		}
	}
	S, sum := e.s[:nn], e.chunkS[g.foldLast*nn:(g.foldLast+1)*nn]
	for r := lo; r < hi; r++ {
		copy(S[r*n+r:(r+1)*n], sum[r*n+r:(r+1)*n])
		for c := r + 1; c < n; c++ {
			S[c*n+r] = S[r*n+c]
		}
	}
}

// formAdd adds the upper triangle of the n x n src to dst's (formRows's
// combination of two chunks' scatters).
func (e *Solver) formAdd(dst, src []float64) {
	n := e.form.n
	for r := range n {
		floats.Add(dst[r*n+r:(r+1)*n], src[r*n+r:(r+1)*n])
	}
}

// formShare computes, as member w, blocks of S's upper triangle until none
// is left (see formS).
func (e *Solver) formShare(w int) {
	f := &e.form
	Y, S, m, n := f.y, e.s, f.m, f.n
	for {
		u, ok := f.deal.Take(w)
		if !ok || f.stopped.Load() {
			return
		}
		if f.cancel != nil && f.cancel() {
			f.stopped.Store(true)
			return
		}
		gramBands(S, Y, m, n, u, u+1)
	}
}

// formMirror fills, as member w, the lower triangle of its share of S's
// rows from the upper one (rows split so that the shares copy about as
// many entries).
func (e *Solver) formMirror(w int) {
	S, n, size := e.s, e.form.n, e.team.Size()
	lo := int(float64(n) * math.Sqrt(float64(w)/float64(size)))
	hi := int(float64(n) * math.Sqrt(float64(w+1)/float64(size)))
	for r := lo; r < hi; r++ {
		for c := range r {
			S[r*n+c] = S[c*n+r]
		}
	}
}

// crew returns e.team, starting a team of e.threads (0: GOMAXPROCS)
// goroutines when the fit gave none.
func (e *Solver) crew() *par.Team {
	if e.team == nil {
		threads := e.threads
		if threads <= 0 {
			threads = runtime.GOMAXPROCS(0)
		}
		e.team, e.ownTeam = par.NewTeam(threads), true
	}
	return e.team
}

// gramColsInterruptible runs kernel.GramCols under interruptible (a separate
// function, so that the closure's captures do not move topGram's
// variables to the heap when there is no cancellation).
//
//go:noinline
func gramColsInterruptible(cancel func() bool, S, Y []float64, m, n int) error {
	return par.Interruptible(cancel, func() { kernel.GramCols(S, Y, m, n) })
}

// fullApply returns v -> S v for the n x n matrix S in e.s with both
// triangles set (as kernel.GramCols leaves it), one dot product per row by the
// contraction kernel. The function is made once per Solver.
func (e *Solver) fullApply(n int) func(dst, v []float64) {
	e.fullN = n
	if e.fullFn == nil {
		e.fullFn = func(dst, v []float64) {
			n := e.fullN
			kernel.DotRowsF64(dst, e.s[:n*n], n, n, v, false)
		}
	}
	return e.fullFn
}

// gramBudget is the number of products S v = Y^T (Y v) that cost about as
// much as forming S by kernel.GramCols (m n^2 / 2 FMAs at about twice the rate of
// the products' 2 m n: BenchmarkModeEigen's Form / YApply is n/10 to n/6
// at m = 300..721, n = 32..256).
func gramBudget(n int) int { return max(4, n/8) }

// gramOp is the product v -> Y^T (Y v) of gramApply.
//
// The chunks' sums are added by a fixed tree (the value of chunks [lo,
// hi), hi - lo a power of two, is that of [lo, mid) plus that of [mid,
// hi)): each member computes whole subtrees of its own chunks (spans),
// and the caller adds the few spans' values. So the bits do not depend on
// the number of members, and little crosses from core to core (on a
// virtual machine a cache line moving between cores costs far more than
// its additions).
type gramOp struct {
	y         []float64 // Y, m x n row-major
	n, chunks int
	v         []float64 // the vector of the product under way
	// The layout, made for size members and reads of block samples: spans
	// are the subtrees the members compute, in chunk order (a span's
	// value goes to the parts of its first chunk); order lists them
	// member by member for deal.
	size, block int
	spans       []par.Span
	order       []int
	runs        []int // member w's positions in order: [runs[w], runs[w+1])
	// chunkOrder and chunkRuns are order and runs for single chunks.
	chunkOrder, chunkRuns []int
	deal                  par.Deal
	// foldPairs are the additions (into, from: chunk indices) that add
	// the spans' values by the tree, in order, the total landing in chunk
	// foldLast (foldPlan; the caller makes them for the products,
	// formRowsFold row by row for S); stack is foldPlan's scratch.
	foldPairs [][2]int
	foldLast  int
	stack     []par.Span
	share     func(w int) // e.gramShare, made once
}

// gramApply returns v -> Y^T (Y v) for Y (m x n, row-major), spread on the
// members of e.team. The returned function is made once per Solver;
// a later call redirects it to the new Y.
func (e *Solver) gramApply(Y []float64, n int) func(dst, v []float64) {
	g := &e.gram
	m := len(Y) / n
	g.y, g.n = Y, n
	e.parts = grow(e.parts, (m+gramChunk-1)/gramChunk*n)
	e.tmp = grow(e.tmp, m)
	g.layout((m+gramChunk-1)/gramChunk, e.crew().Size(), e.block)
	if e.gramFn == nil {
		g.share = e.gramShare
		e.gramFn = func(dst, v []float64) {
			g := &e.gram
			g.v = v
			for w := range g.size {
				g.deal.Set(w, g.runs[w], g.runs[w+1])
			}
			e.team.Run(g.share)
			// The spans' values added by the tree (foldPlan).
			n := g.n
			for _, p := range g.foldPairs {
				floats.Add(e.parts[p[0]*n:(p[0]+1)*n], e.parts[p[1]*n:(p[1]+1)*n])
			}
			copy(dst, e.parts[g.foldLast*n:(g.foldLast+1)*n])
		}
	}
	return e.gramFn
}

// layout deals the chunks to size members as the runner deals the leaves
// of each read of block samples (0: one read of all): each read's chunks
// split into equal runs, member w's runs cut into spans (see spans).
func (g *gramOp) layout(chunks, size, block int) {
	if g.chunks == chunks && g.size == size && g.block == block && g.spans != nil {
		return
	}
	g.chunks, g.size, g.block = chunks, size, block
	per := chunks
	if block > 0 {
		per = max(1, block/gramChunk)
	}
	// Every slice sized once for the layout (appending would allocate
	// more often for more samples; see TestAllocations).
	reads := (chunks + per - 1) / per
	g.spans = slices.Grow(g.spans[:0], reads*size*par.MaxSpans(per))
	for b := 0; b < chunks; b += per {
		for w := range size {
			a, z := par.Share(min(per, chunks-b), w, size)
			g.spans = par.Spans(g.spans, b+a, b+z)
		}
	}
	// order: the spans' indices member by member; deal positions index it.
	g.order, g.runs = slices.Grow(g.order[:0], len(g.spans)), append(slices.Grow(g.runs[:0], size+1), 0)
	for w := range size {
		for i, s := range g.spans {
			if g.ownerOf(s.First, per) == w {
				g.order = append(g.order, i)
			}
		}
		g.runs = append(g.runs, len(g.order))
	}
	// The same for single chunks (formRows).
	g.chunkOrder, g.chunkRuns = slices.Grow(g.chunkOrder[:0], chunks), append(slices.Grow(g.chunkRuns[:0], size+1), 0)
	for w := range size {
		for c := range chunks {
			if g.ownerOf(c, per) == w {
				g.chunkOrder = append(g.chunkOrder, c)
			}
		}
		g.chunkRuns = append(g.chunkRuns, len(g.chunkOrder))
	}
	g.deal.Reset(len(g.order), size)
	if k := len(g.spans); cap(g.foldPairs) < k {
		// sized at once (foldPlan makes fewer than k of each)
		g.foldPairs, g.stack = make([][2]int, 0, k), make([]par.Span, 0, k)
	}
	g.foldPairs, g.foldLast, g.stack = foldPlan(g.spans, g.stack, g.foldPairs)
}

// ownerOf returns the member whose run holds chunk c, for reads of per
// chunks.
func (g *gramOp) ownerOf(c, per int) int {
	b := c / per * per
	k := min(per, g.chunks-b)
	for w := range g.size {
		if a, z := par.Share(k, w, g.size); c-b >= a && c-b < z {
			return w
		}
	}
	return 0
}

// gramShare computes, as member w, spans of the product until none is
// left: each chunk's Y_c^T (Y_c v), then their sums up the span's tree.
func (e *Solver) gramShare(w int) {
	g := &e.gram
	n, m := g.n, len(g.y)/g.n
	for {
		i, ok := g.deal.Take(w)
		if !ok {
			return
		}
		s := g.spans[g.order[i]]
		for c := s.First; c < s.First+1<<s.Level; c++ {
			lo, hi := c*gramChunk, min(m, (c+1)*gramChunk)
			// The contraction kernels (AVX2 where there is AVX2) read the
			// chunk twice, the second time from cache: Y_c v, then Y_c^T
			// of it.
			Yc := g.y[lo*n : hi*n]
			kernel.DotRowsF64(e.tmp[lo:hi], Yc, hi-lo, n, g.v, false)
			kernel.AxpyRowsF64(e.parts[c*n:(c+1)*n], Yc, hi-lo, n, e.tmp[lo:hi], false)
		}
		spanSum(e.parts, n, s, floats.Add)
	}
}

// spanSum sums the values of span s's chunks (chunk c's value in
// parts[c*width:(c+1)*width]) up the span's tree, into its first chunk's.
func spanSum(parts []float64, width int, s par.Span, add func(dst, src []float64)) {
	for l := range s.Level {
		for c := s.First; c < s.First+1<<s.Level; c += 2 << l {
			d := c + 1<<l
			add(parts[c*width:(c+1)*width], parts[d*width:(d+1)*width])
		}
	}
}

// foldPlan returns the additions by which the spans' values (each in its
// first chunk's place, spans in chunk order) are added by the tree, as
// Fold does: pairs (into, from) of chunk indices, in order, appended to
// pairs[:0], and the chunk that then holds the total. stack is scratch;
// both are returned for reuse.
func foldPlan(spans, stack []par.Span, pairs [][2]int) ([][2]int, int, []par.Span) {
	pairs, st := pairs[:0], stack[:0]
	for _, s := range spans {
		for len(st) > 0 {
			top := st[len(st)-1]
			if top.Level != s.Level || top.First+1<<top.Level != s.First {
				break
			}
			pairs = append(pairs, [2]int{top.First, s.First})
			st = st[:len(st)-1]
			s = par.Span{First: top.First, Level: top.Level + 1}
		}
		st = append(st, s)
	}
	for len(st) > 1 {
		k := len(st)
		pairs = append(pairs, [2]int{st[k-2].First, st[k-1].First})
		st = st[:k-1]
	}
	return pairs, st[0].First, st[:0]
}

// Close stops the team of the products with Y if the Solver started
// it.
func (e *Solver) Close() {
	if e.ownTeam {
		e.team.Close()
	}
	e.team, e.ownTeam = nil, false
}

func (e *Solver) dense(u []float64, S *mat.SymDense, R *mat.Dense) (float64, error) {
	return e.denseFrom(u, S, R, nil)
}

// denseFrom is dense with warm (nil: none, else it may be u) a guess of
// the vector, which starts the small matrices' iteration (smallTop).
func (e *Solver) denseFrom(u []float64, S *mat.SymDense, R *mat.Dense, warm []float64) (float64, error) {
	var val float64
	var ok bool
	if R == nil {
		val, ok = e.work.Top(u, S, warm)
	} else {
		val, ok = e.work.topConstrained(u, S, R, warm)
	}
	if !ok {
		return 0, numericalf("solver: symmetric eigendecomposition did not converge")
	}
	return val, nil
}

// complementBasis returns an orthonormal basis (n x (n-c)) of the
// orthogonal complement of span(C), for C (n x c) with orthonormal
// columns: the last n-c columns of the full Q of C's QR factorisation.
func complementBasis(C *mat.Dense) *mat.Dense {
	n, c := C.Dims()
	var qr mat.QR
	qr.Factorize(C)
	var Q mat.Dense
	qr.QTo(&Q)
	return mat.DenseCopyOf(Q.Slice(0, n, c, n))
}

// orthonormalRange returns an orthonormal basis of the column span of A,
// dropping directions whose singular value is negligible (below
// max(n, c) eps sigma_max, as numpy's matrix_rank), or nil when A is
// (numerically) zero. A singular G'Y'YG in UMPCA thus narrows the
// constraint instead of breaking the fit. Singular values at most floor
// are dropped too (UMPCA: those that are rounding on the scale of the
// factors of A, tvpFit.crossFloor).
func orthonormalRange(A *mat.Dense, floor float64) *mat.Dense {
	var w SVDWork
	return w.OrthonormalRange(A.RawMatrix(), floor)
}

// symApply returns v -> S v for the upper triangle of S. The function is
// made once per Solver; a later call redirects it to the new S.
func (e *Solver) symApply(S *mat.SymDense) func(dst, v []float64) {
	e.symS = S
	if e.symFn == nil {
		e.symFn = func(dst, v []float64) {
			raw := e.symS.RawSymmetric()
			blas64.Symv(1, raw, blas64.Vector{N: len(v), Inc: 1, Data: v}, 0, blas64.Vector{N: len(dst), Inc: 1, Data: dst})
		}
	}
	return e.symFn
}

// constraint returns the storage of the constraint's rows R for krylov
// (no rows when R is nil), which reads them contiguous.
func constraint(R *mat.Dense, n int) blas64.General {
	if R == nil {
		return blas64.General{Rows: 0, Cols: n, Stride: n}
	}
	raw := R.RawMatrix()
	if raw.Stride != raw.Cols {
		panic("solver: constraint rows not contiguous")
	}
	return raw
}
