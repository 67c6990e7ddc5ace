package solver

import "math"

// Exact narrowing (doc.go, "Narrowing"): a fit whose samples are all in
// memory as float64 (or float32) reads them through a narrower copy when
// every value is exactly a value of the narrower type. The passes are
// bound by the bytes they read, and the kernels compute the same FMA chains
// in the same order for every element type (kernel_amd64.s: DOT_ROWS and
// AXPY_ROWS are written once over the element's load; the widening of a
// uint8 or a float32 to float64 is exact), so the model is the same bit
// for bit, only read from 8 (uint8) or 2 (float32) times fewer bytes.

// Resident is implemented by sources that hold all their samples in
// memory (SliceSource; hdf5io.Source once it has loaded its dataset).
// A local fit reads such samples through an exact narrower copy when
// they allow it (Options.NoNarrowing).
type Resident interface {
	// Resident returns every sample, sample-major, or ok = false when the
	// samples are not (or not yet) held in memory. The engine never
	// modifies them.
	Resident() (b Block, ok bool)
}

// Resident returns the source's samples: a SliceSource holds them all.
func (s *SliceSource) Resident() (Block, bool) { return s.data, true }

// narrowingExact reports whether narrowing keeps the model's bits: the
// assembly kernels take the same sums in the same order for every element
// type. The Go fallbacks do not (float64 rows of 16 or more go through
// gonum's Dot and AddScaled), so without AVX2 the samples are read as
// they are.
func narrowingExact() bool { return useAVX2 }

// narrow returns the source a local fit reads: src itself, or a
// SliceSource over an exact narrower copy of its samples when narrowing
// is on, exact (narrowingExact), src is Resident, and the copy fits in
// what the memory limit leaves (f.spare) beside the contraction cache when
// that would fit without the copy. The copy's bytes are taken from f.spare.
func (f *fitter) narrow(src Source) Source {
	if f.opts.NoNarrowing || !narrowingExact() {
		return src
	}
	r, ok := src.(Resident)
	if !ok {
		return src
	}
	b, ok := r.Resident()
	if !ok {
		return src
	}
	room := f.spare
	if f.cacheFits() {
		room -= f.cacheBytes()
	}
	nb, ok := narrowBlock(b, room)
	if !ok {
		return src
	}
	f.spare -= blockBytes(nb)
	return &SliceSource{data: nb, shape: src.Shape(), m: src.Len()}
}

// narrowBlock returns a copy of b in the narrowest element type that holds
// every value of b exactly, bit for bit (so never for -0.0, NaN or
// infinities): uint8, else float32 for float64 samples; ok = false when
// there is none narrower than b's, or the copy would take more than room
// bytes. It reads b once when no value narrows (it stops at the first
// value that does not) and about twice when they do.
func narrowBlock(b Block, room int64) (nb Block, ok bool) {
	switch {
	case b.F64 != nil:
		x := b.F64
		n := int64(len(x))
		i := notUint8(x)
		if i == len(x) && n <= room {
			return Block{U8: toUint8(x)}, true
		}
		if 4*n > room || notFloat32(x[i:]) < len(x)-i { // x[:i] are uint8 values
			return Block{}, false
		}
		out := make([]float32, len(x))
		for j, v := range x {
			out[j] = float32(v)
		}
		return Block{F32: out}, true
	case b.F32 != nil:
		if x := b.F32; int64(len(x)) <= room && notUint8F32(x) == len(x) {
			return Block{U8: toUint8(x)}, true
		}
	}
	return Block{}, false
}

// narrowChunk is how many values notUint8 and notFloat32 test between
// looks at the result: the test itself has no branches.
const narrowChunk = 256

// notUint8 returns the index of the first value of x that is not exactly
// a uint8 (an integer 0..255, and not -0.0), or len(x). A value outside
// 0..255 converts to some uint8 (Go leaves which to the implementation)
// that differs from it; NaN equals nothing; -0.0 differs from 0 in its
// sign bit.
func notUint8(x []float64) int {
	for i, v := range x {
		if math.Float64bits(float64(uint8(v))) != math.Float64bits(v) {
			return i
		}
	}
	return len(x)
}

// notUint8F32 is notUint8 for float32 values.
func notUint8F32(x []float32) int {
	for i, v := range x {
		if math.Float32bits(float32(uint8(v))) != math.Float32bits(v) {
			return i
		}
	}
	return len(x)
}

// notFloat32 returns the index of the first value of x that is not
// exactly a finite float32, or len(x).
func notFloat32(x []float64) int {
	for i, v := range x {
		if float64(float32(v)) != v || v-v != 0 {
			return i
		}
	}
	return len(x)
}

// toUint8 converts x, whose values notUint8 accepted, to uint8.
func toUint8[T float32 | float64](x []T) []uint8 {
	out := make([]uint8, len(x))
	for i, v := range x {
		out[i] = uint8(v)
	}
	return out
}

// elem returns b's element type.
func (b Block) elem() Elem {
	switch {
	case b.F64 != nil:
		return Float64
	case b.F32 != nil:
		return Float32
	}
	return Uint8
}

// blockBytes returns the bytes of b's elements.
func blockBytes(b Block) int64 {
	switch {
	case b.F64 != nil:
		return 8 * int64(len(b.F64))
	case b.F32 != nil:
		return 4 * int64(len(b.F32))
	}
	return int64(len(b.U8))
}
