package solver

import (
	"fmt"
	"math"
)

// Elem is the element type in which a Source hands out its samples.
// Kernels read each type as it is and accumulate in float64, so a uint8
// dataset is never expanded to float64 in memory.
type Elem int

const (
	Float64 Elem = iota
	Float32
	Uint8
)

func (e Elem) String() string {
	switch e {
	case Float64:
		return "float64"
	case Float32:
		return "float32"
	case Uint8:
		return "uint8"
	}
	return fmt.Sprintf("Elem(%d)", int(e))
}

// Block holds consecutive samples, sample-major and row-major (C order)
// within a sample, in one element type: exactly one of F64, F32 and U8 is
// non-nil and its length is a whole number of samples.
type Block struct {
	F64 []float64
	F32 []float32
	U8  []uint8
}

// elems returns the number of elements held by b.
func (b Block) elems() int {
	switch {
	case b.F64 != nil:
		return len(b.F64)
	case b.F32 != nil:
		return len(b.F32)
	default:
		return len(b.U8)
	}
}

// slice returns the elements [lo, hi) of b.
func (b Block) slice(lo, hi int) Block {
	switch {
	case b.F64 != nil:
		return Block{F64: b.F64[lo:hi]}
	case b.F32 != nil:
		return Block{F32: b.F32[lo:hi]}
	default:
		return Block{U8: b.U8[lo:hi]}
	}
}

// at returns element i of b as a float64.
func (b Block) at(i int) float64 {
	switch {
	case b.F64 != nil:
		return b.F64[i]
	case b.F32 != nil:
		return float64(b.F32[i])
	default:
		return float64(b.U8[i])
	}
}

// Source hands M samples of one tensor shape to the engine in consecutive
// runs. The engine makes several passes over a source, each reading
// [0, Len()) in increasing order by calls to Read; an in-memory source
// returns views of its own memory, a file-backed source (package hdf5io)
// reads each run from disk, so memory stays independent of M.
//
// A Source is used by one fit or transform at a time.
type Source interface {
	// Shape returns the shape I_1, ..., I_N of one sample (N >= 1).
	// The caller must not modify the returned slice.
	Shape() []int
	// Len returns the number of samples M.
	Len() int
	// Read returns the samples [start, start+n) as a Block holding
	// n*prod(Shape()) elements. The block may alias the source's memory or
	// a buffer that the next call to Read reuses; the engine never writes
	// to it and does not keep it past the next call.
	Read(start, n int) (Block, error)
}

// ReadCounter is implemented by sources that read their samples from
// storage (hdf5io.Source), so that a fit can report the bytes it reads
// through Options.ReadProgress.
type ReadCounter interface {
	// BytesRead returns the bytes of samples the source has read from
	// storage so far, in the storage's element type; it never decreases.
	// Each pass over a streamed source adds DataBytes.
	BytesRead() int64
	// DataBytes returns the bytes of all the samples in storage.
	DataBytes() int64
	// SetReadHook sets the function (nil: none) that the source calls on
	// the goroutine that called Read or PlanMemory, once per Read that
	// read from storage and after each read of a dataset loaded whole,
	// never holding a lock of its own. When it returns false, that Read or
	// PlanMemory fails with ErrCanceled.
	SetReadHook(hook func() bool)
}

// SliceSource is a Source over samples already in memory. It hands out
// views of the caller's slice without copying; the slice is never
// modified.
type SliceSource struct {
	data  Block
	shape []int
	m     int
}

// NewSliceSource returns a Source over data, which holds m samples of the
// given shape, sample-major and row-major within a sample. data is a
// []float64, []float32 or []uint8; it is neither copied nor modified.
func NewSliceSource[T float64 | float32 | uint8](data []T, m int, shape []int) (*SliceSource, error) {
	size, err := sampleSize(shape)
	if err != nil {
		return nil, err
	}
	if m < 0 {
		return nil, errorf(ErrShape, "solver: negative number of samples %d", m)
	}
	if m > 0 && size > math.MaxInt/m {
		return nil, errorf(ErrShape, "solver: %d samples of shape %v overflow int", m, shape)
	}
	if len(data) != m*size {
		return nil, errorf(ErrShape, "solver: data has %d elements, want %d samples x %v = %d", len(data), m, shape, m*size)
	}
	s := &SliceSource{shape: append([]int(nil), shape...), m: m}
	switch d := any(data).(type) {
	case []float64:
		s.data.F64 = nonNil(d)
	case []float32:
		s.data.F32 = nonNil(d)
	case []uint8:
		s.data.U8 = nonNil(d)
	}
	return s, nil
}

func nonNil[T any](d []T) []T {
	if d == nil {
		return []T{}
	}
	return d
}

func (s *SliceSource) Shape() []int { return s.shape }
func (s *SliceSource) Len() int     { return s.m }

// Elem returns the element type of the samples.
func (s *SliceSource) Elem() Elem {
	switch {
	case s.data.F64 != nil:
		return Float64
	case s.data.F32 != nil:
		return Float32
	}
	return Uint8
}

