"""sompca: Semi-Orthogonal Multilinear PCA with Relaxed Start and its family.

Learns features from tensor samples (Shi and Lu, IJCAI 2015) through
libsompca. The estimators follow scikit-learn's conventions: ``fit(X)``
returns the estimator, ``transform(X)`` gives an (n_samples, n_components)
float64 array, learned attributes end in ``_``.

========  ==================================================================
SOMPCA    semi-orthogonal multilinear PCA (relaxed start by default)
FOMPCA    full-orthogonal multilinear PCA (relaxed start by default)
TROD      tensor rank-one decomposition
UMPCA     uncorrelated multilinear PCA
PCA       PCA of the vectorised samples (baseline)
MPCA      multilinear PCA (baseline)
CSA       concurrent subspace analysis (baseline)
load      read a fitted estimator from an HDF5 model file
HDF5      an HDF5 dataset and its layout (samples last; MATLAB, R, Julia)
========  ==================================================================

Estimators are imported on first use (with scikit-learn, if installed), so
``import sompca`` is quick. Samples are the first axis of X, which is a numpy array of any real dtype,
an h5py Dataset, or a string ``"file.h5:/path/to/dataset"`` that the
library streams from disk; ``HDF5("file.h5:/X", layout="column-major")``
reads data written by MATLAB, R or Julia with its modes in their order.
Modes are numbered from 0 (numpy's axes of a sample) everywhere. Errors: ValueError for bad input, OSError for
files (by cause: FileNotFoundError, PermissionError, InvalidFileError, BrokenLinkError, MissingFilterError,
FileLockedError, UnsupportedTypeError, FileVersionError), RuntimeError otherwise, each carrying the library's
message.

Examples
--------
>>> import numpy as np
>>> import sompca
>>> X = np.random.default_rng(0).normal(size=(40, 6, 5))
>>> model = sompca.SOMPCA(n_components=3).fit(X)
>>> model.transform(X).shape
(40, 3)
>>> [u.shape for u in model.projections_]
[(6, 3), (5, 3)]
"""

import importlib

from . import _lib  # loads libsompca and checks its version
from ._citation import __citation__
from ._lib import (
    BrokenLinkError,
    FileLockedError,
    FileVersionError,
    InvalidFileError,
    LayoutWarning,
    MissingFilterError,
    UnsupportedTypeError,
)
from ._version import __version__

__all__ = ["SOMPCA", "FOMPCA", "TROD", "UMPCA", "PCA", "MPCA", "CSA", "TensorProjection", "NotFittedError",
           "HDF5", "LayoutWarning", "estimator_for", "method_name", "load", "library_version", "plot", "__version__",
           "__citation__", "InvalidFileError", "BrokenLinkError", "MissingFilterError", "FileLockedError",
           "UnsupportedTypeError", "FileVersionError"]

# The estimators derive from scikit-learn's BaseEstimator when it is installed, and importing
# scikit-learn takes about a second: they are imported on first use (PEP 562), so that
# `import sompca` and the command line's --version cost about what numpy does.
_ESTIMATOR_NAMES = frozenset({"SOMPCA", "FOMPCA", "TROD", "UMPCA", "PCA", "MPCA", "CSA", "TensorProjection",
                              "NotFittedError", "HDF5", "estimator_for", "method_name", "load"})


def __getattr__(name):
    if name in _ESTIMATOR_NAMES:
        value = getattr(importlib.import_module("._estimators", __name__), name)
    elif name == "plot":
        value = importlib.import_module(".plot", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def library_version() -> str:
    """Return the version of the loaded libsompca (equal to ``__version__``)."""
    return _lib.version()
