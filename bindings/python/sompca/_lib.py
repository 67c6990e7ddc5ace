"""Private ctypes layer over libsompca (the C contract is include/sompca.h).

This module loads the shared library once per process and never unloads
it, declares ``argtypes``/``restype`` for every exported function, turns
status codes into Python exceptions carrying the library's message, and
wraps a model handle in :class:`Model`, which frees it when collected.

The library is looked up in this order:

1. the file named by the ``SOMPCA_LIBRARY`` environment variable (if set,
   it is the only candidate, so a wrong value fails loudly);
2. ``libsompca.so`` next to this file (copied in by ``make python-package``);
3. ``build/libsompca.so`` of the source tree this file lives in.

Error model: ``SOMPCA_EINVAL``, ``SOMPCA_ESHAPE``, ``SOMPCA_ERANGE`` and
``SOMPCA_EDATA`` raise :class:`ValueError`; the file codes raise
:class:`OSError` or a subclass by cause: ``SOMPCA_EIO`` OSError,
``SOMPCA_EFILE`` (a file's content is invalid: corrupt, "checksum
mismatch", not a model) :class:`InvalidFileError`, ``SOMPCA_ENOTFOUND``
FileNotFoundError, ``SOMPCA_ELINK`` :class:`BrokenLinkError`,
``SOMPCA_EFILTER`` :class:`MissingFilterError`, ``SOMPCA_ELOCKED``
:class:`FileLockedError`, ``SOMPCA_EPERM`` PermissionError,
``SOMPCA_ETYPE`` :class:`UnsupportedTypeError` (also a TypeError),
``SOMPCA_EVERSION`` :class:`FileVersionError`; ``SOMPCA_ENOMEM`` :class:`MemoryError`, any other code
(``SOMPCA_ENUMERICAL``, ``SOMPCA_EHANDLE``, ...) :class:`RuntimeError`; the message is
``sompca_last_error()``, read right after the failing call on the same
thread (the library keeps it per thread), and the exception's ``status``
attribute is the ``SOMPCA_E*`` code. A fit or transform interrupted by
Ctrl-C stops within milliseconds and raises :class:`KeyboardInterrupt`.
"""

import ctypes
import functools
import importlib.util
import os
import pathlib
import re
import signal
import threading
import weakref
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np

from ._version import __version__

# Status codes, methods, element types and feature orders of sompca.h.
OK, EINVAL, ESHAPE, ERANGE, ENOTFITTED, EIO, ENOMEM, EDATA, ECANCELED, EINTERNAL = range(10)
EHANDLE, EFORK, ENUMERICAL, EFILE = 10, 11, 12, 13
ENOTFOUND, ELINK, EFILTER, ELOCKED, EPERM, ETYPE, EVERSION = range(14, 21)
METHOD_SOMPCA, METHOD_FOMPCA, METHOD_TROD, METHOD_UMPCA, METHOD_PCA, METHOD_MPCA, METHOD_CSA = range(7)
FLOAT64, FLOAT32, UINT8, UINT16, INT16 = range(5)
LAYOUT_SAMPLES_FIRST, LAYOUT_SAMPLES_LAST, LAYOUT_COLUMN_MAJOR = range(3)
LAYOUTS = {"samples-first": LAYOUT_SAMPLES_FIRST, "samples-last": LAYOUT_SAMPLES_LAST,
           "column-major": LAYOUT_COLUMN_MAJOR}
ORDER_VARIANCE, ORDER_EXTRACTION = range(2)
MODE_ALL = -2  # SOMPCA_MODE_ALL: SO-MPCA in every mode, features fused
# SOMPCA_MODE_UPDATES_*: how a TVP mode update gets its scatter (rows / folded scatter).
MODE_UPDATES = {"auto": 0, "rows": 1, "scatter": 2}
# SOMPCA_MODE_UPDATES_ROWS_LIMIT: "auto" is rows up to this many partial projections (M x max_n I_n).
MODE_UPDATES_ROWS_LIMIT = 1 << 20
BLOCK_MULTIPLE = 64  # SOMPCA_BLOCK_MULTIPLE

_VALUE_ERRORS = frozenset({EINVAL, ESHAPE, ERANGE, EDATA})

PROGRESS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_int, c_double)
READ_PROGRESS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_uint64, c_uint64)


class Options(ctypes.Structure):
    """``struct sompca_options``; build it with :func:`new_options`."""

    _fields_ = [
        ("size", c_uint32),
        ("method", c_int),
        ("relaxed_start", c_int),
        ("n_components", c_int),
        ("mode", c_int),
        ("max_iter", c_int),
        ("tol", c_double),
        ("n_threads", c_int),
        ("feature_order", c_int),
        ("q", c_double),
        ("progress", PROGRESS_FN),
        ("progress_user", c_void_p),
        ("memory_limit", c_size_t),
        ("read_progress", READ_PROGRESS_FN),
        ("mode_updates", c_int),
        ("narrowing", c_int),
    ]


_model_p = c_void_p  # const sompca_model * (opaque)
_session_p = c_void_p  # sompca_session * (opaque)
_doubles = POINTER(c_double)
_int64s = POINTER(c_int64)

