/*
 * sompca_r.c - the R package's .Call layer over libsompca's C ABI
 * (include/sompca.h): a model is an external pointer freed by its
 * finalizer; arrays cross in the library's C order and R/sompca.R gives
 * them R's shapes. Errors are R errors carrying the library's message.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#define R_NO_REMAP
#include <R.h>
#include <R_ext/Rdynload.h>
#include <Rinternals.h>

#include "sompca.h"

/* Raises the library's last error as an R error (after the caller freed
 * what it holds: Rf_error does not return). */
static void fail(int status)
{
	char msg[2200];
	const char *m = sompca_last_error();
	strncpy(msg, m[0] ? m : sompca_errstr(status), sizeof msg - 1);
	msg[sizeof msg - 1] = '\0';
	Rf_error("%s", msg);
}

static void finalize(SEXP ptr)
{
	sompca_model *model = R_ExternalPtrAddr(ptr);
	if (model != NULL) {
		sompca_model_free(model);
		R_ClearExternalPtr(ptr);
	}
}

static SEXP wrap(sompca_model *model)
{
	SEXP ptr = PROTECT(R_MakeExternalPtr(model, Rf_install("sompca_model"), R_NilValue));
	R_RegisterCFinalizerEx(ptr, finalize, TRUE);
	UNPROTECT(1);
	return ptr;
}

/* The model of an external pointer (R/sompca.R remakes a pointer that
 * saveRDS or save left NULL from the model's file bytes). */
static const sompca_model *model_of(SEXP ptr)
{
	const sompca_model *model;
	if (TYPEOF(ptr) != EXTPTRSXP)
		Rf_error("not a sompca model handle");
	model = R_ExternalPtrAddr(ptr);
	if (model == NULL)
		Rf_error("the model's library handle is gone");
	return model;
}

/* .Call("sompca_r_alive", ptr): whether the pointer holds a model. */
SEXP sompca_r_alive(SEXP ptr)
{
	return Rf_ScalarLogical(TYPEOF(ptr) == EXTPTRSXP && R_ExternalPtrAddr(ptr) != NULL);
}

/* .Call("sompca_r_serialize", ptr): the bytes of the model's file (raw). */
SEXP sompca_r_serialize(SEXP ptr)
{
	const sompca_model *model = model_of(ptr);
	size_t len;
	int status;
	SEXP out;
	if ((status = sompca_model_serialize(model, NULL, 0, &len)) != SOMPCA_OK)
		fail(status);
	out = PROTECT(Rf_allocVector(RAWSXP, (R_xlen_t)len));
	if ((status = sompca_model_serialize(model, RAW(out), len, &len)) != SOMPCA_OK)
		fail(status);
	UNPROTECT(1);
	return out;
}

/* .Call("sompca_r_deserialize", bytes): the model of a model file's bytes
 * (the library checks them: a corrupt file is an error). */
SEXP sompca_r_deserialize(SEXP bytes)
{
	sompca_model *model = NULL;
	int status;
	if (TYPEOF(bytes) != RAWSXP || XLENGTH(bytes) == 0)
		Rf_error("the model's file must be the raw bytes of a model file");
	status = sompca_model_deserialize(&model, RAW(bytes), (size_t)XLENGTH(bytes));
	if (status != SOMPCA_OK)
		fail(status);
	return wrap(model);
}

/* The samples: data pointer, dtype and element count. */
static const void *samples(SEXP x, int *dtype, size_t *numel)
{
	*numel = (size_t)XLENGTH(x);
	switch (TYPEOF(x)) {
	case REALSXP:
		*dtype = SOMPCA_FLOAT64;
		return REAL(x);
	case RAWSXP:
		*dtype = SOMPCA_UINT8;
		return RAW(x);
	default:
		Rf_error("samples must be double or raw here (sompca_fit converts other types)");
	}
	return NULL;
}

static volatile int cancel_requested;
static void (*previous_sigint)(int);

