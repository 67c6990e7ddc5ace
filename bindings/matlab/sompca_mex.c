/*
 * sompca_mex.c - the one MEX gateway of the MATLAB/Octave binding: a thin
 * layer over libsompca's C ABI (include/sompca.h), written against the
 * MATLAB C MEX API only, so that it builds with Octave's `mkoctfile --mex`
 * and MATLAB's `mex`. The .m wrappers (sompca_fit, sompca_transform,
 * sompca_save, sompca_load) call it; it is not meant to be called directly.
 *
 *   info = sompca_mex('fit', X, shape, opts)
 *       Fits the samples X (double, single, uint8 or logical) whose memory
 *       is the C-order array M x shape(1) x ... x shape(N) and returns the
 *       model's contents (see model_info), its file's bytes in info.file.
 *   info = sompca_mex('load', path)        the same of a model file
 *   F = sompca_mex('transform', file, X)   M x P features of X (memory as
 *                                          for 'fit'); file: info.file
 *   sompca_mex('save', file, path)         writes info.file's model to path
 *
 * Arrays cross over in C order as the library gives them; the .m wrappers
 * turn them into MATLAB's column-major conventions.
 *
 * Ctrl-C cancels a fit or transform (the error sompca:canceled) through
 * the library's cancellation flag (sompca_cancel_flag), which is
 *   - built with -DSOMPCA_OCTAVE_INTERRUPT (make octave does): Octave's
 *     flag of caught signals, octave_signal_caught, read every few ms;
 *   - otherwise: set by a SIGINT handler of ours during the call (a
 *     terminal MATLAB, mex on the command line); built with
 *     -DSOMPCA_MATLAB_INTERRUPT (and -lut), the progress callback also
 *     polls MATLAB's utIsInterruptPending, so the desktop's Ctrl-C
 *     cancels after the current EMP (or MPCA/CSA sweep).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"
#include "sompca.h"

#ifdef SOMPCA_MATLAB_INTERRUPT
extern bool utIsInterruptPending(void);
#endif

/* The MATLAB error identifier of a library status. */
static const char *status_id(int status)
{
	switch (status) {
	case SOMPCA_EINVAL:
	case SOMPCA_ESHAPE:
		return "sompca:badInput";
	case SOMPCA_EDATA:
		return "sompca:badData";
	case SOMPCA_EIO:
	case SOMPCA_ENOTFOUND:
	case SOMPCA_ELINK:
	case SOMPCA_ELOCKED:
	case SOMPCA_EPERM:
		return "sompca:io";
	case SOMPCA_EFILE:
	case SOMPCA_EFILTER:
	case SOMPCA_ETYPE:
	case SOMPCA_EVERSION:
		return "sompca:badFile";
	case SOMPCA_ENOMEM:
		return "sompca:outOfMemory";
	case SOMPCA_ECANCELED:
		return "sompca:canceled";
	case SOMPCA_ENOTFITTED:
	case SOMPCA_EHANDLE:
		return "sompca:badModel";
	case SOMPCA_ENUMERICAL:
		return "sompca:numerical";
	default:
		return "sompca:internal";
	}
}

/* Raises the library's last error as a MATLAB error. The caller frees what
 * it holds first: mexErrMsgIdAndTxt does not return. */
static void fail(int status)
{
	const char *msg = sompca_last_error();
	mexErrMsgIdAndTxt(status_id(status), "%s", msg[0] ? msg : sompca_errstr(status));
}

static void bad_input(const char *msg)
{
	mexErrMsgIdAndTxt("sompca:badInput", "sompca: %s", msg);
}

/* A char argument copied into a buffer allocated by the MEX API (freed
 * with the call). */
static char *string_arg(const mxArray *a, const char *what)
{
	char *s;
	if (!mxIsChar(a))
		mexErrMsgIdAndTxt("sompca:badInput", "sompca: %s must be a character vector", what);
	s = mxArrayToString(a);
	if (s == NULL)
		mexErrMsgIdAndTxt("sompca:badInput", "sompca: %s must be a character vector", what);
	return s;
}

/* The samples: their data pointer and dtype; numel is their element count.
 * logical is read as uint8 (mxLogical is one byte, 0 or 1). */
