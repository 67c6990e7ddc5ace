/*
 * sompca.h - the C interface of libsompca, Semi-Orthogonal Multilinear PCA
 * with Relaxed Start (Shi and Lu, IJCAI 2015) and its family.
 *
 * This header is hand-written and is the one public C contract of the
 * library (the header that `go build -buildmode=c-shared` generates is not
 * installed). C99, includable from C++. Link with -lsompca, or use
 * `pkg-config --cflags --libs sompca`.
 *
 * Conventions
 *   - Every function that can fail returns an int status: SOMPCA_OK (0) or
 *     one of the SOMPCA_E* codes below; new codes may be added in later
 *     versions, so treat any unknown non-zero value as a failure.
 *   - sompca_errstr(code) gives a static description of a code;
 *     sompca_last_error() gives the exact message of the last failure on
 *     the calling thread (file, dataset, shape, value). See "Errors" below.
 *   - A function that creates a model writes it to its first parameter,
 *     named out; other functions take the model first. Arrays are copied
 *     into caller buffers (dst, cap) where cap counts elements (not bytes);
 *     the needed size follows from the model's accessors, and too small a
 *     cap gives SOMPCA_ERANGE with nothing written. Nothing the caller
 *     passes is kept after a call returns, and the library never writes to
 *     input data.
 *   - Arrays are row-major (C order); samples are the first axis, so n
 *     samples of shape I_0 x ... x I_{N-1} are n * I_0 * ... * I_{N-1}
 *     consecutive elements.
 *   - Modes are numbered from 0 (mode n is the paper's mode n+1), as on
 *     every surface of sompca: Go, Python, the command line and model
 *     files (see "Mode numbering" in the Go package solver).
 *   - Features are indexed j = 0..P-1 in the model's feature order (by
 *     captured variance, descending, unless the fit asked for extraction
 *     order); sompca_model_extraction maps them to extraction order.
 *
 * Errors
 *   The message of a failure is kept per thread, like errno or dlerror: a
 *   failing call stores its message in a buffer owned by the calling
 *   thread, and a successful status-returning call clears it, so
 *   sompca_last_error() describes the most recent status-returning call
 *   on this thread. This works for failures that leave no model (a failed
 *   fit or load) and is safe when many threads call the library at once:
 *   each thread sees only its own messages. Messages longer than about 2 KB
 *   are truncated, ending in "...".
 *
 * Threading
 *   Every function may be called from any thread. Distinct models may be
 *   used from different threads at once, including concurrent fits. A
 *   fitted model is read-only: transforms, accessors and saves on one
 *   model may run concurrently. sompca_model_free must not race with any
 *   other use of the same model. HDF5 calls are serialized inside the
 *   library, so HDF5 work from several threads is safe but does not run in
 *   parallel. A fit uses its own worker threads (see n_threads).
 *
 * Fork
 *   The Go runtime inside libsompca does not survive fork(): in the child
 *   only the forking thread exists, so entering the runtime could hang.
 *   In a process forked (without exec) after libsompca was loaded, every
 *   function except sompca_version_number, sompca_version, sompca_errstr
 *   and sompca_last_error therefore fails at once with SOMPCA_EFORK and a
 *   message saying so; sompca_options_init and sompca_model_free do
 *   nothing there and sompca_method_name returns NULL. Models of the parent cannot be used in the child. Use
 *   sompca in the parent, or start workers that exec a new program
 *   (posix_spawn, fork+exec), which load the library afresh. (The Python
 *   binding loads a fresh copy of the library in a forked child itself.)
 *
 * Handles
 *   A model is an opaque pointer made by sompca_fit, sompca_fit_hdf5,
 *   sompca_session_finish, sompca_model_load or sompca_model_deserialize
 *   and released by sompca_model_free; a fit session (see "Fit sessions") is one made by
 *   sompca_session_begin and released by sompca_session_free. A NULL,
 *   freed or foreign pointer is detected, never followed: NULL gives
 *   SOMPCA_ENOTFITTED, a freed or foreign pointer SOMPCA_EHANDLE (except
 *   when its address has since been reused by a newer handle).
 */
#ifndef SOMPCA_H
#define SOMPCA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Version of this header. Compare SOMPCA_VERSION_NUMBER with
 * sompca_version_number() to check that header and library match. These
 * three macros are the one place the version is written: the library, its
 * model files, sompca.pc and the Python package take it from here.
 */
#define SOMPCA_VERSION_MAJOR 0
#define SOMPCA_VERSION_MINOR 2
#define SOMPCA_VERSION_PATCH 0
#define SOMPCA_VERSION_NUMBER \
	(SOMPCA_VERSION_MAJOR * 10000 + SOMPCA_VERSION_MINOR * 100 + SOMPCA_VERSION_PATCH)

/* Status codes. New codes may be added; treat unknown non-zero values as failures. */
#define SOMPCA_OK         0 /* success */
#define SOMPCA_EINVAL     1 /* invalid argument or option value (NULL pointer, unknown enum, negative count) */
#define SOMPCA_ESHAPE     2 /* shapes or sizes are zero, absurd (their product overflows) or do not agree */
#define SOMPCA_ERANGE     3 /* caller buffer too small */
#define SOMPCA_ENOTFITTED 4 /* NULL model handle */
#define SOMPCA_EIO        5 /* file or HDF5 I/O failure: a failing read or write, existing output */
#define SOMPCA_ENOMEM     6 /* out of memory */
#define SOMPCA_EDATA      7 /* bad data: NaN or Inf, zero variance, too few samples for the method */
#define SOMPCA_ECANCELED  8 /* cancelled: by the progress callback or the flag of sompca_cancel_flag */
#define SOMPCA_EINTERNAL  9 /* a bug in sompca (a recovered panic): please report it */
#define SOMPCA_EHANDLE    10 /* misuse: a freed or foreign model or session handle (not made by sompca, freed, or of the other kind) */
#define SOMPCA_EFORK     11 /* called in a child forked after the library was loaded: see "Fork" */
#define SOMPCA_ENUMERICAL 12 /* the numerics failed (an eigensolver did not converge) on data that passed every check */
#define SOMPCA_EFILE      13 /* a file's content is invalid: not HDF5, truncated or corrupt (checksum mismatch),
                               not a readable sompca model; the message names file and object */
