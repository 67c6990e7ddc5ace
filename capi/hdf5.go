package main

// #include "capi.h"
import "C"

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/sompca/sompca/hdf5io"
	"github.com/sompca/sompca/solver"
)

// goString converts a caller's NUL-terminated string, named what in the
// error message when it is NULL or empty.
func goString(s *C.sompca_cchar, what string) (string, error) {
	if s == nil {
		return "", errorf(C.SOMPCA_EINVAL, "%s is NULL", what)
	}
	g := C.GoString((*C.char)(s))
	if g == "" {
		return "", errorf(C.SOMPCA_EINVAL, "%s is empty", what)
	}
	return g, nil
}

// fileCode returns the status of an error of package hdf5io by its kind,
// or 0 if it has none: a dataset whose shape cannot hold samples or does
// not match the model is SOMPCA_ESHAPE; a file whose content is not what
// it should be (not HDF5, corrupt or failing a checksum, not a readable
// model) SOMPCA_EFILE; a missing file or object SOMPCA_ENOTFOUND, a link
// to nothing SOMPCA_ELINK, a missing filter SOMPCA_EFILTER, a file locked
// by a writer SOMPCA_ELOCKED, refused permission SOMPCA_EPERM, an
// unsupported object or type SOMPCA_ETYPE, a format too new
// SOMPCA_EVERSION; a failing read or write and an existing output
// SOMPCA_EIO.
func fileCode(err error) C.int {
	for _, c := range []struct {
		kind error
		code C.int
	}{
		{hdf5io.ErrShape, C.SOMPCA_ESHAPE},
		{hdf5io.ErrLink, C.SOMPCA_ELINK},
		{hdf5io.ErrFilter, C.SOMPCA_EFILTER},
		{hdf5io.ErrLocked, C.SOMPCA_ELOCKED},
		{hdf5io.ErrPermission, C.SOMPCA_EPERM},
		{hdf5io.ErrVersion, C.SOMPCA_EVERSION},
		{hdf5io.ErrType, C.SOMPCA_ETYPE},
		{hdf5io.ErrNotExist, C.SOMPCA_ENOTFOUND},
		{hdf5io.ErrNotHDF5, C.SOMPCA_EFILE},
		{hdf5io.ErrCorrupt, C.SOMPCA_EFILE},
		{hdf5io.ErrFormat, C.SOMPCA_EFILE},
		{hdf5io.ErrIO, C.SOMPCA_EIO},
		{hdf5io.ErrExists, C.SOMPCA_EIO},
	} {
		if errors.Is(err, c.kind) {
			return c.code
		}
	}
	return 0
}

// hdf5Error classifies an error of package hdf5io (fileCode), or of the
// solver that it passed on (solverError: the data or options were at
// fault, not the file); anything else is SOMPCA_EIO.
func hdf5Error(err error) error {
	if err == nil {
		return nil
	}
	if code := fileCode(err); code != 0 {
		return withCode(code, err)
	}
	if errors.Is(err, solver.ErrCanceled) || errors.Is(err, solver.ErrData) || errors.Is(err, solver.ErrInvalid) ||
		errors.Is(err, solver.ErrShape) || errors.Is(err, solver.ErrNumerical) || errors.Is(err, solver.ErrSource) ||
		errors.Is(err, solver.ErrMemory) {
		return solverError(err)
	}
	return withCode(C.SOMPCA_EIO, err)
}

// readOptions checks a caller's layout and returns the hdf5io options that
// read with it, collecting warnings into *warnings.
func readOptions(layout C.int, warnings *[]string) (hdf5io.Options, error) {
	if layout < C.SOMPCA_LAYOUT_SAMPLES_FIRST || layout > C.SOMPCA_LAYOUT_COLUMN_MAJOR {
		return hdf5io.Options{}, errorf(C.SOMPCA_EINVAL, "layout is %d: want SOMPCA_LAYOUT_SAMPLES_FIRST (%d), SOMPCA_LAYOUT_SAMPLES_LAST (%d) or SOMPCA_LAYOUT_COLUMN_MAJOR (%d)",
			int(layout), C.SOMPCA_LAYOUT_SAMPLES_FIRST, C.SOMPCA_LAYOUT_SAMPLES_LAST, C.SOMPCA_LAYOUT_COLUMN_MAJOR)
	}
	// The C numbers are hdf5io.Layout's values.
	return hdf5io.Options{Layout: hdf5io.Layout(layout), Warn: func(m string) { *warnings = append(*warnings, m) }}, nil
}

