package hdf5io

// #include "shim.h"
import "C"

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// storageDesc is where a dataset's bytes are (sompca_h5_dataset_storage).
type storageDesc = C.struct_sompca_h5_storage

func describeStorage(d C.hid_t) (storageDesc, error) {
	var st storageDesc
	if C.sompca_h5_dataset_storage(d, &st) < 0 {
		return st, h5err(ErrCorrupt, "cannot read the dataset's storage layout")
	}
	return st, nil
}

// checkStorage checks, before a dataset of elems elements of elemBytes
// each that sompca wrote (a model's) is read into memory, that the file
// holds data for all of it: an unfiltered dataset stores at least every
// byte of its extent, a filtered (compressed) one at least
// 1/maxCompression of them. A corrupted extent is thus an error, not an
// allocation of any size the bytes say. Callers hold h5mu.
func checkStorage(d C.hid_t, elems, elemBytes uint64) error {
	st, err := describeStorage(d)
	if err != nil {
		return err
	}
	need := elems * elemBytes
	if elemBytes != 0 && need/elemBytes != elems {
		return fmt.Errorf("%w: the dataset's extent (%d elements) overflows", ErrShape, elems)
	}
	have := uint64(st.bytes)
	if st.nfilters != 0 {
		have = min(have, ^uint64(0)/maxCompression) * maxCompression
	}
	if need > have {
		return fmt.Errorf("%w: the dataset's extent needs %d bytes but the file stores %d for it", ErrCorrupt, need, uint64(st.bytes))
	}
	return nil
}

// maxVirtualDepth bounds virtual datasets whose sources are virtual.
const maxVirtualDepth = 4

// checkSampleStorage checks, before the samples of dataset d (in the file
// at path, of dimensions dims, elemBytes a value) are read, that the file
// stores what HDF5 will read for them, knowing HDF5's layouts: what was
// never written reads the dataset's fill value (a contiguous dataset
// never allocated, the chunks never written); an allocated contiguous or
// compact dataset stores its whole extent; each allocated chunk stores a
// whole chunk (at least 1/maxCompression of one when filtered); external
// files exist and hold the extent; each source of a virtual dataset
// exists and is itself checked. A source file or dataset that is missing
// is an error naming it: sompca does not fit the fill value that HDF5
// would read in its place. Callers hold h5mu.
func checkSampleStorage(path string, d C.hid_t, dims []uint, elemBytes uint64, depth int) error {
	st, err := describeStorage(d)
	if err != nil {
		return err
	}
	elems := uint64(1)
	for _, n := range dims {
		if n != 0 && elems > ^uint64(0)/uint64(n) {
			return fmt.Errorf("%w: the dataset's extent %s overflows", ErrShape, formatDims(dims))
		}
		elems *= uint64(n)
	}
	need := elems * elemBytes
	if elemBytes != 0 && need/elemBytes != elems {
		return fmt.Errorf("%w: the dataset's extent (%d elements) overflows", ErrShape, elems)
	}
	stored := uint64(st.bytes)
	if missing, names := missingFilters(d); missing {
		return fmt.Errorf("%w: %s", ErrFilter, names)
	}
	switch st.layout {
	case C.H5D_VIRTUAL:
		return checkVirtual(path, d, int(st.nvirtual), depth)
	case C.H5D_CHUNKED:
		chunk := make([]C.hsize_t, max(len(dims), 1))
		if C.sompca_h5_chunk_dims(d, C.int(len(dims)), &chunk[0]) != 1 {
			return h5err(ErrCorrupt, "cannot read the dataset's chunk shape")
		}
		chunkBytes := elemBytes
		for _, c := range chunk[:len(dims)] {
			if c == 0 || chunkBytes > ^uint64(0)/uint64(c) {
				return fmt.Errorf("%w: chunk shape %v of the dataset is absurd", ErrCorrupt, chunk[:len(dims)])
			}
			chunkBytes *= uint64(c)
		}
		n := uint64(st.nchunks)
		if n != 0 && chunkBytes > ^uint64(0)/n {
			return fmt.Errorf("%w: %d chunks of %d bytes overflow", ErrCorrupt, n, chunkBytes)
		}
		have := stored
		if st.nfilters != 0 {
			have = min(have, ^uint64(0)/maxCompression) * maxCompression
		}
		if n*chunkBytes > have {
			return fmt.Errorf("%w: the dataset's %d written chunks need %d bytes but the file stores %d for them", ErrCorrupt, n, n*chunkBytes, stored)
		}
		return nil
	case C.H5D_CONTIGUOUS:
		if st.nexternal > 0 {
			return checkExternal(path, d, int(st.nexternal), need)
		}
		if st.allocated == 0 {
			return nil // never written: reads the fill value
		}
	}
	if need > stored {
		return fmt.Errorf("%w: the dataset's extent needs %d bytes but the file stores %d for it", ErrCorrupt, need, stored)
	}
	return nil
}

// missingFilters reports whether a filter of d's pipeline is unavailable
// (not built in, no plugin found), and says which and how to get it.
func missingFilters(d C.hid_t) (bool, string) {
	var buf [512]C.char
	n := C.sompca_h5_missing_filters(d, &buf[0], C.size_t(len(buf)))
	if n <= 0 {
		C.sompca_h5_clear()
		return false, ""
	}
	names := C.GoString(&buf[0])
	return true, fmt.Sprintf("the dataset needs HDF5 filter %s, which this libhdf5 (%s) cannot load: %s", names, libVersion(), filterAdvice(names))
}