/* HDF5 failures by cause (the message names the file, the object and what to do): */
#define SOMPCA_ENOTFOUND  14 /* the file, or the dataset or group in it, does not exist */
#define SOMPCA_ELINK      15 /* a soft or external link whose target does not exist (link and target named) */
#define SOMPCA_EFILTER    16 /* a dataset needs an HDF5 filter libhdf5 cannot load (named, with how to install it) */
#define SOMPCA_ELOCKED    17 /* another process holds the file open for writing (HDF5's file lock) */
#define SOMPCA_EPERM      18 /* the operating system refuses access to the file */
#define SOMPCA_ETYPE      19 /* the object is not a dataset of real numbers in a standard bit layout */
#define SOMPCA_EVERSION   20 /* the file uses a format newer than the library's libhdf5 reads (the HDF5
                               release that writes it is named) */

/* Methods (sompca_options.method). */
#define SOMPCA_METHOD_SOMPCA 0 /* semi-orthogonal MPCA (the paper's method with relaxed_start) */
#define SOMPCA_METHOD_FOMPCA 1 /* full-orthogonal MPCA */
#define SOMPCA_METHOD_TROD   2 /* tensor rank-one decomposition (uncentred) */
#define SOMPCA_METHOD_UMPCA  3 /* uncorrelated MPCA */
#define SOMPCA_METHOD_PCA    4 /* PCA of the vectorised samples */
#define SOMPCA_METHOD_MPCA   5 /* multilinear PCA; features are entries of the projected tensor */
#define SOMPCA_METHOD_CSA    6 /* concurrent subspace analysis (uncentred MPCA) */

/* opts.mode (and sompca_model_mode) for SO-MPCA in every mode with
 * feature-level fusion: one SO-MPCA fit per mode 0..N-1, the features
 * concatenated and sorted by captured variance, up to
 * I_0 + ... + I_{N-1} - (N - 1) of them: the first EMP is the same in
 * every mode (no constraint applies to it) and is kept once
 * (n_components = P > 0: each mode extracts min(P, I_n) and the P of
 * largest variance are kept); sompca_model_feature_modes says which mode
 * each feature came from, SOMPCA_MODE_ALL for that shared first EMP. See
 * "Feature fusion" in solver/doc.go. */
#define SOMPCA_MODE_ALL (-2)

/* Element types of input arrays (the dtype arguments). 16-bit integers are
 * read as they are and widened to float, exactly, a run of samples at a
 * time (as the samples of a 16-bit HDF5 dataset are): never a whole copy. */
#define SOMPCA_FLOAT64 0 /* double */
#define SOMPCA_FLOAT32 1 /* float */
#define SOMPCA_UINT8   2 /* uint8_t */
#define SOMPCA_UINT16  3 /* uint16_t */
#define SOMPCA_INT16   4 /* int16_t */

/*
 * Layouts of an HDF5 dataset (the layout arguments): where its samples and
 * modes are. 0 and 1 keep the meaning of the samples_last flag of 0.1.
 *   SAMPLES_FIRST  (M, I_0, ..., I_{N-1}) as HDF5 shows it: numpy, h5py, C
 *   SAMPLES_LAST   (I_0, ..., I_{N-1}, M): a row-major writer, samples last
 *   COLUMN_MAJOR   an I_0 x ... x I_{N-1} x M array written by MATLAB -v7.3,
 *                  R (rhdf5), Julia or Fortran, which HDF5 shows as
 *                  (M, I_{N-1}, ..., I_0): read with the modes restored to
 *                  the author's order, so mode n is MATLAB's dimension n+1.
 */
#define SOMPCA_LAYOUT_SAMPLES_FIRST 0
#define SOMPCA_LAYOUT_SAMPLES_LAST  1
#define SOMPCA_LAYOUT_COLUMN_MAJOR  2

/* Feature orders (sompca_options.feature_order). */
#define SOMPCA_ORDER_VARIANCE   0 /* by captured variance, descending (the paper's order) */
#define SOMPCA_ORDER_EXTRACTION 1 /* in the order the projections were found */

/*
 * opts.mode_updates: how a TVP method's mode update (SO-MPCA, FO-MPCA, TROD,
 * UMPCA) gets the scatter of its partial projections. ROWS keeps the M x I_n
 * partial projections and finds the eigenvector by Krylov products with
 * them (fastest where the samples are read); SCATTER folds the I_n x I_n
 * scatter in the pass (a block's partial is I_n^2 values whatever its size:
 * what a distributed pass should move). The two models agree to rounding,
 * not bit for bit; a fit and a fit session with the same choice give the
 * same bits. AUTO (0, default) chooses by the data's shape alone, the same
 * in sompca_fit, sompca_fit_hdf5 and fit sessions (so default fits of the
 * same samples are equal bit for bit, local or distributed): ROWS when the
 * partial projections, M x max_n I_n values, are at most
 * SOMPCA_MODE_UPDATES_ROWS_LIMIT (2^20, 8 MiB of doubles), else SCATTER.
 */
#define SOMPCA_MODE_UPDATES_AUTO 0
#define SOMPCA_MODE_UPDATES_ROWS 1
#define SOMPCA_MODE_UPDATES_SCATTER 2
#define SOMPCA_MODE_UPDATES_ROWS_LIMIT 1048576 /* AUTO's limit, M x max_n I_n values */

/* An opaque fitted model. */
typedef struct sompca_model sompca_model;

/*
 * Progress callback of a fit. It is called on the thread that called the
 * fit function, after each unit of work: after each EMP of the TVP
 * methods (SO-MPCA, FO-MPCA, TROD, UMPCA) with done = number of EMPs found
 * so far (1..total), total = number of features P and variance = the
 * captured variance of the EMP just found; after each sweep of MPCA and
 * CSA with done = sweeps so far, total = max_iter and variance = 0; once
 * for PCA with done = total = 1 and the first feature's variance. user is
 * opts->progress_user, passed through. Returning 0 continues; returning
 * non-zero cancels the fit, which then returns SOMPCA_ECANCELED and makes
 * no model. The callback may call sompca functions (which changes the
 * thread's last error until the fit returns) but must not free a model
 * that another call is using.
 */
typedef int (*sompca_progress_fn)(void *user, int done, int total, double variance);

