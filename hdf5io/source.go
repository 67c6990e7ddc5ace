package hdf5io

// #include "shim.h"
import "C"

import (
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// DefaultChunkBytes bounds one read when Options.ChunkBytes is 0.
const DefaultChunkBytes = 64 << 20

// Options says how Open reads a dataset.
type Options struct {
	// Layout says where the samples and modes are: SamplesFirst (the
	// default), SamplesLast, or ColumnMajor for data written by MATLAB,
	// R, Julia or Fortran.
	Layout Layout
	// SamplesLast is the older spelling of Layout: SamplesLast.
	//
	// Deprecated: set Layout.
	SamplesLast bool
	// Warn receives each warning about how the dataset is read, such as a
	// MATLAB file read without ColumnMajor; nil logs them with the
	// standard logger.
	Warn func(message string)
	// ModelFile, for TransformFile only, names the file the model was
	// loaded from, recorded in the features' provenance attributes.
	ModelFile string
	// InMemory loads the whole dataset, converted, at Open; reads are then
	// views of that memory. Use it when the data fits, for speed.
	InMemory bool
	// ChunkBytes bounds the bytes (in the file's element type) of one
	// HDF5 read; 0 means DefaultChunkBytes. A read holds at least one
	// sample whatever the bound.
	ChunkBytes int64
	// Cancel, if not nil, is polled before every read from the file (and
	// by TransformFile between runs of samples); once it returns true the
	// read fails with solver.ErrCanceled.
	Cancel func() bool
}

// Source streams the samples of one HDF5 dataset to the solver. It
// implements solver.Source. Each Read reads whole samples by hyperslabs
// of at most MaxRead samples, converts them to Elem and, for samples-last
// data, transposes them to sample-major order. While the caller works on
// the block a Read returned, the Source already reads the next run of
// samples on a goroutine of its own (double buffering); the block is
// valid until the next Read. Memory is independent of the number of
// samples M unless the dataset is loaded whole (Options.InMemory, or a
// memory limit that holds it), or a caller asks one Read for more than
// MaxRead samples.
//
// A Source is used by one goroutine at a time. It holds the file open,
// read-only, until Close.
type Source struct {
	path, dataset string
	opts          Options
	layout        Layout
	perm          []int // ColumnMajor: stored index of each element of a sample (reversedModes)

	file  *hdf5.File
	size0 int64 // the file's size when opened (-1: unknown); a read checks it has not changed
	swmr  bool  // opened for SWMR reading: a writer may append to the file (it may grow, not shrink)
	dset  *hdf5.Dataset
	rd    C.hid_t // the dataset again, with a chunk cache sized for the reads; reads go through it
	dims  []uint  // the dataset's dimensions
	chunk []uint  // its chunk shape; nil when not chunked

	// Chunks read as stored and copied (sompca_h5_read_chunks) rather than
	// through HDF5's selections: unfiltered, no type conversion.
	rawChunks bool
	cchnk     []C.hsize_t // the chunk shape for the C call
	rowbuf    []uint64    // the chunks of one unit as stored (chunkRowBytes)

	shape  []int
	m      int
	size   int // elements per sample
	kind   kind
	elem   solver.Elem
	block  int   // samples per HDF5 read
	cached int64 // bytes of the chunk cache of rd

	mem *solver.SliceSource // the data, when loaded whole

	bufs  [2]solver.Block // the blocks Reads return, in turn
	next  int             // index of the buffer the next read fills
	raw   []uint64        // raw buffer in the file's element type, used by one read at a time
	ahead *fetch          // the read under way on the I/O goroutine, or nil

	bytesRead atomic.Int64 // bytes of samples read from the file, in its element type
	hook      func() bool  // SetReadHook's function, or nil
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
	s := &Source{path: path, dataset: dataset, opts: opts, rd: -1, layout: opts.layout()}
	if s.layout < SamplesFirst || s.layout > ColumnMajor {
		return nil, fmt.Errorf("unknown layout %d (want SamplesFirst, SamplesLast or ColumnMajor)", int(s.layout))
	}
	lock()
	defer unlock()
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.file, s.swmr, err = openReadSWMR(path); err != nil {
		return nil, err
	}
	s.size0 = int64(C.sompca_h5_file_size(hid(s.file)))
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
	if err = checkSampleStorage(path, hid(s.dset), s.dims, uint64(s.kind.bytes()), 0); err != nil {
		return nil, err
	}
	if s.layout == ColumnMajor {
		s.perm = reversedModes(s.shape)
	} else {
		s.warnColumnMajor()
	}
	bound := opts.ChunkBytes
	if bound == 0 {
		bound = DefaultChunkBytes
	}
	if err = s.setStorage(bound); err != nil {
		return nil, err
	}
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
	switch s.layout {
	case SamplesLast:
		mAxis, shapeDims = len(s.dims)-1, s.dims[:len(s.dims)-1]
	case ColumnMajor: // HDF5 shows the author's modes reversed
		shapeDims = make([]uint, len(s.dims)-1)
		for i, d := range s.dims[1:] {
			shapeDims[len(shapeDims)-1-i] = d
		}
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

// load reads the whole dataset into memory and closes the file. Between
// its HDF5 reads it polls Options.Cancel and calls the read hook, with
// h5mu released. Callers hold h5mu.
func (s *Source) load() error {
	if s.size > math.MaxInt/s.m {
		return fmt.Errorf("%w: %d samples of shape %v do not fit in memory", ErrShape, s.m, s.shape)
	}
	block, err := s.read(&s.bufs[0], 0, s.m, true)
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
	s.bufs, s.raw = [2]solver.Block{}, nil
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
// that a Read can return without exceeding Options.ChunkBytes (M when the
// dataset is in memory). The solver reads in runs of at most MaxRead
// samples, rounded up to its grain of 256, so memory stays bounded.
func (s *Source) MaxRead() int {
	if s.mem != nil {
		return s.m
	}
	return s.block
}

// String describes the source: file, dataset, type, shape and layout.
func (s *Source) String() string {
	return fmt.Sprintf("hdf5io.Source(%q, %q: %d samples of shape %v, %s (as %s), %s)", s.path, s.dataset, s.m, s.shape, s.kind, s.elem, s.layout)
}

// Resident returns the samples once the dataset is loaded in memory
// (Options.InMemory, or a fit whose memory limit held it whole), and
// ok = false while it is streamed: see solver.Resident. A fit then reads
// float samples that are all exactly uint8 (or float32) values through a
// narrower copy (solver.Options.NoNarrowing).
func (s *Source) Resident() (b solver.Block, ok bool) {
	if s.mem == nil {
		return solver.Block{}, false
	}
	return s.mem.Resident()
}

// Layout returns the layout the source reads the dataset with.
func (s *Source) Layout() Layout { return s.layout }

// Close releases the file. It is safe to call more than once.
func (s *Source) Close() error {
	if f := s.ahead; f != nil && s.opts.Cancel != nil && s.opts.Cancel() {
		select {
		case <-f.done:
		default:
			// A canceled fit's read is still under way (a slow file):
			// it closes the source when it ends; the caller goes on.
			s.ahead = nil
			go func() {
				<-f.done
				lock()
				defer unlock()
				s.mem = nil
				s.close()
			}()
			return nil
		}
	}
	s.wait()
	lock()
	defer unlock()
	s.mem = nil
	return s.close()
}

// close closes whatever is open. Callers hold h5mu.
func (s *Source) close() error {
	var err error
	if s.rd >= 0 {
		if C.sompca_h5_close_dataset(s.rd) < 0 {
			err = h5err(ErrIO, "cannot close the dataset")
		}
		s.rd = -1
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
