"""Issue 35, items 1-4: components_, score, n_components as a variance fraction, float32 out; fit(progress=...)."""

import numpy as np
import pytest

import sompca
from helpers import make_samples

TVP = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA]
ALL = TVP + [sompca.PCA, sompca.MPCA, sompca.CSA]
SHAPES = [(24, 7), (24, 5, 4), (24, 4, 3, 3), (24, 3, 3, 2, 2)]  # sample orders 1 to 4


def relative_error(actual, expected):
    return float(np.abs(actual - expected).max() / np.abs(expected).max())


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"order{len(s) - 1}")
@pytest.mark.parametrize("cls", ALL)
def test_components_reproduce_transform(cls, shape):
    X = make_samples(shape, seed=len(shape))
    model = cls(n_components=2).fit(X)
    flat = (X - model.mean_).reshape(len(X), -1)
    features = model.transform(X)
    assert model.components_.shape == (2, int(np.prod(shape[1:])))
    # The definition: feature p = <x - mean, projection p> (Shi and Lu eqs. 1-2).
    assert relative_error(flat @ model.components_.T, features) < 1e-12
    for p in range(2):
        tensor = model.component_tensor(p)
        assert tensor.shape == shape[1:]
        assert relative_error(np.tensordot(X - model.mean_, tensor, axes=len(shape) - 1), features[:, p]) < 1e-12
        # The EMP's vectors: unit norm each (every method normalises its projection vectors).
        vectors = model.emp(p)
        assert len(vectors) == (1 if cls is sompca.PCA else len(shape) - 1)
        np.testing.assert_allclose([np.linalg.norm(v) for v in vectors], 1.0, atol=1e-12)


def test_components_before_fit_is_not_fitted():
    with pytest.raises(sompca.NotFittedError):
        sompca.SOMPCA().components_
    assert not hasattr(sompca.SOMPCA(), "components_")


def test_emp_index_out_of_range_names_the_count(X2):
    model = sompca.SOMPCA(n_components=3).fit(X2)
    with pytest.raises(IndexError, match="3 features"):
        model.emp(3)


@pytest.mark.parametrize("cls", [sompca.MPCA, sompca.CSA])
def test_factor_matrices(cls, X3):
    model = cls().fit(X3)
    assert [u.shape for u in model.factors_] == [(i, r) for i, r in zip(X3.shape[1:], model.ranks_)]
    for u in model.factors_:  # MPCA's and CSA's factors are orthonormal eigenvectors
        np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=1e-10)
    # Each feature is one entry of the projected tensor (X - mean) x_1 U_1^T x_2 U_2^T x_3 U_3^T.
    core = np.einsum("mabc,ai,bj,ck->mijk", X3 - model.mean_, *model.factors_)
    i, j, k = model.feature_index_.T
    assert relative_error(core[:, i, j, k], model.transform(X3)) < 1e-12


def test_factor_matrices_of_a_prefix(X3):
    """With fewer features than entries, the factors hold the columns the kept features use."""
    model = sompca.MPCA(n_components=3).fit(X3)
    core = np.einsum("mabc,ai,bj,ck->mijk", X3 - model.mean_, *model.factors_)
    i, j, k = model.feature_index_.T
    assert relative_error(core[:, i, j, k], model.transform(X3)) < 1e-12
    assert all(u.shape[1] <= r for u, r in zip(model.factors_, model.ranks_))


# score ------------------------------------------------------------------


def test_score_samples_is_minus_the_squared_reconstruction_error(X2):
    model = sompca.SOMPCA(n_components=3).fit(X2)
    centred = (X2 - model.mean_).reshape(len(X2), -1)
    features = model.transform(X2)
    # SO-MPCA's projections are orthonormal (unit vectors, orthogonal in mode nu), so by Pythagoras the
    # squared error is ||x - mean||^2 - ||z||^2.
    expected = -(np.sum(centred**2, axis=1) - np.sum(features**2, axis=1))
    scores = model.score_samples(X2)
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-9 * np.abs(expected).max())
    assert model.score(X2) == pytest.approx(np.mean(expected), rel=1e-9)


