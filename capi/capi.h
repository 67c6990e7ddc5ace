/*
 * capi.h - private declarations shared by the cgo preamble of package capi
 * and helpers.c. Not installed: include/sompca.h is the public contract.
 */
#ifndef SOMPCA_CAPI_H
#define SOMPCA_CAPI_H

#include <stdint.h>
#include <stdlib.h>
#include "sompca.h"

/*
 * The opaque handles: a C-allocated box, so C never holds a Go pointer.
 * handle is a runtime/cgo.Handle of the Go value (*solver.Model,
 * *solver.Session); magic says which kind of box it is while the box is
 * live and is 0 once freed (capi/handle.go).
 */
struct sompca_box {
	uint64_t magic;
	uintptr_t handle;
};

struct sompca_model {
	struct sompca_box box;
};

#define SOMPCA_MODEL_MAGIC UINT64_C(0x736f6d7063614d31) /* "sompcaM1" */

struct sompca_session {
	struct sompca_box box;
};

#define SOMPCA_SESSION_MAGIC UINT64_C(0x736f6d7063615331) /* "sompcaS1" */

/*
 * const-qualified aliases: cgo writes export prototypes from the Go
 * parameter types, and cannot spell const. Using these typedefs in the Go
 * signatures makes the generated prototypes agree with sompca.h.
 */
typedef const void sompca_cvoid;
typedef const double sompca_cdouble;
typedef const char sompca_cchar;
typedef const size_t sompca_csize;
typedef const sompca_model sompca_cmodel;
typedef const sompca_options sompca_coptions;

/* Internal helpers are not exported from libsompca.so. */
#define SOMPCA_INTERNAL __attribute__((visibility("hidden")))

/* Thread-local last error (helpers.c). len bytes of msg are copied,
 * truncated to the buffer; msg need not be NUL-terminated. */
SOMPCA_INTERNAL void sompca_capi_set_error(const char *msg, size_t len);
SOMPCA_INTERNAL void sompca_capi_clear_error(void);
/* Thread-local last warnings (helpers.c); len 0 clears them. */
SOMPCA_INTERNAL void sompca_capi_set_warning(const char *msg, size_t len);

/* The calling thread's flag set by sompca_cancel_flag (NULL if none); Go
 * polls it with atomic loads (capi/cancel.go, callerCancel). */
SOMPCA_INTERNAL const volatile int *sompca_capi_cancel_flag(void);

/* Calls a caller's progress function (Go cannot call a C function pointer). */
SOMPCA_INTERNAL int sompca_capi_call_progress(sompca_progress_fn fn, void *user, int done,
                              int total, double variance);
SOMPCA_INTERNAL int sompca_capi_call_read_progress(sompca_read_progress_fn fn, void *user,
                              uint64_t bytes_read, uint64_t bytes_total);

#endif /* SOMPCA_CAPI_H */