static void on_sigint(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

/* Ctrl-C cancels the library's long calls between these two. */
static void begin_cancellable(void)
{
	cancel_requested = 0;
	sompca_cancel_flag(&cancel_requested);
	previous_sigint = signal(SIGINT, on_sigint);
}

static void end_cancellable(void)
{
	if (previous_sigint != SIG_ERR)
		signal(SIGINT, previous_sigint);
	sompca_cancel_flag(NULL);
}

static int progress(void *user, int done, int total, double variance)
{
	if (*(const int *)user) {
		if (variance != 0)
			REprintf("sompca: %d/%d, captured variance %.6g\n", done, total, variance);
		else
			REprintf("sompca: %d/%d\n", done, total);
	}
	return cancel_requested;
}

static double number(SEXP opts, const char *name)
{
	SEXP names = Rf_getAttrib(opts, R_NamesSymbol);
	R_xlen_t i;
	for (i = 0; i < XLENGTH(opts); i++)
		if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
			return Rf_asReal(VECTOR_ELT(opts, i));
	Rf_error("internal: option %s missing", name);
	return 0;
}

/* .Call("sompca_r_fit", x, shape, method, opts): opts a named list of
 * numbers (n_components, mode, max_iter, tol, n_threads, q, verbose),
 * checked in R. */
SEXP sompca_r_fit(SEXP x, SEXP shape_arg, SEXP method_arg, SEXP opts_arg)
{
	sompca_options opts;
	sompca_model *model = NULL;
	size_t shape[32], order, numel, size = 1, n;
	const void *data;
	int dtype, status, relaxed, verbose;

	data = samples(x, &dtype, &numel);
	order = (size_t)XLENGTH(shape_arg);
	if (TYPEOF(shape_arg) != REALSXP || order < 1 || order > 32)
		Rf_error("the sample shape must have 1 to 32 modes");
	for (n = 0; n < order; n++) {
		shape[n] = (size_t)REAL(shape_arg)[n];
		size *= shape[n];
	}
	if (numel == 0 || size == 0 || numel % size != 0)
		Rf_error("the samples do not hold whole samples of the shape");
	sompca_options_init(&opts);
	status = sompca_method_from_name(CHAR(STRING_ELT(method_arg, 0)), &opts.method, &relaxed);
	if (status != SOMPCA_OK)
		fail(status);
	opts.relaxed_start = relaxed;
	opts.n_components = (int)number(opts_arg, "n_components");
	opts.mode = (int)number(opts_arg, "mode");
	opts.max_iter = (int)number(opts_arg, "max_iter");
	opts.tol = number(opts_arg, "tol");
	opts.n_threads = (int)number(opts_arg, "n_threads");
	opts.q = number(opts_arg, "q");
	verbose = number(opts_arg, "verbose") != 0;
	opts.progress = progress;
	opts.progress_user = &verbose;

	begin_cancellable();
	status = sompca_fit(&model, data, dtype, numel / size, order, shape, &opts);
	end_cancellable();
	if (status != SOMPCA_OK)
		fail(status);
	return wrap(model);
}

SEXP sompca_r_load(SEXP path)
{
	sompca_model *model = NULL;
	int status = sompca_model_load(&model, CHAR(STRING_ELT(path, 0)));
	if (status != SOMPCA_OK)
		fail(status);
	return wrap(model);
}

SEXP sompca_r_save(SEXP ptr, SEXP path)
{
	int status = sompca_model_save(model_of(ptr), CHAR(STRING_ELT(path, 0)));
	if (status != SOMPCA_OK)
		fail(status);
	return R_NilValue;
}

/* .Call("sompca_r_transform", model, x): the features, a P x M matrix
 * (the library's row-major M x P; R transposes). */
SEXP sompca_r_transform(SEXP ptr, SEXP x)
{
	const sompca_model *model = model_of(ptr);
	size_t shape[32], order, numel, size = 1, p, n, m, need;
	const void *data;
	int dtype, status;
	SEXP out;

	data = samples(x, &dtype, &numel);
	if ((status = sompca_model_order(model, &order)) != SOMPCA_OK ||
	    (status = sompca_model_shape(model, shape, 32)) != SOMPCA_OK ||
	    (status = sompca_model_n_components(model, &p)) != SOMPCA_OK)
		fail(status);
	for (n = 0; n < order; n++)
		size *= shape[n];
	if (numel % size != 0)
		Rf_error("the samples do not hold whole samples of the model's shape");
	m = numel / size;
	if ((status = sompca_transform_size(model, m, &need)) != SOMPCA_OK)
		fail(status);
	out = PROTECT(Rf_allocMatrix(REALSXP, (int)p, (int)m));
	begin_cancellable();
	status = sompca_transform(model, REAL(out), need, m > 0 ? data : NULL, dtype, m);
	end_cancellable();
	if (status != SOMPCA_OK)
		fail(status);
	UNPROTECT(1);
	return out;
}

static SEXP doubles(const double *src, size_t n)
{
	SEXP v = Rf_allocVector(REALSXP, (R_xlen_t)n);
	if (n > 0)
		memcpy(REAL(v), src, n * sizeof(double));
	return v;
}

static SEXP int64s(const int64_t *src, size_t n)
{
	SEXP v = Rf_allocVector(REALSXP, (R_xlen_t)n);
	size_t i;
	for (i = 0; i < n; i++)
		REAL(v)[i] = (double)src[i];
	return v;
}

/* .Call("sompca_r_info", model): the model's contents in the library's
 * conventions (C order, 0-based modes): a named list. */
SEXP sompca_r_info(SEXP ptr)
{
	static const char *names[] = {"method", "shape", "n_components", "n_samples", "mode", "projections",
	                              "variance", "variance_ratio", "mean", "extraction", "iterations",
	                              "history", "feature_modes", "ranks", "max_iter", "tol", "q", ""};
	const sompca_model *model = model_of(ptr);
	size_t order, p, m, n, j, size = 1, largest = 0, len, shape[32], ranks[32], hlen;
	int method, relaxed, mode, status;
	sompca_options opts;
	double *buf;
	SEXP info, cell, v;
	const char *name;

	if ((status = sompca_model_method(model, &method, &relaxed)) != SOMPCA_OK ||
	    (status = sompca_model_order(model, &order)) != SOMPCA_OK ||
	    (status = sompca_model_shape(model, shape, 32)) != SOMPCA_OK ||
	    (status = sompca_model_n_components(model, &p)) != SOMPCA_OK ||
	    (status = sompca_model_n_samples(model, &m)) != SOMPCA_OK ||
	    (status = sompca_model_mode(model, &mode)) != SOMPCA_OK ||
	    (status = sompca_model_options(model, &opts)) != SOMPCA_OK)
		fail(status);
	for (n = 0; n < order; n++) {
		size *= shape[n];
		if (shape[n] > largest)
			largest = shape[n];
	}
	len = (method == SOMPCA_METHOD_PCA ? size : largest) * p;
	if (len < size)
		len = size;
	if (len < p)
		len = p;
	/* R_alloc: freed by R at the end of the call, also on error. */
	buf = (double *)R_alloc(len + 1, sizeof(double));

	info = PROTECT(Rf_mkNamed(VECSXP, names));
	name = sompca_method_name(method, relaxed);
	SET_VECTOR_ELT(info, 0, Rf_mkString(name ? name : "unknown"));
	v = Rf_allocVector(REALSXP, (R_xlen_t)order);
	SET_VECTOR_ELT(info, 1, v);
	for (n = 0; n < order; n++)
		REAL(v)[n] = (double)shape[n];
	SET_VECTOR_ELT(info, 2, Rf_ScalarReal((double)p));
	SET_VECTOR_ELT(info, 3, Rf_ScalarReal((double)m));
	SET_VECTOR_ELT(info, 4, Rf_ScalarReal(mode));
	n = method == SOMPCA_METHOD_PCA ? 1 : order;
	cell = Rf_allocVector(VECSXP, (R_xlen_t)n);
	SET_VECTOR_ELT(info, 5, cell);
	for (j = 0; j < n; j++) {
		if ((status = sompca_model_projection(model, j, buf, len)) != SOMPCA_OK)
			fail(status);
		SET_VECTOR_ELT(cell, j, doubles(buf, (method == SOMPCA_METHOD_PCA ? size : shape[j]) * p));
	}
	if ((status = sompca_model_variance(model, buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 6, doubles(buf, p));
	if ((status = sompca_model_variance_ratio(model, buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 7, doubles(buf, p));
	if ((status = sompca_model_mean(model, buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 8, doubles(buf, size));
	if ((status = sompca_model_extraction(model, (int64_t *)buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 9, int64s((int64_t *)buf, p));
	if ((status = sompca_model_iterations(model, (int64_t *)buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 10, int64s((int64_t *)buf, p));
	cell = Rf_allocVector(VECSXP, (R_xlen_t)p);
	SET_VECTOR_ELT(info, 11, cell);
	for (j = 0; j < p; j++) {
		if ((status = sompca_model_history(model, j, NULL, 0, &hlen)) != SOMPCA_OK)
			fail(status);
		v = Rf_allocVector(REALSXP, (R_xlen_t)hlen);
		SET_VECTOR_ELT(cell, j, v);
		if (hlen > 0 && (status = sompca_model_history(model, j, REAL(v), hlen, &hlen)) != SOMPCA_OK)
			fail(status);
	}
	if ((status = sompca_model_feature_modes(model, (int64_t *)buf, len)) != SOMPCA_OK)
		fail(status);
	SET_VECTOR_ELT(info, 12, int64s((int64_t *)buf, p));
	if (method == SOMPCA_METHOD_MPCA || method == SOMPCA_METHOD_CSA) {
		if ((status = sompca_model_ranks(model, ranks, 32)) != SOMPCA_OK)
			fail(status);
		v = Rf_allocVector(REALSXP, (R_xlen_t)order);
		SET_VECTOR_ELT(info, 13, v);
		for (n = 0; n < order; n++)
			REAL(v)[n] = (double)ranks[n];
	}
	SET_VECTOR_ELT(info, 14, Rf_ScalarReal(opts.max_iter));
	SET_VECTOR_ELT(info, 15, Rf_ScalarReal(opts.tol));
	SET_VECTOR_ELT(info, 16, Rf_ScalarReal(opts.q));
	UNPROTECT(1);
	return info;
}

SEXP sompca_r_version(void)
{
	return Rf_mkString(sompca_version());
}

static const R_CallMethodDef calls[] = {
	{"sompca_r_fit", (DL_FUNC)&sompca_r_fit, 4},
	{"sompca_r_load", (DL_FUNC)&sompca_r_load, 1},
	{"sompca_r_save", (DL_FUNC)&sompca_r_save, 2},
	{"sompca_r_transform", (DL_FUNC)&sompca_r_transform, 2},
	{"sompca_r_info", (DL_FUNC)&sompca_r_info, 1},
	{"sompca_r_version", (DL_FUNC)&sompca_r_version, 0},
	{"sompca_r_alive", (DL_FUNC)&sompca_r_alive, 1},
	{"sompca_r_serialize", (DL_FUNC)&sompca_r_serialize, 1},
	{"sompca_r_deserialize", (DL_FUNC)&sompca_r_deserialize, 1},
	{NULL, NULL, 0},
};

void R_init_sompca(DllInfo *dll)
{
	R_registerRoutines(dll, NULL, calls, NULL, NULL);
	R_useDynamicSymbols(dll, FALSE);
}
