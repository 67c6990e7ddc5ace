"""Estimators in the scikit-learn style over libsompca.

Every estimator shares :class:`TensorProjection`: ``__init__`` only stores
its keyword parameters, ``fit`` validates them, fits a model in the library
and copies the learned attributes (ending in ``_``) out of it; ``transform``
runs in the library. With scikit-learn installed the estimators derive from
its ``BaseEstimator`` and ``TransformerMixin`` (so ``clone``, ``Pipeline``
and grid search work); without it a minimal base gives the same
``get_params``/``set_params``.
"""

from __future__ import annotations

import inspect
import json
import numbers
import os
import re
import sys
import tempfile
import threading
import warnings
from typing import Any, Callable, Optional, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import _dask, _lib
from ._progress import ProgressBar

try:
    from sklearn.base import BaseEstimator as _Base
    from sklearn.base import TransformerMixin as _Mixin
    from sklearn.exceptions import NotFittedError
except ImportError:  # scikit-learn is optional
    _Base = None

try:  # scikit-learn >= 1.6: its own input validation (else sompca's, with the same messages)
    from sklearn.utils.validation import check_array as _check_array
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:
    _check_array = _validate_data = None

if _Base is None:

    class NotFittedError(ValueError, AttributeError):  # type: ignore[no-redef]  # scikit-learn's when installed
        """Raised by ``transform`` or ``save`` before ``fit``."""

    class _Base:  # type: ignore[no-redef]
        """The part of scikit-learn's BaseEstimator that sompca needs."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(p.name for p in signature.parameters.values() if p.name != "self")

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
                setattr(self, name, value)
            return self

        def __repr__(self):  # like scikit-learn's: only the parameters changed from their defaults
            defaults = inspect.signature(type(self).__init__).parameters
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v != defaults[k].default)
            return f"{type(self).__name__}({args})"

    class _Mixin:  # type: ignore[no-redef]
        pass


# Serializes the publication of learned attributes (see _set_model).
_PUBLISH = threading.Lock()

# Input handling ---------------------------------------------------------

_NATIVE_DTYPES = {
    np.dtype(np.float64): _lib.FLOAT64,
    np.dtype(np.float32): _lib.FLOAT32,
    np.dtype(np.uint8): _lib.UINT8,
    np.dtype(np.uint16): _lib.UINT16,
    np.dtype(np.int16): _lib.INT16,
}


# What fit and transform accept: an array-like (numpy arrays, h5py Datasets
# and dask arrays all are), a "file.h5:/dataset" string, or an HDF5(...).
Samples = Union[npt.ArrayLike, str, "HDF5"]
_Estimator = TypeVar("_Estimator", bound="TensorProjection")


def split_spec(spec: str) -> Tuple[str, str]:
    """Split ``"file.h5:/path/to/dataset"`` into the file and the dataset name.

    The split is at a ``':'`` followed by ``'/'``: the first whose left
    part is an existing file, else the first whose left part ends in an
    HDF5 file suffix (.h5, .hdf5, .hdf, .he5, .nc, .mat), else the last.
    So file names may hold colons, and so may group names: in
    ``"x.h5:/g:/X"`` the file is x.h5 and the dataset ``/g:/X``.

    Examples
    --------
    >>> split_spec("data/x.h5:/train/X")
    ('data/x.h5', '/train/X')
    >>> split_spec("new.h5:/g:/X")
    ('new.h5', '/g:/X')
    """
    cuts = [i for i in range(1, len(spec)) if spec.startswith(":/", i)]
    if not cuts:
        raise ValueError(f"{spec!r} is not 'FILE.h5:/DATASET' (a file name, a colon, then the dataset's absolute path)")
    cut = next((i for i in cuts if os.path.isfile(spec[:i])), None)
    if cut is None:
        cut = next((i for i in cuts if spec[:i].lower().endswith(_HDF5_SUFFIXES)), cuts[-1])
    return spec[:cut], spec[cut + 1:]


_HDF5_SUFFIXES = (".h5", ".hdf5", ".hdf", ".he5", ".nc", ".mat")


class HDF5:
    """An HDF5 dataset of samples, and how its samples and modes are laid out.

    Accepted wherever an estimator accepts X (``fit``, ``transform``,
    ``fit_transform``); the library streams it from disk.

    Parameters
    ----------
    source : str or h5py.Dataset
        ``"file.h5:/path/to/dataset"``, or an h5py Dataset (streamed when
        its file is open read-only, else read into memory).
    layout : {"samples-first", "samples-last", "column-major"}, default="samples-first"
        ``"samples-first"``: shape (n_samples, I_0, ..., I_{N-1}) as numpy and
        h5py write it. ``"samples-last"``: (I_0, ..., I_{N-1}, n_samples)
        from a row-major writer. ``"column-major"``: an I_0 x ... x I_{N-1} x
        n_samples array written by MATLAB (-v7.3), R (rhdf5), Julia or
        Fortran, which h5py shows as (n_samples, I_{N-1}, ..., I_0); its
        modes are restored to the author's order, so ``mode=0`` and
        ``projections_[0]`` are MATLAB's first dimension.

    Examples
    --------
    >>> HDF5("faces.h5:/X", layout="column-major")
    HDF5('faces.h5:/X', layout='column-major')
    """

    def __init__(self, source: Any, layout: str = "samples-first") -> None:
        if layout not in _lib.LAYOUTS:
            raise ValueError(f"layout={layout!r}: want one of {', '.join(map(repr, _lib.LAYOUTS))}")
        if isinstance(source, str):
            split_spec(source)  # checks the form now
        elif isinstance(source, HDF5):
            source = source.source
        self.source: Any = source
        self.layout = layout

    def __repr__(self):
        return f"HDF5({self.source!r}, layout={self.layout!r})"


def _hdf5_location(X):
    """Return (file, dataset, LAYOUT_* code) if X names or is an HDF5 dataset the library can stream, else None."""
    layout = _lib.LAYOUT_SAMPLES_FIRST
    if isinstance(X, HDF5):
        X, layout = X.source, _lib.LAYOUTS[X.layout]
    if isinstance(X, str):
        return (*split_spec(X), layout)
    if isinstance(X, (bytes, os.PathLike)):
        raise ValueError(f"X = {X!r}: give an HDF5 dataset as the string 'FILE.h5:/DATASET'")
    h5py = sys.modules.get("h5py")  # an h5py object implies h5py is imported
    if h5py is not None and isinstance(X, h5py.Dataset):
        _check_h5py_dataset(X)
        file = X.file
        # Stream from disk only when the library would read what h5py sees:
        # a file on disk, opened read-only (no unflushed writes, no lock).
        if file.mode == "r" and file.driver != "core" and os.path.isfile(file.filename):
            return file.filename, X.name, layout
    return None


def _h5py_dataset(X):
    """The h5py Dataset that X is or holds (sompca.HDF5 of one), else None."""
    if isinstance(X, HDF5):
        X = X.source
    h5py = sys.modules.get("h5py")
    return X if h5py is not None and isinstance(X, h5py.Dataset) else None


def _check_h5py_dataset(X):
    """Refuse a closed h5py Dataset with the reason, not h5py's 'invalid identifier'."""
    if not X.id.valid:
        raise ValueError("X is a closed h5py Dataset (its file was closed): use it inside the `with h5py.File(...)` "
                         "block, or reopen the file")


def _reject_h5py_group(X):
    h5py = sys.modules.get("h5py")
    if h5py is not None and isinstance(X, h5py.Group):
        if not X.id.valid:
            raise ValueError("X is a closed h5py Group (its file was closed); pass an open h5py Dataset")
        names = [name for name in X if isinstance(X.get(name, getlink=False), h5py.Dataset)][:5]
        hint = f" (its datasets include {', '.join(map(repr, names))})" if names else ""
        raise TypeError(f"X is an h5py {'File' if isinstance(X, h5py.File) else 'Group'} ({X.name!r}), not a Dataset: "
                        f"pass one of its datasets, e.g. X[name]{hint}")


# The library's failures on an h5py Dataset that h5py itself reads: its
# filters (LZF, plugins), newer file formats, a lock that h5py's own open
# of the file holds. The dataset is then read through h5py.
_READ_THROUGH_H5PY = (_lib.MissingFilterError, _lib.FileVersionError, _lib.FileLockedError)


def _warn_matlab(X, layout, stacklevel):
    if layout != "column-major" and ("MATLAB_class" in X.attrs or X.file.userblock_size == 512):
        warnings.warn(f"{X.file.filename}:{X.name} looks written by MATLAB (MATLAB_class attribute or a 512-byte "
                      f"user block), which writes column-major: read as {layout} its modes are reversed; "
                      "pass sompca.HDF5(dataset, layout=\"column-major\")", _lib.LayoutWarning, stacklevel=stacklevel)