/*
 * Read-progress callback of a fit from a file (sompca_fit_hdf5;
 * opts->read_progress), for progress bars on long reads. It is called on
 * the thread that called the fit while the fit reads samples from the
 * file: after each HDF5 read of a dataset loaded whole before the first
 * pass (a dataset that fits opts->memory_limit), and after each run of
 * samples a pass reads from a dataset it streams. bytes_read is the bytes
 * of samples read from the file so far, in the file's element type: it
 * never decreases, and reaches bytes_total once the whole dataset has been
 * read; a streamed fit reads the dataset once per pass, so
 * bytes_read / bytes_total counts passes. bytes_total is the bytes of the
 * dataset's samples in the file. user is opts->progress_user. Returning 0
 * continues; non-zero cancels the fit (SOMPCA_ECANCELED, no model). The
 * rules of sompca_progress_fn apply. sompca_fit (samples in memory) never
 * calls it.
 */
typedef int (*sompca_read_progress_fn)(void *user, uint64_t bytes_read, uint64_t bytes_total);

/*
 * Options of a fit. Initialize with sompca_options_init, then set fields:
 * the library reads only the fields of the version of the struct it was
 * built with, and rejects a struct whose size field is 0 (uninitialized)
 * with SOMPCA_EINVAL. New fields are added at the end; a program built
 * with an earlier header (a smaller size, down to the struct that ended at
 * memory_limit) is accepted, the fields it lacks taking their defaults.
 */
typedef struct sompca_options {
	uint32_t size;         /* sizeof(sompca_options), set by sompca_options_init */
	int method;            /* SOMPCA_METHOD_*; default SOMPCA_METHOD_SOMPCA */
	int relaxed_start;     /* 1: relaxed start (TVP methods only, else SOMPCA_EINVAL); 0: off;
	                          -1 (default) = the method's default (sompca_options_defaults: on
	                          for SO-MPCA and FO-MPCA, off for the others) */
	int n_components;      /* P; 0 (default) = the method's maximum: SO-MPCA I_mode, FO-MPCA min I_n,
	                          UMPCA min(min I_n, M-1), PCA min(M-1, prod I_n), MPCA and CSA prod P_n,
	                          TROD max I_n (TROD accepts up to prod I_n) */
	int mode;              /* SO-MPCA's orthogonal mode nu, 0-based; -1 (default) = the largest
	                          mode, the first on ties; SOMPCA_MODE_ALL = every mode, features
	                          fused; other methods ignore it but it must be SOMPCA_MODE_ALL
	                          or -1..N-1 */
	int max_iter;          /* sweeps K per EMP (MPCA, CSA: in total); 0 (default) = 20 */
	double tol;            /* > 0: stop an EMP's sweeps once the relative change of its captured
	                          variance is at most tol; 0 (default) = run all max_iter sweeps */
	int n_threads;         /* worker threads of a fit; 0 (default) = all cores; results do not
	                          depend on it */
	int feature_order;     /* SOMPCA_ORDER_*; default SOMPCA_ORDER_VARIANCE */
	double q;              /* MPCA/CSA: fraction of each mode's variance kept when choosing the
	                          mode ranks, in (0, 1]; 0 (default) = 0.97 */
	sompca_progress_fn progress; /* may be NULL (default) */
	void *progress_user;   /* passed to progress; never dereferenced by the library */
	size_t memory_limit;   /* the fit's memory budget in bytes; 0 (default) = a quarter of the
	                          machine's physical memory. It covers the fit's workspaces, the
	                          samples read from an HDF5 file (a dataset that fits is read once
	                          and the fit runs from memory; one that does not is streamed in
	                          runs that fit) and the cache that spares order >= 3 fits passes
	                          (kept only if it fits). The model is the same, bit for bit,
	                          whatever the budget, as long as it holds the M x max I_n partial
	                          projections of the TVP methods (8 bytes each; below that the fit
	                          agrees to about 1e-13). Arrays the caller passes to sompca_fit are
	                          not counted; a narrower copy the fit makes of them is (see
	                          narrowing). A budget too small for the workspaces and one run
	                          of samples is SOMPCA_ENOMEM, with both sizes in the message. */
	sompca_read_progress_fn read_progress; /* bytes read by a fit from a file, passed
	                          progress_user; may be NULL (default). New after memory_limit: a
	                          struct from a header without it is accepted (read_progress NULL). */
	int mode_updates;      /* SOMPCA_MODE_UPDATES_*; default SOMPCA_MODE_UPDATES_AUTO: rows up to
	                          SOMPCA_MODE_UPDATES_ROWS_LIMIT partial projections (M x max_n
	                          I_n), the folded scatter beyond, in fits and sessions alike. New after
	                          read_progress: a struct without it is accepted (AUTO). */
	int narrowing;         /* 1 (default): a fit whose float64 or float32 samples are all in memory
	                          (sompca_fit's array, an HDF5 dataset sompca_fit_hdf5 loaded whole) and
	                          every one exactly a uint8 (an integer 0..255, not -0.0) or a float32
	                          reads them through a copy in that type, 1/8 or 1/2 of their bytes,
	                          made only when memory_limit holds it (and counted there): the same
	                          model bit for bit, faster passes. 0: read the samples as they are.
	                          New after mode_updates: a struct without it is accepted (1). */
} sompca_options;

/* The library's version as MAJOR*10000 + MINOR*100 + PATCH. Never fails. */
int sompca_version_number(void);

/* The library's version as a static string "MAJOR.MINOR.PATCH". Never fails. */
const char *sompca_version(void);

/*
 * A static, never-NULL description of a status code ("unknown status code"
 * for codes this version does not know). Thread-safe; does not change the
 * last error.
 */
const char *sompca_errstr(int code);

/*
 * The message of the last failure of a status-returning call on the
 * calling thread, such as "sompca_fit_hdf5: hdf5io: open \"x.h5\": ...";
 * "" when the last such call succeeded or none was made. Never NULL. The
 * string belongs to the library and stays valid, unchanged, until the next
 * sompca call on the same thread; copy it to keep it. Thread-safe (each
 * thread has its own message); does not change the last error.
 */
const char *sompca_last_error(void);

/*
 * The warnings of the last sompca_fit_hdf5 or sompca_transform_hdf5 call
 * on the calling thread, joined by "; ", or "" if it had none (each of
 * those calls replaces them; other calls leave them). A warning does not
 * make the call fail: for example, a dataset that MATLAB wrote (it has a
 * MATLAB_class attribute, or the file a 512-byte user block) read with a
 * layout other than SOMPCA_LAYOUT_COLUMN_MAJOR. Never NULL; valid until
 * the next such call on the thread. Thread-safe.
 */