# name: (restype, argtypes), in the order of sompca.h.
_SIGNATURES = {
    "sompca_version_number": (c_int, []),
    "sompca_version": (c_char_p, []),
    "sompca_errstr": (c_char_p, [c_int]),
    "sompca_last_error": (c_char_p, []),
    "sompca_last_warning": (c_char_p, []),
    "sompca_cancel_flag": (None, [POINTER(c_int)]),
    "sompca_options_init": (None, [POINTER(Options)]),
    "sompca_options_defaults": (c_int, [c_int, POINTER(Options)]),
    "sompca_method_from_name": (c_int, [c_char_p, POINTER(c_int), POINTER(c_int)]),
    "sompca_method_name": (c_char_p, [c_int, c_int]),
    "sompca_fit": (c_int, [POINTER(_model_p), c_void_p, c_int, c_size_t, c_size_t, POINTER(c_size_t),
                           POINTER(Options)]),
    "sompca_fit_strided": (c_int, [POINTER(_model_p), c_void_p, c_int, c_size_t, c_size_t, c_size_t,
                                   POINTER(c_size_t), POINTER(Options)]),
    "sompca_fit_hdf5": (c_int, [POINTER(_model_p), c_char_p, c_char_p, c_int, POINTER(Options)]),
    "sompca_transform_size": (c_int, [_model_p, c_size_t, POINTER(c_size_t)]),
    "sompca_transform": (c_int, [_model_p, _doubles, c_size_t, c_void_p, c_int, c_size_t]),
    "sompca_transform_strided": (c_int, [_model_p, _doubles, c_size_t, c_void_p, c_int, c_size_t, c_size_t]),
    "sompca_inverse_transform": (c_int, [_model_p, _doubles, c_size_t, _doubles, c_size_t]),
    "sompca_transform_hdf5": (c_int, [_model_p, c_char_p, c_char_p, c_int, c_char_p, c_char_p, c_int]),
    "sompca_model_method": (c_int, [_model_p, POINTER(c_int), POINTER(c_int)]),
    "sompca_model_n_components": (c_int, [_model_p, POINTER(c_size_t)]),
    "sompca_model_order": (c_int, [_model_p, POINTER(c_size_t)]),
    "sompca_model_shape": (c_int, [_model_p, POINTER(c_size_t), c_size_t]),
    "sompca_model_mode": (c_int, [_model_p, POINTER(c_int)]),
    "sompca_model_feature_modes": (c_int, [_model_p, _int64s, c_size_t]),
    "sompca_model_n_samples": (c_int, [_model_p, POINTER(c_size_t)]),
    "sompca_model_mean": (c_int, [_model_p, _doubles, c_size_t]),
    "sompca_model_projection": (c_int, [_model_p, c_size_t, _doubles, c_size_t]),
    "sompca_model_variance": (c_int, [_model_p, _doubles, c_size_t]),
    "sompca_model_variance_ratio": (c_int, [_model_p, _doubles, c_size_t]),
    "sompca_model_extraction": (c_int, [_model_p, _int64s, c_size_t]),
    "sompca_model_iterations": (c_int, [_model_p, _int64s, c_size_t]),
    "sompca_model_history": (c_int, [_model_p, c_size_t, _doubles, c_size_t, POINTER(c_size_t)]),
    "sompca_model_options": (c_int, [_model_p, POINTER(Options)]),
    "sompca_model_ranks": (c_int, [_model_p, POINTER(c_size_t), c_size_t]),
    "sompca_model_save": (c_int, [_model_p, c_char_p]),
    "sompca_model_load": (c_int, [POINTER(_model_p), c_char_p]),
    "sompca_model_serialize": (c_int, [_model_p, c_void_p, c_size_t, POINTER(c_size_t)]),
    "sompca_model_deserialize": (c_int, [POINTER(_model_p), c_void_p, c_size_t]),
    "sompca_model_free": (None, [_model_p]),
    "sompca_session_begin": (c_int, [POINTER(_session_p), c_size_t, c_size_t, POINTER(c_size_t), POINTER(Options)]),
    "sompca_session_next": (c_int, [_session_p, POINTER(c_int)]),
    "sompca_session_request": (c_int, [_session_p, c_size_t, c_size_t, c_void_p, c_size_t, POINTER(c_size_t)]),
    "sompca_pass_info": (c_int, [c_char_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t), POINTER(c_size_t),
                                 POINTER(c_size_t)]),
    "sompca_pass_partial": (c_int, [c_void_p, c_size_t, POINTER(c_size_t), c_char_p, c_size_t, c_void_p, c_int,
                                    _doubles, c_size_t]),
    "sompca_partials_join": (c_int, [c_void_p, c_size_t, POINTER(c_size_t), c_char_p, c_size_t, POINTER(c_char_p),
                                     POINTER(c_size_t), c_size_t]),
    "sompca_session_feed": (c_int, [_session_p, c_size_t, c_size_t, c_char_p, c_size_t]),
    "sompca_session_finish": (c_int, [_session_p, POINTER(_model_p)]),
    "sompca_session_free": (None, [_session_p]),
}

LIBRARY_NAME = "libsompca.so"


def _find():
    """The library's path: $SOMPCA_LIBRARY if set, else the first that exists."""
    env = os.environ.get("SOMPCA_LIBRARY")
    if env:
        return pathlib.Path(env)  # explicit: used even if missing, so a wrong value fails loudly
    here = pathlib.Path(__file__).resolve().parent
    # here = <repo>/bindings/python/sompca when run from a source tree.
    candidates = [here / LIBRARY_NAME, here.parents[2] / "build" / LIBRARY_NAME]
    for path in candidates:
        if path.is_file():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise ImportError(
        f"sompca: {LIBRARY_NAME} not found (tried {tried}); run `make lib` in the sompca "
        "repository, then `make python-package`, or set SOMPCA_LIBRARY to the library's path"
    )


