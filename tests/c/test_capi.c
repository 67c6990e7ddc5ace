/*
 * test_capi.c - the C test of libsompca: every function of sompca.h, every
 * status code the caller can provoke, concurrent use from pthreads, and
 * equality with the Go API, and fit sessions driven block by block.
 *
 * Usage: test_capi GODIR TMPDIR
 *   GODIR  the output of tests/c/gofeatures (data.u8, cases.txt,
 *          features_*.bin): the features the Go API computes.
 *   TMPDIR a directory for the HDF5 files the test writes.
 * Or:    test_capi --panic   (run with SOMPCA_TEST_PANIC_IN=sompca_model_n_samples)
 * Or:    test_capi --file-size-limit EMPTYDIR   (run under ulimit -f 64)
 * Or:    test_capi --check-example DATA.h5 DATASET MODEL.h5 FEATURES.h5 STDOUT
 *        checks the files and output of examples/c/fit_hdf5.
 *
 * Expected values come from identities (captured variance = sample
 * variance of a training feature; explained ratios = variance over the
 * trace of the covariance, computed here by hand; unit-norm projections),
 * from the Go API's own output (gofeatures), or from another path through
 * the library that must agree (float32/uint8 vs float64 input, HDF5 vs
 * memory, save/load round trip, serial vs threaded).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "h5data.h"
#include "sompca.h"

#define M 24 /* samples in GODIR/data.u8 */
#define I0 5
#define I1 4
#define I2 3
#define SIZE (I0 * I1 * I2)

static const size_t shape3[3] = {I0, I1, I2};
static uint8_t data_u8[M * SIZE];
static double data_f64[M * SIZE];
static float data_f32[M * SIZE];
static const char *tmpdir;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	CHECK_MSG(p != NULL, "malloc(%zu)", n);
	return p;
}

static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CHECK_MSG(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *buf = xmalloc((size_t)n);
	CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const void *data_of(int dtype)
{
	return dtype == SOMPCA_FLOAT64 ? (const void *)data_f64
	       : dtype == SOMPCA_FLOAT32 ? (const void *)data_f32
	                                 : (const void *)data_u8;
}

/* Fits the test data with a method and returns the model. */
static sompca_model *fit_with(int method, int relaxed, int n_components, int dtype)
{
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = method;
	opts.relaxed_start = relaxed;
	opts.n_components = n_components;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, data_of(dtype), dtype, M, 3, shape3, &opts));
	CHECK(model != NULL);
	return model;
}

static size_t n_components(const sompca_model *model)
{
	size_t p = 0;
	CHECK_OK(sompca_model_n_components(model, &p));
	return p;
}

/* Transforms the test data; the caller frees the result. */
static double *features_of(const sompca_model *model, int dtype)
{
	size_t need = 0;
	CHECK_OK(sompca_transform_size(model, M, &need));
	CHECK(need == M * n_components(model));
	double *z = xmalloc(need * sizeof *z);
	CHECK_OK(sompca_transform(model, z, need, data_of(dtype), dtype, M));
	return z;
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
	double d = 0;
	for (size_t i = 0; i < n; i++)
		d = fmax(d, fabs(a[i] - b[i]));
	return d;
}

static double max_abs(const double *a, size_t n)
{
	double d = 0;
	for (size_t i = 0; i < n; i++)
		d = fmax(d, fabs(a[i]));
	return d;
}

static void test_version(void)
{
	CHECK(sompca_version_number() == SOMPCA_VERSION_NUMBER);
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", SOMPCA_VERSION_MAJOR, SOMPCA_VERSION_MINOR,
	         SOMPCA_VERSION_PATCH);
	CHECK_MSG(strcmp(sompca_version(), want) == 0, "version %s, want %s", sompca_version(), want);
}

static void test_errstr(void)
{
	static const int codes[] = {SOMPCA_OK, SOMPCA_EINVAL, SOMPCA_ESHAPE, SOMPCA_ERANGE, SOMPCA_ENOTFITTED,
	                            SOMPCA_EIO, SOMPCA_ENOMEM, SOMPCA_EDATA, SOMPCA_ECANCELED, SOMPCA_EINTERNAL,
	                            SOMPCA_EHANDLE, SOMPCA_ENUMERICAL, SOMPCA_EFILE, SOMPCA_ENOTFOUND, SOMPCA_ELINK,
	                            SOMPCA_EFILTER, SOMPCA_ELOCKED, SOMPCA_EPERM, SOMPCA_ETYPE, SOMPCA_EVERSION};
	const size_t ncodes = sizeof codes / sizeof codes[0];
	for (size_t i = 0; i < ncodes; i++) {
		const char *s = sompca_errstr(codes[i]);
		CHECK(s != NULL && s[0] != '\0' && !contains(s, "unknown"));
		for (size_t j = 0; j < i; j++)
			CHECK_MSG(strcmp(s, sompca_errstr(codes[j])) != 0, "codes %d and %d share a text", codes[i],
			          codes[j]);
	}
	CHECK(contains(sompca_errstr(SOMPCA_EFORK), "fork"));
	CHECK(strcmp(sompca_errstr(SOMPCA_OK), "success") == 0);
	CHECK(strcmp(sompca_errstr(-1), "unknown status code") == 0);
	CHECK(strcmp(sompca_errstr(1000), "unknown status code") == 0);
}

static void test_options_init(void)
{
	sompca_options opts;
	memset(&opts, 0x5a, sizeof opts);
	sompca_options_init(&opts);
	CHECK(opts.size == sizeof(sompca_options));
	CHECK(opts.method == SOMPCA_METHOD_SOMPCA);
	CHECK(opts.relaxed_start == -1); /* the method's default */
	CHECK(opts.n_components == 0);
	CHECK(opts.mode == -1);
	CHECK(opts.max_iter == 0);
	CHECK(opts.tol == 0);
	CHECK(opts.n_threads == 0);
	CHECK(opts.feature_order == SOMPCA_ORDER_VARIANCE);
	CHECK(opts.q == 0);
	CHECK(opts.progress == NULL && opts.progress_user == NULL);
	sompca_options_init(NULL); /* a no-op, must not crash */

	/* NULL options mean the defaults: same features as an initialized struct. */
	sompca_model *a = NULL, *b = NULL;
	CHECK_OK(sompca_fit(&a, data_f64, SOMPCA_FLOAT64, M, 3, shape3, NULL));
	CHECK_OK(sompca_fit(&b, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	double *za = features_of(a, SOMPCA_FLOAT64), *zb = features_of(b, SOMPCA_FLOAT64);
	CHECK(n_components(a) == n_components(b));
	CHECK(memcmp(za, zb, M * n_components(a) * sizeof(double)) == 0);
	free(za);
	free(zb);
	/* ... and the method's default is relaxed start for SO-MPCA. */
	int method = -1, relaxed = -1;
	CHECK_OK(sompca_model_method(a, &method, &relaxed));
	CHECK(method == SOMPCA_METHOD_SOMPCA && relaxed == 1);
	sompca_model_free(a);
	sompca_model_free(b);

	/* A larger struct from a later header is accepted (its tail ignored). */
	struct {
		sompca_options v1;
		char later_fields[64];
	} bigger;
	memset(&bigger, 0, sizeof bigger);
	sompca_options_init(&bigger.v1);
	bigger.v1.size = sizeof bigger;
	CHECK_OK(sompca_fit(&a, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &bigger.v1));
	sompca_model_free(a);
}

/*
 * The table of defaults, as the paper gives it (Shi and Lu 2015: K = 20
 * sweeps, all run, relaxed start proposed for SO-MPCA and FO-MPCA; Q = 97%
 * for MPCA and CSA, Lu et al. 2008). solver's TestDefaults and Python's
 * test_defaults compare their surfaces with the same table.
 */
static void test_options_defaults(void)
{
	static const int relaxed[] = {1, 1, 0, 0, 0, 0, 0}; /* SOMPCA .. CSA */
	for (int m = SOMPCA_METHOD_SOMPCA; m <= SOMPCA_METHOD_CSA; m++) {
		sompca_options d;
		memset(&d, 0x5a, sizeof d);
		CHECK_OK(sompca_options_defaults(m, &d));
		CHECK(d.size == sizeof(sompca_options));
		CHECK(d.method == m && d.relaxed_start == relaxed[m]);
		CHECK(d.n_components == 0 && d.mode == -1 && d.max_iter == 20 && d.tol == 0);
		CHECK(d.q == 0.97 && d.feature_order == SOMPCA_ORDER_VARIANCE && d.n_threads == 0);
		CHECK(d.progress == NULL && d.progress_user == NULL);
	}
	sompca_options d;
	CHECK_STATUS(sompca_options_defaults(SOMPCA_METHOD_CSA + 1, &d), SOMPCA_EINVAL);
	CHECK(strstr(sompca_last_error(), "method is 7") != NULL);
	CHECK_STATUS(sompca_options_defaults(SOMPCA_METHOD_SOMPCA, NULL), SOMPCA_EINVAL);

	/* relaxed_start = -1 takes the method's default; below -1 is refused. */
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_UMPCA;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	int method = -1, rs = -1;
	CHECK_OK(sompca_model_method(model, &method, &rs));
	CHECK(method == SOMPCA_METHOD_UMPCA && rs == 0);
	sompca_model_free(model);
	opts.relaxed_start = -2;
	CHECK_STATUS(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_EINVAL);
	CHECK(strstr(sompca_last_error(), "opts->relaxed_start is -2") != NULL);
}

/*
 * The method names of sompca.h's comment, each read back to its method
 * and relaxed start, and written out again by sompca_method_name.
 */
static void test_method_names(void)
{
	static const struct {
		const char *name;
		int method, relaxed_start;
	} names[] = {
	    {"so-mpca", SOMPCA_METHOD_SOMPCA, 0}, {"so-mpca-rs", SOMPCA_METHOD_SOMPCA, 1},
	    {"fo-mpca", SOMPCA_METHOD_FOMPCA, 0}, {"fo-mpca-rs", SOMPCA_METHOD_FOMPCA, 1},
	    {"trod", SOMPCA_METHOD_TROD, 0},      {"trod-rs", SOMPCA_METHOD_TROD, 1},
	    {"umpca", SOMPCA_METHOD_UMPCA, 0},    {"umpca-rs", SOMPCA_METHOD_UMPCA, 1},
	    {"pca", SOMPCA_METHOD_PCA, 0},        {"mpca", SOMPCA_METHOD_MPCA, 0},
	    {"csa", SOMPCA_METHOD_CSA, 0},
	};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		int method = -1, rs = -1;
		CHECK_OK(sompca_method_from_name(names[k].name, &method, &rs));
		CHECK_MSG(method == names[k].method && rs == names[k].relaxed_start, "%s: %d %d", names[k].name,
		          method, rs);
		const char *back = sompca_method_name(method, rs);
		CHECK_MSG(back != NULL && strcmp(back, names[k].name) == 0, "%s: named back %s", names[k].name,
		          back ? back : "NULL");
	}
	/* Case, '_' and the aliases; out_relaxed_start may be NULL. */
	int method = -1, rs = -1;
	CHECK_OK(sompca_method_from_name("SO_MPCA_RS", &method, &rs));
	CHECK(method == SOMPCA_METHOD_SOMPCA && rs == 1);
	CHECK_OK(sompca_method_from_name("fompca", &method, NULL));
	CHECK(method == SOMPCA_METHOD_FOMPCA);
	/* A method without relaxed start ignores it when named. */
	CHECK(strcmp(sompca_method_name(SOMPCA_METHOD_PCA, 1), "pca") == 0);
	/* Unknown: EINVAL naming the known names; no name for a bad code. */
	CHECK_STATUS(sompca_method_from_name("mpca-rs", &method, &rs), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_method_from_name("tucker", &method, &rs), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "tucker") && contains(sompca_last_error(), "so-mpca-rs"));
	CHECK_STATUS(sompca_method_from_name(NULL, &method, &rs), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_method_from_name("pca", NULL, &rs), SOMPCA_EINVAL);
	CHECK(sompca_method_name(-1, 0) == NULL && sompca_method_name(SOMPCA_METHOD_CSA + 1, 0) == NULL);
}

/* Mean and total variance of the test data, computed here by hand. */
static void data_moments(double mean[SIZE], double *total_variance)
{
	double total = 0;
	for (int e = 0; e < SIZE; e++) {
		double s = 0;
		for (int m = 0; m < M; m++)
			s += data_f64[m * SIZE + e];
		mean[e] = s / M;
		double ss = 0;
		for (int m = 0; m < M; m++) {
			double d = data_f64[m * SIZE + e] - mean[e];
			ss += d * d;
		}
		total += ss / (M - 1);
	}
	*total_variance = total;
}

