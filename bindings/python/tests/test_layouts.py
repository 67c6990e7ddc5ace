"""Layouts: samples first, samples last, and column-major data as MATLAB -v7.3, R and Julia write it.

A MATLAB user holds an I_1 x I_2 x I_3 x M array A. MATLAB -v7.3 writes it
column-major into an HDF5 file with a 512-byte user block and a MATLAB_class
attribute; h5py (row-major) then sees shape (M, I_3, I_2, I_1), i.e. A.T.
Written here with h5py exactly so: the fit with layout="column-major" must
equal the fit of the samples in MATLAB's order, np.moveaxis(A, -1, 0).
"""
import subprocess
import sys
import warnings

import h5py
import numpy as np
import pytest

import sompca
from helpers import make_samples


def matlab_file(path, A, name="X", userblock=True, matlab_class=True):
    """Write A (samples last, MATLAB's order) as MATLAB -v7.3 does."""
    with h5py.File(path, "w", userblock_size=512 if userblock else 0) as f:
        d = f.create_dataset(name, data=np.ascontiguousarray(A.T))  # column-major bytes: dims reversed
        if matlab_class:
            d.attrs["MATLAB_class"] = np.bytes_("double")
    return f"{path}:/{name}"


@pytest.fixture()
def A():
    """30 samples of 5 x 4 x 3, held as MATLAB holds them: 5 x 4 x 3 x 30."""
    return np.moveaxis(make_samples((30, 5, 4, 3), seed=7), 0, -1)


def test_column_major_fits_as_matlab_holds_it(tmp_path, A):
    spec = matlab_file(tmp_path / "matlab.h5", A)
    X = np.moveaxis(A, -1, 0)  # (30, 5, 4, 3): the samples in MATLAB's mode order
    want = sompca.SOMPCA(n_components=4, mode=1).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the right layout gives no warning
        got = sompca.SOMPCA(n_components=4, mode=1).fit(sompca.HDF5(spec, layout="column-major"))
    assert got.shape_in_ == (5, 4, 3) and got.mode_ == 1
    for a, b in zip(got.projections_, want.projections_):
        np.testing.assert_array_equal(a, b)  # same data, same order of operations: bit for bit
    np.testing.assert_array_equal(got.mean_, want.mean_)
    feats = got.transform(sompca.HDF5(spec, layout="column-major"))
    np.testing.assert_array_equal(feats, want.transform(X))
    # fit_transform and an h5py Dataset (streamed, or read into memory for a writable file) alike.
    np.testing.assert_array_equal(
        sompca.SOMPCA(n_components=4, mode=1).fit_transform(sompca.HDF5(spec, layout="column-major")), feats)
    with h5py.File(tmp_path / "matlab.h5", "r") as f:
        np.testing.assert_array_equal(got.transform(sompca.HDF5(f["X"], layout="column-major")), feats)
    with h5py.File(tmp_path / "matlab.h5", "r+") as f:
        np.testing.assert_array_equal(got.transform(sompca.HDF5(f["X"], layout="column-major")), feats)


@pytest.mark.parametrize("userblock, matlab_class", [(True, True), (True, False), (False, True)])
def test_matlab_file_without_column_major_warns(tmp_path, A, userblock, matlab_class):
    spec = matlab_file(tmp_path / "m.h5", A, userblock=userblock, matlab_class=matlab_class)
    with pytest.warns(sompca.LayoutWarning, match='layout "column-major"'):
        sompca.SOMPCA(n_components=2).fit(spec)
    with pytest.warns(sompca.LayoutWarning, match="column-major"):
        with h5py.File(tmp_path / "m.h5", "r+") as f:  # read in memory by h5py: the package warns itself
            sompca.SOMPCA(n_components=2).fit(f["X"])


def test_plain_file_does_not_warn(tmp_path, X3):
    path = tmp_path / "plain.h5"
    with h5py.File(path, "w") as f:
        f["X"] = X3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sompca.SOMPCA(n_components=2).fit(f"{path}:/X")


def test_samples_last(tmp_path, X3):
    path = tmp_path / "last.h5"
    with h5py.File(path, "w") as f:
        f["X"] = np.moveaxis(X3, 0, -1)
    want = sompca.SOMPCA(n_components=3).fit(X3)
    got = sompca.SOMPCA(n_components=3).fit(sompca.HDF5(f"{path}:/X", layout="samples-last"))
    for a, b in zip(got.projections_, want.projections_):
        np.testing.assert_array_equal(a, b)


def test_layout_errors(X3):
    with pytest.raises(ValueError, match="layout='fortran': want one of 'samples-first', 'samples-last', 'column-major'"):
        sompca.HDF5("x.h5:/X", layout="fortran")
    with pytest.raises(ValueError, match="is not 'FILE.h5:/DATASET'"):
        sompca.HDF5("x.h5", layout="column-major")
    with pytest.raises(ValueError, match="needs an HDF5 dataset"):
        sompca.SOMPCA().fit(sompca.HDF5(X3, layout="column-major"))


def test_cli_layout(tmp_path, A):
    spec = matlab_file(tmp_path / "matlab.h5", A)
    model = tmp_path / "model.h5"
    run = [sys.executable, "-m", "sompca"]
    plain = subprocess.run([*run, "fit", spec, "-P", "3", "-o", str(model)], capture_output=True, text=True)
    assert plain.returncode == 0
    assert plain.stderr.startswith("sompca fit: warning: ") and "--layout column-major" in plain.stderr
    result = subprocess.run([*run, "fit", spec, "--layout", "column-major", "-P", "3", "-o", str(model), "-f"],
                            capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert sompca.load(model).shape_in_ == (5, 4, 3)
    out = tmp_path / "f.h5"
    result = subprocess.run([*run, "transform", str(model), spec, "--layout", "column-major", "-o", f"{out}:/Y"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    want = sompca.SOMPCA(n_components=3).fit(np.moveaxis(A, -1, 0))
    with h5py.File(out, "r") as f:
        np.testing.assert_array_equal(f["Y"][()], want.transform(np.moveaxis(A, -1, 0)))
