// Command capi is the C interface of sompca: built with
// `go build -buildmode=c-shared` into libsompca.so, whose contract is the
// hand-written include/sompca.h (the header cgo generates is deleted).
//
// The package holds only //export wrappers and the bookkeeping they need;
// all the mathematics is in package solver and all file access in package
// hdf5io. Its invariants:
//
//   - No panic crosses the boundary: every export runs its body through
//     run, which recovers a panic into SOMPCA_EINTERNAL with the panic's
//     message. (The solver carries a panic of its worker goroutines to the
//     goroutine that called it, and offThread carries it here.)
//   - Solver work (fits, transforms) runs off the calling thread, on a
//     fresh goroutine (offThread): the export's goroutine is locked to the
//     C thread, and the solver's worker pool would otherwise switch OS
//     threads at every hand-over. The progress callback still runs on the
//     calling thread, as sompca.h promises.
//   - Nothing on the solver's hot paths calls into C: the caller's cancel
//     flag (sompca_cancel_flag), which the solver polls every leaf of a
//     pass and every Lanczos step, is read by an atomic load (cancel.go),
//     so a fit through C or Python runs the same code as in Go.
//   - C never holds a Go pointer: a model handle (and a fit session's,
//     session.go) is a C-allocated box
//     (struct sompca_model in capi.h) holding a runtime/cgo.Handle and a
//     magic number. Go never holds a C pointer after a call returns: the
//     caller's arrays are wrapped with unsafe.Slice (no copy) and the
//     progress function and its user pointer are used only during the
//     fit. The C test suite runs against a library built with
//     GOEXPERIMENT=cgocheck2 to check this.
//   - Handles are checked against a registry of live boxes before they are
//     dereferenced, so a freed or foreign pointer gets SOMPCA_EHANDLE
//     (NULL: SOMPCA_ENOTFITTED) rather than a crash (unless its address
//     has since been reused by a new model, which no scheme can detect).
//   - Errors: each status-returning export sets the calling thread's
//     last-error message on failure and clears it on success. The buffer
//     is per OS thread, behind a pthread key (helpers.c explains why not a
//     _Thread_local array: static TLS and dlopen). A cgo call from C runs
//     its Go code on the calling OS thread, so the message lands in the
//     caller's buffer even when several threads call the library at once.
//   - Fork: the Go runtime does not survive fork(), so the functions of
//     sompca.h that run Go code are C functions (guard.c) that return
//     SOMPCA_EFORK in a child forked after the library was loaded, and
//     otherwise call the Go export of the same name with sompca_go_ for
//     sompca_ (hidden from the library's exports).
//   - Codes: SOMPCA_EINVAL for NULL pointers and bad option values,
//     SOMPCA_ESHAPE for bad or disagreeing sizes, SOMPCA_ERANGE for a
//     caller buffer that is too small, SOMPCA_ENOTFITTED for a NULL
//     handle, SOMPCA_EHANDLE for a freed or foreign one, SOMPCA_EIO for a
//     file that cannot be read or written, SOMPCA_EFILE for a file whose
//     content is invalid (corrupt, checksum mismatch, not a model), the
//     HDF5 causes SOMPCA_ENOTFOUND ... SOMPCA_EVERSION (hdf5.go's
//     fileCode), SOMPCA_EDATA for data the solver rejects,
//     SOMPCA_ENUMERICAL when its eigensolvers fail, SOMPCA_ECANCELED when
//     the progress function stops a fit. A failed read during a fit is
//     solver.ErrSource wrapping hdf5io's error, classified by the latter.
//     See errors.go and hdf5.go for how solver and hdf5io errors are
//     classified.
package main
