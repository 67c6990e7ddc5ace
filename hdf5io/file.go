package hdf5io

// #include "shim.h"
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"gonum.org/v1/hdf5"
)

// hid returns the C identifier of a gonum.org/v1/hdf5 object.
func hid(id interface{ ID() int64 }) C.hid_t { return C.hid_t(id.ID()) }

// openRead opens path read-only. Callers hold h5mu. An input file is
// never opened for writing.
func openRead(path string) (*hdf5.File, error) {
	f, _, err := openReadSWMR(path)
	return f, err
}

// openReadSWMR is openRead that also opens a file that a writer holds in
// SWMR mode (single writer, multiple readers), reporting whether it did:
// its superblock says it is open for writing, which a plain open refuses.
// Callers hold h5mu.
func openReadSWMR(path string) (*hdf5.File, bool, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("%w: no such file", ErrNotExist)
	case errors.Is(err, fs.ErrPermission):
		return nil, false, fmt.Errorf("%w: %v", ErrPermission, err)
	case err != nil:
		return nil, false, fmt.Errorf("%w: %v", ErrIO, err)
	case fi.IsDir():
		return nil, false, fmt.Errorf("%w: is a directory", ErrNotHDF5)
	case fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice) != 0:
		// libhdf5 would block in open or read for as long as nothing
		// writes to a pipe, where no cancellation can reach it; and it
		// seeks, which a pipe cannot.
		return nil, false, fmt.Errorf("%w: is a %s, not a regular file: HDF5 needs a file it can seek in (copy the data to a file first)", ErrNotHDF5, special(fi.Mode()))
	}
	c := cstr(path)
	defer freeCString(c)
	switch is := C.H5Fis_hdf5(c); {
	case is < 0:
		return nil, false, h5err(ErrIO, "cannot read the file")
	case is == 0:
		return nil, false, fmt.Errorf("%w (no HDF5 signature)", ErrNotHDF5)
	}
	f, err := hdf5.OpenFile(path, hdf5.F_ACC_RDONLY)
	if err == nil {
		return f, false, nil
	}
	msg := h5msg()
	if !strings.Contains(msg, "already open for write") {
		return nil, false, h5cause(ErrCorrupt, "cannot open", msg)
	}
	if f, err = hdf5.OpenFile(path, hdf5.F_ACC_RDONLY|int(C.H5F_ACC_SWMR_READ)); err == nil {
		return f, true, nil
	}
	C.sompca_h5_clear()
	// libhdf5 advises h5clear, which must never be run on a file that a
	// process is writing.
	return nil, false, fmt.Errorf("%w: the file's superblock says a writer has it open, not in SWMR mode, "+
		"so it cannot be read now: wait for the writer to close it; if no process is writing it (a writer "+
		"crashed), `h5clear -s FILE` clears the mark (never while a process writes the file)", ErrLocked)
}

// objectType returns the H5I type of the object at the absolute path
// name, checking each group on the way, or ErrNotExist naming the first
// missing link. Callers hold h5mu.
func objectType(f *hdf5.File, name string) (C.int, error) {
	if name == "/" {
		return C.H5I_GROUP, nil
	}
	parts := strings.Split(strings.TrimPrefix(name, "/"), "/")
	prefix := ""
	for i, part := range parts {
		if part == "" {
			return 0, fmt.Errorf("%w: empty name component in %q", ErrNotExist, name)
		}
		prefix += "/" + part
		c := cstr(prefix)
		ex := C.sompca_h5_link_exists(hid(f), c)
		var t C.int
		if ex > 0 {
			t = C.sompca_h5_obj_type(hid(f), c)
		}
		freeCString(c)
		switch {
		case ex < 0:
			return 0, h5err(ErrCorrupt, fmt.Sprintf("cannot look up %q", prefix))
		case ex == 0:
			return 0, fmt.Errorf("%w: the file has no object %q", ErrNotExist, prefix)
		case t < 0:
			return 0, openFailure(f, prefix)
		case i < len(parts)-1 && t != C.H5I_GROUP:
			return 0, fmt.Errorf("%w: %q is not a group", ErrNotExist, prefix)
		case i == len(parts)-1:
			return t, nil
		}
	}
	panic("unreachable")
}

