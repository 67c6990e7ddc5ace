"""memory_limit: parsing, MemoryError when too small, the same model loaded or streamed, the CLI option."""

import subprocess
import sys

import h5py
import numpy as np
import pytest

import sompca
from sompca._estimators import parse_memory_limit


@pytest.mark.parametrize("value, expected", [
    # By definition: kB, MB, GB, TB are powers of 1000, KiB, MiB, GiB powers of 1024 (as in dask and SI).
    (None, 0), (1, 1), (4096, 4096), ("1000", 1000), ("512MB", 512 * 10**6), ("1.5 GB", 1_500_000_000),
    ("128MiB", 128 * 2**20), ("2gib", 2 * 2**30), ("64 kB", 64_000), (np.int64(77), 77),
])
def test_parse(value, expected):
    assert parse_memory_limit(value) == expected


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "", "abc", "12 XB", "0.1B", 2**63, "MB"])
def test_parse_rejects(value):
    with pytest.raises(ValueError, match="memory_limit"):
        parse_memory_limit(value)


def test_invalid_value_raises_in_fit_not_init():
    est = sompca.SOMPCA(memory_limit="lots")  # __init__ only stores it
    assert est.get_params()["memory_limit"] == "lots"
    with pytest.raises(ValueError, match="memory_limit"):
        est.fit(np.zeros((4, 3, 2)))


def test_too_small_is_memory_error_naming_both_sizes():
    X = np.random.default_rng(1).normal(size=(40, 6, 5))
    with pytest.raises(MemoryError, match=r"memory limit of 1000 bytes is too small.*needs .* bytes"):
        sompca.SOMPCA(n_components=2, memory_limit=1000).fit(X)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """700 uint8 samples of 8 x 6 x 5, chunked by 64 and gzip'd: 168 kB."""
    path = tmp_path_factory.mktemp("mem") / "x.h5"
    X = np.random.default_rng(7).integers(0, 256, size=(700, 8, 6, 5), dtype=np.uint8)
    with h5py.File(path, "w") as f:
        f.create_dataset("X", data=X, chunks=(64, 8, 6, 5), compression="gzip")
    return path, X


def test_streamed_fit_equals_loaded_fit(big_file):
    path, X = big_file
    loaded = sompca.SOMPCA(n_components=3, max_iter=3).fit(f"{path}:/X")
    # The smallest budget that works (to 1 kB), found by bisection, streams: two runs of 256 samples
    # (2 x 61 kB) need less than the whole dataset (168 kB).
    lo, hi = 1, 64 << 20
    while hi - lo > 1024:
        mid = (lo + hi) // 2
        try:
            sompca.SOMPCA(n_components=3, max_iter=1, memory_limit=mid).fit(f"{path}:/X")
            hi = mid
        except MemoryError:
            lo = mid
    streamed = sompca.SOMPCA(n_components=3, max_iter=3, memory_limit=hi).fit(f"{path}:/X")
    in_memory = sompca.SOMPCA(n_components=3, max_iter=3).fit(X)
    # The engine's sums do not depend on how the samples reach it: bit for bit.
    for a, b, c in zip(streamed.projections_, loaded.projections_, in_memory.projections_):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert np.array_equal(streamed.explained_variance_, in_memory.explained_variance_)


def test_cli_memory_limit(tmp_path, big_file):
    path, _ = big_file
    run = lambda *a: subprocess.run([sys.executable, "-m", "sompca", *map(str, a)], capture_output=True, text=True)
    ok = run("fit", f"{path}:/X", "-m", "so-mpca", "-P", 2, "--max-iter", 2, "--memory-limit", "64MB",
             "-o", tmp_path / "m.h5")
    assert ok.returncode == 0, ok.stderr
    small = run("fit", f"{path}:/X", "-P", 2, "--memory-limit", "1kB", "-o", tmp_path / "n.h5")
    assert small.returncode == 1 and "memory limit" in small.stderr and "Traceback" not in small.stderr
    bad = run("fit", f"{path}:/X", "--memory-limit", "much", "-o", tmp_path / "n.h5")
    assert bad.returncode == 1 and "--memory-limit" in bad.stderr  # the option's name in --help
    assert not (tmp_path / "n.h5").exists()


def _smallest_limit(path):
    """The smallest memory_limit (to 1 kB) with which a fit of path:/X works: it streams."""
    lo, hi = 1, 64 << 20
    while hi - lo > 1024:
        mid = (lo + hi) // 2
        try:
            sompca.SOMPCA(n_components=3, max_iter=1, memory_limit=mid).fit(f"{path}:/X")
            hi = mid
        except MemoryError:
            lo = mid
    return hi


def test_read_progress_reports_bytes_read(big_file):
    # The bytes a fit reads, reported while it reads: never decreasing, of the dataset's size
    # (X.nbytes: uint8); loaded whole they end at that size, streamed they pass it (a pass each).
    path, X = big_file
    for limit in (None, _smallest_limit(path)):
        reads = []
        est = sompca.SOMPCA(n_components=3, max_iter=2, memory_limit=limit)
        est._fit(f"{path}:/X", read_progress=lambda done, total: reads.append((done, total)))
        assert reads, limit
        assert all(total == X.nbytes for _, total in reads)
        done = [d for d, _ in reads]
        assert done == sorted(done)
        if limit is None:
            assert done[-1] == X.nbytes
        else:
            assert done[0] < X.nbytes and done[-1] >= 2 * X.nbytes


def test_read_progress_exception_stops_the_fit(big_file):
    path, _ = big_file

    def boom(done, total):
        raise ZeroDivisionError("from the read hook")

    est = sompca.SOMPCA(n_components=3)
    with pytest.raises(ZeroDivisionError, match="from the read hook"):
        est._fit(f"{path}:/X", read_progress=boom)
    assert not hasattr(est, "projections_")
