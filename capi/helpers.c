/*
 * helpers.c - the parts of the C interface written in C: version, static
 * error texts, the thread-local last-error buffer, and the trampoline that
 * calls a caller's progress function. These need no Go runtime.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"

/* Long enough for a message naming a file, a dataset and a shape; longer
 * messages are truncated, ending in "...".
 *
 * The buffer is per thread, but not a _Thread_local array: a Go c-shared
 * library is linked with the initial-exec TLS model (STATIC_TLS), so all
 * of its TLS must fit in the small static TLS surplus that glibc keeps for
 * dlopen'ed libraries (about 1.6 KB), and a 2 KB array made dlopen from
 * Python fail with "cannot allocate memory in static TLS block". A
 * pthread key costs no TLS; each thread's buffer is allocated on first use
 * and freed when the thread exits. */
#define SOMPCA_ERROR_CAP 2048

static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;
static int error_key_ok;

static void make_error_key(void) { error_key_ok = pthread_key_create(&error_key, free) == 0; }

/* error_buffer returns the calling thread's buffer, allocating it when
 * create is non-zero; NULL when there is none. */
static char *error_buffer(int create)
{
	pthread_once(&error_once, make_error_key);
	if (!error_key_ok)
		return NULL;
	char *buf = pthread_getspecific(error_key);
	if (buf == NULL && create) {
		buf = calloc(1, SOMPCA_ERROR_CAP);
		if (buf != NULL && pthread_setspecific(error_key, buf) != 0) {
			free(buf);
			buf = NULL;
		}
	}
	return buf;
}

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

const char *sompca_last_error(void)
{
	const char *buf = error_buffer(0);
	return buf != NULL ? buf : "";
}

void sompca_capi_set_error(const char *msg, size_t len)
{
	char *last_error = error_buffer(1);
	if (last_error == NULL)
		return; /* out of memory: sompca_last_error() then gives "" */
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

void sompca_capi_clear_error(void)
{
	char *last_error = error_buffer(0);
	if (last_error != NULL)
		last_error[0] = '\0';
}

int sompca_capi_call_progress(sompca_progress_fn fn, void *user, int done, int total,
                              double variance)
{
	return fn(user, done, total, variance);
}
