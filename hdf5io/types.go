package hdf5io

// #include "shim.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// kind is the element type of a dataset in the file, in the order of the
// SOMPCA_H5_* constants of shim.h.
type kind int

const (
	kInt8 kind = iota
	kUint8
	kInt16
	kUint16
	kInt32
	kUint32
	kInt64
	kUint64
	kFloat32
	kFloat64
)

var kindNames = [...]string{"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"}

func (k kind) String() string { return kindNames[k] }

// bytes returns the size of one element.
func (k kind) bytes() int { return [...]int{1, 1, 2, 2, 4, 4, 8, 8, 4, 8}[k] }

// elem returns the element type in which samples of kind k are handed to
// the solver: uint8, float32 and float64 as they are, the other small
// integers as float32 (exact: |x| < 2^24), the wide integers as float64
// (exact for |x| <= 2^53).
func (k kind) elem() solver.Elem {
	switch k {
	case kUint8:
		return solver.Uint8
	case kInt8, kInt16, kUint16, kFloat32:
		return solver.Float32
	}
	return solver.Float64
}

// HDF5 type classes (H5T_class_t), named for error messages.
var classNames = map[int]string{
	C.H5T_INTEGER: "integer", C.H5T_FLOAT: "float", C.H5T_TIME: "time", C.H5T_STRING: "string",
	C.H5T_BITFIELD: "bitfield", C.H5T_OPAQUE: "opaque", C.H5T_COMPOUND: "compound",
	C.H5T_REFERENCE: "reference", C.H5T_ENUM: "enum (h5py stores bool this way)",
	C.H5T_VLEN: "variable-length", C.H5T_ARRAY: "array",
}

// kindOf maps an HDF5 type (class, size in bytes, signedness) to a kind.
func kindOf(class int, size int, signed bool) (kind, error) {
	switch class {
	case C.H5T_INTEGER:
		ints := map[int][2]kind{1: {kUint8, kInt8}, 2: {kUint16, kInt16}, 4: {kUint32, kInt32}, 8: {kUint64, kInt64}}
		if k, ok := ints[size]; ok {
			if signed {
				return k[1], nil
			}
			return k[0], nil
		}
		return 0, fmt.Errorf("%w: %d-byte integers are not supported", ErrType, size)
	case C.H5T_FLOAT:
		switch size {
		case 4:
			return kFloat32, nil
		case 8:
			return kFloat64, nil
		}
		return 0, fmt.Errorf("%w: %d-byte floats are not supported (want float32 or float64)", ErrType, size)
	}
	name, ok := classNames[class]
	if !ok {
		name = fmt.Sprintf("class %d", class)
	}
	return 0, fmt.Errorf("%w: element type is %s, not numeric (want int8..uint64, float32 or float64)", ErrType, name)
}

// words returns a buffer of at least n elements of kind k, reusing buf
// when it is large enough. It is []uint64 so that every view is aligned.
func words(buf []uint64, n int, k kind) []uint64 {
	w := (n*k.bytes() + 7) / 8
	if cap(buf) >= w {
		return buf[:w]
	}
	return make([]uint64, w)
}

// view returns the first n elements of buf as a []T.
func view[T any](buf []uint64, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&buf[0])), n)
}

// Number is the set of element types hdf5io reads and writes.
type Number interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// convert writes src, k samples of size elements, into dst, converting
// each element. With samplesLast, src holds the samples along its last
// axis (element i of sample m at i*k+m) and is transposed into
// sample-major order.
func convert[D float64 | float32 | uint8, S Number](dst []D, src []S, size, k int, samplesLast bool) {
	if !samplesLast {
		for i, v := range src[:size*k] {
			dst[i] = D(v)
		}
		return
	}
	// A tile of tile x tile elements keeps the lines it reads (one per
	// element i) and the lines it writes (one per sample m) in cache; a
	// plain loop writes with a stride of a whole sample, which for
	// power-of-two sample sizes also maps every write to one cache set.
	const tile = 32
	for i0 := 0; i0 < size; i0 += tile {
		i1 := min(i0+tile, size)
		for m0 := 0; m0 < k; m0 += tile {
			m1 := min(m0+tile, k)
			for m := m0; m < m1; m++ {
				out := dst[m*size+i0 : m*size+i1]
				for i := range out {
					out[i] = D(src[(i0+i)*k+m])
				}
			}
		}
	}
}

// convertKind converts k samples read as kind kd in raw into dst starting
// at element off.
func convertKind(dst solver.Block, off int, raw []uint64, kd kind, size, k int, samplesLast bool) {
	n := size * k
	switch kd {
	case kInt8:
		convert(dst.F32[off:], view[int8](raw, n), size, k, samplesLast)
	case kUint8:
		convert(dst.U8[off:], view[uint8](raw, n), size, k, samplesLast)
	case kInt16:
		convert(dst.F32[off:], view[int16](raw, n), size, k, samplesLast)
	case kUint16:
		convert(dst.F32[off:], view[uint16](raw, n), size, k, samplesLast)
	case kInt32:
		convert(dst.F64[off:], view[int32](raw, n), size, k, samplesLast)
	case kUint32:
		convert(dst.F64[off:], view[uint32](raw, n), size, k, samplesLast)
	case kInt64:
		convert(dst.F64[off:], view[int64](raw, n), size, k, samplesLast)
	case kUint64:
		convert(dst.F64[off:], view[uint64](raw, n), size, k, samplesLast)
	case kFloat32:
		convert(dst.F32[off:], view[float32](raw, n), size, k, samplesLast)
	case kFloat64:
		convert(dst.F64[off:], view[float64](raw, n), size, k, samplesLast)
	}
}