func (s *SliceSource) Read(start, n int) (Block, error) {
	if start < 0 || n < 0 || start+n > s.m {
		return Block{}, errorf(ErrShape, "solver: read of samples [%d, %d) outside [0, %d)", start, start+n, s.m)
	}
	size := s.data.elems() / max(s.m, 1)
	return s.data.slice(start*size, (start+n)*size), nil
}

// sampleSize checks a sample shape and returns the number of elements of
// one sample.
func sampleSize(shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, errorf(ErrShape, "solver: empty sample shape (a sample needs at least one mode)")
	}
	size := 1
	for n, d := range shape {
		if d <= 0 {
			return 0, errorf(ErrShape, "solver: mode %d of sample shape %v has size %d", n, shape, d)
		}
		if int64(size)*int64(d) > 1<<37 || int64(size)*int64(d) > math.MaxInt { // at most 2^37 elements per sample
			return 0, errorf(ErrShape, "solver: sample shape %v is too large", shape)
		}
		size *= d
	}
	return size, nil
}

// must returns v, panicking on a non-nil err: for calls that cannot fail.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// NewStridedSource returns a Source over m samples of the given shape in
// data, sample i at data[i*stride:], row-major (C order) within a sample,
// stride >= prod(shape) elements apart (stride 0: prod(shape), the
// samples consecutive). data is a []float64, []float32, []uint8,
// []uint16 or []int16 of at least (m-1)*stride + prod(shape) elements; it
// is neither copied nor modified. Consecutive float64, float32 and uint8
// samples are a SliceSource, handed out as they are; otherwise each Read
// copies its samples into a buffer of the Source's own, uint16 and int16
// widened to float32 (exact), the type in which package hdf5io hands out
// the samples of a 16-bit integer dataset, so that both give one model.
func NewStridedSource[T float64 | float32 | uint8 | uint16 | int16](data []T, m, stride int, shape []int) (Source, error) {
	size, err := sampleSize(shape)
	if err != nil {
		return nil, err
	}
	if stride == 0 {
		stride = size
	}
	switch {
	case m < 0:
		return nil, errorf(ErrShape, "solver: negative number of samples %d", m)
	case stride < size:
		return nil, errorf(ErrShape, "solver: a stride of %d elements between samples of shape %v (%d elements) makes them overlap", stride, shape, size)
	case m > 0 && stride > (math.MaxInt-size)/m:
		return nil, errorf(ErrShape, "solver: %d samples %d elements apart overflow int", m, stride)
	}
	if need := max(m-1, 0)*stride + size*min(m, 1); len(data) < need {
		return nil, errorf(ErrShape, "solver: data has %d elements, want at least %d for %d samples of shape %v, %d elements apart", len(data), need, m, shape, stride)
	}
	if stride == size {
		switch d := any(data).(type) {
		case []float64:
			return NewSliceSource(d[:m*size], m, shape)
		case []float32:
			return NewSliceSource(d[:m*size], m, shape)
		case []uint8:
			return NewSliceSource(d[:m*size], m, shape)
		}
	}
	return &copySource[T]{data: data, shape: append([]int(nil), shape...), m: m, size: size, stride: stride}, nil
}

// copySource is NewStridedSource's Source whose reads are copies.
type copySource[T float64 | float32 | uint8 | uint16 | int16] struct {
	data            []T
	shape           []int
	m, size, stride int
	buf             Block
}

// MaxRead keeps the engine's reads, and with them the copy, to about 4
// MiB of samples (at least readUnit samples), small beside the caller's
// array.
func (s *copySource[T]) MaxRead() int { return max(readUnit, (4<<20)/(8*s.size)) }

func (s *copySource[T]) Shape() []int { return s.shape }
func (s *copySource[T]) Len() int     { return s.m }

func (s *copySource[T]) Read(start, n int) (Block, error) {
	if start < 0 || n < 0 || start > s.m-n {
		return Block{}, errorf(ErrShape, "solver: read of samples [%d, %d) outside [0, %d)", start, start+n, s.m)
	}
	switch d := any(s.data).(type) {
	case []float64:
		s.buf.F64 = copySamples(s.buf.F64, d, start, n, s.size, s.stride)
		return Block{F64: s.buf.F64}, nil
	case []float32:
		s.buf.F32 = copySamples(s.buf.F32, d, start, n, s.size, s.stride)
	case []uint16:
		s.buf.F32 = copySamples(s.buf.F32, d, start, n, s.size, s.stride)
	case []int16:
		s.buf.F32 = copySamples(s.buf.F32, d, start, n, s.size, s.stride)
	case []uint8:
		s.buf.U8 = copySamples(s.buf.U8, d, start, n, s.size, s.stride)
		return Block{U8: s.buf.U8}, nil
	}
	return Block{F32: s.buf.F32}, nil
}

// copySamples copies samples [start, start+n) of src, stride elements
// apart, into buf (grown as needed) as consecutive samples of type D.
func copySamples[D float64 | float32 | uint8, S float64 | float32 | uint8 | uint16 | int16](buf []D, src []S, start, n, size, stride int) []D {
	if cap(buf) < n*size {
		buf = make([]D, n*size)
	}
	buf = buf[:n*size]
	for i := range n {
		in, out := src[(start+i)*stride:][:size], buf[i*size:(i+1)*size]
		for j, v := range in {
			out[j] = D(v)
		}
	}
	return nonNil(buf)
}
