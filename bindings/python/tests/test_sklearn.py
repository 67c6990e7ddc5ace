"""scikit-learn integration: its check_estimator, clone, get_params/set_params, Pipeline, grid search."""

import numpy as np
import pytest

import sompca

sklearn = pytest.importorskip("sklearn")  # installed by `make deps`; a skip is reported, never a pass
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import GridSearchCV, train_test_split  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

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


# scikit-learn's own conformance suite, every check for every estimator. Its array-API check
# runs (for the numpy namespace, the only one sompca takes) only with SCIPY_ARRAY_API=1.
@parametrize_with_checks([cls() for cls in ALL])
def test_check_estimator(estimator, check, monkeypatch):
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


@pytest.mark.parametrize("cls", ALL)
def test_sample_shape_in_a_pipeline_after_a_2d_step(cls, X3):
    # A 2-D step (StandardScaler) hands sompca rows of prod I_n entries; sample_shape views them
    # as tensors, so the pipeline equals the two steps by hand with an explicit reshape.
    rows = X3.reshape(len(X3), -1)
    pipeline = make_pipeline(StandardScaler(), cls(n_components=2, sample_shape=X3.shape[1:]))
    features = pipeline.fit_transform(rows)
    scaled = StandardScaler().fit_transform(rows).reshape(X3.shape)
    by_hand = cls(n_components=2).fit(scaled)
    np.testing.assert_allclose(features, by_hand.transform(scaled), rtol=0, atol=1e-10 * np.abs(features).max())
    step = pipeline[-1]
    assert step.shape_in_ == X3.shape[1:] and step.n_features_in_ == rows.shape[1]
    # inverse_transform gives rows back, as the scaler's inverse_transform expects.
    assert pipeline.inverse_transform(features).shape == rows.shape


def test_dataframe_feature_names(X2):
    pandas = pytest.importorskip("pandas")  # installed by `make deps`; a skip is reported, never a pass
    rows = X2.reshape(len(X2), -1)
    frame = pandas.DataFrame(rows, columns=[f"x{i}" for i in range(rows.shape[1])])
    estimator = sompca.PCA(n_components=3, sample_shape=X2.shape[1:]).fit(frame)
    np.testing.assert_array_equal(estimator.feature_names_in_, frame.columns)
    with pytest.warns(UserWarning, match="does not have valid feature names"):  # scikit-learn's warning
        np.testing.assert_array_equal(estimator.transform(frame), estimator.transform(rows))
    with pytest.raises(ValueError, match="unseen at fit time"):
        estimator.transform(frame.rename(columns={"x0": "other"}))
    # A refit on tensors forgets the names.
    assert not hasattr(estimator.fit(X2), "feature_names_in_")
    # set_output gives a DataFrame named by get_feature_names_out.
    out = sompca.PCA(n_components=2).set_output(transform="pandas").fit(X2).transform(X2)
    assert list(out.columns) == ["pca0", "pca1"]