def _plugin_path():
    """Point the library's libhdf5 at hdf5plugin's filters (Blosc, Zstd, LZ4, Bitshuffle...) when installed.

    Through SOMPCA_HDF5_PLUGIN_PATH, searched after HDF5_PLUGIN_PATH by the
    library's libhdf5 alone: h5py's own HDF5 gets hdf5plugin's filters from
    hdf5plugin itself, and fails to create Blosc and Bitshuffle datasets
    when HDF5_PLUGIN_PATH also names that folder. A value the user set is
    kept. The package is found without importing it (which imports h5py).
    """
    if "SOMPCA_HDF5_PLUGIN_PATH" in os.environ:
        return
    spec = importlib.util.find_spec("hdf5plugin")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        plugins = os.path.join(folder, "plugins")
        if os.path.isdir(plugins):
            os.environ["SOMPCA_HDF5_PLUGIN_PATH"] = plugins
            return


def _open(path, shown=None):
    """Load the library at path, declare its functions and check its version."""
    shown = shown or path
    _plugin_path()
    try:
        cdll = ctypes.CDLL(str(path))
    except OSError as err:
        raise ImportError(f"sompca: cannot load {shown}: {err}") from err
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            function = getattr(cdll, name)
        except AttributeError as err:
            raise ImportError(f"sompca: {shown} does not export {name}: wrong or outdated library") from err
        function.restype = restype
        function.argtypes = argtypes
    version = cdll.sompca_version().decode()
    if version != __version__:
        raise ImportError(
            f"sompca: the Python package is version {__version__} but {shown} is version {version}; "
            "rebuild the library (`make lib`) and reinstall the package (`make python-package`)"
        )
    return cdll


FORK_REMEDY = ("use the 'spawn' or 'forkserver' start method (multiprocessing.get_context('spawn'), "
               "joblib's default 'loky' backend) or fit in the child")


class _Library:
    """The loaded libsompca: ``lib.sompca_fit(...)`` and so on.

    The Go runtime inside the library does not survive ``fork()`` (the child
    keeps only the forking thread; the C library then refuses every call
    with SOMPCA_EFORK). So in a child forked after the library was loaded,
    the first call loads a fresh copy of the library, from an anonymous
    in-memory file holding the library file's bytes (``dlopen`` of the same
    path would return the parent's copy). ``generation`` counts the forks
    seen, so that a :class:`Model` knows when its handle belongs to an
    earlier copy.
    """

    def __init__(self, path):
        self.path = path
        self.generation = 0
        self._cdll = _open(path)
        self._stale = False
        self._lock = threading.Lock()
        self._fds = []  # the in-memory copies stay open, so their /proc/self/fd names stay unique

    def __getattr__(self, name):  # only for names not set in __init__: the library's functions
        if self._stale:
            self._reload()
        return getattr(self._cdll, name)

    def _forked(self):
        """In the child, right after fork (os.register_at_fork)."""
        self._stale = True
        self.generation += 1
        self._lock = threading.Lock()  # the parent's may have been held by a thread the child lacks

    def _reload(self):
        with self._lock:
            if not self._stale:
                return
            try:
                fd = os.memfd_create(LIBRARY_NAME)
                try:
                    with open(self.path, "rb") as file:
                        os.write(fd, file.read())
                    cdll = _open(f"/proc/self/fd/{fd}", shown=f"a copy of {self.path}")
                except BaseException:
                    os.close(fd)
                    raise
            except (OSError, ImportError, AttributeError) as err:
                raise RuntimeError(
                    f"sompca: this process was forked from one that had loaded libsompca, whose Go runtime does not "
                    f"survive fork, and a fresh copy of {self.path} could not be loaded ({err}); {FORK_REMEDY}"
                ) from err
            self._fds.append(fd)
            self._cdll = cdll
            self._stale = False


def _load():
    path = _find()
    return _Library(path), path


lib, library_path = _load()


def version():
    """Return the library's version string, such as ``"0.2.0"``."""
    return lib.sompca_version().decode()


def _message(status):
    """The message of the last failure on this thread, else the code's text."""
    text = lib.sompca_last_error()
    if not text:
        text = lib.sompca_errstr(status)
    return text.decode(errors="replace") if text else f"sompca: status {status}"


class InvalidFileError(OSError):
    """A file's content is invalid: not HDF5, truncated or corrupt (a checksum mismatch), not a sompca model."""


class BrokenLinkError(FileNotFoundError):
    """An HDF5 soft or external link whose target does not exist; the message names link and target."""


class MissingFilterError(OSError):
    """A dataset needs an HDF5 filter (compression) that libhdf5 cannot load; the message names it and its plugin."""


class FileLockedError(OSError):
    """Another process holds the HDF5 file open for writing (HDF5's file lock; see HDF5_USE_FILE_LOCKING)."""


class UnsupportedTypeError(OSError, TypeError):
    """The HDF5 object is not a dataset of real numbers in a standard bit layout (a group, strings, complex...)."""


class FileVersionError(OSError):
    """The HDF5 file uses a format newer than the library's libhdf5 reads; the message names the release it needs."""


# Status codes of files, by cause, and their exceptions (all OSError).
_FILE_ERRORS = {EIO: OSError, EFILE: InvalidFileError, ENOTFOUND: FileNotFoundError, ELINK: BrokenLinkError,
                EFILTER: MissingFilterError, ELOCKED: FileLockedError, EPERM: PermissionError,
                ETYPE: UnsupportedTypeError, EVERSION: FileVersionError}


# sompca_options fields -> the estimators' parameter names.
_PARAMETER_NAMES = {"n_threads": "n_jobs", "feature_order": "sort_features"}


