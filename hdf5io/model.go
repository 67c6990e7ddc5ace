package hdf5io

// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

// Version is the version of the sompca library, written into every model
// file as its library_version attribute.
const Version = "0.1.0"

// Model file format: the value of the format attribute, and the newest
// format_version this package reads and the one it writes. Version 2
// numbers modes from 0, as every surface of sompca does (attribute mode,
// /projections/U0 ..); version 1 numbered them from 1 (attribute nu,
// /projections/U1 ..) and is still read.
const (
	ModelFormat        = "sompca-model"
	ModelFormatVersion = 2
)

// Names of the feature orders in model files.
var orderNames = map[solver.FeatureOrder]string{solver.ByVariance: "variance", solver.ByExtraction: "extraction"}

// SaveModel writes the fitted model m to a new HDF5 file at path, in the
// layout documented in the package comment. An existing model file is
// replaced as a whole; any other existing file (a data file given by
// mistake) is refused with ErrExists. The file is written under a
// temporary name and renamed into place, so a failure leaves any previous
// file as it was. m is validated first and is not modified.
func SaveModel(path string, m *solver.Model) error {
	err := m.Validate()
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrFormat, err)
	} else if err = checkReplaceable(path); err == nil {
		err = update(path, false, func(f *hdf5.File) error {
			return withLock(func() error { return writeModel(f, m, ModelFormatVersion) })
		})
	}
	if err != nil {
		return &Error{Op: "save model", Path: path, Err: err}
	}
	return nil
}

// checkReplaceable returns nil if path does not exist or is a sompca model
// file, which SaveModel may replace.
func checkReplaceable(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return withLock(func() error {
		f, err := openRead(path)
		if err == nil {
			var format string
			format, err = readStringAttr(hid(f), "format")
			f.Close()
			if err == nil && format == ModelFormat {
				return nil
			}
		}
		return fmt.Errorf("%w: the file exists and is not a sompca model file; refusing to replace it", ErrExists)
	})
}

// writeModel writes m in the layout of format version (tests write other
// versions). Callers hold h5mu.
func writeModel(f *hdf5.File, m *solver.Model, version int64) error {
	root := hid(f)
	p := m.Components()
	order, ok := orderNames[m.Order]
	if !ok {
		return fmt.Errorf("%w: unknown feature order %d", ErrFormat, int(m.Order))
	}
	relaxed := int64(0)
	if m.RelaxedStart {
		relaxed = 1
	}
	err := errors.Join(
		writeStringAttr(root, "format", ModelFormat),
		writeIntAttr(root, "format_version", version),
		writeStringAttr(root, "library_version", Version),
		writeStringAttr(root, "method", m.Method.String()),
		writeIntAttr(root, "relaxed_start", relaxed),
		writeModeAttr(root, version, m.Mode),
		writeIntAttr(root, "max_iter", int64(m.MaxIter)),
		writeFloatAttr(root, "tol", m.Tol),
		writeFloatAttr(root, "q", m.Q),
		writeStringAttr(root, "feature_order", order),
		writeIntAttr(root, "n_samples", int64(m.Samples)),
		writeIntAttr(root, "n_features", int64(p)),
		writeFloatAttr(root, "total_variance", m.TotalVariance),
		writeIntsAttr(root, "shape", m.Shape),
	)
	if err != nil {
		return err
	}
	if err := writeArray(f, "/mean", m.Shape, m.Mean); err != nil {
		return err
	}
	g, err := f.CreateGroup("/projections")
	if err != nil {
		return h5err(ErrIO, `cannot create group "/projections"`)
	}
	g.Close()
	for n, u := range m.Projections {
		r, c := u.Dims()
		if err := writeArray(f, projectionName(m.Method, n, version), []int{r, c}, mat.DenseCopyOf(u).RawMatrix().Data); err != nil {
			return err
		}
	}
	if err := writeArray(f, "/variance", []int{p}, m.Variance); err != nil {
		return err
	}
	if err := writeArray(f, "/extraction", []int{p}, toInt64(m.Extraction)); err != nil {
		return err
	}
	if err := writeArray(f, "/iterations", []int{p}, toInt64(m.Iterations)); err != nil {
		return err
	}
	if m.History != nil {
		rows, width := len(m.History), 0
		lengths := make([]int, rows)
		for j, h := range m.History {
			lengths[j] = len(h)
			width = max(width, len(h))
		}
		padded := make([]float64, rows*width)
		for j, h := range m.History {
			row := padded[j*width : (j+1)*width]
			copy(row, h)
			for i := len(h); i < width; i++ {
				row[i] = math.NaN()
			}
		}
		if err := writeArray(f, "/history", []int{rows, width}, padded); err != nil {
			return err
		}
		if err := writeArray(f, "/history_lengths", []int{rows}, toInt64(lengths)); err != nil {
			return err
		}
	}
	if m.Ranks != nil {
		if err := writeArray(f, "/ranks", []int{len(m.Ranks)}, toInt64(m.Ranks)); err != nil {
			return err
		}
	}
	return nil
}

