package main

// #include "capi.h"
import "C"

import (
	"math/bits"
	"unsafe"
)

// transformLen returns n*P, the number of doubles a transform writes.
func transformLen(n C.size_t, p int) (int, error) {
	hi, lo := bits.Mul64(uint64(n), uint64(p))
	if hi != 0 || lo > maxBytes/8 {
		return 0, errorf(C.SOMPCA_ESHAPE, "n_samples %d x %d features is too large", uint64(n), p)
	}
	return int(lo), nil
}

//export sompca_go_transform_size
func sompca_go_transform_size(model *C.sompca_cmodel, nSamples C.size_t, out *C.size_t) C.int {
	return run("sompca_transform_size", func() error {
		if out == nil {
			return errorf(C.SOMPCA_EINVAL, "out is NULL")
		}
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		need, err := transformLen(nSamples, m.Components())
		if err != nil {
			return err
		}
		*out = C.size_t(need)
		return nil
	})
}

//export sompca_go_transform
func sompca_go_transform(model *C.sompca_cmodel, dst *C.double, capacity C.size_t,
	data *C.sompca_cvoid, dtype C.int, nSamples C.size_t) C.int {
	return transform("sompca_transform", model, dst, capacity, data, dtype, nSamples, 0)
}

//export sompca_go_transform_strided
func sompca_go_transform_strided(model *C.sompca_cmodel, dst *C.double, capacity C.size_t,
	data *C.sompca_cvoid, dtype C.int, nSamples, sampleStride C.size_t) C.int {
	return transform("sompca_transform_strided", model, dst, capacity, data, dtype, nSamples, sampleStride)
}

func transform(name string, model *C.sompca_cmodel, dst *C.double, capacity C.size_t,
	data *C.sompca_cvoid, dtype C.int, nSamples, sampleStride C.size_t) C.int {
	return run(name, func() error {
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		need, err := transformLen(nSamples, m.Components())
		if err != nil {
			return err
		}
		src, err := sliceSource(data, dtype, nSamples, sampleStride, m.Shape)
		if err != nil {
			return err
		}
		if err := checkDst(unsafe.Pointer(dst), capacity, need, "doubles", "%d samples x %d features", uint64(nSamples), m.Components()); err != nil {
			return err
		}
		if need == 0 {
			return nil
		}
		cancel := callerCancel()
		err = offThread(func(func(func())) error {
			_, err := m.TransformToCancel(unsafe.Slice((*float64)(unsafe.Pointer(dst)), need), src, cancel)
			return err
		})
		return solverError(err)
	})
}

// checkDst checks a caller's output buffer dst[capacity] for need
// elements, described by what and the format for the error message.
func checkDst(dst unsafe.Pointer, capacity C.size_t, need int, unit, format string, args ...any) error {
	if uint64(capacity) < uint64(need) {
		return errorf(C.SOMPCA_ERANGE, "dst holds %d %s, need %d for "+format, append([]any{uint64(capacity), unit, need}, args...)...)
	}
	if dst == nil && need > 0 {
		return errorf(C.SOMPCA_EINVAL, "dst is NULL")
	}
	return nil
}

//export sompca_go_inverse_transform
func sompca_go_inverse_transform(model *C.sompca_cmodel, dst *C.double, capacity C.size_t,
	features *C.sompca_cdouble, nSamples C.size_t) C.int {
	return run("sompca_inverse_transform", func() error {
		m, err := modelOf(model)
		if err != nil {
			return err
		}
		nz, err := transformLen(nSamples, m.Components())
		if err != nil {
			return err
		}
		need, err := arrayElems(uint64(nSamples), m.Shape, 8)
		if err != nil {
			return err
		}
		if features == nil && nz > 0 {
			return errorf(C.SOMPCA_EINVAL, "features is NULL")
		}
		if err := checkDst(unsafe.Pointer(dst), capacity, need, "doubles", "%d samples of shape %v", uint64(nSamples), m.Shape); err != nil {
			return err
		}
		if need == 0 {
			return nil
		}
		_, err = m.InverseTransformTo(unsafe.Slice((*float64)(unsafe.Pointer(dst)), need),
			unsafe.Slice((*float64)(unsafe.Pointer(features)), nz))
		return solverError(err)
	})
}