def python_words(message):
    """A library message in the words of the Python API.

    No C function names (``sompca_fit: ``), Go package prefixes
    (``solver: ``), C option fields (``opts->mode``) or Go field names
    (``MemoryLimit``); a sample's axis n is X's axis n + 1.

    Examples
    --------
    >>> python_words("sompca_fit: opts->mode is 5: want -1 (automatic), SOMPCA_MODE_ALL (-2, every mode) or a mode "
    ...              "0..1 of the order-2 samples")
    "mode=5: want None (the largest mode), 'all' or a mode 0..1 of the order-2 samples"
    >>> python_words("sompca_fit: solver: ... give the fit a larger MemoryLimit")
    '... give the fit a larger memory_limit'
    >>> python_words("sompca_fit: shape[0] is 0: want 1..2147483647")
    "X's axis 1 has length 0: want 1..2147483647"
    """
    message = re.sub(r"\bsompca_[a-z0-9_]+: ", "", message)
    message = re.sub(r"\b(?:solver|hdf5io|capi): ", "", message)
    message = re.sub(r"\bopts->mode is (-?\d+): want .*? or a mode",
                     r"mode=\1: want None (the largest mode), 'all' or a mode", message)
    message = re.sub(r"\bopts->(\w+) is ", lambda m: _PARAMETER_NAMES.get(m.group(1), m.group(1)) + "=", message)
    message = re.sub(r"\bMemoryLimit\b", "memory_limit", message)
    return re.sub(r"\bshape\[(\d+)\] is (\d+)", lambda m: f"X's axis {int(m.group(1)) + 1} has length {m.group(2)}",
                  message)


def error_for(status, message):
    """Return the exception for a failing status and its message (in Python's words, see python_words)."""
    message = python_words(message)
    if status in _VALUE_ERRORS:
        exc = ValueError(message)
    elif status in _FILE_ERRORS:
        exc = _FILE_ERRORS[status](message)
    elif status == ENOMEM:
        exc = MemoryError(message)
    else:
        exc = RuntimeError(message)
    exc.status = status
    return exc


def check(status):
    """Raise the exception for status if it is not SOMPCA_OK.

    Call it right after the library call, on the same thread.
    """
    if status != OK:
        raise error_for(status, _message(status))


def _no_nul(encoded, what, value):
    # C would see the string cut at the NUL, silently naming another file or dataset.
    if b"\0" in encoded:
        raise ValueError(f"{what} {value!r} contains a NUL character, which C strings cannot hold")
    return encoded


def _path(path):
    return _no_nul(os.fsencode(path), "path", path)


def _name(dataset):
    return _no_nul(dataset.encode(), "dataset name", dataset)


def new_options(**fields):
    """Return a ``sompca_options`` initialised by the library, then set fields."""
    options = Options()
    lib.sompca_options_init(byref(options))
    for name, value in fields.items():
        setattr(options, name, value)
    return options


class LayoutWarning(UserWarning):
    """An HDF5 dataset is probably read with the wrong layout (e.g. a MATLAB file without "column-major")."""


def _warn(said):
    """Issue the library's warnings (sompca_last_warning texts) as LayoutWarning."""
    import warnings

    for text in said:
        if text:
            warnings.warn(text.decode(errors="replace"), LayoutWarning, stacklevel=4)


def method_defaults(method):
    """Return the library's default ``sompca_options`` of a ``SOMPCA_METHOD_*`` code.

    They come from the one table of defaults in the Go engine
    (solver.DefaultOptions), which the C API and the estimators share.
    """
    options = Options()
    check(lib.sompca_options_defaults(method, byref(options)))
    return options


def method_from_name(name):
    """Return ``(SOMPCA_METHOD_* code, relaxed_start)`` for a method name.

    The library parses the name (``sompca_method_from_name``: case and
    ``'_'`` for ``'-'`` do not matter, ``-rs`` sets relaxed start); an
    unknown name raises ValueError with the library's list of names.
    """
    if not isinstance(name, str):
        raise TypeError(f"method name must be a str, not {type(name).__name__}")
    if "\0" in name:
        raise ValueError(f"method name {name!r} contains a NUL character")
    method, relaxed = c_int(), c_int()
    check(lib.sompca_method_from_name(name.encode(), byref(method), byref(relaxed)))
    return method.value, bool(relaxed.value)


def method_name(method, relaxed_start=False):
    """Return the library's canonical name of a ``SOMPCA_METHOD_*`` code, such as ``"so-mpca-rs"``."""
    name = lib.sompca_method_name(method, 1 if relaxed_start else 0)
    if name is None:
        raise ValueError(f"unknown method code {method}")
    return name.decode()


class _Progress:
    """The progress callbacks of one fit, and the cancel flag they report.

    ``report(done, total, variance)`` and ``report_read(bytes_read,
    bytes_total)`` are the caller's hooks (either may be None); their
    exceptions stop the fit and are raised again by the fit.
    """

    def __init__(self, report, report_read=None):
        self.report = report
        self.report_read = report_read
        self.cancel = threading.Event()
        self.error = None
        # The CFUNCTYPE objects must outlive the C call: they are kept here.
        self.function = PROGRESS_FN(self._call)
        self.read_function = READ_PROGRESS_FN(self._call_read) if report_read is not None else READ_PROGRESS_FN()

    def _call(self, user, done, total, variance):
        return self._hook(self.report, done, total, variance)

    def _call_read(self, user, bytes_read, bytes_total):
        return self._hook(self.report_read, bytes_read, bytes_total)

    def _hook(self, report, *args):
        if self.cancel.is_set():
            return 1
        if report is not None:
            try:
                report(*args)
            except BaseException as exc:  # raised again by the fit, in the caller's thread
                self.error = exc
                self.cancel.set()
        return 1 if self.cancel.is_set() else 0

    def install(self, options):
        """Point ``options`` (a sompca_options) at these callbacks, if there is a hook to call.

        Without hooks the library is not called back: each call crosses
        from the fit's workers to the calling thread and into Python (a
        switch of OS threads and the GIL), and Ctrl-C cancels through the
        flag of sompca_cancel_flag, which the library polls.
        """
        if self.report is None and self.report_read is None:
            return
        options.progress = self.function
        options.read_progress = self.read_function


