package solver

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/sompca/sompca/solver/internal/par"
)

// The blocks of a Session: requests, partials and their fold.
//
// A request is the pass (a Pass, encoded) and a block [First, First+N),
// with only that block's per-sample coefficients. The partial of a sum
// pass is what Pass.BlockSpans gives for the block's whole leaves (the
// subtrees of the fixed reduction tree it covers) plus, when the block
// starts or ends inside a leaf, that leaf's fragment; the session
// combines the fragments of a leaf cut by block boundaries, in sample
// order, and adds everything to the pass's Fold. Blocks that start at
// multiples of BlockMultiple have no fragments, and the fold is the local
// runner's, bit for bit. The partial of a rows pass is the block's rows.

// PassInfo describes a request (see ReadPassInfo).
type PassInfo struct {
	First, N   int   // the block [First, First+N)
	Shape      []int // the sample shape
	PartialLen int   // an upper bound on the bytes of the block's partial
	CacheLen   int   // float64s of the block cache the pass can use; 0: none
}

// sessionPass is a pass a session has handed out: the engine's pass and
// output, the fold of the partials fed so far, and the leaf cut by the
// last block boundary, waiting for its rest.
type sessionPass struct {
	s      *Session
	p      *Pass
	out    []float64
	fold   Fold
	common []byte // the encoded pass, shared by every block's request
	frag   *Span  // Level 0, a fragment of leaf First
	next   int    // the first leaf not yet added to fold
}

// request encodes the pass's request for the block [first, first+n).
func (sp *sessionPass) request(first, n int) []byte {
	p := sp.p
	if sp.common == nil {
		var w wire
		encodePass(&w, p)
		sp.common = w.b
	}
	w := wire{b: make([]byte, 0, len(sp.common)+32+len(p.Coef)*(8+8*n))}
	w.u64(wireRequest | wireVersion<<32)
	w.int(first)
	w.int(n)
	w.b = append(w.b, sp.common...)
	w.int(len(p.Coef))
	for _, c := range p.Coef {
		w.f64s(c[first-p.CoefFirst : first+n-p.CoefFirst])
	}
	return w.b
}

// Partial item kinds.
const (
	itemSpan     = 0 // whole leaves: a subtree of the reduction tree
	itemFragment = 1 // part of one leaf
)

// feed folds the partial of the block [first, first+n).
func (sp *sessionPass) feed(partial []byte, first, n int) error {
	p := sp.p
	r := wireReader{b: partial, what: "partial"}
	r.header(wirePartial)
	op, pf, pn := Op(r.int()), r.int(), r.int()
	if r.err == nil && (op != p.Op || pf != first || pn != n) {
		return errorf(ErrInvalid, "solver: the partial fed for block [%d, %d) of a %v pass is one of block [%d, %d) of a %v pass", first, first+n, p.Op, pf, pf+pn, op)
	}
	if p.Rows() {
		w := p.RowLen()
		if got := r.f64sInto(sp.out[first*w : (first+n)*w]); r.err == nil && got != n*w {
			return errorf(ErrInvalid, "solver: partial of block [%d, %d) holds %d values, want %d", first, first+n, got, n*w)
		}
		return r.end()
	}
	items, err := readItems(&r, p, first, n)
	if err != nil {
		return err
	}
	for _, it := range items {
		switch it.kind {
		case itemFragment:
			if sp.frag != nil && sp.frag.First == it.s.First {
				p.combine(sp.frag.Data, it.s.Data)
				continue
			}
			sp.flush()
			if it.s.First != sp.next {
				return errorf(ErrInvalid, "solver: partial of block [%d, %d) starts at leaf %d, want %d (blocks out of order)", first, first+n, it.s.First, sp.next)
			}
			sp.frag = &Span{First: it.s.First, Data: it.s.Data}
		case itemSpan:
			sp.flush()
			if it.s.First != sp.next {
				return errorf(ErrInvalid, "solver: partial of block [%d, %d) holds leaves from %d, want %d (blocks out of order)", first, first+n, it.s.First, sp.next)
			}
			sp.fold.Add(it.s)
			sp.next = it.s.First + 1<<it.s.Level
		}
	}
	if first+n == p.Samples {
		sp.flush()
	}
	return nil
}

