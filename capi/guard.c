/*
 * guard.c - the exported functions of sompca.h that run Go code, written
 * in C so that they can refuse to enter the Go runtime in a forked child.
 *
 * The Go runtime does not survive fork(): the child has only the thread
 * that forked, while the runtime's other threads (and the locks, Ps and
 * GC state they held) are gone, so the first call into Go can hang for
 * ever. A pthread_atfork handler registered when the library loads sets
 * forked in the child, and from then on every function below returns
 * SOMPCA_EFORK with a message saying so and what to do, without entering
 * Go. (A copy of the library loaded after the fork, as the Python binding
 * does, has its own flag and works.)
 *
 * Each function forwards to the Go export of the same name with "sompca_"
 * replaced by "sompca_go_" (hidden by capi/libsompca.map). A new function
 * of sompca.h that runs Go code gets a line here; `make test-capi` checks
 * that every declared function is defined in C.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "capi.h"
#include "_cgo_export.h"

static atomic_int forked;

static void mark_forked(void) { atomic_store(&forked, 1); }

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, mark_forked);
}

/* Sets the calling thread's last error for a call made in a forked child
 * and returns SOMPCA_EFORK. Only C code: safe in the child. */
static int fork_error(const char *name)
{
	static const char text[] =
	    ": the process forked after libsompca was loaded, and the Go runtime inside it does not "
	    "survive fork; use sompca in the parent, or start workers that exec a new program "
	    "(posix_spawn, fork+exec; Python multiprocessing: the 'spawn' or 'forkserver' start method)";
	char msg[512];
	size_t n = strlen(name);
	if (n > sizeof msg - sizeof text)
		n = sizeof msg - sizeof text;
	memcpy(msg, name, n);
	memcpy(msg + n, text, sizeof text);
	sompca_capi_set_error(msg, n + sizeof text - 1);
	return SOMPCA_EFORK;
}

