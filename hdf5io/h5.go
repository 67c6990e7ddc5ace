package hdf5io

/*
#cgo pkg-config: hdf5
#cgo CFLAGS: -Wall -Wextra
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// h5mu serializes every call into libhdf5: Debian builds it without its
// thread-safety option, so two goroutines must never be inside it at once.
// Functions that call back into solver (which calls Source.Read) must not
// hold it across that call.
var h5mu sync.Mutex

// lock enters libhdf5. The goroutine is also pinned to its thread, so that
// a thread-safe libhdf5, whose error stack is per thread, shows us the
// stack of our own failed call.
func lock() {
	runtime.LockOSThread()
	h5mu.Lock()
	// Debian's libhdf5 is in fact built thread-safe, which makes the
	// automatic error printing a per-thread setting: switch it off on
	// whichever thread we are.
	C.sompca_h5_silence()
	pluginsOnce.Do(appendPluginPath)
}

var pluginsOnce sync.Once

// PluginPathVariable names the environment variable of folders (separated
// by ':') where sompca's libhdf5 looks for filter plugins after those of
// HDF5_PLUGIN_PATH, and before libhdf5's default folder. Unlike
// HDF5_PLUGIN_PATH it is not read by other copies of libhdf5 in the
// process (h5py's), whose plugins it may not suit; the Python package sets
// it to hdf5plugin's folder.
const PluginPathVariable = "SOMPCA_HDF5_PLUGIN_PATH"

// appendPluginPath adds the folders of PluginPathVariable to libhdf5's
// plugin search path. Callers hold h5mu.
func appendPluginPath() {
	dirs := strings.Split(getenv(PluginPathVariable), ":")
	// libhdf5 1.10.8 gives up its search at a folder it cannot open, as
	// its default one often is (Debian ships none): before that folder,
	// unless HDF5_PLUGIN_PATH replaced it.
	prepend := getenv("HDF5_PLUGIN_PATH") == ""
	if prepend {
		slices.Reverse(dirs)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		c := cstr(dir)
		if prepend {
			C.H5PLprepend(c)
		} else {
			C.H5PLappend(c)
		}
		freeCString(c)
	}
	C.sompca_h5_clear()
}

func unlock() {
	h5mu.Unlock()
	runtime.UnlockOSThread()
}

// getenv reads the process's environment as libhdf5 does: a library
// built with -buildmode=c-shared sees in os.Getenv only the environment
// the process started with, not what its host (Python) set since.
func getenv(name string) string {
	c := cstr(name)
	defer freeCString(c)
	if v := C.getenv(c); v != nil {
		return C.GoString(v)
	}
	return ""
}

// h5msg returns the text of HDF5's current error stack and clears it; it
// must be called, with h5mu held, right after the failed call and before
// any other HDF5 call (each API call clears the stack on entry).
func h5msg() string {
	var buf [1024]C.char
	n := C.sompca_h5_errmsg(&buf[0], C.size_t(len(buf)))
	msg := C.GoStringN(&buf[0], C.int(n))
	if msg == "" {
		return "unknown HDF5 error"
	}
	return msg
}

// h5err returns an error carrying HDF5's message, wrapping kind (one of
// the Err... values, or nil).
//
// A failed checksum (Fletcher-32 of a chunk, or of metadata in the 1.8+
// formats) is ErrCorrupt and says "checksum mismatch" first, whatever the
// caller expected.
func h5err(kind error, what string) error {
	return h5cause(kind, what, h5msg())
}

// h5cause is h5err for the text msg of an error stack already taken.
// Causes that are not corruption are told apart by their words: a filter
// that libhdf5 cannot load (ErrFilter), a format newer than this libhdf5
// (ErrVersion), another process's file lock (ErrLocked), a refused
// permission (ErrPermission).
func h5cause(kind error, what, msg string) error {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "required filter"):
		name := "a filter"
		if m := filterName.FindStringSubmatch(msg); m != nil {
			name = "filter " + strconv.Quote(m[1])
		}
		return fmt.Errorf("%w: %s: the dataset needs HDF5 %s, which this libhdf5 (%s) cannot load: %s", ErrFilter, what, name, libVersion(), filterAdvice(name))
	case strings.Contains(lower, "bad version") && !strings.Contains(lower, "superblock"):
		return fmt.Errorf("%w: %s: the file uses a format that this libhdf5 (%s) cannot read (%s): it was "+
			"written by HDF5 %s or later (h5py with libver=\"latest\" or a libver newer than \"v110\"); read it through "+
			"h5py (sompca's Python estimators take an h5py Dataset), or rewrite it with libver=\"v110\" or older; "+
			"if no newer HDF5 wrote it, it is corrupt", ErrVersion, what, libVersion(), lastCause(msg), neededVersion(lower))
	case strings.Contains(lower, "unable to lock file"):
		return lockedError(what)
	}
	if strings.Contains(strings.ToLower(msg), "checksum") {
		return fmt.Errorf("%w: checksum mismatch (the file was corrupted after it was written): %s: %s", ErrCorrupt, what, msg)
	}
	if e, call := osError(msg); e != 0 {
		switch {
		case e == syscall.EAGAIN && strings.HasPrefix(call, "H5Fopen"):
			return lockedError(what)
		case e == syscall.EACCES || e == syscall.EPERM:
			kind = ErrPermission
		}
		// A failed system call (a full disk, EIO): its error first, the
		// HDF5 call that met it after; errors.Is(err, syscall.EIO) holds.
		// It says nothing of the file's content: ErrIO, not ErrCorrupt.
		if kind == ErrCorrupt {
			kind = ErrIO
		}
		if kind == nil {
			return fmt.Errorf("%s: %w (in %s)", what, e, call)
		}
		return fmt.Errorf("%w: %s: %w (in %s)", kind, what, e, call)
	}
	if kind != nil {
		return fmt.Errorf("%w: %s: %s", kind, what, msg)
	}
	return fmt.Errorf("%s: %s", what, msg)
}

// filterName finds the filter in libhdf5's "required filter 'lzf' is not
// registered".
var filterName = regexp.MustCompile(`required filter '([^']*)'`)

// neededVersion is the first HDF5 release that writes the structure whose
// version libhdf5 refused (lower is the error stack's text, lower case):
// selections of version 3 (as in virtual datasets' mappings) came with
// 1.12, layout messages of version 5 and virtual dataset heaps of version
// 1 with 2.0.
func neededVersion(lower string) string {
	switch {
	case strings.Contains(lower, "selection"):
		return "1.12"
	case strings.Contains(lower, "layout message"), strings.Contains(lower, "vds heap"):
		return "2.0"
	}
	return "1.12"
}

// lockedError: the open failed on another process's lock on the file.
func lockedError(what string) error {
	return fmt.Errorf("%w: %s: another process has the file open for writing, and HDF5 locks it against readers "+
		"until it closes it: wait for it, or have it open the file in SWMR mode; setting HDF5_USE_FILE_LOCKING=FALSE "+
		"skips the lock, but a fit may then read data the writer is changing (half-written samples, a garbled file)",
		ErrLocked, what)
}

// sysErrno finds the system error in the text of libhdf5's file drivers
// ("..., errno = 5, error message = 'Input/output error', ...").
var sysErrno = regexp.MustCompile(`errno = (\d+), error message`)

// osError returns the system error that an HDF5 error stack reports and
// the HDF5 API function that met it, or 0.
func osError(msg string) (syscall.Errno, string) {
	m := sysErrno.FindStringSubmatchIndex(msg)
	if m == nil {
		return 0, ""
	}
	n, err := strconv.Atoi(msg[m[2]:m[3]])
	if err != nil || n <= 0 {
		return 0, ""
	}
	call, _, _ := strings.Cut(msg, ":") // the API function
	return syscall.Errno(n), call
}

// cstr returns name as a C string that the caller frees with freeCString.
func cstr(name string) *C.char { return C.CString(name) }

func freeCString(s *C.char) { C.free(unsafe.Pointer(s)) }

// Errors wrapped by every failure, so that callers (the C API maps them to
// status codes) can tell the classes apart with errors.Is. The message of
// the returned error always names the file and, where there is one, the
// dataset.
var (
	// ErrNotExist: the file, or the dataset in it, does not exist.
	ErrNotExist = errors.New("not found")
	// ErrNotHDF5: the file is not an HDF5 file.
	ErrNotHDF5 = errors.New("not an HDF5 file")
	// ErrCorrupt: HDF5 could not read the file (truncated or corrupt).
	ErrCorrupt = errors.New("truncated or corrupt HDF5 file")
	// ErrType: the object is not a dataset, or its element type is not
	// one of the ten numeric types hdf5io reads.
	ErrType = errors.New("unsupported type")
	// ErrShape: the dataset's shape cannot hold samples (rank below 2,
	// zero samples, an empty mode), or does not match a model.
	ErrShape = errors.New("bad shape")
	// ErrFormat: a model file of another format or a newer version, or
	// with missing or inconsistent fields.
	ErrFormat = errors.New("not a readable sompca model file")
	// ErrExists: the output dataset exists and overwriting was not asked for.
	ErrExists = errors.New("already exists")
	// ErrIO: an operating-system or HDF5 failure while reading or writing.
	ErrIO = errors.New("I/O error")
	// ErrLink: a soft or external link whose target does not exist
	// (the message names the link and its target).
	ErrLink = errors.New("broken link")
	// ErrFilter: a dataset needs an HDF5 filter (compression) that
	// libhdf5 cannot load; the message names it and how to install it.
	ErrFilter = errors.New("missing HDF5 filter")
	// ErrLocked: another process holds the file open for writing (HDF5's
	// file lock).
	ErrLocked = errors.New("file locked by another process")
	// ErrPermission: the operating system refuses access to the file.
	ErrPermission = errors.New("permission denied")
	// ErrVersion: the file uses a format newer than this libhdf5 reads;
	// the message names the HDF5 version it needs.
	ErrVersion = errors.New("HDF5 file format too new")
)

// Error is the type of the errors hdf5io returns: what was being done to
// which file and object, and why it failed.
type Error struct {
	Op     string // "open", "read", "save model", ...
	Path   string // the file
	Object string // the dataset (or other object) in the file, if any
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hdf5io: %s %q", e.Op, e.Path)
	if e.Object != "" {
		fmt.Fprintf(&b, " dataset %q", e.Object)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// datasetName returns name as an absolute path inside the file: "X" and
// "/X" name the same dataset.
func datasetName(name string) string {
	if !strings.HasPrefix(name, "/") {
		return "/" + name
	}
	return name
}

// unsafePointer converts p for a C call; nil stays nil.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