// partialItem is an item of a sum pass's partial.
type partialItem struct {
	kind int
	s    Span
}

// readItems reads the items of a sum pass's partial of the block [first,
// first+n), after its header, checking each for the pass and block (the
// order of the items is left to the caller) and the end of the bytes.
func readItems(r *wireReader, p *Pass, first, n int) ([]partialItem, error) {
	g, want := p.grain(), p.PartialLen()
	items := make([]partialItem, r.count(24))
	for i := range items {
		kind, leaf, level := r.int(), r.int(), r.int()
		data := r.f64s()
		if r.err != nil {
			break
		}
		if len(data) != want || level < 0 || level > 62 || leaf < 0 || leaf*g >= first+n || (leaf+1)*g <= first && kind == itemFragment ||
			kind == itemSpan && leaf%(1<<level) != 0 {
			return nil, errorf(ErrInvalid, "solver: partial of block [%d, %d) is corrupt (an item of leaf %d, level %d, %d values)", first, first+n, leaf, level, len(data))
		}
		if kind != itemSpan && kind != itemFragment {
			return nil, errorf(ErrInvalid, "solver: partial of block [%d, %d) is corrupt (item kind %d)", first, first+n, kind)
		}
		items[i] = partialItem{kind, Span{First: leaf, Level: level, Data: data}}
	}
	return items, r.end()
}

// flush adds the waiting fragment, now whole, to the fold.
func (sp *sessionPass) flush() {
	if sp.frag != nil {
		sp.fold.Add(*sp.frag)
		sp.next = sp.frag.First + 1
		sp.frag = nil
	}
}

// ReadPassInfo reads what a driver needs to know of a request: its block,
// the sample shape, the size of its partial and of the block cache.
func ReadPassInfo(request []byte) (PassInfo, error) {
	p, first, n, err := decodeRequest(request)
	if err != nil {
		return PassInfo{}, err
	}
	return passInfo(p, first, n), nil
}

func passInfo(p *Pass, first, n int) PassInfo {
	info := PassInfo{First: first, N: n, Shape: p.Shape}
	const header = 6 * 8
	if p.Rows() {
		info.PartialLen = header + 8*n*p.RowLen()
	} else {
		// At most two fragments and two subtrees per level of the tree.
		g := p.grain()
		levels := 1
		for 1<<levels < n/g+2 {
			levels++
		}
		info.PartialLen = header + (2+2*levels)*(4*8+8*p.PartialLen())
	}
	if p.usesCache() {
		info.CacheLen = cacheHeader(p) + n*cacheRowMax(p)
	}
	return info
}

// The block cache of the OpModeScatter and OpModeRows passes over order
// N >= 3 samples that contract a mode k first (Pass.usesCache): [valid
// flag, first, n, k, u^(k) it was filled with (I_k values, then zeros to
// max_j I_j), Z_m = X_m x_k u^(k) for the block's samples]. A pass reads
// Z when the flag is set and the block, k and u^(k) are its own, else
// the samples, filling the cache, like the local runner's cache
// (runner.runCached): the operations are the same either way, so a lost,
// stale or foreign cache changes nothing but the speed. Its size is the
// same for every pass of a fit (cacheRowMax).
func cacheHeader(p *Pass) int { return 4 + slices.Max(p.Shape) }

// cacheRowMax returns the longest cache row of the passes of p's kind:
// prod_{j != 0} I_j for Lead 0, else the largest prod_{j != k} I_j.
func cacheRowMax(p *Pass) int {
	if p.Lead == 0 {
		return cacheRow(p.Shape)
	}
	return prod(p.Shape) / slices.Min(p.Shape)
}

var workspaces = sync.Pool{New: func() any { return NewWorkspace() }}

