"""scikit-learn integration: clone, get_params/set_params, Pipeline, grid search."""

import numpy as np
import pytest

import sompca

sklearn = pytest.importorskip("sklearn")  # installed by `make deps`; a skip is reported, never a pass
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import GridSearchCV, train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

ALL = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]


@pytest.fixture(scope="module")
def digits():
    data = load_digits()  # bundled with scikit-learn: 1797 images of 8 x 8
    images = data.images.astype(np.uint8)  # values 0..16
    return train_test_split(images, data.target, test_size=0.3, random_state=0, stratify=data.target)


@pytest.mark.parametrize("cls", ALL)
def test_clone_and_params(cls, X3):
    estimator = cls(n_components=2)
    params = estimator.get_params()
    assert params["n_components"] == 2 and "n_jobs" in params
    twin = clone(estimator)
    assert twin is not estimator and twin.get_params() == params
    estimator.fit(X3)
    unfitted = clone(estimator)  # clone drops the learned state
    assert not hasattr(unfitted, "projections_")
    assert estimator.set_params(n_components=1) is estimator and estimator.n_components == 1
    with pytest.raises(ValueError):
        estimator.set_params(no_such_param=3)


def test_pipeline_with_nearest_neighbours(digits):
    X_train, X_test, y_train, y_test = digits
    pipeline = Pipeline([("features", sompca.SOMPCA(n_components=8)), ("knn", KNeighborsClassifier(1))])
    predicted = pipeline.fit(X_train, y_train).predict(X_test)
    # The pipeline is the two steps by hand: features, then 1-NN on them.
    features = sompca.SOMPCA(n_components=8).fit(X_train)
    knn = KNeighborsClassifier(1).fit(features.transform(X_train), y_train)
    np.testing.assert_array_equal(predicted, knn.predict(features.transform(X_test)))
    # Eight multilinear features separate the digits far above chance (0.1): 1-NN on SO-MPCA-RS
    # features scores 0.81 on this split (measured; plain PCA with 8 features: 0.96).
    assert np.mean(predicted == y_test) > 0.7


def test_grid_search_clones_and_sets_params(digits):
    X_train, _, y_train, _ = digits
    search = GridSearchCV(Pipeline([("features", sompca.PCA()), ("knn", KNeighborsClassifier(1))]),
                          {"features__n_components": [2, 6]}, cv=3)
    search.fit(X_train, y_train)
    # More principal components keep more of each digit, so the search picks 6.
    assert search.best_params_ == {"features__n_components": 6}
