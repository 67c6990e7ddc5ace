package solver

import (
	"gonum.org/v1/gonum/floats"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// contractor computes partial multilinear projections (eq. 10) of samples
// of one shape: the contraction of every mode but one with given vectors.
// It owns its scratch space, so each goroutine needs its own.
//
// The order of the contractions is a function of the shape and the free
// mode only (see partial), so that every path that contracts a sample
// (the passes from the samples, from the runner's cache, a session's
// block cache) makes the same operations and gets the same bits.
type contractor struct {
	dims []int
	a, b []float64
	o    []float64 // full's partial result
	// kron is vs[1] (x) ... (x) vs[N-1], the vector the mode-0 contraction
	// of order N >= 3 samples takes its dot products with (see partial);
	// kronOf holds the vectors it was made from, concatenated.
	kron, kronOf []float64
	// red[k] is dims without mode k, the shape of X x_k u^(k); rv holds
	// the vectors of those modes (see reduced).
	red [][]int
	rv  [][]float64

	// The exact contractions of samples whose values are all uint8
	// values (see sampleBytes and docs/DESIGN.md, "Exactness and narrowing"): u8 holds such a
	// float sample's values, sums is kernel.AxpyRowsFixed's scratch, and the
	// vectors the first contraction takes are kept in fixed point, made
	// once per vector: vs[0] (the mode-0 axpyRows; order 1's dot
	// product), vs[N-1] (the trailing mode's dotRows) and the Kronecker
	// vector (remade with it).
	u8                  []uint8
	sums                []int64
	fx0, fxLast, fxKron fixedCache

	routes *routes // the fit's route overrides (Workspace.ready sets it)
}

// fixedCache holds a vector in fixed point (kernel.FixedVec). Keyed by equality
// (keyed: the copy of), it is made anew when asked for another vector;
// the Kronecker vector's is made anew when kronecker remakes that vector
// (which clears ready).
type fixedCache struct {
	keyed, ready bool
	of           []float64
	f            kernel.FixedVec
}

func newFixedCache(n int, keyed bool) fixedCache {
	fc := fixedCache{keyed: keyed, f: kernel.NewFixedVec(n)}
	if keyed {
		fc.of = make([]float64, 0, n)
	}
	return fc
}

// get returns v in fixed point.
func (fc *fixedCache) get(v []float64) *kernel.FixedVec {
	if fc.ready && (!fc.keyed || equalFloats(fc.of, v)) {
		return &fc.f
	}
	if fc.keyed {
		fc.of = append(fc.of[:0], v...)
	}
	fc.f.Set(v)
	fc.ready = true
	return &fc.f
}

func newContractor(dims []int) *contractor {
	size, rest := 1, 0
	for k, d := range dims {
		size *= d
		if k > 0 {
			rest += d
		}
	}
	// kronOf holds the vectors of modes 1.. (see kronecker), and the
	// fixed-point scratch is sized here, so that which worker first meets
	// a leaf cannot change the fit's allocations (TestAllocations).
	last := len(dims) - 1
	c := &contractor{dims: dims, a: make([]float64, size), b: make([]float64, size), o: make([]float64, dims[last]), kronOf: make([]float64, 0, rest)}
	c.red, c.rv = make([][]int, len(dims)), make([][]float64, 0, len(dims))
	for k := range dims {
		c.red[k] = append(append([]int(nil), dims[:k]...), dims[k+1:]...)
	}
	c.u8 = make([]uint8, size)
	c.sums = make([]int64, kernel.FixedLimbs*(size/dims[0]))
	c.fx0, c.fxLast = newFixedCache(dims[0], true), newFixedCache(dims[last], true)
	if c.byKron() {
		c.fxKron = newFixedCache(size/dims[0], false)
	}
	return c
}

// sampleBytes returns the values of sample x as uint8 when they all are
// integers 0..255 (not -0.0, as narrowBlock): x's own for a uint8 sample,
// else c.u8 holding the converted values of a float one, which the check
// stops at the first value that is not such an integer. Such a sample
// is contracted as uint8, by the exact kernels (fixed.go), whatever the
// type it came in: so the contractions of a sample are a function of its
// values alone, and narrowing (narrow.go) or a block handed in as uint8
// rather than float64 cannot change a bit.
func (c *contractor) sampleBytes(x Block) ([]uint8, bool) {
	return bytesOf(c.u8, x)
}

// bytesOf returns x's values as uint8 when they all are integers 0..255:
// x.U8 itself, or buf[:x.elems()] holding those of a float x.
func bytesOf(buf []uint8, x Block) ([]uint8, bool) {
	switch {
	case x.F64 != nil:
		u := buf[:len(x.F64)]
		return u, toUint8(u, x.F64) == len(u)
	case x.F32 != nil:
		u := buf[:len(x.F32)]
		return u, toUint8(u, x.F32) == len(u)
	}
	return x.U8, true
}

// dotSample is dotRows(dst, x, rows, cols, v) on sample x (or rows of
// several): when its values are uint8 values (sampleBytes), the exact
// kernel.DotRowsFixed with v in fixed point (fc's), or the float64 kernel for
// uint8 when v has no fixed point (kernel.FixedVec.ok) or the rows are shorter
// than fixedDotMin; else the float64 kernel for x's type (dotRowsStream:
// the samples come from memory).
func (c *contractor) dotSample(dst []float64, x Block, rows, cols int, v []float64, fc *fixedCache) {
	if u, ok := c.sampleBytes(x); ok {
		if f := fc.get(v); f.OK() && cols >= fixedDotMin {
			kernel.DotRowsFixed(dst, u, rows, cols, f)
			return
		}
		x = Block{U8: u}
	}
	dotRowsStream(dst, x, rows, cols, v)
}

// mode0 sets dst (cnt x prod_{k>0} dims[k]) to the cnt samples in x
// contracted with v in their first mode (axpyRows), by the rule of
// dotSample, with v put in fixed point (when needed) once for them all.
func (c *contractor) mode0(dst []float64, x Block, cnt int, v []float64) {
	size := len(c.a)
	cols := size / c.dims[0]
	var f *kernel.FixedVec
	for i := range cnt {
		xi, di := x.slice(i*size, (i+1)*size), dst[i*cols:(i+1)*cols]
		if u, ok := c.sampleBytes(xi); ok {
			if f == nil {
				f = c.fx0.get(v)
			}
			if f.OK() {
				kernel.AxpyRowsFixed(di, u, c.dims[0], cols, f, c.sums)
				continue
			}
			xi = Block{U8: u}
		}
		axpyRowsStream(di, xi, c.dims[0], cols, v)
	}
}

// rows0 writes to out (cnt x dims[0]) the mode-0 partial projections of
// the cnt samples in x when they are one dotRows a sample (oneDot): of
// order 2, with vs[1], or by the Kronecker vector of vs. It is one
// dotSample over all their rows when they are uint8, else one a sample;
// each row's result is its own (dotRows and kernel.DotRowsFixed), so it is
// partial's, sample by sample.
func (c *contractor) rows0(out []float64, x Block, cnt int, vs [][]float64) {
	v, fc := vs[1], &c.fxLast
	if len(c.dims) > 2 {
		v, fc = c.kronecker(vs), &c.fxKron
	}
	d0, size := c.dims[0], len(c.a)
	if x.U8 != nil {
		c.dotSample(out, x, cnt*d0, len(v), v, fc)
		return
	}
	for i := range cnt {
		c.dotSample(out[i*d0:(i+1)*d0], x.slice(i*size, (i+1)*size), d0, len(v), v, fc)
	}
}

// oneDot reports whether partial contracts the samples in mode 0 by one
// dotRows (rows0): order 2, or by the Kronecker vector.
func (c *contractor) oneDot() bool {
	return len(c.dims) == 2 || c.byKron()
}

// partial writes to out (len dims[n], not overlapping c's scratch) the
// contraction of sample x with vs[k] in every mode k != n. vs[n] is not
// read.
//
// The first contraction, the only one that touches every element of x, is
// made by the exact uint8 kernels when x's values are all uint8 values,
// whatever its type (sampleBytes, dotSample), else in x's own type; the
// rest work on the much smaller float64 result.
// For n >= 1 it is mode 0's (axpyRows over dims[0] rows of prod_{k>0}
// dims[k]): its result X x_1 u^(1) is what the runner's and sessions'
// caches keep (see Pass.leaf), and finish contracts it further. For n = 0
// on order N >= 3 samples it is all the other modes at once: one dot
// product of each of the dims[0] rows with the Kronecker product of
// vs[1..N-1], long rows rather than the prod_{k<N-1} dims[k] rows of
// dims[N-1] values of the trailing-mode-first order (the gait samples'
// 704 rows of 10), which short rows make slower by about a third (see
// docs/DESIGN.md, "The reduction tree"). Past kronMax values, and for order 2, the trailing
// mode goes first.
func (c *contractor) partial(out []float64, x Block, n int, vs [][]float64) {
	dims := c.dims
	last := len(dims) - 1
	if last == 0 {
		for i := range out[:dims[0]] {
			out[i] = x.at(i)
		}
		return
	}
	cols := len(c.a) / dims[0] // prod_{k>0} dims[k]
	if n != 0 {
		if last == 1 {
			c.mode0(out, x, 1, vs[0])
			return
		}
		c.mode0(c.a[:cols], x, 1, vs[0])
		c.finish(out, c.a[:cols], 1, last, n, vs)
		return
	}
	if c.oneDot() {
		c.rows0(out, x, 1, vs)
		return
	}
	rows := len(c.a) / dims[last]
	c.dotSample(c.a, x, rows, dims[last], vs[last], &c.fxLast)
	c.finish(out, c.a[:rows], 0, last-1, 0, vs)
}

// byKron reports whether partial contracts mode 0 of the samples by the
// Kronecker product of the other modes' vectors (order >= 3, at most
// kronMax values).
func (c *contractor) byKron() bool {
	return len(c.dims) >= 3 && len(c.a)/c.dims[0] <= kronMax && !c.routes.noKron()
}

// kronecker returns vs[1] (x) ... (x) vs[N-1] (entry (i_1, ..., i_{N-1})
// in row-major order is ((vs[1][i_1] vs[2][i_2]) ...) vs[N-1][i_{N-1}]),
// made anew only when the vectors differ from the last call's.
func (c *contractor) kronecker(vs [][]float64) []float64 {
	dims := c.dims
	same := c.kron != nil
	off := 0
	for k := 1; k < len(dims) && same; k++ {
		same = equalFloats(c.kronOf[off:off+dims[k]], vs[k][:dims[k]])
		off += dims[k]
	}
	if same {
		return c.kron
	}
	c.kronOf = c.kronOf[:0]
	for _, v := range vs[1:len(dims)] {
		c.kronOf = append(c.kronOf, v...)
	}
	n := len(c.a) / dims[0]
	if cap(c.kron) < n {
		c.kron = make([]float64, n)
	}
	k := append(c.kron[:0], vs[1][:dims[1]]...)
	for _, v := range vs[2:len(dims)] {
		// In place, from the end: entry i of k is read before entries
		// i*len(v).. are written.
		d := len(v)
		k = k[:len(k)*d]
		for i := len(k)/d - 1; i >= 0; i-- {
			a := k[i]
			for j := d - 1; j >= 0; j-- {
				k[i*d+j] = a * v[j]
			}
		}
	}
	c.kron = k
	c.fxKron.ready = false
	return k
}

// finish contracts the float64 tensor cur, whose modes are lo..hi of
// c.dims, with vs in every mode but n, into out (not overlapping c's
// scratch; the last contraction writes it directly). It does not write
// cur (which may be a row of a cache) unless cur is c.a.
func (c *contractor) finish(out, cur []float64, lo, hi, n int, vs [][]float64) {
	finishOn(out, cur, c.dims, vs, lo, hi, n, c.b, c.a)
}

// finishOn is finish for a tensor of modes lo..hi of dims (vectors vs),
// in buf and spare (each at least len(cur) values; spare may be cur).
func finishOn(out, cur []float64, dims []int, vs [][]float64, lo, hi, n int, buf, spare []float64) {
	for hi > n {
		rows := len(cur) / dims[hi]
		dst := buf[:rows]
		if hi-1 == n && lo == n {
			dst = out[:rows]
		}
		dotRows(dst, Block{F64: cur}, rows, dims[hi], vs[hi])
		cur, buf, spare = dst, spare, buf
		hi--
	}
	for lo < n {
		cols := len(cur) / dims[lo]
		dst := buf[:cols]
		if lo+1 == n {
			dst = out[:cols]
		}
		axpyRows(dst, Block{F64: cur}, dims[lo], cols, vs[lo])
		cur, buf, spare = dst, spare, buf
		lo++
	}
	if len(out) > 0 && len(cur) > 0 && &out[0] != &cur[0] {
		copy(out, cur)
	}
}

// finishCache makes finish(out_i, cur_i, 1, N-1, n, vs) for the cnt
// samples whose rows of the cache of X x_1 u^(1) (n >= 1) are cur, into
// their rows out_i of out, with the same operations: the contractions of
// the trailing modes (dotRows, each row on its own) for all cnt samples at
// once, in bufA and bufB (each at least len(cur) values), then those of
// the leading modes (axpyRows) sample by sample.
func (c *contractor) finishCache(out, cur []float64, cnt, n int, vs [][]float64, bufA, bufB []float64) {
	c.finishLead(out, cur, cnt, 0, n, vs, bufA, bufB)
}

// finishLead makes, for the cnt samples whose rows of X x_k u^(k) (the
// samples contracted in mode k first, lead; n != k) are cur, the rest of
// the partial projection of mode n, into their rows of out: the
// contractions of the trailing modes (dotRows, each row on its own) for
// all cnt samples at once, in bufA and bufB (each at least len(cur)
// values), then those of the leading modes (axpyRows) sample by sample
// (one kernel.AxpySlabs over all cnt when that is mode 0 alone, the same
// bits), the modes in the order of partial's for n >= 1 (k = 0) with
// mode k left out. partialLead is the same on one sample.
func (c *contractor) finishLead(out, cur []float64, cnt, k, n int, vs [][]float64, bufA, bufB []float64) {
	dims, rv := c.reduced(k, vs)
	if n > k {
		n--
	}
	hi := len(dims) - 1
	buf, spare := bufA, bufB
	for hi > n {
		rows := len(cur) / dims[hi]
		dst := buf[:rows]
		if hi-1 == n && n == 0 {
			dst = out[:rows] // the last contraction: straight into the rows
		}
		dotRows(dst, Block{F64: cur}, rows, dims[hi], rv[hi])
		cur, buf, spare = dst, spare, buf
		hi--
	}
	if n == 0 {
		copy(out, cur)
		return
	}
	per, d := len(cur)/cnt, dims[n]
	if hi == 1 && !c.routes.noSlabs() && kernel.AxpySlabs(out[:cnt*d], cur, dims[0], d, cnt, rv[0]) {
		// n = 1 of two modes left: finishOn's one step, each sample's
		// axpyRows (the gait cache's 22 x 10 in mode 2), in one call
		// with the same bits.
		return
	}
	for i := range cnt {
		finishOn(out[i*d:(i+1)*d], cur[i*per:(i+1)*per], dims, rv, 0, hi, n, c.b, c.a)
	}
}

// reduced returns the sample shape and the vectors vs without mode k
// (the shape of X x_k u^(k)), in c's storage.
func (c *contractor) reduced(k int, vs [][]float64) ([]int, [][]float64) {
	c.rv = append(append(c.rv[:0], vs[:k]...), vs[k+1:len(c.dims)]...)
	return c.red[k], c.rv
}

// lead sets dst (cnt x prod_{j != k} dims[j]) to the cnt samples in x
// contracted with v in mode k, the first contraction of partialLead: by
// mode0 for k = 0; for the last mode by dotSample (one call over all the
// rows of a uint8 block: each row's result is its own); for a middle
// mode by the axpyRows of each of its prod_{j<k} dims[j] slices, in the
// samples' own type or, for samples of uint8 values (sampleBytes), by
// the float64 kernel for uint8 (float64 samples whose slices have rows
// of 4 to 16 values: all of them in one call, kernel.AxpySlabs, the same
// bits; the gait samples' 32 slices of 22 x 10). The same operations
// whatever the number of samples: a function of each sample's values.
func (c *contractor) lead(dst []float64, x Block, cnt, k int, v []float64) {
	dims := c.dims
	size := len(c.a)
	cols := size / dims[k]
	last := len(dims) - 1
	switch {
	case k == 0:
		c.mode0(dst, x, cnt, v)
	case k == last && x.U8 != nil:
		c.dotSample(dst, x, cnt*cols, dims[k], v, &c.fxLast)
	case k == last:
		for i := range cnt {
			c.dotSample(dst[i*cols:(i+1)*cols], x.slice(i*size, (i+1)*size), cols, dims[k], v, &c.fxLast)
		}
	default:
		inner := prod(dims[k+1:])
		slab := dims[k] * inner
		for i := range cnt {
			xi, di := x.slice(i*size, (i+1)*size), dst[i*cols:(i+1)*cols]
			if u, ok := c.sampleBytes(xi); ok {
				xi = Block{U8: u}
			} else if xi.F64 != nil && !c.routes.noSlabs() && kernel.AxpySlabs(di, xi.F64, dims[k], inner, size/slab, v) {
				continue // the same bits as the loop below, in one call
			}
			for a := range size / slab {
				axpyRowsStream(di[a*inner:(a+1)*inner], xi.slice(a*slab, (a+1)*slab), dims[k], inner, v)
			}
		}
	}
}

// partialLead is partial's result for mode n of sample x by the order of
// a sweep that caches X x_k u^(k) (Pass.Lead): mode k first (lead), then
// finishLead's order. k = 0 is partial's own order for n >= 1.
func (c *contractor) partialLead(out []float64, x Block, n, k int, vs [][]float64) {
	cols := len(c.a) / c.dims[k]
	c.lead(c.a[:cols], x, 1, k, vs[k])
	dims, rv := c.reduced(k, vs)
	m := n
	if n > k {
		m--
	}
	finishOn(out, c.a[:cols], dims, rv, 0, len(dims)-1, m, c.b, c.a)
}

// full returns the full contraction of sample x with vs in every mode.
func (c *contractor) full(x Block, vs [][]float64) float64 {
	last := len(c.dims) - 1
	out := c.o
	if last == 0 {
		c.dotSample(out[:1], x, 1, c.dims[0], vs[0], &c.fx0)
		return out[0]
	}
	c.partial(out, x, last, vs)
	return floats.Dot(out, vs[last])
}
