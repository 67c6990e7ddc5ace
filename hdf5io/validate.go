package hdf5io

// #include "shim.h"
import "C"

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Validation of what a file says before it is read. libhdf5 trusts the
// sizes, extents and layouts that a file's bytes describe: a corrupted
// datatype, dataspace or heap makes it read outside its buffers (a crash)
// or loop for ever. hdf5io therefore checks every attribute's and
// dataset's datatype and dataspace against what it expects before reading
// a value, bounds every allocation by what the file can hold, and walks
// the global heap collections (where variable-length strings live, and
// which carry no checksum in any HDF5 format) before reading a string.

// attrDesc is what an attribute's datatype and dataspace say.
type attrDesc = C.struct_sompca_h5_attr_desc

// attrInfo describes the attribute name of loc, or returns ErrNotExist.
// Callers hold h5mu.
func attrInfo(loc C.hid_t, name string) (attrDesc, error) {
	cn := cstr(name)
	defer freeCString(cn)
	var d attrDesc
	switch C.sompca_h5_attr_info(loc, cn, &d) {
	case 0:
		return d, fmt.Errorf("%w: no attribute %q", ErrNotExist, name)
	case 1:
		return d, nil
	}
	return d, h5err(ErrCorrupt, fmt.Sprintf("cannot read the datatype or dataspace of attribute %q", name))
}

// single reports whether d's dataspace holds exactly one element: scalar,
// or one-dimensional of length 1.
func single(d attrDesc) bool {
	return d.npoints == 1 && (d.space == C.H5S_SCALAR || (d.space == C.H5S_SIMPLE && d.rank <= 1))
}

// checkNumericAttr checks that attribute name, described by d, is a
// number of the class want (H5T_INTEGER or H5T_FLOAT) in a standard
// layout, with one element (scalar) or a one-dimensional array of at most
// maxLen.
func checkNumericAttr(loc C.hid_t, name string, d attrDesc, want C.int, scalar bool, maxLen int) error {
	what := map[C.int]string{C.H5T_INTEGER: "an integer", C.H5T_FLOAT: "a float"}[want]
	switch {
	case d.cls != want:
		return fmt.Errorf("%w: attribute %q is %s, want %s", ErrFormat, name, className(int(d.cls)), what)
	case scalar && !single(d):
		return fmt.Errorf("%w: attribute %q holds %d values, want one", ErrFormat, name, int64(d.npoints))
	case !scalar && (d.space == C.H5S_NULL || d.rank > 1 || int64(d.npoints) > int64(maxLen)):
		return fmt.Errorf("%w: attribute %q has rank %d and %d values, want at most %d in one dimension", ErrFormat, name, int(d.rank), int64(d.npoints), maxLen)
	}
	if want == C.H5T_INTEGER && d.size != 1 && d.size != 2 && d.size != 4 && d.size != 8 ||
		want == C.H5T_FLOAT && d.size != 4 && d.size != 8 {
		return fmt.Errorf("%w: attribute %q is %s of %d bytes", ErrFormat, name, what, int(d.size))
	}
	cn := cstr(name)
	defer freeCString(cn)
	switch C.sompca_h5_attr_type_standard(loc, cn) {
	case 1:
		return nil
	case 0:
		return fmt.Errorf("%w: attribute %q is %s of %d bytes in a non-standard bit layout (precision %d, offset %d)", ErrFormat, name, what, int(d.size), int(d.precision), int(d.offset))
	}
	return h5err(ErrCorrupt, fmt.Sprintf("cannot read the datatype of attribute %q", name))
}

// checkStringAttr checks that attribute name, described by d, is one
// ASCII or UTF-8 string, of variable length or of at most maxLen bytes.
func checkStringAttr(name string, d attrDesc, maxLen int) error {
	switch {
	case d.cls != C.H5T_STRING:
		return fmt.Errorf("%w: attribute %q is %s, want a string", ErrFormat, name, className(int(d.cls)))
	case !single(d):
		return fmt.Errorf("%w: attribute %q holds %d values, want one string", ErrFormat, name, int64(d.npoints))
	case d.cset != C.H5T_CSET_ASCII && d.cset != C.H5T_CSET_UTF8:
		return fmt.Errorf("%w: attribute %q has unknown character set %d", ErrFormat, name, int(d.cset))
	case d.vlen_str == 0 && int64(d.size) > int64(maxLen):
		return fmt.Errorf("%w: attribute %q is a %d-byte string, longer than %d", ErrFormat, name, int64(d.size), maxLen)
	}
	return nil
}

func className(class int) string {
	if name, ok := classNames[class]; ok {
		return name
	}
	return fmt.Sprintf("of HDF5 type class %d", class)
}