def _interruptibly(call, on_interrupt=None):
    """Run ``call() -> status``; return (status, message or None, interrupted).

    On the main thread, the call runs in a worker thread so that Ctrl-C
    reaches Python at once: the main thread then sets the cancellation flag
    that the library polls every few milliseconds of work
    (``sompca_cancel_flag``), calls ``on_interrupt``, and waits for the call
    to end (with SOMPCA_ECANCELED, or done). The caller raises
    KeyboardInterrupt then.

    While it waits, the main thread's SIGINT handler, if it is Python's
    default, is one that only records the interrupt: a KeyboardInterrupt
    raised inside ``threading``'s waits can leave them broken (raised in
    ``Condition.wait`` between its release of the lock and its ``try``, it
    made ``Event.wait`` fail with "release unlocked lock" instead, and the
    CLI exit with status 1 instead of 130), or escape between the waits
    with the call still running. A handler the program installed itself
    stays, called through a relay for the wait's length: a KeyboardInterrupt
    it raises counts as an interrupt and is never raised in the wait.
    """
    flag = c_int(0)
    result = {}
    done = threading.Lock()  # released by the worker when the call has ended
    done.acquire()

    def work():
        lib.sompca_cancel_flag(byref(flag))
        try:
            status = call()
            result["status"] = status
            if status != OK:  # the message is per thread: read it here
                result["message"] = _message(status)
        except BaseException as exc:  # a ctypes argument error: raised again by the caller
            result["exception"] = exc
        finally:
            lib.sompca_cancel_flag(None)
            result["ended"] = True
            done.release()

    interrupted = []

    def interrupt(*_):
        if not interrupted:
            interrupted.append(True)
            flag.value = 1
            if on_interrupt is not None:
                on_interrupt()

    def relay(signum, frame):
        try:
            previous(signum, frame)
        except KeyboardInterrupt:
            interrupt()

    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGINT)
        swap = callable(previous)  # not SIG_IGN, SIG_DFL or a handler set outside Python
        if swap:
            signal.signal(signal.SIGINT, interrupt if previous is signal.default_int_handler else relay)
        try:
            threading.Thread(target=work, name="sompca-call", daemon=True).start()
            # Timed waits, so that Python runs its signal handlers in between,
            # whichever thread the signal was delivered to. A lock's acquire
            # either takes it or not, whatever a handler raises; done stays
            # held once taken, so "ended" in result tells that the call has
            # ended. (Not Thread.join: a join interrupted by KeyboardInterrupt
            # can mark a running thread as stopped.)
            while "ended" not in result:
                try:
                    done.acquire(timeout=0.05)
                except KeyboardInterrupt:  # raised by a handler set during the call
                    interrupt()
        finally:
            if swap:
                signal.signal(signal.SIGINT, previous)
    else:
        work()
    if "exception" in result:
        raise result.pop("exception")
    return result["status"], result.get("message"), bool(interrupted)


def _run(call):
    """Run an interruptible ``call() -> status`` (a transform); raise its error or KeyboardInterrupt."""
    status, message, interrupted = _interruptibly(call)
    if interrupted:
        raise KeyboardInterrupt
    if status != OK:
        raise error_for(status, message)


def _run_fit(call, options, report, report_read=None):
    """Run ``call(out, options) -> status`` and return the new model handle.

    Interruptible by Ctrl-C (see _interruptibly); ``report(done, total,
    variance)`` is called after each unit of work and ``report_read(
    bytes_read, bytes_total)`` while a fit from a file reads it (see
    sompca_read_progress_fn); an exception either raises stops the fit and
    is raised again here.
    """
    progress = _Progress(report, report_read)
    progress.install(options)
    out = _model_p()
    status, message, interrupted = _interruptibly(functools.partial(call, byref(out), byref(options)),
                                                  on_interrupt=progress.cancel.set)
    if status == OK and not (interrupted or progress.error is not None):
        return out
    if status == OK:  # finished before it could be cancelled: drop the model
        lib.sompca_model_free(out)
    if interrupted:
        raise KeyboardInterrupt
    error, progress.error = progress.error, None
    if error is None:
        error = error_for(status, message)
    # Raised without keeping a reference here: this frame, which the
    # traceback holds, must not hold the exception (a cycle that would keep
    # the caller's training data alive until the garbage collector runs).
    try:
        raise error
    finally:
        del error, progress, call, options


def _free(generation, handle):
    if generation == lib.generation:  # a handle of an earlier copy (before a fork) is left alone
        lib.sompca_model_free(handle)


# The live models, whose file bytes the parent keeps before a fork so that
# the child can load them into its own copy of the library.
_models: "weakref.WeakSet[Model]" = weakref.WeakSet()


