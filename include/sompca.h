/*
 * sompca.h - the C interface of libsompca, Semi-Orthogonal Multilinear PCA
 * with Relaxed Start (Shi and Lu, IJCAI 2015) and its family.
 *
 * This header is hand-written and is the one public C contract of the
 * library (the header that `go build -buildmode=c-shared` generates is not
 * installed). C99, includable from C++.
 *
 * Conventions
 *   - Every function that can fail returns an int status: SOMPCA_OK (0) or
 *     one of the SOMPCA_E* codes below; new codes may be added in later
 *     versions, so treat any unknown non-zero value as a failure.
 *   - sompca_errstr(code) gives a static description of a code;
 *     sompca_last_error() gives the exact message of the last failure on
 *     the calling thread (file, dataset, shape, value).
 *   - Output parameters come first and are named out. Arrays are copied
 *     into caller buffers (dst, cap) where cap counts elements; a function
 *     tells the size needed. Nothing the caller passes is kept after a call
 *     returns, and the library never writes to input data.
 *   - Arrays are row-major (C order); samples are the first axis.
 *   - Modes are 0-based in this interface (the paper counts them from 1).
 *
 * Threading: distinct models may be used from different threads at once.
 * A fitted model is read-only: transforms and accessors on one model may
 * run concurrently; sompca_model_free must not race with other uses of
 * the same model. HDF5 calls are serialized inside the library.
 */
#ifndef SOMPCA_H
#define SOMPCA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SOMPCA_VERSION_MAJOR 0
#define SOMPCA_VERSION_MINOR 1
#define SOMPCA_VERSION_PATCH 0
#define SOMPCA_VERSION_NUMBER \
	(SOMPCA_VERSION_MAJOR * 10000 + SOMPCA_VERSION_MINOR * 100 + SOMPCA_VERSION_PATCH)

/* Status codes. */
#define SOMPCA_OK         0 /* success */
#define SOMPCA_EINVAL     1 /* invalid argument or option value */
#define SOMPCA_ESHAPE     2 /* shapes or sizes do not agree */
#define SOMPCA_ERANGE     3 /* caller buffer too small */
#define SOMPCA_ENOTFITTED 4 /* NULL, freed or foreign model handle */
#define SOMPCA_EIO        5 /* file or HDF5 failure */
#define SOMPCA_ENOMEM     6 /* out of memory */
#define SOMPCA_EDATA      7 /* bad data: NaN or Inf, zero variance */
#define SOMPCA_ECANCELED  8 /* the progress callback cancelled the fit */
#define SOMPCA_EINTERNAL  9 /* a bug in sompca: please report it */

/* Methods. */
#define SOMPCA_METHOD_SOMPCA 0
#define SOMPCA_METHOD_FOMPCA 1
#define SOMPCA_METHOD_TROD   2
#define SOMPCA_METHOD_UMPCA  3
#define SOMPCA_METHOD_PCA    4
#define SOMPCA_METHOD_MPCA   5
#define SOMPCA_METHOD_CSA    6

/* Element types of input arrays. */
#define SOMPCA_FLOAT64 0
#define SOMPCA_FLOAT32 1
#define SOMPCA_UINT8   2

/* Feature orders. */
#define SOMPCA_ORDER_VARIANCE   0
#define SOMPCA_ORDER_EXTRACTION 1

typedef struct sompca_model sompca_model;

typedef int (*sompca_progress_fn)(void *user, int done, int total, double variance);

typedef struct sompca_options {
	uint32_t size;         /* sizeof(sompca_options), set by sompca_options_init */
	int method;            /* SOMPCA_METHOD_* */
	int relaxed_start;     /* non-zero: relaxed start (TVP methods only) */
	int n_components;      /* P; 0 = the method's default */
	int mode;              /* SO-MPCA's nu, 0-based; -1 = argmax_n I_n */
	int max_iter;          /* sweeps K; 0 = 20 */
	double tol;            /* 0 = run all max_iter sweeps */
	int n_threads;         /* 0 = all cores */
	int feature_order;     /* SOMPCA_ORDER_* */
	double q;              /* MPCA/CSA kept fraction; 0 = 0.97 */
	sompca_progress_fn progress; /* may be NULL */
	void *progress_user;
} sompca_options;

int sompca_version_number(void);
const char *sompca_version(void);
const char *sompca_errstr(int code);
const char *sompca_last_error(void);

void sompca_options_init(sompca_options *opts);

int sompca_fit(sompca_model **out, const void *data, int dtype, size_t n_samples,
               size_t order, const size_t *shape, const sompca_options *opts);
int sompca_fit_hdf5(sompca_model **out, const char *path, const char *dataset,
                    int samples_last, const sompca_options *opts);

int sompca_transform_size(const sompca_model *model, size_t n_samples, size_t *out);
int sompca_transform(const sompca_model *model, double *dst, size_t cap,
                     const void *data, int dtype, size_t n_samples);
int sompca_transform_hdf5(const sompca_model *model, const char *in_path,
                          const char *in_dataset, int samples_last,
                          const char *out_path, const char *out_dataset, int overwrite);

int sompca_model_method(const sompca_model *model, int *out, int *out_relaxed_start);
int sompca_model_n_components(const sompca_model *model, size_t *out);
int sompca_model_order(const sompca_model *model, size_t *out);
int sompca_model_shape(const sompca_model *model, size_t *dst, size_t cap);
int sompca_model_mode(const sompca_model *model, int *out);
int sompca_model_n_samples(const sompca_model *model, size_t *out);
int sompca_model_mean(const sompca_model *model, double *dst, size_t cap);
int sompca_model_projection(const sompca_model *model, size_t mode, double *dst, size_t cap);
int sompca_model_variance(const sompca_model *model, double *dst, size_t cap);
int sompca_model_variance_ratio(const sompca_model *model, double *dst, size_t cap);
int sompca_model_extraction(const sompca_model *model, int64_t *dst, size_t cap);
int sompca_model_iterations(const sompca_model *model, int64_t *dst, size_t cap);
int sompca_model_history(const sompca_model *model, size_t feature, double *dst,
                         size_t cap, size_t *out_len);

int sompca_model_save(const sompca_model *model, const char *path);
int sompca_model_load(sompca_model **out, const char *path);
void sompca_model_free(sompca_model *model);

#ifdef __cplusplus
}
#endif
#endif /* SOMPCA_H */