static const void *samples_arg(const mxArray *x, int *dtype, size_t *numel)
{
	if (mxIsComplex(x) || mxIsSparse(x))
		bad_input("X must be a real, full array");
	switch (mxGetClassID(x)) {
	case mxDOUBLE_CLASS:
		*dtype = SOMPCA_FLOAT64;
		break;
	case mxSINGLE_CLASS:
		*dtype = SOMPCA_FLOAT32;
		break;
	case mxUINT8_CLASS:
	case mxLOGICAL_CLASS:
		*dtype = SOMPCA_UINT8;
		break;
	default:
		bad_input("X must be double, single, uint8 or logical here (the .m wrappers convert other classes)");
	}
	*numel = mxGetNumberOfElements(x);
	return mxGetData(x);
}

/* A field of the options struct as a double; def when absent or empty. */
static double option(const mxArray *opts, const char *name, double def)
{
	const mxArray *f = mxGetField(opts, 0, name);
	if (f == NULL || mxIsEmpty(f))
		return def;
	if (!mxIsDouble(f) || mxIsComplex(f) || mxGetNumberOfElements(f) != 1)
		mexErrMsgIdAndTxt("sompca:badInput", "sompca: option %s must be a real scalar", name);
	return mxGetScalar(f);
}

/* A whole number option in [lo, hi]. */
static int int_option(const mxArray *opts, const char *name, double def, double lo, double hi)
{
	double v = option(opts, name, def);
	if (!(v >= lo && v <= hi) || v != (double)(int)v)
		mexErrMsgIdAndTxt("sompca:badInput", "sompca: %s must be an integer in [%g, %g], got %g", name, lo, hi, v);
	return (int)v;
}

#ifdef SOMPCA_OCTAVE_INTERRUPT
/* Octave takes signals on a thread of its own (sigwait), so no handler of
 * ours would run: its flag of caught signals, set on Ctrl-C, is the
 * library's cancellation flag. liboctave's quit.h declares it. */
extern volatile sig_atomic_t octave_signal_caught;
#define cancel_requested octave_signal_caught

static void begin_cancellable(void)
{
	sompca_cancel_flag((const volatile int *)&octave_signal_caught);
}

/* A cancelled call consumes the signal: the caller gets sompca:canceled,
 * an error that try/catch sees, not Octave's interrupt. */
static void end_cancellable(int status)
{
	sompca_cancel_flag(NULL);
	if (status == SOMPCA_ECANCELED)
		octave_signal_caught = 0;
}
#else
static volatile int cancel_requested;
static void (*previous_sigint)(int);

static void on_sigint(int sig)
{
	(void)sig;
	cancel_requested = 1;
}

/* Ctrl-C cancels the library's long calls between begin_cancellable and
 * end_cancellable (which restores the host's own handler). */
static void begin_cancellable(void)
{
	cancel_requested = 0;
	sompca_cancel_flag(&cancel_requested);
	previous_sigint = signal(SIGINT, on_sigint);
}

static void end_cancellable(int status)
{
	(void)status;
	if (previous_sigint != SIG_ERR)
		signal(SIGINT, previous_sigint);
	sompca_cancel_flag(NULL);
}
#endif

static int progress(void *user, int done, int total, double variance)
{
	if (*(const int *)user) {
		if (variance != 0)
			mexPrintf("sompca: %d/%d, captured variance %.6g\n", done, total, variance);
		else
			mexPrintf("sompca: %d/%d\n", done, total);
#ifdef SOMPCA_MATLAB_INTERRUPT
		mexEvalString("drawnow;"); /* the desktop shows it now */
#endif
	}
#ifdef SOMPCA_MATLAB_INTERRUPT
	if (utIsInterruptPending())
		cancel_requested = 1;
#endif
	return cancel_requested;
}

static mxArray *row_major_to_mx(const double *src, size_t rows, size_t cols)
{
	/* A rows x cols MATLAB matrix from a row-major buffer. */
	mxArray *a = mxCreateDoubleMatrix(rows, cols, mxREAL);
	double *dst = mxGetPr(a);
	size_t i, j;
	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++)
			dst[i + j * rows] = src[i * cols + j];
	return a;
}