const char *sompca_last_warning(void);

/*
 * Sets the cancellation flag of the calling thread: the long calls this
 * thread makes from then on (sompca_fit, sompca_fit_hdf5, sompca_transform
 * and sompca_transform_hdf5) read *flag every few milliseconds of work and,
 * once it is non-zero, stop and return SOMPCA_ECANCELED, making no model
 * and leaving no output file (a transform's dst is then unspecified). Any
 * thread or a signal handler may set *flag (e.g. on Ctrl-C); the library
 * only reads it. The flag must stay valid while such calls run; NULL (the
 * initial state) removes it. Thread-safe; does not change the last error.
 */
void sompca_cancel_flag(const volatile int *flag);

/*
 * Fills *opts with the defaults and sets opts->size. Does nothing if opts
 * is NULL. Thread-safe; does not change the last error.
 */
void sompca_options_init(sompca_options *opts);

/*
 * Fills *out with the options a fit of method uses when the caller sets
 * nothing else, from the library's one table of defaults (the Go API's
 * solver.DefaultOptions and the Python estimators' defaults are the same
 * table): relaxed_start 0 or 1 as the method's default, n_components 0,
 * mode -1, max_iter 20, tol 0, q 0.97, feature_order
 * SOMPCA_ORDER_VARIANCE, n_threads 0, progress NULL; size is set.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL out or an unknown method.
 * Thread-safe.
 */
int sompca_options_defaults(int method, sompca_options *out);

/*
 * The library's method table by name, so that programs need not parse
 * method names themselves. Sets *out_method to the SOMPCA_METHOD_* of
 * name and, if out_relaxed_start is not NULL, *out_relaxed_start to 1 for
 * a relaxed-start name ("so-mpca-rs"), else 0. Names: so-mpca, fo-mpca,
 * trod and umpca, each also with "-rs", then pca, mpca and csa; case does
 * not matter, '_' may stand for '-', and "sompca"/"fompca", the
 * estimators' names, mean their default: so-mpca-rs and fo-mpca-rs.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL argument or an unknown name
 * (the message lists the known names). Thread-safe.
 */
int sompca_method_from_name(const char *name, int *out_method, int *out_relaxed_start);

/*
 * The canonical name of method with (relaxed_start non-zero) or without
 * relaxed start, as sompca_method_from_name reads it back: a static string
 * such as "so-mpca-rs" or "pca". For a method without relaxed start
 * (pca, mpca, csa) relaxed_start is ignored. NULL for an unknown method. Never fails otherwise;
 * thread-safe; does not change the last error.
 */
const char *sompca_method_name(int method, int relaxed_start);

/*
 * Fits a model to n_samples samples held in memory.
 *
 * out       receives the new model, to be freed with sompca_model_free;
 *           set to NULL on any failure. Must not be NULL.
 * data      n_samples * shape[0] * ... * shape[order-1] elements of type
 *           dtype, sample-major and row-major within a sample. Read in
 *           place, without a converted copy, only during the call, and
 *           never modified.
 * dtype     SOMPCA_FLOAT64, SOMPCA_FLOAT32, SOMPCA_UINT8, SOMPCA_UINT16 or
 *           SOMPCA_INT16.
 * n_samples number of samples M (>= 1; the methods need more, see EDATA).
 * order     number of modes N of a sample, 1..32.
 * shape     shape[order], each 1..2^31-1; read only during the call.
 * opts      options, or NULL for the defaults of sompca_options_init.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for NULL out, data or shape, an unknown
 * dtype or a bad option, including more components than the method can
 * give on this data (the message gives the bound); SOMPCA_ESHAPE for
 * order, n_samples or shape[n] zero, order > 32, or sizes whose product
 * overflows or exceeds 2^48 bytes; SOMPCA_EDATA when the solver rejects
 * the data (fewer than 2 samples, NaN or Inf, zero variance);
 * SOMPCA_ENOMEM when opts->memory_limit cannot hold the fit's workspaces;
 * SOMPCA_ECANCELED when the progress callback cancelled; SOMPCA_EINTERNAL on a bug. Thread-safe for
 * distinct out pointers.
 */
int sompca_fit(sompca_model **out, const void *data, int dtype, size_t n_samples,
               size_t order, const size_t *shape, const sompca_options *opts);

/*
 * sompca_fit of samples that are not consecutive: sample m starts
 * m * sample_stride elements (of dtype, not bytes) after data, and its
 * I_0 * ... * I_{N-1} elements are consecutive, row-major, as in
 * sompca_fit; the elements between samples are never read. Such are every
 * k-th sample of an array, or the samples of a numpy array sliced along
 * its first axis (sample_stride = strides[0] / itemsize). sample_stride 0
 * means consecutive samples (sompca_fit); otherwise it is at least the
 * elements of a sample. Samples that are not consecutive are copied a
 * run at a time, never whole; the model is the one sompca_fit makes of
 * the same samples made consecutive, bit for bit.
 *
 * Returns as sompca_fit; SOMPCA_ESHAPE also for a sample_stride smaller
 * than a sample, or one whose span exceeds 2^48 bytes.
 */
int sompca_fit_strided(sompca_model **out, const void *data, int dtype, size_t n_samples,
                       size_t sample_stride, size_t order, const size_t *shape,
                       const sompca_options *opts);

