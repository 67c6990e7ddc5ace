package hdf5io

// #include "shim.h"
import "C"

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"gonum.org/v1/hdf5"
)

// update writes the HDF5 file at path atomically: fn edits a temporary
// file in the same directory, which is renamed over path only when fn and
// every close and sync have succeeded; on failure the temporary file is
// removed and path is as it was. With keep, the temporary file starts as
// a copy of an existing file at path (so its other objects are kept);
// otherwise it starts empty. fn runs without h5mu and takes it around
// its own HDF5 calls (withLock), so that it may read a Source meanwhile.
func update(path string, keep bool, reserve int64, fn func(f *hdf5.File) error) error {
	return updateFile(path, keep, false, reserve, fn)
}

// updateFile is update; with checksummed a new file is created in the
// HDF5 1.10 format, whose superblock and object headers carry checksums.
func updateFile(path string, keep, checksummed bool, reserve int64, fn func(f *hdf5.File) error) (err error) {
	// A symbolic link stays: its target is replaced (as editors and h5py
	// write through a link), atomically beside the target.
	if path, err = linkTarget(path); err != nil {
		return err
	}
	fi, statErr := os.Stat(path)
	exists := statErr == nil
	switch {
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrIO, statErr)
	case exists && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: not a regular file, refusing to replace it", ErrIO)
	}
	if exists && keep {
		if err := checkHDF5(path); err != nil {
			return err
		}
	}
	tmp, tf, err := createTemp(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if exists {
		// The temporary file takes the mode of the file it replaces.
		if err := tf.Chmod(fi.Mode().Perm()); err != nil {
			tf.Close()
			return fmt.Errorf("%w: %v", ErrIO, err)
		}
	}
	if exists && keep {
		if err := copyFile(tf, path); err != nil {
			tf.Close()
			return err
		}
	}
	size, err := tf.Seek(0, io.SeekEnd)
	if err != nil {
		tf.Close()
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	total := size + reserve
	if err = checkFileSizeLimit(total); err == nil {
		err = reserveSpace(tf, total)
	}
	if cerr := tf.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%w: %v", ErrIO, cerr)
	}
	if err != nil {
		return err
	}
	if err := editHDF5(tmp, exists && keep, checksummed, fn); err != nil {
		return err
	}
	releaseReserve(tmp, total)
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// linkTarget returns the file that the symbolic link path names (through
// every link on the way, even if that file does not exist yet), or path
// itself if it is not a link.
func linkTarget(path string) (string, error) {
	for range 40 { // Linux's own bound on links followed
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrIO, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%w: too many levels of symbolic links", ErrIO)
}

// editHDF5 opens (or creates) the temporary file, runs fn and closes it.
// A failed write leaves the file abandoned (sompca_h5_abandon) and an
// error; the caller removes the file.
func editHDF5(tmp string, open, checksummed bool, fn func(f *hdf5.File) error) (err error) {
	var f *hdf5.File
	err = withLock(func() error {
		if !open {
			// Created (and closed) by the shim, then opened as an
			// existing file: a failed H5Fcreate leaves libhdf5 a file
			// it never closes ("infinite loop closing library" at
			// exit), a failed H5Fclose does not.
			c := cstr(tmp)
			defer freeCString(c)
			if C.sompca_h5_create(c, cbool(checksummed)) < 0 {
				return h5err(ErrIO, "cannot create the file")
			}
		}
		if f, err = hdf5.OpenFile(tmp, hdf5.F_ACC_RDWR); err != nil {
			return h5err(ErrCorrupt, "cannot open the file for writing")
		}
		return nil
	})
	if err != nil {
		return err
	}
	id := hid(f)
	err = fn(f)
	return withLock(func() error {
		// Everything is flushed before the file is closed, so that a
		// failing write (disk full, EIO) shows here, where the file can
		// still be abandoned cleanly, not in a close that fails halfway.
		if err == nil && C.sompca_h5_flush(id) < 0 {
			err = h5err(ErrIO, "cannot write the file")
		}
		if err != nil {
			C.sompca_h5_abandon(id) // the caller removes the file
			return err
		}
		if f.Close() != nil {
			return h5err(ErrIO, "cannot close the file")
		}
		return nil
	})
}

// arrayBytes bounds the bytes that a file needs for datasets of data
// bytes: HDF5's superblock, object headers, attributes and B-trees take
// less than 16 KiB per file plus 2 KiB per dataset and 1/64 of the data
// (measured on this package's files; TestReserveBounds checks it).
func arrayBytes(data int, datasets ...int) int64 {
	n := 1
	if len(datasets) > 0 {
		n = datasets[0]
	}
	return int64(data) + int64(data)/64 + 16<<10 + int64(n)*2<<10
}

func sizeOf[T Number]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// checkFileSizeLimit fails if a file of total bytes would exceed the
// process's file size limit (RLIMIT_FSIZE, ulimit -f): the write would fail
// (or kill the process by SIGXFSZ) halfway, which libhdf5 cannot recover
// from.
func checkFileSizeLimit(total int64) error {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim) == nil && lim.Cur != ^uint64(0) && uint64(total) > lim.Cur {
		return fmt.Errorf("%w: the file needs up to %d bytes, more than the process's file size limit of %d bytes (ulimit -f)", ErrIO, total, lim.Cur)
	}
	return nil
}

// reserveSpace reserves disk blocks for the first total bytes of f
// without changing its size, so that a full disk (ENOSPC) shows here,
// before libhdf5 writes: it cannot recover from a failed write (see
// sompca_h5_abandon, which still cleans up after an EIO). A file system
// without fallocate gets no reservation.
func reserveSpace(f *os.File, total int64) error {
	const keepSize = 1 // FALLOC_FL_KEEP_SIZE
	err := syscall.Fallocate(int(f.Fd()), keepSize, 0, total)
	if err == nil || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return fmt.Errorf("%w: cannot reserve the %d bytes the file needs: %w", ErrIO, total, err)
}

// releaseReserve gives back the disk blocks reserved beyond the end of the
// finished file (best effort).
func releaseReserve(path string, total int64) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < total {
		f.Truncate(fi.Size()) // frees the blocks past the end (ext4, xfs)
	}
}

