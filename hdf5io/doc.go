// Package hdf5io connects HDF5 files to the solver: a streaming
// solver.Source over any numeric HDF5 dataset, model files, and feature
// files. It is the cgo layer of sompca, over gonum.org/v1/hdf5 and the
// system libhdf5 (Debian: libhdf5-dev and pkg-config), with a small C shim
// (shim.c) for the calls gonum does not expose.
//
// # Samples
//
// Open(path, dataset, opts) returns a *Source that streams the samples of
// a dataset such as "/train/X". Options.Layout says where they are:
//
//	SamplesFirst  (M, I_0, ..., I_{N-1})  numpy, h5py, C, sompca (default)
//	SamplesLast   (I_0, ..., I_{N-1}, M)  a row-major writer with samples last
//	ColumnMajor   (M, I_{N-1}, ..., I_0)  as HDF5 shows an I_0 x ... x I_{N-1} x M
//	                                      array written by MATLAB -v7.3, R (rhdf5),
//	                                      Julia (HDF5.jl) or Fortran; read with the
//	                                      modes restored to the author's order
//
// With ColumnMajor, mode n is the author's dimension n+1 (MATLAB counts
// from 1), so mode numbers, the orthogonal mode and the projections mean
// what they mean in MATLAB, and a fit equals the fit of the array as
// MATLAB holds it, bit for bit. A dataset with MATLAB's MATLAB_class
// attribute, or in a file with a 512-byte user block (MATLAB -v7.3), read
// with another layout gives a warning through Options.Warn naming
// "column-major".
//
// The element type may be any real type h5py writes, in either byte
// order: bool (h5py's enum {FALSE, TRUE}), int8 ... uint64, float16,
// float32, float64 and longdouble. Each is read into a buffer of its own
// type (never reinterpreted as another) and converted on read to the type
// the solver receives (Source.Elem):
//
//	bool, uint8                             -> uint8   (0/1; no conversion)
//	int8, int16, uint16, float16, float32   -> float32 (exact)
//	int32, uint32, float64                  -> float64 (exact)
//	int64, uint64                           -> float64 (exact up to 2^53 in magnitude;
//	                                                    larger values are rounded)
//	longdouble                              -> float64 (rounded to 53 bits)
//
// Complex numbers (h5py's compound {r, i}), strings, other compounds and
// enums, opaque and reference types are refused with ErrType.
//
// # Reads at the speed of the file, in bounded memory
//
// A fit offers the Source its share of solver.Options.MemoryLimit
// (Source.PlanMemory). If the whole dataset, converted, fits, it is read
// once and every pass runs from memory; otherwise it is streamed, each
// pass re-reading the file in runs sized to fit the limit. Reads follow
// the dataset's storage (stream.go): each is one hyperslab of whole
// samples, at most Options.ChunkBytes bytes in the file's type (default
// 64 MiB, at least one sample), read into a memory dataspace of its own
// shape so that HDF5 moves each chunk in one piece whatever its shape
// across the sample's axes; reads hold whole chunks along the sample axis
// where they can. Unfiltered chunks stored in the type read are read as
// stored (H5Dread_chunk) and copied into the run by sompca_h5_read_chunks
// (straight into it when a chunk lies there in one piece), several times
// faster than HDF5's selections for small chunks such as h5py's
// chunks=True; filtered ones (gzip, shuffle, ... decoded by HDF5) go
// through the dataset's chunk cache (H5Pset_chunk_cache), which keeps one
// row of chunks, so a chunk that a read boundary cuts through is not
// decompressed twice. While the solver works on one run, the next is read
// on a goroutine of the Source's own (double buffering). Data to convert
// or transpose is read about 1 MiB at a time; samples-last runs are
// transposed to sample-major order (uint8 by 16 x 16 SSE2 tiles),
// column-major samples permuted to the author's order. Options.InMemory
// loads the whole dataset at Open whatever the limit. BytesRead and
// DataBytes report the bytes read so far and of the dataset (a fit's
// solver.Options.ReadProgress, through solver.ReadCounter).
//
// A read that fails, also in the middle of a fit or on the read-ahead
// goroutine, is an *Error naming file and dataset and wrapping its cause
// (ErrCorrupt, ErrFilter, ErrIO; never bad data).
//
// # Storage as HDF5 writes it
//
// Before a dataset of samples is read, Open checks what its storage
// holds against its layout (checkSampleStorage): what was never written
// reads the dataset's fill value, as in h5py (a contiguous dataset never
// allocated; the chunks never written: H5Dget_num_chunks counts those
// that were); an allocated contiguous or compact dataset stores its whole
// extent, each written chunk a whole chunk (at least 1/1100 of one when
// filtered); external raw files exist and hold the extent; and each
// source of a virtual dataset exists and is checked the same way. A
// source file or dataset that is missing is an error naming it
// (ErrNotExist), not the fill value that libhdf5 would read in its place:
// a fit of fill values would be a fit of nothing. A dataset that is all
// fill value fails the fit as zero variance. A filter that libhdf5
// cannot load (h5py's LZF, a plugin not on HDF5_PLUGIN_PATH) is ErrFilter
// naming it and how to install it.
//
// A file that a writer holds open in SWMR mode (h5py's swmr_mode) is
// opened with H5F_ACC_SWMR_READ when a plain open meets the superblock's
// "open for write" mark; the fit reads the samples there are when it
// opens the file, and the file may grow while it reads. A file that a
// writer holds otherwise is ErrLocked, naming HDF5_USE_FILE_LOCKING and
// its risk; libhdf5's advice to run h5clear is not passed on (it corrupts
// a file being written).
//
// A fit from a Source gives the same model, bit for bit, as the fit from
// the same values in memory (the solver's sums do not depend on how reads
// are split); the tests check it.
//
// # Model files
//
// SaveModel writes a fitted solver.Model; LoadModel reads it back bit for
// bit and validates it. MarshalModel makes the same file's bytes in memory
// (HDF5's core driver) and UnmarshalModel reads them, so that models travel
// between processes without files; a model file carries no time stamps, so
// the same model always gives the same bytes. The layout is self-describing and readable by h5py
// alone (P is the number of features, N the order of the samples):
//
//	/ attributes
//	  format           string  "sompca-model"
//	  format_version   int64   2 (1: the previous layout, still read; see below)
//	  library_version  string  the sompca version that wrote the file (Version)
//	  method           string  "so-mpca", "fo-mpca", "trod", "umpca", "pca", "mpca" or "csa"
//	  relaxed_start    int64   1 if fitted with relaxed start, else 0
//	  mode             int64   SO-MPCA's orthogonal mode, 0-based; -1 for other methods;
//	                           -2 for all modes (solver.AllModes, see /feature_modes)
//	  max_iter         int64   sweeps per EMP (MPCA, CSA: in total)
//	  tol              float64 relative-change tolerance of the fit (0: all sweeps)
//	  q                float64 MPCA/CSA kept-variance fraction
//	  feature_order    string  "variance" or "extraction"
//	  n_samples        int64   number M of training samples
//	  n_features       int64   P
//	  total_variance   float64 total variance of the training data
//	  shape            int64[N] sample shape (sizes of modes 0 .. N-1)
//	  checksum         string  "sha256:" and the SHA-256 of the model's content
//	                           (optional; see Integrity)
//	/mean              float64 (shape)  training mean (zeros for TROD, CSA)
//	/projections/U0 .. /projections/U{N-1}
//	                   float64 (I_n, P)  mode-n projection vectors, column j for feature j
//	                           (PCA instead: /projections/W, (I_1*...*I_N, P), on the
//	                           C-order vectorised sample)
//	/variance          float64 (P)  captured variance of each feature
//	/extraction        int64 (P)    extraction index (0-based) of each feature
//	/iterations        int64 (P)    sweeps run for each feature's EMP
//	/history           float64 (H, L)  objective history, one row per entry of
//	                           Model.History, padded with NaN to the longest
//	                           (absent when the model has none, e.g. PCA)
//	/history_lengths   int64 (H)    length of each history row (Iterations[j]+1
//	                           for the successive-EMP methods)
//	/ranks             int64 (N)    mode ranks P_n (MPCA and CSA only)
//	/feature_modes     int64 (P)    orthogonal mode (0-based) of each feature's fit;
//	                                -2 (solver.AllModes) for the first EMP, which
//	                                every mode's fit shares (at most one feature)
//	                           (all-modes SO-MPCA only, mode = -2; readers before
//	                           it refuse such a file for its mode)
//
// Modes are numbered from 0 here as everywhere in sompca (see "Mode
// numbering" in package solver). Format version 1, written by sompca
// 0.1.0, numbered them from 1: attribute nu = mode+1 (0 for methods
// without an orthogonal mode) and /projections/U1 .. /projections/UN;
// LoadModel reads it by its format_version and converts.
//
// All datasets and attributes are native little-endian on x86. Strings are
// variable-length UTF-8, which h5py returns as str. LoadModel refuses, with
// ErrFormat, a file without format = "sompca-model", a format_version
// newer than ModelFormatVersion, and missing or inconsistent fields.
//
// # Integrity
//
// SaveModel writes the file in the HDF5 1.10 format (library version
// bounds v110: superblock version 3, version 2 object headers, new chunk
// indexes), whose metadata carries checksums, and every dataset chunked
// with HDF5's Fletcher-32 checksum filter; libhdf5 verifies both on every
// read. Variable-length strings live in the global heap, which no HDF5
// format checksums, so the checksum attribute holds a SHA-256 over the
// whole model (every field of solver.Model in a fixed encoding) that
// LoadModel recomputes. A corrupted model file is therefore an error,
// ErrCorrupt saying "checksum mismatch", never a different model.
//
// Files written by other tools (h5py, from the layout above) need none of
// this: without checksums, in the default HDF5 format, without the
// checksum attribute, they load as before; what they lack is protection
// against a corrupted value.
//
// Before any value is read, its datatype and dataspace are checked against
// the layout: the type class, size, sign and bit layout (all bits
// significant, IEEE floats), string kind, character set and length, rank
// and extent; a dataset's extent is checked against the bytes the file
// stores for it before memory is allocated for it, and the global heap
// collections are walked before a variable-length string is read
// (libhdf5 1.10 trusts their sizes). Anything else is ErrFormat, ErrType
// or ErrCorrupt naming the file, the object and what is wrong. The fuzz
// tests (make fuzz, make fuzz-files) load corrupted copies of a model file
// and of a data file; for model files sompca wrote, a crash, a hang or a
// different model is a failure. Files without checksums are protected only
// as far as these checks reach: libhdf5 1.10 itself parses their metadata.
//
// # Features
//
// WriteFeatures writes transform output, M x P float64, as a dataset of a
// new or existing file; TransformFile streams a dataset through a model
// into such a file chunk by chunk. Other objects of an existing file are
// kept; an existing dataset of the same name is replaced only when the
// caller passes overwrite (a group of that name never is). HDF5 does not
// reclaim the space of a replaced dataset; h5repack does.
//
// A features dataset written by TransformFile carries its provenance as
// string attributes: sompca_version, method ("so-mpca-rs", ...),
// model_file (the absolute path, when Options.ModelFile gives it; the C
// API and the command line pass the file a model was loaded from or saved
// to), model_checksum (the model's content checksum, equal to the checksum
// attribute of its model file), source_file (absolute), source_dataset and
// layout ("samples-first", "samples-last" or "column-major").
//
// # Nothing is lost on failure
//
// An input file is only ever opened read-only. Every file hdf5io writes is
// written under a temporary name in the same directory (".NAME.tmp-XXXX";
// for an existing file, a copy of it) and renamed into place after it has
// been closed and synced, so a failed write leaves the previous file, or no
// file, exactly as it was; the temporary file is removed. A replaced file
// keeps its permission bits. TransformFile refuses to write into its input
// file, and SaveModel to replace an existing file that is not a sompca
// model file (the training data given by mistake).
//
// # Errors
//
// Every error is an *Error naming the operation, the file and, where there
// is one, the dataset, and wraps one of ErrNotExist, ErrNotHDF5,
// ErrCorrupt, ErrType, ErrShape, ErrFormat, ErrExists, ErrIO, ErrLink,
// ErrFilter, ErrLocked, ErrPermission or ErrVersion for errors.Is. It
// covers: missing file, a directory, not an HDF5 file, truncated or
// corrupt file, a soft or external link to nothing (naming link and
// target), a filter libhdf5 cannot load, a file locked by a writer, a
// refused permission, a format newer than libhdf5 1.10 reads (h5py's
// libver "v112" and later: the message names the HDF5 release that
// writes it), missing dataset or group, a group or named
// datatype where a dataset was expected, element types that are not real
// numbers (string, compound, complex, enum other than h5py's bool,
// opaque, ...), rank below 2, zero samples, an empty mode, a model file of
// another format or a newer format version, a transform input whose
// sample shape differs from the model's, a failed checksum (ErrCorrupt,
// "checksum mismatch"), element types in a non-standard bit layout, a
// dataset whose extent exceeds the bytes the file stores for it, and
// attributes of the wrong class, size, rank or length (see Integrity).
// Where HDF5 failed, its own error
// stack (API function and the chain of reasons) is carried in the message;
// HDF5's automatic printing of that stack to stderr is switched off.
//
// # Threads
//
// All HDF5 calls in the package are serialized by one mutex. (Debian's
// libhdf5 1.10 happens to be built thread-safe, but other builds are not,
// and the lock costs nothing next to the I/O.) While inside, the goroutine
// is pinned to its thread: in a thread-safe build HDF5's error stack and
// its error-printing switch are per thread, so the switch is turned off on
// each entry and the stack is read on the thread that failed. Different
// Sources may be used from different goroutines; one Source is used by one
// goroutine at a time, as solver.Source requires. Other Go code must not
// call gonum.org/v1/hdf5 concurrently with hdf5io.
package hdf5io