/*
 * Fits a model to the samples of an HDF5 dataset within opts->memory_limit:
 * a dataset that fits is read once, at the speed of the file, and the fit
 * runs from memory; a larger one is streamed, each pass reading whole
 * chunks while the previous run of samples is processed, so memory does
 * not grow with the number of samples. The dataset's element type may be
 * any real type: bool (h5py's), int8 ... uint64, float16, float32, float64
 * or long double, converted exactly (long double and integers beyond 2^53
 * are rounded to double); never reinterpreted.
 *
 * out          receives the new model (as sompca_fit); must not be NULL.
 * path         the HDF5 file, opened read-only; must not be NULL or empty.
 * dataset      the dataset's path in the file, e.g. "/train/x".
 * layout       SOMPCA_LAYOUT_SAMPLES_FIRST, SOMPCA_LAYOUT_SAMPLES_LAST or
 *              SOMPCA_LAYOUT_COLUMN_MAJOR (MATLAB, R, Julia); see
 *              sompca_last_warning for a MATLAB file read otherwise.
 * opts         options, or NULL for the defaults.
 *
 * Storage as HDF5 writes it is read: chunks never written and a dataset
 * never written read the fill value; compact, external and virtual
 * datasets (each source file and dataset must exist: a missing one is
 * SOMPCA_ENOTFOUND naming it); a file a writer holds in SWMR mode (the
 * samples there are when the fit starts).
 *
 * Returns as sompca_fit (SOMPCA_EINVAL also for an unknown layout), plus
 * SOMPCA_ENOTFOUND for a missing file or dataset, SOMPCA_ELINK for a soft
 * or external link to nothing, SOMPCA_EFILTER for a filter libhdf5 cannot
 * load, SOMPCA_ELOCKED for a file another process writes (not in SWMR
 * mode), SOMPCA_EPERM, SOMPCA_ETYPE for an object that is not a dataset of
 * real numbers (complex, string, compound, a group), SOMPCA_EVERSION for a
 * format newer than the library's libhdf5 1.10 reads, SOMPCA_EIO when the
 * file cannot be read, SOMPCA_EFILE when its content is invalid (not HDF5,
 * corrupt), also when a read fails that way
 * in the middle of the fit (the message names file and dataset),
 * SOMPCA_ESHAPE when its shape cannot hold samples (rank below 2, an empty
 * axis), and SOMPCA_ENOMEM when opts->memory_limit cannot hold the fit's
 * workspaces and one run of samples.
 * Thread-safe for distinct out pointers (HDF5 access is serialized).
 */
int sompca_fit_hdf5(sompca_model **out, const char *path, const char *dataset,
                    int layout, const sompca_options *opts);

/*
 * Sets *out to n_samples * P, the number of doubles that sompca_transform
 * writes for n_samples samples.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for NULL out; SOMPCA_ENOTFITTED for a
 * bad model; SOMPCA_ESHAPE if the product overflows. Thread-safe.
 */
int sompca_transform_size(const sompca_model *model, size_t n_samples, size_t *out);

/*
 * Projects n_samples samples of the model's shape to its P features and
 * writes them, sample-major (n_samples x P, row-major), into dst.
 *
 * model     a fitted model.
 * dst       caller buffer of cap doubles; may be NULL when n_samples is 0.
 * cap       capacity of dst in doubles; at least sompca_transform_size.
 * data      n_samples samples of the model's shape (sompca_model_shape),
 *           of type dtype, laid out as for sompca_fit; read in place during
 *           the call, never modified. May be NULL when n_samples is 0.
 * dtype     SOMPCA_FLOAT64, SOMPCA_FLOAT32, SOMPCA_UINT8, SOMPCA_UINT16 or
 *           SOMPCA_INT16 (need not be the type the model was fitted on).
 * n_samples number of samples; 0 writes nothing and succeeds.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for NULL dst or data
 * or an unknown dtype; SOMPCA_ERANGE when cap is too small (nothing is
 * written); SOMPCA_ESHAPE for an absurd n_samples. On other failures dst's
 * contents are unspecified. Thread-safe, also on one model.
 */
int sompca_transform(const sompca_model *model, double *dst, size_t cap,
                     const void *data, int dtype, size_t n_samples);

/*
 * sompca_transform of samples sample_stride elements apart (see
 * sompca_fit_strided; 0: consecutive). Returns as sompca_transform;
 * SOMPCA_ESHAPE also for a sample_stride smaller than a sample.
 */
int sompca_transform_strided(const sompca_model *model, double *dst, size_t cap,
                             const void *data, int dtype, size_t n_samples,
                             size_t sample_stride);

/*
 * Reconstructs samples from their features (least squares): the inverse
 * of sompca_transform where it has one. A feature vector is
 * z = A^T vec(x - mean), A the prod_n I_n x P matrix whose column j is
 * feature j's projection (PCA: column j of the projection matrix; the
 * other methods: the outer product of the j-th columns of the N mode
 * matrices, mode 0 slowest); the reconstruction is the smallest
 * least-squares solution x = mean + A (A^T A)^+ z, which is mean + A z for
 * the methods whose projections are orthonormal (PCA, MPCA, CSA, SO-MPCA,
 * FO-MPCA). A sample whose x - mean lies in the span of A comes back
 * unchanged; the part outside it is lost. (A^T A)^+ drops the eigenvalues
 * of A^T A at most P * 2^-52 times the largest (numpy's pinv).
 *
 * model     a fitted model.
 * dst       caller buffer of cap doubles: n_samples samples of the model's
 *           shape, laid out as sompca_fit reads them; may be NULL when
 *           n_samples is 0.
 * cap       capacity of dst in doubles; at least n_samples * I_0 * ... * I_{N-1}.
 * features  n_samples x P doubles, sample-major, as sompca_transform
 *           writes them; read only during the call, never modified.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for NULL dst or
 * features; SOMPCA_ERANGE when cap is too small (nothing is written);
 * SOMPCA_ESHAPE for an absurd n_samples; SOMPCA_EDATA for a NaN or Inf
 * feature (the message names the sample). Thread-safe, also on one model.
 */
int sompca_inverse_transform(const sompca_model *model, double *dst, size_t cap,
                             const double *features, size_t n_samples);

/*
 * Projects every sample of an HDF5 dataset and writes the features, a
 * float64 dataset of n x P (sample-major whatever the layout), to
 * out_dataset in out_path. The input is streamed (memory does not grow
 * with n) and never modified; out_path must be another file. The output
 * is written to a temporary file and renamed into place, so a failure
 * leaves no half-written file; if out_path exists, its other objects are
 * kept. The features dataset carries string attributes saying where it
 * comes from: sompca_version, method, model_file (the file the model was
 * loaded from or last saved to, if any), model_checksum (equal to that
 * model file's checksum attribute), source_file, source_dataset, layout.
 *
 * model        a fitted model.
 * in_path, in_dataset, layout
 *              the input, as for sompca_fit_hdf5; its samples must have the
 *              model's shape.
 * out_path, out_dataset
 *              the output file and dataset path; no argument may be NULL or
 *              empty.
 * overwrite    0: an existing out_dataset is an error; non-zero: replace it.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for a NULL or empty
 * string; SOMPCA_ESHAPE when the samples' shape is not the model's;
 * SOMPCA_EFILE when the input's content is invalid (see sompca_fit_hdf5);
 * SOMPCA_EIO for any other file failure, including an existing dataset
 * without overwrite or out_path naming the input file. Thread-safe (HDF5
 * access is serialized); do not write one file from two calls at once.
 */
