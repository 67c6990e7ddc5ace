package hdf5io

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/hdf5"

	"github.com/sompca/sompca/solver"
)

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
		err = updateFile(path, false, true, modelBytes(m), func(f *hdf5.File) error {
			return withLock(func() error { return writeModel(f, m, ModelFormatVersion) })
		})
	}
	if err != nil {
		return &Error{Op: "save model", Path: path, Err: err}
	}
	return nil
}

// modelBytes bounds the size of m's model file (see arrayBytes).
func modelBytes(m *solver.Model) int64 {
	values, width := len(m.Mean)+4*len(m.Variance)+len(m.Ranks)+len(m.Shape), 0
	for _, u := range m.Projections {
		r, c := u.Dims()
		values += r * c
	}
	for _, h := range m.History {
		width = max(width, len(h))
	}
	values += width * len(m.History)
	return arrayBytes(8*values, 12+len(m.Projections))
}

// checkReplaceable returns nil if path does not exist or is a sompca model
// file, which SaveModel may replace. A file that cannot be told (locked
// by a writer, unreadable) or a directory is refused for what it is.
func checkReplaceable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%w: %v", ErrIO, err)
	case fi.IsDir():
		return fmt.Errorf("%w: is a directory; name a file for the model (e.g. %s)", ErrIO, filepath.Join(path, "model.h5"))
	}
	return withLock(func() error {
		format, err := fileFormat(path)
		switch {
		case err == nil && format == ModelFormat:
			return nil
		case errors.Is(err, ErrLocked), errors.Is(err, ErrPermission), errors.Is(err, ErrIO):
			return fmt.Errorf("cannot tell whether the existing file is a sompca model, so it is not replaced: %w", err)
		}
		return fmt.Errorf("%w: the file exists and is not a sompca model file; refusing to replace it", ErrExists)
	})
}

