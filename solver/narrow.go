package solver

import (
	"math"

	"github.com/sompca/sompca/solver/internal/kernel"
)

// Exact narrowing (docs/DESIGN.md, "Exactness and narrowing"): a fit whose samples are all in
// memory as float64 (or float32) reads them through a narrower copy when
// every value is exactly a value of the narrower type. The passes are
// bound by the bytes they read, and the model is the same bit for bit,
// only read from 8 (uint8) or 2 (float32) times fewer bytes: a sample
// whose values are all uint8 values is contracted as uint8, by the exact
// kernels, whatever its type (contractor.sampleBytes); and the assembly
// kernels compute the same FMA chains in the same order for float32 and
// float64 elements (kernel_amd64.s: DOT_ROWS and AXPY_ROWS are written
// once over the element's load; the widening to float64 is exact).

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

// narrowingExact reports whether narrowing to type to keeps the model's
// bits. To uint8 it does on every build: the samples of uint8 values are
// contracted as uint8 whatever their type (contractor.sampleBytes), and
// the other readers of samples are the same code per element type. To
// float32 only with the assembly kernels, which take the same sums in the
// same order for float32 and float64: the Go fallbacks do not (float64
// rows of 16 or more go through gonum's Dot and AddScaled).
func narrowingExact(to Elem) bool { return to == Uint8 || kernel.AVX2() }

// narrow returns the source a local fit reads: src itself, or a
// SliceSource over an exact narrower copy of its samples when narrowing
// is on, exact (narrowingExact), src is Resident, and the copy fits in
// what the memory limit leaves (f.spare) beside the contraction cache when
// that would fit without the copy. The copy's bytes are taken from f.spare.
func (f *fitter) narrow(src Source) Source {
	if f.opts.NoNarrowing {
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
	nb, ok := narrowBlock(b, room, narrowingExact(Float32), f.opts.Cancel)
	if !ok {
		return src
	}
	f.spare -= blockBytes(nb)
	return &SliceSource{data: nb, shape: src.Shape(), m: src.Len()}
}

// narrowBlock returns a copy of b in the narrowest element type that holds
// every value of b exactly, bit for bit (so never for -0.0, NaN or
// infinities): uint8, else float32 for float64 samples when f32; ok = false when
// there is none narrower than b's, the copy would take more than room
// bytes, or canceled (nil: never) returned true, which it is asked between
// runs of narrowChunk values. Checking and copying to uint8 are one pass,
// which stops at the first value that does not narrow; the copy is
// allocated only once the leading values have narrowed (probe), so
// samples that do not narrow cost nothing.
func narrowBlock(b Block, room int64, f32 bool, canceled func() bool) (nb Block, ok bool) {
	switch {
	case b.F64 != nil:
		x := b.F64
		n := int64(len(x))
		i := 0 // x[:i] are uint8 values
		if n <= room {
			var u []uint8
			if u, i = narrowTo(x, toUint8, canceled); i == len(x) {
				return Block{U8: u}, true
			}
			if i < 0 {
				return Block{}, false
			}
		}
		if !f32 || 4*n > room || !inChunks(x[i:], canceled, func(c []float64, _ int) bool { return notFloat32(c) == len(c) }) {
			return Block{}, false
		}
		out := make([]float32, len(x))
		ok := inChunks(x, canceled, func(c []float64, lo int) bool {
			for j, v := range c {
				out[lo+j] = float32(v)
			}
			return true
		})
		return Block{F32: out}, ok
	case b.F32 != nil:
		if x := b.F32; int64(len(x)) <= room {
			if u, i := narrowTo(x, toUint8, canceled); i == len(x) {
				return Block{U8: u}, true
			}
		}
	}
	return Block{}, false
}

// narrowTo converts x to uint8 by conv while its values are exactly uint8
// values, and returns the copy and len(x), or nil and the index of the
// first value that is not (-1 when canceled returned true).
func narrowTo[T float32 | float64](x []T, conv func(dst []uint8, x []T) int, canceled func() bool) ([]uint8, int) {
	var head [probe]uint8
	k := min(len(x), probe)
	if i := conv(head[:k], x[:k]); i < k {
		return nil, i
	}
	out := make([]uint8, len(x))
	copy(out, head[:k])
	bad := -1 // canceled, unless a value does not narrow
	if !inChunks(x[k:], canceled, func(c []T, lo int) bool {
		i := conv(out[k+lo:k+lo+len(c)], c)
		if i < len(c) {
			bad = k + lo + i
		}
		return i == len(c)
	}) {
		return nil, bad
	}
	return out, len(x)
}

// inChunks calls f(x[lo:lo+narrowChunk], lo) for lo = 0, narrowChunk, ...
// (the last chunk shorter) until f returns false, polling canceled (if not
// nil) before each call; it reports whether f returned true for all of x
// without a cancel.
func inChunks[T any](x []T, canceled func() bool, f func(c []T, lo int) bool) bool {
	for lo := 0; lo < len(x); lo += narrowChunk {
		if canceled != nil && canceled() {
			return false
		}
		if !f(x[lo:min(lo+narrowChunk, len(x))], lo) {
			return false
		}
	}
	return true
}

// toUint8 sets dst[i] = x[i] while x[i] is exactly a uint8 value (an
// integer 0..255, not -0.0) and returns the index of the first x[i] that
// is not, or len(x). Adding 2^52 to a value v in [0, 2^52) leaves the
// integer nearest v in the low bits of the sum t's mantissa: v is an
// integer when t - 2^52 gives it back, and a uint8 when those bits are at
// most 255 (a negative v makes them wrap to a huge number; NaN fails the
// comparison; +Inf and values of 2^52 or more leave t's exponent above
// 2^52's, so its bits minus 2^52's are huge); -0.0 passes both and is
// refused by its sign bit.
func toUint8[T float32 | float64](dst []uint8, x []T) int {
	const magic = 0x1p52
	dst = dst[:len(x)]
	for i, e := range x {
		v := float64(e) // exact, sign of zero and NaN included
		t := v + magic
		u := math.Float64bits(t) - math.Float64bits(magic)
		if t-magic != v || u > 255 || math.Signbit(v) {
			return i
		}
		dst[i] = uint8(u)
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
