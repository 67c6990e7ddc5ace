"""Tests of paper_protocol.py's own logic: data, splits, classifiers, tables.

The estimators here are the numpy stand-in of conftest.py; the protocol with
sompca's estimators is tested in test_with_sompca.py.
"""

import csv
import io
import os

import h5py
import numpy as np
import pytest

import paper_protocol as pp


# ---------------------------------------------------------------- splits


def test_split_per_class_draws_L_of_each_class_disjointly():
    y = np.repeat([4, 7, 9], [5, 6, 4])
    for L in (1, 3):
        train, test = pp.split_per_class(y, L, seed=3, repetition=0)
        # Each class contributes exactly L training samples ...
        assert sorted(np.unique(y[train], return_counts=True)[1]) == [L, L, L]
        # ... and train and test partition all samples.
        assert len(np.intersect1d(train, test)) == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(len(y)))


def test_split_per_class_is_seeded():
    y = np.repeat(np.arange(5), 20)
    a = pp.split_per_class(y, 2, seed=1, repetition=4)[0]
    b = pp.split_per_class(y, 2, seed=1, repetition=4)[0]
    np.testing.assert_array_equal(a, b)
    # Another repetition or seed gives another split (the chance of a
    # repeat is (1/190)^5 for 5 classes of 20 with L = 2).
    assert not np.array_equal(a, pp.split_per_class(y, 2, seed=1, repetition=5)[0])
    assert not np.array_equal(a, pp.split_per_class(y, 2, seed=2, repetition=4)[0])


