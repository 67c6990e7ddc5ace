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

Samples are the first axis of X, which is a numpy array of any real dtype,
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

from . import _lib  # loads libsompca and checks its version
from ._citation import __citation__
from ._estimators import (
    CSA,
    FOMPCA,
    HDF5,
    MPCA,
    PCA,
    SOMPCA,
    TROD,
    UMPCA,
    NotFittedError,
    TensorProjection,
    estimator_for,
    load,
    method_name,
)
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
           "HDF5", "LayoutWarning", "estimator_for", "method_name", "load", "library_version", "__version__",
           "__citation__", "InvalidFileError", "BrokenLinkError", "MissingFilterError", "FileLockedError",
           "UnsupportedTypeError", "FileVersionError"]


def library_version() -> str:
    """Return the version of the loaded libsompca (equal to ``__version__``)."""
    return _lib.version()