// rowBuffers hold the rows of a block's rows pass before they are encoded.
var rowBuffers = sync.Pool{New: func() any { return new([]float64) }}

// PassPartial computes the partial result of a request's block from its
// samples x, appended to dst: a pure function of the request and the
// samples (the cache, if given, changes only the speed; see PassInfo).
// cache is nil or a slice of PassInfo.CacheLen float64s that the caller
// keeps for this block between passes, zero-filled when new.
func PassPartial(dst []byte, request []byte, x Block, cache []float64) ([]byte, error) {
	p, first, n, err := decodeRequest(request)
	if err != nil {
		return dst, err
	}
	size := p.size()
	if x.elems() != n*size {
		return dst, errorf(ErrShape, "solver: the request is for %d samples of shape %v (%d values), the block holds %d values", n, p.Shape, n*size, x.elems())
	}
	ws := workspaces.Get().(*Workspace)
	defer workspaces.Put(ws)
	ws.ready(p)
	w := wire{b: dst}
	w.u64(wirePartial | wireVersion<<32)
	w.int(int(p.Op))
	w.int(first)
	w.int(n)
	in, z := fromX, []float64(nil)
	if info := passInfo(p, first, n); info.CacheLen > 0 && len(cache) == info.CacheLen {
		h, k := cacheHeader(p), p.cacheMode()
		key := cache[4 : 4+p.Shape[k]]
		z = cache[h : h+n*p.zRow()]
		if cache[0] == 1 && cache[1] == float64(first) && cache[2] == float64(n) && cache[3] == float64(k) && equalFloats(key, p.Vectors[k]) {
			in = fromZ
		} else {
			cache[0] = 0
			in = fromXFillZ
			defer func() {
				cache[1], cache[2], cache[3] = float64(first), float64(n), float64(k)
				copy(key, p.Vectors[k])
				cache[0] = 1
			}()
		}
	}
	if p.Rows() {
		buf := rowBuffers.Get().(*[]float64)
		defer rowBuffers.Put(buf)
		rows := grow(*buf, n*p.RowLen())
		*buf = rows
		p.leaf(ws, rows, first, x, in, z)
		w.f64s(rows)
		return w.b, nil
	}
	zs := 0
	if z != nil {
		zs = p.zRow()
	}
	// leafOf computes the partial of the samples [lo, hi) of the block,
	// into a buffer that the folds give back once combined (a leaf
	// overwrites its buffer whole), so a block allocates about log2 of
	// its leaves rather than one buffer per leaf.
	var pool bufPool
	leafOf := func(lo, hi int) []float64 {
		buf := pool.get(p.PartialLen())
		var zi []float64
		if z != nil {
			zi = z[(lo-first)*zs : (hi-first)*zs]
		}
		p.leaf(ws, buf, lo, x.slice((lo-first)*size, (hi-first)*size), in, zi)
		return buf
	}
	g, end := p.grain(), first+n
	type item struct {
		kind int
		s    Span
	}
	var items []item
	at := first
	if first%g != 0 { // the block starts inside a leaf
		hi := min(roundUp(first, g), end)
		items = append(items, item{itemFragment, Span{First: first / g, Data: leafOf(first, hi)}})
		at = hi
	}
	whole := end // whole leaves end here: at a leaf boundary, or at the data's end
	if end != p.Samples {
		whole = end / g * g
	}
	if whole > at {
		for _, s := range par.Spans(nil, at/g, (whole+g-1)/g) {
			f := Fold{Pass: p, release: pool.put}
			for l := s.First; l < min(s.First+1<<s.Level, (whole+g-1)/g); l++ {
				f.Add(Span{First: l, Data: leafOf(l*g, min((l+1)*g, whole))})
			}
			s.Data = f.Result()
			items = append(items, item{itemSpan, s})
		}
		at = whole
	}
	if at < end { // the block ends inside a leaf
		items = append(items, item{itemFragment, Span{First: at / g, Data: leafOf(at, end)}})
	}
	w.int(len(items))
	for _, it := range items {
		w.int(it.kind)
		w.int(it.s.First)
		w.int(it.s.Level)
		w.f64s(it.s.Data)
	}
	return w.b, nil
}

