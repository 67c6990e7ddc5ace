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
	kFloat16    // read by HDF5 as float32 (exact)
	kLongDouble // x86 80-bit extended in 16 bytes (numpy's longdouble), read by HDF5 as float64 (rounded)
	kBool       // h5py's bool: an enum {FALSE = 0, TRUE = 1} of int8, read as its 0/1 bytes
)

var kindNames = [...]string{"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
	"float16", "longdouble", "bool"}

func (k kind) String() string { return kindNames[k] }

// bytes returns the size of one element in the file.
func (k kind) bytes() int { return [...]int{1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2, 16, 1}[k] }

// memBytes returns the size of one element as HDF5 reads it into memory
// (the memory type of shim.c's native()).
func (k kind) memBytes() int {
	switch k {
	case kFloat16:
		return 4
	case kLongDouble:
		return 8
	}
	return k.bytes()
}

// direct reports whether samples-first data of kind k are read by HDF5
// straight into the block handed to the solver (its memory type is the
// block's element type).
func (k kind) direct() bool {
	return k == kFloat64 || k == kFloat32 || k == kUint8 || k == kFloat16 || k == kLongDouble || k == kBool
}

// elem returns the element type in which samples of kind k are handed to
// the solver: uint8, float32 and float64 as they are, the other small
// integers as float32 (exact: |x| < 2^24), the wide integers as float64
// (exact for |x| <= 2^53).
func (k kind) elem() solver.Elem {
	switch k {
	case kUint8, kBool:
		return solver.Uint8
	case kInt8, kInt16, kUint16, kFloat32, kFloat16:
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

// Flavors of HDF5 types that h5py writes for numpy types without an HDF5
// class of their own (sompca_h5_dataset_flavor).
const (
	flavorOther   = 0
	flavorBool    = 1 // enum {FALSE = 0, TRUE = 1} over a 1-byte integer
	flavorComplex = 2 // compound {r, i} of two floats
)

// kindOf maps an HDF5 type (class, size in bytes, signedness, flavor) to a
// kind.
func kindOf(class int, size int, signed bool, flavor int) (kind, error) {
	switch {
	case class == C.H5T_ENUM && flavor == flavorBool:
		return kBool, nil
	case class == C.H5T_COMPOUND && flavor == flavorComplex:
		return 0, fmt.Errorf("%w: element type is complex (h5py's compound {r, i}); sompca needs real numbers: store the real part, the imaginary part or the magnitude", ErrType)
	}
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
		switch {
		case size == 2:
			return kFloat16, nil
		case size == 4:
			return kFloat32, nil
		case size == 8:
			return kFloat64, nil
		case size > 8:
			return kLongDouble, nil
		}
		return 0, fmt.Errorf("%w: %d-byte floats are not supported (want float16, float32, float64 or longdouble)", ErrType, size)
	}
	name, ok := classNames[class]
	if !ok {
		name = fmt.Sprintf("class %d", class)
	}
	return 0, fmt.Errorf("%w: element type is %s, not real numbers (want bool, int8..uint64, float16, float32, float64 or longdouble)", ErrType, name)
}

// words returns a buffer of at least n elements of kind k as read into
// memory, reusing buf when it is large enough. It is []uint64 so that
// every view is aligned.
func words(buf []uint64, n int, k kind) []uint64 {
	w := (n*k.memBytes() + 7) / 8
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
// sample-major order. With perm (column-major data), element i of each
// sample is taken from element perm[i] of the stored sample.
func convert[D float64 | float32 | uint8, S Number](dst []D, src []S, size, k int, samplesLast bool, perm []int) {
	if perm != nil {
		for m := range k {
			in, out := src[m*size:(m+1)*size], dst[m*size:(m+1)*size]
			for i, j := range perm {
				out[i] = D(in[j])
			}
		}
		return
	}
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
// at element off (see convert).
func convertKind(dst solver.Block, off int, raw []uint64, kd kind, size, k int, samplesLast bool, perm []int) {
	n := size * k
	switch kd {
	case kInt8:
		convert(dst.F32[off:], view[int8](raw, n), size, k, samplesLast, perm)
	case kUint8, kBool:
		if samplesLast && perm == nil && n > 0 { // the common image case: transposed in C, by SSE2
			C.sompca_transpose_u8((*C.uint8_t)(unsafePointer(&view[uint8](raw, n)[0])), C.size_t(size), C.size_t(k), (*C.uint8_t)(unsafePointer(&dst.U8[off])))
			return
		}
		convert(dst.U8[off:], view[uint8](raw, n), size, k, samplesLast, perm)
	case kInt16:
		convert(dst.F32[off:], view[int16](raw, n), size, k, samplesLast, perm)
	case kUint16:
		convert(dst.F32[off:], view[uint16](raw, n), size, k, samplesLast, perm)
	case kInt32:
		convert(dst.F64[off:], view[int32](raw, n), size, k, samplesLast, perm)
	case kUint32:
		convert(dst.F64[off:], view[uint32](raw, n), size, k, samplesLast, perm)
	case kInt64:
		convert(dst.F64[off:], view[int64](raw, n), size, k, samplesLast, perm)
	case kUint64:
		convert(dst.F64[off:], view[uint64](raw, n), size, k, samplesLast, perm)
	case kFloat32, kFloat16: // float16 is read as float32
		convert(dst.F32[off:], view[float32](raw, n), size, k, samplesLast, perm)
	case kFloat64, kLongDouble: // longdouble is read as float64
		convert(dst.F64[off:], view[float64](raw, n), size, k, samplesLast, perm)
	}
}
