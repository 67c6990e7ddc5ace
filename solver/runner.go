package solver

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sompca/sompca/solver/internal/par"
)

// grain is the number of samples of one leaf of a pass's reduction tree
// (Pass.Grain; PCA's scatter uses 64). See docs/DESIGN.md, "The reduction tree".
const grain = par.Grain

// BlockMultiple is the multiple of samples at which a driver may split
// the samples into blocks (Pass.BlockSpans) and get the local fit's
// results bit for bit: every pass's Grain divides it.
const BlockMultiple = 64

// Executor runs the passes of a fit. Run makes pass p over all samples and
// writes its result into out: for a sum pass the PartialLen() values of
// the partials folded by the fixed tree of Fold; for a rows pass the
// RowLen() values of each sample, in sample order. The local executor
// (Model.Fit) runs the blocks on a pool of goroutines; a distributed
// driver may compute them elsewhere, with the same Partial and Fold, and
// get the same bits.
type Executor interface {
	Run(p *Pass, out []float64) error
}

// Span is the folded partial result of the leaves (grains) [First,
// First+2^Level) of a sum pass (par.Span).
type Span = par.Span

// Fold folds a sum pass's Spans, given in sample order, by the pass's
// fixed reduction tree: the value of leaves [lo, hi) (hi - lo a power of
// two) is that of [lo, mid) combined with that of [mid, hi), or just the
// former when [mid, hi) holds no leaf. The result depends on neither the
// number of goroutines nor the way the samples were split into blocks, as
// long as every block starts at a multiple of the grain.
type Fold struct {
	Pass  *Pass
	stack []Span
	// release, if set, receives the buffers that the fold no longer needs.
	release func([]float64)
}

// Add adds the span s, which must follow the spans added before.
func (f *Fold) Add(s Span) {
	for len(f.stack) > 0 {
		top := f.stack[len(f.stack)-1]
		if top.Level != s.Level || top.First+1<<top.Level != s.First {
			break
		}
		f.Pass.combine(top.Data, s.Data)
		f.free(s.Data)
		f.stack = f.stack[:len(f.stack)-1]
		s = Span{First: top.First, Level: top.Level + 1, Data: top.Data}
	}
	f.stack = append(f.stack, s)
}

func (f *Fold) free(b []float64) {
	if f.release != nil {
		f.release(b)
	}
}

// Result folds what was added into one result, which it returns (nil if
// nothing was added). The Fold is then empty.
func (f *Fold) Result() []float64 {
	if len(f.stack) == 0 {
		return nil
	}
	for len(f.stack) > 1 {
		n := len(f.stack)
		left, right := f.stack[n-2], f.stack[n-1]
		f.Pass.combine(left.Data, right.Data)
		f.free(right.Data)
		f.stack = f.stack[:n-1]
	}
	out := f.stack[0].Data
	f.stack = f.stack[:0]
	return out
}

// runner is the local Executor: it reads a Source in runs of whole
// readUnits and deals the leaves of each read to a team of goroutines
// started once per fit (see team): member w takes the w-th run of the
// read's leaves, the same samples in every pass (so its core's cache
// keeps what it read and wrote, such as the cache z and the rows of a
// rows pass), then helps the others. A leaf finished second of two
// siblings combines them, so the tree is folded in parallel; the subtrees
// of a read are then added to a Fold in order. A rows pass has no tree:
// its read is dealt by samples, in pieces of up to a grain that shrink
// to rowsPieceMin at the end of each member's run (deal.takeRange), so
// that the members finish within a few samples of each other rather
// than one waiting for the other's last leaf (at faces' 721 x 80 x 60,
// 2 threads, the median wait at the end of a pass fell from 5.4 to 0.9
// us of a 250 us pass).
type runner struct {
	src     Source
	m, size int // samples, elements per sample
	threads int
	block   int // samples per Read, a multiple of readUnit

	ws   []*Workspace // one per goroutine
	crew *par.Team    // started on first use, stopped by close
	work func(w int)  // r.j.work, made once
	stop atomic.Bool  // set to cancel: every leaf checks it
	// canceled, if not nil, is polled by every leaf and between reads
	// (Options.Cancel).
	canceled func() bool

	pool bufPool

	// The cache of Z_m = X_m x_k u^(k) for N >= 3 (see tvpFit and
	// Pass.usesCache): zMode is the k and zkey the u^(k) it was filled
	// with, valid when zValid. Passes whose rows are longer than z holds
	// read the samples.
	z      []float64
	zMode  int
	zkey   []float64
	zValid bool
	// kept is a second such cache that, once filled, is only read: the
	// pass that finds keepNext set (and kept long enough) fills it
	// instead of z and clears keepNext. A fit that rotates its cached
	// mode keeps there the samples contracted with the uniform vector
	// of the mode its EMPs contract first, which every EMP's first two
	// updates read (see fitTVP).
	kept      []float64
	keptMode  int
	keptKey   []float64
	keptValid bool
	keepNext  bool
	zb        []float64 // the cache the current pass fills or reads (z or kept)

	j    job
	fold Fold // reused by every pass

	routes *routes // the fit's route overrides (Options.routes), given to its passes
}