int sompca_transform_hdf5(const sompca_model *model, const char *in_path,
                          const char *in_dataset, int layout,
                          const char *out_path, const char *out_dataset, int overwrite);

/*
 * Model accessors. Each copies out part of a fitted model; each returns
 * SOMPCA_OK, SOMPCA_ENOTFITTED for a bad model, SOMPCA_EINVAL for a NULL
 * output pointer or an index out of range, and, for the (dst, cap) ones,
 * SOMPCA_ERANGE when cap is smaller than the size given (nothing is then
 * written). All are thread-safe, also on one model. P is
 * sompca_model_n_components, N sompca_model_order and I_n the shape.
 */

/* *out = the method (SOMPCA_METHOD_*); *out_relaxed_start = 1 if it used
 * relaxed start, else 0. out_relaxed_start may be NULL. */
int sompca_model_method(const sompca_model *model, int *out, int *out_relaxed_start);

/* *out = P, the number of features. */
int sompca_model_n_components(const sompca_model *model, size_t *out);

/* *out = N, the order (number of modes) of the samples. */
int sompca_model_order(const sompca_model *model, size_t *out);

/* Copies the sample shape I_0, ..., I_{N-1} into dst; cap >= N. */
int sompca_model_shape(const sompca_model *model, size_t *dst, size_t cap);

/* *out = SO-MPCA's orthogonal mode nu, 0-based (the one chosen when the
 * fit asked for -1), or SOMPCA_MODE_ALL; -1 for the other methods. */
int sompca_model_mode(const sompca_model *model, int *out);

/* Copies the orthogonal mode (0-based) of each feature's SO-MPCA fit
 * (P values) into dst: for a SOMPCA_MODE_ALL model the mode each feature
 * came from (SOMPCA_MODE_ALL for the first EMP, which every mode's fit
 * shares), for a single-mode SO-MPCA model its mode, -1 for the other
 * methods. */
int sompca_model_feature_modes(const sompca_model *model, int64_t *dst, size_t cap);

/* *out = M, the number of training samples. */
int sompca_model_n_samples(const sompca_model *model, size_t *out);

/* Copies the training mean, prod_n I_n doubles in C order, into dst; all
 * zeros for TROD and CSA, which do not centre. */
int sompca_model_mean(const sompca_model *model, double *dst, size_t cap);

/*
 * Copies the projection matrix of a mode into dst, row-major. For SO-MPCA,
 * FO-MPCA, TROD, UMPCA, MPCA and CSA, mode is 0..N-1 and the matrix is
 * I_mode x P: column j is the mode's vector of feature j (for MPCA and CSA
 * a feature is one entry of the projected tensor, whose projection takes a
 * column of each mode's factor matrix). For PCA, mode must be 0 and the
 * matrix is (prod_n I_n) x P, on the vectorised (C order) sample.
 * cap >= rows * P.
 */
int sompca_model_projection(const sompca_model *model, size_t mode, double *dst, size_t cap);

/* Copies the captured variance of each feature on the training data
 * (P doubles) into dst. */
int sompca_model_variance(const sompca_model *model, double *dst, size_t cap);

/* Copies the explained variance ratio of each feature (P doubles): its
 * captured variance over the total variance of the training data (the
 * trace of its covariance). SOMPCA_EDATA if the total variance is 0. */
int sompca_model_variance_ratio(const sompca_model *model, double *dst, size_t cap);

/* Copies the extraction index (0-based) of each feature (P values). */
int sompca_model_extraction(const sompca_model *model, int64_t *dst, size_t cap);

/* Copies the number of sweeps run for each feature's EMP (P values): 0 for
 * the fixed first EMP of relaxed start and for PCA; for MPCA and CSA, the
 * sweeps of the whole fit. */
int sompca_model_iterations(const sompca_model *model, int64_t *dst, size_t cap);

/*
 * Copies the objective history of a feature (0..P-1) into dst and sets
 * *out_len to its length: for the TVP methods, the objective of the
 * feature's EMP (its captured scatter; for TROD the residual energy) at
 * the start and after each sweep, iterations + 1 values (the paper's
 * Fig. 3); empty for PCA, MPCA and CSA. out_len must not be NULL. Pass dst = NULL and cap = 0 to get
 * only the length (SOMPCA_OK); when cap is too small, *out_len is still
 * set and SOMPCA_ERANGE returned.
 */
int sompca_model_history(const sompca_model *model, size_t feature, double *dst,
                         size_t cap, size_t *out_len);

/*
 * Copies the options a model was fitted with into *out, so that a loaded
 * model can be refitted alike: method, relaxed_start, n_components (the
 * model's P), mode (-1 when not SO-MPCA), max_iter, tol, q and
 * feature_order; n_threads is 0 and progress NULL. *out is overwritten
 * whole, size included (the caller need not initialize it).
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for a NULL out.
 * Thread-safe.
 */
int sompca_model_options(const sompca_model *model, sompca_options *out);

/*
 * Copies the mode ranks P_1, ..., P_N of an MPCA or CSA model (the number of
 * eigenvectors kept in each mode) into dst.
 *
 * dst  receives N values (see sompca_model_order); cap its capacity.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for a NULL dst or a
 * model of another method; SOMPCA_ERANGE when cap < N. Thread-safe.
 */
int sompca_model_ranks(const sompca_model *model, size_t *dst, size_t cap);

/*
 * Saves a model to an HDF5 file (the format of package hdf5io, readable by
 * sompca_model_load and the Go and Python APIs). The file is written to a
 * temporary file and renamed into place, replacing any file at path.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for a NULL or empty
 * path; SOMPCA_EIO when the file cannot be written. Thread-safe.
 */
int sompca_model_save(const sompca_model *model, const char *path);

/*
 * Loads a model saved by sompca_model_save (or the Go or Python APIs).
 *
 * out  receives the new model, to be freed with sompca_model_free; set to
 *      NULL on any failure. Must not be NULL.
 * path the HDF5 file, opened read-only.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for NULL out or a NULL or empty path;
 * SOMPCA_ENOTFOUND when the file is missing; SOMPCA_EIO when it cannot be
 * read; SOMPCA_EFILE when it does not hold a consistent model or is corrupt:
 * files written by sompca carry checksums (HDF5's, and a SHA-256 of the
 * model), so a corrupted file gives this status with "checksum mismatch"
 * in sompca_last_error(), never a different model. Thread-safe.
 */