static mxArray *int64_column(const int64_t *src, size_t n, double add)
{
	mxArray *a = mxCreateDoubleMatrix(n, 1, mxREAL);
	double *dst = mxGetPr(a);
	size_t i;
	for (i = 0; i < n; i++)
		dst[i] = (double)src[i] + add;
	return a;
}

/* Frees the model, then raises status (used after a failed accessor). */
static void fail_with(sompca_model *model, void *buf, int status)
{
	char msg[2200];
	const char *m = sompca_last_error();
	snprintf(msg, sizeof msg, "%s", m[0] ? m : sompca_errstr(status));
	mxFree(buf);
	sompca_model_free(model);
	mexErrMsgIdAndTxt(status_id(status), "%s", msg);
}

#define CHECK(call)                                          \
	do {                                                     \
		int status_ = (call);                                \
		if (status_ != SOMPCA_OK)                            \
			fail_with(model, buf, status_);                  \
	} while (0)

/*
 * The model's contents as a struct, in the library's conventions (C-order
 * arrays, 0-based modes): the .m wrappers convert. Frees model.
 */
static mxArray *model_info(sompca_model *model)
{
	static const char *fields[] = {"method", "shape", "n_components", "n_samples", "mode", "projections",
	                               "variance", "variance_ratio", "mean", "extraction", "iterations",
	                               "history", "feature_modes", "ranks", "max_iter", "tol", "q", "file"};
	size_t order, p, m, n, j, size = 1, rows, largest = 0, len;
	size_t shape[32];
	int method, relaxed, mode;
	double *buf = NULL;
	int64_t *ibuf;
	sompca_options opts;
	mxArray *info, *cell, *a;
	const char *name;

	CHECK(sompca_model_method(model, &method, &relaxed));
	CHECK(sompca_model_order(model, &order));
	CHECK(sompca_model_shape(model, shape, 32));
	CHECK(sompca_model_n_components(model, &p));
	CHECK(sompca_model_n_samples(model, &m));
	CHECK(sompca_model_mode(model, &mode));
	CHECK(sompca_model_options(model, &opts));
	for (n = 0; n < order; n++) {
		size *= shape[n];
		if (shape[n] > largest)
			largest = shape[n];
	}
	rows = method == SOMPCA_METHOD_PCA ? size : largest;
	/* One scratch buffer for every accessor: the largest array is a
	 * projection matrix or the mean. */
	len = rows * p > size ? rows * p : size;
	if (len < p)
		len = p;
	buf = mxMalloc((len + 1) * sizeof(double));
	ibuf = (int64_t *)buf;

	info = mxCreateStructMatrix(1, 1, sizeof fields / sizeof fields[0], fields);
	name = sompca_method_name(method, relaxed);
	mxSetField(info, 0, "method", mxCreateString(name ? name : "unknown"));
	a = mxCreateDoubleMatrix(1, order, mxREAL);
	for (n = 0; n < order; n++)
		mxGetPr(a)[n] = (double)shape[n];
	mxSetField(info, 0, "shape", a);
	mxSetField(info, 0, "n_components", mxCreateDoubleScalar((double)p));
	mxSetField(info, 0, "n_samples", mxCreateDoubleScalar((double)m));
	mxSetField(info, 0, "mode", mxCreateDoubleScalar(mode));

	if (method == SOMPCA_METHOD_PCA) {
		cell = mxCreateCellMatrix(1, 1);
		CHECK(sompca_model_projection(model, 0, buf, len));
		mxSetCell(cell, 0, row_major_to_mx(buf, size, p));
	} else {
		cell = mxCreateCellMatrix(1, order);
		for (n = 0; n < order; n++) {
			CHECK(sompca_model_projection(model, n, buf, len));
			mxSetCell(cell, n, row_major_to_mx(buf, shape[n], p));
		}
	}
	mxSetField(info, 0, "projections", cell);
	CHECK(sompca_model_variance(model, buf, len));
	mxSetField(info, 0, "variance", row_major_to_mx(buf, p, 1));
	CHECK(sompca_model_variance_ratio(model, buf, len));
	mxSetField(info, 0, "variance_ratio", row_major_to_mx(buf, p, 1));
	CHECK(sompca_model_mean(model, buf, len));
	mxSetField(info, 0, "mean", row_major_to_mx(buf, size, 1));
	CHECK(sompca_model_extraction(model, ibuf, len));
	mxSetField(info, 0, "extraction", int64_column(ibuf, p, 0));
	CHECK(sompca_model_iterations(model, ibuf, len));
	mxSetField(info, 0, "iterations", int64_column(ibuf, p, 0));
	CHECK(sompca_model_feature_modes(model, ibuf, len));
	mxSetField(info, 0, "feature_modes", int64_column(ibuf, p, 0));
	if (method == SOMPCA_METHOD_MPCA || method == SOMPCA_METHOD_CSA) {
		size_t ranks[32];
		CHECK(sompca_model_ranks(model, ranks, 32));
		a = mxCreateDoubleMatrix(1, order, mxREAL);
		for (n = 0; n < order; n++)
			mxGetPr(a)[n] = (double)ranks[n];
		mxSetField(info, 0, "ranks", a);
	}
	cell = mxCreateCellMatrix(p, 1);
	for (j = 0; j < p; j++) {
		size_t hlen;
		CHECK(sompca_model_history(model, j, NULL, 0, &hlen));
		a = mxCreateDoubleMatrix(hlen, 1, mxREAL);
		if (hlen > 0) {
			int status = sompca_model_history(model, j, mxGetPr(a), hlen, &hlen);
			if (status != SOMPCA_OK) {
				mxDestroyArray(a);
				fail_with(model, buf, status);
			}
		}
		mxSetCell(cell, j, a);
	}
	mxSetField(info, 0, "history", cell);
	mxSetField(info, 0, "max_iter", mxCreateDoubleScalar(opts.max_iter));
	mxSetField(info, 0, "tol", mxCreateDoubleScalar(opts.tol));
	mxSetField(info, 0, "q", mxCreateDoubleScalar(opts.q));
	CHECK(sompca_model_serialize(model, NULL, 0, &len));
	a = mxCreateNumericMatrix(len, 1, mxUINT8_CLASS, mxREAL);
	mxSetField(info, 0, "file", a);
	CHECK(sompca_model_serialize(model, mxGetData(a), len, &len));
	mxFree(buf);
	sompca_model_free(model);
	return info;
}

