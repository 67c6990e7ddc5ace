package hdf5io

// #include "shim.h"
import "C"

import (
	"fmt"
	"math"

	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// DefaultChunkBytes bounds one read when Options.ChunkBytes is 0.
const DefaultChunkBytes = 64 << 20

// Options says how Open reads a dataset.
type Options struct {
	// SamplesLast says the samples run along the last axis, shape
	// (I_1, ..., I_N, M), as MATLAB and R write them; by default they run
	// along the first, shape (M, I_1, ..., I_N).
	SamplesLast bool
	// InMemory loads the whole dataset, converted, at Open; reads are then
	// views of that memory. Use it when the data fits, for speed.
	InMemory bool
	// ChunkBytes bounds the bytes (in the file's element type) of one
	// HDF5 read; 0 means DefaultChunkBytes. A read holds at least one
	// sample whatever the bound.
	ChunkBytes int64
}

// Source streams the samples of one HDF5 dataset to the solver. It
// implements solver.Source. Each Read reads whole samples by hyperslabs
// of at most MaxRead samples, converts them to Elem and, for samples-last
// data, transposes them to sample-major order; the block it returns is
// reused by the next Read. Memory is independent of the number of samples
// M unless Options.InMemory is set, or a caller asks one Read for more
// than MaxRead samples.
//
// A Source is used by one goroutine at a time. It holds the file open,
// read-only, until Close.
type Source struct {
	path, dataset string
	opts          Options

	file  *hdf5.File
	dset  *hdf5.Dataset
	space *hdf5.Dataspace // the file dataspace, reselected on each read
	dims  []uint          // the dataset's dimensions

	shape []int
	m     int
	size  int // elements per sample
	kind  kind
	elem  solver.Elem
	chunk int // samples per HDF5 read

	mem *solver.SliceSource // the data, with Options.InMemory

	out solver.Block // reused by Read
	raw []uint64     // reused raw buffer in the file's element type
}

// Open opens the dataset (e.g. "/train/X") of the HDF5 file at path as a
// Source of samples; see Options. The dataset must hold one of the ten
// numeric element types int8 ... uint64, float32, float64, have rank at
// least 2 and at least one sample.
func Open(path, dataset string, opts Options) (*Source, error) {
	dataset = datasetName(dataset)
	s, err := open(path, dataset, opts)
	if err != nil {
		return nil, &Error{Op: "open", Path: path, Object: dataset, Err: err}
	}
	return s, nil
}

func open(path, dataset string, opts Options) (_ *Source, err error) {
	if opts.ChunkBytes < 0 {
		return nil, fmt.Errorf("negative ChunkBytes %d", opts.ChunkBytes)
	}
	s := &Source{path: path, dataset: dataset, opts: opts}
	lock()
	defer unlock()
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.file, err = openRead(path); err != nil {
		return nil, err
	}
	if s.dset, err = openDataset(s.file, dataset); err != nil {
		return nil, err
	}
	if s.kind, err = datasetKind(s.dset); err != nil {
		return nil, err
	}
	s.elem = s.kind.elem()
	if s.dims, err = datasetDims(s.dset); err != nil {
		return nil, err
	}
	if err = s.setShape(); err != nil {
		return nil, err
	}
	if s.space = s.dset.Space(); s.space == nil {
		return nil, h5err(ErrCorrupt, "cannot read the dataspace")
	}
	bound := opts.ChunkBytes
	if bound == 0 {
		bound = DefaultChunkBytes
	}
	s.chunk = int(min(max(bound/int64(s.size*s.kind.bytes()), 1), int64(s.m)))
	if opts.InMemory {
		return s, s.load()
	}
	return s, nil
}

// setShape derives the sample shape and count from the dimensions.
func (s *Source) setShape() error {
	if len(s.dims) < 2 {
		return fmt.Errorf("%w: rank %d dataset of shape %s: need at least 2 axes (samples and one mode)", ErrShape, len(s.dims), formatDims(s.dims))
	}
	mAxis, shapeDims := 0, s.dims[1:]
	if s.opts.SamplesLast {
		mAxis, shapeDims = len(s.dims)-1, s.dims[:len(s.dims)-1]
	}
	if s.dims[mAxis] == 0 {
		return fmt.Errorf("%w: dataset of shape %s has zero samples along axis %d", ErrShape, formatDims(s.dims), mAxis)
	}
	if s.dims[mAxis] > math.MaxInt32*64 {
		return fmt.Errorf("%w: dataset of shape %s has too many samples", ErrShape, formatDims(s.dims))
	}
	s.m = int(s.dims[mAxis])
	s.size = 1
	for _, d := range shapeDims {
		if d == 0 {
			return fmt.Errorf("%w: dataset of shape %s has an empty mode (samples would have no elements)", ErrShape, formatDims(s.dims))
		}
		if uint(s.size) > math.MaxInt32*64/d {
			return fmt.Errorf("%w: samples of shape %s are too large", ErrShape, formatDims(shapeDims))
		}
		s.size *= int(d)
		s.shape = append(s.shape, int(d))
	}
	return nil
}

// load reads the whole dataset into memory and closes the file.
// Callers hold h5mu.
func (s *Source) load() error {
	if s.size > math.MaxInt/s.m {
		return fmt.Errorf("%w: %d samples of shape %v do not fit in memory", ErrShape, s.m, s.shape)
	}
	block, err := s.read(0, s.m)
	if err != nil {
		return err
	}
	switch {
	case block.F64 != nil:
		s.mem, err = solver.NewSliceSource(block.F64, s.m, s.shape)
	case block.F32 != nil:
		s.mem, err = solver.NewSliceSource(block.F32, s.m, s.shape)
	default:
		s.mem, err = solver.NewSliceSource(block.U8, s.m, s.shape)
	}
	if err != nil {
		return err
	}
	s.out, s.raw = solver.Block{}, nil
	s.close()
	return nil
}

// Shape returns the sample shape I_1, ..., I_N; the caller must not
// modify it.
func (s *Source) Shape() []int { return s.shape }

// Len returns the number of samples M.
func (s *Source) Len() int { return s.m }

// Elem returns the element type of the blocks Read returns: Uint8 for
// uint8 data, Float32 for int8, int16, uint16 and float32, Float64 for
// int32, uint32, int64, uint64 and float64. (int64 and uint64 values
// beyond 2^53 in magnitude are rounded to the nearest float64.)
func (s *Source) Elem() solver.Elem { return s.elem }

// FileType returns the element type of the dataset in the file, such as
// "int16".
func (s *Source) FileType() string { return s.kind.String() }

// MaxRead returns the number of samples one HDF5 read holds, the most
// that a Read can return without exceeding Options.ChunkBytes (M with
// Options.InMemory). The solver reads in runs of at most MaxRead samples,
// rounded up to its grain of 256, so memory stays bounded.
func (s *Source) MaxRead() int {
	if s.mem != nil {
		return s.m
	}
	return s.chunk
}

// String describes the source: file, dataset, type, shape and axis.
func (s *Source) String() string {
	axis := "first"
	if s.opts.SamplesLast {
		axis = "last"
	}
	return fmt.Sprintf("hdf5io.Source(%q, %q: %d samples of shape %v, %s (as %s), samples %s)", s.path, s.dataset, s.m, s.shape, s.kind, s.elem, axis)
}

// Read returns the samples [start, start+n) sample-major, in a block that
// the next Read reuses (solver.Source).
func (s *Source) Read(start, n int) (solver.Block, error) {
	if start < 0 || n < 0 || start > s.m-n {
		return solver.Block{}, &Error{Op: "read", Path: s.path, Object: s.dataset,
			Err: fmt.Errorf("samples [%d, %d) outside [0, %d)", start, start+n, s.m)}
	}
	if s.mem != nil {
		return s.mem.Read(start, n)
	}
	lock()
	defer unlock()
	if s.dset == nil {
		return solver.Block{}, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: fmt.Errorf("%w: source is closed", ErrIO)}
	}
	b, err := s.read(start, n)
	if err != nil {
		return solver.Block{}, &Error{Op: "read", Path: s.path, Object: s.dataset, Err: err}
	}
	return b, nil
}