// openDataset opens the dataset at name (absolute) in f. Callers hold h5mu.
func openDataset(f *hdf5.File, name string) (*hdf5.Dataset, error) {
	t, err := objectType(f, name)
	if err != nil {
		return nil, err
	}
	switch t {
	case C.H5I_DATASET:
	case C.H5I_GROUP:
		return nil, fmt.Errorf("%w: the object is a group, not a dataset", ErrType)
	case C.H5I_DATATYPE:
		return nil, fmt.Errorf("%w: the object is a named datatype, not a dataset", ErrType)
	default:
		return nil, fmt.Errorf("%w: the object is not a dataset (H5I type %d)", ErrType, int(t))
	}
	d, err := f.OpenDataset(name)
	if err != nil {
		return nil, h5err(ErrCorrupt, "cannot open the dataset")
	}
	return d, nil
}

// datasetKind returns the element kind of d. Callers hold h5mu.
func datasetKind(d *hdf5.Dataset) (kind, error) {
	var class C.int
	var size C.size_t
	var signed C.int
	if C.sompca_h5_dataset_type(hid(d), &class, &size, &signed) < 0 {
		return 0, h5err(ErrCorrupt, "cannot read the element type")
	}
	flavor := C.sompca_h5_dataset_flavor(hid(d))
	if flavor < 0 {
		return 0, h5err(ErrCorrupt, "cannot read the element type")
	}
	k, err := kindOf(int(class), int(size), signed != 0, int(flavor))
	if err != nil {
		return 0, err
	}
	return k, checkDatasetLayout(hid(d))
}

// datasetDims returns the dimensions of d. Callers hold h5mu.
func datasetDims(d *hdf5.Dataset) ([]uint, error) {
	space := d.Space()
	if space == nil {
		return nil, h5err(ErrCorrupt, "cannot read the dataspace")
	}
	defer space.Close()
	switch space.SimpleExtentType() {
	case hdf5.S_SCALAR:
		return []uint{}, nil
	case hdf5.S_NULL:
		return nil, fmt.Errorf("%w: the dataset has a null dataspace (no data)", ErrShape)
	case hdf5.S_SIMPLE:
	default:
		return nil, h5err(ErrCorrupt, "cannot read the dataspace")
	}
	if space.SimpleExtentNDims() == 0 {
		return []uint{}, nil
	}
	dims, _, err := space.SimpleExtentDims()
	if err != nil {
		return nil, h5err(ErrCorrupt, "cannot read the dataspace")
	}
	return dims, nil
}

// readAll reads the whole of d as kind k into dst, which holds exactly
// its number of elements. Callers hold h5mu.
func readAll(d *hdf5.Dataset, k kind, dst []uint64) error {
	var p *uint64
	if len(dst) > 0 {
		p = &dst[0]
	}
	if C.sompca_h5_read(hid(d), C.int(k), C.H5S_ALL, C.H5S_ALL, unsafePointer(p)) < 0 {
		return h5err(ErrCorrupt, "cannot read the data")
	}
	return nil
}

func formatDims[T int | uint](dims []T) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range dims {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, d)
	}
	b.WriteByte(')')
	return b.String()
}

// special names the kind of a file that is not regular.
func special(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "character device"
}

// openFailure explains why the object at the link name of f, which
// exists, cannot be opened: a soft or external link to nothing, or what
// libhdf5 says (a format too new, corruption). Callers hold h5mu, right
// after the failed open.
func openFailure(f *hdf5.File, name string) error {
	msg := h5msg()
	c := cstr(name)
	defer freeCString(c)
	var fbuf, pbuf [1024]C.char
	switch C.sompca_h5_link_target(hid(f), c, &fbuf[0], &pbuf[0], C.size_t(len(fbuf))) {
	case 1:
		target := C.GoString(&pbuf[0])
		tc := cstr(target)
		defer freeCString(tc)
		if C.sompca_h5_link_exists(hid(f), tc) <= 0 {
			C.sompca_h5_clear()
			return fmt.Errorf("%w: %q is a soft link to %q, which does not exist in the file", ErrLink, name, target)
		}
	case 2:
		file, target := C.GoString(&fbuf[0]), C.GoString(&pbuf[0])
		if strings.Contains(msg, "unable to open external file") {
			return fmt.Errorf("%w: %q is an external link to %q in file %q, which cannot be opened (libhdf5 looks "+
				"for it under HDF5_EXT_PREFIX, beside this file and in the working directory): %s", ErrLink, name, target, file, lastCause(msg))
		}
		if strings.Contains(msg, "component not found") || strings.Contains(msg, "object not found") {
			return fmt.Errorf("%w: %q is an external link to %q in file %q, which has no such object", ErrLink, name, target, file)
		}
	}
	return h5cause(ErrCorrupt, fmt.Sprintf("cannot open object %q", name), msg)
}

// lastCause is the innermost cause of an HDF5 error stack's text.
func lastCause(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}
