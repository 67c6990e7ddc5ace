"""Issue 35, items 5, 6 and 8: save/load keeps every parameter; errors in Python's words; one vocabulary."""

import json
import subprocess
import sys

import h5py
import numpy as np
import pytest

import sompca
from sompca import _lib

ALL = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]


def changed_params(cls):
    """A parameter set with every parameter the estimator has off its default (mode=None kept: it must stay None)."""
    wanted = {"n_components": 3, "n_jobs": 1, "sample_shape": (8, 6), "memory_limit": "64MB", "max_iter": 7,
              "tol": 1e-9, "sort_features": False, "mode_updates": "scatter", "q": 0.9, "mode": None}
    defaults = cls().get_params()
    params = {k: v for k, v in wanted.items() if k in defaults}
    if "relaxed_start" in defaults:
        params["relaxed_start"] = not defaults["relaxed_start"]
    return params


@pytest.mark.parametrize("cls", ALL)
def test_save_load_clone_keep_every_parameter(cls, tmp_path, X2):
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline

    rows = X2.reshape(len(X2), -1)
    fitted = cls(**changed_params(cls)).fit(rows)
    path = tmp_path / "model.h5"
    fitted.save(path)
    loaded = sompca.load(path)
    assert type(loaded) is cls and loaded.get_params() == fitted.get_params()
    assert clone(loaded).get_params() == fitted.get_params()
    if cls is sompca.SOMPCA:
        assert loaded.mode is None and loaded.mode_ == fitted.mode_ == 0  # argmax I_n of 8 x 6
    # The loaded step takes the 2-D rows it was fitted on (its sample_shape came back) ...
    np.testing.assert_array_equal(Pipeline([("tensor", loaded)]).transform(rows), fitted.transform(rows))
    # ... and its clone fits other data of its shape in a pipeline, as a fresh estimator would.
    other = Pipeline([("tensor", clone(loaded))]).fit(rows[::-1])
    np.testing.assert_array_equal(other.transform(rows), cls(**changed_params(cls)).fit(rows[::-1]).transform(rows))
    # The file stays a model file for every reader: the C library loads it, checksum and all.
    assert _lib.Model.load(str(path)).n_components() == 3


def test_feature_names_and_a_fraction_survive_save(tmp_path, X2):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(X2.reshape(len(X2), -1), columns=[f"pixel{i}" for i in range(48)])
    full = sompca.SOMPCA(sample_shape=(8, 6)).fit(frame)
    fraction = float(np.cumsum(full.explained_variance_ratio_)[1])  # reached by exactly the first 2 features
    fitted = sompca.SOMPCA(n_components=fraction, sample_shape=(8, 6)).fit(frame)
    assert fitted.n_components_ == 2
    fitted.save(tmp_path / "model.h5")
    loaded = sompca.load(tmp_path / "model.h5")
    np.testing.assert_array_equal(loaded.feature_names_in_, frame.columns.to_numpy(dtype=object))
    assert loaded.n_components == fraction and loaded.n_components_ == 2
    np.testing.assert_array_equal(loaded.transform(frame), fitted.transform(frame))


def test_a_model_file_without_python_params_loads_as_before(tmp_path, X2):
    fitted = sompca.SOMPCA(n_components=3, max_iter=5).fit(X2)
    fitted._fitted_model().save(str(tmp_path / "plain.h5"))  # what C, Go and older sompca write
    loaded = sompca.load(tmp_path / "plain.h5")
    assert loaded.max_iter == 5 and loaded.n_components == 3 and loaded.mode == fitted.mode_


def test_save_is_atomic_and_leaves_no_temporary(tmp_path, X2):
    fitted = sompca.SOMPCA(n_components=2).fit(X2)
    fitted.save(tmp_path / "model.h5")
    fitted.save(tmp_path / "model.h5")  # replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.h5"]
    with h5py.File(tmp_path / "model.h5", "r") as file:
        assert json.loads(file.attrs["python_params"])["class"] == "SOMPCA"
    with pytest.raises(OSError, match="no-such-folder"):
        fitted.save(tmp_path / "no-such-folder" / "model.h5")
    # Only a model file is replaced, as by the library's own save.
    (tmp_path / "notes.txt").write_text("keep me")
    with h5py.File(tmp_path / "data.h5", "w") as file:
        file["X"] = np.ones(3)
    for other in ("notes.txt", "data.h5"):
        with pytest.raises(OSError, match="not a sompca model file; refusing to replace it"):
            fitted.save(tmp_path / other)
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    with h5py.File(tmp_path / "data.h5", "r") as file:
        np.testing.assert_array_equal(file["X"][()], np.ones(3))


# Errors in Python's words ------------------------------------------------

FOREIGN = ["opts->", "MemoryLimit", "sompca_", "solver:", "hdf5io:", "capi:", "SOMPCA_", "shape["]


