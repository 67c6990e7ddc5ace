package solver

import "github.com/sompca/sompca/solver/internal/kernel"

// The transform of a model whose features are tensor-to-vector
// projections (SO-MPCA, UMPCA, TROD, fusion, PCA): y_p = X x_1 u_p^(1)
// ... x_N u_p^(N), for P features at once. Every way of contracting a
// sample costs P prod_n I_n multiply-adds in its first contraction,
// which touches every element; what the order changes is the rest. The
// trailing modes k..N-1, contiguous in memory, go first as one mode of
// L = I_k ... I_N values, the sample's rows (prod_{n<k} I_n of them)
// times the L x P matrix of the features' Kronecker vectors u_p^(k) (x)
// ... (x) u_p^(N): a GEMM-shaped product that reads each row once for
// all the features; then modes k-1, ..., 0 feature by feature on the
// rows x P result, P prod_{n<k} I_n multiply-adds, fewest for the
// smallest k. uint8 rows are contracted exactly (kernel.MultiDotFixed,
// the fit's fixed point), whose int32 sums bound L to kernel.MultiMax:
// k is the smallest with L <= MultiMax (gait 32 x 22 x 10: k = 1, L =
// 220, against P x 7040 multiply-adds, 1024 more, where mode 0 first
// would leave 7040). Each sample's features are a function of its values
// alone, whatever the block, the thread or the number of threads.

// multiPlan holds what the transform of one pass needs besides the
// samples: the features' vectors in the layouts of the two steps. Each
// worker makes its own from the pass (its vectors are the key), so a
// pass that came over a session's wire needs nothing more.
type multiPlan struct {
	of         []float64 // the features' vectors, concatenated: the key
	dims       []int
	k          int // modes k.. go first, as one of L values
	L, rows, P int
	S          int               // the features padded to kernel.MultiPad
	fixed      kernel.MultiFixed // the Kronecker vectors in fixed point
	kt         []float64         // L x S: kt[c*S+p], entry c of feature p's Kronecker vector
	lead       [][]float64       // lead[m], m < k: I_m x S, lead[m][t*S+p] = u_p^(m)[t]
	vecs       [][]float64       // the Kronecker vectors, one a feature
}

// multiWork is a worker's plan and scratch space for multiTransform.
type multiWork struct {
	plan       multiPlan
	z, a, b, f []float64
	sums       []int32
}

// multiSplit returns the first mode k of the trailing modes that go
// first (see above), and false when even the last mode alone is longer
// than kernel.MultiMax: then the features are contracted one by one
// (transformLeaf).
func multiSplit(dims []int) (int, bool) {
	k, L := len(dims), 1
	for k > 0 && L*dims[k-1] <= kernel.MultiMax {
		k--
		L *= dims[k]
	}
	return k, k < len(dims)
}

// keyed reports whether pl was made for pass p's vectors.
func (pl *multiPlan) keyed(p *Pass) bool {
	if pl.of == nil || len(p.Features) != pl.P || !equalInts(pl.dims, p.Shape) {
		return false
	}
	off := 0
	for _, vs := range p.Features {
		for n, v := range vs[:len(pl.dims)] {
			d := pl.dims[n]
			if !equalFloats(pl.of[off:off+d], v[:d]) {
				return false
			}
			off += d
		}
	}
	return true
}

// set makes pl for pass p, whose shape has a split (multiSplit).
func (pl *multiPlan) set(p *Pass) {
	dims := p.Shape
	pl.dims = append(pl.dims[:0], dims...)
	pl.P = len(p.Features)
	pl.of = pl.of[:0]
	for _, vs := range p.Features {
		for n, v := range vs[:len(dims)] {
			pl.of = append(pl.of, v[:dims[n]]...)
		}
	}
	pl.k, _ = multiSplit(dims)
	pl.L, pl.rows = prod(dims[pl.k:]), prod(dims[:pl.k])
	if len(pl.vecs) < pl.P {
		pl.vecs = make([][]float64, pl.P)
	}
	pl.vecs = pl.vecs[:pl.P]
	for f, vs := range p.Features {
		// entry (i_k, ..., i_N-1), row-major, is ((u^(k)[i_k] u^(k+1)[i_k+1]) ...)
		if cap(pl.vecs[f]) < pl.L {
			pl.vecs[f] = make([]float64, 0, pl.L)
		}
		v := append(pl.vecs[f][:0], vs[pl.k][:dims[pl.k]]...)
		for n := pl.k + 1; n < len(dims); n++ {
			d := dims[n]
			v = v[:len(v)*d]
			for i := len(v)/d - 1; i >= 0; i-- { // in place from the end
				a := v[i]
				for j := d - 1; j >= 0; j-- {
					v[i*d+j] = a * vs[n][j]
				}
			}
		}
		pl.vecs[f] = v
	}
	pl.fixed.Set(pl.vecs)
	pl.S = pl.fixed.Stride()
	pl.kt = grow(pl.kt, pl.L*pl.S)
	clear(pl.kt)
	for f, v := range pl.vecs {
		for c, e := range v {
			pl.kt[c*pl.S+f] = e
		}
	}
	pl.lead = pl.lead[:0]
	for m := range pl.k {
		t := make([]float64, dims[m]*pl.S)
		for f, vs := range p.Features {
			for i, e := range vs[m][:dims[m]] {
				t[i*pl.S+f] = e
			}
		}
		pl.lead = append(pl.lead, t)
	}
}