// job is one read's share of a pass, worked on by the whole pool. The
// runner reuses one job for every read.
type job struct {
	r       *runner
	p       *Pass
	start   int   // first sample of the read
	n, size int   // samples of the read, elements per sample of x
	x       Block // the read's samples (the cache z's when in == fromZ)
	in      input
	out     []float64 // rows pass: the read's rows
	deal    par.Deal  // the leaves, by member
	leaves  int
	g       int
	spans   []Span
	pending [][][]float64 // pending[k][i]: the first-finished child of parent i (relative) at level k+1
	slots   [][]float64   // the storage of pending
	mu      sync.Mutex
	panicV  any // the first panic of a worker, under mu
}

func newRunner(src Source, size, threads int) *runner {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	m := src.Len()
	perRead := max(1, readBytes/(8*size*readUnit)) * readUnit
	if mr, ok := src.(interface{ MaxRead() int }); ok {
		perRead = min(perRead, max(1, mr.MaxRead()/readUnit)*readUnit)
	}
	r := &runner{src: src, m: m, size: size, threads: threads, block: min(perRead, roundUp(max(m, 1), readUnit))}
	r.ws = make([]*Workspace, threads)
	for i := range r.ws {
		r.ws[i] = NewWorkspace()
	}
	return r
}

func roundUp(a, b int) int { return (a + b - 1) / b * b }

// team returns the runner's team of goroutines (threads - 1 of them: the
// caller of Run is the first member), starting it on first use; close
// stops it. The fit's eigen steps share it (eigen.Solver.team).
func (r *runner) team() *par.Team {
	if r.crew == nil {
		r.crew = par.NewTeam(r.threads)
		r.work = r.j.work
	}
	return r.crew
}

func (r *runner) close() {
	if r.crew != nil {
		r.crew.Close()
		r.crew = nil
	}
}

// cancel makes every leaf not yet started return at once.
func (r *runner) cancel() { r.stop.Store(true) }

func (r *runner) isCanceled() bool {
	if r.stop.Load() {
		return true
	}
	if r.canceled != nil && r.canceled() {
		r.stop.Store(true)
		return true
	}
	return false
}

// Run makes pass p over the source (see Executor).
func (r *runner) Run(p *Pass, out []float64) error {
	return r.run(p, out, r.src, r.size, fromX)
}

// runCached makes an OpModeScatter or OpModeRows pass that contracts the
// samples in a mode k first (Pass.usesCache): from the cache z when it
// holds the samples contracted in mode k with this pass's u^(k), else
// from the samples, filling the cache on the way when it has room. The
// results are those of Run: the operations are the same.
func (r *runner) runCached(p *Pass, out []float64) error {
	if !p.usesCache() {
		return r.Run(p, out)
	}
	k, zs := p.cacheMode(), p.zRow()
	if r.zValid && r.zMode == k && equalFloats(r.zkey, p.Vectors[k]) {
		r.zb = r.z
		return r.run(p, out, nil, zs, fromZ)
	}
	if r.keptValid && r.keptMode == k && equalFloats(r.keptKey, p.Vectors[k]) {
		r.zb = r.kept
		return r.run(p, out, nil, zs, fromZ)
	}
	if r.keepNext && len(r.kept) >= r.m*zs {
		r.keepNext, r.zb = false, r.kept
		if err := r.run(p, out, r.src, r.size, fromXFillZ); err != nil {
			return err
		}
		r.keptMode, r.keptKey, r.keptValid = k, append(r.keptKey[:0], p.Vectors[k]...), true
		return nil
	}
	if len(r.z) < r.m*zs {
		return r.Run(p, out)
	}
	r.zValid, r.zb = false, r.z
	if err := r.run(p, out, r.src, r.size, fromXFillZ); err != nil {
		return err
	}
	r.zMode, r.zkey, r.zValid = k, append(r.zkey[:0], p.Vectors[k]...), true
	return nil
}

// dropCaches empties both caches of partial contractions (fusion's
// single-mode fits each start without them).
func (r *runner) dropCaches() {
	r.z, r.zValid, r.kept, r.keptValid, r.keepNext = nil, false, nil, false, false
}