// fileFormat returns the "format" attribute of the HDF5 file at path
// ("sompca-model" for a model file). Callers hold h5mu.
func fileFormat(path string) (string, error) {
	f, err := openRead(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := checkGlobalHeaps(path); err != nil {
		return "", err
	}
	return readStringAttr(hid(f), "format")
}

// writeModel writes m in the layout of format version (tests write other
// versions). Callers hold h5mu.
func writeModel(f *hdf5.File, m *solver.Model, version int64) error {
	root := hid(f)
	if C.sompca_h5_checksummed_format(root) < 0 {
		return h5err(ErrIO, "cannot select the checksummed HDF5 1.10 file format")
	}
	p := m.Components()
	order, ok := orderNames[m.Order]
	if !ok {
		return fmt.Errorf("%w: unknown feature order %d", ErrFormat, int(m.Order))
	}
	if version == 1 && m.Mode == solver.AllModes {
		return fmt.Errorf("%w: model format version 1 cannot hold an all-modes so-mpca model", ErrFormat)
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
		writeStringAttr(root, "checksum", modelChecksum(m)),
	)
	if err != nil {
		return err
	}
	if err := writeArray(f, "/mean", m.Shape, m.Mean, true); err != nil {
		return err
	}
	group := cstr("/projections")
	defer freeCString(group)
	if C.sompca_h5_create_group(root, group) < 0 {
		return h5err(ErrIO, `cannot create group "/projections"`)
	}
	for n, u := range m.Projections {
		r, c := u.Dims()
		if err := writeArray(f, projectionName(m.Method, n, version), []int{r, c}, mat.DenseCopyOf(u).RawMatrix().Data, true); err != nil {
			return err
		}
	}
	if err := writeArray(f, "/variance", []int{p}, m.Variance, true); err != nil {
		return err
	}
	if err := writeArray(f, "/extraction", []int{p}, toInt64(m.Extraction), true); err != nil {
		return err
	}
	if err := writeArray(f, "/iterations", []int{p}, toInt64(m.Iterations), true); err != nil {
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
		if err := writeArray(f, "/history", []int{rows, width}, padded, true); err != nil {
			return err
		}
		if err := writeArray(f, "/history_lengths", []int{rows}, toInt64(lengths), true); err != nil {
			return err
		}
	}
	if m.FeatureModes != nil {
		if err := writeArray(f, "/feature_modes", []int{p}, toInt64(m.FeatureModes), true); err != nil {
			return err
		}
	}
	if m.Ranks != nil {
		if err := writeArray(f, "/ranks", []int{len(m.Ranks)}, toInt64(m.Ranks), true); err != nil {
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

// MarshalModel returns the bytes of the model file that SaveModel writes
// for m, made in memory: the same HDF5 calls on a file of HDF5's core
// driver (an HDF5 file image) make the same bytes, so the checksums hold,
// and UnmarshalModel or LoadModel of them gives m back. m is validated
// first and is not modified.
func MarshalModel(m *solver.Model) ([]byte, error) {
	b, err := marshalModel(m)
	if err != nil {
		return nil, &Error{Op: "marshal model", Path: memoryPath, Err: err}
	}
	return b, nil
}

// memoryPath names model bytes in memory in messages, where a path would be.
const memoryPath = "(model bytes in memory)"

func marshalModel(m *solver.Model) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	lock()
	defer unlock()
	img := newImage()
	defer freeImage(img)
	// Created, closed and opened again for writing, as SaveModel's
	// file is (sompca_h5_create, editHDF5).
	if C.sompca_h5_image_create(img) < 0 {
		return nil, h5err(ErrIO, "cannot create a file in memory")
	}
	f, err := openImage(img, img.buf, img.len, true)
	if err != nil {
		return nil, err
	}
	err = writeModel(f, m, ModelFormatVersion)
	if err == nil && C.sompca_h5_flush(hid(f)) < 0 {
		err = h5err(ErrIO, "cannot write the file in memory")
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = h5err(ErrIO, "cannot close the file in memory")
	}
	if err != nil {
		return nil, err
	}
	// The core driver keeps the bytes past the end that a file on disk
	// is truncated to when it closes: the superblock's end-of-file
	// address (superblock version 2 and 3, 8-byte addresses; what
	// sompca_h5_image_create makes). HDF5 reads only up to it.
	b := C.GoBytes(img.buf, C.int(img.len))
	const eofAddress = 28
	if len(b) < eofAddress+8 || b[8] < 2 || b[9] != 8 {
		return nil, fmt.Errorf("%w: the file made in memory has no superblock of version 2 or 3 with 8-byte addresses", ErrIO)
	}
	if eof := binary.LittleEndian.Uint64(b[eofAddress:]); eof <= uint64(len(b)) {
		b = b[:eof]
	}
	return b, nil
}

// UnmarshalModel reads a model from the bytes of a model file
// (MarshalModel's, or a file SaveModel wrote, read whole) with the checks
// of LoadModel: truncated or corrupt bytes give an error wrapping
// ErrCorrupt, ErrNotHDF5 or ErrFormat, never a different model. b is
// neither modified nor kept.
func UnmarshalModel(b []byte) (*solver.Model, error) {
	m, obj, err := unmarshalModel(b)
	if err != nil {
		return nil, &Error{Op: "unmarshal model", Path: memoryPath, Object: obj, Err: err}
	}
	return m, nil
}

func unmarshalModel(b []byte) (_ *solver.Model, obj string, err error) {
	if len(b) < len(hdf5Signature) || string(b[:len(hdf5Signature)]) != hdf5Signature {
		return nil, "", fmt.Errorf("%w (no HDF5 signature at the start of the %d bytes)", ErrNotHDF5, len(b))
	}
	// Variable-length strings are read from the global heap: check it first.
	if err := checkGlobalHeapsIn(bytes.NewReader(b), int64(len(b))); err != nil {
		return nil, "", err
	}
	lock()
	defer unlock()
	img := newImage()
	defer freeImage(img)
	// The bytes are copied to C memory: HDF5 keeps pointers into its copy.
	cb := C.CBytes(b)
	defer C.free(cb)
	f, err := openImage(img, cb, C.size_t(len(b)), false)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	return readModel(f)
}

// hdf5Signature begins every HDF5 file without a user block.
const hdf5Signature = "\x89HDF\r\n\x1a\n"

// newImage allocates the C record of a file in memory; freeImage frees it
// and the bytes it holds.
func newImage() *C.struct_sompca_h5_image {
	img := (*C.struct_sompca_h5_image)(C.calloc(1, C.sizeof_struct_sompca_h5_image))
	if img == nil {
		panic("hdf5io: out of C memory")
	}
	return img
}

func freeImage(img *C.struct_sompca_h5_image) {
	C.free(img.buf)
	C.free(unsafe.Pointer(img))
}

// openImage opens the file whose bytes are buf[n]; its bytes when closed
// go to img. Callers hold h5mu.
func openImage(img *C.struct_sompca_h5_image, buf unsafe.Pointer, n C.size_t, write bool) (*hdf5.File, error) {
	id := C.sompca_h5_image_open(img, buf, n, cbool(write))
	if id < 0 {
		return nil, h5err(ErrCorrupt, "cannot open")
	}
	f := fileOf(id)
	C.H5Fclose(id) // f holds its own reference
	return f, nil
}

// fileOf returns an *hdf5.File holding a reference of its own to the open
// file id. gonum.org/v1/hdf5 has no constructor from an identifier:
// NewDatatype is its one exported function that takes one, and
// Identifier.File gives the file of any identifier (H5Iget_file_id), a
// file's own included.
func fileOf(id C.hid_t) *hdf5.File {
	newDatatype := reflect.ValueOf(hdf5.NewDatatype)
	arg := reflect.ValueOf(int64(id)).Convert(newDatatype.Type().In(0))
	return newDatatype.Call([]reflect.Value{arg})[0].Interface().(*hdf5.Datatype).File()
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
	// Variable-length strings are read from the global heap: check it first.
	if err := checkGlobalHeaps(path); err != nil {
		return nil, "", err
	}
	return readModel(f)
}

// readModel reads and validates the model of an open file whose global
// heaps have been checked. Callers hold h5mu.
func readModel(f *hdf5.File) (_ *solver.Model, obj string, err error) {
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

	var checksum string
	if err := readOptionalString(root, "checksum", &checksum); err != nil {
		return nil, "", err
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
	if (mode < -1 && !(mode == solver.AllModes && version >= 2)) || mode > math.MaxInt32 {
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
	if p < 1 || p > math.MaxInt32 || len(m.Shape) < 1 {
		return nil, "", fmt.Errorf("%w: model has %d features and sample shape %v", ErrFormat, p, m.Shape)
	}

	if m.Mean, _, err = readArray[float64](f, "/mean", m.Shape); err != nil {
		return nil, "/mean", err
	}
	modes, rows := len(m.Shape), m.Shape
	if m.Method == solver.PCA {
		modes, rows = 1, []int{len(m.Mean)}
	}
	for n := range modes {
		name := projectionName(m.Method, n, version)
		data, _, err := readArray[float64](f, name, []int{rows[n], int(p)})
		if err != nil {
			return nil, name, err
		}
		m.Projections = append(m.Projections, mat.NewDense(rows[n], int(p), data))
	}
	if m.Variance, _, err = readArray[float64](f, "/variance", []int{int(p)}); err != nil {
		return nil, "/variance", err
	}
	if m.Extraction, err = readInts(f, "/extraction", int(p)); err != nil {
		return nil, "/extraction", err
	}
	if m.Iterations, err = readInts(f, "/iterations", int(p)); err != nil {
		return nil, "/iterations", err
	}
	if m.History, err = readHistory(f); err != nil {
		return nil, "/history", err
	}
	if exists(f, "/feature_modes") {
		if m.FeatureModes, err = readInts(f, "/feature_modes", int(p)); err != nil {
			return nil, "/feature_modes", err
		}
	}
	if exists(f, "/ranks") {
		if m.Ranks, err = readInts(f, "/ranks", len(m.Shape)); err != nil {
			return nil, "/ranks", err
		}
	}
	if err := m.Validate(); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if checksum != "" && checksum != modelChecksum(m) {
		return nil, "", fmt.Errorf("%w: checksum mismatch: the model read differs from the one written (attribute %q); the file is corrupted", ErrCorrupt, "checksum")
	}
	return m, "", nil
}

// readHistory reads /history and /history_lengths; nil when absent.
func readHistory(f *hdf5.File) ([][]float64, error) {
	if !exists(f, "/history") {
		return nil, nil
	}
	padded, dims, err := readArray[float64](f, "/history", []int{-1, -1})
	if err != nil {
		return nil, err
	}
	lengths, err := readInts(f, "/history_lengths", dims[0])
	if err != nil {
		return nil, fmt.Errorf("/history_lengths: %w", err)
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
// are not mixed) and returns it with its dimensions. Before anything is
// allocated or read, the element type is checked (class, size, bit
// layout), the dimensions against want (-1: any length), and the
// extent against the bytes the file stores for it. Callers hold h5mu.
func readArray[T float64 | int64](f *hdf5.File, name string, want []int) ([]T, []int, error) {
	d, err := openDataset(f, name)
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	k, err := datasetKind(d)
	if err != nil {
		return nil, nil, err
	}
	wantKind := kindFor[T]()
	if (k == kFloat32 || k == kFloat64) != (wantKind == kFloat64) {
		return nil, nil, fmt.Errorf("%w: dataset %q holds %s, want %s", ErrFormat, name, k, wantKind)
	}
	udims, err := datasetDims(d)
	if err != nil {
		return nil, nil, err
	}
	ok := len(udims) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = want[i] < 0 || udims[i] == uint(want[i])
	}
	if !ok {
		return nil, nil, fmt.Errorf("%w: dataset %q has shape %s, want %s", ErrFormat, name, formatDims(udims), formatWant(want))
	}
	dims, n := make([]int, len(udims)), uint64(1)
	for i, u := range udims {
		if u > math.MaxInt32 || (u > 0 && n > math.MaxInt32*64/uint64(u)) {
			return nil, nil, fmt.Errorf("%w: dataset %q of shape %s is too large", ErrFormat, name, formatDims(udims))
		}
		dims[i] = int(u)
		n *= uint64(u)
	}
	if err := checkStorage(hid(d), n, uint64(k.bytes())); err != nil {
		return nil, nil, err
	}
	data := make([]T, n)
	var ptr *T
	if n > 0 {
		ptr = &data[0]
	}
	if C.sompca_h5_read(hid(d), C.int(wantKind), C.H5S_ALL, C.H5S_ALL, unsafePointer(ptr)) < 0 {
		return nil, nil, h5err(ErrCorrupt, fmt.Sprintf("cannot read dataset %q", name))
	}
	return data, dims, nil
}

// formatWant formats expected dimensions, "*" for any length.
func formatWant(want []int) string {
	parts := make([]string, len(want))
	for i, w := range want {
		parts[i] = "*"
		if w >= 0 {
			parts[i] = fmt.Sprint(w)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// readInts reads a one-dimensional integer dataset of n values.
func readInts(f *hdf5.File, name string, n int) ([]int, error) {
	data, _, err := readArray[int64](f, name, []int{n})
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i, v := range data {
		if v < math.MinInt32*64 || v > math.MaxInt32*64 {
			return nil, fmt.Errorf("%w: dataset %q holds %d, out of range", ErrFormat, name, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// readOptionalString reads the string attribute name into dst if it
// exists and leaves dst alone if it does not.
func readOptionalString(loc C.hid_t, name string, dst *string) error {
	v, err := readStringAttr(loc, name)
	switch {
	case errors.Is(err, ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	*dst = v
	return nil
}

// modelChecksum returns "sha256:" and the hex SHA-256 of every field of m
// in a fixed binary encoding: the checksum attribute of a model file. It
// covers what HDF5's own checksums do not (variable-length strings live in
// the global heap, which no HDF5 format checksums), so that a model read
// back is the model written or an error. A new Model field must be added
// here, and a new format version written.
func modelChecksum(m *solver.Model) string {
	h := sha256.New()
	var buf [8]byte
	num := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	ints := func(v []int) {
		num(uint64(len(v)))
		for _, x := range v {
			num(uint64(x))
		}
	}
	floats := func(v []float64) {
		num(uint64(len(v)))
		for _, x := range v {
			num(math.Float64bits(x))
		}
	}
	str := func(s string) {
		num(uint64(len(s)))
		h.Write([]byte(s))
	}
	str(m.Method.String())
	num(map[bool]uint64{false: 0, true: 1}[m.RelaxedStart])
	num(uint64(m.Mode))
	ints(m.Shape)
	num(uint64(m.Samples))
	num(uint64(m.MaxIter))
	floats([]float64{m.Tol, m.Q, m.TotalVariance})
	str(orderNames[m.Order])
	floats(m.Mean)
	num(uint64(len(m.Projections)))
	for _, u := range m.Projections {
		r, c := u.Dims()
		ints([]int{r, c})
		floats(mat.DenseCopyOf(u).RawMatrix().Data)
	}
	floats(m.Variance)
	ints(m.Extraction)
	ints(m.Iterations)
	num(uint64(len(m.History)))
	for _, row := range m.History {
		floats(row)
	}
	num(map[bool]uint64{false: 0, true: 1}[m.Ranks != nil])
	ints(m.Ranks)
	// Added with all-modes so-mpca (same format version, which older
	// readers refuse by its mode -2): only present then, so every
	// other model's checksum is unchanged.
	if m.FeatureModes != nil {
		str("feature_modes")
		ints(m.FeatureModes)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
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

// maxStringAttr bounds a model file's string attributes (method names,
// versions), and maxOrder the length of the shape attribute.
const (
	maxStringAttr = 255
	maxOrder      = 64
)

// readStringAttr reads a string attribute after checking its datatype and
// dataspace. The file's global heaps must have been checked
// (checkGlobalHeaps) before a variable-length string is read.
func readStringAttr(loc C.hid_t, name string) (string, error) {
	d, err := attrInfo(loc, name)
	if err != nil {
		return "", err
	}
	if err := checkStringAttr(name, d, maxStringAttr); err != nil {
		return "", err
	}
	cn := cstr(name)
	defer freeCString(cn)
	var buf [maxStringAttr + 1]C.char
	l := C.sompca_h5_attr_read_string(loc, cn, &buf[0], C.size_t(len(buf)))
	if l < 0 {
		return "", h5err(ErrCorrupt, fmt.Sprintf("cannot read attribute %q", name))
	}
	if int(l) >= len(buf) {
		return "", fmt.Errorf("%w: attribute %q is %d bytes long, longer than %d", ErrFormat, name, int(l), maxStringAttr)
	}
	return C.GoString(&buf[0]), nil
}

// readAttr reads a numeric attribute as T after checking its datatype and
// dataspace: integer class for int64, float for float64, one value when
// scalar, else a one-dimensional array of at most maxOrder values.
func readAttr[T int64 | float64](loc C.hid_t, name string, scalar bool) ([]T, error) {
	d, err := attrInfo(loc, name)
	if err != nil {
		return nil, err
	}
	want := C.int(C.H5T_INTEGER)
	if kindFor[T]() == kFloat64 {
		want = C.H5T_FLOAT
	}
	if err := checkNumericAttr(loc, name, d, want, scalar, maxOrder); err != nil {
		return nil, err
	}
	out := make([]T, int(d.npoints))
	var p *T
	if len(out) > 0 {
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