// setWarnings makes warnings the calling thread's sompca_last_warning.
func setWarnings(warnings []string) {
	msg := strings.Join(warnings, "; ")
	C.sompca_capi_set_warning((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

//export sompca_go_fit_hdf5
func sompca_go_fit_hdf5(out **C.sompca_model, path, dataset *C.sompca_cchar, layout C.int,
	opts *C.sompca_coptions) C.int {
	var warnings []string
	defer func() { setWarnings(warnings) }()
	return run("sompca_fit_hdf5", func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		file, err := goString(path, "path")
		if err != nil {
			return err
		}
		name, err := goString(dataset, "dataset")
		if err != nil {
			return err
		}
		ro, err := readOptions(layout, &warnings)
		if err != nil {
			return err
		}
		src, err := hdf5io.Open(file, name, ro)
		if err != nil {
			return hdf5Error(err)
		}
		defer src.Close()
		o, err := goOptions(opts, len(src.Shape()))
		if err != nil {
			return err
		}
		o.Cancel = withCancel(o.Cancel)
		var m solver.Model
		err = offThread(func(onCaller func(func())) error {
			return m.Fit(src, progressOnCaller(o, onCaller))
		})
		if err != nil {
			return solverError(err) // a failed read is solver.ErrSource wrapping hdf5io's error
		}
		return boxInto(out, &m)
	})
}

//export sompca_go_transform_hdf5
func sompca_go_transform_hdf5(model *C.sompca_cmodel, inPath, inDataset *C.sompca_cchar, layout C.int,
	outPath, outDataset *C.sompca_cchar, overwrite C.int) C.int {
	var warnings []string
	defer func() { setWarnings(warnings) }()
	return run("sompca_transform_hdf5", func() error {
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		var names [4]string
		for i, s := range []struct {
			p    *C.sompca_cchar
			what string
		}{{inPath, "in_path"}, {inDataset, "in_dataset"}, {outPath, "out_path"}, {outDataset, "out_dataset"}} {
			if names[i], err = goString(s.p, s.what); err != nil {
				return err
			}
		}
		ro, err := readOptions(layout, &warnings)
		if err != nil {
			return err
		}
		ro.ModelFile = modelFile(m)
		ro.Cancel = callerCancel()
		err = offThread(func(func(func())) error {
			return hdf5io.TransformFile(m, names[0], names[1], ro, names[2], names[3], overwrite != 0)
		})
		return hdf5Error(err)
	})
}

//export sompca_go_model_save
func sompca_go_model_save(model *C.sompca_cmodel, path *C.sompca_cchar) C.int {
	return run("sompca_model_save", func() error {
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		file, err := goString(path, "path")
		if err != nil {
			return err
		}
		if err := hdf5io.SaveModel(file, m); err != nil {
			return hdf5Error(err)
		}
		rememberFile(m, file)
		return nil
	})
}

// modelFiles maps each live model to the file it was last loaded from or
// saved to (absolute), recorded in the provenance of the features that
// sompca_transform_hdf5 writes.
var modelFiles sync.Map // *solver.Model -> string

func rememberFile(m *solver.Model, file string) {
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	modelFiles.Store(m, file)
}

// modelFile returns the file a model was loaded from or saved to, or "".
func modelFile(m *solver.Model) string {
	if f, ok := modelFiles.Load(m); ok {
		return f.(string)
	}
	return ""
}

//export sompca_go_model_load
func sompca_go_model_load(out **C.sompca_model, path *C.sompca_cchar) C.int {
	return run("sompca_model_load", func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		file, err := goString(path, "path")
		if err != nil {
			return err
		}
		m, err := hdf5io.LoadModel(file)
		if err != nil {
			return modelFileError(err)
		}
		if err := m.Validate(); err != nil {
			return errorf(C.SOMPCA_EFILE, "%s: not a valid sompca model: %w", file, err)
		}
		if err := boxInto(out, m); err != nil {
			return err
		}
		rememberFile(m, file)
		return nil
	})
}

//export sompca_go_model_serialize
func sompca_go_model_serialize(model *C.sompca_cmodel, buf unsafe.Pointer, capacity C.size_t, outLen *C.size_t) C.int {
	return accessor("sompca_model_serialize", model, unsafe.Pointer(outLen), func(m *solver.Model) error {
		b, err := hdf5io.MarshalModel(m)
		if err != nil {
			return hdf5Error(err)
		}
		*outLen = C.size_t(len(b))
		switch {
		case buf == nil && capacity == 0:
			return nil // a query of the length
		case buf == nil:
			return errorf(C.SOMPCA_EINVAL, "buf is NULL and cap is %d", uint64(capacity))
		}
		if err := checkDst(buf, capacity, len(b), "bytes", "the model"); err != nil {
			return err
		}
		copy(unsafe.Slice((*byte)(buf), len(b)), b)
		return nil
	})
}

//export sompca_go_model_deserialize
func sompca_go_model_deserialize(out **C.sompca_model, buf *C.sompca_cvoid, n C.size_t) C.int {
	return run("sompca_model_deserialize", func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		if buf == nil {
			return errorf(C.SOMPCA_EINVAL, "buf is NULL")
		}
		if uint64(n) > maxBytes {
			return errorf(C.SOMPCA_EINVAL, "len %d is absurd", uint64(n))
		}
		m, err := hdf5io.UnmarshalModel(unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)))
		if err != nil {
			return modelFileError(err)
		}
		return boxInto(out, m)
	})
}

// modelFileError classifies a failure to read a model file or its bytes:
// the content is bad (SOMPCA_EFILE), not the caller's sizes, unless the
// file could not be read at all (SOMPCA_EIO).
func modelFileError(err error) error {
	code := fileCode(err)
	if code == 0 || code == C.SOMPCA_ESHAPE {
		code = C.SOMPCA_EFILE
	}
	return withCode(code, err)
}
