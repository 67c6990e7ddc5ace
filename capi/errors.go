package main

// #include "capi.h"
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/sompca/sompca/solver"
)

// statusError is an error with the status code it is reported as.
type statusError struct {
	code C.int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// errorf returns an error reported as code, with a formatted message.
func errorf(code C.int, format string, args ...any) error {
	return &statusError{code: code, err: fmt.Errorf(format, args...)}
}

// withCode reports err as code unless it already carries a code.
func withCode(code C.int, err error) error {
	if err == nil {
		return nil
	}
	var se *statusError
	if errors.As(err, &se) {
		return err
	}
	return &statusError{code: code, err: err}
}

// solverError classifies an error returned by the solver (Fit,
// TransformTo, Validate) by its kind.
func solverError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, solver.ErrCanceled):
		return withCode(C.SOMPCA_ECANCELED, err)
	case errors.Is(err, solver.ErrInvalid):
		return withCode(C.SOMPCA_EINVAL, err)
	case errors.Is(err, solver.ErrShape):
		return withCode(C.SOMPCA_ESHAPE, err)
	case errors.Is(err, solver.ErrNotFitted):
		return withCode(C.SOMPCA_ENOTFITTED, err)
	case errors.Is(err, solver.ErrMemory):
		return withCode(C.SOMPCA_ENOMEM, err)
	case errors.Is(err, solver.ErrSource):
		// Reading the samples failed: the source's own error decides.
		if code := fileCode(err); code != 0 {
			return withCode(code, err)
		}
		return withCode(C.SOMPCA_EIO, err)
	case errors.Is(err, solver.ErrNumerical):
		return withCode(C.SOMPCA_ENUMERICAL, err)
	}
	// solver.ErrData.
	return withCode(C.SOMPCA_EDATA, err)
}

// run runs the body of the export name: it clears the calling thread's
// last error on success, sets it to "name: message" on failure, and turns
// a panic into SOMPCA_EINTERNAL. Every status-returning export goes
// through run.
func run(name string, body func() error) (status C.int) {
	defer func() {
		if r := recover(); r != nil {
			status = setLastError(name, errorf(C.SOMPCA_EINTERNAL, "internal error (please report it): %v", r))
		}
	}()
	if name == panicIn {
		panic("test failpoint SOMPCA_TEST_PANIC_IN")
	}
	return setLastError(name, body())
}

// panicIn names an export that panics on every call, to test that panics
// are recovered (tests/c/test_capi.c --panic). It is read once, when the
// library loads, from the environment variable SOMPCA_TEST_PANIC_IN, and
// is empty in normal use.
var panicIn = os.Getenv("SOMPCA_TEST_PANIC_IN")

// recoverVoid, deferred by an export that returns no status, turns a
// panic into the calling thread's last error instead of a crash.
func recoverVoid(name string) {
	if r := recover(); r != nil {
		setLastError(name, errorf(C.SOMPCA_EINTERNAL, "internal error (please report it): %v", r))
	}
}

// setLastError records err as the calling thread's last error and returns
// its code; a nil err clears the last error and returns SOMPCA_OK.
func setLastError(name string, err error) C.int {
	if err == nil {
		C.sompca_capi_clear_error()
		return C.SOMPCA_OK
	}
	code := C.int(C.SOMPCA_EINTERNAL)
	var se *statusError
	if errors.As(err, &se) {
		code = se.code
	}
	msg := name + ": " + err.Error()
	// A Go pointer to pointer-free memory may be passed for the duration
	// of the call; sompca_capi_set_error copies it.
	C.sompca_capi_set_error((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
	return code
}