def _h5py_blocks(X, sample_shape):
    """(read(first, n), n_samples, sample shape) of an h5py Dataset (or HDF5 of one) read through h5py."""
    layout = X.layout if isinstance(X, HDF5) else "samples-first"
    dataset = _h5py_dataset(X)
    _check_h5py_dataset(dataset)
    _reject_non_real(dataset.dtype)
    _check_order(dataset.shape)
    _warn_matlab(dataset, layout, stacklevel=7)
    read, shape, n_samples = _h5py_reader(dataset, layout)
    if n_samples == 0 or 0 in shape:
        raise ValueError(f"Found array with 0 sample(s) or 0 feature(s) (shape={dataset.shape}) while a minimum of 1 "
                         "is required.")
    if sample_shape is not None and shape != sample_shape:
        size = int(np.prod(sample_shape))
        if len(shape) != 1 or shape[0] != size:
            raise ValueError(f"X has samples of shape {shape}, but sample_shape={sample_shape} needs "
                             f"X of shape (n_samples, {size}) or (n_samples, {', '.join(map(str, sample_shape))})")
        flat = read

        def read(first, n):
            return flat(first, n).reshape((-1,) + sample_shape)
        shape = sample_shape
    return read, n_samples, shape


def _h5py_reader(dataset, layout):
    """``read(first, n)`` of the samples of an h5py Dataset in ``layout``, and the sample shape."""
    if layout == "samples-last":
        def read(first, n):
            return np.moveaxis(dataset[..., first:first + n], -1, 0)
        return read, tuple(dataset.shape[:-1]), dataset.shape[-1]
    if layout == "column-major":
        def read(first, n):
            block = dataset[first:first + n]
            return block.transpose([0, *range(block.ndim - 1, 0, -1)])
        return read, tuple(dataset.shape[:0:-1]), dataset.shape[0]
    return (lambda first, n: dataset[first:first + n]), tuple(dataset.shape[1:]), dataset.shape[0]


def _read_hdf5(X):
    """The samples of an HDF5 object not streamed (an h5py Dataset, or HDF5 of one), read in their layout.

    Anything else is returned as it is.
    """
    layout = "samples-first"
    if isinstance(X, HDF5):
        X, layout = X.source, X.layout
    h5py = sys.modules.get("h5py")
    _reject_h5py_group(X)
    if h5py is not None and isinstance(X, h5py.Dataset):
        _check_h5py_dataset(X)
        _warn_matlab(X, layout, stacklevel=6)
        X = X[()]
        if X.ndim >= 2 and layout == "samples-last":
            X = np.moveaxis(X, -1, 0)
        elif X.ndim >= 2 and layout == "column-major":
            X = X.transpose([0, *range(X.ndim - 1, 0, -1)])
    elif layout != "samples-first":
        raise ValueError(f"HDF5(..., layout={layout!r}) needs an HDF5 dataset, got {type(X).__name__}")
    return X


_REAL_KINDS = "biuf"  # bool, signed and unsigned integers, floats


def _reject_non_real(dtype):
    if dtype.kind == "c":  # scikit-learn's wording first: its checks look for it
        raise ValueError(f"Complex data not supported: X has dtype {dtype}; sompca needs real numbers "
                         "(bool, integer or float)")
    if dtype.kind not in _REAL_KINDS:
        raise ValueError(f"X has dtype {dtype}; sompca needs real numbers (bool, integer or float)")


def _check_order(shape):
    if len(shape) < 2:
        got = "scalar" if len(shape) == 0 else "1D"
        raise ValueError(f"Expected 2D array, got {got} array instead: X has shape {shape}; want "
                         "(n_samples, I_1, ..., I_N) with N >= 1. Reshape your data either using "
                         "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
                         "if it contains a single sample.")


def _check_samples(X):
    """The checks of scikit-learn's ``check_array`` for samples of any order, with its messages."""
    array = np.asarray(X)
    if array.dtype.kind == "O":  # numbers stored as objects are converted, as scikit-learn does
        array = array.astype(np.float64)
    _reject_non_real(array.dtype)
    _check_order(array.shape)
    if array.shape[0] == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={array.shape}) while a minimum of 1 is required.")
    if array.ndim == 2 and array.shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={array.shape}) while a minimum of 1 is required.")
    return array