// withLock runs fn with h5mu held.
func withLock(fn func() error) error {
	lock()
	defer unlock()
	return fn()
}

// checkHDF5 reports whether path is an HDF5 file that HDF5 can open.
func checkHDF5(path string) error {
	lock()
	defer unlock()
	f, err := openRead(path)
	if err != nil {
		return err
	}
	if f.Close() != nil {
		return h5err(ErrCorrupt, "cannot close")
	}
	return nil
}

// createTemp creates an empty file next to path under a name of its own,
// with mode 0666 less the umask.
func createTemp(path string) (string, *os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", nil, fmt.Errorf("%w: %v", ErrIO, err)
		}
		tmp := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return tmp, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", nil, fmt.Errorf("%w: cannot create a temporary file: %v", ErrIO, err)
		}
	}
	return "", nil, fmt.Errorf("%w: cannot find a free temporary file name next to %q", ErrIO, path)
}

func copyFile(dst *os.File, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	defer in.Close()
	if _, err := io.Copy(dst, in); err != nil {
		return fmt.Errorf("%w: cannot copy: %v", ErrIO, err)
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIO, err)
	}
	return nil
}

// syncDir makes a rename durable; filesystems that cannot sync a
// directory are ignored, the rename itself has succeeded.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// prepareDataset makes the groups on the way to name (absolute) and, if
// a dataset of that name exists, deletes it when overwrite is set and
// fails otherwise. Callers hold h5mu.
func prepareDataset(f *hdf5.File, name string, overwrite bool) error {
	if name == "/" || strings.Contains(name, "//") || strings.HasSuffix(name, "/") {
		return fmt.Errorf("%w: %q is not a dataset name", ErrType, name)
	}
	parts := strings.Split(name[1:], "/")
	prefix := ""
	for _, part := range parts[:len(parts)-1] {
		prefix += "/" + part
		t, err := objectType(f, prefix)
		switch {
		case errors.Is(err, ErrNotExist):
			g, err := f.CreateGroup(prefix)
			if err != nil {
				return h5err(ErrIO, fmt.Sprintf("cannot create group %q", prefix))
			}
			g.Close()
		case err != nil:
			return err
		case t != C.H5I_GROUP:
			return fmt.Errorf("%w: %q exists and is not a group", ErrExists, prefix)
		}
	}
	t, err := objectType(f, name)
	switch {
	case errors.Is(err, ErrNotExist):
		return nil
	case err != nil:
		return err
	case t != C.H5I_DATASET:
		return fmt.Errorf("%w: %q exists and is not a dataset; it is never replaced", ErrExists, name)
	case !overwrite:
		return fmt.Errorf("%w: the dataset exists (ask for overwrite to replace it)", ErrExists)
	}
	return deleteLink(f, name)
}

// createDataset creates the dataset name (absolute, its groups existing)
// of the given kind and dimensions and returns its identifier, which the
// caller closes with closeDataset. Callers hold h5mu.
func createDataset(loc C.hid_t, name string, k kind, dims []int) (C.hid_t, error) {
	return createDatasetChecksum(loc, name, k, dims, false)
}

