/*
 * helpers.c - the parts of the C interface written in C: version, static
 * error texts, the thread-local last-error buffer, and the trampoline that
 * calls a caller's progress function. These need no Go runtime.
 */
#include <string.h>
#include "capi.h"

/* Long enough for a message naming a file, a dataset and a shape; longer
 * messages are truncated, ending in "...". Global-dynamic TLS (the default
 * for -fPIC), so it also works when the library is dlopen'ed. */
#define SOMPCA_ERROR_CAP 2048

static _Thread_local char last_error[SOMPCA_ERROR_CAP];

int sompca_version_number(void) { return SOMPCA_VERSION_NUMBER; }

#define SOMPCA_STR2(x) #x
#define SOMPCA_STR(x) SOMPCA_STR2(x)

const char *sompca_version(void)
{
	return SOMPCA_STR(SOMPCA_VERSION_MAJOR) "." SOMPCA_STR(SOMPCA_VERSION_MINOR) "." SOMPCA_STR(
	    SOMPCA_VERSION_PATCH);
}

const char *sompca_errstr(int code)
{
	switch (code) {
	case SOMPCA_OK:
		return "success";
	case SOMPCA_EINVAL:
		return "invalid argument or option value";
	case SOMPCA_ESHAPE:
		return "shapes or sizes do not agree";
	case SOMPCA_ERANGE:
		return "output buffer too small";
	case SOMPCA_ENOTFITTED:
		return "NULL, freed or foreign model handle";
	case SOMPCA_EIO:
		return "file or HDF5 failure";
	case SOMPCA_ENOMEM:
		return "out of memory";
	case SOMPCA_EDATA:
		return "bad data (NaN or Inf, zero variance, too few samples)";
	case SOMPCA_ECANCELED:
		return "fit canceled by the progress callback";
	case SOMPCA_EINTERNAL:
		return "internal error in sompca (please report it)";
	}
	return "unknown status code";
}

const char *sompca_last_error(void) { return last_error; }

void sompca_capi_set_error(const char *msg, size_t len)
{
	if (len >= SOMPCA_ERROR_CAP) {
		static const char ellipsis[] = "...";
		len = SOMPCA_ERROR_CAP - sizeof ellipsis;
		/* Do not end inside a UTF-8 sequence: back up over continuation bytes. */
		while (len > 0 && ((unsigned char)msg[len] & 0xC0) == 0x80)
			len--;
		memcpy(last_error, msg, len);
		memcpy(last_error + len, ellipsis, sizeof ellipsis);
		return;
	}
	if (len > 0)
		memcpy(last_error, msg, len);
	last_error[len] = '\0';
}

void sompca_capi_clear_error(void) { last_error[0] = '\0'; }

int sompca_capi_call_progress(sompca_progress_fn fn, void *user, int done, int total,
                              double variance)
{
	return fn(user, done, total, variance);
}