def as_samples(X):
    """Return (array the library reads in place, SOMPCA_* element type) for array-like X.

    X is validated by scikit-learn's ``check_array`` when scikit-learn is
    installed, else by the same checks here: samples first, at least one
    sample and one entry per sample, real numbers (object arrays of numbers
    are converted, as scikit-learn does; complex, string and date types are
    refused). Finiteness is checked by the library, during its own pass.

    float64, float32, uint8, uint16 and int16 arrays in native byte order
    that are C-contiguous, or whose samples are (a slice along the first
    axis: _lib.sample_stride), are returned as they are (no copy; 16-bit
    integers are widened by the library a run of samples at a time); other
    real types are converted to float64. Such an array, when it is a plain ``np.ndarray``,
    skips ``check_array``, which would return it unchanged after the checks
    done here too: its first call in a process took 5-20 ms (it looks for
    dataframe plugins among the installed packages' metadata), every later
    call about 0.3 ms.
    """
    if type(X) is np.ndarray and X.dtype in _NATIVE_DTYPES and _lib.sample_stride(X) is not None:
        _check_order(X.shape)
        return _check_samples(X), _NATIVE_DTYPES[X.dtype]
    if isinstance(X, np.ma.MaskedArray):
        _check_unmasked(X)
        X = X.data
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):  # scipy.sparse, without importing scipy
        raise ValueError(f"sparse input ({type(X).__name__}) is not supported: pass a dense array, e.g. X.toarray()")
    dtype = getattr(X, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind != "O":
        _reject_non_real(dtype)  # before check_array, which would convert numeric strings
    if isinstance(getattr(X, "shape", None), tuple):
        _check_order(X.shape)  # the message names the shape, for tensors too
    if _check_array is not None:
        X = _check_array(X, dtype="numeric", allow_nd=True, ensure_all_finite=False, input_name="X")
    array = _check_samples(X)
    dtype = _NATIVE_DTYPES.get(array.dtype)
    if dtype is None:
        return np.ascontiguousarray(array, dtype=np.float64), _lib.FLOAT64
    if _lib.sample_stride(array) is not None:
        return array, dtype
    return np.ascontiguousarray(array), dtype


def _read_features(model, path, dataset, layout):
    """(features, the samples are float32) of an HDF5 dataset, streamed through a temporary file."""
    import h5py

    with tempfile.TemporaryDirectory(prefix="sompca-") as tmp:
        out = os.path.join(tmp, "features.h5")
        model.transform_hdf5(path, dataset, out, "/features", layout=layout)
        with h5py.File(out, "r") as file:
            features = file["/features"][()]
        with h5py.File(path, "r") as file:
            single = file[dataset].dtype == np.float32
        return features, single


def _kept(features, single, kept):
    """The first ``kept`` columns of the library's features, float32 if the samples were (rounded at the end)."""
    if kept < features.shape[1]:
        features = np.ascontiguousarray(features[:, :kept])
    return features.astype(np.float32) if single else features


def _factors(projections, order, ranks):
    """MPCA's and CSA's factor matrices and each feature's entry of the projected tensor.

    Feature p is entry ``order[p]`` (C order) of the P_1 x ... x P_N
    projected tensor, so column p of ``projections[n]`` is column i_n of
    U_n. Returns (factors, index): factors[n] holds the columns of U_n
    that the kept features use, in rank order; index[p] is feature p's
    entry (i_1, ..., i_N) counted in those columns.
    """
    flat = np.asarray(order, dtype=np.int64)
    entries = np.stack(np.unravel_index(flat, ranks), axis=1).reshape(len(flat), len(ranks))
    factors, index = [], np.empty_like(entries)
    for n, u in enumerate(projections):
        _, first, index[:, n] = np.unique(entries[:, n], return_index=True, return_inverse=True)
        factors.append(np.ascontiguousarray(u[:, first]))
    return factors, index


def _check_features(Z, n_components, name):
    """Features for inverse_transform: a finite float64 matrix (n_samples, n_components)."""
    if _check_array is not None:
        Z = _check_array(Z, dtype=np.float64, input_name="X")
    else:
        Z = _check_samples(Z).astype(np.float64, copy=False)
        if Z.ndim != 2:
            raise ValueError(f"Found array with dim {Z.ndim}. Expected <= 2: features are (n_samples, n_components)")
        if not np.isfinite(Z).all():
            raise ValueError("Input X contains NaN or infinity.")
    if Z.shape[1] != n_components:
        raise ValueError(f"X has {Z.shape[1]} features, but {name} is expecting {n_components} features as input "
                         "to inverse_transform (its n_components_)")
    return Z


def _in_memory(X):
    """X as an in-memory array-like: dask arrays computed, HDF5 datasets read in their layout."""
    if _dask.is_dask_array(X):
        return X.compute()
    location = _hdf5_location(X)
    if location is None:
        return X
    import h5py

    path, dataset, layout = location
    with h5py.File(path, "r") as file:
        name = {code: name for name, code in _lib.LAYOUTS.items()}[layout]
        return _read_hdf5(HDF5(file[dataset], layout=name))


# The model file's attribute that keeps a Python estimator's parameters (JSON).
_PARAMS_ATTRIBUTE = "python_params"


def _json_value(value):
    """numpy scalars and arrays as JSON values (for json.dumps)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _saved_params(path):
    """The ``python_params`` attribute of a model file, or None (written by another binding or an older sompca)."""
    import h5py

    with h5py.File(path, "r") as file:
        text = file.attrs.get(_PARAMS_ATTRIBUTE)
    if text is None:
        return None
    try:
        saved = json.loads(text)
    except ValueError as err:
        raise OSError(f"{path}: attribute {_PARAMS_ATTRIBUTE} is not JSON: {err}") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("params", {}), dict):
        raise OSError(f"{path}: attribute {_PARAMS_ATTRIBUTE} is not a JSON object of parameters")
    return saved


def _xarray_of(X):
    """The xarray module if X is an ``xarray.DataArray`` (without importing xarray), else None."""
    xarray = sys.modules.get("xarray")
    if xarray is not None and isinstance(X, xarray.DataArray):
        return xarray
    if xarray is not None and isinstance(X, xarray.Dataset):
        raise ValueError("X is an xarray Dataset: pass one of its variables, a DataArray (e.g. ds['X'])")
    return None


def _zarr_of(X):
    """The zarr module if X is a ``zarr.Array`` (without importing zarr), else None."""
    zarr = sys.modules.get("zarr")
    if zarr is not None and isinstance(X, zarr.Array):
        return zarr
    return None


def _check_zarr(X, sample_shape):
    """A zarr array of samples (n_samples, I_1, ..., I_N), checked (it is read as stored: sample_shape must match)."""
    _reject_non_real(X.dtype)
    _check_order(X.shape)
    if sample_shape is not None and tuple(X.shape[1:]) != sample_shape:
        raise ValueError(f"X is a zarr array of samples of shape {tuple(X.shape[1:])}, but sample_shape="
                         f"{sample_shape}: a zarr array is read as it is stored")
    return X


def _zarr_blocks(X):
    """(first, n) spans of a zarr array's samples: its chunks along axis 0."""
    step = int(X.chunks[0])
    return [(first, min(step, int(X.shape[0]) - first)) for first in range(0, int(X.shape[0]), step)]


def _check_unmasked(X):
    """Refuse a numpy masked array with masked entries: sompca has no notion of a missing value."""
    masked = int(np.ma.count_masked(X))
    if masked:
        raise ValueError(f"X is a masked array with {masked} masked entries: sompca has no missing values; fill "
                         "them (X.filled(value)) or drop the samples that have them (the mask is not ignored)")


def _check_hdf5_sample_shape(path, dataset, layout, shape):
    """A streamed dataset must already have the estimator's sample_shape: the library reads it as it is."""
    import h5py

    try:
        with h5py.File(path, "r") as file:
            stored = file[dataset].shape
    except (OSError, KeyError):
        return  # the library reports a missing file or dataset
    found = {_lib.LAYOUT_SAMPLES_LAST: stored[:-1], _lib.LAYOUT_COLUMN_MAJOR: stored[:0:-1]}.get(layout, stored[1:])
    if found != shape:
        raise ValueError(f"{path}:{dataset} holds samples of shape {found}, but sample_shape={shape}; "
                         "sample_shape reshapes in-memory arrays only: read the data (dataset[()]) to view it "
                         "with sample_shape, or set sample_shape=None")


# Parameter validation ---------------------------------------------------


def _int_param(name, value, minimum, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not minimum <= value < 2**31:
        want = f"an integer >= {minimum}" + (" or None" if allow_none else "")
        raise ValueError(f"{name} must be {want}, got {value!r}")
    return int(value)


def _real_param(name, value, low, high, low_open=False):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = (low < value if low_open else low <= value) and value <= high
    if not ok:
        interval = f"{'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"{name} must be a real number in {interval}, got {value!r}")
    return float(value)


def _variance_fraction(n_components):
    """``n_components`` as a fraction of the variance in (0, 1), or None when it is a count (or None)."""
    if isinstance(n_components, numbers.Real) and not isinstance(n_components, (bool, numbers.Integral)):
        if not 0 < n_components < 1:  # NaN included
            raise ValueError("n_components must be None, an integer >= 1 or a fraction of the variance in (0, 1), "
                             f"got {n_components!r}")
        return float(n_components)
    return None


def _n_components_option(n_components):
    """The library's n_components: 0 (the method's bound) for None and for a fraction (the prefix is kept after)."""
    if _variance_fraction(n_components) is not None:
        return 0
    if n_components is None:
        return 0
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral) or \
            not 1 <= n_components < 2**31:
        raise ValueError("n_components must be None, an integer >= 1 or a fraction of the variance in (0, 1), "
                         f"got {n_components!r}")
    return int(n_components)


def _variance_prefix(ratio, fraction):
    """The fewest leading features whose variance ratios sum to at least fraction (all if none do)."""
    reached = np.flatnonzero(np.cumsum(ratio) >= fraction)
    return int(reached[0]) + 1 if reached.size else len(ratio)


def _n_threads(n_jobs):
    """scikit-learn's n_jobs to the library's n_threads (0 = all cores)."""
    if n_jobs is None or n_jobs == -1:
        return 0
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError("n_jobs must be None, a positive integer or a negative integer (-1 = all cores), "
                         f"got {n_jobs!r}")
    if n_jobs < 0:  # -2 = all cores but one, as in scikit-learn
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return _int_param("n_jobs", n_jobs, 1)


_BYTE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
               "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_memory_limit(value: Union[int, str, None]) -> int:
    """``memory_limit`` in bytes for the library: None -> 0 (its default).

    Accepts a positive int (bytes) or a string of a number and a unit,
    ``"512MB"``, ``"1.5 GB"``, ``"128MiB"`` (kB, MB, GB, TB are powers of
    1000, KiB, MiB, GiB, TiB powers of 1024, case ignored).
    """
    if value is None:
        return 0
    if isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", value)
        unit = match and _BYTE_UNITS.get(match.group(2).lower())
        if not match or not unit:
            raise ValueError("memory_limit must be a number of bytes or a size such as '512MB' or '2GiB', "
                             f"got {value!r}")
        value = int(float(match.group(1)) * unit)
        if value < 1:
            raise ValueError(f"memory_limit must be at least 1 byte, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value < 2**63:
        raise ValueError("memory_limit must be None, a positive number of bytes or a size such as '512MB', "
                         f"got {value!r}")
    return int(value)


# Estimators -------------------------------------------------------------

# The library's table of defaults (solver.DefaultOptions), per method code:
# the estimators' keyword defaults are read from it, so Go, C, Python and
# the command line agree.
_DEFAULTS = {code: _lib.method_defaults(code) for code in range(_lib.METHOD_SOMPCA, _lib.METHOD_CSA + 1)}


def _default(method, name):
    """The default of estimator parameter name for a SOMPCA_METHOD_* code."""
    d = _DEFAULTS[method]
    if name == "sort_features":
        return d.feature_order == _lib.ORDER_VARIANCE
    if name == "relaxed_start":
        return d.relaxed_start == 1
    return getattr(d, name)



class TensorProjection(_Mixin, _Base):
    """Base class of the sompca estimators (not used directly).

    Subclasses set ``_method`` (a ``SOMPCA_METHOD_*`` code) and declare
    their parameters in ``__init__``; ``_options`` turns them into library
    options. See :class:`SOMPCA` for the attributes every fitted estimator
    has.
    """

    _method: Optional[int] = None

    def fit(self: _Estimator, X: Samples, y: object = None, *,
            progress: Optional[Callable[[int, int, float], object]] = None) -> _Estimator:
        """Fit the model to training samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, I_1, ..., I_N), h5py.Dataset, str or dask array
            Training samples, samples first. A numpy array of any real
            dtype (C-contiguous float64, float32 and uint8 are used without
            a copy); an h5py Dataset (streamed from disk by the library when
            its file is open read-only, else, or when the library cannot read
            it (a filter only h5py has such as LZF, a format newer than the
            library's libhdf5, an in-memory file), read through h5py a block
            at a time, with the same model); a string
            ``"file.h5:/path/to/dataset"``, streamed from disk;
            ``sompca.HDF5(dataset, layout=...)`` for samples last or data
            from MATLAB, R and Julia (``layout="column-major"``); or a
            ``dask.array.Array`` chunked along axis 0, fitted where its
            blocks live: on the workers of the active
            ``dask.distributed.Client``, else by Dask's local scheduler
            (see the README's "Dask" section); the model is the one the
            same samples in memory give. With ``sample_shape`` set, also a
            matrix (n_samples, I_1 * ... * I_N) whose rows are the samples
            in C order (viewed, not copied). An ``xarray.DataArray`` is
            fitted by its dimension names (see ``sample_dim``); a
            ``zarr.Array`` is read block by block, a pass at a time, without
            Dask; a numpy masked array with masked entries is refused.
        y : ignored
            Present for scikit-learn's API.
        progress : callable or None, default=None
            ``progress(done, total, variance)``, called in the calling
            thread after each unit of work: each EMP of the TVP methods
            (``done`` EMPs of ``total``, ``variance`` the captured variance
            of the one just found), each sweep of MPCA and CSA, once for
            PCA; for a dask array too. An exception it raises stops the fit
            and is raised by ``fit``, the estimator left as it was. With
            ``verbose=True`` the progress bar is drawn as well.

        Returns
        -------
        self : object
            The fitted estimator.

        Examples
        --------
        >>> import numpy as np, sompca
        >>> X = np.random.default_rng(0).normal(size=(30, 5, 4))
        >>> seen = []
        >>> model = sompca.SOMPCA(n_components=3).fit(X, progress=lambda done, total, v: seen.append(done))
        >>> seen
        [1, 2, 3]
        """
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be a callable progress(done, total, variance) or None, "
                            f"got {type(progress).__name__}")
        if not self.verbose:
            return self._fit(X, progress=progress)
        bar = ProgressBar(f"fit {type(self).__name__}", sys.stderr)

        def report(done, total, variance):
            bar(done, total, variance)
            if progress is not None:
                progress(done, total, variance)

        try:
            return self._fit(X, progress=report, read_progress=bar.read)
        finally:
            bar.close()

    def _fit(self, X, progress=None, read_progress=None):
        """Fit; ``progress(done, total, variance)`` is called after each unit of work.

        For a fit from an HDF5 file, ``read_progress(bytes_read, bytes_total)``
        is called while the library reads it (sompca.h, sompca_read_progress_fn).
        The estimator's state changes only when the fit succeeds.
        """
        options = self._options()
        fraction = _variance_fraction(self.n_components)
        sample_shape = self._sample_shape()
        labelled = _xarray_of(X)
        if labelled is not None:
            X, _, dims = self._unlabel(X, fitted=False)
            self._fit(X, progress, read_progress)
            self.dims_in_ = dims
            return self
        if _zarr_of(X) is not None:
            array = _check_zarr(X, sample_shape)
            shape = tuple(int(i) for i in array.shape[1:])
            # Blocks of the zarr chunks along axis 0 (rounded down to BLOCK_MULTIPLE samples, at least one multiple).
            model = _dask.fit_blocks(lambda first, n: array[first:first + n], int(array.shape[0]), shape, options,
                                     report=progress, block_bytes=8 * int(np.prod(shape)) * int(array.chunks[0]))
            self._set_model(model, fraction)
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return self
        if _dask.is_dask_array(X):
            model = _dask.fit(_dask.with_sample_shape(X, sample_shape), options, report=progress)
            self._set_model(model, fraction)
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return self
        location = _hdf5_location(X)
        through_h5py = location is None and _h5py_dataset(X) is not None
        if location is not None:
            path, dataset, layout = location
            if sample_shape is not None:
                _check_hdf5_sample_shape(path, dataset, layout, sample_shape)
            try:
                model = _lib.Model.fit_hdf5(path, dataset, options, layout=layout, report=progress,
                                            report_read=read_progress)
            except _READ_THROUGH_H5PY:
                if _h5py_dataset(X) is None:
                    raise
                through_h5py = True
        if through_h5py:
            # The library cannot read what h5py can here: h5py reads it, a
            # block at a time, for a fit session.
            read, n_samples, shape = _h5py_blocks(X, sample_shape)
            model = _dask.fit_blocks(read, n_samples, shape, options, report=progress)
        elif location is None:
            array, dtype, matrix = self._samples(X)
            model = _lib.Model.fit_array(array, dtype, options, report=progress)
        self._set_model(model, fraction)
        if location is None and not through_h5py and matrix and _validate_data is not None:
            # Feature names of a DataFrame (feature_names_in_), the scikit-learn way.
            _validate_data(self, X, reset=True, skip_check_array=True)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def _unlabel(self, X, fitted):
        """(data with the sample dim first, sample dim, the others' names) of a DataArray.

        The data are numpy or dask, as X holds them; when ``fitted`` the
        other dims are put in the order of the training DataArray.
        """
        dim = X.dims[0] if self.sample_dim is None else self.sample_dim
        if dim not in X.dims:
            raise ValueError(f"sample_dim={dim!r} is not a dimension of X, whose dims are {tuple(X.dims)}")
        others = tuple(d for d in X.dims if d != dim)
        trained = getattr(self, "dims_in_", None) if fitted else None
        if trained is not None:
            if set(others) != set(trained):
                raise ValueError(f"X has sample dims {others}, but {type(self).__name__} was fitted on sample dims "
                                 f"{tuple(trained)} (sample_dim={dim!r})")
            others = tuple(trained)
        data = X.transpose(dim, *others).data
        if isinstance(data, np.ma.MaskedArray):
            _check_unmasked(data)
        return data, dim, others

    def _sample_shape(self):
        """The validated ``sample_shape`` parameter: a tuple of positive ints, or None."""
        shape = self.sample_shape
        if shape is None:
            return None
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        try:
            shape = tuple(shape)
        except TypeError:
            shape = None
        if not shape or any(isinstance(i, bool) or not isinstance(i, numbers.Integral) or i < 1 for i in shape):
            raise ValueError(f"sample_shape must be None or a tuple of positive integers (I_1, ..., I_N), "
                             f"got {self.sample_shape!r}")
        return tuple(int(i) for i in shape)

    def _samples(self, X, fitted=False):
        """In-memory samples as (array (M, I_1, ..., I_N) read in place, SOMPCA_* element type, X is 2-D).

        h5py Datasets are read; 2-D input is viewed with ``sample_shape``;
        when ``fitted``, the sample shape must be the fitted model's.
        """
        array, dtype = as_samples(_read_hdf5(X))
        matrix = array.ndim == 2
        if fitted:
            if matrix and _validate_data is not None:
                # Feature names and the number of features, checked the scikit-learn way.
                _validate_data(self, X, reset=False, skip_check_array=True)
            size = int(np.prod(array.shape[1:]))
            if size != self.n_features_in_:  # in scikit-learn's words, for tensors too
                raise ValueError(f"X has {size} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input: X has samples of shape "
                                 f"{array.shape[1:]}, the model was fitted on shape {self.shape_in_}")
        shape = self._sample_shape()
        if shape is not None and array.shape[1:] != shape:
            size = int(np.prod(shape))
            if array.ndim != 2 or array.shape[1] != size:
                raise ValueError(f"X has samples of shape {array.shape[1:]}, but sample_shape={shape} needs "
                                 f"X of shape (n_samples, {size}) or (n_samples, {', '.join(map(str, shape))})")
            array = array.reshape(array.shape[:1] + shape)  # a view of contiguous rows
        if fitted and array.shape[1:] != self.shape_in_:
            raise ValueError(f"X has samples of shape {array.shape[1:]}, but {type(self).__name__} was fitted "
                             f"on samples of shape {self.shape_in_}")
        return array, dtype, matrix

    def _options(self):
        """Validate the parameters into a ``sompca_options``; subclasses add theirs."""
        return _lib.new_options(
            method=self._method,
            n_components=_n_components_option(self.n_components),
            n_threads=_n_threads(self.n_jobs),
            memory_limit=parse_memory_limit(self.memory_limit),
        )

    def _set_model(self, model, fraction=None):
        """Copy the learned attributes out of a fitted library model.

        With ``fraction`` (n_components in (0, 1)) only the prefix of the
        model's features that reaches that share of the variance is kept;
        the library's model keeps them all and transforms drop the rest.
        They are gathered first and published in one step, under a lock,
        so that an estimator fitted from two threads at once ends with
        every attribute from the same fit, never a mix of both.
        """
        shape = model.shape()
        ratio = model.variance_ratio()
        kept = len(ratio) if fraction is None else _variance_prefix(ratio, fraction)
        iterations = model.iterations()[:kept]
        learned = {
            "_model": model,
            "_components": None,
            "shape_in_": shape,
            "n_features_in_": int(np.prod(shape)),
            "n_components_": kept,
            "n_samples_fit_": model.n_samples(),
            "mode_": model.mode(),
            "mean_": model.mean().reshape(shape),
            "projections_": [u[:, :kept] for u in model.projections()],
            "explained_variance_": model.variance()[:kept],
            "explained_variance_ratio_": ratio[:kept],
            "order_": model.extraction()[:kept],
            "n_iter_per_component_": iterations,
            "n_iter_": int(iterations.max(initial=0)),
            "history_": model.history()[:kept],
        }
        ranks = model.ranks()
        if ranks is not None:
            learned["ranks_"] = ranks
            learned["factors_"], learned["feature_index_"] = _factors(learned["projections_"], learned["order_"],
                                                                      ranks)
        if self._method == _lib.METHOD_SOMPCA:
            learned["feature_modes_"] = model.feature_modes()[:kept]
        replaced = dict(vars(self))  # the old values die after the lock is released
        with _PUBLISH:
            vars(self).pop("dims_in_", None)  # set again by a fit of a DataArray
            vars(self).update(learned)
        del replaced

    def _fitted_model(self):
        model = getattr(self, "_model", None)
        if model is None:
            raise NotFittedError(
                f"this {type(self).__name__} instance is not fitted yet; call fit(X) before using it")
        return model

    def transform(self, X: Any) -> Any:  # X: Samples; a numpy array, dask array or DataArray back
        """Project samples to features.

        Parameters
        ----------
        X : array-like of shape (n_samples, I_1, ..., I_N), h5py.Dataset, str or dask array
            Samples of the training sample shape, in any form ``fit``
            accepts (with ``sample_shape`` set, also (n_samples,
            I_1 * ... * I_N)).

        Returns
        -------
        features : ndarray of shape (n_samples, n_components)
            One row per sample, columns in feature order; float32 for
            float32 samples (computed in float64, rounded at the end), else
            float64. For a dask array, a dask array of those, chunked along
            axis 0 as X (computed block by block where the blocks live);
            for an xarray DataArray, a DataArray with dims (sample_dim,
            "feature"), X's coordinates along sample_dim and the feature
            names as the "feature" coordinate.
        """
        model = self._fitted_model()
        kept = self.n_components_
        xarray = _xarray_of(X)
        if xarray is not None:
            data, dim, _ = self._unlabel(X, fitted=True)
            coords = {name: coord for name, coord in X.coords.items() if coord.dims == (dim,)}
            coords["feature"] = self.get_feature_names_out()
            return xarray.DataArray(self.transform(data), dims=(dim, "feature"), coords=coords, name=X.name)
        if _zarr_of(X) is not None:
            array = _check_zarr(X, self._sample_shape())
            features = np.concatenate([self.transform(array[first:first + n]) for first, n in _zarr_blocks(array)])
            return features
        if _dask.is_dask_array(X):
            features = _dask.transform(model, _dask.with_sample_shape(X, self._sample_shape()))
            if kept < features.shape[1]:
                features = features[:, :kept]
            return features.astype(np.float32) if X.dtype == np.float32 else features
        location = _hdf5_location(X)
        if location is not None:
            try:
                features, single = _read_features(model, *location)
                return _kept(features, single, kept)
            except _READ_THROUGH_H5PY:
                if _h5py_dataset(X) is None:
                    raise  # else h5py reads it, below
        array, dtype, _ = self._samples(X, fitted=True)
        return _kept(model.transform_array(array, dtype), dtype == _lib.FLOAT32, kept)

    def inverse_transform(self, X: npt.ArrayLike) -> np.ndarray:
        """Reconstruct samples from their features (least squares).

        A feature vector ``z = A^T vec(x - mean_)`` is the product of the
        centred sample with the projection matrix A, whose column p is the
        p-th feature's projection, vectorised in C order: for PCA its
        column of ``projections_[0]``, for the other methods the outer
        product of the p-th columns of the N matrices in ``projections_``
        (MPCA and CSA included: each of their features is such a rank-one
        projection). The reconstruction is the least-squares solution of
        smallest norm, ``x = mean_ + pinv(A^T) z = mean_ + A (A^T A)^+ z``,
        which is ``mean_ + A z`` for the methods whose projections are
        orthonormal (PCA, MPCA, CSA, SO-MPCA, FO-MPCA). It returns a
        sample x unchanged when ``x - mean_`` lies in the span of A's columns;
        otherwise the part of ``x - mean_`` outside that span is lost.

        (A^T A)^+ is computed from the P x P Gram matrix A^T A, the
        entrywise product of the modes' Gram matrices U_n^T U_n (the
        identity, to rounding, for the orthonormal methods); directions of
        A whose singular value is below sqrt(P * 2.2e-16) times the largest
        are treated as absent.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Features, as ``transform`` returns them.

        Returns
        -------
        X_original : ndarray of shape (n_samples, I_1, ..., I_N), float64
            The reconstructed samples; of shape (n_samples,
            I_1 * ... * I_N) when ``sample_shape`` is set, as a 2-D
            pipeline step expects.
        """
        self._fitted_model()
        single = getattr(X, "dtype", None) == np.float32
        samples = self._reconstruct(_check_features(X, self.n_components_, type(self).__name__))
        if single:
            samples = samples.astype(np.float32)
        if self.sample_shape is not None:
            return samples
        return samples.reshape((len(samples),) + tuple(self.shape_in_))

    def _reconstruct(self, features):
        """Least-squares samples (n_samples, prod I_n) of float64 features (see inverse_transform)."""
        # (A^T A)^+ from the modes' Gram matrices (the identity, to rounding, when A is orthonormal).
        gram = np.prod([u.T @ u for u in self.projections_], axis=0)
        coefficients = features @ np.linalg.pinv(gram, hermitian=True)
        return coefficients @ self.components_ + self.mean_.reshape(-1)

    def score_samples(self, X: Any) -> np.ndarray:  # X: Samples
        """Negative squared reconstruction error of each sample.

        ``-||x - inverse_transform(transform(x))||^2``, summed over the
        sample's entries: 0 for a sample the features reproduce, more
        negative the more of it they lose. (The TVP methods have no
        probabilistic model, so no log-likelihood is claimed.)

        Parameters
        ----------
        X : array-like of shape (n_samples, I_1, ..., I_N), h5py.Dataset, str or dask array
            Samples of the training sample shape, in any form ``transform``
            accepts; they are read into memory.

        Returns
        -------
        scores : ndarray of shape (n_samples,), float64
        """
        model = self._fitted_model()
        if _xarray_of(X) is not None:
            X = self._unlabel(X, fitted=True)[0]
        if _zarr_of(X) is not None:
            X = X[...]
        array, dtype, _ = self._samples(_in_memory(X), fitted=True)
        features = model.transform_array(array, dtype)[:, :self.n_components_]
        residual = array.reshape(len(array), -1).astype(np.float64) - self._reconstruct(features)
        return -np.einsum("ij,ij->i", residual, residual)

    def score(self, X: Samples, y: object = None) -> float:
        """Mean of :meth:`score_samples` over X: larger is better, so grid searches need no scorer.

        Examples
        --------
        >>> import numpy as np, sompca
        >>> from sklearn.model_selection import GridSearchCV
        >>> X = np.random.default_rng(0).normal(size=(30, 5, 4))
        >>> search = GridSearchCV(sompca.SOMPCA(), {"n_components": [1, 3]}, cv=3).fit(X)
        >>> search.best_params_
        {'n_components': 3}
        """
        return float(np.mean(self.score_samples(X)))

    @property
    def components_(self) -> np.ndarray:
        """ndarray of shape (n_components, prod I_n): row p is feature p's projection, vectorised in C order.

        The outer product of the p-th columns of ``projections_`` (PCA: the
        p-th column), laid out as ``X.reshape(n_samples, -1)``, so that
        ``(X - mean_).reshape(n_samples, -1) @ components_.T`` equals
        ``transform(X)``. Computed on first use and kept.
        """
        self._fitted_model()
        if self._components is None:
            components = self._basis().T
            components.flags.writeable = False
            self._components: Optional[np.ndarray] = components
        return self._components

    def emp(self, p: int) -> list:
        """The N vectors of feature p's elementary multilinear projection (PCA: its one vector).

        ``np.einsum`` of them as an outer product is ``component_tensor(p)``.
        """
        self._fitted_model()
        p = self._feature(p)
        return [u[:, p].copy() for u in self.projections_]

    def component_tensor(self, p: int) -> np.ndarray:
        """Feature p's projection as a tensor of the sample shape ``shape_in_`` (row p of ``components_``).

        Examples
        --------
        >>> import numpy as np, sompca
        >>> model = sompca.SOMPCA(n_components=2).fit(np.random.default_rng(0).normal(size=(20, 4, 3)))
        >>> model.component_tensor(0).shape
        (4, 3)
        """
        self._fitted_model()
        p = self._feature(p)
        tensor = np.ones(())
        for u in self.projections_:
            tensor = np.multiply.outer(tensor, u[:, p])
        return tensor.reshape(self.shape_in_)

    def _feature(self, p):
        count = self.n_components_
        if isinstance(p, bool) or not isinstance(p, numbers.Integral) or not -count <= p < count:
            raise IndexError(f"feature {p!r} out of range: the model has {self.n_components_} features "
                             f"(0..{self.n_components_ - 1})")
        return int(p) % self.n_components_

    def _basis(self):
        """The projection matrix A (I_1 * ... * I_N, P): column p is feature p's projection, C order."""
        if len(self.projections_) == 1:  # PCA, or samples of order 1
            return self.projections_[0]
        basis = self.projections_[0]
        for u in self.projections_[1:]:  # Khatri-Rao product, first mode slowest
            basis = (basis[:, None, :] * u[None, :, :]).reshape(-1, u.shape[1])
        return basis

    def fit_transform(self, X: Samples, y: object = None) -> Any:
        """Fit to X, then return the features of X (see ``fit`` and ``transform``)."""
        return self.fit(X).transform(X)

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """Feature names ``"<class>0"``, ``"<class>1"``, ... (for scikit-learn's set_output)."""
        self._fitted_model()
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{j}" for j in range(self.n_components_)], dtype=object)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write the fitted model to an HDF5 model file (read it with :func:`sompca.load`).

        Besides the model, which every binding reads, the file keeps the
        estimator's parameters and ``feature_names_in_`` (a JSON string
        attribute ``python_params``), so that :func:`sompca.load` returns
        the estimator as it was. With ``n_components`` a fraction the file
        holds every feature fitted; ``load`` keeps the same prefix, readers
        in other languages see them all.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write; it is written to a temporary file and renamed
            into place.
        """
        model = self._fitted_model()
        saved: dict = {"class": type(self).__name__, "params": {}}
        for name, value in self.get_params(deep=False).items():
            try:
                saved["params"][name] = json.loads(json.dumps(value, default=_json_value))
            except (TypeError, ValueError):  # not JSON: load gives the default
                pass
        if hasattr(self, "feature_names_in_"):
            saved["feature_names_in"] = [str(name) for name in self.feature_names_in_]
        import shutil

        import h5py

        # The library writes the model (its checks: a directory, a locked file or one that is not a model
        # is refused; a symlink is written through, atomically); then a copy with the parameters replaces
        # it, so the file is a whole model at every moment.
        model.save(path)
        target = os.path.realpath(path)
        folder, name = os.path.split(target)
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            shutil.copyfile(target, temporary)
            with h5py.File(temporary, "r+") as file:
                file.attrs[_PARAMS_ATTRIBUTE] = json.dumps(saved)
            os.replace(temporary, target)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def __sklearn_is_fitted__(self):
        return getattr(self, "_model", None) is not None


class _TVP(TensorProjection):
    """The successive-EMP (tensor-to-vector projection) methods."""

    def __init__(self, n_components=None, relaxed_start=_default(_lib.METHOD_FOMPCA, "relaxed_start"),
                 max_iter=_default(_lib.METHOD_FOMPCA, "max_iter"), tol=_default(_lib.METHOD_FOMPCA, "tol"),
                 sort_features=_default(_lib.METHOD_FOMPCA, "sort_features"), n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, mode_updates="auto", verbose=False):
        self.n_components = n_components
        self.relaxed_start = relaxed_start
        self.max_iter = max_iter
        self.tol = tol
        self.sort_features = sort_features
        self.n_jobs = n_jobs
        self.sample_shape = sample_shape
        self.sample_dim = sample_dim
        self.memory_limit = memory_limit
        self.mode_updates = mode_updates
        self.verbose = verbose

    def _options(self):
        options = super()._options()
        options.relaxed_start = bool(self.relaxed_start)
        if not isinstance(self.mode_updates, str) or self.mode_updates not in _lib.MODE_UPDATES:
            raise ValueError(f"mode_updates must be one of {', '.join(map(repr, _lib.MODE_UPDATES))}, "
                             f"got {self.mode_updates!r}")
        options.mode_updates = _lib.MODE_UPDATES[self.mode_updates]
        options.max_iter = _int_param("max_iter", self.max_iter, 1, allow_none=False)
        options.tol = _real_param("tol", self.tol, 0.0, float("inf"))
        options.feature_order = _lib.ORDER_VARIANCE if self.sort_features else _lib.ORDER_EXTRACTION
        return options


_SAMPLE_DIM = """    sample_dim : str or None, default=None
        For an ``xarray.DataArray`` X: the name of its sample dimension
        (None: its first). The other dimensions, in the order of the
        training DataArray (``dims_in_``), are the sample's modes, whatever
        their order in a later X; ``transform`` returns a DataArray with
        dims (sample_dim, "feature") and X's coordinates along sample_dim.
        A dask-backed DataArray is fitted as its dask array is.
