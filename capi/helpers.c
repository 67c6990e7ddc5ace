/*
 * helpers.c - the parts of the C interface written in C: version, static
 * error texts, the per-thread last-error buffer, and the trampoline that
 * calls a caller's progress function. These need no Go runtime.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"

/*
 * The last-error message of each thread lives in a heap buffer reached
 * through a pthread key (freed when the thread exits), not in a
 * _Thread_local array: the Go runtime marks libsompca.so STATIC_TLS, so
 * its whole TLS segment must fit glibc's small static-TLS surplus when the
 * library is dlopen'ed (Python's ctypes), and a 2 KB array does not.
 * Messages longer than the buffer are truncated, ending in "...".
 */
#define SOMPCA_ERROR_CAP 2048

/* keys[0]: the last error; keys[1]: the last warnings. */
static pthread_key_t keys[2];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;
static int keys_ok;
/* Set when this thread's message could not be stored (no memory). */
static _Thread_local int error_lost;
/* The calling thread's cancellation flag (sompca_cancel_flag), or NULL. */
static _Thread_local const volatile int *cancel_flag;

static void make_keys(void)
{
	keys_ok = pthread_key_create(&keys[0], free) == 0 && pthread_key_create(&keys[1], free) == 0;
}

/* This thread's buffer of kind which; allocated if create is set; NULL if there is none. */
static char *text_buffer(int which, int create)
{
	pthread_once(&keys_once, make_keys);
	if (!keys_ok)
		return NULL;
	char *buf = pthread_getspecific(keys[which]);
	if (buf == NULL && create) {
		buf = calloc(1, SOMPCA_ERROR_CAP);
		if (buf != NULL && pthread_setspecific(keys[which], buf) != 0) {
			free(buf);
			buf = NULL;
		}
	}
	return buf;
}

static char *error_buffer(int create) { return text_buffer(0, create); }

/* Copies len bytes of msg into buf (SOMPCA_ERROR_CAP bytes), truncated
 * with "..." and NUL-terminated. */
static void store_text(char *buf, const char *msg, size_t len)
{
	if (len >= SOMPCA_ERROR_CAP) {
		static const char ellipsis[] = "...";
		len = SOMPCA_ERROR_CAP - sizeof ellipsis;
		/* Do not end inside a UTF-8 sequence: back up over continuation bytes. */
		while (len > 0 && ((unsigned char)msg[len] & 0xC0) == 0x80)
			len--;
		memcpy(buf, msg, len);
		memcpy(buf + len, ellipsis, sizeof ellipsis);
		return;
	}
	if (len > 0)
		memcpy(buf, msg, len);
	buf[len] = '\0';
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
		return "NULL model handle";
	case SOMPCA_EIO:
		return "file or HDF5 failure";
	case SOMPCA_ENOMEM:
		return "out of memory";
	case SOMPCA_EDATA:
		return "bad data (NaN or Inf, zero variance, too few samples)";
	case SOMPCA_ECANCELED:
		return "fit canceled by the progress callback";
	case SOMPCA_EFORK:
		return "library used in a forked child (use it in the parent, or fork+exec)";
	case SOMPCA_EINTERNAL:
		return "internal error in sompca (please report it)";
	case SOMPCA_EHANDLE:
		return "freed or foreign model handle";
	case SOMPCA_ENUMERICAL:
		return "numerical failure (an eigensolver did not converge)";
	case SOMPCA_EFILE:
		return "invalid file content (not HDF5, corrupt, checksum mismatch, not a sompca model)";
	case SOMPCA_ENOTFOUND:
		return "file, dataset or group not found";
	case SOMPCA_ELINK:
		return "soft or external link to nothing";
	case SOMPCA_EFILTER:
		return "HDF5 filter not available (install its plugin)";
	case SOMPCA_ELOCKED:
		return "file locked by another process that writes it";
	case SOMPCA_EPERM:
		return "permission denied";
	case SOMPCA_ETYPE:
		return "unsupported object or element type";
	case SOMPCA_EVERSION:
		return "HDF5 file format newer than the library's libhdf5";
	}
	return "unknown status code";
}

const char *sompca_last_error(void)
{
	if (error_lost)
		return "sompca: out of memory for the error message";
	char *buf = error_buffer(0);
	return buf != NULL ? buf : "";
}

void sompca_capi_set_error(const char *msg, size_t len)
{
	char *buf = error_buffer(1);
	error_lost = buf == NULL;
	if (buf != NULL)
		store_text(buf, msg, len);
}

const char *sompca_last_warning(void)
{
	char *buf = text_buffer(1, 0);
	return buf != NULL ? buf : "";
}

void sompca_capi_set_warning(const char *msg, size_t len)
{
	char *buf = text_buffer(1, len > 0);
	if (buf != NULL)
		store_text(buf, msg, len);
}

void sompca_capi_clear_error(void)
{
	char *buf = error_buffer(0);
	error_lost = 0;
	if (buf != NULL)
		buf[0] = '\0';
}

int sompca_capi_call_progress(sompca_progress_fn fn, void *user, int done, int total,
                              double variance)
{
	return fn(user, done, total, variance);
}

int sompca_capi_call_read_progress(sompca_read_progress_fn fn, void *user, uint64_t bytes_read,
                                   uint64_t bytes_total)
{
	return fn(user, bytes_read, bytes_total);
}

void sompca_cancel_flag(const volatile int *flag) { cancel_flag = flag; }

const volatile int *sompca_capi_cancel_flag(void) { return cancel_flag; }