static void test_accessors(void)
{
	/* SO-MPCA-RS with the defaults: nu = argmax I_n = mode 0, P = I_0. */
	sompca_model *model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 0, SOMPCA_FLOAT64);
	int method = -1, relaxed = -1, mode = -2;
	CHECK_OK(sompca_model_method(model, &method, &relaxed));
	CHECK(method == SOMPCA_METHOD_SOMPCA && relaxed == 1);
	CHECK_OK(sompca_model_method(model, &method, NULL));
	CHECK_OK(sompca_model_mode(model, &mode));
	CHECK(mode == 0);
	size_t p = n_components(model), order = 0, n = 0;
	CHECK(p == I0);
	CHECK_OK(sompca_model_order(model, &order));
	CHECK(order == 3);
	CHECK_OK(sompca_model_n_samples(model, &n));
	CHECK(n == M);
	size_t shape[4] = {0, 0, 0, 99};
	CHECK_OK(sompca_model_shape(model, shape, 4));
	CHECK(shape[0] == I0 && shape[1] == I1 && shape[2] == I2 && shape[3] == 99);

	/* The options it was fitted with, the defaults filled in (K = 20). */
	sompca_options fitted;
	memset(&fitted, 0xff, sizeof fitted);
	CHECK_OK(sompca_model_options(model, &fitted));
	CHECK(fitted.size == sizeof fitted && fitted.method == SOMPCA_METHOD_SOMPCA);
	CHECK(fitted.relaxed_start == 1 && fitted.n_components == (int)I0 && fitted.mode == 0);
	CHECK(fitted.max_iter == 20 && fitted.tol == 0 && fitted.n_threads == 0 && fitted.q == 0.97);
	CHECK(fitted.feature_order == SOMPCA_ORDER_VARIANCE && fitted.progress == NULL);
	CHECK_STATUS(sompca_model_options(model, NULL), SOMPCA_EINVAL);
	size_t ranks[3];
	CHECK_STATUS(sompca_model_ranks(model, ranks, 3), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "no mode ranks"));

	/* The mean is the data's mean; ratios are variance over the trace of
	 * the covariance (both computed by hand above). */
	double mean[SIZE], want_mean[SIZE], total;
	data_moments(want_mean, &total);
	CHECK_OK(sompca_model_mean(model, mean, SIZE));
	CHECK(max_abs_diff(mean, want_mean, SIZE) <= 1e-12 * max_abs(want_mean, SIZE));
	double variance[I0], ratio[I0];
	CHECK_OK(sompca_model_variance(model, variance, p));
	CHECK_OK(sompca_model_variance_ratio(model, ratio, p));
	double ratio_sum = 0;
	for (size_t j = 0; j < p; j++) {
		CHECK_MSG(fabs(ratio[j] - variance[j] / total) <= 1e-12 * ratio[j], "feature %zu", j);
		if (j > 0)
			CHECK(variance[j] <= variance[j - 1]); /* ordered by variance */
		ratio_sum += ratio[j];
	}
	CHECK(ratio_sum > 0 && ratio_sum <= 1 + 1e-12);

	/* Captured variance = the sample variance of the training feature
	 * (the definition S_p/(M-1) of the model's Variance). */
	double *z = features_of(model, SOMPCA_FLOAT64);
	for (size_t j = 0; j < p; j++) {
		double s = 0, ss = 0;
		for (int m = 0; m < M; m++)
			s += z[m * p + j];
		for (int m = 0; m < M; m++)
			ss += (z[m * p + j] - s / M) * (z[m * p + j] - s / M);
		CHECK_MSG(fabs(ss / (M - 1) - variance[j]) <= 1e-9 * variance[j],
		          "feature %zu: sample variance %.17g, model %.17g", j, ss / (M - 1), variance[j]);
	}
	free(z);

	/* Projections: I_n x P, unit-norm columns; orthogonal in mode nu = 0. */
	for (size_t k = 0; k < 3; k++) {
		double u[I0 * I0];
		CHECK_OK(sompca_model_projection(model, k, u, shape3[k] * p));
		for (size_t a = 0; a < p; a++) {
			for (size_t b = 0; b <= a; b++) {
				double dot = 0;
				for (size_t r = 0; r < shape3[k]; r++)
					dot += u[r * p + a] * u[r * p + b];
				if (a == b)
					CHECK_MSG(fabs(dot - 1) <= 1e-10, "mode %zu column %zu norm^2 %g", k, a, dot);
				else if (k == 0)
					CHECK_MSG(fabs(dot) <= 1e-10, "mode 0 columns %zu, %zu: dot %g", a, b, dot);
			}
		}
	}

	/* Extraction is a permutation; iterations and history agree. */
	int64_t extraction[I0], iterations[I0];
	CHECK_OK(sompca_model_extraction(model, extraction, p));
	CHECK_OK(sompca_model_iterations(model, iterations, p));
	int seen[I0] = {0};
	for (size_t j = 0; j < p; j++) {
		CHECK(extraction[j] >= 0 && extraction[j] < (int64_t)p);
		seen[extraction[j]]++;
		size_t len = 99;
		CHECK_OK(sompca_model_history(model, j, NULL, 0, &len));
		CHECK_MSG(len == (size_t)iterations[j] + 1, "feature %zu: history %zu, iterations %lld", j,
		          len, (long long)iterations[j]);
		double history[64];
		size_t len2 = 0;
		CHECK(len <= 64);
		CHECK_OK(sompca_model_history(model, j, history, 64, &len2));
		CHECK(len2 == len);
		if (extraction[j] == 0)
			CHECK(iterations[j] == 0); /* relaxed start fixes the first EMP */
		if (len >= 2) {
			CHECK_STATUS(sompca_model_history(model, j, history, len - 1, &len2), SOMPCA_ERANGE);
			CHECK(len2 == len);
		}
	}
	for (size_t j = 0; j < p; j++)
		CHECK(seen[j] == 1);
	sompca_model_free(model);

	/* PCA: mode is -1 (n/a); one projection matrix of prod I_n rows; no history. */
	model = fit_with(SOMPCA_METHOD_PCA, 0, 4, SOMPCA_FLOAT64);
	CHECK_OK(sompca_model_mode(model, &mode));
	CHECK(mode == -1);
	CHECK_OK(sompca_model_method(model, &method, &relaxed));
	CHECK(method == SOMPCA_METHOD_PCA && relaxed == 0);
	double *u = xmalloc(SIZE * 4 * sizeof *u);
	CHECK_OK(sompca_model_projection(model, 0, u, SIZE * 4));
	CHECK_STATUS(sompca_model_projection(model, 1, u, SIZE * 4), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "mode is 1"));
	CHECK_STATUS(sompca_model_projection(model, 0, u, SIZE * 4 - 1), SOMPCA_ERANGE);
	free(u);
	size_t len = 99;
	CHECK_OK(sompca_model_history(model, 0, NULL, 0, &len));
	CHECK(len == 0);
	sompca_model_free(model);

	/* MPCA: N projection matrices; no per-feature history. */
	model = fit_with(SOMPCA_METHOD_MPCA, 0, 0, SOMPCA_FLOAT64);
	CHECK_OK(sompca_model_mode(model, &mode));
	CHECK(mode == -1);
	p = n_components(model);
	CHECK(p >= 1 && p <= SIZE);
	u = xmalloc(I0 * p * sizeof *u);
	CHECK_OK(sompca_model_projection(model, 0, u, I0 * p));
	CHECK_STATUS(sompca_model_projection(model, 3, u, I0 * p), SOMPCA_EINVAL);
	free(u);
	/* All prod_n P_n entries of the projected tensor are features by default. */
	size_t mranks[3] = {0, 0, 0};
	CHECK_OK(sompca_model_ranks(model, mranks, 3));
	CHECK(mranks[0] >= 1 && mranks[0] <= I0 && mranks[1] >= 1 && mranks[1] <= I1 && mranks[2] >= 1 && mranks[2] <= I2);
	CHECK(mranks[0] * mranks[1] * mranks[2] == p);
	CHECK_STATUS(sompca_model_ranks(model, mranks, 2), SOMPCA_ERANGE);
	CHECK_OK(sompca_model_options(model, &fitted));
	CHECK(fitted.method == SOMPCA_METHOD_MPCA && fitted.mode == -1 && fitted.n_components == (int)p);
	len = 99;
	CHECK_OK(sompca_model_history(model, p - 1, NULL, 0, &len));
	CHECK(len == 0);
	sompca_model_free(model);
}

/* The same data as float32 and uint8, read in place, gives the float64 features. */
static void test_dtypes(void)
{
	sompca_model *ref = fit_with(SOMPCA_METHOD_SOMPCA, 1, 0, SOMPCA_FLOAT64);
	double *want = features_of(ref, SOMPCA_FLOAT64);
	size_t p = n_components(ref);
	for (int dtype = SOMPCA_FLOAT32; dtype <= SOMPCA_UINT8; dtype++) {
		sompca_model *model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 0, dtype);
		double *got = features_of(model, dtype);
		/* Same values, same arithmetic: expect agreement to rounding. */
		CHECK_MSG(max_abs_diff(got, want, M * p) <= 1e-9 * max_abs(want, M * p), "dtype %d", dtype);
		/* A model fitted on one dtype transforms another. */
		double *cross = features_of(ref, dtype);
		CHECK(max_abs_diff(cross, want, M * p) <= 1e-12 * max_abs(want, M * p));
		free(cross);
		free(got);
		sompca_model_free(model);
	}
	/* The input was never written to. */
	for (int i = 0; i < M * SIZE; i++)
		CHECK_MSG(data_f64[i] == data_u8[i] && data_f32[i] == data_u8[i], "element %d", i);
	/* Transforming 0 samples writes nothing and succeeds, even with NULL buffers. */
	CHECK_OK(sompca_transform(ref, NULL, 0, NULL, SOMPCA_FLOAT64, 0));
	free(want);
	sompca_model_free(ref);
}

/* Serializes a model; the caller frees the bytes. */
static unsigned char *serialize(const sompca_model *model, size_t *len)
{
	*len = 0;
	CHECK_OK(sompca_model_serialize(model, NULL, 0, len));
	CHECK(*len > 0);
	unsigned char *buf = xmalloc(*len);
	size_t again = 0;
	CHECK_OK(sompca_model_serialize(model, buf, *len, &again));
	CHECK(again == *len);
	return buf;
}

/* sompca_model_serialize gives the bytes of the file sompca_model_save
 * writes, and sompca_model_deserialize of them (or of the file read whole)
 * gives a model whose features are the original's, bit for bit; truncated
 * or corrupted bytes give SOMPCA_EFILE or, for a change HDF5 never reads
 * (free space), the same model: never another model, never a crash. */
static void test_serialize(void)
{
	const int methods[] = {SOMPCA_METHOD_SOMPCA, SOMPCA_METHOD_PCA, SOMPCA_METHOD_MPCA, SOMPCA_METHOD_UMPCA};
	for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
		sompca_model *model = fit_with(methods[k], -1, 0, SOMPCA_FLOAT64);
		size_t len;
		unsigned char *buf = serialize(model, &len);
		/* Too small a buffer: ERANGE, nothing written, the length given. */
		unsigned char *small = xmalloc(len);
		memset(small, 0xa5, len);
		size_t got = 0;
		CHECK_STATUS(sompca_model_serialize(model, small, len - 1, &got), SOMPCA_ERANGE);
		CHECK(got == len);
		CHECK(small[0] == 0xa5 && small[len - 2] == 0xa5);
		free(small);
		/* The bytes of the saved file. */
		char *path = path_in(tmpdir, "serialized.h5");
		CHECK_OK(sompca_model_save(model, path));
		size_t flen;
		unsigned char *file = read_file(path, &flen);
		CHECK_MSG(flen == len && memcmp(file, buf, len) == 0, "method %d: %zu bytes serialized, file of %zu, differing",
		          methods[k], len, flen);
		/* Read back, from either: the same features, bit for bit. */
		double *want = features_of(model, SOMPCA_FLOAT64);
		size_t p = n_components(model);
		for (int from = 0; from < 2; from++) {
			sompca_model *back = NULL;
			CHECK_OK(sompca_model_deserialize(&back, from ? (const void *)file : (const void *)buf, len));
			double *z = features_of(back, SOMPCA_FLOAT64);
			CHECK(memcmp(z, want, M * p * sizeof *z) == 0);
			free(z);
			sompca_model_free(back);
		}
		free(want);
		free(file);
		remove(path);
		free(path);
		free(buf);
		sompca_model_free(model);
	}

	sompca_model *model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 3, SOMPCA_FLOAT64);
	size_t len;
	unsigned char *buf = serialize(model, &len);
	unsigned char *bad = xmalloc(len);
	unsigned seed = 12345;
	int rejected = 0;
	for (int i = 0; i < 400; i++) {
		size_t n = len;
		memcpy(bad, buf, len);
		if (i % 4 == 0) {
			n = (size_t)rand_r(&seed) % len; /* truncated */
		} else {
			for (int f = 0; f <= i % 3; f++) /* one to three bits flipped */
				bad[(size_t)rand_r(&seed) % len] ^= (unsigned char)(1u << (rand_r(&seed) % 8));
		}
		sompca_model *back = (sompca_model *)bad; /* must be overwritten */
		int rc = sompca_model_deserialize(&back, bad, n);
		if (rc == SOMPCA_OK) {
			size_t blen;
			unsigned char *again = serialize(back, &blen);
			CHECK_MSG(blen == len && memcmp(again, buf, len) == 0, "case %d: corrupt bytes read as another model", i);
			free(again);
			sompca_model_free(back);
		} else {
			CHECK_MSG(rc == SOMPCA_EFILE && back == NULL, "case %d: status %d: %s", i, rc, sompca_last_error());
			rejected++;
		}
	}
	CHECK(rejected > 300); /* nearly every change is seen: checksums cover the model */
	free(bad);

	/* Bad arguments. */
	size_t n = 0;
	sompca_model *out = NULL;
	CHECK_STATUS(sompca_model_serialize(NULL, NULL, 0, &n), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_model_serialize(model, NULL, 0, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_serialize(model, NULL, len, &n), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_serialize(model, NULL, 1, &n), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_deserialize(NULL, buf, len), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_deserialize(&out, NULL, len), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_deserialize(&out, buf, 0), SOMPCA_EFILE);
	CHECK(contains(sompca_last_error(), "sompca_model_deserialize") && contains(sompca_last_error(), "HDF5"));
	CHECK(out == NULL);
	free(buf);
	sompca_model_free(model);
}