// JoinPartials appends to dst the partial of the union of consecutive
// blocks of one pass, given their partials in block order and the request
// of any block of the pass: a worker that computed neighbouring blocks
// sends one partial for them, in which the leaves cut by their boundaries
// are joined and the subtrees of the reduction tree that they complete
// together are folded (a rows pass's rows are concatenated). The session
// folds the joined partial as it folds the parts, the same sums in the
// same order, so the model does not change by a bit.
func JoinPartials(dst []byte, request []byte, partials [][]byte) ([]byte, error) {
	p, _, _, err := decodeRequest(request)
	if err != nil {
		return dst, err
	}
	if len(partials) == 0 {
		return dst, errorf(ErrInvalid, "solver: no partials to join")
	}
	type part struct {
		r        wireReader
		first, n int
	}
	parts := make([]part, len(partials))
	first, end := -1, -1
	for i, b := range partials {
		pt := &parts[i]
		pt.r = wireReader{b: b, what: "partial"}
		pt.r.header(wirePartial)
		op := Op(pt.r.int())
		pt.first, pt.n = pt.r.int(), pt.r.int()
		if pt.r.err != nil {
			return dst, pt.r.err
		}
		if op != p.Op || pt.n <= 0 || pt.first < 0 || pt.first > p.Samples-pt.n || i > 0 && pt.first != end {
			return dst, errorf(ErrInvalid, "solver: partial %d to join is one of block [%d, %d) of a %v pass, want a block from sample %d of a %v pass", i, pt.first, pt.first+pt.n, op, end, p.Op)
		}
		if i == 0 {
			first = pt.first
		}
		end = pt.first + pt.n
	}
	w := wire{b: dst}
	w.u64(wirePartial | wireVersion<<32)
	w.int(int(p.Op))
	w.int(first)
	w.int(end - first)
	if p.Rows() {
		rl := p.RowLen()
		w.int((end - first) * rl)
		for i := range parts {
			pt := &parts[i]
			if got := pt.r.count(8); pt.r.err == nil && got != pt.n*rl {
				return dst, errorf(ErrInvalid, "solver: partial of block [%d, %d) holds %d values, want %d", pt.first, pt.first+pt.n, got, pt.n*rl)
			}
			if pt.r.err == nil && len(pt.r.b) != 8*pt.n*rl {
				pt.r.err = errorf(ErrInvalid, "solver: partial has %d stray bytes (corrupt)", len(pt.r.b)-8*pt.n*rl)
			}
			if pt.r.err != nil {
				return dst, pt.r.err
			}
			w.b = append(w.b, pt.r.b...) // the values, as they are
		}
		return w.b, nil
	}
	g := p.grain()
	var head, frag *Span // the union's first item, if a fragment; a fragment waiting for its rest
	var stack []Span     // the whole leaves, folded as the tree folds them
	next := -1           // the first leaf the next item may hold
	push := func(s Span) {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.Level != s.Level || top.First+1<<top.Level != s.First || top.First%(2<<top.Level) != 0 {
				break
			}
			p.combine(top.Data, s.Data)
			stack = stack[:len(stack)-1]
			s = Span{First: top.First, Level: top.Level + 1, Data: top.Data}
		}
		stack = append(stack, s)
	}
	// settle places the waiting fragment: the union's head when its leaf
	// starts before the union, else a whole leaf.
	settle := func() {
		if frag == nil {
			return
		}
		if frag.First*g < first {
			head = frag
		} else {
			push(*frag)
		}
		frag = nil
	}
	for i := range parts {
		pt := &parts[i]
		items, err := readItems(&pt.r, p, pt.first, pt.n)
		if err != nil {
			return dst, err
		}
		for _, it := range items {
			if it.kind == itemFragment && frag != nil && frag.First == it.s.First {
				p.combine(frag.Data, it.s.Data)
				continue
			}
			settle()
			if next >= 0 && it.s.First != next {
				return dst, errorf(ErrInvalid, "solver: partial of block [%d, %d) holds leaves from %d, want %d (blocks out of order)", pt.first, pt.first+pt.n, it.s.First, next)
			}
			if it.kind == itemFragment {
				frag = &Span{First: it.s.First, Data: it.s.Data}
				next = it.s.First + 1
			} else {
				push(it.s)
				next = it.s.First + 1<<it.s.Level
			}
		}
	}
	var tail *Span // a fragment of a leaf that goes on after the union
	if frag != nil && (frag.First+1)*g > end && end != p.Samples {
		tail, frag = frag, nil
	}
	settle()
	count := len(stack)
	for _, f := range []*Span{head, tail} {
		if f != nil {
			count++
		}
	}
	w.int(count)
	put := func(kind int, s Span) {
		w.int(kind)
		w.int(s.First)
		w.int(s.Level)
		w.f64s(s.Data)
	}
	if head != nil {
		put(itemFragment, *head)
	}
	for _, s := range stack {
		put(itemSpan, s)
	}
	if tail != nil {
		put(itemFragment, *tail)
	}
	return w.b, nil
}

