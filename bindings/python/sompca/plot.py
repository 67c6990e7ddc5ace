"""Figures of a fitted estimator, drawn with matplotlib (imported when a function is called).

=================  ==========================================================
emp_images         each feature's projection: an image for samples of order
                   2, its N mode vectors for other orders
captured_variance  the share of the training variance of each feature, and
                   their running sum
convergence        the objective after each sweep, one line per feature
=================  ==========================================================

Each function draws into a new figure (or the given one) and returns it.

Examples
--------
>>> import numpy as np, sompca, sompca.plot
>>> model = sompca.SOMPCA(n_components=4).fit(np.random.default_rng(0).normal(size=(30, 8, 6)))
>>> sompca.plot.emp_images(model).axes[0].get_title()
'feature 0'
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np


def _figure(figure):
    if figure is not None:
        return figure
    import matplotlib.pyplot as plt

    return plt.figure()


def emp_images(model: Any, features: Optional[Sequence[int]] = None, figure: Any = None, cmap: str = "RdBu_r") -> Any:
    """Each feature's projection, one panel a feature (the first 16 by default).

    For samples of order 2 the panel is the image of ``component_tensor(p)``
    (I_1 rows, I_2 columns), on a colour scale symmetric about 0; for
    other orders it plots the feature's N mode vectors (``emp(p)``), one
    line a mode.

    Parameters
    ----------
    model : fitted sompca estimator
    features : sequence of int or None
        The features to show, in model order.
    figure : matplotlib Figure or None
        Drawn into (its axes are added); None makes a new one.
    cmap : str
        Colour map of the images.

    Returns
    -------
    figure : matplotlib Figure
    """
    model._fitted_model()
    if features is None:
        features = range(min(16, model.n_components_))
    features = list(features)
    figure = _figure(figure)
    columns = math.ceil(math.sqrt(len(features)))
    rows = math.ceil(len(features) / columns) if features else 1
    images = len(model.shape_in_) == 2
    for panel, p in enumerate(features):
        axes = figure.add_subplot(rows, columns, panel + 1)
        axes.set_title(f"feature {p}")
        if images:
            tensor = model.component_tensor(p)
            limit = float(np.abs(tensor).max()) or 1.0
            axes.imshow(tensor, cmap=cmap, vmin=-limit, vmax=limit, interpolation="nearest")
            axes.set_xticks([])
            axes.set_yticks([])
        else:
            for n, vector in enumerate(model.emp(p)):
                axes.plot(vector, label=f"mode {n}")
            if panel == 0:
                axes.legend(fontsize="small")
    return figure


def captured_variance(model: Any, figure: Any = None) -> Any:
    """Bars of ``explained_variance_ratio_`` per feature and a line of their running sum.

    Returns
    -------
    figure : matplotlib Figure
        One axes: bars (feature p at x = p) and the cumulative line.
    """
    model._fitted_model()
    figure = _figure(figure)
    axes = figure.add_subplot(1, 1, 1)
    ratio = model.explained_variance_ratio_
    positions = np.arange(len(ratio))
    axes.bar(positions, ratio, label="feature")
    axes.plot(positions, np.cumsum(ratio), marker=".", color="black", label="running sum")
    axes.set_xlabel("feature (model order)")
    axes.set_ylabel("share of the training variance")
    axes.set_ylim(0, max(1.0, float(np.sum(ratio))))
    axes.legend()
    return figure


def convergence(model: Any, figure: Any = None) -> Any:
    """The objective (captured variance) at the start and after each sweep, one line per feature.

    Only the successive-EMP methods (SOMPCA, FOMPCA, TROD, UMPCA) keep a
    history; for the others the axes say so and hold no line.

    Returns
    -------
    figure : matplotlib Figure
        One axes; line p is ``history_[p]`` against the sweep number.
    """
    model._fitted_model()
    figure = _figure(figure)
    axes = figure.add_subplot(1, 1, 1)
    drawn = 0
    for p, history in enumerate(model.history_):
        if len(history):
            axes.plot(np.arange(len(history)), history, marker=".", label=f"feature {p}")
            drawn += 1
    axes.set_xlabel("sweep")
    axes.set_ylabel("objective")
    if drawn == 0:
        axes.set_title(f"{type(model).__name__} keeps no convergence history")
    elif drawn <= 10:
        axes.legend(fontsize="small")
    return figure