// inMemory reports whether src (or the source a scaledSource wraps)
// holds all its samples in memory (Resident), so that a pass may read
// them in any order.
func inMemory(src Source) bool {
	if s, ok := src.(*scaledSource); ok {
		src = s.Source
	}
	if r, ok := src.(Resident); ok {
		_, ok = r.Resident()
		return ok
	}
	return false
}

// rowsBlock returns the samples per read of a rows pass: all of them
// when the source holds them in memory, hands them out without a copy
// and takes reads of all (MaxRead), else r.block. A rows pass over
// resident samples, or over the cache z, is then one task of the team
// instead of one per read (gait 731 x 32 x 22 x 10: 1 instead of 2).
// Every rows pass of a fit, from the samples or from z, is read in the
// same runs, so that each member writes the same rows of the output in
// every pass (the formation of S is laid out by them: eigen.Solver.block).
// The rows do not depend on the reads.
func (r *runner) rowsBlock() int {
	src := r.src
	if s, ok := src.(*scaledSource); ok {
		if s.exp != 0 {
			return r.block // its reads are copies
		}
		src = s.Source
	}
	if mr, ok := r.src.(interface{ MaxRead() int }); ok && mr.MaxRead() < r.m {
		return r.block
	}
	if inMemory(src) {
		return max(r.m, 1)
	}
	return r.block
}

func equalFloats(a, b []float64) bool {
	if a == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// run makes pass p reading src (or, for fromZ, the cache z, of size
// elements per sample).
func (r *runner) run(p *Pass, out []float64, src Source, size int, in input) error {
	if r.isCanceled() {
		return ErrCanceled
	}
	p.routes = r.routes
	for _, ws := range r.ws {
		ws.ready(p)
	}
	crew := r.team()
	fold := &r.fold
	if fold.release == nil {
		fold.release = r.pool.put
	}
	fold.Pass = p
	rows := p.Rows()
	block := r.block
	if rows {
		block = r.rowsBlock()
	}
	reads := (r.m + block - 1) / block
	for b := range reads {
		bs := b * block
		bn := min(block, r.m-bs)
		var x Block
		if in == fromZ {
			x = Block{F64: r.zb[bs*size : (bs+bn)*size]}
		} else {
			blk, err := src.Read(bs, bn)
			if err != nil {
				return &sourceError{start: bs, n: bn, err: err}
			}
			if got := blk.elems(); got != bn*size {
				return fmt.Errorf("solver: source returned %d elements for %d samples of %d elements", got, bn, size)
			}
			x = blk
		}
		j := &r.j
		j.r, j.p, j.start, j.n, j.size, j.x, j.in, j.g = r, p, bs, bn, size, x, in, p.grain()
		j.out, j.spans, j.panicV = nil, j.spans[:0], nil
		if rows {
			w := p.RowLen()
			j.out = out[bs*w : (bs+bn)*w]
		}
		j.leaves = (bn + j.g - 1) / j.g
		if rows {
			// Any run of samples is a piece of a rows pass: dealt by
			// samples, in pieces of up to a grain, smaller at the end.
			j.deal.Reset(bn, crew.Size())
		} else {
			j.deal.Reset(j.leaves, crew.Size())
			a := bs / j.g
			j.spans = par.Spans(slices.Grow(j.spans[:0], par.MaxSpans(j.leaves)), a, a+j.leaves)
			maxLevel := 0
			for _, s := range j.spans {
				maxLevel = max(maxLevel, s.Level)
			}
			j.park(maxLevel)
			// Buffers in flight: one per worker and per pending slot a
			// worker may have parked at each level, and the fold's stack.
			r.pool.reserve(r.threads*(maxLevel+1)+2*maxLevel+2, p.PartialLen())
		}
		crew.Run(r.work)
		if j.panicV != nil {
			panic(fmt.Sprintf("solver: panic in a pass over the data: %v", j.panicV))
		}
		if r.isCanceled() {
			for _, s := range j.spans {
				if s.Data != nil {
					r.pool.put(s.Data)
				}
			}
			fold.Result()
			return ErrCanceled
		}
		for _, s := range j.spans {
			fold.Add(s)
		}
	}
	if !rows {
		res := fold.Result()
		copy(out, res)
		r.pool.put(res)
	}
	return nil
}

// work runs leaves of the job until none is left, as worker w.
func (j *job) work(w int) {
	defer func() {
		if v := recover(); v != nil {
			j.mu.Lock()
			if j.panicV == nil {
				j.panicV = v
			}
			j.mu.Unlock()
			j.r.cancel()
		}
	}()
	r, p, size := j.r, j.p, j.size
	ws := r.ws[w]
	zs := 0
	if j.in != fromX {
		zs = p.zRow()
	}
	rows := p.Rows()
	run := w
	for {
		var i, lo, hi int
		var ok bool
		if rows {
			lo, hi, ok = j.deal.TakeRange(run, j.g, j.r.routes.pieceMin())
		} else {
			i, ok = j.deal.Take(run)
			lo, hi = i*j.g, min((i+1)*j.g, j.n)
		}
		if !ok || r.isCanceled() {
			return
		}
		start := j.start + lo
		x := j.x.slice(lo*size, hi*size)
		var z []float64
		switch j.in {
		case fromXFillZ:
			z = r.zb[start*zs : (j.start+hi)*zs]
		case fromZ:
			z = x.F64
		}
		if rows {
			wl := p.RowLen()
			p.leaf(ws, j.out[lo*wl:hi*wl], start, x, j.in, z)
			continue
		}
		buf := r.pool.get(p.PartialLen())
		p.leaf(ws, buf, start, x, j.in, z)
		j.climb(j.start/j.g+i, buf)
	}
}

// park sizes the pending slots of levels 1..levels, from one allocation
// reused by later reads and passes.
func (j *job) park(levels int) {
	total := 0
	for k := range levels {
		total += (j.leaves >> k) + 2
	}
	if cap(j.slots) < total {
		j.slots = make([][]float64, total)
	}
	slots := j.slots[:total]
	clear(slots)
	if cap(j.pending) < levels {
		j.pending = make([][][]float64, levels)
	}
	j.pending = j.pending[:levels]
	for k := range levels {
		need := (j.leaves >> k) + 2
		j.pending[k], slots = slots[:need:need], slots[need:]
	}
}

// climb takes the partial of leaf g up the reduction tree: at each level,
// the first of two siblings to finish parks its partial, the second
// combines both and goes on, up to the top of the leaf's span.
func (j *job) climb(g int, buf []float64) {
	a := j.start / j.g
	si := 0
	for si+1 < len(j.spans) && j.spans[si+1].First <= g {
		si++
	}
	top := j.spans[si].Level
	node := g
	for k := 0; k < top; k++ {
		slot := &j.pending[k][node>>1-a>>(k+1)] // keyed by the parent
		j.mu.Lock()
		other := *slot
		if other == nil {
			*slot = buf
		} else {
			*slot = nil
		}
		j.mu.Unlock()
		if other == nil {
			return
		}
		if node%2 == 0 {
			j.p.combine(buf, other)
			j.r.pool.put(other)
		} else {
			j.p.combine(other, buf)
			j.r.pool.put(buf)
			buf = other
		}
		node /= 2
	}
	j.spans[si].Data = buf
}

// bufPool recycles partial buffers, so that a fit allocates them only
// while its first passes find the pool short.
type bufPool struct {
	mu   sync.Mutex
	free [][]float64
}

func (b *bufPool) get(n int) []float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.free) > 0 {
		last := b.free[len(b.free)-1]
		b.free = b.free[:len(b.free)-1]
		if cap(last) >= n {
			return last[:n]
		}
	}
	return make([]float64, n)
}