/* sompca_inverse_transform: the transform of a reconstruction is the
 * features it came from, z = A^T A (A^T A)^+ z when A^T A has full rank
 * (an identity, whatever the method: orthonormal projections or not); for
 * an orthonormal method the reconstruction is mean + A z, so its distance
 * to the sample is at most the sample's distance to the mean. */
static void test_inverse_transform(void)
{
	const int methods[] = {SOMPCA_METHOD_SOMPCA, SOMPCA_METHOD_UMPCA, SOMPCA_METHOD_PCA, SOMPCA_METHOD_MPCA};
	for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
		sompca_model *model = fit_with(methods[k], -1, 3, SOMPCA_FLOAT64);
		size_t p = n_components(model);
		double *z = features_of(model, SOMPCA_FLOAT64);
		double *x = xmalloc(M * SIZE * sizeof *x);
		CHECK_STATUS(sompca_inverse_transform(model, x, M * SIZE - 1, z, M), SOMPCA_ERANGE);
		CHECK_OK(sompca_inverse_transform(model, x, M * SIZE, z, M));
		double *again = xmalloc(M * p * sizeof *again);
		CHECK_OK(sompca_transform(model, again, M * p, x, SOMPCA_FLOAT64, M));
		CHECK_MSG(max_abs_diff(again, z, M * p) <= 1e-9 * max_abs(z, M * p), "method %d", methods[k]);
		if (methods[k] != SOMPCA_METHOD_UMPCA) {
			double mean[SIZE];
			CHECK_OK(sompca_model_mean(model, mean, SIZE));
			for (int s = 0; s < M; s++) {
				double err = 0, spread = 0;
				for (int i = 0; i < SIZE; i++) {
					err += pow(x[s * SIZE + i] - data_f64[s * SIZE + i], 2);
					spread += pow(data_f64[s * SIZE + i] - mean[i], 2);
				}
				CHECK_MSG(err <= spread * (1 + 1e-12), "method %d sample %d", methods[k], s);
			}
		}
		free(again);
		free(x);
		free(z);
		sompca_model_free(model);
	}
	sompca_model *model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 2, SOMPCA_FLOAT64);
	double z[4] = {1, 2, 3, NAN}, x[2 * SIZE];
	CHECK_STATUS(sompca_inverse_transform(model, x, 2 * SIZE, z, 2), SOMPCA_EDATA);
	CHECK(contains(sompca_last_error(), "sample 1"));
	CHECK_STATUS(sompca_inverse_transform(model, x, 2 * SIZE, NULL, 2), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_inverse_transform(model, NULL, 0, z, 2), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_inverse_transform(NULL, x, 2 * SIZE, z, 2), SOMPCA_ENOTFITTED);
	CHECK_OK(sompca_inverse_transform(model, NULL, 0, NULL, 0));
	sompca_model_free(model);
}

/* uint16 and int16 samples, and samples a stride apart: the model and the
 * features of the same values given consecutively as doubles (the values
 * are integers 0..255, which every path contracts alike: bit for bit). */
static void test_strided(void)
{
	enum { STRIDE = SIZE + 7 };
	uint16_t *u16 = xmalloc(M * STRIDE * sizeof *u16);
	int16_t *i16 = xmalloc(M * STRIDE * sizeof *i16);
	double *f64 = xmalloc(M * STRIDE * sizeof *f64);
	for (int i = 0; i < M * STRIDE; i++) { /* the gaps hold values that would show */
		u16[i] = 65535;
		i16[i] = -32768;
		f64[i] = NAN;
	}
	for (int m = 0; m < M; m++)
		for (int i = 0; i < SIZE; i++) {
			u16[m * STRIDE + i] = data_u8[m * SIZE + i];
			i16[m * STRIDE + i] = data_u8[m * SIZE + i];
			f64[m * STRIDE + i] = data_u8[m * SIZE + i];
		}
	sompca_model *ref = fit_with(SOMPCA_METHOD_SOMPCA, 1, 0, SOMPCA_FLOAT64);
	double *want = features_of(ref, SOMPCA_FLOAT64);
	size_t p = n_components(ref);
	double *z = xmalloc(M * p * sizeof *z);
	const struct {
		const void *data;
		int dtype;
	} inputs[] = {{u16, SOMPCA_UINT16}, {i16, SOMPCA_INT16}, {f64, SOMPCA_FLOAT64}};
	for (size_t k = 0; k < 3; k++) {
		sompca_options opts;
		sompca_options_init(&opts);
		opts.relaxed_start = 1;
		sompca_model *model = NULL;
		CHECK_OK(sompca_fit_strided(&model, inputs[k].data, inputs[k].dtype, M, STRIDE, 3, shape3, &opts));
		CHECK_OK(sompca_transform_strided(model, z, M * p, inputs[k].data, inputs[k].dtype, M, STRIDE));
		CHECK_MSG(memcmp(z, want, M * p * sizeof *z) == 0, "dtype %d: %g from the consecutive doubles' features",
		          inputs[k].dtype, max_abs_diff(z, want, M * p));
		/* The reference model transforms them alike. */
		CHECK_OK(sompca_transform_strided(ref, z, M * p, inputs[k].data, inputs[k].dtype, M, STRIDE));
		CHECK(memcmp(z, want, M * p * sizeof *z) == 0);
		sompca_model_free(model);
	}
	/* Consecutive 16-bit samples through sompca_fit and sompca_transform. */
	for (int i = 0; i < M * SIZE; i++)
		u16[i] = data_u8[i];
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, u16, SOMPCA_UINT16, M, 3, shape3, NULL));
	CHECK_OK(sompca_transform(model, z, M * p, u16, SOMPCA_UINT16, M));
	CHECK(memcmp(z, want, M * p * sizeof *z) == 0);
	CHECK_OK(sompca_transform_strided(model, z, M * p, u16, SOMPCA_UINT16, M, 0));
	CHECK(memcmp(z, want, M * p * sizeof *z) == 0);
	sompca_model_free(model);
	/* Overlapping samples, an absurd stride, an unknown dtype. */
	CHECK_STATUS(sompca_fit_strided(&model, u16, SOMPCA_UINT16, M, SIZE - 1, 3, shape3, NULL), SOMPCA_ESHAPE);
	CHECK(model == NULL && contains(sompca_last_error(), "sample_stride"));
	CHECK_STATUS(sompca_transform_strided(ref, z, M * p, u16, SOMPCA_UINT16, M, (size_t)1 << 60), SOMPCA_ESHAPE);
	CHECK_STATUS(sompca_transform(ref, z, M * p, u16, SOMPCA_INT16 + 1, M), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "SOMPCA_UINT16"));
	free(z);
	free(want);
	free(u16);
	free(i16);
	free(f64);
	sompca_model_free(ref);
}

/* The C features equal those of the Go API (gofeatures) on the same data. */
static void test_go_equality(const char *godir)
{
	char *list_path = path_in(godir, "cases.txt");
	FILE *list = fopen(list_path, "r");
	CHECK_MSG(list != NULL, "cannot open %s", list_path);
	int index, method, relaxed, ncomp, mode, dtype, order, p, cases = 0;
	long exact = 0, total = 0;
	while (fscanf(list, "%d %d %d %d %d %d %d %d", &index, &method, &relaxed, &ncomp, &mode, &dtype,
	              &order, &p) == 8) {
		sompca_options opts;
		sompca_options_init(&opts);
		opts.method = method;
		opts.relaxed_start = relaxed;
		opts.n_components = ncomp;
		opts.mode = mode;
		opts.feature_order = order;
		sompca_model *model = NULL;
		CHECK_OK(sompca_fit(&model, data_of(dtype), dtype, M, 3, shape3, &opts));
		CHECK_MSG(n_components(model) == (size_t)p, "case %d: P %zu, Go %d", index,
		          n_components(model), p);
		double *got = features_of(model, dtype);
		char name[64];
		snprintf(name, sizeof name, "features_%d.bin", index);
		char *path = path_in(godir, name);
		size_t bytes;
		double *want = read_file(path, &bytes);
		CHECK(bytes == (size_t)M * p * sizeof(double));
		for (size_t i = 0; i < (size_t)M * p; i++) {
			CHECK_MSG(fabs(got[i] - want[i]) <= 1e-12 * fmax(1, fabs(want[i])),
			          "case %d (method %d) element %zu: C %.17g, Go %.17g", index, method, i,
			          got[i], want[i]);
			exact += memcmp(&got[i], &want[i], sizeof(double)) == 0;
			total++;
		}
		free(want);
		free(path);
		free(got);
		sompca_model_free(model);
		cases++;
	}
	fclose(list);
	free(list_path);
	CHECK_MSG(cases >= 10, "only %d cases in %s/cases.txt", cases, godir);
	printf("go equality: %d cases, %ld of %ld features bit-identical to the Go API\n", cases, exact,
	       total);
}

static int cancel_at;
static int progress_calls;
static double progress_variance[16];
static pthread_t progress_caller; /* the thread that called the fit */

static int progress(void *user, int done, int total, double variance)
{
	CHECK(user == (void *)&cancel_at);
	/* sompca.h: the callback runs on the thread that called the fit (the
	 * fit itself runs on the library's own threads). */
	CHECK(pthread_equal(pthread_self(), progress_caller));
	CHECK(done == progress_calls + 1 && done <= total && total == I0);
	if (done <= 16)
		progress_variance[done - 1] = variance;
	/* The callback may call into the library (a nested cgo call). */
	size_t size;
	CHECK(sompca_transform_size(NULL, 1, &size) == SOMPCA_ENOTFITTED);
	progress_calls++;
	return done == cancel_at;
}

static void test_progress(void)
{
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_SOMPCA;
	opts.feature_order = SOMPCA_ORDER_EXTRACTION;
	opts.progress = progress;
	opts.progress_user = &cancel_at;
	progress_caller = pthread_self();

	/* Called after each EMP with the variance the model then reports. */
	cancel_at = 0;
	progress_calls = 0;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	CHECK(progress_calls == I0);
	CHECK(strcmp(sompca_last_error(), "") == 0); /* the fit's success cleared the callback's error */
	double variance[I0];
	CHECK_OK(sompca_model_variance(model, variance, I0));
	for (int j = 0; j < I0; j++)
		CHECK_MSG(variance[j] == progress_variance[j], "EMP %d: model %.17g, callback %.17g", j,
		          variance[j], progress_variance[j]);
	sompca_model_free(model);

	/* Non-zero cancels cleanly: ECANCELED, no model, a message. */
	cancel_at = 2;
	progress_calls = 0;
	model = (sompca_model *)&opts; /* must be overwritten with NULL */
	CHECK_STATUS(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts),
	             SOMPCA_ECANCELED);
	CHECK(model == NULL);
	CHECK(progress_calls == 2);
	CHECK(contains(sompca_last_error(), "sompca_fit") && contains(sompca_last_error(), "cancel"));
}

/* Read progress: what read_progress saw during one fit. */
struct reads {
	int calls, cancel_at, went_down, wrong_thread;
	uint64_t first, last, total;
};

static int read_progress(void *user, uint64_t bytes_read, uint64_t bytes_total)
{
	struct reads *r = user;
	if (!pthread_equal(pthread_self(), progress_caller))
		r->wrong_thread++;
	if (r->calls > 0 && bytes_read < r->last)
		r->went_down++;
	if (r->calls == 0)
		r->first = bytes_read;
	r->last = bytes_read;
	r->total = bytes_total;
	return ++r->calls == r->cancel_at;
}

static int never_called(void *user, uint64_t bytes_read, uint64_t bytes_total)
{
	(void)user, (void)bytes_read, (void)bytes_total;
	CHECK_MSG(0, "read_progress beyond opts->size was called");
	return 1;
}

/* opts->read_progress reports the bytes a fit reads from a file, on the
 * calling thread, never decreasing: loaded whole, up to the dataset's size
 * (RM samples of SIZE bytes); streamed, once per pass; non-zero cancels.
 * A struct from a header without read_progress (a smaller size) fits. */