def test_split_per_class_errors():
    y = np.array([0, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="class 1 has 2 samples"):
        pp.split_per_class(y, 2, 0, 0)
    with pytest.raises(ValueError, match="L = 0"):
        pp.split_per_class(y, 0, 0, 0)


def test_choose_subset():
    y = np.repeat([0, 1, 2], [10, 8, 12])
    subset = pp.choose_subset(y, 5, seed=0)
    assert sorted(np.unique(y[subset], return_counts=True)[1]) == [5, 5, 5]
    assert len(np.unique(subset)) == 15
    np.testing.assert_array_equal(subset, pp.choose_subset(y, 5, seed=0))
    with pytest.raises(ValueError, match="class 1 has 8 samples, fewer than --per-class 9"):
        pp.choose_subset(y, 9, seed=0)


# ---------------------------------------------------------------- classifiers


def test_nearest_neighbour_hand_made():
    train = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
    labels = np.array([10, 20, 30])
    test = np.array([[1.0, 0.2],   # nearest (0,0): distances^2 1.04, 9.04, 8.84
                     [3.1, 0.5],   # nearest (4,0): 9.86, 1.06, 16.21
                     [0.4, 2.0],   # nearest (0,3): 4.16, 16.96, 1.16
                     [2.0, 0.0]])  # tie (0,0) and (4,0) at 4: the first wins
    np.testing.assert_array_equal(pp.nearest_neighbour(train, labels, test), [10, 20, 30, 10])


def test_nearest_neighbour_matches_brute_force_in_blocks():
    # More test samples than one block (2048): compare with an independent
    # brute-force computation of the Euclidean distances.
    rng = np.random.default_rng(1)
    train, test = rng.normal(size=(30, 4)), rng.normal(size=(5000, 4))
    labels = np.arange(30)
    brute = np.argmin(np.linalg.norm(test[:, None, :] - train[None, :, :], axis=2), axis=1)
    np.testing.assert_array_equal(pp.nearest_neighbour(train, labels, test), labels[brute])


def test_set_distance_hand_computed():
    A = np.array([[0.0, 0.0], [3.0, 4.0]])
    B = np.array([[0.0, 1.0], [6.0, 8.0], [3.0, 0.0]])
    # Distances: from (0,0): 1, 10, 3 -> min 1; from (3,4): sqrt(18), 5, 4 -> min 4.
    # Mean over A = 2.5. From B's side: (0,1) -> min(1, sqrt(18)) = 1;
    # (6,8) -> min(10, 5) = 5; (3,0) -> min(3, 4) = 3; mean = 3. Sum = 5.5.
    assert pp.set_distance(A, B) == pytest.approx(5.5, abs=1e-12)
    assert pp.set_distance(B, A) == pytest.approx(5.5, abs=1e-12)
    assert pp.set_distance(A, A) == pytest.approx(0.0, abs=1e-12)


def test_subject_ranks_toy():
    # Gallery subjects 1, 2, 3 on a line at 0, 10, 20; probe subjects 2 and
    # 3 sit at 11 and at 14/16.
    gallery = np.array([[0.0], [1.0], [10.0], [20.0]])
    gallery_subjects = np.array([1, 1, 2, 3])
    probe = np.array([[11.0], [14.0], [16.0]])
    probe_subjects = np.array([2, 3, 3])
    subjects, ranks = pp.subject_ranks(gallery, gallery_subjects, probe, probe_subjects)
    np.testing.assert_array_equal(subjects, [2, 3])
    # Probe 2 {11}: to 1 = 10 + (11 + 10)/2 = 20.5, to 2 = 1 + 1 = 2, to 3 = 9 + 9 = 18: rank 1.
    # Probe 3 {14, 16}: to 2 = (4 + 6)/2 + 4 = 9, to 3 = (6 + 4)/2 + 4 = 9, to 1 larger:
    # the true subject ties with subject 2 and only strictly closer ones count: rank 1.
    np.testing.assert_array_equal(ranks, [1, 1])
    # Move subject 3's probe towards 10: {10.5, 12}: to 2 = 1.25 + 0.5 = 1.75, to 3 = 8.75 + 8 = 16.75: rank 2.
    _, ranks = pp.subject_ranks(gallery, gallery_subjects, np.array([[11.0], [10.5], [12.0]]), probe_subjects)
    np.testing.assert_array_equal(ranks, [1, 2])
    with pytest.raises(ValueError, match=r"probe subjects \[7\] are not in the gallery"):
        pp.subject_ranks(gallery, gallery_subjects, probe, np.array([2, 3, 7]))


# ---------------------------------------------------------------- tables


@pytest.mark.parametrize("values, marked", [
    ([3.0, 9.0, np.nan, 5.0, 1.0], [False, True, False, True, False]),
    # The paper's Table 2, rank 1, probe C, P = 5 and P = 10 (ties all bold).
    ([12.20, 9.76, 14.63, 4.88, 24.39, 12.20, 14.63, 7.32, 14.63],
     [False, False, True, False, True, False, True, False, True]),
    ([29.27, 14.63, 19.51, 14.63, 29.27, 29.27, 29.27, 19.51, 21.95],
     [True, False, False, False, True, True, True, False, False]),
    ([np.nan, 5.0], [False, True]),
    ([np.nan, np.nan], [False, False]),
])
def test_top_two(values, marked):
    assert pp.top_two(values) == marked


def hand_made_rows():
    # Two rows, three methods; the second row has a missing cell.
    return [((1, 5), [(10.0, 1.0), (30.0, 2.5), (20.004, 0.5)]),
            ((1, 10), [(40.0, 0.0), None, (35.0, 1.25)])]


def test_format_markdown_hand_made():
    md = pp.format_markdown(hand_made_rows(), ("L", "P"), ("A", "B", "C"))
    assert md == ("| L | P | A | B | C |\n"
                  "|---:|---:|---:|---:|---:|\n"
                  "| 1 | 5 | 10.00 ± 1.00 | **30.00** ± 2.50 | **20.00** ± 0.50 |\n"
                  "| 1 | 10 | **40.00** ± 0.00 | - | **35.00** ± 1.25 |\n")


def test_format_csv_hand_made():
    rows = list(csv.reader(io.StringIO(pp.format_csv(hand_made_rows(), ("L", "P"), ("A", "B", "C")))))
    assert rows[0] == ["L", "P", "A mean", "A std", "B mean", "B std", "C mean", "C std"]
    assert rows[2] == ["1", "10", "40.0000", "0.0000", "-", "-", "35.0000", "1.2500"]


def test_format_text_marks_with_star():
    text = pp.format_text(hand_made_rows(), ("L", "P"), ("A", "B", "C"))
    lines = text.splitlines()
    assert lines[0].split() == ["L", "P", "A", "B", "C"]
    assert lines[1].split() == ["1", "5", "10.00", "±", "1.00", "30.00*±", "2.50", "20.00*±", "0.50"]
    assert lines[2].split() == ["1", "10", "40.00*±", "0.00", "-", "35.00*±", "1.25"]


def test_summarize_mean_and_sample_std():
    rates = {("A", 1, 5): np.array([50.0, 60.0, 70.0]), ("A", 1, 10): np.array([80.0, np.nan, 80.0])}
    rows = pp.summarize(rates, [(1, 5), (1, 10)], ["A"])
    # mean 60, sample std sqrt(((-10)^2 + 0 + 10^2) / 2) = 10.
    assert rows[0][1][0] == pytest.approx((60.0, 10.0), abs=1e-12)
    assert rows[1][1][0] is None
    rows = pp.summarize({("A", 1, 5): np.array([42.0])}, [(1, 5)], ["A"])
    assert rows[0][1][0] == (42.0, 0.0)


# ---------------------------------------------------------------- data files


def write_h5(path, **datasets):
    with h5py.File(path, "w") as f:
        for name, data in datasets.items():
            f.create_dataset(name, data=data)
    return str(path)


def test_load_samples_and_pool(tmp_path):
    X = np.arange(4 * 3 * 2, dtype=np.uint8).reshape(4, 3, 2)
    path = write_h5(tmp_path / "d.h5", X=X, y=np.array([0, 1, 0, 1]), split=np.array([0, 1, 1, 0], np.uint8))
    Xs, ys = pp.load_samples(path)
    np.testing.assert_array_equal(Xs, X)
    Xt, yt = pp.load_samples(path, pool="test")
    np.testing.assert_array_equal(Xt, X[[1, 2]])
    np.testing.assert_array_equal(yt, [1, 0])


@pytest.mark.parametrize("datasets, message", [
    ({"y": np.zeros(3, int)}, "no dataset 'X'"),
    ({"X": np.zeros((3, 2)), "y": np.zeros(4, int)}, r"y: shape \(4,\), want \(3,\)"),
    ({"X": np.zeros(3), "y": np.zeros(3, int)}, r"X: shape \(3,\)"),
    ({"X": np.zeros((3, 2)), "y": np.zeros(3)}, "want integer labels"),
    ({"X": np.array([[1.0], [np.nan]]), "y": np.zeros(2, int)}, "NaN"),
    ({"X": np.zeros((2, 2)), "y": np.zeros(2, int)}, "needs a dataset 'split'"),
])
def test_load_samples_errors(tmp_path, datasets, message):
    path = write_h5(tmp_path / "bad.h5", **datasets)
    pool = "test" if message.startswith("needs") else None
    with pytest.raises(ValueError, match=message) as info:
        pp.load_samples(path, pool=pool)
    assert "bad.h5" in str(info.value)


def test_load_samples_not_hdf5(tmp_path):
    path = tmp_path / "x.h5"
    path.write_text("not hdf5")
    with pytest.raises(ValueError, match="cannot open as HDF5"):
        pp.load_samples(str(path))


# ---------------------------------------------------------------- end to end


def classes_data(rng, n_classes, per_class, shape):
    """Separable toy classes: a random mean image per class plus noise."""
    means = rng.normal(scale=3.0, size=(n_classes, *shape))
    y = np.repeat(np.arange(n_classes), per_class)
    return means[y] + rng.normal(size=(len(y), *shape)), y


def test_run_splits_with_stand_in(stand_in_methods):
    rng = np.random.default_rng(0)
    X, y = classes_data(rng, 4, 6, (3, 3))
    methods = {"PCA": stand_in_methods["PCA"], "TROD": stand_in_methods["TROD"]}
    rates = pp.run_splits(X, y, methods, Ls=[1, 2], Ps=[1, 3, 5], n_splits=2, seed=0)
    # L = 1: M = 4 samples give 3 principal components, so P = 5 is missing.
    assert np.isnan(rates["PCA", 1, 5]).all()
    # TROD's stand-in is capped at 3 features.
    assert np.isnan(rates["TROD", 2, 5]).all() and not np.isnan(rates["PCA", 2, 5]).any()
    # An independent recomputation of one cell: L = 2, split 1, P = 3, PCA
    # by numpy's SVD and a brute-force nearest neighbour.
    train, test = pp.split_per_class(y, 2, 0, 1)
    A = X[train].reshape(len(train), -1)
    mean = A.mean(axis=0)
    V = np.linalg.svd(A - mean, full_matrices=False)[2][:3].T
    ftr, fte = (A - mean) @ V, (X[test].reshape(len(test), -1) - mean) @ V
    nearest = np.argmin(np.linalg.norm(fte[:, None] - ftr[None], axis=2), axis=1)
    assert rates["PCA", 2, 3][1] == pytest.approx(100.0 * np.mean(y[train][nearest] == y[test]), abs=1e-9)


def test_main_splits_writes_table_and_pictures(tmp_path, stand_in_methods, capsys):
    rng = np.random.default_rng(1)
    X, y = classes_data(rng, 3, 8, (5, 4))
    data = write_h5(tmp_path / "toy.h5", X=X, y=y)
    data_before = open(data, "rb").read()
    out = tmp_path / "demo"
    argv = ["splits", data, "--out", str(out), "--L", "1,2", "--splits", "2", "--per-class", "8",
            "--pool", "all", "--P", "1,2,4"]
    assert pp.main(argv, methods=stand_in_methods) == 0
    printed = capsys.readouterr().out
    assert printed.count(" done in ") == len(pp.TABLE_METHODS)  # one progress line per method
    assert sorted(os.listdir(out)) == ["convergence.png", "rates.png", "table.csv", "table.md", "variance.png"]
    for png in ("convergence.png", "rates.png", "variance.png"):
        assert open(out / png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    md = (out / "table.md").read_text().splitlines()
    assert md[0] == "| L | P | " + " | ".join(pp.TABLE_METHODS) + " |"
    assert len(md) == 2 + 2 * 3  # header, rule, one row per (L, P)
    # L = 1: 3 training samples, 2 components; P = 4 is '-' everywhere.
    assert md[4].split("|")[3:-1] == [" - "] * len(pp.TABLE_METHODS)
    assert open(data, "rb").read() == data_before, "the input file was modified"


def test_main_gallery_with_stand_in(tmp_path, stand_in_methods, capsys):
    rng = np.random.default_rng(2)
    subjects = np.repeat(np.arange(6), 4)
    means = rng.normal(scale=4.0, size=(6, 4, 3, 2))
    with h5py.File(tmp_path / "gait.h5", "w") as f:
        for group, n in (("gallery", 6), ("A", 6), ("B", 3)):
            sel = subjects < n
            f.create_dataset(f"{group}/X", data=means[subjects[sel]] + 0.1 * rng.normal(size=(sel.sum(), 4, 3, 2)))
            f.create_dataset(f"{group}/y", data=subjects[sel])
    out = tmp_path / "gait"
    methods = {"PCA": stand_in_methods["PCA"], "TROD": stand_in_methods["TROD"]}
    argv = ["gallery", str(tmp_path / "gait.h5"), "--out", str(out), "--P", "2,5", "--methods", "PCA,TROD"]
    assert pp.main(argv, methods=methods) == 0
    rows = list(csv.reader(open(out / "table.csv")))
    assert rows[0] == ["Rank", "Probe", "P", "PCA mean", "PCA std", "TROD mean", "TROD std"]
    # Rank, probe (A then B, other groups sorted), P.
    assert [r[:3] for r in rows[1:]] == [[k, p, P] for k in ("1", "5") for p in ("A", "B") for P in ("2", "5")]
    # Subjects are far apart relative to the noise: PCA finds every one.
    assert all(float(r[3]) == 100.0 for r in rows[1:])
    assert rows[2][5] == "-"  # TROD's stand-in has 3 features, P = 5 is missing
    assert "Rank-1 and rank-5" in capsys.readouterr().out


def test_main_reports_bad_input(tmp_path, stand_in_methods, capsys):
    data = write_h5(tmp_path / "toy.h5", X=np.zeros((4, 2, 2)), y=np.array([0, 0, 1, 1]))
    assert pp.main(["splits", data, "--out", str(tmp_path / "o"), "--pool", "all", "--per-class", "2",
                    "--L", "2"], methods=stand_in_methods) == 1
    assert "class 0 has 2 samples: too few to train on L = 2" in capsys.readouterr().err
    assert pp.main(["gallery", data, "--out", str(tmp_path / "o")], methods=stand_in_methods) == 1
    assert "no probe groups" in capsys.readouterr().err


# ---------------------------------------------------------------- fusion


def test_normalised_distances_hand_computed():
    # From 0: distances 1 and 3, mean 2; from 5: 4 and 2, mean 3; a query at distance 0 from all stays 0.
    np.testing.assert_allclose(pp.normalised_distances([[0.0], [5.0]], [[1.0], [3.0]]), [[0.5, 1.5], [4 / 3, 2 / 3]])
    np.testing.assert_array_equal(pp.normalised_distances([[1.0]], [[1.0], [1.0]]), [[0.0, 0.0]])


def test_fused_nearest_neighbour_one_mode_is_nearest_neighbour():
    # Dividing a row by a positive constant and taking square roots keep its argmin.
    rng = np.random.default_rng(5)
    train, test, labels = rng.normal(size=(40, 3)), rng.normal(size=(25, 3)), rng.integers(0, 4, 40)
    np.testing.assert_array_equal(pp.fused_nearest_neighbour([train], labels, [test]),
                                  pp.nearest_neighbour(train, labels, test))


def test_fused_nearest_neighbour_hand_made():
    # Mode 0 (scale 10): test 4 is 4 from A and 6 from B -> 0.8, 1.2.
    # Mode 1 (scale 1): test 1 is 4 from A and 1 from B -> 1.6, 0.4.
    # Sums 2.4 (A) and 1.6 (B): B, though mode 0's raw distances dominate a plain sum.
    train = [np.array([[0.0], [10.0]]), np.array([[5.0], [0.0]])]
    assert pp.fused_nearest_neighbour(train, ["A", "B"], [np.array([[4.0]]), np.array([[1.0]])])[0] == "B"
    assert pp.nearest_neighbour(np.hstack(train), ["A", "B"], np.array([[4.0, 1.0]]))[0] == "A"


def test_fused_subject_ranks():
    rng = np.random.default_rng(3)
    subjects = np.repeat(np.arange(5), 3)
    gallery = rng.normal(size=(15, 2)) + 5 * subjects[:, None]
    probe = gallery + 0.01 * rng.normal(size=(15, 2))
    # One feature set, normalised or not, is subject_ranks (row scaling keeps the order).
    want = pp.subject_ranks(gallery, subjects, probe, subjects)
    for normalise in (True, False):
        got = pp.fused_subject_ranks([gallery], subjects, [probe], subjects, normalise=normalise)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    # Two copies of the same features: the same ranks (every row doubled).
    got = pp.fused_subject_ranks([gallery, gallery], subjects, [probe, probe], subjects)
    np.testing.assert_array_equal(got[1], want[1])
    assert np.all(want[1] == 1)
