"""sompca.plot draws what the model holds (Agg backend: no display)."""

import numpy as np
import pytest

import sompca

matplotlib = pytest.importorskip("matplotlib")  # installed by `make deps`; a skip is reported, never a pass
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import sompca.plot  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_emp_images_of_order_2_are_the_outer_products(X2):
    model = sompca.SOMPCA(n_components=5).fit(X2)
    figure = sompca.plot.emp_images(model)
    assert len(figure.axes) == 5
    for p, axes in enumerate(figure.axes):
        (image,) = axes.get_images()
        u, v = (projection[:, p] for projection in model.projections_)
        # The EMP's image is the outer product of its mode vectors: entry (i, j) = u_i v_j.
        np.testing.assert_allclose(image.get_array(), np.outer(u, v), rtol=0, atol=1e-15)
        assert image.get_array().shape == (8, 6) and axes.get_title() == f"feature {p}"
        low, high = image.get_clim()
        assert low == -high == -np.abs(np.outer(u, v)).max()  # symmetric about 0


def test_emp_vectors_for_order_3(X3):
    model = sompca.SOMPCA(n_components=3).fit(X3)
    figure = sompca.plot.emp_images(model, features=[2, 0])
    assert len(figure.axes) == 2 and [a.get_title() for a in figure.axes] == ["feature 2", "feature 0"]
    lines = figure.axes[0].get_lines()
    assert len(lines) == 3 and not figure.axes[0].get_images()
    for n, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_ydata(), model.projections_[n][:, 2])


def test_captured_variance_bars_and_running_sum(X2):
    model = sompca.SOMPCA(n_components=4).fit(X2)
    (axes,) = sompca.plot.captured_variance(model).axes
    heights = [bar.get_height() for bar in axes.patches]
    np.testing.assert_array_equal(heights, model.explained_variance_ratio_)
    (line,) = axes.get_lines()
    # The running sum, by hand.
    expected = [sum(model.explained_variance_ratio_[: p + 1]) for p in range(4)]
    np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-15)


def test_convergence_lines_are_the_histories(X2):
    model = sompca.SOMPCA(n_components=3, relaxed_start=False, max_iter=5).fit(X2)
    (axes,) = sompca.plot.convergence(model).axes
    lines = axes.get_lines()
    assert len(lines) == 3
    for line, history in zip(lines, model.history_):
        assert len(history) == 6  # the start and 5 sweeps
        np.testing.assert_array_equal(line.get_ydata(), history)
    (axes,) = sompca.plot.convergence(sompca.PCA(n_components=2).fit(X2)).axes
    assert not axes.get_lines() and "no convergence history" in axes.get_title()


def test_plot_before_fit_is_not_fitted():
    with pytest.raises(sompca.NotFittedError):
        sompca.plot.captured_variance(sompca.SOMPCA())
