"""Run the experiment protocols of Shi and Lu (IJCAI 2015, Sec. 4) with sompca.

Two protocols, one subcommand each:

``splits`` (the paper's Table 1, face recognition)
    From a fixed subset of the data (``--per-class`` samples of each class,
    drawn once with ``--seed``), L samples of each class are drawn at random
    as training data and the rest of the subset is the test data; this is
    repeated for ``--splits`` random splits and each L in ``--L``. Each
    method is fitted once per split with the most features it can give,
    features sorted by captured variance; the top P of them feed a
    1-nearest-neighbour classifier (Euclidean distance) for each P in
    ``--P``. The table gives the recognition rate in percent, mean +- std
    over the splits, with '-' where a method cannot give P features.

``gallery`` (the paper's Table 2, gait recognition)
    Each method is fitted on a gallery set and tested on probe sets. A probe
    subject's samples are matched as a sequence to each gallery subject's
    samples: the distance between two sets A and B of feature vectors is
    mean_{a in A} min_{b in B} |a - b| + mean_{b in B} min_{a in A} |a - b|
    (Euclidean). The table gives the rank-1 and rank-5 rates in percent over
    the probe subjects.

Methods (Sec. 4): PCA, CSA, MPCA, TROD, UMPCA, SO-MPCA and SO-MPCA-RS with
nu = 1 (mode 0), TROD-RS and UMPCA-RS, K = 20 sweeps. Beyond the paper
(its Sec. 5 question), two fusions of SO-MPCA-RS over every mode, chosen
with ``--methods``:

``SO-MPCA-RS-FF`` (feature-level fusion)
    ``SOMPCA(mode="all")``: one SO-MPCA-RS fit per mode, the features
    concatenated (the relaxed-start EMP, the same in every mode, once) and
    sorted by captured variance; the top P feed 1-NN.
``SO-MPCA-RS-SF`` (score-level fusion)
    One SO-MPCA-RS fit per mode; for each mode, the distances computed on
    its top P features (1-NN: Euclidean distance from a test sample to each
    training sample; gallery: the set distance from a probe subject to each
    gallery subject) are divided by their mean over the training samples
    (gallery subjects) for that test sample (probe subject), so each mode's
    distances average 1 for every query whatever its scale, and the modes'
    normalised distances are summed; the nearest by that sum wins. '-'
    where a mode gives fewer than P features.

The top two results of each row are marked (bold in Markdown, '*' on the
terminal). The table is printed and written as ``table.md`` and ``table.csv`` under ``--out``; for
``splits`` the pictures of ``plots.py`` are written there too.

Data files are HDF5 with a dataset ``X`` (samples x I_1 x ... x I_N, any
real type) and a dataset ``y`` (one integer label per sample); ``splits``
also uses an optional ``split`` dataset (0 = train, 1 = test, as written by
``fashion_to_hdf5.py``) to draw the subset from the official test images
only (``--pool``). ``gallery`` reads one HDF5 group per set, each with ``X``
and ``y`` (subject labels).

Usage::

    python paper_protocol.py splits build/fashion-mnist.h5 --out build/demo
    python paper_protocol.py splits DATA.h5 --L 1,2,3,4,5,6,7 --splits 10
    python paper_protocol.py gallery GAIT.h5 --gallery gallery --probes A,B,C

The program uses only sompca's public Python API.
"""

import argparse
import csv
import io
import os
import sys
import time

import h5py
import numpy as np

from atomic import atomic_output, write_text

# The methods of the paper's tables, in the paper's column order.
TABLE_METHODS = ("PCA", "CSA", "MPCA", "TROD", "UMPCA", "SO-MPCA", "SO-MPCA-RS", "TROD-RS", "UMPCA-RS")
# Beyond the paper: feature- and score-level fusion of SO-MPCA-RS over every
# mode (see the module docstring), chosen with --methods.
FUSION_METHODS = ("SO-MPCA-RS-FF", "SO-MPCA-RS-SF")
# The methods of the paper's variance study (Fig. 2).
VARIANCE_METHODS = ("PCA", "UMPCA", "FO-MPCA", "SO-MPCA", "SO-MPCA-RS")
# Fashion-MNIST images are 28 x 28, so SO-MPCA with nu = 1 gives I_1 = 28
# features; the paper's face table stops at 80 = I_1 for 80 x 60 faces.
DEFAULT_SPLITS_P = (1, 5, 10, 20, 28)
DEFAULT_GALLERY_P = (5, 10, 20, 32)
RANKS = (1, 5)