def _before_fork():
    if lib._stale:
        return
    for model in list(_models):
        if model._bytes is None:
            try:
                model._bytes = model.to_bytes()
            except Exception:  # noqa: BLE001 - the child then explains that this model is lost
                model._bytes = False


os.register_at_fork(before=_before_fork, after_in_child=lambda: lib._forked())


class Model:
    """One fitted ``sompca_model`` handle, freed when this object is collected.

    A fitted model is read-only, so copies share the handle; pickling goes
    through the HDF5 model format. In a child forked after the model was
    made, the model is loaded again, from the file bytes the parent kept at
    the fork, into the child's own copy of the library.
    """

    def __init__(self, handle):
        self._own(handle)
        self._bytes = None  # the model file's bytes, kept at the first fork (False: could not)
        _models.add(self)

    def _own(self, handle):
        self._current = handle
        self._generation = lib.generation
        weakref.finalize(self, _free, lib.generation, handle)

    @property
    def _handle(self):
        if self._generation != lib.generation:
            self._reload_after_fork()
        return self._current

    def _reload_after_fork(self):
        if not self._bytes:
            raise RuntimeError(
                "sompca: this model was made before the process forked and could not be carried into the child "
                "(the library's Go runtime does not survive fork); fit or load it again in the child, or "
                f"{FORK_REMEDY}")
        self._own(_load_bytes(self._bytes))

    # Construction -------------------------------------------------------

    @classmethod
    def fit_array(cls, array, dtype, options, report=None):
        """Fit on an array (M, I_1, ..., I_N) of element type dtype, C-contiguous or sample_stride()."""
        shape = (c_size_t * (array.ndim - 1))(*array.shape[1:])
        data = array.ctypes.data_as(c_void_p)
        n_samples, stride = array.shape[0], sample_stride(array)

        def call(out, opts):
            return lib.sompca_fit_strided(out, data, dtype, n_samples, stride, array.ndim - 1, shape, opts)

        return cls(_run_fit(call, options, report))

    @classmethod
    def fit_hdf5(cls, path, dataset, options, layout=LAYOUT_SAMPLES_FIRST, report=None, report_read=None):
        """Fit on an HDF5 dataset, streamed from disk by the library (layout: a LAYOUT_* code).

        ``report_read(bytes_read, bytes_total)`` follows the reads (see _run_fit).
        """
        path, dataset = _path(path), _name(dataset)
        said = []

        def call(out, opts):
            status = lib.sompca_fit_hdf5(out, path, dataset, layout, opts)
            said.append(lib.sompca_last_warning())  # on the thread that called
            return status

        try:
            return cls(_run_fit(call, options, report, report_read))
        finally:
            _warn(said)

    @classmethod
    def load(cls, path):
        """Read a model file written by :meth:`save`."""
        out = _model_p()
        check(lib.sompca_model_load(byref(out), _path(path)))
        return cls(out)

    def save(self, path):
        """Write the model to an HDF5 model file (atomically)."""
        check(lib.sompca_model_save(self._handle, _path(path)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_model_from_bytes, (self.to_bytes(),))

    def to_bytes(self):
        """Return the model file's bytes (made in memory by the library)."""
        if self._bytes:
            return self._bytes
        handle, length = self._handle, c_size_t()
        check(lib.sompca_model_serialize(handle, None, 0, byref(length)))
        buffer = ctypes.create_string_buffer(length.value)
        check(lib.sompca_model_serialize(handle, buffer, length.value, byref(length)))
        return buffer.raw[:length.value]

    # Transforms ---------------------------------------------------------

    def transform_array(self, array, dtype):
        """Features (M, P) of an array (C-contiguous or sample_stride()) whose sample shape was checked."""
        n_samples = array.shape[0]
        size = c_size_t()
        check(lib.sompca_transform_size(self._handle, n_samples, byref(size)))
        features = np.empty((n_samples, self.n_components()), dtype=np.float64)
        if features.size != size.value:
            raise RuntimeError(f"sompca: transform needs {size.value} values, expected {features.size}")
        handle, dst, data = self._handle, features.ctypes.data_as(_doubles), array.ctypes.data_as(c_void_p)
        stride = sample_stride(array)
        _run(lambda: lib.sompca_transform_strided(handle, dst, features.size, data, dtype, n_samples, stride))
        return features

    def inverse_transform_array(self, features):
        """Samples (M, I_1, ..., I_N) reconstructed from C-contiguous float64 features (M, P)."""
        n_samples = features.shape[0]
        samples = np.empty((n_samples,) + self.shape(), dtype=np.float64)
        handle, dst, src = self._handle, samples.ctypes.data_as(_doubles), features.ctypes.data_as(_doubles)
        _run(lambda: lib.sompca_inverse_transform(handle, dst, samples.size, src, n_samples))
        return samples

    def transform_hdf5(self, in_path, in_dataset, out_path, out_dataset, layout=LAYOUT_SAMPLES_FIRST,
                       overwrite=False):
        """Stream the features of an HDF5 dataset into another HDF5 file (layout: a LAYOUT_* code)."""
        args = (self._handle, _path(in_path), _name(in_dataset), layout, _path(out_path),
                _name(out_dataset), int(overwrite))
        said = []
        def call():
            status = lib.sompca_transform_hdf5(*args)
            said.append(lib.sompca_last_warning())
            return status
        _run(call)
        _warn(said)

    # Accessors ----------------------------------------------------------

    def _size(self, function):
        value = c_size_t()
        check(function(self._handle, byref(value)))
        return value.value

    def method(self):
        """Return (SOMPCA_METHOD_* code, relaxed start)."""
        method, relaxed = c_int(), c_int()
        check(lib.sompca_model_method(self._handle, byref(method), byref(relaxed)))
        return method.value, bool(relaxed.value)

    def n_components(self):
        return self._size(lib.sompca_model_n_components)

    def n_samples(self):
        return self._size(lib.sompca_model_n_samples)

    def shape(self):
        order = self._size(lib.sompca_model_order)
        shape = (c_size_t * order)()
        check(lib.sompca_model_shape(self._handle, shape, order))
        return tuple(shape)

    def mode(self):
        """SO-MPCA's orthogonal mode nu (0-based), "all" for a model fitted in
        every mode (MODE_ALL), or None for other methods."""
        mode = c_int()
        check(lib.sompca_model_mode(self._handle, byref(mode)))
        if mode.value == MODE_ALL:
            return "all"
        return mode.value if mode.value >= 0 else None

    def feature_modes(self):
        """The orthogonal mode (0-based) of each feature's SO-MPCA fit; -1 for other methods.

        For an all-modes fit, -2 marks the first EMP, which every mode's fit shares."""
        return self._int64s(lib.sompca_model_feature_modes, self.n_components())

    def options(self):
        """The options the model was fitted with (an :class:`Options`)."""
        options = Options()
        check(lib.sompca_model_options(self._handle, byref(options)))
        return options

    def ranks(self):
        """MPCA's and CSA's mode ranks P_n, or None for other methods."""
        method, _ = self.method()
        if method not in (METHOD_MPCA, METHOD_CSA):
            return None
        order = self._size(lib.sompca_model_order)
        ranks = (c_size_t * order)()
        check(lib.sompca_model_ranks(self._handle, ranks, order))
        return tuple(ranks)

    def _doubles(self, function, count, *args):
        values = np.empty(count, dtype=np.float64)
        check(function(self._handle, *args, values.ctypes.data_as(_doubles), count))
        return values

    def _int64s(self, function, count):
        values = np.empty(count, dtype=np.int64)
        check(function(self._handle, values.ctypes.data_as(_int64s), count))
        return values

    def mean(self):
        return self._doubles(lib.sompca_model_mean, int(np.prod(self.shape())))

    def projections(self):
        """The projection matrices: N arrays I_n x P (PCA: one prod(I) x P)."""
        shape, p = self.shape(), self.n_components()
        method, _ = self.method()
        rows = [int(np.prod(shape))] if method == METHOD_PCA else list(shape)
        return [self._doubles(lib.sompca_model_projection, r * p, n).reshape(r, p) for n, r in enumerate(rows)]

    def variance(self):
        return self._doubles(lib.sompca_model_variance, self.n_components())

    def variance_ratio(self):
        return self._doubles(lib.sompca_model_variance_ratio, self.n_components())

    def extraction(self):
        return self._int64s(lib.sompca_model_extraction, self.n_components())

    def iterations(self):
        return self._int64s(lib.sompca_model_iterations, self.n_components())

    def history(self):
        """The objective at the start and after each sweep, one array per feature.

        PCA, MPCA and CSA keep none (sompca.h): their P arrays are one read-only empty array, asked of the library
        not at all, since MPCA and CSA have up to prod(I_n) features (7040 at the gait size: 14,080 calls, 0.1 s).
        """
        method, _ = self.method()
        if method in (METHOD_PCA, METHOD_MPCA, METHOD_CSA):
            none = np.empty(0, dtype=np.float64)
            none.flags.writeable = False
            return [none] * self.n_components()
        histories = []
        for feature in range(self.n_components()):
            length = c_size_t()
            status = lib.sompca_model_history(self._handle, feature, None, 0, byref(length))
            if status not in (OK, ERANGE):
                check(status)
            values = np.empty(length.value, dtype=np.float64)
            if length.value:
                check(lib.sompca_model_history(self._handle, feature, values.ctypes.data_as(_doubles),
                                               length.value, byref(length)))
            histories.append(values)
        return histories


# Fit sessions (the Dask driver, _dask.py) ----------------------------------


class Session:
    """One ``sompca_session``: a fit whose passes the caller makes (see sompca.h).

    ``report(done, total, variance)`` is called from :meth:`next` after each
    EMP; its exceptions cancel the fit and are raised again by :meth:`next`.
    Not for use from several threads at once.
    """

    def __init__(self, n_samples, shape, options, report=None):
        self._progress = _Progress(report)
        self._progress.install(options)
        self._options = options  # the callback must outlive the session
        dims = (c_size_t * len(shape))(*shape)
        out = _session_p()
        check(lib.sompca_session_begin(byref(out), n_samples, len(shape), dims, byref(options)))
        self._handle = out
        self._request_buffer = ctypes.create_string_buffer(4096)
        self._finalizer = weakref.finalize(self, _free_session, lib.generation, out)

    def next(self):
        """Run the fit to its next pass (True) or to its end (False)."""
        more = c_int()
        status = lib.sompca_session_next(self._handle, byref(more))
        message = _message(status) if status != OK else None
        if self._progress.error is not None:
            raise self._progress.error
        if status != OK:
            raise error_for(status, message)
        return bool(more.value)

    def request(self, first, n_samples):
        """The waiting pass's request (bytes) for the block [first, first + n_samples)."""
        # One call when the last request's buffer is large enough (requests
        # of one pass differ only in their blocks' slices), two otherwise.
        length = c_size_t()
        buffer = self._request_buffer
        status = lib.sompca_session_request(self._handle, first, n_samples, buffer, len(buffer), byref(length))
        if status == ERANGE:
            buffer = self._request_buffer = ctypes.create_string_buffer(max(length.value, 2 * len(buffer)))
            status = lib.sompca_session_request(self._handle, first, n_samples, buffer, len(buffer), byref(length))
        check(status)
        return buffer.raw[:length.value]

    def feed(self, first, n_samples, partial):
        """Feed the partial (bytes or a buffer of them) of the block [first, first + n_samples), in block order."""
        check(lib.sompca_session_feed(self._handle, first, n_samples, _chars(partial), _nbytes(partial)))

    def finish(self):
        """The fitted :class:`Model` of a finished session."""
        out = _model_p()
        check(lib.sompca_session_finish(self._handle, byref(out)))
        return Model(out)

    def close(self):
        """Free the session (abandoning a fit in progress); idempotent."""
        self._finalizer()


def _free_session(generation, handle):
    if generation == lib.generation:  # a session of an earlier copy (before a fork) is left alone
        lib.sompca_session_free(handle)


def pass_info(request):
    """(first, n_samples, partial size in bytes, cache size in doubles) of a pass request."""
    partial, cache, first, n = c_size_t(), c_size_t(), c_size_t(), c_size_t()
    check(lib.sompca_pass_info(request, len(request), byref(partial), byref(cache), byref(first), byref(n)))
    return first.value, n.value, partial.value, cache.value


def pass_partial(request, array, dtype, cache=None, size=None, out=None):
    """The partial result of a block of samples (a C-contiguous array) for a request.

    ``cache`` is an optional float64 array that the caller keeps for this
    block between passes (see sompca_pass_partial). The partial is new
    bytes, or, with ``out`` (a uint8 array of at least ``size`` bytes,
    kept by the caller), written there and returned as a view of it: a
    block's partials take fresh pages each pass otherwise, whose faults
    cost more than a rows pass's copy (bench/MEASUREMENTS.md, "Dask:
    partials in kept buffers").
    """
    if size is None:
        size = pass_info(request)[2]
    if out is not None and out.nbytes < size:
        raise ValueError(f"sompca: a partial of {size} bytes does not fit the {out.nbytes} bytes of out")
    buffer = _partial_buffer(size) if out is None else out.ctypes.data_as(c_void_p)
    length = c_size_t()
    cache_p, cache_len = (None, 0) if cache is None else (cache.ctypes.data_as(_doubles), cache.size)
    check(lib.sompca_pass_partial(buffer, size, byref(length), request, len(request),
                                  array.ctypes.data_as(c_void_p), dtype, cache_p, cache_len))
    return ctypes.string_at(buffer, length.value) if out is None else out[:length.value]


_partial_buffers = threading.local()


def _partial_buffer(size):
    """This thread's buffer for partials, of at least size bytes.

    A new buffer per call costs more than the partial of a small block
    (fresh pages, then a copy of the whole).
    """
    buffer = getattr(_partial_buffers, "buffer", None)
    if buffer is None or len(buffer) < size:
        buffer = _partial_buffers.buffer = ctypes.create_string_buffer(max(size, 1))
    return buffer


def _chars(data):
    """A char * to the bytes of ``data`` (bytes, or a contiguous buffer such as a uint8 array), for one call."""
    if isinstance(data, bytes):
        return data
    view = memoryview(data)
    if not view.c_contiguous:
        raise ValueError("sompca: a partial must be contiguous bytes")
    return np.frombuffer(view, dtype=np.uint8).ctypes.data_as(c_char_p)


def _nbytes(data):
    return data.nbytes if isinstance(data, (memoryview, np.ndarray)) else len(data)


def partials_join(request, partials, out=None):
    """The partial of the union of consecutive blocks of one pass, from their partials in order.

    ``request`` is the request of any of the blocks (see
    sompca_partials_join); the partials are bytes or buffers of them. As
    for :func:`pass_partial`, the result is new bytes, or, with ``out`` (a
    uint8 array of at least the partials' total size), written there and
    returned as a view of it. One partial is returned as it is.
    """
    if len(partials) == 1:
        return partials[0]
    count = len(partials)
    lengths = [_nbytes(partial) for partial in partials]
    size = sum(lengths)
    if out is not None and out.nbytes < size:
        raise ValueError(f"sompca: partials of {size} bytes do not fit the {out.nbytes} bytes of out")
    buffer = _partial_buffer(size) if out is None else out.ctypes.data_as(c_void_p)
    length = c_size_t()
    check(lib.sompca_partials_join(buffer, size, byref(length), request, len(request),
                                   (c_char_p * count)(*(_chars(partial) for partial in partials)),
                                   (c_size_t * count)(*lengths), count))
    return ctypes.string_at(buffer, length.value) if out is None else out[:length.value]


def sample_stride(array):
    """The sample_stride (elements) with which the library reads array as it is, 0 for C-contiguous; None if none.

    Samples (array[i]) that are C-contiguous, aligned, a positive whole
    number of elements apart and not overlapping are read in place
    (sompca_fit_strided): a slice along the first axis, say.
    """
    if array.flags.c_contiguous:
        return 0
    step = array.strides[0] if array.ndim >= 1 else 0
    if (array.ndim < 2 or array.shape[0] < 2 or not array.flags.aligned or not array[0].flags.c_contiguous
            or step <= 0 or step % array.itemsize or step < array[0].nbytes):
        return None
    return step // array.itemsize


def _load_bytes(data):
    """A new model handle read from a model file's bytes."""
    out = _model_p()
    check(lib.sompca_model_deserialize(byref(out), data, len(data)))
    return out


def _model_from_bytes(data):
    return Model(_load_bytes(data))
