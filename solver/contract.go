package solver

import "gonum.org/v1/gonum/floats"

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
}

// kronMax bounds the length of the Kronecker vector of partial's mode-0
// contraction (32 KiB of float64, an L1 cache): beyond it the rows it
// is dotted with would stream it from farther away than the samples.
const kronMax = 4096

func newContractor(dims []int) *contractor {
	size, rest := 1, 0
	for k, d := range dims {
		size *= d
		if k > 0 {
			rest += d
		}
	}
	// kronOf holds the vectors of modes 1.. (see kronecker), sized here
	// so that which worker first meets a leaf cannot change the fit's
	// allocations (TestAllocations).
	return &contractor{dims: dims, a: make([]float64, size), b: make([]float64, size), o: make([]float64, dims[len(dims)-1]), kronOf: make([]float64, 0, rest)}
}

// partial writes to out (len dims[n], not overlapping c's scratch) the
// contraction of sample x with vs[k] in every mode k != n. vs[n] is not
// read.
//
// The first contraction, the only one that touches every element of x, is
// made in x's own type; the rest work on the much smaller float64 result.
// For n >= 1 it is mode 0's (axpyRows over dims[0] rows of prod_{k>0}
// dims[k]): its result X x_1 u^(1) is what the runner's and sessions'
// caches keep (see Pass.leaf), and finish contracts it further. For n = 0
// on order N >= 3 samples it is all the other modes at once: one dot
// product of each of the dims[0] rows with the Kronecker product of
// vs[1..N-1], long rows rather than the prod_{k<N-1} dims[k] rows of
// dims[N-1] values of the trailing-mode-first order (the gait samples'
// 704 rows of 10), which short rows make slower by about a third (see
// doc.go, "Passes"). Past kronMax values, and for order 2, the trailing
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
			axpyRows(out, x, dims[0], cols, vs[0])
			return
		}
		axpyRows(c.a, x, dims[0], cols, vs[0])
		c.finish(out, c.a[:cols], 1, last, n, vs)
		return
	}
	if c.byKron() {
		dotRows(out, x, dims[0], cols, c.kronecker(vs))
		return
	}
	rows := len(c.a) / dims[last]
	if last == 1 {
		dotRows(out, x, rows, dims[last], vs[last])
		return
	}
	dotRows(c.a, x, rows, dims[last], vs[last])
	c.finish(out, c.a[:rows], 0, last-1, 0, vs)
}

// byKron reports whether partial contracts mode 0 of the samples by the
// Kronecker product of the other modes' vectors (order >= 3, at most
// kronMax values).
func (c *contractor) byKron() bool {
	return len(c.dims) >= 3 && len(c.a)/c.dims[0] <= kronMax
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
	return k
}

// finish contracts the float64 tensor cur, whose modes are lo..hi of
// c.dims, with vs in every mode but n, into out (not overlapping c's
// scratch; the last contraction writes it directly). It does not write
// cur (which may be a row of a cache) unless cur is c.a.
func (c *contractor) finish(out, cur []float64, lo, hi, n int, vs [][]float64) {
	dims := c.dims
	buf, spare := c.b, c.a
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
	dims := c.dims
	hi := len(dims) - 1
	buf, spare := bufA, bufB
	for hi > n {
		rows := len(cur) / dims[hi]
		dst := buf[:rows]
		if hi-1 == n && n == 1 {
			dst = out[:rows] // the last contraction: straight into the rows
		}
		dotRows(dst, Block{F64: cur}, rows, dims[hi], vs[hi])
		cur, buf, spare = dst, spare, buf
		hi--
	}
	if n == 1 {
		copy(out, cur)
		return
	}
	per, d := len(cur)/cnt, dims[n]
	for i := range cnt {
		c.finish(out[i*d:(i+1)*d], cur[i*per:(i+1)*per], 1, hi, n, vs)
	}
}

// full returns the full contraction of sample x with vs in every mode.
func (c *contractor) full(x Block, vs [][]float64) float64 {
	last := len(c.dims) - 1
	out := c.o
	if last == 0 {
		return dotBlock(x, vs[0])
	}
	c.partial(out, x, last, vs)
	return floats.Dot(out, vs[last])
}