"""

_MEMORY_LIMIT = """    memory_limit : int, str or None, default=None
        Memory budget of a fit, in bytes or as a size such as ``"512MB"``;
        None is the library's default, a quarter of physical memory. An
        HDF5 dataset that fits is read once and fitted from memory, a larger
        one is streamed in runs that fit; the model is the same bit for bit
        whatever the budget if it holds the M x max I_n partial projections
        (else to about 1e-13). A budget too small for one run of samples
        raises MemoryError naming both sizes.
"""

_VERBOSE = """    verbose : bool, default=False
        Draw a progress bar of the fit on stderr, as the command line does:
        one step per EMP (MPCA and CSA: per sweep; PCA: one step), with the
        variance captured so far and, for an HDF5 file, the bytes read.
"""

_SAMPLE_SHAPE = """    sample_shape : tuple of int or None, default=None
        The sample shape (I_1, ..., I_N) of 2-D input: X of shape
        (n_samples, I_1 * ... * I_N), each row a sample in C order, is
        viewed as (n_samples, I_1, ..., I_N) without a copy (in ``fit``,
        ``transform`` and ``fit_transform``), so the estimator can follow
        2-D steps in a Pipeline; ``inverse_transform`` then returns rows
        too. X already of shape (n_samples, I_1, ..., I_N) is accepted as
        well. None takes each sample's shape from X.
