"""SO-MPCA in every mode with feature-level fusion: SOMPCA(mode="all"), files, the command line."""

import subprocess
import sys

import h5py
import numpy as np
import pytest

import sompca


def single_fits(X, **params):
    return [sompca.SOMPCA(mode=n, **params).fit(X) for n in range(X.ndim - 1)]


@pytest.mark.parametrize("relaxed_start", [True, False])
def test_all_modes_are_the_single_mode_fits(X3, relaxed_start):
    # The definition (solver/doc.go, "Feature fusion"): the features of the
    # N single-mode fits, each bit for bit, sorted by captured variance;
    # their first EMP, the same in every mode, is kept once (mode -2).
    fused = sompca.SOMPCA(mode="all", relaxed_start=relaxed_start).fit(X3)
    singles = single_fits(X3, relaxed_start=relaxed_start)
    shape = X3.shape[1:]
    total = sum(shape) - (len(shape) - 1)
    assert fused.mode_ == "all" and fused.n_components_ == total
    assert np.sum(fused.feature_modes_ == -2) == 1
    assert np.all(np.diff(fused.explained_variance_) <= 0)
    Z = fused.transform(X3)
    assert Z.shape == (len(X3), total)
    for n, single in enumerate(singles):
        assert single.mode_ == n and np.all(single.feature_modes_ == n)
        cols = np.flatnonzero((fused.feature_modes_ == n) | (fused.feature_modes_ == -2))
        assert len(cols) == shape[n]
        np.testing.assert_array_equal(fused.explained_variance_[cols], single.explained_variance_)
        for a, b in zip(fused.projections_, single.projections_):
            np.testing.assert_array_equal(a[:, cols], b)
        np.testing.assert_array_equal(Z[:, cols], single.transform(X3))


@pytest.mark.parametrize("relaxed_start", [True, False])
def test_all_modes_no_two_features_alike(X3, relaxed_start):
    # Duplicate features would make the feature matrix rank-deficient and
    # count one feature twice in distances: no two columns of the stacked
    # projection vectors are equal, and the features have full column rank.
    fused = sompca.SOMPCA(mode="all", relaxed_start=relaxed_start).fit(X3)
    U = np.vstack(fused.projections_)
    P = U.shape[1]
    for a in range(P):
        for b in range(a):
            assert not np.array_equal(U[:, a], U[:, b]), (b, a)
    assert np.linalg.matrix_rank(fused.transform(X3)) == P


def test_all_modes_n_components(X3):
    # P = 3: of each mode's first 3 EMPs, the 3 of largest variance -- the
    # first 3 such features of the full fused fit.
    full = sompca.SOMPCA(mode="all", sort_features=False).fit(X3)
    # Extraction order: the shared first EMP (mode -2, index 0), then each
    # mode's EMPs 1, 2, ...: mode n's EMP k has index firsts[n] + k.
    shape = np.array(X3.shape[1:])
    firsts = np.concatenate([[0], np.cumsum(shape - 1)[:-1]])
    shared = full.feature_modes_ == -2
    keep = shared | (full.order_ - firsts[np.where(shared, 0, full.feature_modes_)] < 3)
    var, modes = full.explained_variance_[keep], full.feature_modes_[keep]
    top = np.argsort(-var, kind="stable")[:3]
    few = sompca.SOMPCA(mode="all", n_components=3).fit(X3)
    np.testing.assert_array_equal(few.explained_variance_, var[top])
    np.testing.assert_array_equal(few.feature_modes_, modes[top])


def test_all_modes_save_load_and_h5py(X3, tmp_path):
    fused = sompca.SOMPCA(mode="all").fit(X3)
    path = tmp_path / "all.h5"
    fused.save(path)
    back = sompca.load(path)
    assert back.mode == "all" and back.mode_ == "all"
    np.testing.assert_array_equal(back.feature_modes_, fused.feature_modes_)
    np.testing.assert_array_equal(back.transform(X3), fused.transform(X3))
    with h5py.File(path, "r") as f:  # the documented layout (hdf5io/doc.go)
        assert int(f.attrs["mode"]) == -2
        np.testing.assert_array_equal(f["feature_modes"][()], fused.feature_modes_)


@pytest.mark.parametrize("mode", ["ALL", "every", 1.5, -2, True])
def test_bad_mode(X3, mode):
    with pytest.raises(ValueError, match="mode must be"):
        sompca.SOMPCA(mode=mode).fit(X3)


def test_cli_mode_all(tmp_path, h5file, X2):
    model = tmp_path / "all.h5"
    run = lambda *args: subprocess.run([sys.executable, "-m", "sompca", *map(str, args)], capture_output=True, text=True)
    result = run("fit", f"{h5file}:/data/X", "-m", "so-mpca-rs", "--mode", "all", "-o", model)
    assert result.returncode == 0, result.stderr
    expected = sompca.SOMPCA(mode="all").fit(X2)
    loaded = sompca.load(model)
    np.testing.assert_array_equal(loaded.feature_modes_, expected.feature_modes_)
    np.testing.assert_array_equal(loaded.explained_variance_, expected.explained_variance_)
    info = run("info", model)
    assert info.returncode == 0 and "all (features per mode, 0-based: 0: 7, 1: 5; 1 shared by all)" in info.stdout, info.stdout
    bad = run("fit", f"{h5file}:/data/X", "--mode", "every", "-o", tmp_path / "x.h5")
    assert bad.returncode != 0 and "'all'" in bad.stderr
