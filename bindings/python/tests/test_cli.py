"""The command line: fit, transform and info on a small file; bad input exits 1 with one line."""

import os
import pty
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import sompca
import sompca._cli
from helpers import assert_close


def run(*args, entry=(sys.executable, "-m", "sompca")):
    return subprocess.run([*entry, *map(str, args)], capture_output=True, text=True)


def test_fit_transform_info(tmp_path, h5file, X2):
    model = tmp_path / "model.h5"
    result = run("fit", f"{h5file}:/data/X", "-m", "so-mpca-rs", "-P", 4, "-o", model)
    assert result.returncode == 0, result.stderr
    assert "4 features" in result.stdout and result.stderr == ""  # no progress bar off a terminal
    # The model is the one the estimator fits on the same data.
    expected = sompca.SOMPCA(n_components=4).fit(X2)
    loaded = sompca.load(model)
    assert isinstance(loaded, sompca.SOMPCA) and loaded.relaxed_start
    for a, b in zip(loaded.projections_, expected.projections_):
        assert_close(a, b)

    features = tmp_path / "features.h5"
    result = run("transform", model, f"{h5file}:/data/X", "-o", f"{features}:/out/Y")
    assert result.returncode == 0, result.stderr
    with h5py.File(features, "r") as f:
        assert_close(f["/out/Y"][()], expected.transform(X2))
    # The output exists now: refused without --overwrite, replaced with it.
    again = run("transform", model, f"{h5file}:/data/X", "-o", f"{features}:/out/Y")
    assert again.returncode == 1 and len(again.stderr.splitlines()) == 1
    assert run("transform", model, f"{h5file}:/data/X", "-o", f"{features}:/out/Y", "--overwrite").returncode == 0

    result = run("info", model)
    assert result.returncode == 0, result.stderr
    for text in ("so-mpca-rs", "8 x 6", "40", "orthogonal mode", "nu = 1"):
        assert text in result.stdout


def test_fit_options_reach_the_model(tmp_path, h5file, X2):
    model = tmp_path / "mpca.h5"
    result = run("fit", f"{h5file}:/data/X32", "-m", "MPCA", "--q", 0.9, "--max-iter", 3, "--order", "extraction",
                 "-j", 1, "-o", model)
    assert result.returncode == 0, result.stderr
    expected = sompca.MPCA(q=0.9, max_iter=3, sort_features=False).fit(X2.astype(np.float32))
    for a, b in zip(sompca.load(model).projections_, expected.projections_):
        assert_close(a, b)