// checkDatasetLayout checks that d's element type has the standard bit
// layout of its size (see sompca_h5_type_standard). Callers hold h5mu.
func checkDatasetLayout(d C.hid_t) error {
	switch C.sompca_h5_dataset_type_standard(d) {
	case 1:
		return nil
	case 0:
		return fmt.Errorf("%w: the element type has a non-standard bit layout (precision, offset or float fields)", ErrType)
	}
	return h5err(ErrCorrupt, "cannot read the element type")
}

// maxCompression bounds how many bytes of data one stored byte can hold:
// DEFLATE's largest ratio is 1032:1 (RFC 1951's longest match, 258 bytes,
// in at least 2 bits); checksum filters add bytes.
const maxCompression = 1100

// checkStorage checks, before a dataset of elems elements of elemBytes
// each is read into memory, that the file holds data for it: an
// unfiltered dataset stores at least every byte of its extent, a filtered
// (compressed) one at least 1/maxCompression of them. A corrupted extent
// is thus an error, not an allocation of any size the bytes say. Callers
// hold h5mu.
func checkStorage(d C.hid_t, elems, elemBytes uint64) error {
	var stored C.ulonglong
	var filtered C.int
	if C.sompca_h5_dataset_storage(d, &stored, &filtered) < 0 {
		return h5err(ErrCorrupt, "cannot read the dataset's storage size")
	}
	need := elems * elemBytes
	if elemBytes != 0 && need/elemBytes != elems {
		return fmt.Errorf("%w: the dataset's extent (%d elements) overflows", ErrShape, elems)
	}
	have := uint64(stored)
	if filtered != 0 {
		have = min(have, ^uint64(0)/maxCompression) * maxCompression
	}
	if need > have {
		return fmt.Errorf("%w: the dataset's extent needs %d bytes but the file stores %d for it", ErrCorrupt, need, uint64(stored))
	}
	return nil
}

// checkGlobalHeaps walks every global heap collection of the file at path
// as libhdf5 will, and fails if any object runs past its collection or
// has a size that would stop the walk. libhdf5 1.10 decodes a collection
// without these checks (a corrupted object size makes it read out of
// bounds, a zero free-space size loops for ever; 1.14 checks), and the
// collections hold the variable-length strings that model files carry.
//
// A collection is recognised by its signature "GCOL", version 1 and zero
// reserved bytes; its sizes are 8-byte little-endian lengths, the only
// size HDF5 and h5py write.
func checkGlobalHeaps(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	return checkGlobalHeapsIn(f, fi.Size())
}

// checkGlobalHeapsIn is checkGlobalHeaps of a file of size bytes read
// from f.
func checkGlobalHeapsIn(f io.ReaderAt, size int64) error {
	const block = 1 << 20
	buf := make([]byte, block+3)
	for base := int64(0); base < size; base += block {
		n, err := f.ReadAt(buf, base)
		if err != nil && err != io.EOF {
			return fmt.Errorf("%w: %v", ErrIO, err)
		}
		for i := 0; ; {
			j := bytes.Index(buf[i:n], []byte("GCOL"))
			if j < 0 || i+j >= block {
				break
			}
			if err := checkCollection(f, base+int64(i+j), size); err != nil {
				return err
			}
			i += j + 1
		}
	}
	return nil
}

// checkCollection checks the candidate collection at offset off of a file
// of the given size.
func checkCollection(f io.ReaderAt, off, fileSize int64) error {
	const hdr, objHdr = 16, 16
	var h [hdr]byte
	if _, err := f.ReadAt(h[:], off); err != nil || h[4] != 1 || h[5] != 0 || h[6] != 0 || h[7] != 0 {
		return nil // not a collection (too short, or bytes that happen to spell GCOL)
	}
	size := binary.LittleEndian.Uint64(h[8:])
	if size < hdr || size > uint64(fileSize-off) {
		return nil // libhdf5 refuses to read past the end of the file itself
	}
	c := make([]byte, size)
	if _, err := f.ReadAt(c, off); err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	bad := func(what string, args ...any) error {
		return fmt.Errorf("%w: global heap collection at byte %d: %s", ErrCorrupt, off, fmt.Sprintf(what, args...))
	}
	for p := uint64(hdr); p < size; {
		if p+objHdr > size {
			break // the tail is free space
		}
		idx := binary.LittleEndian.Uint16(c[p:])
		objSize := binary.LittleEndian.Uint64(c[p+8:])
		if objSize > size {
			return bad("object %d has size %d, larger than the collection (%d)", idx, objSize, size)
		}
		need := objSize // the free space object counts its own header
		if idx > 0 {
			need = objHdr + (objSize+7)&^7
		}
		if need < objHdr || need > size-p {
			return bad("object %d of size %d at offset %d does not fit the collection of %d bytes", idx, objSize, p, size)
		}
		p += need
	}
	return nil
}