int sompca_model_load(sompca_model **out, const char *path);

/*
 * Writes a model's bytes into buf: exactly the bytes of the file that
 * sompca_model_save writes (made in memory, no file is touched), so the
 * file's checksums hold and writing the bytes to a file makes a model
 * file. Models travel this way between processes (fork workers, Dask)
 * without temporary files; sompca_model_deserialize reads them back.
 * Model files carry no time stamps: the same model gives the same bytes.
 *
 * buf      caller buffer of cap bytes. Pass buf = NULL and cap = 0 to get
 *          only the length (SOMPCA_OK).
 * out_len  receives the length in bytes, also when cap is too small; must
 *          not be NULL.
 *
 * Returns SOMPCA_OK; SOMPCA_ENOTFITTED; SOMPCA_EINVAL for a NULL out_len,
 * or a NULL buf with cap > 0; SOMPCA_ERANGE when cap is too small (nothing
 * is written); SOMPCA_ENOMEM, SOMPCA_EIO when HDF5 cannot make the bytes.
 * Each call makes the bytes afresh. Thread-safe.
 */
int sompca_model_serialize(const sompca_model *model, void *buf, size_t cap, size_t *out_len);

/*
 * Reads a model from the bytes of a model file: those of
 * sompca_model_serialize, or a file sompca_model_save (or the Go or
 * Python APIs) wrote, read whole. The checks of sompca_model_load apply.
 *
 * out  receives the new model, to be freed with sompca_model_free; set to
 *      NULL on any failure. Must not be NULL.
 * buf  len bytes, read only during the call; never modified.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL out or buf; SOMPCA_EFILE when
 * the bytes are not a consistent model (not HDF5, truncated, corrupt:
 * "checksum mismatch" in sompca_last_error()), never a different model.
 * Thread-safe.
 */
int sompca_model_deserialize(sompca_model **out, const void *buf, size_t len);

/*
 * Frees a model and everything it holds. NULL is a no-op. A pointer that is
 * not a live model (freed twice, or foreign) is detected where possible
 * and left alone, with a message in sompca_last_error(). Must not race
 * with any other use of the same model.
 */
void sompca_model_free(sompca_model *model);

/*
 * Fit sessions: a fit whose passes over the samples the caller makes.
 *
 * A fit reads its samples in passes; each pass is a map over blocks of
 * consecutive samples followed by a fold, in block order, of small partial
 * results (sums, scatter matrices, projections). A session runs the fit's
 * engine, the same as sompca_fit's, but hands each pass out to the caller
 * as requests, one per block, and waits for the blocks' partial results.
 * The caller computes a partial wherever the block lives (a Dask worker, an
 * MPI rank, another thread) with sompca_pass_partial, a pure function of
 * the request and the block's samples, and feeds the partials back. Nothing
 * of the algorithm runs in the caller: requests and partials are opaque
 * bytes that only this library reads, and that a driver moves between
 * processes (or machines of one architecture) as they are.
 *
 *     sompca_session *s;
 *     sompca_session_begin(&s, M, order, shape, &opts);
 *     int more;
 *     while (sompca_session_next(s, &more) == SOMPCA_OK && more) {
 *         for each block b = [first, first + n), in increasing order:
 *             request_b = sompca_session_request(s, first, n)    (driver)
 *             partial_b = sompca_pass_partial(request_b, samples of b)
 *                                                     (where b lives)
 *         (optional: sompca_partials_join joins the partials of
 *          neighbouring blocks, where they were computed, into one)
 *         for each block b, in increasing order:
 *             sompca_session_feed(s, partial_b)               (driver)
 *     }
 *     sompca_session_finish(s, &model);   (after next gave more = 0)
 *     sompca_session_free(s);
 *
 * Blocks: the caller chooses them, and may choose them anew for every pass;
 * the blocks of one pass tile [0, M) in increasing order, and their
 * partials are fed in that order. The model is the one sompca_fit makes of
 * the same samples with the same options (defaults included: AUTO mode
 * updates resolve by the data's shape alone, alike in both), bit for bit, when every block
 * starts at a multiple of SOMPCA_BLOCK_MULTIPLE samples (the engine sums
 * leaves of 16 or 64 samples by a fixed reduction tree, which such blocks
 * do not cut); with other blocks, a leaf cut by a block boundary is summed
 * in two parts and the model agrees to rounding (about 1e-12 relative).
 *
 * Errors: a session's error (bad data such as a NaN in sample m, which the
 * message names by its index in [0, M); a partial that does not belong to
 * the pass; cancellation by the progress callback) is returned by the call
 * that meets it and by every later call on the session except
 * sompca_session_free; the session then makes no model.
 *
 * Transform: a fitted model transforms any block with sompca_transform;
 * a driver ships the model to its workers as its bytes
 * (sompca_model_serialize, sompca_model_deserialize).
 *
 * Threading: one session is used from one thread at a time (the calls may
 * come from different threads in turn). sompca_pass_info and
 * sompca_pass_partial are pure and thread-safe, and need no session in
 * their process: a worker loads the library and calls them.
 */

/* Blocks of a fit session that start at multiples of this many samples
 * give the model of sompca_fit bit for bit. */
#define SOMPCA_BLOCK_MULTIPLE 64

/* An opaque fit session. */
typedef struct sompca_session sompca_session;

/*
 * Begins a fit of n_samples samples of the given shape whose passes the
 * caller makes; no pass runs yet.
 *
 * out       receives the session, to be freed with sompca_session_free;
 *           set to NULL on failure. Must not be NULL.
 * n_samples M, the number of samples (>= 1; the methods need more).
 * order, shape
 *           the sample shape, as for sompca_fit.
 * opts      options, or NULL for the defaults; as for sompca_fit, except
 *           n_threads, which does not apply (the caller computes the
 *           partials). opts->progress is called from sompca_session_next,
 *           on its caller's thread, with the same meaning as in sompca_fit
 *           (after each EMP of the TVP methods); returning non-zero
 *           cancels the fit.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL, SOMPCA_ESHAPE as sompca_fit for bad
 * arguments and options.
 */
int sompca_session_begin(sompca_session **out, size_t n_samples, size_t order,
                         const size_t *shape, const sompca_options *opts);