def test_installed_script(tmp_path, h5file):
    script = shutil.which("sompca", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("the sompca script is installed by `pip install bindings/python` (make test does)")
    result = run("fit", f"{h5file}:/data/X", "-m", "pca", "-o", tmp_path / "m.h5", entry=(script,))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("args, words", [
    (["fit", "{missing}:/X", "-o", "{tmp}/m.h5"], ["missing.h5"]),
    (["fit", "{data}:/nope", "-o", "{tmp}/m.h5"], ["/nope"]),
    (["fit", "{data}", "-o", "{tmp}/m.h5"], ["FILE.h5:/DATASET"]),
    (["fit", "{data}:/data/X", "-m", "pca-rs", "-o", "{tmp}/m.h5"], ["pca-rs"]),
    (["fit", "{data}:/data/X", "-m", "so-mpca", "--q", "0.5", "-o", "{tmp}/m.h5"], ["--q", "so-mpca"]),
    (["fit", "{data}:/data/X", "-P", "0", "-o", "{tmp}/m.h5"], ["-P/--n-components", "got 0"]),
    (["fit", "{data}:/data/X", "-P", "100", "-o", "{tmp}/m.h5"], ["100"]),
    (["fit", "{data}:/data/X", "--mode", "7", "-o", "{tmp}/m.h5"], ["--mode 7", "0..1"]),
    (["fit", "{data}:/data/X", "--mode", "-1", "-o", "{tmp}/m.h5"], ["--mode", "'-1'"]),
    (["fit", "{data}:/data/X", "-j", "0", "-o", "{tmp}/m.h5"], ["-j/--n-jobs", "got 0"]),
    (["fit", "{data}:/data/X", "--max-iter", "0", "-o", "{tmp}/m.h5"], ["--max-iter", "got 0"]),
    (["fit", "{data}:/data/X", "--tol", "nan", "-o", "{tmp}/m.h5"], ["--tol", "nan"]),
    (["fit", "{data}:/data/X", "-m", "mpca", "--q", "1.5", "-o", "{tmp}/m.h5"], ["--q", "1.5"]),
    (["fit", "{data}:/data/X", "--memory-limit", "12XB", "-o", "{tmp}/m.h5"], ["--memory-limit", "12XB"]),
    (["fit", "{data}:/data/X", "--memory-limit", "100", "-o", "{tmp}/m.h5"], ["--memory-limit", "100 bytes"]),
    (["fit", "{data}:/data/X"], ["-o"]),
    (["fit", "{data}:/data/X", "-o", "-"], ["-o/--output", "standard output"]),
    (["fit", "{data}:/data/X", "--layout", "column-major", "--samples-last", "-o", "{tmp}/m.h5"],
     ["--samples-last conflicts with --layout column-major"]),
    (["transform", "{tmp}/m.h5", "{data}:/data/X", "--samples-last", "--layout", "samples-first", "-o", "{tmp}/f.h5:/Y"],
     ["--layout samples-first conflicts with --samples-last"]),
    (["fit", "{data}:/data/X", "-P", "many", "-o", "{tmp}/m.h5"], ["many"]),
    (["transform", "{missing}", "{data}:/data/X", "-o", "{tmp}/f.h5:/Y"], ["missing.h5"]),
    (["info", "{data}"], ["samples.h5"]),
    (["frobnicate"], ["frobnicate"]),
])
def test_bad_input_exits_1_with_one_line(tmp_path, h5file, args, words):
    names = {"missing": tmp_path / "missing.h5", "data": h5file, "tmp": tmp_path}
    result = run(*(arg.format(**names) for arg in args))
    assert result.returncode == 1, result
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr
    # In the words of --help: no C functions or fields, Go packages or estimator parameters.
    internal = re.findall(r"sompca_\w+|opts->|SOMPCA_\w+|\b(?:solver|hdf5io|capi):|MemoryLimit|"
                          r"\b(?:n_components|n_jobs|n_threads|max_iter|memory_limit|sort_features|feature_order)\b",
                          result.stderr)
    assert not internal, result.stderr
    assert not (tmp_path / "m.h5").exists()


def test_help_explains_every_option():
    parser = sompca._cli._build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert set(commands) == {"fit", "transform", "info"}
    main_help = run("--help")
    assert main_help.returncode == 0 and all(name in main_help.stdout for name in commands)
    for name, sub in commands.items():
        text = run(name, "--help").stdout
        for action in sub._actions:
            # Every option and argument is listed with a help text of its own.
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help"
            for option in action.option_strings:
                assert option in text, f"{name} --help does not show {option}"


def run_on_terminal(*args):
    """Run the command line with stderr on a pseudo-terminal; return (exit status, what it drew)."""
    primary, secondary = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "sompca", *map(str, args)], stdout=subprocess.PIPE,
                                stderr=secondary)
        os.close(secondary)
        drawn = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # EIO: the other end is closed and everything was read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(primary)
    return result.returncode, drawn.decode()


def test_progress_bar_on_a_terminal_only(tmp_path, h5file):
    # On a terminal the bar is redrawn after each EMP (P = 3) and ends with a newline;
    # off a terminal nothing is drawn (test_fit_transform_info), nor with --quiet.
    status, drawn = run_on_terminal("fit", f"{h5file}:/data/X", "-P", 3, "-o", tmp_path / "m.h5")
    assert status == 0
    assert [f"] {done}/3" in drawn for done in (1, 2, 3)] == [True] * 3, drawn
    # ... with the bytes read from the file: X2 is 40 x 8 x 6 float64, 15360 bytes = "15.4 kB".
    assert "read 15.4 kB of 15.4 kB" in drawn, drawn
    assert drawn.count("\r") >= 3 and drawn.endswith("\n")
    assert run_on_terminal("fit", f"{h5file}:/data/X", "-P", 3, "--quiet", "-o", tmp_path / "q.h5") == (0, "")


def test_samples_last(tmp_path, X2):
    # A row-major file with samples last (I_1 x I_2 x M) read with --samples-last gives the samples-first model.
    data = tmp_path / "last.h5"
    with h5py.File(data, "w") as f:
        f["X"] = np.moveaxis(X2, 0, -1)
    assert run("fit", f"{data}:/X", "--samples-last", "-P", 3, "-o", tmp_path / "m.h5").returncode == 0
    expected = sompca.SOMPCA(n_components=3).fit(X2)
    loaded = sompca.load(tmp_path / "m.h5")
    assert loaded.shape_in_ == X2.shape[1:]
    for a, b in zip(loaded.projections_, expected.projections_):
        assert_close(a, b)
    out = tmp_path / "f.h5"
    assert run("transform", tmp_path / "m.h5", f"{data}:/X", "--samples-last", "-o", f"{out}:/Y").returncode == 0
    with h5py.File(out, "r") as f:
        assert_close(f["Y"][()], expected.transform(X2))
