"""Pictures of the paper's experiments (Shi and Lu, IJCAI 2015, Sec. 4).

Each function takes fitted sompca estimators or protocol results and returns
a matplotlib Figure; the caller saves it (``paper_protocol.py`` writes PNG
files atomically). The non-interactive Agg backend is used, so no display
is needed.
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)
import numpy as np  # noqa: E402

# One fixed style per method, so a method looks the same in every picture;
# the paper's proposed method is drawn thicker.
_STYLES = {
    "PCA": ("tab:blue", "o"),
    "CSA": ("tab:olive", "v"),
    "MPCA": ("tab:cyan", "^"),
    "TROD": ("tab:brown", "<"),
    "UMPCA": ("tab:green", "s"),
    "FO-MPCA": ("tab:purple", "x"),
    "SO-MPCA": ("tab:orange", "D"),
    "SO-MPCA-RS": ("tab:red", "*"),
    "TROD-RS": ("tab:pink", ">"),
    "UMPCA-RS": ("tab:gray", "P"),
    # Beyond the paper: SO-MPCA-RS over every mode, feature- and score-level fusion (dashed, in SO-MPCA-RS's red).
    "SO-MPCA-RS-FF": ("darkred", "h"),
    "SO-MPCA-RS-SF": ("salmon", "p"),
}


def _style(name):
    color, marker = _STYLES.get(name, ("black", "."))
    return {"color": color, "marker": marker, "markersize": 4,
            "linewidth": 2.2 if name == "SO-MPCA-RS" else 1.2,
            "linestyle": "--" if name.endswith(("-FF", "-SF")) else "-", "label": name}


def extraction_order_variance(estimator):
    """Captured variance of each feature in the order the EMPs were found.

    Parameters
    ----------
    estimator : fitted sompca estimator
        Its ``explained_variance_`` is in feature order and ``order_`` maps
        each feature to its extraction index (absent: the identity).

    Returns
    -------
    numpy.ndarray, shape (n_components_,)
    """
    variance = np.asarray(estimator.explained_variance_, dtype=np.float64)
    order = np.asarray(getattr(estimator, "order_", np.arange(len(variance))))
    unsorted = np.empty_like(variance)
    unsorted[order] = variance
    return unsorted


def variance_figure(fitted, L):
    """The paper's Fig. 2: captured variance per feature, sorted and unsorted.

    Parameters
    ----------
    fitted : dict
        Method name -> fitted estimator (PCA, UMPCA, FO-MPCA, SO-MPCA,
        SO-MPCA-RS in the paper).
    L : int
        Training samples per class, for the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for name, est in fitted.items():
        sorted_variance = np.sort(np.asarray(est.explained_variance_, dtype=np.float64))[::-1]
        p = np.arange(1, len(sorted_variance) + 1)
        axes[0].plot(p, sorted_variance, **_style(name))
        axes[1].plot(p, extraction_order_variance(est), **_style(name))
    axes[0].set_title("(a) sorted variance")
    axes[1].set_title("(b) unsorted variance (extraction order)")
    for ax in axes:
        ax.set_xlabel("feature p")
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("captured variance")
    axes[1].legend(fontsize=8)
    fig.suptitle(f"Captured variance per feature, L = {L} training samples per class")
    fig.tight_layout()
    return fig


def convergence_figure(estimator, emps, L):
    """The paper's Fig. 3: the objective over the sweeps of some EMPs.

    Parameters
    ----------
    estimator : fitted sompca estimator (SO-MPCA-RS in the paper)
        ``history_[j]`` is feature j's objective at the start and after
        each sweep (the curve shows sweeps 1, 2, ...); ``order_[j]`` is
        its extraction index.
    emps : sequence of int
        The EMPs to show, 1-based extraction indices p as in the paper.
    L : int
        Training samples per class, for the title.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If an EMP was not extracted.
    """
    order = list(np.asarray(estimator.order_))
    fig, axes = plt.subplots(1, len(emps), figsize=(4.5 * len(emps), 3.6), squeeze=False)
    for ax, p in zip(axes[0], emps):
        if p - 1 not in order:
            raise ValueError(f"EMP p = {p} was not extracted ({len(order)} features)")
        if len(estimator.history_[order.index(p - 1)]) < 2:
            raise ValueError(f"EMP p = {p} has no sweeps to show (the fixed first EMP of relaxed start has none)")
        history = np.asarray(estimator.history_[order.index(p - 1)], dtype=np.float64)
        # history[0] is the objective at the start vectors, which for
        # p >= 2 need not meet the orthogonality constraint (the first sweep
        # projects them onto it), so the curve starts after sweep 1, as the
        # paper's Fig. 3 does.
        ax.plot(np.arange(1, len(history)), history[1:], marker="o", markersize=3, color="tab:red")
        ax.set_title(f"p = {p}")
        ax.set_xlabel("number of iterations")
        ax.set_ylabel("captured scatter $S_p$")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"SO-MPCA-RS convergence, L = {L} training samples per class")
    fig.tight_layout()
    return fig


def rates_figure(rates, methods, Ls, Ps):
    """Recognition rate against the number of features P, one panel per L.

    Parameters
    ----------
    rates : dict
        (method, L, P) -> array of rates over the splits, NaN where the
        method gave too few features (as returned by
        ``paper_protocol.run_splits``).
    methods : sequence of str
    Ls, Ps : sequence of int

    Returns
    -------
    matplotlib.figure.Figure
    """
    cols = min(4, len(Ls))
    rows = math.ceil(len(Ls) / cols)
    # The legend goes below the panels: one row of entries when four panels
    # give the width, else rows of five; reserve its height in inches.
    legend_cols = min(len(methods), 9 if cols == 4 else 5)
    legend_height = 0.2 + 0.22 * math.ceil(len(methods) / legend_cols)
    height = 3.2 * rows + 0.5 + legend_height
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, height), squeeze=False, sharey=True)
    for ax, L in zip(axes.flat, Ls):
        for m in methods:
            # NaN means too few features: the line stops there.
            means = [np.mean(rates[m, L, P]) for P in Ps]
            ax.plot(Ps, means, **_style(m))
        ax.set_title(f"L = {L}")
        ax.set_xlabel("number of features P")
        ax.set_xticks(list(Ps))
        ax.grid(True, alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("recognition rate (%)")
    for ax in list(axes.flat)[len(Ls):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=legend_cols, fontsize=8)
    fig.suptitle("1-NN recognition rate, mean over the random splits")
    fig.tight_layout(rect=(0, legend_height / height, 1, 1))
    return fig
