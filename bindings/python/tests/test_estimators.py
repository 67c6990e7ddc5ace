"""The estimators' results against independent numpy computations and the paper's invariants."""

import copy
import pickle

import numpy as np
import pytest

import sompca
from helpers import assert_close, assert_same_model, numpy_features

# One case per method (and start rule) on the order-3 samples X3 (30 x 5 x 4 x 3).
CASES = [
    pytest.param(lambda: sompca.SOMPCA(n_components=4), id="so-mpca-rs"),
    pytest.param(lambda: sompca.SOMPCA(n_components=3, relaxed_start=False, mode=1), id="so-mpca-mode1"),
    pytest.param(lambda: sompca.FOMPCA(n_components=3), id="fo-mpca-rs"),
    pytest.param(lambda: sompca.TROD(n_components=4), id="trod"),
    pytest.param(lambda: sompca.TROD(n_components=3, relaxed_start=True), id="trod-rs"),
    pytest.param(lambda: sompca.UMPCA(n_components=3), id="umpca"),
    pytest.param(lambda: sompca.PCA(n_components=6), id="pca"),
    pytest.param(lambda: sompca.MPCA(), id="mpca"),
    pytest.param(lambda: sompca.CSA(q=0.9), id="csa"),
]
UNCENTRED = (sompca.TROD, sompca.CSA)


@pytest.mark.parametrize("make", CASES)
def test_features_equal_numpy_einsum(make, X3):
    estimator = make()
    assert estimator.fit(X3) is estimator
    features = estimator.transform(X3)
    assert features.shape == (len(X3), estimator.n_components_) and features.dtype == np.float64
    assert_close(features, numpy_features(estimator, X3))
    # New samples too (not just the training set), and fit_transform gives the same numbers.
    fresh = X3[::-1] * 0.5 + 1.0
    assert_close(estimator.transform(fresh), numpy_features(estimator, fresh))
    assert_close(make().fit_transform(X3), features)


@pytest.mark.parametrize("make", CASES)
def test_learned_attributes(make, X3):
    estimator = make().fit(X3)
    M, shape, P = len(X3), X3.shape[1:], estimator.n_components_
    assert estimator.shape_in_ == shape and estimator.n_features_in_ == np.prod(shape)
    assert estimator.n_samples_fit_ == M
    if isinstance(estimator, sompca.PCA):
        assert [u.shape for u in estimator.projections_] == [(np.prod(shape), P)]
    else:
        assert [u.shape for u in estimator.projections_] == [(i, P) for i in shape]
    # The mean is the sample mean, or zeros for the methods that do not centre.
    expected_mean = np.zeros(shape) if isinstance(estimator, UNCENTRED) else X3.mean(axis=0)
    assert_close(estimator.mean_, expected_mean)
    # The ratio is over the total variance of the training data, the trace of its covariance
    # (for every method, also those that do not centre), computed here directly.
    total = ((X3 - X3.mean(axis=0)) ** 2).sum() / (M - 1)
    assert_close(estimator.explained_variance_ratio_, estimator.explained_variance_ / total)
    assert estimator.explained_variance_.shape == estimator.explained_variance_ratio_.shape == (P,)
    # Features sorted by captured variance (CSA: by energy sum_m y_mp^2); order_ is a permutation
    # of the extraction indices.
    key = (estimator.transform(X3) ** 2).sum(axis=0) if isinstance(estimator, sompca.CSA) else estimator.explained_variance_
    assert np.all(np.diff(key) <= 1e-12 * key[0])
    np.testing.assert_array_equal(np.sort(estimator.order_), np.arange(P))
    assert estimator.n_iter_per_component_.shape == (P,) and len(estimator.history_) == P
    # A TVP method's history is the objective at the start and after each sweep (sompca.h); PCA, MPCA and CSA keep
    # none, and their empty arrays are read-only (one array stands for all P of them).
    if isinstance(estimator, (sompca.PCA, sompca.MPCA, sompca.CSA)):
        assert all(h.shape == (0,) and not h.flags.writeable for h in estimator.history_)
    else:
        assert [len(h) for h in estimator.history_] == [n + 1 for n in estimator.n_iter_per_component_]
    # n_iter_ is one int, as scikit-learn's check_transformer_n_iter wants: the most sweeps of any EMP.
    assert type(estimator.n_iter_) is int and estimator.n_iter_ == estimator.n_iter_per_component_.max()


@pytest.mark.parametrize("make", CASES)
def test_variance_is_sample_variance_of_training_features(make, X3):
    # explained_variance_[p] is the sample variance of training feature p (for TROD and CSA too,
    # whose projections are fitted to uncentred data).
    estimator = make().fit(X3)
    assert_close(estimator.explained_variance_, estimator.transform(X3).var(axis=0, ddof=1))


def test_sompca_semi_orthogonal_and_relaxed_start(X3):
    estimator = sompca.SOMPCA(n_components=5).fit(X3)
    # nu = argmax_n I_n (eq. 9): mode 0 (I = 5), 0-based.
    assert estimator.mode_ == 0
    # Orthonormal columns in mode nu (Sec. 3), unit vectors in every mode.
    u_nu = estimator.projections_[0]
    assert_close(u_nu.T @ u_nu, np.eye(5))
    for u in estimator.projections_:
        assert_close(np.linalg.norm(u, axis=0), np.ones(5))
    # Relaxed start (Sec. 3.3): the first EMP extracted is uniform, +-1/sqrt(I_n) in every entry,
    # and is fixed, so it ran no sweeps.
    first = int(np.flatnonzero(estimator.order_ == 0)[0])
    for u, i in zip(estimator.projections_, X3.shape[1:]):
        assert_close(np.abs(u[:, first]), np.full(i, 1 / np.sqrt(i)))
    assert estimator.n_iter_per_component_[first] == 0