// multiGroupRows is the number of rows of uint8 samples transformMulti
// hands kernel.MultiSums at once (whole samples, at least one): enough
// for the AVX-512 kernel's tiles of 8 rows when the samples have fewer.
const multiGroupRows = 32

// transformMulti computes OpTransform's rows of the cnt samples in x by
// the plan above, and reports false, computing nothing, when the shape
// has no split.
func (p *Pass) transformMulti(ws *Workspace, dst []float64, x Block, cnt, size int) bool {
	if _, ok := multiSplit(p.Shape); !ok {
		return false
	}
	if ws.mt == nil {
		ws.mt = &multiWork{}
	}
	w := ws.mt
	pl := &w.plan
	if !pl.keyed(p) {
		pl.set(p)
	}
	P, S, rows, L := pl.P, pl.S, pl.rows, pl.L
	group := max(1, multiGroupRows/rows)
	w.z, w.a, w.b = grow(w.z, rows*S), grow(w.a, rows*S), grow(w.b, rows*S)
	if n := pl.fixed.SumsLen(group * rows); cap(w.sums) < n {
		w.sums = make([]int32, n)
	}
	if x.U8 != nil && pl.fixed.OK() {
		for lo := 0; lo < cnt; lo += group {
			n := min(group, cnt-lo)
			kernel.MultiSums(w.sums, x.U8[lo*size:(lo+n)*size], n*rows, L, &pl.fixed)
			for i := range n {
				pl.combine(dst[(lo+i)*P:(lo+i+1)*P], w, n*rows, i*rows, p.Offset)
			}
		}
		return true
	}
	for i := range cnt {
		xi := x.slice(i*size, (i+1)*size)
		row := dst[i*P : (i+1)*P]
		if u, ok := bytesOf(ws.u8[:size], xi); ok && pl.fixed.OK() {
			kernel.MultiSums(w.sums, u, rows, L, &pl.fixed)
			pl.combine(row, w, rows, 0, p.Offset)
			continue
		}
		f := xi.F64
		if f == nil {
			w.f = grow(w.f, size)
			toFloat64(w.f, xi)
			f = w.f
		}
		for r := range rows {
			axpyRows(w.z[r*S:(r+1)*S], Block{F64: pl.kt}, L, S, f[r*L:(r+1)*L])
		}
		pl.finish(row, w.z[:rows*S], w, p.Offset)
	}
	return true
}

// combine writes to row the features of the sample whose rows are r0..
// of the sums in w.sums (of a group of n rows): for k = 1 the kernel
// contracts mode 0 as it combines the limbs (kernel.MultiCombine with
// lead), else it gives the rows x S values that finish contracts.
func (pl *multiPlan) combine(row []float64, w *multiWork, n, r0 int, off []float64) {
	srows := n + kernel.MultiSlack
	if pl.k == 1 {
		kernel.MultiCombine(w.a, w.sums, srows, r0, pl.rows, &pl.fixed, pl.lead[0])
		for f := range row {
			row[f] = w.a[f] - off[f]
		}
		return
	}
	kernel.MultiCombine(w.z, w.sums, srows, r0, pl.rows, &pl.fixed, nil)
	pl.finish(row, w.z[:pl.rows*pl.S], w, off)
}

// finish contracts cur, rows x S values, with the features' vectors of
// modes k-1, ..., 0, each feature on its own column, and writes the
// features minus off to row.
func (pl *multiPlan) finish(row, cur []float64, w *multiWork, off []float64) {
	S := pl.S
	buf, spare := w.a, w.b
	for m := pl.k - 1; m >= 0; m-- {
		d := pl.dims[m]
		n := len(cur) / (S * d)
		next := buf[:n*S]
		V := pl.lead[m]
		for a := range n {
			out := next[a*S : (a+1)*S]
			clear(out)
			for t := range d {
				zr, vr := cur[(a*d+t)*S:][:S], V[t*S:][:S]
				for q := range out {
					out[q] += zr[q] * vr[q]
				}
			}
		}
		cur, buf, spare = next, spare, buf
	}
	for f := range row {
		row[f] = cur[f] - off[f]
	}
}