// encodePass writes every field of p but the coefficients.
func encodePass(w *wire, p *Pass) {
	w.int(int(p.Op))
	w.ints(p.Shape)
	w.int(p.Samples)
	w.f64sOrNil(p.Mean)
	w.int(p.Mode)
	w.int(len(p.Vectors))
	for _, v := range p.Vectors {
		w.f64s(v)
	}
	w.f64sOrNil(p.Offset)
	w.f64sOrNil(p.Deflate)
	w.bool(p.Cross)
	w.matrices(p.Factors)
	w.int(len(p.Features))
	for _, f := range p.Features {
		w.int(len(f))
		for _, v := range f {
			w.f64s(v)
		}
	}
	w.matrices(p.Complements)
	w.bool(p.NoFull)
	w.int(p.Lead)
	w.int(p.Scale)
}

// decodeRequest reads a request, checking everything a partial indexes.
func decodeRequest(b []byte) (p *Pass, first, n int, err error) {
	r := wireReader{b: b, what: "request"}
	r.header(wireRequest)
	first, n = r.int(), r.int()
	p = &Pass{}
	p.Op = Op(r.int())
	p.Shape = r.ints()
	p.Samples = r.int()
	p.Mean = r.f64sOrNil()
	p.Mode = r.int()
	p.Vectors = make([][]float64, r.count(8))
	for i := range p.Vectors {
		p.Vectors[i] = r.f64s()
	}
	p.Offset = r.f64sOrNil()
	p.Deflate = r.f64sOrNil()
	p.Cross = r.int() != 0
	p.Factors = r.matrices("factor")
	p.Features = make([][][]float64, r.count(8))
	for i := range p.Features {
		p.Features[i] = make([][]float64, r.count(8))
		for k := range p.Features[i] {
			p.Features[i][k] = r.f64s()
		}
	}
	p.Complements = r.matrices("complement")
	p.NoFull = r.int() != 0
	p.Lead = r.int()
	p.Scale = r.int()
	p.Coef = make([][]float64, r.count(8))
	for i := range p.Coef {
		p.Coef[i] = r.f64s()
	}
	p.CoefFirst = first
	if err := r.end(); err != nil {
		return nil, 0, 0, err
	}
	if err := p.check(first, n); err != nil {
		return nil, 0, 0, err
	}
	return p, first, n, nil
}