def test_fompca_orthogonal_in_every_mode(X3):
    estimator = sompca.FOMPCA(n_components=3).fit(X3)
    for u in estimator.projections_:
        assert_close(u.T @ u, np.eye(3))
    assert estimator.mode_ is None


def test_umpca_features_uncorrelated(X3):
    features = sompca.UMPCA(n_components=3).fit_transform(X3)
    correlation = np.corrcoef(features, rowvar=False)
    assert_close(correlation, np.eye(3), tol=1e-8)


def test_mode_parameter_is_0_based(X3):
    estimator = sompca.SOMPCA(n_components=3, mode=2).fit(X3)
    assert estimator.mode_ == 2
    u = estimator.projections_[2]  # I_3 = 3: orthonormal in that mode
    assert_close(u.T @ u, np.eye(3))


def test_extraction_order_and_history(X3):
    estimator = sompca.SOMPCA(n_components=4, sort_features=False, max_iter=5).fit(X3)
    np.testing.assert_array_equal(estimator.order_, np.arange(4))
    assert np.all(estimator.n_iter_per_component_ <= 5) and estimator.n_iter_ <= 5
    for history, sweeps in zip(estimator.history_, estimator.n_iter_per_component_):
        # The objective at the start and after each sweep; a sweep never lowers the scatter.
        assert len(history) == sweeps + 1
        assert np.all(np.diff(history) >= -1e-9 * history[-1])
    # Without sorting, the same features as the sorted fit, permuted by order_.
    sorted_fit = sompca.SOMPCA(n_components=4, max_iter=5).fit(X3)
    for u_sorted, u_extracted in zip(sorted_fit.projections_, estimator.projections_):
        assert_close(u_sorted, u_extracted[:, sorted_fit.order_])


def test_parameters_are_not_mutated(X3):
    estimator = sompca.SOMPCA()
    before = estimator.get_params()
    estimator.fit(X3)
    assert estimator.get_params() == before
    assert estimator.n_components_ == 5  # the default: I_nu


def test_refit_replaces_the_model(X2, X3):
    estimator = sompca.SOMPCA(n_components=3).fit(X3)
    estimator.fit(X2)
    assert estimator.shape_in_ == X2.shape[1:]
    assert_close(estimator.transform(X2), numpy_features(estimator, X2))


def test_save_load_round_trip(tmp_path, X3):
    for estimator in (sompca.SOMPCA(n_components=4, mode=1), sompca.TROD(n_components=2), sompca.PCA(3)):
        estimator.fit(X3)
        path = tmp_path / f"{type(estimator).__name__}.h5"
        estimator.save(path)
        loaded = sompca.load(str(path))
        assert type(loaded) is type(estimator)
        assert loaded.get_params()["n_components"] == estimator.n_components_
        assert_same_model(loaded, estimator, tol=0)  # the file stores float64: exact
        for name in ("explained_variance_ratio_", "n_iter_", "n_iter_per_component_", "mode_", "n_samples_fit_"):
            np.testing.assert_array_equal(getattr(loaded, name), getattr(estimator, name))
        for a, b in zip(loaded.history_, estimator.history_):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(loaded.transform(X3), estimator.transform(X3))
    assert sompca.load(tmp_path / "SOMPCA.h5").mode == 1


def test_pickle_and_deepcopy(X3):
    estimator = sompca.SOMPCA(n_components=3).fit(X3)
    for other in (pickle.loads(pickle.dumps(estimator)), copy.deepcopy(estimator)):
        assert_same_model(other, estimator, tol=0)
        np.testing.assert_array_equal(other.transform(X3), estimator.transform(X3))
    del estimator  # the copies own their model: still usable
    assert other.transform(X3).shape == (30, 3)


def test_version_matches_library():
    assert sompca.__version__ == sompca.library_version()


@pytest.mark.parametrize("copies", [2, 14], ids=["M<=D", "M>D"])
def test_pca_on_rank_deficient_samples(copies):
    """Five samples of 8 x 8 repeated: rank 4 after centring, fewer or more samples than the 64 values.

    Expected, from numpy's SVD of the centred matrix: the first 4 variances
    s_j^2 / (M - 1) and directions (up to sign); every further component has
    zero variance (to rounding) and all P are orthonormal, as scikit-learn's.
    """
    Y = np.random.default_rng(39).normal(size=(5, 8, 8))
    X = np.concatenate([Y] * copies)
    M = len(X)
    Xc = (X - X.mean(axis=0)).reshape(M, -1)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    with pytest.warns(UserWarning, match=r"the samples have rank 4: components 5 to \d+"):
        estimator = sompca.PCA().fit(X)
    P = min(M - 1, 64)
    W = estimator.projections_[0]
    assert W.shape == (64, P)
    assert_close(W.T @ W, np.eye(P), tol=1e-12)
    variance = estimator.explained_variance_
    np.testing.assert_allclose(variance[:4], s[:4] ** 2 / (M - 1), rtol=1e-10)
    assert np.all(np.abs(variance[4:]) <= 1e-12 * variance[0])
    for j in range(4):
        assert_close(abs(W[:, j] @ Vt[j]), 1.0, tol=1e-10)
    # The zero-variance directions really carry none of the samples.
    assert np.var(Xc @ W[:, 4:], axis=0).max() <= 1e-12 * variance[0]
