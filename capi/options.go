package main

// #include "capi.h"
import "C"

import (
	"math"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// maxOptionsSize bounds opts->size: a later header may append fields, but
// a size beyond this is garbage, not a newer struct.
const maxOptionsSize = 1 << 16

// minOptionsSize is the size of the earliest struct sompca_options still
// accepted: the one that ended at memory_limit, before read_progress was
// appended. The fields a smaller struct lacks keep their defaults.
var minOptionsSize = uint32(unsafe.Offsetof(C.sompca_options{}.read_progress))

//export sompca_go_options_init
func sompca_go_options_init(opts *C.sompca_options) {
	if opts == nil {
		return
	}
	defer recoverVoid("sompca_options_init")
	*opts = C.sompca_options{}
	opts.size = C.uint32_t(C.sizeof_sompca_options)
	opts.method = C.SOMPCA_METHOD_SOMPCA
	opts.relaxed_start = -1 // the method's default, from solver's table
	opts.mode = -1
	opts.feature_order = C.SOMPCA_ORDER_VARIANCE
	opts.narrowing = 1
}

//export sompca_go_options_defaults
func sompca_go_options_defaults(method C.int, out *C.sompca_options) C.int {
	return run("sompca_options_defaults", func() error {
		if out == nil {
			return errorf(C.SOMPCA_EINVAL, "out is NULL")
		}
		if method < 0 || method > C.SOMPCA_METHOD_CSA {
			return errorf(C.SOMPCA_EINVAL, "method is %d: want one of SOMPCA_METHOD_SOMPCA (%d) .. SOMPCA_METHOD_CSA (%d)", int(method), C.SOMPCA_METHOD_SOMPCA, C.SOMPCA_METHOD_CSA)
		}
		*out = cOptions(solver.DefaultOptions(solver.Method(method)), -1)
		return nil
	})
}

// cOptions converts solver options to C options with the given 0-based
// mode (-1: automatic or not applicable); n_components is
// o.Components, n_threads 0 and progress NULL.
// SOMPCA_MODE_ALL is solver.AllModes and SOMPCA_MODE_UPDATES_* are
// solver's ModeUpdates, SOMPCA_MODE_UPDATES_ROWS_LIMIT solver.RowsLimit
// (either differing fails to compile).
const (
	_ = uint(solver.AllModes - C.SOMPCA_MODE_ALL)
	_ = uint(C.SOMPCA_MODE_ALL - solver.AllModes)
	_ = uint(solver.ModeUpdatesScatter - C.SOMPCA_MODE_UPDATES_SCATTER)
	_ = uint(C.SOMPCA_MODE_UPDATES_SCATTER - solver.ModeUpdatesScatter)
	_ = uint(solver.ModeUpdatesRows - C.SOMPCA_MODE_UPDATES_ROWS)
	_ = uint(C.SOMPCA_MODE_UPDATES_ROWS - solver.ModeUpdatesRows)
	_ = uint(solver.RowsLimit - C.SOMPCA_MODE_UPDATES_ROWS_LIMIT)
	_ = uint(C.SOMPCA_MODE_UPDATES_ROWS_LIMIT - solver.RowsLimit)
)

func cOptions(s solver.Options, mode int) C.sompca_options {
	o := defaultOptions()
	o.method = C.int(s.Method)
	o.relaxed_start = 0
	if s.RelaxedStart {
		o.relaxed_start = 1
	}
	o.n_components = C.int(s.Components)
	o.mode = C.int(mode)
	o.max_iter = C.int(s.MaxIter)
	o.tol = C.double(s.Tol)
	o.q = C.double(s.Q)
	o.feature_order = C.SOMPCA_ORDER_VARIANCE
	if s.Order == solver.ByExtraction {
		o.feature_order = C.SOMPCA_ORDER_EXTRACTION
	}
	return o
}

// defaultOptions is what a NULL options pointer means: the same values as
// sompca_options_init.
func defaultOptions() C.sompca_options {
	var o C.sompca_options
	sompca_go_options_init(&o)
	return o
}

// goOptions checks the caller's options for a fit on samples of the given
// order and converts them. Only the fields of this version of the struct
// are read, so a larger struct from a later header is accepted.
func goOptions(p *C.sompca_coptions, order int) (solver.Options, error) {
	o := defaultOptions()
	if p != nil {
		size := uint32(p.size)
		switch {
		case size == 0:
			return solver.Options{}, errorf(C.SOMPCA_EINVAL, "opts->size is 0: initialize the options with sompca_options_init")
		case size < minOptionsSize || size > maxOptionsSize:
			return solver.Options{}, errorf(C.SOMPCA_EINVAL, "opts->size is %d: want sizeof(sompca_options) = %d as set by sompca_options_init", size, C.sizeof_sompca_options)
		}
		// Only the fields the caller's struct has; the rest keep their
		// defaults.
		n := min(uintptr(size), C.sizeof_sompca_options)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&o)), n), unsafe.Slice((*byte)(unsafe.Pointer(p)), n))
	}
	var s solver.Options
	if o.method < 0 || o.method > C.SOMPCA_METHOD_CSA {
		return s, errorf(C.SOMPCA_EINVAL, "opts->method is %d: want one of SOMPCA_METHOD_SOMPCA (%d) .. SOMPCA_METHOD_CSA (%d)", int(o.method), C.SOMPCA_METHOD_SOMPCA, C.SOMPCA_METHOD_CSA)
	}
	// The C method numbers are solver.Method's values.
	s.Method = solver.Method(o.method)
	switch {
	case o.relaxed_start < -1:
		return s, errorf(C.SOMPCA_EINVAL, "opts->relaxed_start is %d: want -1 (the method's default), 0 (off) or 1 (on)", int(o.relaxed_start))
	case o.relaxed_start == -1:
		s.RelaxedStart = solver.MethodDefaults(s.Method).RelaxedStart
	default:
		s.RelaxedStart = o.relaxed_start != 0
	}
	if s.RelaxedStart && !s.Method.IsTVP() {
		return s, errorf(C.SOMPCA_EINVAL, "opts->relaxed_start is set but method %s has no relaxed start (only so-mpca, fo-mpca, trod and umpca do)", s.Method)
	}
	if o.n_components < 0 {
		return s, errorf(C.SOMPCA_EINVAL, "opts->n_components is %d: want 0 (the method's maximum) or a positive count", int(o.n_components))
	}
	s.Components = int(o.n_components)
	// Modes are 0-based here as in solver; -1 = automatic is solver's nil;
	// SOMPCA_MODE_ALL is solver.AllModes.
	if (o.mode < -1 && o.mode != C.SOMPCA_MODE_ALL) || int(o.mode) >= order {
		return s, errorf(C.SOMPCA_EINVAL, "opts->mode is %d: want -1 (automatic), SOMPCA_MODE_ALL (%d, every mode) or a mode 0..%d of the order-%d samples", int(o.mode), int(C.SOMPCA_MODE_ALL), order-1, order)
	}
	if o.mode >= 0 || o.mode == C.SOMPCA_MODE_ALL {
		s.Mode = solver.OrthogonalMode(int(o.mode))
	}
	if o.max_iter < 0 {
		return s, errorf(C.SOMPCA_EINVAL, "opts->max_iter is %d: want 0 (20 sweeps) or a positive count", int(o.max_iter))
	}
	s.MaxIter = int(o.max_iter)
	if tol := float64(o.tol); !(tol >= 0) || math.IsInf(tol, 1) {
		return s, errorf(C.SOMPCA_EINVAL, "opts->tol is %g: want a finite value >= 0", tol)
	}
	s.Tol = float64(o.tol)
	if q := float64(o.q); !(q >= 0 && q <= 1) {
		return s, errorf(C.SOMPCA_EINVAL, "opts->q is %g: want 0 (0.97) or a fraction in (0, 1]", q)
	}
	s.Q = float64(o.q)
	if o.n_threads < 0 {
		return s, errorf(C.SOMPCA_EINVAL, "opts->n_threads is %d: want 0 (all cores) or a positive count", int(o.n_threads))
	}
	s.Threads = int(o.n_threads)
	switch o.feature_order {
	case C.SOMPCA_ORDER_VARIANCE:
		s.Order = solver.ByVariance
	case C.SOMPCA_ORDER_EXTRACTION:
		s.Order = solver.ByExtraction
	default:
		return s, errorf(C.SOMPCA_EINVAL, "opts->feature_order is %d: want SOMPCA_ORDER_VARIANCE (%d) or SOMPCA_ORDER_EXTRACTION (%d)", int(o.feature_order), C.SOMPCA_ORDER_VARIANCE, C.SOMPCA_ORDER_EXTRACTION)
	}
	if uint64(o.memory_limit) > math.MaxInt64 {
		return s, errorf(C.SOMPCA_EINVAL, "opts->memory_limit is %d: want 0 (the default, %s) or at most 2^63-1 bytes", uint64(o.memory_limit), solver.FormatBytes(solver.DefaultMemoryLimit()))
	}
	s.MemoryLimit = int64(o.memory_limit)
	// The C codes are solver.ModeUpdates' values.
	if o.mode_updates < C.SOMPCA_MODE_UPDATES_AUTO || o.mode_updates > C.SOMPCA_MODE_UPDATES_SCATTER {
		return s, errorf(C.SOMPCA_EINVAL, "opts->mode_updates is %d: want SOMPCA_MODE_UPDATES_AUTO (%d), SOMPCA_MODE_UPDATES_ROWS (%d) or SOMPCA_MODE_UPDATES_SCATTER (%d)", int(o.mode_updates), C.SOMPCA_MODE_UPDATES_AUTO, C.SOMPCA_MODE_UPDATES_ROWS, C.SOMPCA_MODE_UPDATES_SCATTER)
	}
	s.ModeUpdates = solver.ModeUpdates(o.mode_updates)
	if o.narrowing != 0 && o.narrowing != 1 {
		return s, errorf(C.SOMPCA_EINVAL, "opts->narrowing is %d: want 1 (the default: read float samples that are exactly uint8 or float32 values through a narrower copy) or 0 (as they are)", int(o.narrowing))
	}
	s.NoNarrowing = o.narrowing == 0
	if fn, user := o.progress, o.progress_user; fn != nil {
		// fn and user are C pointers, used only while this fit runs.
		s.Progress = func(done, total int, variance float64) bool {
			return C.sompca_capi_call_progress(fn, user, C.int(done), C.int(total), C.double(variance)) == 0
		}
	}
	if fn, user := o.read_progress, o.progress_user; fn != nil {
		s.ReadProgress = func(read, total int64) bool {
			return C.sompca_capi_call_read_progress(fn, user, C.uint64_t(read), C.uint64_t(total)) == 0
		}
	}
	return s, nil
}

// optionValues are the fields of struct sompca_options that goOptions
// validates, as Go values: the entry of the fuzz test (test files cannot
// use cgo).
type optionValues struct {
	method, relaxedStart, components, mode, maxIter, threads, order int32
	tol, q                                                          float64
}

// goOptionValues is goOptions on an initialized struct holding v.
func goOptionValues(v optionValues, order int) (solver.Options, error) {
	o := defaultOptions()
	o.method, o.relaxed_start, o.n_components, o.mode = C.int(v.method), C.int(v.relaxedStart), C.int(v.components), C.int(v.mode)
	o.max_iter, o.n_threads, o.feature_order = C.int(v.maxIter), C.int(v.threads), C.int(v.order)
	o.tol, o.q = C.double(v.tol), C.double(v.q)
	return goOptions((*C.sompca_coptions)(unsafe.Pointer(&o)), order)
}