def test_grid_search_over_n_components_needs_no_scorer(X2):
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(sompca.SOMPCA(), {"n_components": [2, 4]}, cv=3).fit(X2)
    # Orthonormal projections: 4 features span the 2 extracted first, so they lose less of every sample.
    assert search.best_params_ == {"n_components": 4}
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


# n_components as a fraction ----------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_fraction_keeps_the_prefix_that_reaches_it(cls, X2):
    full = cls().fit(X2)
    total = np.cumsum(full.explained_variance_ratio_)
    assert len(total) >= 3
    # Halfway between the shares of the first 2 and first 3 features: exactly 3 reach it.
    fraction = (total[1] + total[2]) / 2
    model = cls(n_components=fraction).fit(X2)
    assert model.n_components == fraction and model.n_components_ == 3
    features = model.transform(X2)
    assert features.shape == (len(X2), 3)
    np.testing.assert_array_equal(features, full.transform(X2)[:, :3])  # the same fit, its first 3 features
    np.testing.assert_array_equal(model.explained_variance_ratio_, full.explained_variance_ratio_[:3])
    assert [u.shape[1] for u in model.projections_] == [3] * len(model.projections_)
    assert model.components_.shape[0] == 3
    assert model.inverse_transform(features).shape == X2.shape
    # A share met exactly by the first 2 keeps 2 (at least the fraction).
    assert cls(n_components=float(total[1])).fit(X2).n_components_ == 2


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -0.5, float("nan")])
def test_fraction_out_of_range(value, X2):
    with pytest.raises(ValueError, match=r"n_components must be None, an integer >= 1 or a fraction .* in \(0, 1\)"):
        sompca.SOMPCA(n_components=value).fit(X2)


# float32 ----------------------------------------------------------------


@pytest.mark.parametrize("cls", [sompca.SOMPCA, sompca.PCA, sompca.MPCA])
def test_float32_in_float32_out(cls, X2):
    X32 = X2.astype(np.float32)
    model = cls(n_components=3).fit(X32)
    features = model.transform(X32)
    assert features.dtype == np.float32 and model.fit_transform(X32).dtype == np.float32
    # Computed in float64 from the float32 samples, rounded at the end: the float64 features of the
    # same (widened) samples, to float32 rounding.
    wide = model.transform(X32.astype(np.float64))
    assert wide.dtype == np.float64
    np.testing.assert_array_equal(features, wide.astype(np.float32))
    assert model.inverse_transform(features).dtype == np.float32
    assert model.inverse_transform(wide).dtype == np.float64


def test_float32_from_hdf5_and_dask(h5file, X2):
    import dask.array as da

    model = sompca.SOMPCA(n_components=3).fit(X2)
    assert model.transform(f"{h5file}:/data/X32").dtype == np.float32
    assert model.transform(f"{h5file}:/data/X").dtype == np.float64
    X32 = da.from_array(X2.astype(np.float32), chunks=(20, 8, 6))
    assert model.transform(X32).dtype == np.float32 and model.transform(X32).compute().dtype == np.float32


# progress ---------------------------------------------------------------


def test_fit_progress_callback(X2):
    calls = []
    model = sompca.SOMPCA(n_components=3).fit(X2, progress=lambda *args: calls.append(args))
    # One call per EMP: (EMPs found, EMPs wanted, variance of the EMP just found).
    assert [(done, total) for done, total, _ in calls] == [(1, 3), (2, 3), (3, 3)]
    found = sorted((v for _, _, v in calls), reverse=True)
    np.testing.assert_allclose(found, np.sort(model.explained_variance_)[::-1], rtol=1e-9)


def test_fit_progress_exception_stops_the_fit(X2):
    def stop(done, total, variance):
        raise LookupError("stop here")

    model = sompca.SOMPCA(n_components=3)
    with pytest.raises(LookupError, match="stop here"):
        model.fit(X2, progress=stop)
    assert not hasattr(model, "n_components_")
    with pytest.raises(TypeError, match="progress must be a callable"):
        model.fit(X2, progress=3)