static void test_read_progress(void)
{
	enum { RM = 3000 };
	uint8_t *x = xmalloc((size_t)RM * SIZE);
	for (size_t i = 0; i < (size_t)RM * SIZE; i++)
		x[i] = (uint8_t)(data_u8[i % (M * SIZE)] + (i * 2654435761u >> 27));
	char *path = path_in(tmpdir, "read-progress.h5");
	hsize_t dims[4] = {RM, I0, I1, I2};
	CHECK(h5data_write(path, "/x", H5T_NATIVE_UINT8, 4, dims, x) == 0);
	free(x);
	const uint64_t total = (uint64_t)RM * SIZE; /* uint8: one byte per element */
	progress_caller = pthread_self();

	sompca_options opts;
	sompca_options_init(&opts);
	CHECK(opts.read_progress == NULL);
	opts.n_components = 2;
	opts.max_iter = 2;
	opts.read_progress = read_progress;
	struct reads loaded = {0};
	opts.progress_user = &loaded;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit_hdf5(&model, path, "/x", SOMPCA_LAYOUT_SAMPLES_FIRST, &opts));
	sompca_model_free(model);
	CHECK_MSG(loaded.calls >= 1 && loaded.total == total && loaded.last == total && !loaded.went_down &&
	              !loaded.wrong_thread,
	          "loaded: %d calls, last %llu of %llu (want %llu), went down %d, wrong thread %d", loaded.calls,
	          (unsigned long long)loaded.last, (unsigned long long)loaded.total, (unsigned long long)total,
	          loaded.went_down, loaded.wrong_thread);

	/* The smallest limit (to 4 KiB) that fits streams: it reads the
	 * dataset once per pass, at least twice. */
	struct reads streamed = {0};
	int status = SOMPCA_ENOMEM;
	for (size_t limit = 4096; status == SOMPCA_ENOMEM && limit < ((size_t)1 << 24); limit += 4096) {
		memset(&streamed, 0, sizeof streamed);
		opts.progress_user = &streamed;
		opts.memory_limit = limit;
		model = NULL;
		status = sompca_fit_hdf5(&model, path, "/x", SOMPCA_LAYOUT_SAMPLES_FIRST, &opts);
		sompca_model_free(model);
	}
	CHECK_STATUS(status, SOMPCA_OK);
	CHECK_MSG(streamed.total == total && streamed.last >= 2 * total && streamed.first < total && !streamed.went_down &&
	              !streamed.wrong_thread,
	          "streamed: %d calls from %llu to %llu of %llu, went down %d, wrong thread %d", streamed.calls,
	          (unsigned long long)streamed.first, (unsigned long long)streamed.last,
	          (unsigned long long)streamed.total, streamed.went_down, streamed.wrong_thread);

	/* Non-zero cancels, loading or streaming. */
	for (int stream = 0; stream < 2; stream++) {
		struct reads cancel = {.cancel_at = 1};
		opts.progress_user = &cancel;
		opts.memory_limit = stream ? opts.memory_limit : 0;
		model = (sompca_model *)&opts; /* must be overwritten with NULL */
		CHECK_STATUS(sompca_fit_hdf5(&model, path, "/x", SOMPCA_LAYOUT_SAMPLES_FIRST, &opts), SOMPCA_ECANCELED);
		CHECK(model == NULL && cancel.calls == 1);
	}

	/* A caller built with the header before read_progress: its struct ends
	 * at memory_limit, and what lies beyond is not read. */
	sompca_options old;
	sompca_options_init(&old);
	old.size = (uint32_t)offsetof(sompca_options, read_progress);
	old.read_progress = never_called;
	model = NULL;
	CHECK_OK(sompca_fit_hdf5(&model, path, "/x", SOMPCA_LAYOUT_SAMPLES_FIRST, &old));
	CHECK(model != NULL);
	sompca_model_free(model);
	old.size = (uint32_t)offsetof(sompca_options, read_progress) - 1;
	model = NULL;
	CHECK_STATUS(sompca_fit_hdf5(&model, path, "/x", SOMPCA_LAYOUT_SAMPLES_FIRST, &old), SOMPCA_EINVAL);
	free(path);
}

/* Each status code the caller can provoke, with its message. */
static void test_errors(void)
{
	sompca_options opts;
	sompca_model *model = NULL;
	size_t bad_shape[3] = {I0, 0, I2};
	size_t huge_shape[3] = {SIZE_MAX / 2, SIZE_MAX / 2, 3};
	size_t big_shape[3] = {(size_t)1 << 30, (size_t)1 << 30, 3};

#define FIT_STATUS(code, part, ...)                                                    \
	do {                                                                           \
		model = (sompca_model *)&opts;                                         \
		CHECK_STATUS(sompca_fit(__VA_ARGS__), code);                           \
		CHECK(model == NULL);                                                  \
		CHECK_MSG(contains(sompca_last_error(), part), "message %s, want %s",  \
		          sompca_last_error(), part);                                  \
	} while (0)

	/* The last error is cleared by a successful call. */
	CHECK_STATUS(sompca_fit(NULL, data_f64, SOMPCA_FLOAT64, M, 3, shape3, NULL), SOMPCA_EINVAL);
	CHECK(strcmp(sompca_last_error(), "sompca_fit: out is NULL") == 0);
	CHECK_OK(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, NULL));
	CHECK(strcmp(sompca_last_error(), "") == 0);
	sompca_model_free(model);

	FIT_STATUS(SOMPCA_EINVAL, "data is NULL", &model, NULL, SOMPCA_FLOAT64, M, 3, shape3, NULL);
	FIT_STATUS(SOMPCA_EINVAL, "shape is NULL", &model, data_f64, SOMPCA_FLOAT64, M, 3, NULL, NULL);
	FIT_STATUS(SOMPCA_EINVAL, "dtype is 7", &model, data_f64, 7, M, 3, shape3, NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "order is 0", &model, data_f64, SOMPCA_FLOAT64, M, 0, shape3, NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "order is 33", &model, data_f64, SOMPCA_FLOAT64, M, 33, shape3, NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "shape[1] is 0", &model, data_f64, SOMPCA_FLOAT64, M, 3, bad_shape,
	           NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "shape[0] is", &model, data_f64, SOMPCA_FLOAT64, M, 3, huge_shape,
	           NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "too large", &model, data_f64, SOMPCA_FLOAT64, M, 3, big_shape, NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "too large", &model, data_f64, SOMPCA_FLOAT64, SIZE_MAX, 3, shape3,
	           NULL);
	FIT_STATUS(SOMPCA_ESHAPE, "n_samples is 0", &model, data_f64, SOMPCA_FLOAT64, 0, 3, shape3, NULL);

	/* Bad options, each named in the message. */
	sompca_options_init(&opts);
	opts.size = 0;
	FIT_STATUS(SOMPCA_EINVAL, "opts->size is 0", &model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts);
	opts.size = 3;
	FIT_STATUS(SOMPCA_EINVAL, "opts->size is 3", &model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts);
#define BAD_OPTION(field, value, part)                                                         \
	do {                                                                                   \
		sompca_options_init(&opts);                                                    \
		opts.field = value;                                                            \
		FIT_STATUS(SOMPCA_EINVAL, part, &model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, \
		           &opts);                                                             \
	} while (0)
	BAD_OPTION(method, -1, "opts->method is -1");
	BAD_OPTION(method, 7, "opts->method is 7");
	BAD_OPTION(n_components, -2, "opts->n_components is -2");
	BAD_OPTION(mode, 3, "opts->mode is 3");
	BAD_OPTION(mode, -3, "opts->mode is -3"); /* -2 is SOMPCA_MODE_ALL */
	BAD_OPTION(max_iter, -1, "opts->max_iter is -1");
	BAD_OPTION(tol, -1e-3, "opts->tol is");
	BAD_OPTION(tol, NAN, "opts->tol is");
	BAD_OPTION(q, 1.5, "opts->q is");
	BAD_OPTION(n_threads, -4, "opts->n_threads is -4");
	BAD_OPTION(feature_order, 2, "opts->feature_order is 2");
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_PCA;
	opts.relaxed_start = 1;
	FIT_STATUS(SOMPCA_EINVAL, "relaxed start", &model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts);

	/* Data the solver rejects: a NaN, a single sample, too many components. */
	double *nan_data = xmalloc(sizeof data_f64);
	memcpy(nan_data, data_f64, sizeof data_f64);
	nan_data[17] = NAN;
	FIT_STATUS(SOMPCA_EDATA, "sompca_fit: ", &model, nan_data, SOMPCA_FLOAT64, M, 3, shape3, NULL);
	free(nan_data);
	FIT_STATUS(SOMPCA_EDATA, "sompca_fit: ", &model, data_f64, SOMPCA_FLOAT64, 1, 3, shape3, NULL);
	sompca_options_init(&opts);
	opts.n_components = 1000; /* an option the data refute: invalid */
	FIT_STATUS(SOMPCA_EINVAL, "sompca_fit: ", &model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts);