// projectionName returns the dataset of projection matrix n (0-based) in
// a file of format version: /projections/W for PCA, else /projections/Un
// (version 1: /projections/U(n+1)).
func projectionName(method solver.Method, n int, version int64) string {
	if method == solver.PCA {
		return "/projections/W"
	}
	if version == 1 {
		n++
	}
	return fmt.Sprintf("/projections/U%d", n)
}

// writeModeAttr writes the orthogonal mode (0-based, -1 for none) as
// format version says: attribute mode, or in version 1 nu = mode+1.
func writeModeAttr(root C.hid_t, version int64, mode int) error {
	if version == 1 {
		return writeIntAttr(root, "nu", int64(mode+1))
	}
	return writeIntAttr(root, "mode", int64(mode))
}

func toInt64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// LoadModel reads a model written by SaveModel (or by any writer of the
// documented layout) and validates it. A file of another format, or of a
// format version newer than ModelFormatVersion, is refused with ErrFormat.
func LoadModel(path string) (*solver.Model, error) {
	m, obj, err := loadModel(path)
	if err != nil {
		return nil, &Error{Op: "load model", Path: path, Object: obj, Err: err}
	}
	return m, nil
}

// loadModel returns the model, or an error and the object it concerns.
func loadModel(path string) (_ *solver.Model, obj string, err error) {
	lock()
	defer unlock()
	f, err := openRead(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	root := hid(f)
	format, err := readStringAttr(root, "format")
	switch {
	case errors.Is(err, ErrNotExist):
		return nil, "", fmt.Errorf("%w: the file has no %q attribute, so it is not a sompca model file", ErrFormat, "format")
	case err != nil:
		return nil, "", err
	case format != ModelFormat:
		return nil, "", fmt.Errorf("%w: format attribute is %q, want %q", ErrFormat, format, ModelFormat)
	}
	version, err := readIntAttr(root, "format_version")
	switch {
	case err != nil:
		return nil, "", err
	case version > ModelFormatVersion:
		return nil, "", fmt.Errorf("%w: model format version %d is newer than this library (sompca %s) reads (%d); upgrade sompca", ErrFormat, version, Version, ModelFormatVersion)
	case version < 1:
		return nil, "", fmt.Errorf("%w: invalid model format version %d", ErrFormat, version)
	}

	m := &solver.Model{}
	var methodName, orderName string
	var relaxed, mode, maxIter, samples, p int64
	modeAttr := "mode"
	if version == 1 {
		modeAttr = "nu" // 1-based, 0 for none: mode+1
	}
	err = errors.Join(
		readInto(&methodName, root, "method", readStringAttr),
		readInto(&relaxed, root, "relaxed_start", readIntAttr),
		readInto(&mode, root, modeAttr, readIntAttr),
		readInto(&maxIter, root, "max_iter", readIntAttr),
		readInto(&m.Tol, root, "tol", readFloatAttr),
		readInto(&m.Q, root, "q", readFloatAttr),
		readInto(&orderName, root, "feature_order", readStringAttr),
		readInto(&samples, root, "n_samples", readIntAttr),
		readInto(&p, root, "n_features", readIntAttr),
		readInto(&m.TotalVariance, root, "total_variance", readFloatAttr),
		readInto(&m.Shape, root, "shape", readIntsAttr),
	)
	if err != nil {
		return nil, "", err
	}
	method, rs, perr := solver.ParseMethod(methodName)
	if perr != nil || rs || method.String() != methodName {
		return nil, "", fmt.Errorf("%w: unknown method %q", ErrFormat, methodName)
	}
	m.Method, m.RelaxedStart = method, relaxed != 0
	if version == 1 {
		mode--
	}
	if mode < -1 || mode > math.MaxInt32 {
		return nil, "", fmt.Errorf("%w: attribute %q is %d, out of range", ErrFormat, modeAttr, mode)
	}
	m.Mode, m.MaxIter, m.Samples = int(mode), int(maxIter), int(samples)
	found := false
	for o, name := range orderNames {
		if name == orderName {
			m.Order, found = o, true
		}
	}
	if !found {
		return nil, "", fmt.Errorf("%w: unknown feature order %q", ErrFormat, orderName)
	}
	if p < 1 || len(m.Shape) < 1 {
		return nil, "", fmt.Errorf("%w: model has %d features and sample shape %v", ErrFormat, p, m.Shape)
	}

	var dims []int
	if m.Mean, dims, err = readArray[float64](f, "/mean"); err != nil {
		return nil, "/mean", err
	}
	if fmt.Sprint(dims) != fmt.Sprint(m.Shape) {
		return nil, "/mean", fmt.Errorf("%w: mean has shape %v, want the model's sample shape %v", ErrFormat, dims, m.Shape)
	}
	modes := len(m.Shape)
	if m.Method == solver.PCA {
		modes = 1
	}
	for n := range modes {
		name := projectionName(m.Method, n, version)
		data, dims, err := readArray[float64](f, name)
		if err != nil {
			return nil, name, err
		}
		if len(dims) != 2 || dims[0] < 1 || dims[1] != int(p) {
			return nil, name, fmt.Errorf("%w: projection has shape %v, want (I, %d)", ErrFormat, dims, p)
		}
		m.Projections = append(m.Projections, mat.NewDense(dims[0], dims[1], data))
	}
	vectors := []struct {
		name string
		read func() (int, error)
	}{
		{"/variance", func() (n int, err error) { m.Variance, n, err = readVector[float64](f, "/variance"); return }},
		{"/extraction", func() (n int, err error) { m.Extraction, n, err = readInts(f, "/extraction"); return }},
		{"/iterations", func() (n int, err error) { m.Iterations, n, err = readInts(f, "/iterations"); return }},
	}
	for _, v := range vectors {
		n, err := v.read()
		if err != nil {
			return nil, v.name, err
		}
		if n != int(p) {
			return nil, v.name, fmt.Errorf("%w: %d values for %d features", ErrFormat, n, p)
		}
	}
	if m.History, err = readHistory(f); err != nil {
		return nil, "/history", err
	}
	if exists(f, "/ranks") {
		if m.Ranks, _, err = readInts(f, "/ranks"); err != nil {
			return nil, "/ranks", err
		}
	}
	if err := m.Validate(); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return m, "", nil
}

// readHistory reads /history and /history_lengths; nil when absent.
func readHistory(f *hdf5.File) ([][]float64, error) {
	if !exists(f, "/history") {
		return nil, nil
	}
	padded, dims, err := readArray[float64](f, "/history")
	if err != nil {
		return nil, err
	}
	if len(dims) != 2 {
		return nil, fmt.Errorf("%w: history has rank %d, want 2", ErrFormat, len(dims))
	}
	lengths, n, err := readInts(f, "/history_lengths")
	if err != nil {
		return nil, fmt.Errorf("/history_lengths: %w", err)
	}
	if n != dims[0] {
		return nil, fmt.Errorf("%w: %d history lengths for %d history rows", ErrFormat, n, dims[0])
	}
	history := make([][]float64, dims[0])
	for j, l := range lengths {
		if l < 0 || l > dims[1] {
			return nil, fmt.Errorf("%w: history row %d has length %d outside 0..%d", ErrFormat, j, l, dims[1])
		}
		history[j] = append([]float64{}, padded[j*dims[1]:j*dims[1]+l]...)
	}
	return history, nil
}

// exists reports whether the file has an object at the absolute path name.
func exists(f *hdf5.File, name string) bool {
	_, err := objectType(f, name)
	return err == nil
}

// readArray reads the whole numeric dataset name as T (HDF5 converts
// between sizes and byte orders of the same class; floats and integers
// are not mixed) and returns it with its dimensions. Callers hold h5mu.
func readArray[T float64 | int64](f *hdf5.File, name string) ([]T, []int, error) {
	d, err := openDataset(f, name)
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	k, err := datasetKind(d)
	if err != nil {
		return nil, nil, err
	}
	want := kindFor[T]()
	if (k == kFloat32 || k == kFloat64) != (want == kFloat64) {
		return nil, nil, fmt.Errorf("%w: dataset %q holds %s, want %s", ErrFormat, name, k, want)
	}
	udims, err := datasetDims(d)
	if err != nil {
		return nil, nil, err
	}
	dims, n := make([]int, len(udims)), 1
	for i, u := range udims {
		if u > math.MaxInt32 || (u > 0 && n > math.MaxInt32*64/int(u)) {
			return nil, nil, fmt.Errorf("%w: dataset %q of shape %s is too large", ErrFormat, name, formatDims(udims))
		}
		dims[i] = int(u)
		n *= int(u)
	}
	data := make([]T, n)
	var ptr *T
	if n > 0 {
		ptr = &data[0]
	}
	if C.sompca_h5_read(hid(d), C.int(want), C.H5S_ALL, C.H5S_ALL, unsafePointer(ptr)) < 0 {
		return nil, nil, h5err(ErrCorrupt, fmt.Sprintf("cannot read dataset %q", name))
	}
	return data, dims, nil
}

// readVector reads a one-dimensional dataset.
func readVector[T float64 | int64](f *hdf5.File, name string) ([]T, int, error) {
	data, dims, err := readArray[T](f, name)
	if err != nil {
		return nil, 0, err
	}
	if len(dims) != 1 {
		return nil, 0, fmt.Errorf("%w: dataset %q has rank %d, want 1", ErrFormat, name, len(dims))
	}
	return data, dims[0], nil
}

func readInts(f *hdf5.File, name string) ([]int, int, error) {
	data, n, err := readVector[int64](f, name)
	if err != nil {
		return nil, 0, err
	}
	out := make([]int, n)
	for i, v := range data {
		if v < math.MinInt32*64 || v > math.MaxInt32*64 {
			return nil, 0, fmt.Errorf("%w: dataset %q holds %d, out of range", ErrFormat, name, v)
		}
		out[i] = int(v)
	}
	return out, n, nil
}

// readInto reads an attribute with read and stores it in dst.
func readInto[T any](dst *T, loc C.hid_t, name string, read func(C.hid_t, string) (T, error)) error {
	v, err := read(loc, name)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return fmt.Errorf("%w: the model has no %q attribute", ErrFormat, name)
		}
		return err
	}
	*dst = v
	return nil
}