/* info = sompca_mex('fit', X, shape, opts) */
static mxArray *fit(int nrhs, const mxArray *prhs[])
{
	sompca_options opts;
	sompca_model *model = NULL;
	size_t shape[32], order, numel, size = 1, n;
	const void *data;
	int dtype, status, relaxed, verbose;
	const char *method;
	const mxArray *o;

	if (nrhs != 4 || !mxIsStruct(prhs[3]))
		bad_input("sompca_mex('fit', X, shape, opts): wrong arguments");
	data = samples_arg(prhs[1], &dtype, &numel);
	order = mxGetNumberOfElements(prhs[2]);
	if (!mxIsDouble(prhs[2]) || order < 1 || order > 32)
		bad_input("the sample shape must have 1 to 32 modes");
	for (n = 0; n < order; n++) {
		double d = mxGetPr(prhs[2])[n];
		if (!(d >= 1 && d < 2147483648.0) || d != (double)(size_t)d)
			bad_input("the sample shape must be positive integers");
		shape[n] = (size_t)d;
		size *= shape[n];
	}
	if (numel == 0 || numel % size != 0)
		bad_input("X does not hold whole samples of the shape");
	o = prhs[3];
	sompca_options_init(&opts);
	method = mxGetField(o, 0, "method") ? string_arg(mxGetField(o, 0, "method"), "Method") : "so-mpca-rs";
	status = sompca_method_from_name(method, &opts.method, &relaxed);
	if (status != SOMPCA_OK)
		fail(status);
	opts.relaxed_start = relaxed;
	opts.n_components = int_option(o, "n_components", 0, 0, 2147483647.0);
	opts.mode = int_option(o, "mode", -1, SOMPCA_MODE_ALL, 31);
	opts.max_iter = int_option(o, "max_iter", 0, 0, 2147483647.0);
	opts.tol = option(o, "tol", 0);
	opts.n_threads = int_option(o, "n_threads", 0, 0, 4096);
	opts.q = option(o, "q", 0);
	verbose = int_option(o, "verbose", 0, 0, 1);
	opts.progress = progress;
	opts.progress_user = &verbose;

	begin_cancellable();
	status = sompca_fit(&model, data, dtype, numel / size, order, shape, &opts);
	end_cancellable(status);
	if (status != SOMPCA_OK)
		fail(status);
	return model_info(model);
}

