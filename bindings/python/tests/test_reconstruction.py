"""inverse_transform: the least-squares reconstruction of samples from their features."""

import numpy as np
import pytest

import sompca
from helpers import assert_close

# Every method; the non-orthogonal ones (TROD, UMPCA) exercise the (A^T A)^+ path.
MAKERS = [
    pytest.param(lambda: sompca.SOMPCA(n_components=4), id="so-mpca-rs"),
    pytest.param(lambda: sompca.SOMPCA(n_components=3, relaxed_start=False, mode=1), id="so-mpca-mode1"),
    pytest.param(lambda: sompca.FOMPCA(n_components=3), id="fo-mpca-rs"),
    pytest.param(lambda: sompca.TROD(n_components=5), id="trod"),
    pytest.param(lambda: sompca.UMPCA(n_components=3), id="umpca"),
    pytest.param(lambda: sompca.PCA(n_components=6), id="pca"),
    pytest.param(lambda: sompca.MPCA(n_components=7), id="mpca"),
    pytest.param(lambda: sompca.CSA(q=0.9), id="csa"),
]


def projection_matrix(estimator):
    """A (prod I_n, P), built independently of the package: column p = vec(u_1p o ... o u_Np), C order."""
    if isinstance(estimator, sompca.PCA):
        return estimator.projections_[0]
    columns = []
    for p in range(estimator.n_components_):
        outer = np.ones(())
        for u in estimator.projections_:
            outer = np.multiply.outer(outer, u[:, p])
        columns.append(outer.ravel())
    return np.stack(columns, axis=1)


@pytest.mark.parametrize("make", MAKERS)
def test_features_are_a_times_centred_samples(make, X3):
    # The premise of the reconstruction: transform is A^T vec(x - mean_) for every method.
    estimator = make().fit(X3)
    A = projection_matrix(estimator)
    centred = (X3 - estimator.mean_).reshape(len(X3), -1)
    assert_close(estimator.transform(X3), centred @ A)


@pytest.mark.parametrize("make", MAKERS)
def test_identity_on_the_span(make, X3):
    # A sample whose centred part lies in the span of A's columns is reconstructed exactly
    # (A has full column rank here: its P <= 7 columns are rank-one tensors of distinct vectors).
    estimator = make().fit(X3)
    A = projection_matrix(estimator)
    coefficients = np.random.default_rng(5).normal(size=(10, A.shape[1]))
    X = estimator.mean_ + (coefficients @ A.T).reshape((10,) + X3.shape[1:])
    reconstructed = estimator.inverse_transform(estimator.transform(X))
    assert reconstructed.shape == X.shape and reconstructed.dtype == np.float64
    assert_close(reconstructed, X, tol=1e-9)


@pytest.mark.parametrize("make", MAKERS)
def test_against_numpy_lstsq(make, X3):
    # Arbitrary feature vectors (not only those of samples): the minimum-norm least-squares
    # solution of A^T vec(x - mean_) = z, from numpy's lstsq.
    estimator = make().fit(X3)
    A = projection_matrix(estimator)
    Z = np.random.default_rng(6).normal(size=(8, A.shape[1])) * 3
    expected = estimator.mean_.ravel() + np.linalg.lstsq(A.T, Z.T, rcond=None)[0].T
    assert_close(estimator.inverse_transform(Z).reshape(8, -1), expected, tol=1e-9)


@pytest.mark.parametrize("make", MAKERS)
def test_reconstruction_is_the_projection_onto_the_span(make, X3):
    # For training samples the residual x - x_hat is orthogonal to A's columns (the normal
    # equations of least squares), so the features of the reconstruction are the features.
    estimator = make().fit(X3)
    reconstructed = estimator.inverse_transform(estimator.transform(X3))
    residual = (X3 - reconstructed).reshape(len(X3), -1)
    assert_close(residual @ projection_matrix(estimator), np.zeros((len(X3), estimator.n_components_)), tol=1e-9)
    assert_close(estimator.transform(reconstructed), estimator.transform(X3), tol=1e-9)


def test_orthonormal_methods_reconstruct_with_a_itself(X3):
    # PCA's, MPCA's and SO-MPCA's projections are orthonormal (A^T A = I), so pinv(A^T) = A.
    for estimator in (sompca.PCA(n_components=5), sompca.MPCA(n_components=6), sompca.SOMPCA(n_components=4)):
        estimator.fit(X3)
        A = projection_matrix(estimator)
        assert_close(A.T @ A, np.eye(A.shape[1]))
        Z = estimator.transform(X3)
        assert_close(estimator.inverse_transform(Z).reshape(len(X3), -1), estimator.mean_.ravel() + Z @ A.T)


def test_more_pca_components_reconstruct_better(X3):
    # PCA with every component (P = M - 1 = 29 >= rank of the centred data) reconstructs the
    # training samples exactly; fewer components leave an error that shrinks as P grows.
    errors = []
    for p in (2, 5, 10, 29):
        estimator = sompca.PCA(n_components=p).fit(X3)
        errors.append(np.linalg.norm(estimator.inverse_transform(estimator.transform(X3)) - X3))
    assert all(a > b for a, b in zip(errors, errors[1:]))
    assert errors[-1] < 1e-9 * np.linalg.norm(X3)


def test_inverse_transform_checks_its_input(X3):
    estimator = sompca.SOMPCA(n_components=3)
    with pytest.raises(sompca.NotFittedError):
        estimator.inverse_transform(np.zeros((2, 3)))
    estimator.fit(X3)
    with pytest.raises(ValueError, match="X has 4 features, but SOMPCA is expecting 3 features"):
        estimator.inverse_transform(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="NaN"):
        estimator.inverse_transform(np.full((2, 3), np.nan))
    with pytest.raises(ValueError, match="Expected 2D array"):
        estimator.inverse_transform(np.zeros(3))
    # Features of any real dtype, in a list too.
    Z = estimator.transform(X3[:2])
    assert_close(estimator.inverse_transform(Z.tolist()), estimator.inverse_transform(Z))