def test_errors_name_python_parameters(tmp_path, X2, h5file):
    fitted = sompca.SOMPCA(n_components=2).fit(X2)
    cases = [
        (lambda: sompca.SOMPCA(mode=5).fit(X2), ValueError, r"mode=5: want None \(the largest mode\), 'all' or a mode 0..1"),
        (lambda: sompca.SOMPCA(memory_limit="1KB").fit(X2), MemoryError, "memory_limit"),
        (lambda: sompca.SOMPCA().fit(np.ones((5, 0, 3))), ValueError, "X's axis 1 has length 0"),
        (lambda: sompca.SOMPCA().fit(np.ones((5, 3, 2, 0))), ValueError, "X's axis 3 has length 0"),
        (lambda: sompca.SOMPCA(n_components=50).fit(X2), ValueError, "50"),
        (lambda: sompca.MPCA(n_components=10**6).fit(X2), ValueError, "1000000"),
        (lambda: sompca.SOMPCA().fit(np.full((4, 3, 2), np.nan)), ValueError, "NaN"),
        (lambda: sompca.SOMPCA().fit(f"{tmp_path / 'missing.h5'}:/X"), OSError, "missing.h5"),
        (lambda: sompca.SOMPCA().fit(f"{h5file}:/nope"), OSError, "/nope"),
        (lambda: sompca.load(h5file), (OSError, ValueError), "samples.h5"),
        (lambda: fitted.transform(np.ones((3, 6, 8))), ValueError, "shape"),
        (lambda: fitted.save(tmp_path / "no" / "model.h5"), OSError, "model.h5"),
        (lambda: sompca.SOMPCA(n_components=0).fit(X2), ValueError, "n_components"),
        (lambda: sompca.SOMPCA(mode_updates="x").fit(X2), ValueError, "mode_updates"),
        (lambda: sompca.SOMPCA(n_jobs=0).fit(X2), ValueError, "n_jobs"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words) as info:
            call()
        text = str(info.value)
        assert not [name for name in FOREIGN if name in text], text


# One vocabulary ----------------------------------------------------------


def run(*args):
    return subprocess.run([sys.executable, "-m", "sompca", *map(str, args)], capture_output=True, text=True)


def test_sompca_means_the_estimators_default():
    assert sompca.estimator_for("SOMPCA").get_params() == sompca.SOMPCA().get_params()
    assert sompca.estimator_for("fompca").get_params() == sompca.FOMPCA().get_params()
    assert sompca.estimator_for("so-mpca").relaxed_start is False
    assert _lib.method_from_name("sompca") == (_lib.METHOD_SOMPCA, True)  # C reads it so too


def test_cli_flags_after_python_parameters(tmp_path, h5file):
    model = tmp_path / "m.h5"
    result = run("fit", f"{h5file}:/data/X", "-m", "sompca", "-P", 3, "--n-jobs", 1, "--no-sort-features",
                 "--mode-updates", "rows", "--sample-shape", "8,6", "--max-iter", 4, "-o", model)
    assert result.returncode == 0, result.stderr
    loaded = sompca.load(model)
    assert loaded.get_params() == sompca.SOMPCA(n_components=3, n_jobs=1, sort_features=False, mode_updates="rows",
                                                sample_shape=(8, 6), max_iter=4).get_params()
    # fit refuses to replace a file without -f, and says so; -f replaces it.
    again = run("fit", f"{h5file}:/data/X", "-P", 2, "-o", model)
    assert again.returncode == 1 and "-f/--overwrite" in again.stderr and len(again.stderr.splitlines()) == 1
    assert sompca.load(model).n_components_ == 3
    assert run("fit", f"{h5file}:/data/X", "-P", 2, "-o", model, "-f").returncode == 0
    features = f"{tmp_path / 'f.h5'}:/Y"
    assert run("transform", model, f"{h5file}:/data/X", "-o", features).returncode == 0
    refused = run("transform", model, f"{h5file}:/data/X", "-o", features)
    assert refused.returncode == 1 and "-f/--overwrite" in refused.stderr
    # Wrong sample shape: refused in the flag's words.
    bad = run("fit", f"{h5file}:/data/X", "--sample-shape", "6,8", "-o", tmp_path / "bad.h5")
    assert bad.returncode == 1 and "--sample-shape" in bad.stderr, bad.stderr
    mode = run("fit", f"{h5file}:/data/X", "--mode", 5, "-o", tmp_path / "bad.h5")
    assert mode.returncode == 1 and "--mode 5: want 'all' or a mode 0..1" in mode.stderr, mode.stderr


def test_info_json(tmp_path, X2):
    fitted = sompca.SOMPCA(n_components=3).fit(X2)
    fitted.save(tmp_path / "m.h5")
    result = run("info", tmp_path / "m.h5", "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["method"] == "so-mpca-rs" and info["sample_shape"] == [8, 6] and info["n_components"] == 3
    assert info["n_samples"] == 40 and info["mode"] == 0 and info["params"]["n_components"] == 3
    np.testing.assert_array_equal(info["explained_variance_ratio"], fitted.explained_variance_ratio_)