/* int sompca_<name>(params) forwarding args to sompca_go_<name>. */
#define GUARDED(name, params, args)                            \
	int sompca_##name params                               \
	{                                                      \
		if (atomic_load(&forked))                      \
			return fork_error("sompca_" #name);    \
		return sompca_go_##name args;                  \
	}

/* The same for a function whose first parameter is an out pointer to a
 * new model, set to NULL on failure. */
#define GUARDED_NEW(name, params, args)                        \
	int sompca_##name params                               \
	{                                                      \
		if (atomic_load(&forked)) {                    \
			if (out != NULL)                       \
				*out = NULL;                   \
			return fork_error("sompca_" #name);    \
		}                                              \
		return sompca_go_##name args;                  \
	}

GUARDED_NEW(fit, (sompca_model **out, const void *data, int dtype, size_t n_samples, size_t order,
                  const size_t *shape, const sompca_options *opts),
            (out, data, dtype, n_samples, order, shape, opts))
GUARDED_NEW(fit_strided, (sompca_model **out, const void *data, int dtype, size_t n_samples, size_t sample_stride,
                          size_t order, const size_t *shape, const sompca_options *opts),
            (out, data, dtype, n_samples, sample_stride, order, shape, opts))
GUARDED_NEW(fit_hdf5, (sompca_model **out, const char *path, const char *dataset, int samples_last,
                       const sompca_options *opts),
            (out, path, dataset, samples_last, opts))
GUARDED_NEW(model_load, (sompca_model **out, const char *path), (out, path))
GUARDED_NEW(model_deserialize, (sompca_model **out, const void *buf, size_t len), (out, buf, len))

GUARDED(method_from_name, (const char *name, int *out_method, int *out_relaxed_start),
        (name, out_method, out_relaxed_start))
GUARDED(options_defaults, (int method, sompca_options *out), (method, out))
GUARDED(transform_size, (const sompca_model *model, size_t n_samples, size_t *out), (model, n_samples, out))
GUARDED(transform, (const sompca_model *model, double *dst, size_t cap, const void *data, int dtype,
                    size_t n_samples),
        (model, dst, cap, data, dtype, n_samples))
GUARDED(transform_strided, (const sompca_model *model, double *dst, size_t cap, const void *data, int dtype,
                            size_t n_samples, size_t sample_stride),
        (model, dst, cap, data, dtype, n_samples, sample_stride))
GUARDED(inverse_transform, (const sompca_model *model, double *dst, size_t cap, const double *features,
                            size_t n_samples),
        (model, dst, cap, features, n_samples))
GUARDED(transform_hdf5, (const sompca_model *model, const char *in_path, const char *in_dataset,
                         int samples_last, const char *out_path, const char *out_dataset, int overwrite),
        (model, in_path, in_dataset, samples_last, out_path, out_dataset, overwrite))
GUARDED(model_method, (const sompca_model *model, int *out, int *out_relaxed_start),
        (model, out, out_relaxed_start))
GUARDED(model_n_components, (const sompca_model *model, size_t *out), (model, out))
GUARDED(model_order, (const sompca_model *model, size_t *out), (model, out))
GUARDED(model_shape, (const sompca_model *model, size_t *dst, size_t cap), (model, dst, cap))
GUARDED(model_mode, (const sompca_model *model, int *out), (model, out))
GUARDED(model_feature_modes, (const sompca_model *model, int64_t *dst, size_t cap), (model, dst, cap))
GUARDED(model_n_samples, (const sompca_model *model, size_t *out), (model, out))
GUARDED(model_mean, (const sompca_model *model, double *dst, size_t cap), (model, dst, cap))
GUARDED(model_projection, (const sompca_model *model, size_t mode, double *dst, size_t cap),
        (model, mode, dst, cap))
GUARDED(model_variance, (const sompca_model *model, double *dst, size_t cap), (model, dst, cap))
GUARDED(model_variance_ratio, (const sompca_model *model, double *dst, size_t cap), (model, dst, cap))
GUARDED(model_extraction, (const sompca_model *model, int64_t *dst, size_t cap), (model, dst, cap))
GUARDED(model_iterations, (const sompca_model *model, int64_t *dst, size_t cap), (model, dst, cap))
GUARDED(model_history, (const sompca_model *model, size_t feature, double *dst, size_t cap, size_t *out_len),
        (model, feature, dst, cap, out_len))
GUARDED(model_options, (const sompca_model *model, sompca_options *out), (model, out))
GUARDED(model_ranks, (const sompca_model *model, size_t *dst, size_t cap), (model, dst, cap))
GUARDED(model_save, (const sompca_model *model, const char *path), (model, path))
GUARDED(model_serialize, (const sompca_model *model, void *buf, size_t cap, size_t *out_len),
        (model, buf, cap, out_len))

GUARDED_NEW(session_begin, (sompca_session **out, size_t n_samples, size_t order, const size_t *shape,
                            const sompca_options *opts),
            (out, n_samples, order, shape, opts))
GUARDED(session_next, (sompca_session *session, int *out_more), (session, out_more))
GUARDED(session_request, (sompca_session *session, size_t first, size_t n_samples, void *dst, size_t cap,
                          size_t *out_len),
        (session, first, n_samples, dst, cap, out_len))
GUARDED(pass_info, (const void *request, size_t request_len, size_t *out_partial, size_t *out_cache,
                    size_t *out_first, size_t *out_n),
        (request, request_len, out_partial, out_cache, out_first, out_n))
GUARDED(pass_partial, (void *dst, size_t cap, size_t *out_len, const void *request, size_t request_len,
                       const void *data, int dtype, double *cache, size_t cache_cap),
        (dst, cap, out_len, request, request_len, data, dtype, cache, cache_cap))
GUARDED(partials_join, (void *dst, size_t cap, size_t *out_len, const void *request, size_t request_len,
                        const void *const *partials, const size_t *lens, size_t count),
        (dst, cap, out_len, request, request_len, (sompca_cvoid **)partials, lens, count))
GUARDED(session_feed, (sompca_session *session, size_t first, size_t n_samples, const void *partial, size_t len),
        (session, first, n_samples, partial, len))

int sompca_session_finish(sompca_session *session, sompca_model **out)
{
	if (atomic_load(&forked)) {
		if (out != NULL)
			*out = NULL;
		return fork_error("sompca_session_finish");
	}
	return sompca_go_session_finish(session, out);
}

void sompca_session_free(sompca_session *session)
{
	if (session == NULL)
		return;
	if (atomic_load(&forked)) {
		fork_error("sompca_session_free");
		return;
	}
	sompca_go_session_free(session);
}

/* NULL in a forked child (the names live in the Go runtime). */
const char *sompca_method_name(int method, int relaxed_start)
{
	if (atomic_load(&forked))
		return NULL;
	return sompca_go_method_name(method, relaxed_start);
}

/* In a forked child these two do nothing: sompca_options_init leaves
 * *opts alone (any later call fails anyway), sompca_model_free leaves the
 * model (its memory belongs to the parent's runtime) and records why in
 * the last error. */
void sompca_options_init(sompca_options *opts)
{
	if (atomic_load(&forked))
		return; /* does not change the last error, as documented */
	sompca_go_options_init(opts);
}

void sompca_model_free(sompca_model *model)
{
	if (model == NULL)
		return;
	if (atomic_load(&forked)) {
		fork_error("sompca_model_free");
		return;
	}
	sompca_go_model_free(model);
}
