"""One rescaling rule for every path: the scale sweep of every method over arrays, HDF5 files and dask arrays.

The expected values come from the identity that a fit of s * X is the fit
of X with the mean scaled by s and the variances (and objective histories)
by s^2, the projections unchanged: to rounding (1e-9, as the Go sweep
solver/scale_test.go) for s not a power of two. Where s^2 times X's total
variance is outside float64's normal range, every path must refuse with a
ValueError naming the scale. The HDF5 and dask paths read the same values
as the array and, with blocks that start at multiples of BLOCK_MULTIPLE,
make the same sums in the same order: their models must equal the array's
bit for bit (or their errors its error) at every scale.
"""

import math

import h5py
import numpy as np
import pytest

import sompca
from helpers import make_samples
from sompca import _dask

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

ESTIMATORS = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]
SCALES = [1e-300, 1e-150, 1e-100, 1e-50, 1.0, 1e50, 1e150, 1e300]
M, SHAPE = 2 * _dask.BLOCK_MULTIPLE + 9, (5, 4, 3)


def quick(cls):
    if cls is sompca.PCA:
        return cls(n_components=3)
    return cls(n_components=3, max_iter=4)


def learned(est):
    return [est.mean_, est.explained_variance_, est.explained_variance_ratio_, *est.projections_, *est.history_]


@pytest.fixture(scope="module")
def X():
    return make_samples((M,) + SHAPE, seed=39)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_path_at_every_scale(cls, X, tmp_path):
    reference = quick(cls).fit(X)
    for s in SCALES:
        Xs = X * s
        path = tmp_path / f"x{s:g}.h5"
        with h5py.File(path, "w") as f:
            f["X"] = Xs
        fits = {}
        for where, data in [("array", Xs), ("hdf5", f"{path}:/X"),
                            ("dask", da.from_array(Xs, chunks=(_dask.BLOCK_MULTIPLE,) + SHAPE))]:
            try:
                with dask.config.set(scheduler="synchronous"):
                    fits[where] = quick(cls).fit(data)
            except ValueError as e:
                fits[where] = str(e)  # in Python's words: no C function name in front
        # Representable: the scaled total variance is a normal float64 (in logarithms, so as not to overflow).
        log_total = math.log2(np.sum((X - X.mean(axis=0)) ** 2) / (M - 1)) + 2 * math.log2(s)
        if not -1021 < log_total < 1022:
            for where, got in fits.items():
                assert isinstance(got, str) and "scale" in got, (cls.__name__, s, where, got)
            assert fits["hdf5"] == fits["array"] and fits["dask"] == fits["array"]
            continue
        array = fits["array"]
        assert not isinstance(array, str), (cls.__name__, s, array)
        factors = [s, s * s, 1.0] + [1.0] * len(reference.projections_) + [s * s] * len(reference.history_)
        for got, want, factor in zip(learned(array), learned(reference), factors, strict=True):
            np.testing.assert_allclose(got, np.asarray(want) * factor, rtol=0,
                                       atol=1e-9 * factor * max(1.0, float(np.abs(want).max(initial=0))))
        for where in ("hdf5", "dask"):
            other = fits[where]
            assert not isinstance(other, str), (cls.__name__, s, where, other)
            for got, want in zip(learned(other), learned(array), strict=True):
                np.testing.assert_array_equal(got, want, err_msg=f"{cls.__name__} at {s:g} from {where}")
