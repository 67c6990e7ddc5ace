package main

// #include "capi.h"
import "C"

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// The C method and element-type numbers are the solver's values; these
// fail to compile if either side is renumbered.
var (
	_ [solver.CSA - C.SOMPCA_METHOD_CSA]struct{}
	_ [C.SOMPCA_METHOD_CSA - solver.CSA]struct{}
	_ [solver.Uint8 - C.SOMPCA_UINT8]struct{}
	_ [C.SOMPCA_UINT8 - solver.Uint8]struct{}
)

const (
	// maxOrder bounds the order N of a sample.
	maxOrder = 32
	// maxBytes bounds the size of a caller's array: more than a 48-bit
	// address space holds is an absurd size, not data.
	maxBytes = 1 << 48
)

// sampleShape checks and converts a caller's shape[order].
func sampleShape(order C.size_t, shape *C.sompca_csize) ([]int, error) {
	if order == 0 || order > maxOrder {
		return nil, errorf(C.SOMPCA_ESHAPE, "order is %d: want 1..%d modes", uint64(order), maxOrder)
	}
	if shape == nil {
		return nil, errorf(C.SOMPCA_EINVAL, "shape is NULL")
	}
	dims := unsafe.Slice((*C.size_t)(unsafe.Pointer(shape)), int(order))
	out := make([]int, order)
	for n, d := range dims {
		if d == 0 || uint64(d) > math.MaxInt32 {
			return nil, errorf(C.SOMPCA_ESHAPE, "shape[%d] is %d: want 1..%d", n, uint64(d), math.MaxInt32)
		}
		out[n] = int(d)
	}
	return out, nil
}

// elemSize returns the size in bytes of one element of a dtype.
func elemSize(dtype C.int) (uint64, error) {
	switch dtype {
	case C.SOMPCA_FLOAT64:
		return 8, nil
	case C.SOMPCA_FLOAT32:
		return 4, nil
	case C.SOMPCA_UINT8:
		return 1, nil
	case C.SOMPCA_UINT16, C.SOMPCA_INT16:
		return 2, nil
	}
	return 0, errorf(C.SOMPCA_EINVAL, "dtype is %d: want SOMPCA_FLOAT64 (%d), SOMPCA_FLOAT32 (%d), SOMPCA_UINT8 (%d), SOMPCA_UINT16 (%d) or SOMPCA_INT16 (%d)",
		int(dtype), C.SOMPCA_FLOAT64, C.SOMPCA_FLOAT32, C.SOMPCA_UINT8, C.SOMPCA_UINT16, C.SOMPCA_INT16)
}

// arrayElems returns n*prod(shape), checking that it and its size in
// bytes do not overflow and are not absurd.
func arrayElems(n uint64, shape []int, size uint64) (int, error) {
	total := n
	for _, d := range shape {
		hi, lo := bits.Mul64(total, uint64(d))
		if hi != 0 {
			total = math.MaxUint64
			break
		}
		total = lo
	}
	if hi, bytes := bits.Mul64(total, size); hi != 0 || bytes > maxBytes {
		return 0, errorf(C.SOMPCA_ESHAPE, "%d samples of shape %v are too large (more than 2^48 bytes): the sizes are wrong", n, shape)
	}
	return int(total), nil
}

// sliceSource wraps a caller's array of n samples of the given shape,
// stride elements apart (0: consecutive), as a solver.Source, without
// copying it. The source refers to C memory and must not outlive the call.
func sliceSource(data *C.sompca_cvoid, dtype C.int, n C.size_t, stride C.size_t, shape []int) (solver.Source, error) {
	size, err := elemSize(dtype)
	if err != nil {
		return nil, err
	}
	sample, err := arrayElems(1, shape, size)
	if err != nil {
		return nil, err
	}
	if stride == 0 {
		stride = C.size_t(sample)
	}
	if uint64(stride) < uint64(sample) {
		return nil, errorf(C.SOMPCA_ESHAPE, "sample_stride is %d elements: samples of shape %v have %d, so they would overlap", uint64(stride), shape, sample)
	}
	// The elements from the first sample to the end of the last.
	total := uint64(0)
	if n > 0 {
		hi, lo := bits.Mul64(uint64(n)-1, uint64(stride))
		total = lo + uint64(sample)
		if hi != 0 || lo > maxBytes || total*size > maxBytes {
			return nil, errorf(C.SOMPCA_ESHAPE, "%d samples of shape %v, %d elements apart, are too large (more than 2^48 bytes): the sizes are wrong", uint64(n), shape, uint64(stride))
		}
	}
	if data == nil && total > 0 {
		return nil, errorf(C.SOMPCA_EINVAL, "data is NULL")
	}
	p, m, st, elems := unsafe.Pointer(data), int(n), int(stride), int(total)
	var src solver.Source
	switch dtype {
	case C.SOMPCA_FLOAT64:
		src, err = solver.NewStridedSource(unsafe.Slice((*float64)(p), elems), m, st, shape)
	case C.SOMPCA_FLOAT32:
		src, err = solver.NewStridedSource(unsafe.Slice((*float32)(p), elems), m, st, shape)
	case C.SOMPCA_UINT16:
		src, err = solver.NewStridedSource(unsafe.Slice((*uint16)(p), elems), m, st, shape)
	case C.SOMPCA_INT16:
		src, err = solver.NewStridedSource(unsafe.Slice((*int16)(p), elems), m, st, shape)
	default:
		src, err = solver.NewStridedSource(unsafe.Slice((*uint8)(p), elems), m, st, shape)
	}
	return src, withCode(C.SOMPCA_ESHAPE, err)
}
