package hdf5io

// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// TransformFile projects the samples of the dataset inDataset of the HDF5
// file inPath (read as Open reads it with options in) to the model's P
// features and writes them, M x P float64, as the dataset outDataset of
// outPath, updating that file as WriteArray does (other objects kept, an
// existing dataset replaced only with overwrite, atomic). It streams: it
// reads a chunk of samples (at most in.ChunkBytes of them as float64),
// transforms it and writes its rows, so memory is independent of M. The
// output file must not be the input file, which is never written.
func TransformFile(model *solver.Model, inPath, inDataset string, in Options, outPath, outDataset string, overwrite bool) error {
	inDataset, outDataset = datasetName(inDataset), datasetName(outDataset)
	inErr := func(err error) error { return &Error{Op: "transform", Path: inPath, Object: inDataset, Err: err} }
	outErr := func(err error) error {
		return &Error{Op: "write features", Path: outPath, Object: outDataset, Err: err}
	}
	if model == nil || !model.Fitted() {
		return inErr(errors.New("the model is not fitted"))
	}
	if same, err := sameFile(inPath, outPath); err != nil {
		return outErr(err)
	} else if same {
		return outErr(fmt.Errorf("%w: the output file is the input file %q, which is never written; write the features to another file", ErrExists, inPath))
	}
	if isModelFile(outPath) {
		return outErr(fmt.Errorf("%w: the output file is a sompca model file, which holds a model only; write the features to another file", ErrExists))
	}
	src, err := Open(inPath, inDataset, in)
	if err != nil {
		return err
	}
	defer src.Close()
	if !slices.Equal(src.Shape(), model.Shape) {
		return inErr(fmt.Errorf("%w: samples of shape %v, but the model was fitted on samples of shape %v", ErrShape, src.Shape(), model.Shape))
	}
	m, p, size := src.Len(), model.Components(), len(model.Mean)
	bound := in.ChunkBytes
	if bound == 0 {
		bound = DefaultChunkBytes
	}
	rows := int(min(max(bound/int64(8*max(size, p)), 1), int64(m)))
	if in.InMemory {
		rows = m
	}
	features := make([]float64, rows*p)
	var transformErr error
	err = update(outPath, true, arrayBytes(8*m*p), func(f *hdf5.File) error {
		var d C.hid_t = -1
		err := withLock(func() (err error) {
			if err = prepareDataset(f, outDataset, overwrite); err == nil {
				d, err = createDataset(hid(f), outDataset, kFloat64, []int{m, p})
			}
			return err
		})
		if err != nil {
			return err
		}
		for start := 0; start < m && err == nil; start += rows {
			n := min(rows, m-start)
			if _, err = model.TransformToCancel(features[:n*p], &window{src, start, n}, in.Cancel); err != nil {
				transformErr = err
				if se := (*solver.SampleError)(nil); errors.As(err, &se) {
					// The solver counts samples from the window's start.
					transformErr = &solver.SampleError{Index: start + se.Index, Reason: se.Reason}
				}
				break
			}
			err = withLock(func() error {
				if writeRows(d, start, n, p, features) < 0 {
					return h5err(ErrIO, fmt.Sprintf("cannot write features [%d, %d)", start, start+n))
				}
				return nil
			})
		}
		if err == nil && transformErr == nil && in.Cancel != nil && in.Cancel() {
			// Canceled after the last chunk: the file is not published,
			// so a caller told "canceled" never finds the output.
			err = solver.ErrCanceled
			transformErr = err
		}
		if err == nil && transformErr == nil {
			err = withLock(func() error { return writeProvenance(d, provenance(model, src, in.ModelFile)) })
		}
		cerr := withLock(func() error { return closeDataset(d, outDataset) })
		return errors.Join(err, cerr)
	})
	switch {
	case transformErr != nil:
		return inErr(transformErr)
	case err != nil:
		return outErr(err)
	}
	return nil
}

// window is the Source of samples [start, start+n) of a Source.
type window struct {
	src      *Source
	start, n int
}

func (w *window) Shape() []int { return w.src.Shape() }
func (w *window) Len() int     { return w.n }
func (w *window) MaxRead() int { return w.src.MaxRead() }

func (w *window) Read(start, n int) (solver.Block, error) {
	if start < 0 || n < 0 || start > w.n-n {
		return solver.Block{}, fmt.Errorf("hdf5io: read of samples [%d, %d) outside [0, %d)", start, start+n, w.n)
	}
	return w.src.Read(w.start+start, n)
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) (bool, error) {
	fb, err := os.Stat(b)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("%w: %v", ErrIO, err)
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false, nil // Open reports it
	}
	return os.SameFile(fa, fb), nil
}

// isModelFile reports whether path is an HDF5 file that says it is a
// sompca model file.
func isModelFile(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	lock()
	defer unlock()
	format, err := fileFormat(path)
	return err == nil && format == ModelFormat
}

// writeRows writes the rows x cols float64s of buf into rows [row0,
// row0+rows) of the two-dimensional float64 dataset d. Callers hold h5mu.
func writeRows(d C.hid_t, row0, rows, cols int, buf []float64) C.herr_t {
	start := [2]C.hsize_t{C.hsize_t(row0), 0}
	count := [2]C.hsize_t{C.hsize_t(rows), C.hsize_t(cols)}
	return C.sompca_h5_hyperslab(d, C.int(kFloat64), 2, &start[0], &count[0], unsafePointer(&buf[0]), 1)
}