def sompca_methods(max_iter=20):
    """Return the paper's methods as sompca estimator factories.

    Parameters
    ----------
    max_iter : int
        Sweeps K per EMP (the paper uses 20).

    Returns
    -------
    dict
        Method name -> function of no arguments returning an unfitted
        estimator that gives as many features as the method can
        (``n_components=None``), sorted by captured variance.
    """
    # Imported here, not at the top, so that the protocol's own logic can be
    # imported and tested where the bindings are not built.
    import sompca

    k = max_iter
    return {
        "PCA": lambda: sompca.PCA(),
        "CSA": lambda: sompca.CSA(max_iter=k),
        "MPCA": lambda: sompca.MPCA(max_iter=k),
        "TROD": lambda: sompca.TROD(relaxed_start=False, max_iter=k),
        "UMPCA": lambda: sompca.UMPCA(relaxed_start=False, max_iter=k),
        "SO-MPCA": lambda: sompca.SOMPCA(mode=0, relaxed_start=False, max_iter=k),
        "SO-MPCA-RS": lambda: sompca.SOMPCA(mode=0, relaxed_start=True, max_iter=k),
        "TROD-RS": lambda: sompca.TROD(relaxed_start=True, max_iter=k),
        "UMPCA-RS": lambda: sompca.UMPCA(relaxed_start=True, max_iter=k),
        "FO-MPCA": lambda: sompca.FOMPCA(relaxed_start=False, max_iter=k),
        "SO-MPCA-RS-FF": lambda: sompca.SOMPCA(mode="all", relaxed_start=True, max_iter=k),
        "SO-MPCA-RS-SF": ScoreFusion(lambda n: sompca.SOMPCA(mode=n, relaxed_start=True, max_iter=k)),
    }


class ScoreFusion:
    """A score-level fusion method: one estimator per mode of the samples.

    Parameters
    ----------
    make_for_mode : callable
        ``make_for_mode(n)`` returns an unfitted estimator for mode n
        (0-based), whose features are sorted by captured variance.
    """

    def __init__(self, make_for_mode):
        self.make_for_mode = make_for_mode


# ---------------------------------------------------------------- data


def load_samples(path, group="/", pool=None):
    """Read samples ``X`` and labels ``y`` from an HDF5 file.

    Parameters
    ----------
    path : str
        The HDF5 file (opened read-only).
    group : str
        The group holding ``X`` and ``y``.
    pool : {None, "train", "test"}
        With a ``split`` dataset present, keep only the official training
        (0) or test (1) samples; None keeps all.

    Returns
    -------
    X : numpy.ndarray, shape (M, I_1, ..., I_N)
    y : numpy.ndarray of int64, shape (M,)

    Raises
    ------
    ValueError
        If a dataset is missing or has the wrong shape or type.
    """
    where = f"{path}:{group.rstrip('/')}" if group not in ("", "/") else path
    try:
        f = h5py.File(path, "r")
    except OSError as err:
        raise ValueError(f"{path}: cannot open as HDF5: {err}") from err
    with f:
        if group not in f:
            raise ValueError(f"{path}: no group {group!r} (groups: {', '.join(sorted(f)) or 'none'})")
        g = f[group]
        for name in ("X", "y"):
            if name not in g or not isinstance(g[name], h5py.Dataset):
                raise ValueError(f"{where}: no dataset {name!r}")
        X, y = g["X"], g["y"]
        if X.ndim < 2:
            raise ValueError(f"{where}/X: shape {X.shape}, want samples x I_1 x ... x I_N (N >= 1)")
        if X.dtype.kind not in "uif":
            raise ValueError(f"{where}/X: type {X.dtype}, want a real number type")
        if y.shape != (X.shape[0],):
            raise ValueError(f"{where}/y: shape {y.shape}, want ({X.shape[0]},): one label per sample of X")
        if y.dtype.kind not in "ui":
            raise ValueError(f"{where}/y: type {y.dtype}, want integer labels")
        keep = slice(None)
        if pool is not None:
            if "split" not in g:
                raise ValueError(f"{where}: --pool {pool} needs a dataset 'split' (0 = train, 1 = test)")
            split = g["split"][()]
            if split.shape != y.shape:
                raise ValueError(f"{where}/split: shape {split.shape}, want {y.shape}")
            keep = np.flatnonzero(split == {"train": 0, "test": 1}[pool])
        X, y = X[()][keep], y[()][keep].astype(np.int64)
    if len(y) == 0:
        raise ValueError(f"{where}: no samples")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{where}/X: contains NaN or infinite values")
    return X, y