// createDatasetChecksum is createDataset, and with checksum the dataset
// is chunked with HDF5's Fletcher-32 checksum on every chunk.
func createDatasetChecksum(loc C.hid_t, name string, k kind, dims []int, checksum bool) (C.hid_t, error) {
	cdims := make([]C.hsize_t, max(len(dims), 1))
	for i, d := range dims {
		cdims[i] = C.hsize_t(d)
	}
	c := cstr(name)
	defer freeCString(c)
	cs := C.int(0)
	if checksum {
		cs = 1
	}
	d := C.sompca_h5_create_dataset(loc, c, C.int(k), C.int(len(dims)), &cdims[0], cs)
	if d < 0 {
		return -1, h5err(ErrIO, fmt.Sprintf("cannot create dataset %q", name))
	}
	return d, nil
}

func closeDataset(d C.hid_t, name string) error {
	if C.sompca_h5_close_dataset(d) < 0 {
		return h5err(ErrIO, fmt.Sprintf("cannot close dataset %q", name))
	}
	return nil
}

// kindFor returns the kind of the Go element type T.
func kindFor[T Number]() kind {
	var z T
	switch any(z).(type) {
	case int8:
		return kInt8
	case uint8:
		return kUint8
	case int16:
		return kInt16
	case uint16:
		return kUint16
	case int32:
		return kInt32
	case uint32:
		return kUint32
	case int64:
		return kInt64
	case uint64:
		return kUint64
	case float32:
		return kFloat32
	}
	return kFloat64
}

// writeArray creates the dataset name in f with the given dimensions and
// writes data (C order) to it, with checksum chunked and Fletcher-32
// checksummed. Callers hold h5mu.
func writeArray[T Number](f *hdf5.File, name string, dims []int, data []T, checksum bool) error {
	n := 1
	for _, d := range dims {
		n *= d
	}
	if len(data) != n {
		panic(fmt.Sprintf("hdf5io: %d values for dataset %q of shape %v", len(data), name, dims))
	}
	d, err := createDatasetChecksum(hid(f), name, kindFor[T](), dims, checksum)
	if err != nil {
		return err
	}
	var p *T
	if n > 0 {
		p = &data[0]
	}
	if C.sompca_h5_write(d, C.int(kindFor[T]()), C.H5S_ALL, C.H5S_ALL, unsafePointer(p)) < 0 {
		err = h5err(ErrIO, fmt.Sprintf("cannot write dataset %q", name))
		closeDataset(d, name)
		return err
	}
	return closeDataset(d, name)
}

// WriteArray writes data, an array of the given dimensions in C order, as
// the dataset (e.g. "/train/X") of the HDF5 file at path, creating the
// file and any groups on the way. Other objects of an existing file are
// kept; an existing dataset of that name is replaced only with overwrite.
// The file is rewritten atomically: on failure it is left as it was.
func WriteArray[T Number](path, dataset string, dims []int, data []T, overwrite bool) error {
	dataset = datasetName(dataset)
	n := 1
	for _, d := range dims {
		if d < 0 {
			return &Error{Op: "write", Path: path, Object: dataset, Err: fmt.Errorf("%w: negative dimension in %v", ErrShape, dims)}
		}
		n *= d
	}
	if len(dims) == 0 || len(data) != n {
		return &Error{Op: "write", Path: path, Object: dataset, Err: fmt.Errorf("%w: %d values for shape %v", ErrShape, len(data), dims)}
	}
	err := update(path, true, arrayBytes(n*sizeOf[T]()), func(f *hdf5.File) error {
		return withLock(func() error {
			if err := prepareDataset(f, dataset, overwrite); err != nil {
				return err
			}
			return writeArray(f, dataset, dims, data, false)
		})
	})
	if err != nil {
		return &Error{Op: "write", Path: path, Object: dataset, Err: err}
	}
	return nil
}

// WriteFeatures writes features, m samples x p features of transform
// output (sample-major), as a float64 dataset of shape (m, p); see
// WriteArray for how the file is updated.
func WriteFeatures(path, dataset string, features []float64, m, p int, overwrite bool) error {
	if m < 0 || p < 0 || len(features) != m*p {
		return &Error{Op: "write features", Path: path, Object: datasetName(dataset),
			Err: fmt.Errorf("%w: %d values for %d samples x %d features", ErrShape, len(features), m, p)}
	}
	return WriteArray(path, dataset, []int{m, p}, features, overwrite)
}

// deleteLink deletes the link name (absolute) of f. Callers hold h5mu.
func deleteLink(f *hdf5.File, name string) error {
	c := cstr(name)
	defer freeCString(c)
	if C.sompca_h5_link_delete(hid(f), c) < 0 {
		return h5err(ErrIO, fmt.Sprintf("cannot delete %q", name))
	}
	return nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