// Attribute helpers. Callers hold h5mu.

func writeStringAttr(loc C.hid_t, name, value string) error {
	cn, cv := cstr(name), cstr(value)
	defer freeCString(cn)
	defer freeCString(cv)
	if C.sompca_h5_attr_write_string(loc, cn, cv) < 0 {
		return h5err(ErrIO, fmt.Sprintf("cannot write attribute %q", name))
	}
	return nil
}

func writeAttr[T int64 | float64](loc C.hid_t, name string, values []T, scalar bool) error {
	cn := cstr(name)
	defer freeCString(cn)
	length := C.hssize_t(len(values))
	if scalar {
		length = -1
	}
	var p *T
	if len(values) > 0 {
		p = &values[0]
	}
	if C.sompca_h5_attr_write(loc, cn, C.int(kindFor[T]()), length, unsafePointer(p)) < 0 {
		return h5err(ErrIO, fmt.Sprintf("cannot write attribute %q", name))
	}
	return nil
}

func writeIntAttr(loc C.hid_t, name string, v int64) error {
	return writeAttr(loc, name, []int64{v}, true)
}

func writeFloatAttr(loc C.hid_t, name string, v float64) error {
	return writeAttr(loc, name, []float64{v}, true)
}

func writeIntsAttr(loc C.hid_t, name string, v []int) error {
	return writeAttr(loc, name, toInt64(v), false)
}