def choose_subset(y, per_class, seed):
    """Draw the fixed subset: ``per_class`` random samples of each class.

    Parameters
    ----------
    y : array of int, shape (M,)
    per_class : int
    seed : int

    Returns
    -------
    numpy.ndarray of int
        Sorted indices into ``y``.

    Raises
    ------
    ValueError
        If a class has fewer than ``per_class`` samples.
    """
    rng = np.random.default_rng([seed, 0])
    chosen = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        if len(members) < per_class:
            raise ValueError(f"class {c} has {len(members)} samples, fewer than --per-class {per_class}")
        chosen.append(rng.choice(members, size=per_class, replace=False))
    return np.sort(np.concatenate(chosen))


def split_per_class(y, L, seed, repetition):
    """Draw L training samples of each class at random; the rest is for test.

    The draw depends only on (seed, L, repetition), so every method sees the
    same splits and a split can be reproduced on its own.

    Parameters
    ----------
    y : array of int, shape (M,)
    L : int
        Training samples per class (>= 1).
    seed, repetition : int

    Returns
    -------
    train, test : numpy.ndarray of int
        Disjoint sorted indices into ``y`` covering all of it.

    Raises
    ------
    ValueError
        If a class has L samples or fewer (it would leave none to test).
    """
    if L < 1:
        raise ValueError(f"L = {L}: need at least one training sample per class")
    rng = np.random.default_rng([seed, 1, L, repetition])
    train = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        if len(members) <= L:
            raise ValueError(f"class {c} has {len(members)} samples: too few to train on L = {L} and test on the rest")
        train.append(rng.choice(members, size=L, replace=False))
    train = np.sort(np.concatenate(train))
    test = np.setdiff1d(np.arange(len(y)), train)
    return train, test


# ---------------------------------------------------------------- classifiers