"""

_TVP_PARAMETERS = """
    n_components : int, float or None, default=None
        Number of features P (EMPs); None selects the method's bound{bound}.
        A float in (0, 1) fits up to the bound and keeps the fewest leading
        features whose ``explained_variance_ratio_`` sums to at least it.
    relaxed_start : bool, default={relaxed}
        Fix the first EMP to uniform vectors and start the later ones from
        the residual (Shi and Lu 2015, Sec. 3.3).
    max_iter : int, default=20
        Alternating sweeps K per EMP (the paper uses 20).
    tol : float, default=0.0
        If positive, an EMP stops early once the relative change of its
        captured variance over a sweep is at most ``tol``; 0 runs all
        ``max_iter`` sweeps, as the paper.
    sort_features : bool, default=True
        Order the features by captured variance, descending (as the paper
        does for classification); False keeps the extraction order.
    n_jobs : int or None, default=None
        Threads sharing each pass over the data; None or -1 use all cores.
""" + _SAMPLE_SHAPE + _SAMPLE_DIM + _MEMORY_LIMIT + """    mode_updates : {{"auto", "rows", "scatter"}}, default="auto"
        How each mode update gets the scatter of its partial projections:
        "rows" keeps the n_samples x I_n projections (the cheaper update,
        but n_samples x I_n values of memory and, over a dask array, moved
        to the driver per pass), "scatter" folds the I_n x I_n scatter in
        the pass (what a pass over a large dask array should move between
        workers). "auto" chooses by the data's shape alone: "rows" when
        n_samples x max_n I_n is at most 2^20 (8 MiB of float64), else
        "scatter", for arrays, HDF5 files and dask arrays alike, so default
        fits of the same samples in memory and on a cluster are equal bit
        for bit. "rows" and "scatter" agree to rounding.