// attrInfo returns the class and number of elements of an attribute, or
// ErrNotExist.
func attrInfo(loc C.hid_t, name string) (class C.int, n int, err error) {
	cn := cstr(name)
	defer freeCString(cn)
	var points C.hssize_t
	switch C.sompca_h5_attr_info(loc, cn, &class, &points) {
	case 0:
		return 0, 0, fmt.Errorf("%w: no attribute %q", ErrNotExist, name)
	case 1:
		return class, int(points), nil
	}
	return 0, 0, h5err(ErrCorrupt, fmt.Sprintf("cannot read attribute %q", name))
}

func readStringAttr(loc C.hid_t, name string) (string, error) {
	class, n, err := attrInfo(loc, name)
	if err != nil {
		return "", err
	}
	if class != C.H5T_STRING || n != 1 {
		return "", fmt.Errorf("%w: attribute %q is not a single string", ErrFormat, name)
	}
	cn := cstr(name)
	defer freeCString(cn)
	var buf [256]C.char
	l := C.sompca_h5_attr_read_string(loc, cn, &buf[0], C.size_t(len(buf)))
	if l < 0 {
		return "", h5err(ErrCorrupt, fmt.Sprintf("cannot read attribute %q", name))
	}
	if int(l) >= len(buf) {
		return "", fmt.Errorf("%w: attribute %q is %d bytes long", ErrFormat, name, int(l))
	}
	return C.GoString(&buf[0]), nil
}