// check verifies that the operands of a decoded pass fit its shape and
// block, so that computing its partial cannot index out of range.
func (p *Pass) check(first, n int) error {
	bad := func(what string) error {
		return errorf(ErrInvalid, "solver: request is corrupt (%s)", what)
	}
	size, err := sampleSize(p.Shape)
	if err != nil {
		return bad(err.Error())
	}
	if p.Op < 0 || int(p.Op) >= len(opNames) {
		return bad("unknown pass " + p.Op.String())
	}
	if n <= 0 || first < 0 || first > p.Samples-n {
		return bad("block outside the samples")
	}
	if p.Scale < -1100 || p.Scale > 1100 { // float64 exponents lie within -1074..1024
		return bad("scale")
	}
	if p.Mean != nil && len(p.Mean) != size || p.Op == OpSquares && p.Mean == nil {
		return bad("mean")
	}
	N := len(p.Shape)
	vectors := func() bool {
		if len(p.Vectors) != N {
			return false
		}
		for k, v := range p.Vectors {
			if len(v) != p.Shape[k] {
				return false
			}
		}
		return true
	}
	switch p.Op {
	case OpScatter:
		if p.Mean == nil {
			return bad("mean")
		}
	case OpModeScatter, OpModeRows:
		if p.Mode < 0 || p.Mode >= N || !vectors() || p.Lead < 0 || p.Lead > N || p.Lead > 0 && (N < 3 || p.Lead-1 == p.Mode) {
			return bad("mode, lead or vectors")
		}
		In := p.Shape[p.Mode]
		if p.Offset != nil && len(p.Offset) != In || p.Deflate != nil && len(p.Deflate) != In*len(p.Coef) ||
			(p.Deflate != nil || p.Cross) && len(p.Coef) == 0 {
			return bad("offset, deflation or coefficients")
		}
		for _, c := range p.Coef {
			if len(c) != n {
				return bad("coefficients")
			}
		}
	case OpProject:
		if !vectors() || len(p.Offset) != 1 {
			return bad("vectors or offset")
		}
	case OpModeScatters, OpCoreMoments:
		if len(p.Factors) != N {
			return bad("factors")
		}
		for k, U := range p.Factors {
			if U != nil {
				if r, _ := U.Dims(); r != p.Shape[k] {
					return bad("factors")
				}
			}
		}
		if len(p.Complements) != 0 && len(p.Complements) != N {
			return bad("complements")
		}
		for k, W := range p.Complements {
			if W != nil && (p.Factors[k] == nil || !W.IsEmpty() && func() bool { r, _ := W.Dims(); return r != p.Shape[k] }()) {
				return bad("complements")
			}
		}
	case OpTransform:
		if len(p.Offset) != len(p.Features) {
			return bad("offsets")
		}
		for _, f := range p.Features {
			if len(f) != N {
				return bad("features")
			}
			for k, v := range f {
				if len(v) != p.Shape[k] {
					return bad("features")
				}
			}
		}
	}
	return nil
}

// Requests and partials travel as bytes that only this package reads: a
// magic number and format version, then little-endian fields written by
// wire and read back by wireReader. They are exchanged between processes
// of one library version on machines of one architecture; a mismatch is
// reported, never misread.
const (
	wireRequest = 0x5153_4d53 // "SMSQ"
	wirePartial = 0x5053_4d53 // "SMSP"
	wireVersion = 4
)

// wire appends fields to a byte slice.
type wire struct{ b []byte }

func (w *wire) u64(v uint64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, v)
}

func (w *wire) int(v int) { w.u64(uint64(int64(v))) }

func (w *wire) f64s(v []float64) {
	w.int(len(v))
	at := len(w.b)
	w.b = slices.Grow(w.b, 8*len(v))[:at+8*len(v)]
	b := w.b[at:]
	if littleEndian {
		copy(b, f64Bytes(v))
		return
	}
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
}

// littleEndian reports whether this machine lays out a float64 as the
// wire does, so that runs of values are copied whole (the rows of a rows
// pass are most of a session's bytes).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// f64Bytes returns the bytes of v in memory.
func f64Bytes(v []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v))
}

func (w *wire) ints(v []int) {
	w.int(len(v))
	for _, x := range v {
		w.int(x)
	}
}

// wireReader reads the fields of a wire; the first problem is kept in err
// and later reads return zeros.
type wireReader struct {
	b    []byte
	what string
	err  error
}