// filterAdvice says how to make the filters named available to libhdf5.
func filterAdvice(names string) string {
	const viaH5py = "sompca's Python estimators read an h5py Dataset through h5py when the library cannot"
	if strings.Contains(strings.ToLower(names), "lzf") {
		// h5py's own filter: it has no plugin in hdf5plugin.
		return "LZF is h5py's own filter, which libhdf5 loads only as a plugin built for it (HDF5_PLUGIN_PATH); " +
			viaH5py + ", or rewrite the data with gzip (h5repack -f GZIP=4 IN OUT)"
	}
	return "install the filter's plugin and point HDF5_PLUGIN_PATH (or " + PluginPathVariable + ") at its folder " +
		"(Python: pip install hdf5plugin, whose folder sompca's Python package finds itself); " + viaH5py
}

// libVersion is the version of the libhdf5 sompca runs with.
func libVersion() string {
	var major, minor, release C.uint
	C.H5get_libversion(&major, &minor, &release)
	return fmt.Sprintf("%d.%d.%d", major, minor, release)
}

// checkExternal checks that the external raw data files of d exist and
// hold the need bytes of its extent. libhdf5 finds a relative name under
// HDF5_EXTFILE_PREFIX (where ${ORIGIN} is the HDF5 file's folder), else
// relative to the working directory.
func checkExternal(path string, d C.hid_t, n int, need uint64) error {
	var have uint64
	prefix := strings.ReplaceAll(getenv("HDF5_EXTFILE_PREFIX"), "${ORIGIN}", filepath.Dir(path))
	var buf [4096]C.char
	for i := 0; i < n; i++ {
		var off C.longlong
		var size C.ulonglong
		if C.sompca_h5_external(d, C.int(i), &buf[0], C.size_t(len(buf)), &off, &size) < 0 {
			return h5err(ErrCorrupt, "cannot read the dataset's external storage")
		}
		name := C.GoString(&buf[0])
		full := name
		if !filepath.IsAbs(name) && prefix != "" {
			full = filepath.Join(prefix, name)
		}
		fi, err := os.Stat(full)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%w: external raw data file %q of the dataset does not exist", ErrNotExist, full)
			}
			return fmt.Errorf("%w: external raw data file %q of the dataset: %v", ErrIO, full, err)
		}
		avail := uint64(0)
		if int64(off) >= 0 && fi.Size() > int64(off) {
			avail = uint64(fi.Size() - int64(off))
		}
		if uint64(size) != uint64(C.H5F_UNLIMITED) {
			avail = min(avail, uint64(size))
		}
		have += avail
	}
	if need > have {
		return fmt.Errorf("%w: the dataset's extent needs %d bytes but its external files hold %d", ErrCorrupt, need, have)
	}
	return nil
}

// checkVirtual checks each source of the virtual dataset d of the file at
// path: its file and dataset exist, and their storage is sound. libhdf5
// looks for a relative source file under HDF5_VDS_PREFIX (${ORIGIN}: the
// virtual dataset's folder), then beside the virtual dataset's file, then
// relative to the working directory; "." is the file itself.
func checkVirtual(path string, d C.hid_t, n, depth int) error {
	if depth >= maxVirtualDepth {
		return fmt.Errorf("%w: virtual datasets nested more than %d deep", ErrType, maxVirtualDepth)
	}
	var fbuf, dbuf [4096]C.char
	seen := map[[2]string]bool{}
	for i := 0; i < n; i++ {
		if C.sompca_h5_virtual(d, C.size_t(i), &fbuf[0], &dbuf[0], C.size_t(len(fbuf))) < 0 {
			return h5err(ErrCorrupt, "cannot read the virtual dataset's mapping")
		}
		file, name := C.GoString(&fbuf[0]), C.GoString(&dbuf[0])
		if seen[[2]string{file, name}] {
			continue
		}
		seen[[2]string{file, name}] = true
		if strings.Contains(file, "%") || strings.Contains(name, "%") {
			continue // a printf-style pattern: its sources are found as the dataset grows
		}
		src := path
		if file != "." {
			src = sourceFile(path, file)
		}
		if err := checkVirtualSource(src, name, depth); err != nil {
			return fmt.Errorf("source %d (%q in %q) of the virtual dataset: %w", i, name, src, err)
		}
	}
	return nil
}

// sourceFile finds a virtual dataset's source file as libhdf5 does.
func sourceFile(path, file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	var tries []string
	if prefix := getenv("HDF5_VDS_PREFIX"); prefix != "" {
		tries = append(tries, filepath.Join(strings.ReplaceAll(prefix, "${ORIGIN}", filepath.Dir(path)), file))
	}
	tries = append(tries, filepath.Join(filepath.Dir(path), file), file)
	for _, t := range tries {
		if _, err := os.Stat(t); err == nil {
			return t
		}
	}
	return tries[0]
}

// checkVirtualSource opens the source dataset name of the file at path and
// checks its storage. Callers hold h5mu.
func checkVirtualSource(path, name string, depth int) error {
	f, err := openRead(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ds, err := openDataset(f, datasetName(name))
	if err != nil {
		return err
	}
	defer ds.Close()
	k, err := datasetKind(ds)
	if err != nil {
		return err
	}
	dims, err := datasetDims(ds)
	if err != nil {
		return err
	}
	return checkSampleStorage(path, hid(ds), dims, uint64(k.bytes()), depth+1)
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