""" + _VERBOSE

_ATTRIBUTES = """
    Attributes
    ----------
    projections_ : list of ndarray
        The N projection matrices, the n-th of shape (I_n, P) with column j
        the mode-n vector of feature j (PCA: one (prod I_n, P) matrix).
    mean_ : ndarray of shape (I_1, ..., I_N)
        Training mean subtracted before projection (zeros for methods that
        do not centre).
    explained_variance_ : ndarray of shape (P,)
        Variance of each training feature.
    explained_variance_ratio_ : ndarray of shape (P,)
        ``explained_variance_`` over the total variance of the training data.
    mode_ : int or None
        SO-MPCA's orthogonal mode nu, 0-based; None for other methods.
    n_iter_ : int
        The most sweeps any feature's EMP ran (at most ``max_iter``; MPCA
        and CSA: the sweeps in total; PCA: 0).
    n_iter_per_component_ : ndarray of shape (P,)
        Sweeps run for each feature's EMP (0 for relaxed start's fixed
        first EMP; MPCA and CSA: the sweeps in total, for every feature).
    history_ : list of ndarray
        Objective at the start and after each sweep, per EMP.
    order_ : ndarray of shape (P,)
        Extraction index of each feature.
    n_components_ : int
        Number of features P.
    n_features_in_ : int
        Number of entries of one training sample, prod I_n.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of X (``n_features_in_`` of them) when it was a DataFrame with string column names
        (with scikit-learn installed).
    shape_in_ : tuple of int
        Sample shape (I_1, ..., I_N).
    n_samples_fit_ : int
        Number of training samples M.
    dims_in_ : tuple of str
        The names of the sample's dimensions (its modes, in order) when X
        was an xarray DataArray.
    components_ : ndarray of shape (n_components, n_features_in)
        Row p is feature p's projection vectorised in C order (the outer
        product of the p-th columns of ``projections_``), so that
        ``(X - mean_).reshape(n_samples, -1) @ components_.T`` is
        ``transform(X)``.