func (r *wireReader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 8 {
		r.err = errorf(ErrInvalid, "solver: %s is truncated or corrupt (not one this library version wrote)", r.what)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *wireReader) int() int { return int(int64(r.u64())) }

// count reads a length, checking that what follows can hold it.
func (r *wireReader) count(elem int) int {
	n := r.int()
	if r.err == nil && (n < 0 || n > len(r.b)/elem) {
		r.err = errorf(ErrInvalid, "solver: %s is truncated or corrupt (a length of %d)", r.what, n)
		return 0
	}
	return n
}

func (r *wireReader) f64s() []float64 {
	n := r.count(8)
	if r.err != nil {
		return nil
	}
	v := make([]float64, n)
	r.take(v)
	return v
}

// f64sInto reads what wire.f64s wrote into dst when it holds len(dst)
// values; it returns the number of values written there (dst is left as
// it is when the number differs).
func (r *wireReader) f64sInto(dst []float64) int {
	n := r.count(8)
	if r.err != nil || n != len(dst) {
		return n
	}
	r.take(dst)
	return n
}

// take reads len(dst) float64s (their count read and checked already).
func (r *wireReader) take(dst []float64) {
	n := len(dst)
	if littleEndian {
		copy(f64Bytes(dst), r.b[:8*n])
	} else {
		for i := range dst {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
		}
	}
	r.b = r.b[8*n:]
}

func (r *wireReader) ints() []int {
	n := r.count(8)
	v := make([]int, n)
	for i := range v {
		v[i] = r.int()
	}
	return v
}

// header checks the magic number and version.
func (r *wireReader) header(magic uint64) {
	if r.u64() != magic|wireVersion<<32 && r.err == nil {
		r.err = errorf(ErrInvalid, "solver: these bytes are not a %s of this library version", r.what)
	}
}

// end reports leftover bytes as corruption.
func (r *wireReader) end() error {
	if r.err == nil && len(r.b) != 0 {
		r.err = errorf(ErrInvalid, "solver: %s has %d stray bytes (corrupt)", r.what, len(r.b))
	}
	return r.err
}

func (w *wire) bool(v bool) {
	if v {
		w.int(1)
	} else {
		w.int(0)
	}
}

// f64sOrNil writes v, telling nil (length -1) from empty.
func (w *wire) f64sOrNil(v []float64) {
	if v == nil {
		w.int(-1)
		return
	}
	w.f64s(v)
}

func (r *wireReader) f64sOrNil() []float64 {
	if r.err == nil && len(r.b) >= 8 && int64(binary.LittleEndian.Uint64(r.b)) == -1 {
		r.b = r.b[8:]
		return nil
	}
	return r.f64s()
}

// matrices writes a list of matrices: -1 for nil, 0 for an empty one,
// else rows, columns and the values row by row.
func (w *wire) matrices(ms []*mat.Dense) {
	w.int(len(ms))
	for _, U := range ms {
		switch {
		case U == nil:
			w.int(-1)
		case U.IsEmpty():
			w.int(0)
		default:
			r, c := U.Dims()
			w.int(r)
			w.int(c)
			for i := range r {
				for j := range c {
					w.u64(math.Float64bits(U.At(i, j)))
				}
			}
		}
	}
}

// matrices reads what wire.matrices wrote; what names them in errors.
func (r *wireReader) matrices(what string) []*mat.Dense {
	ms := make([]*mat.Dense, r.count(8))
	for i := range ms {
		rows := r.int()
		if rows <= 0 {
			if rows == 0 {
				ms[i] = new(mat.Dense)
			}
			continue
		}
		cols := r.int()
		if r.err == nil && (cols <= 0 || rows > len(r.b)/8/cols) {
			r.err = errorf(ErrInvalid, "solver: request is truncated or corrupt (a %d x %d %s)", rows, cols, what)
		}
		if r.err != nil {
			break
		}
		data := make([]float64, rows*cols)
		for k := range data {
			data[k] = math.Float64frombits(r.u64())
		}
		ms[i] = mat.NewDense(rows, cols, data)
	}
	return ms
}