def squared_distances(A, B):
    """Squared Euclidean distances between the rows of A and of B.

    Parameters
    ----------
    A : array, shape (m, P)
    B : array, shape (n, P)

    Returns
    -------
    numpy.ndarray, shape (m, n)
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    d = (A * A).sum(axis=1)[:, None] - 2.0 * (A @ B.T) + (B * B).sum(axis=1)[None, :]
    # Rounding can make a zero distance slightly negative.
    return np.maximum(d, 0.0)


def nearest_neighbour(train_features, train_labels, test_features):
    """Label each test sample by its nearest training sample (Euclidean).

    Ties go to the training sample that comes first.

    Parameters
    ----------
    train_features : array, shape (M, P)
    train_labels : array, shape (M,)
    test_features : array, shape (T, P)

    Returns
    -------
    numpy.ndarray, shape (T,)
        Predicted labels.

    Examples
    --------
    >>> nearest_neighbour([[0.0], [10.0]], [3, 7], [[1.0], [6.0]])
    array([3, 7])
    """
    train_labels = np.asarray(train_labels)
    out = np.empty(len(test_features), dtype=train_labels.dtype)
    # Blocks of test samples keep the distance matrix small.
    for start in range(0, len(test_features), 2048):
        block = test_features[start:start + 2048]
        out[start:start + len(block)] = train_labels[np.argmin(squared_distances(block, train_features), axis=1)]
    return out


def normalised_distances(A, B):
    """Euclidean distances between the rows of A and of B, each row divided
    by its mean (a row of zeros stays zero), so that every row averages 1.

    This is how score-level fusion puts the modes on one scale: for each
    query (row), a mode's distances to all candidates are divided by their
    mean before the modes are summed.

    Parameters
    ----------
    A : array, shape (m, P)
    B : array, shape (n, P)

    Returns
    -------
    numpy.ndarray, shape (m, n)

    Examples
    --------
    >>> normalised_distances([[0.0]], [[1.0], [3.0]])
    array([[0.5, 1.5]])
    """
    return _normalise_rows(np.sqrt(squared_distances(A, B)))


def _normalise_rows(D):
    mean = D.mean(axis=1, keepdims=True)
    return D / np.where(mean > 0, mean, 1.0)


def fused_nearest_neighbour(train_features, train_labels, test_features):
    """Label each test sample by score-level fusion of several feature sets.

    For each feature set (one per mode) the test-to-training Euclidean
    distances are normalised by :func:`normalised_distances`; the label is
    that of the training sample with the smallest sum. Ties go to the
    training sample that comes first.

    Parameters
    ----------
    train_features : list of arrays, shapes (M, P_k)
    train_labels : array, shape (M,)
    test_features : list of arrays, shapes (T, P_k)

    Returns
    -------
    numpy.ndarray, shape (T,)

    Examples
    --------
    >>> fused_nearest_neighbour([[[0.0], [10.0]], [[5.0], [0.0]]], [3, 7], [[[4.0]], [[1.0]]])
    array([7])
    """
    train_labels = np.asarray(train_labels)
    T = len(test_features[0])
    out = np.empty(T, dtype=train_labels.dtype)
    for start in range(0, T, 2048):
        D = sum(normalised_distances(np.asarray(test, dtype=np.float64)[start:start + 2048], train)
                for train, test in zip(train_features, test_features))
        out[start:start + len(D)] = train_labels[np.argmin(D, axis=1)]
    return out


def set_distance(A, B):
    """Distance between two sets of feature vectors, as sequences.

    mean over a in A of min over b in B of |a - b|, plus the same with A and
    B swapped (Euclidean distance), so it is symmetric.

    Parameters
    ----------
    A : array, shape (m, P)
    B : array, shape (n, P)

    Returns
    -------
    float

    Examples
    --------
    >>> set_distance([[0.0], [2.0]], [[1.0]])
    2.0
    """
    D = np.sqrt(squared_distances(A, B))
    return float(D.min(axis=1).mean() + D.min(axis=0).mean())


def subject_ranks(gallery_features, gallery_subjects, probe_features, probe_subjects):
    """Rank of the true gallery subject for each probe subject.

    Each probe subject's samples are compared with each gallery subject's
    samples by :func:`set_distance`; the rank of the true subject is 1 plus
    the number of gallery subjects strictly closer.

    Parameters
    ----------
    gallery_features : array, shape (G, P)
    gallery_subjects : array, shape (G,)
    probe_features : array, shape (Q, P)
    probe_subjects : array, shape (Q,)

    Returns
    -------
    subjects : numpy.ndarray
        The probe subjects, sorted.
    ranks : numpy.ndarray of int
        The rank of each.

    Raises
    ------
    ValueError
        If a probe subject is not in the gallery.
    """
    return fused_subject_ranks([gallery_features], gallery_subjects, [probe_features], probe_subjects,
                               normalise=False)


def fused_subject_ranks(gallery_features, gallery_subjects, probe_features, probe_subjects, normalise=True):
    """:func:`subject_ranks` with score-level fusion of several feature sets.

    For each feature set (one per mode) the set distances from each probe
    subject to every gallery subject are computed and, with ``normalise``,
    divided by their mean over the gallery subjects; the sums over the
    feature sets rank the gallery subjects.

    Parameters
    ----------
    gallery_features : list of arrays, shapes (G, P_k)
    gallery_subjects : array, shape (G,)
    probe_features : list of arrays, shapes (Q, P_k)
    probe_subjects : array, shape (Q,)
    normalise : bool

    Returns
    -------
    subjects, ranks : numpy.ndarray
        As :func:`subject_ranks`.
    """
    gallery_ids = np.unique(gallery_subjects)
    probe_ids = np.unique(probe_subjects)
    missing = np.setdiff1d(probe_ids, gallery_ids)
    if len(missing):
        raise ValueError(f"probe subjects {missing.tolist()} are not in the gallery")
    total = np.zeros((len(probe_ids), len(gallery_ids)))
    for g_features, p_features in zip(gallery_features, probe_features):
        gallery_sets = [g_features[gallery_subjects == g] for g in gallery_ids]
        D = np.array([[set_distance(p_features[probe_subjects == s], g) for g in gallery_sets] for s in probe_ids])
        total += _normalise_rows(D) if normalise else D
    true = total[np.arange(len(probe_ids)), np.searchsorted(gallery_ids, probe_ids)]
    ranks = 1 + np.count_nonzero(total < true[:, None], axis=1)
    return probe_ids, ranks.astype(np.int64)


# ---------------------------------------------------------------- fitting


def fit_features(make_estimator, X_train, X_tests, max_p):
    """Fit one estimator and return the top features of each data set.

    Parameters
    ----------
    make_estimator : callable
        Returns an unfitted estimator whose fitted features are sorted by
        captured variance (sompca's default ``sort_features=True``).
    X_train : array, shape (M, I_1, ..., I_N)
    X_tests : list of arrays
    max_p : int
        Keep at most this many features.

    Returns
    -------
    estimator
        The fitted estimator.
    features : list of numpy.ndarray
        The training features, then those of each array of ``X_tests``,
        each with min(max_p, n_components_) columns.
    """
    if isinstance(make_estimator, ScoreFusion):
        fits = [fit_features(lambda: make_estimator.make_for_mode(n), X_train, X_tests, max_p)
                for n in range(np.ndim(X_train) - 1)]
        return [est for est, _ in fits], [_Modes(f) for f in zip(*(features for _, features in fits))]
    est = make_estimator().fit(X_train)
    p = min(max_p, est.n_components_)
    features = [est.transform(X)[:, :p] for X in [X_train, *X_tests]]
    return est, features


class _Modes(tuple):
    """The features of one data set under a :class:`ScoreFusion` method: one
    array per mode. ``shape[1]`` is the fewest features of any mode and
    ``[:, :P]`` keeps the top P of each, so the protocols treat it as one
    feature array."""

    @property
    def shape(self):
        return (len(self[0]), min(f.shape[1] for f in self))

    def __getitem__(self, key):
        if isinstance(key, tuple):
            return _Modes(f[key] for f in self)
        return tuple.__getitem__(self, key)


def _nearest(train, labels, test):
    if isinstance(train, _Modes):
        return fused_nearest_neighbour(train, labels, test)
    return nearest_neighbour(train, labels, test)


def _ranks(gallery, gallery_subjects, probe, probe_subjects):
    if isinstance(gallery, _Modes):
        return fused_subject_ranks(gallery, gallery_subjects, probe, probe_subjects)
    return subject_ranks(gallery, gallery_subjects, probe, probe_subjects)


def run_protocol(methods, fits, Ps, score, progress=None):
    """The loop both protocols share: fit each method once per training set, score each P.

    Parameters
    ----------
    methods : dict
        Name -> estimator factory (see :func:`sompca_methods`).
    fits : callable
        ``fits()`` yields the fits of a method as (where, key, X_train,
        X_tests), made when needed (one split's arrays at a time):
        ``where`` names the fit in errors (``", L = 2, split 0"``), ``key``
        is passed on to ``score``.
    Ps : sequence of int
        Numbers of features.
    score : callable
        ``score(key, P, train, tests)`` returns a list of (cell, value):
        ``train`` and ``tests`` are the training features and those of each
        array of ``X_tests``, top P columns; both are None when the method
        gave fewer than P features, and then every value is NaN.
    progress : callable, optional
        Called as ``progress(name, seconds)`` after each method.

    Returns
    -------
    dict
        (method, *cell) -> array of the values scored for that cell, in the
        order of ``fits``.
    """
    max_p = max(Ps)
    rates = {}
    for name, make in methods.items():
        start = time.perf_counter()
        for where, key, X_train, X_tests in fits():
            try:
                _, (f_train, *f_tests) = fit_features(make, X_train, X_tests, max_p)
            except Exception as err:
                raise RuntimeError(f"{name}{where}: {err}") from err
            for P in Ps:
                if f_train.shape[1] >= P:
                    cells = score(key, P, f_train[:, :P], [f[:, :P] for f in f_tests])
                else:
                    cells = [(cell, np.nan) for cell, _ in score(key, P, None, None)]
                for cell, value in cells:
                    rates.setdefault((name, *cell), []).append(value)
        if progress is not None:
            progress(name, time.perf_counter() - start)
    return {cell: np.array(values, dtype=np.float64) for cell, values in rates.items()}


def run_splits(X, y, methods, Ls, Ps, n_splits, seed, progress=None):
    """Run the random-split protocol (the paper's Table 1).

    Parameters
    ----------
    X : array, shape (M, I_1, ..., I_N)
        The fixed subset.
    y : array of int, shape (M,)
    methods : dict
        Name -> estimator factory (see :func:`sompca_methods`).
    Ls, Ps : sequence of int
        Training samples per class, and numbers of features.
    n_splits : int
        Random splits per L.
    seed : int
    progress : callable, optional
        Called as ``progress(name, seconds)`` after each method.

    Returns
    -------
    dict
        (method, L, P) -> array of n_splits recognition rates in percent,
        NaN where the method gave fewer than P features.
    """
    splits = {(L, r): split_per_class(y, L, seed, r) for L in Ls for r in range(n_splits)}

    def score(key, P, train, tests):
        L, r = key
        if train is None:
            return [((L, P), None)]
        tr, te = splits[key]
        return [((L, P), 100.0 * np.mean(_nearest(train, y[tr], tests[0]) == y[te]))]

    def fits():
        return ((f", L = {L}, split {r}", (L, r), X[tr], [X[te]]) for (L, r), (tr, te) in splits.items())

    return run_protocol(methods, fits, Ps, score, progress)


def run_gallery(gallery, probes, methods, Ps, ranks=RANKS, progress=None):
    """Run the gallery/probe protocol (the paper's Table 2).

    Parameters
    ----------
    gallery : (X, subjects)
    probes : dict
        Probe name -> (X, subjects).
    methods : dict
        Name -> estimator factory.
    Ps, ranks : sequence of int
    progress : callable, optional
        Called as ``progress(name, seconds)`` after each method.

    Returns
    -------
    dict
        (method, rank, probe, P) -> rank-k rate in percent (a one-element
        array, so the table code treats both protocols alike), NaN where
        the method gave fewer than P features.
    """
    X_gallery, gallery_subjects = gallery
    names = list(probes)

    def score(key, P, f_gallery, f_probes):
        cells = []
        for i, probe in enumerate(names):
            r = None if f_gallery is None else _ranks(f_gallery, gallery_subjects, f_probes[i], probes[probe][1])[1]
            cells += [((k, probe, P), None if r is None else 100.0 * np.mean(r <= k)) for k in ranks]
        return cells

    def fits():
        return [("", None, X_gallery, [probes[n][0] for n in names])]

    return run_protocol(methods, fits, Ps, score, progress)


# ---------------------------------------------------------------- tables


def top_two(values):
    """Mark the top two of a row of results, as the paper's bold.

    A value is marked when it is at least the second largest value of the
    row (counted with multiplicity), so ties for a place are all marked, as
    in the paper's Table 2. Compare the values as they are displayed.

    Parameters
    ----------
    values : sequence of float
        NaN for a missing result, which is never marked.

    Returns
    -------
    list of bool

    Examples
    --------
    >>> top_two([3.0, 9.0, float("nan"), 5.0, 1.0])
    [False, True, False, True, False]
    >>> top_two([24.39, 14.63, 14.63, 9.76])
    [True, True, True, False]
    """
    present = sorted((v for v in values if not np.isnan(v)), reverse=True)
    if not present:
        return [False] * len(values)
    second = present[min(1, len(present) - 1)]
    return [bool(not np.isnan(v) and v >= second) for v in values]


def summarize(rates, row_keys, method_names):
    """Turn per-split rates into table rows of (mean, std) per method.

    Parameters
    ----------
    rates : dict
        (method, *row_key) -> array of rates.
    row_keys : list of tuple
    method_names : sequence of str

    Returns
    -------
    list of (row_key, list of (mean, std) or None)
        None where the method gave no result (too few features). The std is
        the sample standard deviation over the splits (0 for one split).
    """
    rows = []
    for key in row_keys:
        cells = []
        for m in method_names:
            r = rates[(m, *key)]
            if np.isnan(r).any():
                cells.append(None)
            else:
                cells.append((float(r.mean()), float(r.std(ddof=1)) if len(r) > 1 else 0.0))
        rows.append((key, cells))
    return rows


def _marks(cells):
    return top_two([round(c[0], 2) if c else np.nan for c in cells])


def format_markdown(rows, key_names, method_names, show_std=True):
    """The table in Markdown, top two of each row in bold, '-' for missing."""
    out = io.StringIO()
    out.write("| " + " | ".join([*key_names, *method_names]) + " |\n")
    out.write("|" + "---:|" * (len(key_names) + len(method_names)) + "\n")
    for key, cells in rows:
        texts = []
        for cell, marked in zip(cells, _marks(cells)):
            if cell is None:
                texts.append("-")
                continue
            mean = f"**{cell[0]:.2f}**" if marked else f"{cell[0]:.2f}"
            texts.append(f"{mean} ± {cell[1]:.2f}" if show_std else mean)
        out.write("| " + " | ".join([*(str(k) for k in key), *texts]) + " |\n")
    return out.getvalue()


def format_text(rows, key_names, method_names, show_std=True):
    """The table for a terminal: top two of each row marked with '*'."""
    lines = []
    for key, cells in rows:
        texts = []
        for cell, marked in zip(cells, _marks(cells)):
            if cell is None:
                texts.append("-")
            else:
                star = "*" if marked else " "
                texts.append(f"{cell[0]:6.2f}{star}±{cell[1]:5.2f}" if show_std else f"{cell[0]:6.2f}{star}")
        lines.append([*(str(k) for k in key), *texts])
    header = [*key_names, *method_names]
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    return "\n".join("  ".join(t.rjust(w) for t, w in zip(r, widths)) for r in [header, *lines]) + "\n"


def format_csv(rows, key_names, method_names):
    """The table as CSV: key columns, then mean and std per method ('-' if missing)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([*key_names, *(f"{m} {s}" for m in method_names for s in ("mean", "std"))])
    for key, cells in rows:
        values = []
        for cell in cells:
            values += ["-", "-"] if cell is None else [f"{cell[0]:.4f}", f"{cell[1]:.4f}"]
        w.writerow([*key, *values])
    return out.getvalue()


def write_tables(out_dir, rows, key_names, method_names, show_std=True):
    """Write table.md and table.csv under out_dir; return the text table."""
    write_text(os.path.join(out_dir, "table.md"), format_markdown(rows, key_names, method_names, show_std))
    write_text(os.path.join(out_dir, "table.csv"), format_csv(rows, key_names, method_names))
    return format_text(rows, key_names, method_names, show_std)


# ---------------------------------------------------------------- pictures


def save_figure(fig, path):
    """Save a matplotlib figure as PNG atomically."""
    with atomic_output(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")


def write_pictures(out_dir, X, y, methods, table_methods, rates, Ls, Ps, seed):
    """Draw the paper's Fig. 2 and Fig. 3 and the rate-against-P picture.

    The variance and convergence pictures use the first split with the
    smallest L (the paper uses L = 1).

    Parameters
    ----------
    out_dir : str
    X, y : arrays
        The fixed subset, as given to :func:`run_splits`.
    methods : dict
        Name -> estimator factory, including those of the variance study.
    table_methods : list of str
        The methods of ``rates``.
    rates : dict
        As returned by :func:`run_splits`.
    Ls, Ps : sequence of int
    seed : int

    Returns
    -------
    list of str
        The PNG files written.
    """
    import plots

    L = min(Ls)
    train, _ = split_per_class(y, L, seed, 0)
    fitted = {name: methods[name]().fit(X[train]) for name in VARIANCE_METHODS if name in methods}
    paths = []
    if fitted:
        p = os.path.join(out_dir, "variance.png")
        save_figure(plots.variance_figure(fitted, L), p)
        paths.append(p)
    # The paper shows EMPs p = 2 and 5; a model with fewer features shows what it has.
    rs = fitted.get("SO-MPCA-RS")
    emps = [p for p in (2, 5) if rs is not None and p <= rs.n_components_]
    if emps:
        p = os.path.join(out_dir, "convergence.png")
        save_figure(plots.convergence_figure(rs, emps, L), p)
        paths.append(p)
    p = os.path.join(out_dir, "rates.png")
    save_figure(plots.rates_figure(rates, table_methods, Ls, Ps), p)
    paths.append(p)
    return paths


# ---------------------------------------------------------------- command line


def _int_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: want positive integers")
    return sorted(set(values))


def _method_list(text):
    names = [v.strip().upper() for v in text.split(",") if v.strip()]
    known = (*TABLE_METHODS, "FO-MPCA", *FUSION_METHODS)
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown methods {bad}; choose from {', '.join(known)}")
    return names


def _parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="protocol", required=True)

    def common(p, default_p):
        p.add_argument("data", help="HDF5 file")
        p.add_argument("--out", default="build/demo", help="output directory (default build/demo)")
        p.add_argument("--P", type=_int_list, default=list(default_p),
                       help=f"numbers of features (default {','.join(map(str, default_p))})")
        p.add_argument("--methods", type=_method_list, default=list(TABLE_METHODS),
                       help="comma-separated methods (default: the paper's nine; also FO-MPCA and the fusions "
                            "SO-MPCA-RS-FF, SO-MPCA-RS-SF)")
        p.add_argument("--max-iter", type=int, default=20, help="sweeps K per EMP (default 20, as the paper)")

    s = sub.add_parser("splits", help="random splits with L training samples per class (Table 1)")
    common(s, DEFAULT_SPLITS_P)
    s.add_argument("--L", type=_int_list, default=[1, 2, 3, 4, 5, 6, 7],
                   help="training samples per class (default 1,...,7)")
    s.add_argument("--splits", type=int, default=10, help="random splits per L (default 10)")
    s.add_argument("--per-class", type=int, default=100,
                   help="samples per class in the fixed subset (default 100)")
    s.add_argument("--pool", choices=("test", "train", "all"), default="test",
                   help="draw the subset from the official test samples (default), training samples, or all; "
                        "test and train need a 'split' dataset")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument("--no-plots", action="store_true", help="do not draw the pictures")

    g = sub.add_parser("gallery", help="gallery set and probe sets, rank-1 and rank-5 rates (Table 2)")
    common(g, DEFAULT_GALLERY_P)
    g.add_argument("--gallery", default="gallery", help="HDF5 group of the gallery set (default 'gallery')")
    g.add_argument("--probes", default=None,
                   help="comma-separated HDF5 groups of the probe sets (default: every other group)")
    return parser


def _progress(total):
    count = [0]

    def report(name, seconds):
        count[0] += 1
        print(f"[{count[0]}/{total}] {name:<10} done in {seconds:6.1f} s", flush=True)

    return report


def _main_splits(args, methods):
    if args.splits < 1 or args.per_class < 2:
        raise ValueError("--splits must be >= 1 and --per-class >= 2")
    X_all, y_all = load_samples(args.data, pool=None if args.pool == "all" else args.pool)
    subset = choose_subset(y_all, args.per_class, args.seed)
    X, y = np.ascontiguousarray(X_all[subset], dtype=np.float64), y_all[subset]
    del X_all
    classes = len(np.unique(y))
    print(f"data: {args.data}, {len(y)} samples of shape {X.shape[1:]} in {classes} classes "
          f"({args.per_class} per class, pool {args.pool}); L = {args.L}, {args.splits} splits, P = {args.P}",
          flush=True)
    table_methods = {m: methods[m] for m in args.methods}
    rates = run_splits(X, y, table_methods, args.L, args.P, args.splits, args.seed, _progress(len(table_methods)))
    rows = summarize(rates, [(L, P) for L in args.L for P in args.P], list(table_methods))
    text = write_tables(args.out, rows, ("L", "P"), list(table_methods))
    print(f"\nRecognition rate in percent, mean ± std over {args.splits} splits "
          f"(* = top two of the row, - = too few features):\n{text}")
    written = [os.path.join(args.out, f) for f in ("table.md", "table.csv")]
    if not args.no_plots:
        variance_methods = {m: methods[m] for m in VARIANCE_METHODS if m in methods}
        written += write_pictures(args.out, X, y, {**table_methods, **variance_methods}, list(table_methods),
                                  rates, args.L, args.P, args.seed)
    print("wrote " + ", ".join(written))


def _main_gallery(args, methods):
    with h5py.File(args.data, "r") as f:
        groups = sorted(k for k in f if isinstance(f[k], h5py.Group))
    probes = args.probes.split(",") if args.probes else [g for g in groups if g != args.gallery]
    if not probes:
        raise ValueError(f"{args.data}: no probe groups besides the gallery {args.gallery!r}")
    gallery = load_samples(args.data, args.gallery)
    probe_data = {p: load_samples(args.data, p) for p in probes}
    for p, (Xp, _) in probe_data.items():
        if Xp.shape[1:] != gallery[0].shape[1:]:
            raise ValueError(f"{args.data}:{p}/X: sample shape {Xp.shape[1:]} differs from the gallery's "
                             f"{gallery[0].shape[1:]}")
    print(f"data: {args.data}, gallery {len(gallery[1])} samples of shape {gallery[0].shape[1:]}, "
          f"probes {', '.join(f'{p} ({len(d[1])})' for p, d in probe_data.items())}; P = {args.P}", flush=True)
    table_methods = {m: methods[m] for m in args.methods}
    rates = run_gallery(gallery, probe_data, table_methods, args.P, RANKS, _progress(len(table_methods)))
    rows = summarize(rates, [(k, p, P) for k in RANKS for p in probes for P in args.P], list(table_methods))
    text = write_tables(args.out, rows, ("Rank", "Probe", "P"), list(table_methods), show_std=False)
    print(f"\nRank-1 and rank-5 subject recognition rates in percent "
          f"(* = top two of the row, - = too few features):\n{text}")
    print(f"wrote {os.path.join(args.out, 'table.md')}, {os.path.join(args.out, 'table.csv')}")


def main(argv=None, methods=None):
    """Run the program; ``methods`` replaces :func:`sompca_methods` (for tests)."""
    args = _parser().parse_args(argv)
    start = time.perf_counter()
    try:
        if args.max_iter < 1:
            raise ValueError("--max-iter must be >= 1")
        os.makedirs(args.out, exist_ok=True)
        if methods is None:
            methods = sompca_methods(args.max_iter)
        if args.protocol == "splits":
            _main_splits(args, methods)
        else:
            _main_gallery(args, methods)
    except (ValueError, OSError, RuntimeError, ImportError) as err:
        print(f"paper_protocol: error: {err}", file=sys.stderr)
        return 1
    print(f"total time {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
