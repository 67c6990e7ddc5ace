"""A loaded model carries the parameters it was fitted with (sompca_model_options)."""
import numpy as np
import pytest

import sompca


@pytest.mark.parametrize("estimator", [
    sompca.SOMPCA(n_components=3, mode=1, relaxed_start=False, max_iter=7, tol=1e-6, sort_features=False),
    sompca.UMPCA(n_components=2, relaxed_start=True, max_iter=5),
    sompca.TROD(n_components=4, max_iter=3, sort_features=False),
    sompca.MPCA(q=0.9, max_iter=4, sort_features=False),
    sompca.CSA(n_components=1, q=0.8, max_iter=2),
    sompca.PCA(n_components=3),
])
def test_load_restores_parameters(tmp_path, estimator):
    X = np.random.default_rng(3).normal(size=(25, 5, 4)) + np.arange(20).reshape(5, 4)
    fitted = estimator.fit(X)
    path = tmp_path / "model.h5"
    fitted.save(path)
    loaded = sompca.load(path)
    # Every parameter as it was (the file keeps a Python estimator's parameters: issue 35).
    assert loaded.get_params() == fitted.get_params()
    np.testing.assert_array_equal(loaded.transform(X), fitted.transform(X))
    if isinstance(estimator, (sompca.MPCA, sompca.CSA)):
        assert loaded.ranks_ == fitted.ranks_
        # Every entry of the projected tensor is a feature when P is not given.
        if estimator.n_components is None:
            assert int(np.prod(fitted.ranks_)) == fitted.n_components_
    else:
        assert not hasattr(fitted, "ranks_")