"""


class SOMPCA(_TVP):
    __doc__ = """Semi-orthogonal multilinear PCA, with relaxed start by default (SO-MPCA-RS).

    Successive elementary multilinear projections (EMPs) that maximise the
    captured variance, orthogonal to each other in one mode nu only (Shi
    and Lu, IJCAI 2015, Sec. 3).

    Parameters
    ----------""" + _TVP_PARAMETERS.format(
        bound=", I_nu", relaxed=_default(_lib.METHOD_SOMPCA, "relaxed_start")).replace(
        "    sort_features", """    mode : int, "all" or None, default=None
        The orthogonal mode nu, 0-based like every mode number in sompca
        (the paper's nu = 1 is mode 0); None selects argmax_n I_n (eq. 9).
        "all" fits SO-MPCA once per mode and fuses the features: the N
        fits' features concatenated and sorted by captured variance, up to
        I_1 + ... + I_N - (N - 1) of them, since every mode's first EMP is
        the same (no constraint applies to it) and is kept once
        (``n_components=P`` keeps, of each mode's first min(P, I_n), the P
        of largest variance); ``feature_modes_`` says which mode each came
        from, -2 for that shared first EMP.
    sort_features""") + _ATTRIBUTES.replace("""    mode_ : int or None
        SO-MPCA's orthogonal mode nu, 0-based; None for other methods.
""", """    mode_ : int or "all"
        The orthogonal mode nu, 0-based, or "all" when fitted in every mode.
    feature_modes_ : ndarray of shape (P,)
        The orthogonal mode (0-based) of each feature's SO-MPCA fit; with
        mode="all", -2 for the first EMP, which every mode's fit shares.
""") + """
    Examples
    --------
    >>> import numpy as np
    >>> from sompca import SOMPCA
    >>> X = np.random.default_rng(0).normal(size=(50, 8, 6))
    >>> model = SOMPCA(n_components=4).fit(X)
    >>> model.transform(X).shape
    (50, 4)
    """

    _method = _lib.METHOD_SOMPCA

    def __init__(self, n_components=None, mode=None, relaxed_start=_default(_lib.METHOD_SOMPCA, "relaxed_start"),
                 max_iter=_default(_lib.METHOD_SOMPCA, "max_iter"), tol=_default(_lib.METHOD_SOMPCA, "tol"),
                 sort_features=_default(_lib.METHOD_SOMPCA, "sort_features"), n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, mode_updates="auto", verbose=False):
        super().__init__(n_components, relaxed_start, max_iter, tol, sort_features, n_jobs, sample_shape, sample_dim,
                         memory_limit, mode_updates, verbose)
        self.mode = mode

    def _options(self):
        options = super()._options()
        if isinstance(self.mode, str) and self.mode == "all":
            options.mode = _lib.MODE_ALL
            return options
        try:
            mode = _int_param("mode", self.mode, 0)
        except ValueError:
            raise ValueError(f"mode must be an integer >= 0, 'all' or None, got {self.mode!r}") from None
        options.mode = -1 if mode is None else mode
        return options


class FOMPCA(_TVP):
    __doc__ = """Full-orthogonal multilinear PCA, with relaxed start by default (FO-MPCA-RS).

    Successive EMPs orthogonal to each other in every mode (Shi and Lu
    2015, Sec. 3.1).

    Parameters
    ----------""" + _TVP_PARAMETERS.format(
        bound=", min_n I_n", relaxed=_default(_lib.METHOD_FOMPCA, "relaxed_start")) + _ATTRIBUTES

    _method = _lib.METHOD_FOMPCA


class TROD(_TVP):
    __doc__ = """Tensor rank-one decomposition (Shashua and Levin 2001).

    Successive rank-one EMPs of the uncentred, deflated residual.

    Parameters
    ----------""" + _TVP_PARAMETERS.format(bound=", max_n I_n (up to prod_n I_n allowed)",
                                          relaxed=_default(_lib.METHOD_TROD, "relaxed_start")) + _ATTRIBUTES

    _method = _lib.METHOD_TROD

    def __init__(self, n_components=None, relaxed_start=_default(_lib.METHOD_TROD, "relaxed_start"),
                 max_iter=_default(_lib.METHOD_TROD, "max_iter"), tol=_default(_lib.METHOD_TROD, "tol"),
                 sort_features=_default(_lib.METHOD_TROD, "sort_features"), n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, mode_updates="auto", verbose=False):
        super().__init__(n_components, relaxed_start, max_iter, tol, sort_features, n_jobs, sample_shape, sample_dim,
                         memory_limit, mode_updates, verbose)


class UMPCA(_TVP):
    __doc__ = """Uncorrelated multilinear PCA (Lu, Plataniotis and Venetsanopoulos 2009).

    Successive EMPs whose training features are mutually uncorrelated.

    Parameters
    ----------""" + _TVP_PARAMETERS.format(
        bound=", min(min_n I_n, M - 1)", relaxed=_default(_lib.METHOD_UMPCA, "relaxed_start")) + _ATTRIBUTES

    _method = _lib.METHOD_UMPCA

    def __init__(self, n_components=None, relaxed_start=_default(_lib.METHOD_UMPCA, "relaxed_start"),
                 max_iter=_default(_lib.METHOD_UMPCA, "max_iter"), tol=_default(_lib.METHOD_UMPCA, "tol"),
                 sort_features=_default(_lib.METHOD_UMPCA, "sort_features"), n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, mode_updates="auto", verbose=False):
        super().__init__(n_components, relaxed_start, max_iter, tol, sort_features, n_jobs, sample_shape, sample_dim,
                         memory_limit, mode_updates, verbose)


class PCA(TensorProjection):
    __doc__ = """Ordinary PCA of the vectorised (C order) samples, a baseline.

    Samples of rank r (their centred matrix's) below P give, as
    scikit-learn's PCA does, P components all the same, whether M is below
    prod_n I_n or not: the first r capture the variance, the others are
    orthonormal directions of zero variance (``explained_variance_`` 0 to
    rounding), and the fit warns, naming the rank.

    Parameters
    ----------
    n_components : int, float or None, default=None
        Number of features P; None selects min(M - 1, prod_n I_n); a float
        in (0, 1) keeps the fewest leading features whose
        ``explained_variance_ratio_`` sums to at least it.
    n_jobs : int or None, default=None
        Threads sharing each pass over the data; None or -1 use all cores.
""" + _SAMPLE_SHAPE + _SAMPLE_DIM + _MEMORY_LIMIT + _VERBOSE + _ATTRIBUTES

    _method = _lib.METHOD_PCA

    def _fit(self, X, progress=None, read_progress=None):
        super()._fit(X, progress=progress, read_progress=read_progress)
        variance = self.explained_variance_
        # The library's rule for variance beyond the rank (solver/pca.go, pcaRankTol).
        rank = int(np.count_nonzero(variance > 1e-12 * variance.max(initial=0)))
        if rank < len(variance):
            warnings.warn(f"the samples have rank {rank}: components {rank + 1} to {len(variance)} of the "
                          f"{len(variance)} have zero variance (any orthonormal directions of it)", stacklevel=3)
        return self

    def __init__(self, n_components=None, n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, verbose=False):
        self.n_components = n_components
        self.n_jobs = n_jobs
        self.sample_shape = sample_shape
        self.sample_dim = sample_dim
        self.memory_limit = memory_limit
        self.verbose = verbose


class _TTP(TensorProjection):
    """The tensor-to-tensor baselines MPCA and CSA."""

    def __init__(self, n_components=None, q=_default(_lib.METHOD_MPCA, "q"),
                 max_iter=_default(_lib.METHOD_MPCA, "max_iter"),
                 sort_features=_default(_lib.METHOD_MPCA, "sort_features"), n_jobs=None,
                 sample_shape=None, sample_dim=None, memory_limit=None, verbose=False):
        self.n_components = n_components
        self.q = q
        self.max_iter = max_iter
        self.sort_features = sort_features
        self.n_jobs = n_jobs
        self.sample_shape = sample_shape
        self.sample_dim = sample_dim
        self.memory_limit = memory_limit
        self.verbose = verbose

    def _options(self):
        options = super()._options()
        options.q = _real_param("q", self.q, 0.0, 1.0, low_open=True)
        options.max_iter = _int_param("max_iter", self.max_iter, 1, allow_none=False)
        options.feature_order = _lib.ORDER_VARIANCE if self.sort_features else _lib.ORDER_EXTRACTION
        return options


_TTP_PARAMETERS = """
    n_components : int, float or None, default=None
        Number of features P kept; None keeps all prod_n P_n entries of the
        projected tensor; a float in (0, 1) keeps the fewest leading
        features whose ``explained_variance_ratio_`` sums to at least it.
    q : float, default=0.97
        Fraction of each mode's {what} kept when choosing the mode ranks P_n.
    max_iter : int, default=20
        Alternating sweeps in total.
    sort_features : bool, default=True
        Order the features by {rank}, descending; False keeps the C order
        of the projected tensor's entries.
    n_jobs : int or None, default=None
        Threads sharing each pass over the data; None or -1 use all cores.
""" + _SAMPLE_SHAPE + _SAMPLE_DIM + _MEMORY_LIMIT + _VERBOSE


_TTP_ATTRIBUTES = """\
    ranks_ : tuple of int
        The mode ranks P_1, ..., P_N kept from Q = ``q``.
    factors_ : list of ndarray
        The N factor matrices U_n, of shape (I_n, P_n), with orthonormal
        columns (with fewer features than prod_n P_n, the columns that the
        kept features use).
    feature_index_ : ndarray of shape (n_components, N)
        Feature p is entry ``feature_index_[p]`` of the projected tensor
        ``(X - mean_) x_1 factors_[0]^T ... x_N factors_[N-1]^T``.
"""


class MPCA(_TTP):
    __doc__ = """Multilinear PCA (Lu, Plataniotis and Venetsanopoulos 2008), a baseline.

    A tensor-to-tensor projection whose projected entries are the features.

    Parameters
    ----------""" + _TTP_PARAMETERS.format(what="variance", rank="captured variance") + _ATTRIBUTES + _TTP_ATTRIBUTES

    _method = _lib.METHOD_MPCA


class CSA(_TTP):
    __doc__ = """Concurrent subspace analysis (Xu et al. 2005), a baseline.

    MPCA's tensor-to-tensor projection on uncentred data, ranked by energy.

    Parameters
    ----------""" + _TTP_PARAMETERS.format(what="energy", rank="energy") + _ATTRIBUTES + _TTP_ATTRIBUTES

    _method = _lib.METHOD_CSA


ESTIMATORS = {
    _lib.METHOD_SOMPCA: SOMPCA,
    _lib.METHOD_FOMPCA: FOMPCA,
    _lib.METHOD_TROD: TROD,
    _lib.METHOD_UMPCA: UMPCA,
    _lib.METHOD_PCA: PCA,
    _lib.METHOD_MPCA: MPCA,
    _lib.METHOD_CSA: CSA,
}

# Method names, from the library's method table.
METHOD_NAMES = {_lib.method_name(code): cls for code, cls in ESTIMATORS.items()}


def estimator_for(name: str, **params: Any) -> TensorProjection:
    """Return an unfitted estimator for a method name such as ``"so-mpca-rs"``.

    The library reads the name (case and ``'_'`` for ``'-'`` do not
    matter): so-mpca, fo-mpca, trod and umpca, each with an optional
    ``-rs`` suffix for relaxed start, then pca, mpca and csa.

    Examples
    --------
    The estimators' names mean their defaults: ``"SOMPCA"`` is
    ``sompca.SOMPCA()``, so-mpca-rs, as on the command line (``-m sompca``)
    and in C.

    >>> estimator_for("SO-MPCA", n_components=5)
    SOMPCA(n_components=5, relaxed_start=False)
    >>> estimator_for("SOMPCA").relaxed_start
    True
    """
    method, relaxed = _lib.method_from_name(name)
    cls = ESTIMATORS[method]
    if issubclass(cls, _TVP):
        params["relaxed_start"] = relaxed
    return cls(**params)


def method_name(estimator: TensorProjection) -> str:
    """The library's method name of an estimator, such as ``"so-mpca-rs"``.

    Examples
    --------
    >>> method_name(SOMPCA(relaxed_start=True))
    'so-mpca-rs'
    """
    return _lib.method_name(type(estimator)._method, bool(getattr(estimator, "relaxed_start", False)))


def load(path: Union[str, os.PathLike]) -> TensorProjection:
    """Read a fitted estimator from an HDF5 model file.

    Parameters
    ----------
    path : str or os.PathLike
        A model file written by ``save`` (any language's binding).

    Returns
    -------
    estimator : SOMPCA, FOMPCA, TROD, UMPCA, PCA, MPCA or CSA
        The fitted estimator of the file's method, with every parameter
        and ``feature_names_in_`` as they were when a Python estimator
        saved it. From a file written by another binding or an older
        sompca, the parameters of the fit (``n_components``,
        ``relaxed_start``, ``mode``, ``max_iter``, ``tol``, ``q``,
        ``sort_features``), the others their defaults.

    Examples
    --------
    >>> import numpy as np, os, tempfile, sompca
    >>> X = np.random.default_rng(0).normal(size=(30, 5, 4))
    >>> path = os.path.join(tempfile.mkdtemp(), "model.h5")
    >>> sompca.SOMPCA(n_components=3).fit(X).save(path)
    >>> sompca.load(path).n_components_
    3
    """
    model = _lib.Model.load(path)
    method, relaxed = model.method()
    cls = ESTIMATORS.get(method)
    if cls is None:
        raise ValueError(f"{path}: model file has method code {method}, unknown to this version of sompca")
    options = model.options()
    params = {"n_components": model.n_components()}
    if issubclass(cls, _TVP):
        params.update(relaxed_start=relaxed, max_iter=options.max_iter, tol=options.tol,
                      sort_features=options.feature_order == _lib.ORDER_VARIANCE)
    if cls is SOMPCA:
        params["mode"] = model.mode()
    if issubclass(cls, _TTP):
        params.update(q=options.q, max_iter=options.max_iter,
                      sort_features=options.feature_order == _lib.ORDER_VARIANCE)
    names = cls().get_params()
    saved = _saved_params(path)
    if saved is not None:
        params.update(saved["params"])
        if isinstance(params.get("sample_shape"), list):
            params["sample_shape"] = tuple(params["sample_shape"])
    params = {k: v for k, v in params.items() if k in names}
    estimator = cls(**params)
    estimator._set_model(model, _variance_fraction(params.get("n_components")))
    if saved is not None and saved.get("feature_names_in") is not None:
        estimator.feature_names_in_ = np.asarray(saved["feature_names_in"], dtype=object)
    return estimator
