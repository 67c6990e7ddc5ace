"""The protocol and the pictures with sompca's own estimators.

These tests need the sompca package (`make test-demo` installs it first).
"""

import os

import h5py
import numpy as np
import pytest

import sompca

import paper_protocol as pp
import plots


def toy_classes(seed, n_classes, per_class, shape):
    """Toy classes: a random mean image per class plus unit noise."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2.0, size=(n_classes, *shape))
    y = np.repeat(np.arange(n_classes), per_class)
    return means[y] + rng.normal(size=(len(y), *shape)), y


def test_missing_cells_follow_the_method_bounds():
    # 5 classes, L = 1: M = 5 training samples of shape 6 x 4. Bounds (the
    # bindings' documentation): PCA M-1 = 4; UMPCA min(min I_n, M-1) = 4;
    # SO-MPCA with nu = mode 0: I_1 = 6; TROD: max I_n = 6 by default.
    X, y = toy_classes(0, 5, 6, (6, 4))
    methods = {m: f for m, f in pp.sompca_methods().items() if m in ("PCA", "UMPCA", "SO-MPCA", "SO-MPCA-RS", "TROD")}
    rates = pp.run_splits(X, y, methods, Ls=[1], Ps=[1, 4, 5, 6], n_splits=2, seed=0)
    for m in methods:
        for P in (1, 4):
            assert not np.isnan(rates[m, 1, P]).any(), (m, P)
            assert ((0 <= rates[m, 1, P]) & (rates[m, 1, P] <= 100)).all()
    for m in ("PCA", "UMPCA"):
        assert np.isnan(rates[m, 1, 5]).all() and np.isnan(rates[m, 1, 6]).all()
    for m in ("SO-MPCA", "SO-MPCA-RS", "TROD"):
        assert not np.isnan(rates[m, 1, 6]).any()


def test_pca_column_matches_numpy():
    # Independent computation: PCA by numpy's SVD (features up to sign, which
    # Euclidean distances ignore) and a brute-force nearest neighbour.
    X, y = toy_classes(1, 4, 8, (5, 3))
    Ps = [2, 5]
    rates = pp.run_splits(X, y, {"PCA": pp.sompca_methods()["PCA"]}, Ls=[3], Ps=Ps, n_splits=3, seed=7)
    for r in range(3):
        train, test = pp.split_per_class(y, 3, 7, r)
        A = X[train].reshape(len(train), -1)
        mean = A.mean(axis=0)
        V = np.linalg.svd(A - mean, full_matrices=False)[2].T
        for P in Ps:
            ftr = (A - mean) @ V[:, :P]
            fte = (X[test].reshape(len(test), -1) - mean) @ V[:, :P]
            nearest = np.argmin(np.linalg.norm(fte[:, None] - ftr[None], axis=2), axis=1)
            want = 100.0 * np.mean(y[train][nearest] == y[test])
            assert rates["PCA", 3, P][r] == pytest.approx(want, abs=1e-9)


def test_history_pairs_with_features():
    # The convergence picture reads history_[j] for the feature whose
    # order_[j] is the EMP: its last value is that feature's captured scatter
    # S_p = (M-1) * explained_variance_[j] (the library's definition).
    X, _ = toy_classes(2, 3, 10, (7, 5))
    est = sompca.SOMPCA(mode=0, relaxed_start=True).fit(X)
    assert sorted(est.order_) == list(range(est.n_components_))
    for j in range(est.n_components_):
        assert est.history_[j][-1] == pytest.approx((len(X) - 1) * est.explained_variance_[j], rel=1e-9)
    fig = plots.convergence_figure(est, (2, 5), L=3)
    assert len(fig.axes) == 2


def test_extraction_order_variance_matches_unsorted_fit():
    # Sorting must not change the fit: the extraction-order variance of the
    # sorted model equals the variance of a model fitted with sort_features=False.
    X, _ = toy_classes(3, 3, 10, (6, 6))
    sorted_fit = sompca.SOMPCA(mode=0, relaxed_start=True).fit(X)
    unsorted_fit = sompca.SOMPCA(mode=0, relaxed_start=True, sort_features=False).fit(X)
    np.testing.assert_allclose(plots.extraction_order_variance(sorted_fit), unsorted_fit.explained_variance_,
                               rtol=1e-12)
    assert np.all(np.diff(sorted_fit.explained_variance_) <= 0)


def test_main_splits_end_to_end(tmp_path, capsys):
    X, y = toy_classes(4, 3, 6, (8, 5))
    with h5py.File(tmp_path / "toy.h5", "w") as f:
        f["X"] = X.astype(np.float32)
        f["y"] = y
    out = tmp_path / "demo"
    argv = ["splits", str(tmp_path / "toy.h5"), "--out", str(out), "--L", "1,2", "--splits", "2",
            "--per-class", "6", "--pool", "all", "--P", "1,2,8", "--max-iter", "5"]
    assert pp.main(argv) == 0
    assert capsys.readouterr().out.count(" done in ") == len(pp.TABLE_METHODS)
    assert sorted(os.listdir(out)) == ["convergence.png", "rates.png", "table.csv", "table.md", "variance.png"]
    md = (out / "table.md").read_text().splitlines()
    # L = 1, P = 8: M = 3 samples; PCA and UMPCA (at most M-1 = 2 features)
    # give '-'; SO-MPCA gives I_1 = 8.
    cells = dict(zip(pp.TABLE_METHODS, [c.strip() for c in md[4].split("|")[3:-1]]))
    assert md[4].startswith("| 1 | 8 |")
    assert cells["PCA"] == "-" and cells["UMPCA"] == "-" and cells["SO-MPCA"] != "-"


def test_main_gallery_end_to_end(tmp_path):
    # Third-order toy "gait" data: 5 subjects, 3 samples each, far apart.
    X, subjects = toy_classes(5, 5, 3, (6, 4, 3))
    rng = np.random.default_rng(6)
    with h5py.File(tmp_path / "gait.h5", "w") as f:
        f["gallery/X"], f["gallery/y"] = X, subjects
        f["probeA/X"], f["probeA/y"] = X + 0.05 * rng.normal(size=X.shape), subjects
    out = tmp_path / "gait"
    argv = ["gallery", str(tmp_path / "gait.h5"), "--out", str(out), "--P", "3,6", "--max-iter", "5"]
    assert pp.main(argv) == 0
    md = (out / "table.md").read_text().splitlines()
    assert md[0].startswith("| Rank | Probe | P | PCA |")
    assert [row.split("|")[1:4] for row in md[2:]] == [
        [f" {k} ", " probeA ", f" {P} "] for k in (1, 5) for P in (3, 6)]
    # UMPCA gives at most min I_n = 3 features: P = 6 is '-'.
    umpca = 4 + pp.TABLE_METHODS.index("UMPCA")
    assert md[3].split("|")[umpca].strip() == "-"
    # A probe that is the gallery plus tiny noise: PCA ranks every subject first.
    assert md[2].split("|")[4].strip().strip("*").startswith("100.00")


def test_fusion_methods_in_both_protocols():
    # Shape 6 x 4: feature fusion gives up to 6 + 4 - 1 = 9 features (the
    # first EMP, the same in both modes, once), so P = 10 is '-'; score
    # fusion needs P features from each mode, so P = 5 and 6 are '-' (mode
    # 1 has 4). With one mode's features, score fusion is that mode's 1-NN.
    X, y = toy_classes(1, 5, 6, (6, 4))
    methods = {m: f for m, f in pp.sompca_methods().items() if m in (*pp.FUSION_METHODS, "SO-MPCA-RS")}
    rates = pp.run_splits(X, y, methods, Ls=[2], Ps=[1, 4, 5, 9, 10], n_splits=2, seed=0)
    for P in (1, 4, 5, 9):
        assert not np.isnan(rates["SO-MPCA-RS-FF", 2, P]).any()
    assert np.isnan(rates["SO-MPCA-RS-FF", 2, 10]).all()
    for P in (1, 4):
        assert ((0 <= rates["SO-MPCA-RS-SF", 2, P]) & (rates["SO-MPCA-RS-SF", 2, P] <= 100)).all()
    assert np.isnan(rates["SO-MPCA-RS-SF", 2, 5]).all() and np.isnan(rates["SO-MPCA-RS", 2, 9]).all()
    # The FF column is SOMPCA(mode="all")'s top P features with 1-NN, done by hand.
    train, test = pp.split_per_class(y, 2, 0, 0)
    Z = sompca.SOMPCA(mode="all").fit(X[train])
    hand = 100 * np.mean(pp.nearest_neighbour(Z.transform(X[train])[:, :4], y[train], Z.transform(X[test])[:, :4]) == y[test])
    assert rates["SO-MPCA-RS-FF", 2, 4][0] == hand
    # Gallery protocol: subjects far apart are all found, by both fusions.
    gallery = (X, y)
    probes = {"A": (X + 0.01, y)}
    g = pp.run_gallery(gallery, probes, {m: methods[m] for m in pp.FUSION_METHODS}, Ps=[2, 5])
    assert g["SO-MPCA-RS-FF", 1, "A", 2][0] == 100.0 and g["SO-MPCA-RS-SF", 1, "A", 2][0] == 100.0
    assert np.isnan(g["SO-MPCA-RS-SF", 1, "A", 5][0])