/*
 * Runs the fit to its next pass over the samples, or to its end.
 *
 * *out_more = 1: a pass is waiting; get each block's request with
 * sompca_session_request and feed the partials of all blocks before the
 * next call. *out_more = 0: the fit is done; take the model with
 * sompca_session_finish.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL argument or a pass not fully
 * fed; SOMPCA_ENOTFITTED for a NULL session,
 * SOMPCA_EHANDLE for a freed or foreign one; and the fit's own failures as
 * sompca_fit returns them: SOMPCA_EDATA (NaN or Inf naming the sample,
 * zero variance, too few samples), SOMPCA_EINVAL (more components than
 * the method can give), SOMPCA_ECANCELED.
 */
int sompca_session_next(sompca_session *session, int *out_more);

/*
 * Writes the request of the waiting pass for the block of samples
 * [first, first + n_samples) into dst and sets *out_len to its length in
 * bytes. Pass dst = NULL and cap = 0 to learn the length (SOMPCA_OK); when
 * cap is too small, *out_len is still set and SOMPCA_ERANGE returned. The
 * request holds what the block's partial needs (the pass's vectors and,
 * for UMPCA and TROD, the block's slice of earlier features), so
 * different blocks may get different bytes.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL out_len, n_samples = 0, no
 * pass waiting, or a block outside [0, M); SOMPCA_ERANGE; SOMPCA_ENOTFITTED for a NULL session,
 * SOMPCA_EHANDLE for a freed or foreign one.
 */
int sompca_session_request(sompca_session *session, size_t first, size_t n_samples,
                           void *dst, size_t cap, size_t *out_len);

/*
 * Reads a request: *out_partial = the size in bytes of the partial result
 * that sompca_pass_partial writes for it; *out_cache = the size in doubles
 * of the optional block cache (0 when the pass uses none); *out_first,
 * *out_n = the block [first, first + n) it is for. Any output pointer may
 * be NULL. Pure and thread-safe.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL request or bytes that are not
 * a request of this version of the library.
 */
int sompca_pass_info(const void *request, size_t request_len, size_t *out_partial,
                     size_t *out_cache, size_t *out_first, size_t *out_n);

/*
 * Computes the partial result of one block for a request: a pure function
 * of the request and the samples (same inputs, same bytes, on any thread,
 * process or machine of the same architecture).
 *
 * dst, cap  caller buffer of cap bytes, at least sompca_pass_info's
 *           *out_partial; *out_len receives the bytes written.
 * request   a request from sompca_session_request, request_len bytes.
 * data      the block's n samples of the session's shape, of type dtype,
 *           laid out as for sompca_fit; read only during the call.
 * cache, cache_cap
 *           optional: a buffer of cache_cap doubles (sompca_pass_info's
 *           *out_cache) that the caller keeps for this block from one pass
 *           of the session to the next, zero-filled when new. Some passes
 *           leave in it what later passes can read instead of the samples
 *           (for samples of order >= 3, the contraction of each sample
 *           with the first mode's vector). The result does not depend on
 *           whether a cache is given, lost, or stale: the library checks
 *           what the cache holds and recomputes from data otherwise. NULL
 *           with cache_cap 0 computes everything from data.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL argument, an unknown dtype or
 * a request this version cannot read; SOMPCA_ERANGE when cap is too small;
 * SOMPCA_ESHAPE never (the size of data follows from the request). NaN or
 * Inf in the samples is not an error here: the partial reports it and the
 * session's sompca_session_next fails with the sample's index.
 * Thread-safe.
 */
int sompca_pass_partial(void *dst, size_t cap, size_t *out_len, const void *request,
                        size_t request_len, const void *data, int dtype, double *cache,
                        size_t cache_cap);

/*
 * Joins the partials of consecutive blocks of one pass into the partial of
 * their union, where they were computed: the leaves of the engine's
 * reduction tree cut by the blocks' boundaries are joined, the subtrees
 * the blocks complete together are folded, and rows are concatenated. A
 * process that computed several neighbouring blocks sends one partial,
 * fewer bytes for the driver to receive and fold; feeding it for the
 * union gives the same model, bit for bit, as feeding the parts. Pure and
 * thread-safe.
 *
 * dst, cap  caller buffer of cap bytes, at least the sum of lens (a joined
 *           partial is never longer than its parts); *out_len receives
 *           the bytes written.
 * request   the request of any of the blocks, request_len bytes.
 * partials, lens, count
 *           count >= 1 partials from sompca_pass_partial (or this
 *           function) of blocks of that pass that follow each other, in
 *           order; partials[i] is lens[i] bytes.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL argument, count = 0, bytes
 * that are not a request or partials of this version of the library, or
 * partials of another pass or of blocks that do not follow each other;
 * SOMPCA_ERANGE when cap is too small.
 */
int sompca_partials_join(void *dst, size_t cap, size_t *out_len, const void *request,
                         size_t request_len, const void *const *partials, const size_t *lens,
                         size_t count);

/*
 * Feeds the partial result of the block [first, first + n_samples) of the
 * waiting pass. Blocks are fed in increasing order and tile [0, M); the
 * block must be the one the partial was computed for.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL partial, a block out of
 * order, or bytes that are not a partial of this pass and block (the
 * session then fails); SOMPCA_ENOTFITTED for a NULL session,
 * SOMPCA_EHANDLE for a freed or foreign one.
 */
int sompca_session_feed(sompca_session *session, size_t first, size_t n_samples,
                        const void *partial, size_t len);

/*
 * Takes the model of a finished session (after sompca_session_next gave
 * *out_more = 0). out receives the new model, to be freed with
 * sompca_model_free; set to NULL on failure. A second call fails.
 *
 * Returns SOMPCA_OK; SOMPCA_EINVAL for a NULL out or a session not
 * finished; SOMPCA_ENOTFITTED for a NULL session,
 * SOMPCA_EHANDLE for a freed or foreign one; or the session's error.
 */
int sompca_session_finish(sompca_session *session, sompca_model **out);

/* Ends a session at any point (a running fit is abandoned) and frees it.
 * NULL is a no-op; a freed or foreign pointer (a model, say) is left alone and
 * sets the last error (SOMPCA_EHANDLE). */
void sompca_session_free(sompca_session *session);

#ifdef __cplusplus
}
#endif
#endif /* SOMPCA_H */