static sompca_model *load(const mxArray *path_arg)
{
	sompca_model *model = NULL;
	char *path = string_arg(path_arg, "the model file");
	int status = sompca_model_load(&model, path);
	if (status != SOMPCA_OK)
		fail(status);
	return model;
}

/* The model of a model struct's File bytes (the library checks them). */
static sompca_model *from_file_bytes(const mxArray *bytes)
{
	sompca_model *model = NULL;
	int status;
	if (!mxIsUint8(bytes) || mxIsEmpty(bytes))
		mexErrMsgIdAndTxt("sompca:badModel", "sompca: the model's File must be the uint8 bytes of a model file");
	status = sompca_model_deserialize(&model, mxGetData(bytes), mxGetNumberOfElements(bytes));
	if (status != SOMPCA_OK)
		fail(status);
	return model;
}

/* sompca_mex('save', file, path): the library writes path atomically. */
static void save(const mxArray *bytes, const mxArray *dest)
{
	char *path = string_arg(dest, "the file name");
	sompca_model *model = from_file_bytes(bytes);
	void *buf = NULL;
	CHECK(sompca_model_save(model, path));
	sompca_model_free(model);
}

/* F = sompca_mex('transform', file, X): M x P. */
static mxArray *transform(int nrhs, const mxArray *prhs[])
{
	sompca_model *model;
	size_t shape[32], order, numel, size = 1, p, n, m, need;
	const void *data;
	int dtype, status;
	double *buf = NULL;
	mxArray *out;

	if (nrhs != 3)
		bad_input("sompca_mex('transform', file, X): wrong arguments");
	data = samples_arg(prhs[2], &dtype, &numel);
	model = from_file_bytes(prhs[1]);
	CHECK(sompca_model_order(model, &order));
	CHECK(sompca_model_shape(model, shape, 32));
	CHECK(sompca_model_n_components(model, &p));
	for (n = 0; n < order; n++)
		size *= shape[n];
	if (numel % size != 0) {
		sompca_model_free(model);
		bad_input("X does not hold whole samples of the model's shape");
	}
	m = numel / size;
	CHECK(sompca_transform_size(model, m, &need));
	buf = mxMalloc((need + 1) * sizeof(double));
	begin_cancellable();
	status = sompca_transform(model, buf, need, m > 0 ? data : NULL, dtype, m);
	end_cancellable(status);
	if (status != SOMPCA_OK)
		fail_with(model, buf, status);
	out = row_major_to_mx(buf, m, p);
	mxFree(buf);
	sompca_model_free(model);
	return out;
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
	char *cmd;
	(void)nlhs;
	if (nrhs < 1)
		bad_input("sompca_mex: no command (use sompca_fit, sompca_transform, sompca_save, sompca_load)");
	if (sompca_version_number() != SOMPCA_VERSION_NUMBER)
		mexErrMsgIdAndTxt("sompca:version", "sompca: the library is version %s, this MEX file was built for %d",
		                  sompca_version(), SOMPCA_VERSION_NUMBER);
	cmd = string_arg(prhs[0], "the command");
	if (strcmp(cmd, "fit") == 0)
		plhs[0] = fit(nrhs, prhs);
	else if (strcmp(cmd, "load") == 0 && nrhs == 2)
		plhs[0] = model_info(load(prhs[1]));
	else if (strcmp(cmd, "save") == 0 && nrhs == 3)
		save(prhs[1], prhs[2]);
	else if (strcmp(cmd, "transform") == 0)
		plhs[0] = transform(nrhs, prhs);
	else
		mexErrMsgIdAndTxt("sompca:badInput", "sompca_mex: unknown command '%s' or wrong arguments", cmd);
}