// read reads samples [start, start+n) into s.out, MaxRead samples per
// HDF5 read. Callers hold h5mu.
func (s *Source) read(start, n int) (solver.Block, error) {
	total := n * s.size
	switch s.elem {
	case solver.Float64:
		s.out = solver.Block{F64: grow(s.out.F64, total)}
	case solver.Float32:
		s.out = solver.Block{F32: grow(s.out.F32, total)}
	default:
		s.out = solver.Block{U8: grow(s.out.U8, total)}
	}
	for done := 0; done < n; {
		k := min(s.chunk, n-done)
		if err := s.readSlab(start+done, k, done*s.size); err != nil {
			return solver.Block{}, err
		}
		done += k
	}
	return s.out, nil
}

// readSlab reads k samples from sample start into s.out at element off.
func (s *Source) readSlab(start, k, off int) error {
	rank := len(s.dims)
	offset, count := make([]uint, rank), append([]uint(nil), s.dims...)
	axis := 0
	if s.opts.SamplesLast {
		axis = rank - 1
	}
	offset[axis], count[axis] = uint(start), uint(k)
	if err := s.space.SelectHyperslab(offset, nil, count, nil); err != nil {
		return h5err(ErrCorrupt, fmt.Sprintf("cannot select samples [%d, %d)", start, start+k))
	}
	n := k * s.size
	memspace, err := hdf5.CreateSimpleDataspace([]uint{uint(n)}, nil)
	if err != nil {
		return h5err(ErrIO, "cannot create a memory dataspace")
	}
	defer memspace.Close()

	// Data already in the handed-out type and order goes straight into
	// the output block; everything else through the raw buffer.
	var dst *uint64
	direct := !s.opts.SamplesLast && (s.kind == kFloat64 || s.kind == kFloat32 || s.kind == kUint8)
	if direct {
		dst = s.outPointer(off)
	} else {
		s.raw = words(s.raw, n, s.kind)
		dst = &s.raw[0]
	}
	if C.sompca_h5_read(hid(s.dset), C.int(s.kind), hid(memspace), hid(s.space), unsafePointer(dst)) < 0 {
		return h5err(ErrCorrupt, fmt.Sprintf("cannot read samples [%d, %d)", start, start+k))
	}
	if !direct {
		convertKind(s.out, off, s.raw, s.kind, s.size, k, s.opts.SamplesLast)
	}
	return nil
}