#undef FIT_STATUS

	/* Transform and accessors: NULL outputs, small buffers, bad indices. */
	model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 0, SOMPCA_FLOAT64);
	size_t p = n_components(model), need = 0;
	double *z = xmalloc(M * p * sizeof *z);
	CHECK_STATUS(sompca_transform_size(model, M, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_transform_size(model, SIZE_MAX, &need), SOMPCA_ESHAPE);
	CHECK_STATUS(sompca_transform(model, z, M * p - 1, data_f64, SOMPCA_FLOAT64, M), SOMPCA_ERANGE);
	CHECK(contains(sompca_last_error(), "need"));
	CHECK_STATUS(sompca_transform(model, NULL, M * p, data_f64, SOMPCA_FLOAT64, M), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_transform(model, z, M * p, NULL, SOMPCA_FLOAT64, M), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_transform(model, z, M * p, data_f64, -1, M), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_transform(model, z, M * p, data_f64, SOMPCA_FLOAT64, SIZE_MAX / 8), SOMPCA_ESHAPE);
	int ival;
	size_t sval, shape[2];
	double dval[1];
	int64_t lval[1];
	CHECK_STATUS(sompca_model_method(model, NULL, &ival), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_n_components(model, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_order(model, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_mode(model, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_n_samples(model, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_shape(model, NULL, 3), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_shape(model, shape, 2), SOMPCA_ERANGE);
	CHECK(contains(sompca_last_error(), "dst holds 2"));
	CHECK_STATUS(sompca_model_mean(model, dval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_projection(model, 0, dval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_projection(model, 3, z, M * p), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_variance(model, dval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_variance_ratio(model, dval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_extraction(model, lval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_iterations(model, lval, 1), SOMPCA_ERANGE);
	CHECK_STATUS(sompca_model_history(model, 0, z, 1, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_history(model, p, z, 1, &sval), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "feature is"));
	CHECK_STATUS(sompca_model_save(model, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_save(model, ""), SOMPCA_EINVAL);
	char *nodir = path_in(tmpdir, "no/such/dir/model.h5");
	CHECK_STATUS(sompca_model_save(model, nodir), SOMPCA_EIO);
	CHECK(contains(sompca_last_error(), "no/such/dir"));
	free(nodir);
	free(z);
	sompca_model_free(model);

	/* Files: missing, not HDF5; NULL strings. */
	char *missing = path_in(tmpdir, "missing.h5");
	model = (sompca_model *)&opts;
	CHECK_STATUS(sompca_fit_hdf5(&model, missing, "/x", 0, NULL), SOMPCA_ENOTFOUND);
	CHECK(model == NULL && contains(sompca_last_error(), "missing.h5"));
	CHECK_STATUS(sompca_model_load(&model, missing), SOMPCA_ENOTFOUND);
	CHECK(model == NULL && contains(sompca_last_error(), "missing.h5"));
	CHECK_STATUS(sompca_fit_hdf5(NULL, missing, "/x", 0, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_fit_hdf5(&model, NULL, "/x", 0, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_fit_hdf5(&model, missing, NULL, 0, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_load(NULL, missing), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_model_load(&model, NULL), SOMPCA_EINVAL);
	free(missing);
	char *text = path_in(tmpdir, "not_hdf5.h5");
	FILE *f = fopen(text, "w");
	CHECK(f != NULL);
	fputs("not an HDF5 file\n", f);
	fclose(f);
	CHECK_STATUS(sompca_model_load(&model, text), SOMPCA_EFILE);
	CHECK(contains(sompca_last_error(), "not_hdf5.h5"));
	free(text);

	/* A message longer than the buffer is truncated, marked by "...". */
	char long_path[5000];
	memset(long_path, 'a', sizeof long_path - 1);
	long_path[sizeof long_path - 1] = '\0';
	CHECK_STATUS(sompca_model_load(&model, long_path), SOMPCA_EIO);
	size_t n = strlen(sompca_last_error());
	CHECK_MSG(n > 1000 && n < 2048 && strcmp(sompca_last_error() + n - 3, "...") == 0,
	          "message of %zu bytes", n);
}

/* A read that fails in the middle of a fit or transform (a chunk whose
 * Fletcher-32 checksum no longer matches) is SOMPCA_EFILE naming the file
 * and saying "checksum mismatch", and no model is made. */
static void test_read_failure(void)
{
	enum { RM = 40, RI = 6, RJ = 5 };
	static double x[RM * RI * RJ];
	for (int i = 0; i < RM * RI * RJ; i++)
		x[i] = sin(0.37 * i) + 0.01 * (i % 7);
	const double marker = 1234.5678; /* sample 37, element 0: found again in the file's bytes */
	x[37 * RI * RJ] = marker;
	char *path = path_in(tmpdir, "chunked.h5");
	hsize_t dims[3] = {RM, RI, RJ}, chunk[3] = {4, RI, RJ};
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hid_t space = H5Screate_simple(3, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	CHECK(H5Pset_chunk(dcpl, 3, chunk) >= 0 && H5Pset_fletcher32(dcpl) >= 0);
	hid_t set = H5Dcreate2(file, "/x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	CHECK(set >= 0 && H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
	H5Dclose(set);
	H5Pclose(dcpl);
	H5Sclose(space);
	CHECK(H5Fclose(file) >= 0);

	sompca_model *model = NULL;
	CHECK_OK(sompca_fit_hdf5(&model, path, "/x", 0, NULL)); /* intact: fits */

	size_t len;
	uint8_t *bytes = read_file(path, &len);
	size_t at = len;
	for (size_t i = 0; i + sizeof marker <= len; i++)
		if (memcmp(bytes + i, &marker, sizeof marker) == 0)
			at = i;
	CHECK_MSG(at < len, "marker not found in %s", path);
	if (at < len) {
		bytes[at + 3] ^= 0x20;
		FILE *f = fopen(path, "wb");
		CHECK(f != NULL && fwrite(bytes, 1, len, f) == len);
		fclose(f);
	}
	free(bytes);

	sompca_model *bad = NULL;
	CHECK_STATUS(sompca_fit_hdf5(&bad, path, "/x", 0, NULL), SOMPCA_EFILE);
	CHECK(bad == NULL);
	CHECK_MSG(contains(sompca_last_error(), "checksum mismatch") && contains(sompca_last_error(), "chunked.h5") &&
	              contains(sompca_last_error(), "\"/x\""),
	          "message: %s", sompca_last_error());
	char *out = path_in(tmpdir, "chunked-features.h5");
	remove(out);
	CHECK_STATUS(sompca_transform_hdf5(model, path, "/x", 0, out, "/z", 0), SOMPCA_EFILE);
	CHECK(contains(sompca_last_error(), "checksum mismatch"));
	FILE *left = fopen(out, "rb");
	CHECK_MSG(left == NULL, "%s was left behind", out);
	if (left != NULL)
		fclose(left);
	sompca_model_free(model);
	free(out);
	free(path);
}

/* NULL, freed and foreign handles are detected, never followed. */
static void test_handles(void)
{
	size_t p;
	double dval[1];
	CHECK_STATUS(sompca_model_n_components(NULL, &p), SOMPCA_ENOTFITTED);
	CHECK(contains(sompca_last_error(), "NULL"));
	CHECK_STATUS(sompca_transform_size(NULL, 1, &p), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_transform(NULL, dval, 1, data_f64, SOMPCA_FLOAT64, 1), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_model_save(NULL, "x.h5"), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_transform_hdf5(NULL, "a.h5", "/x", 0, "b.h5", "/z", 0), SOMPCA_ENOTFITTED);

	/* A foreign pointer: memory that looks like a box but was not made by sompca. */
	struct {
		uint64_t magic;
		uintptr_t handle;
	} fake = {UINT64_C(0x736f6d7063614d31), 1};
	sompca_model *foreign = (sompca_model *)(void *)&fake;
	CHECK_STATUS(sompca_model_n_components(foreign, &p), SOMPCA_EHANDLE);
	CHECK(contains(sompca_last_error(), "not a live sompca model"));
	sompca_model_free(foreign); /* detected, left alone */
	CHECK(contains(sompca_last_error(), "sompca_model_free"));
	CHECK(fake.magic == UINT64_C(0x736f6d7063614d31));

	/* A freed pointer (its address not yet reused). */
	sompca_model *model = fit_with(SOMPCA_METHOD_PCA, 0, 2, SOMPCA_FLOAT64);
	sompca_model_free(model);
	CHECK(strcmp(sompca_last_error(), "") == 0);
	CHECK_STATUS(sompca_model_n_components(model, &p), SOMPCA_EHANDLE);
	sompca_model_free(model); /* double free: detected */
	CHECK(contains(sompca_last_error(), "not a live sompca model"));
	sompca_model_free(NULL); /* a no-op */
}

/* Save and load give the same model; HDF5 fit and transform agree with memory. */
static void test_hdf5(void)
{
	sompca_model *model = fit_with(SOMPCA_METHOD_UMPCA, 0, 0, SOMPCA_FLOAT64), *loaded = NULL;
	char *model_path = path_in(tmpdir, "model.h5");
	CHECK_OK(sompca_model_save(model, model_path));
	CHECK_OK(sompca_model_load(&loaded, model_path));
	size_t p = n_components(model);
	CHECK(n_components(loaded) == p);
	int method, relaxed, mode;
	CHECK_OK(sompca_model_method(loaded, &method, &relaxed));
	CHECK(method == SOMPCA_METHOD_UMPCA && relaxed == 0);
	CHECK_OK(sompca_model_mode(loaded, &mode));
	CHECK(mode == -1);
	double *z = features_of(model, SOMPCA_FLOAT64), *zl = features_of(loaded, SOMPCA_FLOAT64);
	CHECK(memcmp(z, zl, M * p * sizeof *z) == 0);
	double va[I0], vb[I0];
	CHECK(p <= I0);
	CHECK_OK(sompca_model_variance(model, va, p));
	CHECK_OK(sompca_model_variance(loaded, vb, p));
	CHECK(memcmp(va, vb, p * sizeof *va) == 0);
	sompca_model_free(loaded);

	/* The data in HDF5, samples first (float64), last (float32), and as a
	 * column-major program writes the I0 x I1 x I2 x M array: HDF5 shows
	 * (M, I2, I1, I0), element (i0, i1, i2) of sample m at
	 * ((m*I2 + i2)*I1 + i1)*I0 + i0. */
	char *first = path_in(tmpdir, "first.h5"), *last = path_in(tmpdir, "last.h5"),
	     *colmajor = path_in(tmpdir, "colmajor.h5");
	hsize_t dims_first[4] = {M, I0, I1, I2}, dims_last[4] = {I0, I1, I2, M}, dims_col[4] = {M, I2, I1, I0};
	CHECK(h5data_write(first, "/group/x", H5T_NATIVE_DOUBLE, 4, dims_first, data_f64) == 0);
	float *moved = xmalloc(sizeof data_f32);
	for (int m = 0; m < M; m++)
		for (int e = 0; e < SIZE; e++)
			moved[e * M + m] = data_f32[m * SIZE + e];
	CHECK(h5data_write(last, "/x", H5T_NATIVE_FLOAT, 4, dims_last, moved) == 0);
	double *reversed = xmalloc(sizeof data_f64);
	for (int m = 0; m < M; m++)
		for (int i0 = 0; i0 < I0; i0++)
			for (int i1 = 0; i1 < I1; i1++)
				for (int i2 = 0; i2 < I2; i2++)
					reversed[((m * I2 + i2) * I1 + i1) * I0 + i0] =
					    data_f64[((m * I0 + i0) * I1 + i1) * I2 + i2];
	CHECK(h5data_write(colmajor, "/x", H5T_NATIVE_DOUBLE, 4, dims_col, reversed) == 0);
	free(moved);
	free(reversed);

	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_UMPCA;
	const char *files[] = {first, last, colmajor}, *names[] = {"/group/x", "/x", "/x"};
	for (int layout = SOMPCA_LAYOUT_SAMPLES_FIRST; layout <= SOMPCA_LAYOUT_COLUMN_MAJOR; layout++) {
		sompca_model *from_file = NULL;
		CHECK_OK(sompca_fit_hdf5(&from_file, files[layout], names[layout], layout, &opts));
		CHECK(strcmp(sompca_last_warning(), "") == 0);
		size_t got_shape[3];
		CHECK_OK(sompca_model_shape(from_file, got_shape, 3));
		CHECK(got_shape[0] == I0 && got_shape[1] == I1 && got_shape[2] == I2);
		double *zf = features_of(from_file, SOMPCA_FLOAT64);
		CHECK(n_components(from_file) == p);
		CHECK_MSG(max_abs_diff(zf, z, M * p) <= 1e-9 * max_abs(z, M * p), "layout %d", layout);
		free(zf);
		sompca_model_free(from_file);
	}
	sompca_model *no_model = NULL;
	CHECK_STATUS(sompca_fit_hdf5(&no_model, first, "/group/x", 3, &opts), SOMPCA_EINVAL);
	CHECK(strstr(sompca_last_error(), "layout is 3") != NULL && no_model == NULL);
	free(colmajor);
	/* A memory limit too small for one run of samples is ENOMEM, naming
	 * the limit; the default (0) and a generous limit fit alike. */
	opts.memory_limit = 1000;
	sompca_model *none = NULL;
	CHECK_STATUS(sompca_fit_hdf5(&none, first, "/group/x", 0, &opts), SOMPCA_ENOMEM);
	CHECK(none == NULL && contains(sompca_last_error(), "1000 bytes"));
	CHECK_STATUS(sompca_fit(&none, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_ENOMEM);
	opts.memory_limit = (size_t)1 << 30;
	CHECK_OK(sompca_fit_hdf5(&none, first, "/group/x", 0, &opts));
	sompca_model_free(none);

	/* transform_hdf5 writes what sompca_transform computes; an existing
	 * dataset needs overwrite; a wrong shape is ESHAPE. */
	char *out = path_in(tmpdir, "features.h5");
	remove(out);
	CHECK_OK(sompca_transform_hdf5(model, last, "/x", 1, out, "/z", 0));
	double *zr = xmalloc(M * p * sizeof *zr);
	hsize_t dims[8];
	CHECK(h5data_read(out, "/z", zr, M * p, dims) == 2);
	CHECK(dims[0] == M && dims[1] == p);
	CHECK(max_abs_diff(zr, z, M * p) <= 1e-9 * max_abs(z, M * p));
	CHECK_STATUS(sompca_transform_hdf5(model, last, "/x", 1, out, "/z", 0), SOMPCA_EIO);
	CHECK(contains(sompca_last_error(), "/z"));
	CHECK_OK(sompca_transform_hdf5(model, first, "/group/x", 0, out, "/z", 1));
	CHECK_STATUS(sompca_transform_hdf5(model, first, "/group/x", 1, out, "/z2", 0), SOMPCA_ESHAPE);
	CHECK_STATUS(sompca_transform_hdf5(model, first, "/nothing", 0, out, "/z3", 0), SOMPCA_ENOTFOUND);
	CHECK(contains(sompca_last_error(), "/nothing"));
	CHECK_STATUS(sompca_transform_hdf5(model, first, "/group/x", 0, NULL, "/z", 1), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_transform_hdf5(model, first, "/group/x", 0, out, "", 1), SOMPCA_EINVAL);

	free(zr);
	free(out);
	free(first);
	free(last);
	free(z);
	free(zl);
	free(model_path);
	sompca_model_free(model);
}

/* Concurrent fits on distinct models, concurrent transforms on one model,
 * and per-thread error messages. */
#define THREADS 4

struct job {
	int index;
	double *data;        /* this thread's samples: the test data, scaled */
	double *features;    /* result */
	const sompca_model *shared;
	double *shared_features;
};

static void *fit_job(void *arg)
{
	struct job *job = arg;
	sompca_options opts;
	sompca_options_init(&opts);
	opts.relaxed_start = 1;
	opts.n_threads = 1 + job->index % 2;
	for (int round = 0; round < 3; round++) {
		sompca_model *model = NULL;
		CHECK_OK(sompca_fit(&model, job->data, SOMPCA_FLOAT64, M, 3, shape3, &opts));
		size_t p = n_components(model);
		double *z = xmalloc(M * p * sizeof *z);
		CHECK_OK(sompca_transform(model, z, M * p, job->data, SOMPCA_FLOAT64, M));
		if (round == 0)
			job->features = z;
		else {
			CHECK(memcmp(z, job->features, M * p * sizeof *z) == 0);
			free(z);
		}
		sompca_model_free(model);

		/* This thread's failure is this thread's message. */
		char want[64];
		size_t bad[3] = {I0, ((size_t)1 << 31) + (size_t)job->index, I2}; /* shape[1] too large */
		snprintf(want, sizeof want, "shape[1] is %zu:", bad[1]);
		CHECK_STATUS(sompca_fit(&model, job->data, SOMPCA_FLOAT64, M, 0, bad, &opts), SOMPCA_ESHAPE);
		size_t q;
		CHECK_OK(sompca_model_n_components(job->shared, &q));
		CHECK(strcmp(sompca_last_error(), "") == 0);
		CHECK_STATUS(sompca_fit(&model, job->data, SOMPCA_FLOAT64, M, 3, bad, &opts), SOMPCA_ESHAPE);
		CHECK_MSG(contains(sompca_last_error(), want), "thread %d sees %s", job->index,
		          sompca_last_error());

		/* Transforms on the shared model. */
		size_t ps = n_components(job->shared);
		double *zs = xmalloc(M * ps * sizeof *zs);
		CHECK_OK(sompca_transform(job->shared, zs, M * ps, data_f64, SOMPCA_FLOAT64, M));
		CHECK(memcmp(zs, job->shared_features, M * ps * sizeof *zs) == 0);
		free(zs);
	}
	return NULL;
}

static void test_threads(void)
{
	sompca_model *shared = fit_with(SOMPCA_METHOD_FOMPCA, 0, 0, SOMPCA_FLOAT64);
	double *shared_features = features_of(shared, SOMPCA_FLOAT64);
	struct job jobs[THREADS];
	pthread_t threads[THREADS];
	for (int t = 0; t < THREADS; t++) {
		jobs[t].index = t;
		jobs[t].data = xmalloc(sizeof data_f64);
		for (int i = 0; i < M * SIZE; i++)
			jobs[t].data[i] = data_f64[i] * (1 + t) + t * (i % 7);
		jobs[t].features = NULL;
		jobs[t].shared = shared;
		jobs[t].shared_features = shared_features;
	}
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&threads[t], NULL, fit_job, &jobs[t]) == 0);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_join(threads[t], NULL) == 0);
	/* Each thread's features equal a serial fit of its data. */
	for (int t = 0; t < THREADS; t++) {
		sompca_options opts;
		sompca_options_init(&opts);
		opts.relaxed_start = 1;
		sompca_model *model = NULL;
		CHECK_OK(sompca_fit(&model, jobs[t].data, SOMPCA_FLOAT64, M, 3, shape3, &opts));
		size_t p = n_components(model);
		double *z = xmalloc(M * p * sizeof *z);
		CHECK_OK(sompca_transform(model, z, M * p, jobs[t].data, SOMPCA_FLOAT64, M));
		CHECK_MSG(memcmp(z, jobs[t].features, M * p * sizeof *z) == 0, "thread %d", t);
		free(z);
		free(jobs[t].features);
		free(jobs[t].data);
		sompca_model_free(model);
	}
	free(shared_features);
	sompca_model_free(shared);
}

/* Run with SOMPCA_TEST_PANIC_IN=sompca_model_n_samples: that export panics
 * inside the library; the panic must come back as SOMPCA_EINTERNAL. */
static void test_panic(void)
{
	for (int i = 0; i < M * SIZE; i++) /* any data with variance */
		data_f64[i] = (i * 7919) % 251;
	sompca_model *model = fit_with(SOMPCA_METHOD_PCA, 0, 2, SOMPCA_FLOAT64);
	size_t n = 0;
	CHECK_STATUS(sompca_model_n_samples(model, &n), SOMPCA_EINTERNAL);
	CHECK(contains(sompca_last_error(), "sompca_model_n_samples: internal error"));
	CHECK_OK(sompca_model_n_components(model, &n)); /* the library still works */
	CHECK(n == 2);
	sompca_model_free(model);
}

/* Checks the files and the output of examples/c/fit_hdf5: the printed
 * variances are the saved model's, and the features file holds the
 * transform of the data by that model. */
static void check_example(char **argv)
{
	const char *data = argv[0], *dataset = argv[1], *model_path = argv[2], *features = argv[3],
	           *stdout_path = argv[4];
	sompca_model *model = NULL;
	CHECK_OK(sompca_model_load(&model, model_path));
	size_t p = n_components(model);
	double *variance = xmalloc(p * sizeof *variance);
	CHECK_OK(sompca_model_variance(model, variance, p));
	FILE *f = fopen(stdout_path, "r");
	CHECK(f != NULL);
	char line[512];
	size_t seen = 0;
	while (fgets(line, sizeof line, f)) {
		size_t j;
		double v, r;
		if (sscanf(line, "feature %zu: variance %lg ratio %lg", &j, &v, &r) == 3) {
			CHECK(j == seen && j < p);
			CHECK_MSG(fabs(v - variance[j]) <= 1e-9 * variance[j], "feature %zu: printed %g, saved %g",
			          j, v, variance[j]);
			seen++;
		}
	}
	fclose(f);
	CHECK_MSG(seen == p, "printed %zu features, model has %zu", seen, p);

	hsize_t dims[8];
	size_t order, shape[8], size = 1;
	CHECK_OK(sompca_model_order(model, &order));
	CHECK_OK(sompca_model_shape(model, shape, 8));
	for (size_t k = 0; k < order; k++)
		size *= shape[k];
	size_t cap = 1 << 20;
	double *x = xmalloc(cap * sizeof *x), *z = xmalloc(cap * sizeof *z);
	CHECK(h5data_read(data, dataset, x, cap, dims) == (int)order + 1);
	size_t m = (size_t)dims[0];
	CHECK(h5data_read(features, "/features", z, cap, dims) == 2);
	CHECK(dims[0] == m && dims[1] == p);
	double *want = xmalloc(m * p * sizeof *want);
	CHECK_OK(sompca_transform(model, want, m * p, x, SOMPCA_FLOAT64, m));
	CHECK(max_abs_diff(z, want, m * p) <= 1e-12 * max_abs(want, m * p));
	free(want);
	free(x);
	free(z);
	free(variance);
	sompca_model_free(model);
}

/*
 * Drives a fit session in this process over blocks of the given sizes
 * (cycled through until the samples are covered), each partial computed
 * with a block cache of its own, and returns the model.
 */
/* A session's fit over blocks of the given sizes (cycled); with join, each
 * pair of neighbouring blocks is fed as one partial, joined by
 * sompca_partials_join as the worker that computed both would send it. */
static sompca_model *session_fit(const void *data, int dtype, size_t m, const sompca_options *opts,
                                 const size_t *sizes, size_t n_sizes, int join)
{
	size_t elem = dtype == SOMPCA_FLOAT64 ? 8 : dtype == SOMPCA_FLOAT32 ? 4 : 1;
	double *caches[64] = {0};
	size_t cache_caps[64] = {0};
	sompca_session *s = NULL;
	CHECK_OK(sompca_session_begin(&s, m, 3, shape3, opts));
	int more = 0, passes = 0;
	while (1) {
		CHECK_OK(sompca_session_next(s, &more));
		if (!more)
			break;
		passes++;
		size_t first = 0, held_first = 0, held_len = 0;
		unsigned char *held = NULL; /* the partial of an unpaired block */
		for (size_t b = 0; first < m; b++) {
			CHECK(b < 64);
			size_t n = sizes[b % n_sizes];
			if (n > m - first)
				n = m - first;
			size_t len = 0;
			CHECK_OK(sompca_session_request(s, first, n, NULL, 0, &len));
			unsigned char *request = xmalloc(len);
			CHECK_OK(sompca_session_request(s, first, n, request, len, &len));
			size_t partial_size = 0, cache_size = 0, got_first = 99, got_n = 99;
			CHECK_OK(sompca_pass_info(request, len, &partial_size, &cache_size, &got_first, &got_n));
			CHECK(got_first == first && got_n == n);
			if (cache_size > cache_caps[b]) {
				free(caches[b]);
				caches[b] = calloc(cache_size, sizeof(double));
				cache_caps[b] = cache_size;
			}
			unsigned char *partial = xmalloc(partial_size);
			size_t written = 0;
			CHECK_OK(sompca_pass_partial(partial, partial_size, &written, request, len,
			                             (const unsigned char *)data + first * SIZE * elem, dtype,
			                             cache_size ? caches[b] : NULL, cache_size));
			CHECK(written <= partial_size);
			if (join && held == NULL && first + n < m) {
				held = partial, held_len = written, held_first = first;
			} else if (held != NULL) {
				const void *pair[] = {held, partial};
				size_t lens[] = {held_len, written}, joined_len = 0;
				unsigned char *joined = xmalloc(held_len + written);
				CHECK_STATUS(sompca_partials_join(joined, held_len + written - 1, &joined_len, request, len,
				                                  pair, lens, 2),
				             SOMPCA_ERANGE);
				CHECK_OK(sompca_partials_join(joined, held_len + written, &joined_len, request, len, pair,
				                              lens, 2));
				CHECK_OK(sompca_session_feed(s, held_first, first + n - held_first, joined, joined_len));
				free(joined);
				free(held);
				free(partial);
				held = NULL;
			} else {
				CHECK_OK(sompca_session_feed(s, first, n, partial, written));
				free(partial);
			}
			free(request);
			first += n;
		}
	}
	CHECK(passes > 0);
	sompca_model *model = NULL;
	CHECK_OK(sompca_session_finish(s, &model));
	CHECK(model != NULL);
	sompca_session_free(s);
	for (int b = 0; b < 64; b++)
		free(caches[b]);
	return model;
}

/* Every learned array of two models, compared to tol relative (0: bit for bit). */
static void check_same_model(const sompca_model *a, const sompca_model *b, double tol, const char *what)
{
	size_t p = n_components(a);
	CHECK_MSG(n_components(b) == p, "%s", what);
	double *fa = features_of(a, SOMPCA_FLOAT64), *fb = features_of(b, SOMPCA_FLOAT64);
	double scale = max_abs(fa, M * p);
	if (tol == 0)
		CHECK_MSG(memcmp(fa, fb, M * p * sizeof *fa) == 0, "%s: features differ by %g", what,
		          max_abs_diff(fa, fb, M * p));
	else
		CHECK_MSG(max_abs_diff(fa, fb, M * p) <= tol * scale, "%s: features differ by %g", what,
		          max_abs_diff(fa, fb, M * p));
	double va[SIZE], vb[SIZE];
	CHECK_OK(sompca_model_variance(a, va, SIZE));
	CHECK_OK(sompca_model_variance(b, vb, SIZE));
	for (size_t j = 0; j < p; j++)
		CHECK_MSG(tol == 0 ? va[j] == vb[j] : fabs(va[j] - vb[j]) <= tol * va[0], "%s: variance %zu", what, j);
	free(fa);
	free(fb);
}

/*
 * Exact narrowing: the float64 and float32 arrays holding the uint8 array's
 * values fit to its model bit for bit, with narrowing on (the default: they
 * are read through a uint8 copy) and off (the kernels take the same sums in
 * the same order for every element type); other values are SOMPCA_EINVAL.
 */
static void test_narrowing(void)
{
	int methods[][2] = {{SOMPCA_METHOD_SOMPCA, 1}, {SOMPCA_METHOD_UMPCA, 0}, {SOMPCA_METHOD_PCA, 0},
	                    {SOMPCA_METHOD_MPCA, 0}};
	for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
		sompca_options opts;
		sompca_options_init(&opts);
		CHECK(opts.narrowing == 1);
		opts.method = methods[k][0];
		opts.relaxed_start = methods[k][1];
		opts.n_components = 3;
		opts.max_iter = 4;
		sompca_model *ref = NULL;
		CHECK_OK(sompca_fit(&ref, data_u8, SOMPCA_UINT8, M, 3, shape3, &opts));
		for (int narrowing = 0; narrowing <= 1; narrowing++) {
			int dtypes[] = {SOMPCA_FLOAT64, SOMPCA_FLOAT32};
			for (size_t d = 0; d < 2; d++) {
				opts.narrowing = narrowing;
				sompca_model *got = NULL;
				CHECK_OK(sompca_fit(&got, data_of(dtypes[d]), dtypes[d], M, 3, shape3, &opts));
				char what[80];
				snprintf(what, sizeof what, "method %d, dtype %d, narrowing %d", methods[k][0], dtypes[d],
				         narrowing);
				check_same_model(got, ref, 0, what);
				sompca_model_free(got);
			}
		}
		sompca_model_free(ref);
	}
	sompca_options opts;
	sompca_options_init(&opts);
	opts.narrowing = 2;
	sompca_model *model = NULL;
	CHECK_STATUS(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_EINVAL);
	CHECK_MSG(contains(sompca_last_error(), "opts->narrowing is 2"), "%s", sompca_last_error());
}

/*
 * Fit sessions: driven here block by block, they give the model of
 * sompca_fit (the reference: the same engine over the same samples) bit for
 * bit with blocks of whole grains, to rounding with other blocks; and every
 * misuse gets its status.
 */
static void test_session(void)
{
	/* A larger data set, for blocks of whole grains: 2.5 grains of the
	 * test data repeated with a deterministic perturbation. */
	enum { BIG = 2 * SOMPCA_BLOCK_MULTIPLE + SOMPCA_BLOCK_MULTIPLE / 2 };
	uint8_t *big = xmalloc((size_t)BIG * SIZE);
	for (size_t i = 0; i < (size_t)BIG * SIZE; i++)
		big[i] = (uint8_t)(data_u8[i % (M * SIZE)] + (i * 2654435761u >> 28));
	int methods[][2] = {{SOMPCA_METHOD_SOMPCA, 1}, {SOMPCA_METHOD_FOMPCA, 0}, {SOMPCA_METHOD_TROD, 0},
	                    {SOMPCA_METHOD_UMPCA, 1}, {SOMPCA_METHOD_PCA, 0}, {SOMPCA_METHOD_MPCA, 0},
	                    {SOMPCA_METHOD_CSA, 0}};
	for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
		sompca_options opts;
		sompca_options_init(&opts);
		opts.method = methods[k][0];
		opts.relaxed_start = methods[k][1];
		opts.n_components = methods[k][0] == SOMPCA_METHOD_PCA ? 6 : 3;
		opts.max_iter = 4;
		/* The default mode updates (AUTO) resolve by the data's shape alone,
		 * alike in sompca_fit and sessions: the default fit is the reference. */
		sompca_model *ref = NULL, *scatter = NULL;
		CHECK_OK(sompca_fit(&ref, big, SOMPCA_UINT8, BIG, 3, shape3, &opts));
		char what[64];
		snprintf(what, sizeof what, "method %d, whole grains", methods[k][0]);
		size_t grains[] = {SOMPCA_BLOCK_MULTIPLE, 2 * SOMPCA_BLOCK_MULTIPLE};
		sompca_model *got = session_fit(big, SOMPCA_UINT8, BIG, &opts, grains, 2, 0);
		check_same_model(got, ref, 0, what);
		sompca_model_free(got);
		/* Neighbouring blocks' partials joined: the same model, bit for bit. */
		snprintf(what, sizeof what, "method %d, whole grains joined in pairs", methods[k][0]);
		got = session_fit(big, SOMPCA_UINT8, BIG, &opts, grains, 2, 1);
		check_same_model(got, ref, 0, what);
		sompca_model_free(got);
		/* ... and a session asking for the scatter is sompca_fit's with it. */
		sompca_options local = opts;
		local.mode_updates = SOMPCA_MODE_UPDATES_SCATTER;
		CHECK_OK(sompca_fit(&scatter, big, SOMPCA_UINT8, BIG, 3, shape3, &local));
		snprintf(what, sizeof what, "method %d, scatter", methods[k][0]);
		got = session_fit(big, SOMPCA_UINT8, BIG, &local, grains, 2, 0);
		check_same_model(got, scatter, 0, what);
		sompca_model_free(got);
		snprintf(what, sizeof what, "method %d, scatter, joined in pairs", methods[k][0]);
		got = session_fit(big, SOMPCA_UINT8, BIG, &local, grains, 2, 1);
		check_same_model(got, scatter, 0, what);
		/* The two choices agree to rounding (the features of random data
		 * with well separated eigenvalues: 1e-9 of their scale). */
		check_same_model(got, ref, 1e-9, "scatter against rows");
		sompca_model_free(got);
		sompca_model_free(scatter);
		snprintf(what, sizeof what, "method %d, blocks of 100 and 37", methods[k][0]);
		size_t odd[] = {100, 37};
		got = session_fit(big, SOMPCA_UINT8, BIG, &opts, odd, 2, 0);
		check_same_model(got, ref, 1e-12, what);
		sompca_model_free(got);
		sompca_model_free(ref);
	}
	free(big);

	/* Progress is reported from sompca_session_next, and cancels. */
	sompca_options opts;
	sompca_options_init(&opts);
	opts.relaxed_start = 1;
	opts.progress = progress;
	opts.progress_user = &cancel_at;
	cancel_at = 2;
	progress_calls = 0;
	sompca_session *s = NULL;
	CHECK_OK(sompca_session_begin(&s, M, 3, shape3, &opts));
	int more = 0, status;
	size_t len, plen, written;
	unsigned char request[1 << 16], partial[1 << 20];
	while ((status = sompca_session_next(s, &more)) == SOMPCA_OK && more) {
		CHECK_OK(sompca_session_request(s, 0, M, request, sizeof request, &len));
		CHECK_OK(sompca_pass_info(request, len, &plen, NULL, NULL, NULL));
		CHECK_OK(sompca_pass_partial(partial, sizeof partial, &written, request, len, data_u8,
		                             SOMPCA_UINT8, NULL, 0));
		CHECK_OK(sompca_session_feed(s, 0, M, partial, written));
	}
	CHECK_STATUS(status, SOMPCA_ECANCELED);
	CHECK(progress_calls == 2);
	sompca_model *model = (sompca_model *)&len; /* set to NULL on failure */
	CHECK_STATUS(sompca_session_finish(s, &model), SOMPCA_ECANCELED);
	CHECK(model == NULL);
	sompca_session_free(s);

	/* NaN in a sample: the error names its index in [0, M). */
	double *bad = xmalloc(sizeof data_f64);
	memcpy(bad, data_f64, sizeof data_f64);
	bad[17 * SIZE + 3] = NAN;
	sompca_options_init(&opts);
	CHECK_OK(sompca_session_begin(&s, M, 3, shape3, &opts));
	CHECK_OK(sompca_session_next(s, &more));
	CHECK(more == 1);
	for (size_t first = 0; first < M; first += 8) {
		CHECK_OK(sompca_session_request(s, first, 8, request, sizeof request, &len));
		CHECK_OK(sompca_pass_partial(partial, sizeof partial, &written, request, len, bad + first * SIZE,
		                             SOMPCA_FLOAT64, NULL, 0));
		CHECK_OK(sompca_session_feed(s, first, 8, partial, written));
	}
	CHECK_STATUS(sompca_session_next(s, &more), SOMPCA_EDATA);
	CHECK_MSG(contains(sompca_last_error(), "sample 17 holds a NaN or Inf"), "%s", sompca_last_error());
	CHECK_STATUS(sompca_session_next(s, &more), SOMPCA_EDATA); /* and stays failed */
	sompca_session_free(s);
	free(bad);

	/* Misuse. */
	CHECK_STATUS(sompca_session_begin(NULL, M, 3, shape3, NULL), SOMPCA_EINVAL);
	s = (sompca_session *)&len;
	CHECK_STATUS(sompca_session_begin(&s, M, 0, shape3, NULL), SOMPCA_ESHAPE);
	CHECK(s == NULL);
	CHECK_STATUS(sompca_session_next(NULL, &more), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_session_next((sompca_session *)request, &more), SOMPCA_EHANDLE);
	CHECK_STATUS(sompca_pass_info("not a request", 13, &plen, NULL, NULL, NULL), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_pass_info(NULL, 0, &plen, NULL, NULL, NULL), SOMPCA_EINVAL);
	CHECK_OK(sompca_session_begin(&s, M, 3, shape3, NULL));
	CHECK_STATUS(sompca_session_request(s, 0, M, request, sizeof request, &len), SOMPCA_EINVAL); /* no pass yet */
	CHECK(contains(sompca_last_error(), "sompca_session_next"));
	CHECK_STATUS(sompca_session_finish(s, &model), SOMPCA_EINVAL); /* not finished */
	CHECK_OK(sompca_session_next(s, &more));
	CHECK_STATUS(sompca_session_request(s, 10, M, request, sizeof request, &len), SOMPCA_EINVAL); /* past M */
	CHECK_STATUS(sompca_session_request(s, 0, 0, request, sizeof request, &len), SOMPCA_EINVAL);
	CHECK_STATUS(sompca_session_request(s, 0, M, request, 1, &len), SOMPCA_ERANGE);
	CHECK(len > 1);
	CHECK_OK(sompca_session_request(s, 0, M, request, sizeof request, &len));
	CHECK_STATUS(sompca_pass_partial(partial, 1, &written, request, len, data_u8, SOMPCA_UINT8, NULL, 0),
	             SOMPCA_ERANGE);
	CHECK_STATUS(sompca_pass_partial(partial, sizeof partial, &written, request, len, data_u8, 7, NULL, 0),
	             SOMPCA_EINVAL);
	CHECK_OK(sompca_pass_partial(partial, sizeof partial, &written, request, len, data_u8, SOMPCA_UINT8,
	                             NULL, 0));
	const void *parts[] = {partial, partial};
	size_t part_lens[] = {written, written}, joined_len = 0;
	static unsigned char joined[2 << 20];
	CHECK_STATUS(sompca_partials_join(joined, sizeof joined, &joined_len, request, len, parts, part_lens, 0),
	             SOMPCA_EINVAL);
	CHECK_STATUS(sompca_partials_join(joined, sizeof joined, &joined_len, request, len, parts, NULL, 2),
	             SOMPCA_EINVAL);
	CHECK_STATUS(sompca_partials_join(joined, sizeof joined, &joined_len, request, len, parts, part_lens, 2),
	             SOMPCA_EINVAL); /* the same block twice */
	CHECK(contains(sompca_last_error(), "want a block from sample"));
	CHECK_OK(sompca_partials_join(joined, sizeof joined, &joined_len, request, len, parts, part_lens, 1));
	CHECK(joined_len == written && memcmp(joined, partial, written) == 0); /* one block: itself */
	CHECK_STATUS(sompca_session_feed(s, 8, M - 8, partial, written), SOMPCA_EINVAL); /* not block [8, M) */
	CHECK_STATUS(sompca_session_next(s, &more), SOMPCA_EINVAL); /* the session failed */
	sompca_session_free(s);
	sompca_session_free(NULL);
	sompca_options_init(&opts);
	opts.mode_updates = 3;
	CHECK_STATUS(sompca_session_begin(&s, M, 3, shape3, &opts), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "mode_updates"));

	/* Freed and foreign handles: SOMPCA_EHANDLE from every call (NULL is
	 * SOMPCA_ENOTFITTED), a second free only sets the last error. */
	CHECK_OK(sompca_session_begin(&s, M, 3, shape3, NULL));
	CHECK_OK(sompca_session_next(s, &more));
	sompca_session_free(s);
	CHECK_STATUS(sompca_session_next(s, &more), SOMPCA_EHANDLE);
	CHECK(contains(sompca_last_error(), "not a live sompca session"));
	CHECK_STATUS(sompca_session_request(s, 0, M, request, sizeof request, &len), SOMPCA_EHANDLE);
	CHECK_STATUS(sompca_session_feed(s, 0, M, partial, written), SOMPCA_EHANDLE);
	model = (sompca_model *)&len;
	CHECK_STATUS(sompca_session_finish(s, &model), SOMPCA_EHANDLE);
	CHECK(model == NULL);
	sompca_session_free(s);
	CHECK(contains(sompca_last_error(), "sompca_session_free: session"));
	CHECK_STATUS(sompca_session_request(NULL, 0, M, request, sizeof request, &len), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_session_feed(NULL, 0, M, partial, written), SOMPCA_ENOTFITTED);
	CHECK_STATUS(sompca_session_finish(NULL, &model), SOMPCA_ENOTFITTED);
	/* A model is not a session, nor a session a model. */
	sompca_model *fitted = NULL;
	CHECK_OK(sompca_fit(&fitted, data_f64, SOMPCA_FLOAT64, M, 3, shape3, NULL));
	CHECK_STATUS(sompca_session_next((sompca_session *)fitted, &more), SOMPCA_EHANDLE);
	sompca_session_free((sompca_session *)fitted); /* refused: the model stays */
	CHECK(n_components(fitted) > 0);
	CHECK_OK(sompca_session_begin(&s, M, 3, shape3, NULL));
	size_t p = 0;
	CHECK_STATUS(sompca_model_n_components((const sompca_model *)s, &p), SOMPCA_EHANDLE);
	sompca_model_free((sompca_model *)s); /* refused: the session stays */
	CHECK_OK(sompca_session_next(s, &more));
	sompca_session_free(s);
	sompca_model_free(fitted);
}

/* SOMPCA_MODE_ALL: I0+I1+I2-2 features (the first EMP, the same in every
 * mode, kept once with mode SOMPCA_MODE_ALL); those of mode n and the
 * shared one are, in order and bit for bit, the single-mode fit's
 * (solver/doc.go, "Feature fusion"); no two features have the same
 * projection; the per-feature modes survive a save and load; transform
 * works. */
static void test_mode_all(void)
{
	sompca_options opts;
	sompca_options_init(&opts);
	opts.mode = SOMPCA_MODE_ALL;
	sompca_model *all = NULL;
	CHECK_OK(sompca_fit(&all, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	size_t p = n_components(all);
	CHECK(p == I0 + I1 + I2 - 2);
	int mode = 0;
	CHECK_OK(sompca_model_mode(all, &mode));
	CHECK(mode == SOMPCA_MODE_ALL);
	int64_t modes[I0 + I1 + I2];
	double var[I0 + I1 + I2];
	CHECK_OK(sompca_model_feature_modes(all, modes, p));
	CHECK_OK(sompca_model_variance(all, var, p));
	int shared = 0;
	for (size_t j = 0; j < p; j++)
		shared += modes[j] == SOMPCA_MODE_ALL;
	CHECK(shared == 1);
	{
		/* no two features alike: any two differ in some mode's vector */
		double u[3][I0 * (I0 + I1 + I2)];
		for (size_t q = 0; q < 3; q++)
			CHECK_OK(sompca_model_projection(all, q, u[q], shape3[q] * p));
		for (size_t a = 0; a < p; a++)
			for (size_t b = 0; b < a; b++) {
				int same = 1;
				for (size_t q = 0; q < 3; q++)
					for (size_t r = 0; r < shape3[q]; r++)
						same = same && u[q][r * p + a] == u[q][r * p + b];
				CHECK_MSG(!same, "features %zu and %zu have the same projection", b, a);
			}
	}
	for (int n = 0; n < 3; n++) {
		opts.mode = n;
		sompca_model *one = NULL;
		CHECK_OK(sompca_fit(&one, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
		size_t q = n_components(one);
		CHECK(q == shape3[n]);
		double v1[I0];
		int64_t m1[I0];
		CHECK_OK(sompca_model_variance(one, v1, q));
		CHECK_OK(sompca_model_feature_modes(one, m1, q));
		size_t k = 0;
		for (size_t j = 0; j < p; j++) {
			if (modes[j] == n || modes[j] == SOMPCA_MODE_ALL) {
				CHECK_MSG(k < q && var[j] == v1[k] && m1[k] == n, "mode %d feature %zu", n, k);
				k++;
			}
		}
		CHECK(k == q);
		sompca_model_free(one);
	}
	char *path = path_in(tmpdir, "mode_all.h5");
	CHECK_OK(sompca_model_save(all, path));
	sompca_model *back = NULL;
	CHECK_OK(sompca_model_load(&back, path));
	int64_t modes2[I0 + I1 + I2];
	CHECK_OK(sompca_model_feature_modes(back, modes2, p));
	CHECK(memcmp(modes, modes2, p * sizeof *modes) == 0);
	double *z1 = features_of(all, SOMPCA_FLOAT64), *z2 = features_of(back, SOMPCA_FLOAT64);
	CHECK(memcmp(z1, z2, M * p * sizeof *z1) == 0);
	free(z1);
	free(z2);
	free(path);
	sompca_model_free(back);
	sompca_model_free(all);

	/* PCA ignores the mode (-1 per feature); SOMPCA_MODE_ALL - 1 is refused. */
	sompca_model *pca = fit_with(SOMPCA_METHOD_PCA, 0, 2, SOMPCA_FLOAT64);
	CHECK_OK(sompca_model_feature_modes(pca, modes, 2));
	CHECK(modes[0] == -1 && modes[1] == -1);
	sompca_model_free(pca);
	opts.mode = SOMPCA_MODE_ALL - 1;
	sompca_model *bad = NULL;
	CHECK_STATUS(sompca_fit(&bad, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_EINVAL);
	CHECK(contains(sompca_last_error(), "SOMPCA_MODE_ALL"));
}

/* Fits in a loop until *stop, to keep the Go runtime's threads busy while
 * the main thread forks. */
static void *fit_until(void *stop)
{
	while (!atomic_load((atomic_int *)stop))
		sompca_model_free(fit_with(SOMPCA_METHOD_UMPCA, 0, 3, SOMPCA_FLOAT64));
	return NULL;
}

/* In a child forked after the library was loaded (here while another
 * thread fits), every call fails at once with SOMPCA_EFORK instead of
 * entering the Go runtime, which would hang; the parent goes on working. */
static void test_fork(void)
{
	sompca_model *model = fit_with(SOMPCA_METHOD_SOMPCA, 1, 3, SOMPCA_FLOAT64);
	atomic_int stop = 0;
	pthread_t busy;
	CHECK(pthread_create(&busy, NULL, fit_until, &stop) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(10); /* a hang ends the child by SIGALRM, which the parent reports */
		sompca_model *out = model; /* set to NULL by the failing fit */
		sompca_options opts;
		memset(&opts, 0, sizeof opts);
		sompca_options_init(&opts); /* does nothing in the child */
		int ok = opts.size == 0;
		ok = ok && sompca_fit(&out, data_f64, SOMPCA_FLOAT64, M, 3, shape3, NULL) == SOMPCA_EFORK;
		ok = ok && out == NULL && contains(sompca_last_error(), "sompca_fit: the process forked") &&
		     contains(sompca_last_error(), "'spawn'");
		size_t p = 0;
		ok = ok && sompca_model_n_components(model, &p) == SOMPCA_EFORK && p == 0;
		ok = ok && sompca_model_save(model, "never-written.h5") == SOMPCA_EFORK;
		ok = ok && sompca_model_load(&out, "never-read.h5") == SOMPCA_EFORK && out == NULL;
		sompca_model_free(model);
		ok = ok && contains(sompca_last_error(), "sompca_model_free: the process forked");
		ok = ok && sompca_version_number() == SOMPCA_VERSION_NUMBER;
		_exit(ok ? 0 : 3);
	}
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "forked child: %s %d",
	          WIFEXITED(status) ? "exit status" : "killed by signal",
	          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	atomic_store(&stop, 1);
	CHECK(pthread_join(busy, NULL) == 0);
	CHECK(n_components(model) == 3); /* the parent is unaffected */
	sompca_model_free(model);
}

/* Run under `ulimit -f` (make test-capi does): a save that would exceed
 * the file size limit fails cleanly with SOMPCA_EIO naming the limit,
 * leaves no file in dir, and the process then exits normally (libhdf5
 * crashed at exit after a failed write before). */
static void test_file_size_limit(const char *dir)
{
	enum { MB = 40, IB = 60, JB = 50 };
	static double big[MB * IB * JB];
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		big[i] = sin(0.37 * (double)i) + 0.01 * (double)(i % 97);
	const size_t shape[2] = {IB, JB};
	sompca_options opts;
	sompca_options_init(&opts);
	opts.n_components = 40;
	opts.max_iter = 2;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, big, SOMPCA_FLOAT64, MB, 2, shape, &opts));
	char *path = path_in(dir, "limited-model.h5");
	CHECK_STATUS(sompca_model_save(model, path), SOMPCA_EIO);
	CHECK_MSG(contains(sompca_last_error(), "ulimit -f"), "%s", sompca_last_error());
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		CHECK_MSG(e->d_name[0] == '.', "%s/%s left behind", dir, e->d_name);
	closedir(d);
	free(path);
	sompca_model_free(model);
}

/* A write that fails (a full disk, or EIO and ENOSPC injected into
 * libhdf5's writes by tests/faults/failwrite.c; see test-capi) while a
 * model is saved in dir or the features of a transform are written there:
 * SOMPCA_EIO with a message containing expect, nothing left in dir, the
 * library still usable, and the process then exits normally. The input
 * data file goes to indir, where writes work. */
static void test_write_fault(const char *dir, const char *indir, const char *expect)
{
	enum { MB = 40, MT = 2000, IB = 60, JB = 50 };
	double *big = xmalloc(sizeof(double) * MT * IB * JB);
	for (size_t i = 0; i < (size_t)MT * IB * JB; i++)
		big[i] = sin(0.37 * (double)i) + 0.01 * (double)(i % 97);
	const size_t shape[2] = {IB, JB};
	sompca_options opts;
	sompca_options_init(&opts);
	opts.n_components = 40;
	opts.max_iter = 2;
	sompca_model *model = NULL;
	CHECK_OK(sompca_fit(&model, big, SOMPCA_FLOAT64, MB, 2, shape, &opts));
	char *path = path_in(dir, "model.h5");
	CHECK_STATUS(sompca_model_save(model, path), SOMPCA_EIO);
	CHECK_MSG(contains(sompca_last_error(), expect), "%s", sompca_last_error());
	free(path);

	char *data = path_in(indir, "data.h5");
	const hsize_t dims[3] = {MT, IB, JB}; /* 2000 x 40 features: 640 kB */
	CHECK(h5data_write(data, "/X", H5T_NATIVE_DOUBLE, 3, dims, big) == 0);
	char *out = path_in(dir, "features.h5");
	CHECK_STATUS(sompca_transform_hdf5(model, data, "/X", SOMPCA_LAYOUT_SAMPLES_FIRST, out, "/features", 0),
	             SOMPCA_EIO);
	CHECK_MSG(contains(sompca_last_error(), expect), "%s", sompca_last_error());
	free(out);
	free(data);

	DIR *d = opendir(dir);
	CHECK(d != NULL);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		CHECK_MSG(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0, "%s/%s left behind", dir, e->d_name);
	closedir(d);
	char *elsewhere = path_in(indir, "model.h5"); /* still usable */
	CHECK_OK(sompca_model_save(model, elsewhere));
	free(elsewhere);
	sompca_model_free(model);
	free(big);
}

/* Degenerate data (issue 16): identical non-integer samples are the
 * zero-variance SOMPCA_EDATA for every method (their computed mean differs
 * from them by rounding, which left a variance of 1e-31 that the methods
 * fitted features to). UMPCA-RS on data scaled by 1e154 raised "internal
 * error: invalid QR factorization" before: now data scaled by 1e150 fit
 * with the variances scaled by 1e300 (the identity Var(cX) = c^2 Var(X)),
 * and by 1e154, whose variances (about 1e313 here) leave float64's range,
 * are SOMPCA_EDATA naming the scale. */
static void test_degenerate(void)
{
	double *same = xmalloc(sizeof data_f64), *big = xmalloc(sizeof data_f64);
	for (int m = 0; m < M; m++)
		for (int i = 0; i < SIZE; i++)
			same[m * SIZE + i] = sin(1.3 * i) + 0.1;
	for (int i = 0; i < M * SIZE; i++)
		big[i] = data_f64[i] * 1e150;
	sompca_model *model = NULL;
	for (int method = SOMPCA_METHOD_SOMPCA; method <= SOMPCA_METHOD_CSA; method++) {
		sompca_options opts;
		sompca_options_init(&opts);
		opts.method = method;
		CHECK_STATUS(sompca_fit(&model, same, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_EDATA);
		CHECK_MSG(contains(sompca_last_error(), "zero variance"), "method %d: %s", method, sompca_last_error());
		CHECK(model == NULL);
	}
	sompca_options opts;
	sompca_options_init(&opts);
	opts.method = SOMPCA_METHOD_UMPCA;
	opts.relaxed_start = 1;
	opts.n_components = 2;
	sompca_model *ref = NULL;
	CHECK_OK(sompca_fit(&ref, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	CHECK_OK(sompca_fit(&model, big, SOMPCA_FLOAT64, M, 3, shape3, &opts));
	double v[2], w[2];
	CHECK_OK(sompca_model_variance(ref, v, 2));
	CHECK_OK(sompca_model_variance(model, w, 2));
	for (int j = 0; j < 2; j++)
		CHECK_MSG(fabs(w[j] / 1e300 - v[j]) <= 1e-9 * v[j], "variance %d: %g at scale 1e150, %g at 1", j, w[j], v[j]);
	sompca_model_free(model);
	model = NULL;
	for (int i = 0; i < M * SIZE; i++)
		big[i] = data_f64[i] * 1e154;
	CHECK_STATUS(sompca_fit(&model, big, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_EDATA);
	CHECK_MSG(contains(sompca_last_error(), "scale"), "%s", sompca_last_error());
	sompca_model_free(ref);
	free(same);
	free(big);
}

/* Run under `ulimit -v` (make test-capi does): SO-MPCA on 10 vectors of
 * 12,000 needs about 5 GiB of scatter matrices, beyond the address space
 * limit: SOMPCA_ENOMEM naming the limit, before anything large is
 * allocated (the Go runtime aborted the process before), and the library
 * still works. */
static void test_address_space_limit(void)
{
	enum { MV = 10, D = 12000 };
	double *x = xmalloc(sizeof(double) * MV * D);
	for (size_t i = 0; i < (size_t)MV * D; i++)
		x[i] = sin(0.37 * (double)i);
	const size_t shape[1] = {D};
	sompca_options opts;
	sompca_options_init(&opts);
	opts.n_components = 2;
	sompca_model *model = NULL;
	CHECK_STATUS(sompca_fit(&model, x, SOMPCA_FLOAT64, MV, 1, shape, &opts), SOMPCA_ENOMEM);
	CHECK_MSG(contains(sompca_last_error(), "RLIMIT_AS"), "%s", sompca_last_error());
	CHECK(model == NULL);
	const size_t small[1] = {50};
	CHECK_OK(sompca_fit(&model, x, SOMPCA_FLOAT64, MV, 1, small, &opts)); /* still usable */
	sompca_model_free(model);
	free(x);
}

static void *set_after_100ms(void *flag)
{
	struct timespec pause = {0, 100 * 1000 * 1000};
	nanosleep(&pause, NULL);
	*(volatile int *)flag = 1;
	return NULL;
}

/* sompca_cancel_flag: a fit of 10^6 sweeps (minutes) stops soon after
 * another thread sets the flag, with SOMPCA_ECANCELED and no model; a
 * transform with the flag set does nothing; without the flag, and on
 * other threads, calls work as before. */
static void test_cancel_flag(void)
{
	static volatile int flag;
	sompca_options opts;
	sompca_options_init(&opts);
	opts.max_iter = 1000000;
	opts.n_components = 2;
	flag = 0;
	sompca_cancel_flag(&flag);
	pthread_t setter;
	CHECK(pthread_create(&setter, NULL, set_after_100ms, (void *)&flag) == 0);
	sompca_model *model = (sompca_model *)&flag; /* set to NULL by the cancelled fit */
	alarm(60); /* an uncancelled fit would run for minutes: end the test by SIGALRM */
	CHECK_STATUS(sompca_fit(&model, data_f64, SOMPCA_FLOAT64, M, 3, shape3, &opts), SOMPCA_ECANCELED);
	alarm(0);
	CHECK(model == NULL);
	CHECK(pthread_join(setter, NULL) == 0);

	sompca_cancel_flag(NULL);
	sompca_model *fitted = fit_with(SOMPCA_METHOD_SOMPCA, 1, 3, SOMPCA_FLOAT64); /* no flag: works */
	double z[M * 3];
	sompca_cancel_flag(&flag); /* still set */
	CHECK_STATUS(sompca_transform(fitted, z, M * 3, data_f64, SOMPCA_FLOAT64, M), SOMPCA_ECANCELED);
	flag = 0;
	CHECK_OK(sompca_transform(fitted, z, M * 3, data_f64, SOMPCA_FLOAT64, M));
	sompca_cancel_flag(NULL);
	sompca_model_free(fitted);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--panic") == 0) {
		test_panic();
		check_report();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--file-size-limit") == 0) {
		test_file_size_limit(argv[2]);
		check_report();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--address-space-limit") == 0) {
		test_address_space_limit();
		check_report();
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "--write-fault") == 0) {
		test_write_fault(argv[2], argv[3], argv[4]);
		check_report();
		return 0;
	}
	if (argc == 7 && strcmp(argv[1], "--check-example") == 0) {
		check_example(argv + 2);
		check_report();
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: test_capi GODIR TMPDIR | --panic | --file-size-limit DIR | --address-space-limit | --write-fault DIR INDIR EXPECT | --check-example DATA DATASET MODEL FEATURES STDOUT\n");
		return 2;
	}
	tmpdir = argv[2];
	size_t len;
	char *data_path = path_in(argv[1], "data.u8");
	uint8_t *bytes = read_file(data_path, &len);
	CHECK_MSG(len == sizeof data_u8, "%s has %zu bytes, want %zu", data_path, len, sizeof data_u8);
	memcpy(data_u8, bytes, len);
	for (int i = 0; i < M * SIZE; i++) {
		data_f64[i] = data_u8[i];
		data_f32[i] = data_u8[i];
	}
	free(bytes);
	free(data_path);

	test_version();
	test_errstr();
	test_options_init();
	test_options_defaults();
	test_method_names();
	test_accessors();
	test_dtypes();
	test_strided();
	test_go_equality(argv[1]);
	test_progress();
	test_errors();
	test_handles();
	test_hdf5();
	test_serialize();
	test_inverse_transform();
	test_read_failure();
	test_read_progress();
	test_threads();
	test_session();
	test_narrowing();
	test_mode_all();
	test_fork();
	test_cancel_flag();
	test_degenerate();
	check_report();
	return 0;
}
