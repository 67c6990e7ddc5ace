package main

// #include "capi.h"
import "C"

import "github.com/sompca/sompca/solver"

//export sompca_go_fit
func sompca_go_fit(out **C.sompca_model, data *C.sompca_cvoid, dtype C.int, nSamples C.size_t,
	order C.size_t, shape *C.sompca_csize, opts *C.sompca_coptions) C.int {
	return fit("sompca_fit", out, data, dtype, nSamples, 0, order, shape, opts)
}

//export sompca_go_fit_strided
func sompca_go_fit_strided(out **C.sompca_model, data *C.sompca_cvoid, dtype C.int, nSamples, sampleStride C.size_t,
	order C.size_t, shape *C.sompca_csize, opts *C.sompca_coptions) C.int {
	return fit("sompca_fit_strided", out, data, dtype, nSamples, sampleStride, order, shape, opts)
}

func fit(name string, out **C.sompca_model, data *C.sompca_cvoid, dtype C.int, nSamples, sampleStride C.size_t,
	order C.size_t, shape *C.sompca_csize, opts *C.sompca_coptions) C.int {
	return run(name, func() error {
		if err := clearOut(out, "out"); err != nil {
			return err
		}
		dims, err := samplesShape(nSamples, order, shape)
		if err != nil {
			return err
		}
		src, err := sliceSource(data, dtype, nSamples, sampleStride, dims)
		if err != nil {
			return err
		}
		o, err := goOptions(opts, len(dims))
		if err != nil {
			return err
		}
		o.Cancel = withCancel(o.Cancel)
		var m solver.Model
		err = offThread(func(onCaller func(func())) error {
			return m.Fit(src, progressOnCaller(o, onCaller))
		})
		if err != nil {
			return solverError(err)
		}
		return boxInto(out, &m)
	})
}

// boxInto stores a new handle for m in *out.
func boxInto(out **C.sompca_model, m *solver.Model) error {
	h, err := newHandle(m)
	if err != nil {
		return err
	}
	*out = h
	return nil
}

// progressOnCaller returns o with its progress callbacks run through
// onCaller, on the thread that called the export (see offThread).
func progressOnCaller(o solver.Options, onCaller func(func())) solver.Options {
	if progress := o.Progress; progress != nil {
		o.Progress = func(done, total int, variance float64) bool {
			var goOn bool
			onCaller(func() { goOn = progress(done, total, variance) })
			return goOn
		}
	}
	if progress := o.ReadProgress; progress != nil {
		o.ReadProgress = func(read, total int64) bool {
			var goOn bool
			onCaller(func() { goOn = progress(read, total) })
			return goOn
		}
	}
	return o
}

// samplesShape checks a fit's n_samples (> 0) and sample shape.
func samplesShape(nSamples, order C.size_t, shape *C.sompca_csize) ([]int, error) {
	dims, err := sampleShape(order, shape)
	if err != nil {
		return nil, err
	}
	if nSamples == 0 {
		return nil, errorf(C.SOMPCA_ESHAPE, "n_samples is 0")
	}
	return dims, nil
}