// outPointer returns the address of element off of s.out.
func (s *Source) outPointer(off int) *uint64 {
	switch {
	case s.out.F64 != nil:
		return (*uint64)(unsafePointer(&s.out.F64[off]))
	case s.out.F32 != nil:
		return (*uint64)(unsafePointer(&s.out.F32[off]))
	}
	return (*uint64)(unsafePointer(&s.out.U8[off]))
}

// grow returns buf resized to n, reallocated if too small; never nil, so
// that an empty block still says its element type.
func grow[T any](buf []T, n int) []T {
	if cap(buf) >= n && buf != nil {
		return buf[:n]
	}
	return make([]T, n)
}

// Close releases the file. It is safe to call more than once.
func (s *Source) Close() error {
	lock()
	defer unlock()
	s.mem = nil
	return s.close()
}

// close closes whatever is open. Callers hold h5mu.
func (s *Source) close() error {
	var err error
	if s.space != nil {
		s.space.Close()
		s.space = nil
	}
	if s.dset != nil {
		if s.dset.Close() != nil && err == nil {
			err = h5err(ErrIO, "cannot close the dataset")
		}
		s.dset = nil
	}
	if s.file != nil {
		if s.file.Close() != nil && err == nil {
			err = h5err(ErrIO, "cannot close the file")
		}
		s.file = nil
	}
	if err != nil {
		return &Error{Op: "close", Path: s.path, Object: s.dataset, Err: err}
	}
	return nil
}