// readAttr reads a numeric attribute of n elements as T; its class must be
// integer for int64 and float for float64.
func readAttr[T int64 | float64](loc C.hid_t, name string, scalar bool) ([]T, error) {
	class, n, err := attrInfo(loc, name)
	if err != nil {
		return nil, err
	}
	want := C.int(C.H5T_INTEGER)
	if kindFor[T]() == kFloat64 {
		want = C.H5T_FLOAT
	}
	if class != want || (scalar && n != 1) {
		return nil, fmt.Errorf("%w: attribute %q is not %s", ErrFormat, name, map[bool]string{true: "a single number of the right kind", false: "an array of the right kind"}[scalar])
	}
	out := make([]T, n)
	var p *T
	if n > 0 {
		p = &out[0]
	}
	cn := cstr(name)
	defer freeCString(cn)
	if C.sompca_h5_attr_read(loc, cn, C.int(kindFor[T]()), unsafePointer(p)) < 0 {
		return nil, h5err(ErrCorrupt, fmt.Sprintf("cannot read attribute %q", name))
	}
	return out, nil
}

func readIntAttr(loc C.hid_t, name string) (int64, error) {
	v, err := readAttr[int64](loc, name, true)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func readFloatAttr(loc C.hid_t, name string) (float64, error) {
	v, err := readAttr[float64](loc, name, true)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func readIntsAttr(loc C.hid_t, name string) ([]int, error) {
	v, err := readAttr[int64](loc, name, false)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		if x < 0 || x > math.MaxInt32 {
			return nil, fmt.Errorf("%w: attribute %q holds %d, out of range", ErrFormat, name, x)
		}
		out[i] = int(x)
	}
	return out, nil
}
