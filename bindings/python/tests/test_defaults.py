"""One table of defaults and one mode numbering on every surface.

The expected table is the paper's (Shi and Lu 2015: K = 20 sweeps, all of
them run; relaxed start proposed for SO-MPCA and FO-MPCA; features by
variance) and Lu et al. 2008's Q = 97% for MPCA and CSA; solver's
TestDefaults (Go) and test_options_defaults (tests/c/test_capi.c) check
their surfaces against the same values.
"""
import inspect

import h5py
import numpy as np
import pytest

import sompca
from sompca import _lib

EXPECTED = {  # estimator: relaxed_start (None: the estimator has no such parameter)
    sompca.SOMPCA: True,
    sompca.FOMPCA: True,
    sompca.TROD: False,
    sompca.UMPCA: False,
    sompca.PCA: None,
    sompca.MPCA: None,
    sompca.CSA: None,
}


@pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda c: c.__name__)
def test_defaults(cls):
    params = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items() if name != "self"}
    c = _lib.method_defaults(cls._method)  # the C API's view of the table
    assert c.method == cls._method
    assert (c.relaxed_start, c.mode, c.n_components, c.max_iter, c.tol, c.q, c.feature_order, c.n_threads) == (
        int(bool(EXPECTED[cls])), -1, 0, 20, 0.0, 0.97, _lib.ORDER_VARIANCE, 0)
    assert params["n_components"] is None and params["n_jobs"] is None
    if EXPECTED[cls] is not None:
        assert params["relaxed_start"] is EXPECTED[cls]
        assert (params["max_iter"], params["tol"], params["sort_features"]) == (20, 0.0, True)
    if "q" in params:
        assert (params["q"], params["max_iter"], params["sort_features"]) == (0.97, 20, True)
    if "mode" in params:
        assert params["mode"] is None


def test_c_options_init_means_the_table(X2):
    """The C API's initialised options (relaxed_start = -1) fit what the estimator's defaults fit."""
    for cls in (sompca.SOMPCA, sompca.UMPCA):
        estimator = cls(n_components=3).fit(X2)
        model = _lib.Model.fit_array(X2, _lib.FLOAT64, _lib.new_options(method=cls._method, n_components=3))
        assert model.method() == (cls._method, EXPECTED[cls])
        np.testing.assert_array_equal(model.transform_array(X2, _lib.FLOAT64), estimator.transform(X2))


def test_mode_numbering_in_model_file(tmp_path, X3):
    """mode=1 is numpy axis 1 of a sample: the projections' second matrix is orthonormal, and the
    model file (format version 2) records mode 1 with /projections/U0 .. U2."""
    est = sompca.SOMPCA(n_components=4, mode=1, relaxed_start=False).fit(X3)
    assert est.mode_ == 1
    U = est.projections_[1]
    assert U.shape == (X3.shape[2], 4)
    np.testing.assert_allclose(U.T @ U, np.eye(4), atol=1e-12)
    path = tmp_path / "model.h5"
    est.save(path)
    with h5py.File(path, "r") as f:
        assert int(f.attrs["format_version"]) == 2
        assert int(f.attrs["mode"]) == 1
        assert "nu" not in f.attrs
        assert sorted(f["projections"]) == ["U0", "U1", "U2"]
    assert sompca.load(path).mode_ == 1