// reserve makes sure that count buffers of length n are free, allocating
// what is missing as one block.
func (b *bufPool) reserve(count, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	have := 0
	for _, f := range b.free {
		if cap(f) >= n {
			have++
		}
	}
	if have >= count {
		return
	}
	slab := make([]float64, (count-have)*n)
	for range count - have {
		b.free = append(b.free, slab[:n:n])
		slab = slab[n:]
	}
}

func (b *bufPool) put(buf []float64) {
	b.mu.Lock()
	b.free = append(b.free, buf)
	b.mu.Unlock()
}

// BlockSpans computes the partial results of the samples [start,
// start+n) in x (start a multiple of Grain(); n a multiple of it unless the
// block ends the data) for a sum pass, as the Spans of the fixed reduction
// tree that the block covers (at most 2 log2 of its leaves), for Fold.Add.
// A driver that splits the samples into such blocks and adds every
// block's spans in order gets the local fit's result bit for bit.
func (p *Pass) BlockSpans(ws *Workspace, start int, x Block) []Span {
	ws.ready(p)
	size := p.size()
	n := x.elems() / size
	g := p.grain()
	a := start / g
	out := par.Spans(nil, a, a+(n+g-1)/g)
	for i := range out {
		s := &out[i]
		var f Fold
		f.Pass = p
		for l := s.First; l < min(s.First+1<<s.Level, a+(n+g-1)/g); l++ {
			lo, hi := (l-a)*g, min((l-a+1)*g, n)
			buf := make([]float64, p.PartialLen())
			p.leaf(ws, buf, l*g, x.slice(lo*size, hi*size), fromX, nil)
			f.Add(Span{First: l, Data: buf})
		}
		s.Data = f.Result()
	}
	return out
}
