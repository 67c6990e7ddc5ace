"""Every input form gives the same model: dtypes, layouts, h5py Datasets, "file.h5:/path" strings."""

import subprocess
import sys
import tracemalloc

import h5py
import numpy as np
import pytest

import sompca
from helpers import assert_close, assert_same_model

# Values exactly representable in every dtype below (small non-negative integers), so each
# conversion is exact and every fit must equal the float64 fit up to rounding in the sums.
VALUES = np.random.default_rng(3).integers(0, 100, size=(25, 6, 5)).astype(np.float64)


@pytest.mark.parametrize("dtype", [
    np.float64, np.float32, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64,
    np.float16, np.longdouble, ">f8", "<f4", ">i4",
])
def test_every_real_dtype(dtype):
    reference = sompca.SOMPCA(n_components=3).fit(VALUES)
    X = VALUES.astype(dtype)
    estimator = sompca.SOMPCA(n_components=3).fit(X)
    assert_same_model(estimator, reference)
    features = estimator.transform(X)
    if X.dtype == np.float32:  # float32 in, float32 out: the float64 features rounded (issue 35)
        assert features.dtype == np.float32
        np.testing.assert_array_equal(features, reference.transform(VALUES).astype(np.float32))
    else:
        assert_close(features, reference.transform(VALUES))


def test_bool_dtype():
    X = VALUES > 50
    estimator = sompca.PCA(n_components=2).fit(X)
    assert_same_model(estimator, sompca.PCA(n_components=2).fit(X.astype(np.float64)))


def read_only(array):
    array = array.copy()
    array.setflags(write=False)
    return array


@pytest.mark.parametrize("layout", ["fortran", "strided", "list", "read-only"])
def test_non_contiguous_layouts(layout):
    X = {"fortran": np.asfortranarray(VALUES),
         "strided": np.repeat(VALUES, 2, axis=2)[:, :, ::2],
         "list": VALUES.tolist(),
         "read-only": read_only(VALUES)}[layout]
    assert_same_model(sompca.SOMPCA(n_components=3).fit(X), sompca.SOMPCA(n_components=3).fit(VALUES))


@pytest.mark.parametrize("bad", [
    (VALUES + 1j).astype(np.complex128), VALUES.astype(str), VALUES.astype(str).astype(bytes),
    np.zeros((25, 6, 5), dtype="datetime64[s]"), np.zeros((25, 6, 5), dtype="timedelta64[s]"),
])
def test_rejects_non_real_dtypes(bad):
    with pytest.raises(ValueError, match=str(bad.dtype).replace("[", r"\[").replace("]", r"\]")):
        sompca.SOMPCA().fit(bad)
    fitted = sompca.SOMPCA(n_components=2).fit(VALUES)
    with pytest.raises(ValueError, match="dtype"):
        fitted.transform(bad)


def test_object_arrays_of_numbers_are_converted():
    # As scikit-learn's check_array does (its check_dtype_object): numbers stored as Python objects
    # are converted to float64; anything else is refused with Python's own conversion error.
    reference = sompca.SOMPCA(n_components=3).fit(VALUES)
    estimator = sompca.SOMPCA(n_components=3).fit(VALUES.astype(object))
    assert_same_model(estimator, reference)
    assert_close(estimator.transform(VALUES.astype(object)), reference.transform(VALUES))
    bad = VALUES.astype(object)
    bad[1, 2, 3] = {"not": "a number"}
    with pytest.raises(TypeError, match="must be a string.* number"):
        sompca.SOMPCA().fit(bad)
    bad[1, 2, 3] = "seven"
    with pytest.raises(ValueError, match="seven"):
        sompca.SOMPCA().fit(bad)


@pytest.mark.parametrize("name", ["/data/X", "/data/X32", "/data/U8"])
def test_hdf5_inputs_give_the_array_model(h5file, name):
    with h5py.File(h5file, "r") as f:
        array = f[name][()]
    reference = sompca.SOMPCA(n_components=3).fit(array)
    expected = reference.transform(array)
    spec = f"{h5file}:{name}"
    # A "file:/path" string, streamed by the library (which reads each dataset's real type).
    from_spec = sompca.SOMPCA(n_components=3).fit(spec)
    assert_same_model(from_spec, reference)
    assert_close(from_spec.transform(spec), expected)
    # An h5py Dataset of a file opened read-only (streamed by the library) ...
    with h5py.File(h5file, "r") as f:
        from_dataset = sompca.SOMPCA(n_components=3).fit(f[name])
        assert_close(from_dataset.transform(f[name]), expected)
    assert_same_model(from_dataset, reference)
    # ... and of a file open for writing, which is read into memory instead.
    with h5py.File(h5file, "r+") as f:
        assert_same_model(sompca.SOMPCA(n_components=3).fit(f[name]), reference)
        assert_close(from_dataset.transform(f[name]), expected)


def test_in_memory_h5py_dataset(X2):
    with h5py.File("in-memory.h5", "w", driver="core", backing_store=False) as f:
        f["X"] = X2
        estimator = sompca.FOMPCA(n_components=2).fit(f["X"])
    assert_same_model(estimator, sompca.FOMPCA(n_components=2).fit(X2))


def test_spec_splits_at_last_colon_slash(tmp_path, X2):
    folder = tmp_path / "a:b"
    folder.mkdir()
    path = folder / "x:y.h5"
    with h5py.File(path, "w") as f:
        f["/g/X"] = X2
    assert sompca._estimators.split_spec(f"{path}:/g/X") == (str(path), "/g/X")
    assert_same_model(sompca.SOMPCA(n_components=2).fit(f"{path}:/g/X"), sompca.SOMPCA(n_components=2).fit(X2))


@pytest.mark.parametrize("dtype, sample_shape, every", [
    (np.float64, None, 1), (np.float32, None, 1), (np.uint8, None, 1), (np.float32, (32, 64), 1),
    (np.uint16, None, 1), (np.int16, None, 1), (np.float64, None, 2), (np.uint16, (32, 64), 3),
])
def test_fit_adds_no_copy(dtype, sample_shape, every):
    # 4 MB or more of samples; numpy reports its buffers to tracemalloc, so a copy of X
    # (or a float64 conversion) would raise the traced peak by at least X.nbytes. With
    # sample_shape, X is 2-D rows viewed as 32 x 64 tensors; every > 1 takes every k-th sample,
    # a view whose samples the library reads a stride apart (sompca_fit_strided).
    shape = (2000 * every, 32 * 64) if sample_shape else (2000 * every, 32, 64)
    X = np.random.default_rng(4).integers(0, 200, size=shape).astype(dtype)[::every]
    estimator = sompca.SOMPCA(n_components=2, max_iter=2, sample_shape=sample_shape)
    tracemalloc.start()
    try:
        estimator.fit(X)
        features = estimator.transform(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert features.shape == (2000, 2) and estimator.shape_in_ == (32, 64)
    assert peak < X.nbytes / 4, f"peak {peak} bytes traced while fitting {X.nbytes} bytes"


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.uint16, np.int16, np.int64, ">f8"])
def test_plain_arrays_skip_check_array(dtype, monkeypatch):
    # C-contiguous (or sample-strided) float64, float32, uint8, uint16 and int16 numpy arrays in
    # native byte order go to the library as they are, without scikit-learn's check_array (its first call costs 5-20 ms);
    # every other input still goes through it. A check_array that raises tells which path ran.
    if sompca._estimators._check_array is None:
        pytest.skip("scikit-learn is not installed")

    def refuse(*args, **kwargs):
        raise AssertionError("check_array called")

    monkeypatch.setattr(sompca._estimators, "_check_array", refuse)
    X = np.ascontiguousarray(VALUES.astype(dtype))
    native = np.dtype(dtype) in (np.dtype(t) for t in (np.float64, np.float32, np.uint8, np.uint16, np.int16))
    for candidate, plain in [(X, native), (X[::2], native), (np.asfortranarray(X), False), (X.tolist(), False)]:
        if plain:
            array, _ = sompca._estimators.as_samples(candidate)
            assert array is candidate
        else:
            with pytest.raises(AssertionError, match="check_array called"):
                sompca._estimators.as_samples(candidate)
    # The checks of check_array still run on plain arrays, in scikit-learn's words.
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        sompca._estimators.as_samples(np.zeros((0, 4, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array instead"):
        sompca._estimators.as_samples(np.zeros(5))


def test_copy_detector_sees_a_conversion():
    # The control for test_fit_adds_no_copy: int32 samples are converted to float64, and the
    # measurement must see that copy (2x the int32 bytes).
    X = np.random.default_rng(4).integers(0, 200, size=(2000, 32, 64)).astype(np.int32)
    tracemalloc.start()
    try:
        sompca.SOMPCA(n_components=2, max_iter=2).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= 2 * X.nbytes


# The peak resident size is VmHWM of /proc/self/status (Linux), which starts afresh with each
# program; getrusage's ru_maxrss would carry the parent's peak across fork and exec.
RSS_SCRIPT = """
import sys, numpy as np, sompca
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
X = np.empty((4000, 64, 64), dtype=sys.argv[1])
rng = np.random.default_rng(0)
for i in range(0, len(X), 100):  # filled in slices: no large temporary raises the peak
    X[i:i + 100] = rng.integers(0, 200, size=(100, 64, 64), dtype=np.uint8)
estimator = sompca.SOMPCA(n_components=2, max_iter=2)  # imports the estimators (and scikit-learn) first
before = peak()
estimator.fit(X)
print(X.nbytes, peak() - before)
"""


@pytest.mark.parametrize("dtype, copies", [("float64", 0), ("float32", 0), ("uint8", 0), ("uint16", 0), ("int16", 0),
                                           ("int32", 2)])
def test_fit_peak_memory_by_size(dtype, copies):
    # The whole process (Python, ctypes and the library): the growth of the peak resident size
    # during a fit, in a fresh interpreter. Without a copy it stays well below one copy of X
    # (measured: about 2 MB, the Go runtime and O(prod I_n) workspaces, for X of 16 to 131 MB,
    # plus the fit's exact uint8 copy of float samples of integers 0..255: 1/8 or 1/4 of X;
    # uint16 and int16 are widened a run of samples at a time); int32 is converted to a float64
    # copy, 2x its bytes, which the measurement must see.
    result = subprocess.run([sys.executable, "-c", RSS_SCRIPT, dtype], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    nbytes, growth = map(int, result.stdout.split())
    if copies:
        assert growth >= 0.9 * copies * nbytes, (nbytes, growth)
    else:
        assert growth < nbytes / 2, (nbytes, growth)


ALL = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]


@pytest.mark.parametrize("cls", ALL)
def test_narrowing_keeps_the_model(cls, monkeypatch):
    """float64 and float32 arrays of uint8 values (read through a uint8 copy: the library's narrowing) give the
    model of the uint8 array and of the fit with narrowing off (options.narrowing = 0), bit for bit: the kernels
    take the same sums in the same order for every element type (docs/DESIGN.md, "Exactness and narrowing")."""
    U8 = np.random.default_rng(8).integers(0, 256, size=(300, 7, 6, 5)).astype(np.uint8)

    def fitted(X, narrowing=1):
        estimator = cls(n_components=3) if cls in (sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA,
                                                   sompca.PCA) else cls()
        options = type(estimator)._options
        with monkeypatch.context() as m:
            m.setattr(type(estimator), "_options", lambda self: _set(options(self), narrowing=narrowing))
            return estimator.fit(X)

    reference = fitted(U8)
    for X, narrowing in [(U8.astype(np.float64), 1), (U8.astype(np.float64), 0), (U8.astype(np.float32), 1),
                         (U8.astype(np.float32), 0)]:
        got = fitted(X, narrowing)
        for a, b in zip(got.projections_, reference.projections_, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got.explained_variance_, reference.explained_variance_)
        np.testing.assert_array_equal(got.mean_, reference.mean_)
    with pytest.raises(ValueError, match="narrowing=2: want"):  # the field reaches the library
        fitted(U8.astype(np.float64), 2)


def _set(options, **fields):
    for name, value in fields.items():
        setattr(options, name, value)
    return options


@pytest.mark.parametrize("cls", ALL)
def test_sample_shape_views_rows_as_tensors(cls, X3):
    rows = X3.reshape(len(X3), -1)  # a view: rows in C order
    reference = cls(n_components=2).fit(X3)
    estimator = cls(n_components=2, sample_shape=X3.shape[1:]).fit(rows)
    assert_same_model(estimator, reference)
    assert estimator.shape_in_ == X3.shape[1:] and estimator.n_features_in_ == rows.shape[1]
    # transform keeps the rule, and takes tensors of the sample shape as they are.
    assert_close(estimator.transform(rows), reference.transform(X3))
    assert_close(estimator.transform(X3), reference.transform(X3))
    # inverse_transform answers in rows, as the input came (tensors without sample_shape).
    features = reference.transform(X3)
    assert_close(estimator.inverse_transform(features), reference.inverse_transform(features).reshape(rows.shape))


def test_sample_shape_errors(X3, h5file, X2):
    rows = X3.reshape(len(X3), -1)
    with pytest.raises(ValueError, match=r"sample_shape=\(5, 4\) needs X of shape \(n_samples, 20\)"):
        sompca.SOMPCA(sample_shape=(5, 4)).fit(rows)
    for bad in ((5, 0, 12), (5, -4, 3), (5.0, 12), "5x12", ()):
        with pytest.raises(ValueError, match="sample_shape must be None or a tuple of positive integers"):
            sompca.SOMPCA(sample_shape=bad).fit(rows)
    fitted = sompca.PCA(n_components=2, sample_shape=(5, 4, 3)).fit(rows)
    with pytest.raises(ValueError, match="X has 59 features, but PCA is expecting 60 features as input"):
        fitted.transform(rows[:, :59])
    # HDF5 datasets are streamed as they are stored: sample_shape must match them.
    assert sompca.PCA(n_components=2, sample_shape=(8, 6)).fit(f"{h5file}:/data/X").shape_in_ == (8, 6)
    with pytest.raises(ValueError, match=r"holds samples of shape \(8, 6\), but sample_shape=\(48,\)"):
        sompca.PCA(n_components=2, sample_shape=48).fit(f"{h5file}:/data/X")
    # A failed fit leaves the fitted model as it was.
    assert fitted.shape_in_ == (5, 4, 3)
    with pytest.raises(ValueError):
        fitted.set_params(sample_shape=(7, 7)).fit(rows)
    assert fitted.shape_in_ == (5, 4, 3)
    assert fitted.set_params(sample_shape=(5, 4, 3)).transform(rows).shape == (30, 2)


NO_SKLEARN = """
import sys
sys.modules["sklearn"] = None  # import sklearn now fails: sompca's own validation runs
import numpy as np, sompca
X = np.random.default_rng(0).normal(size=(20, 4, 3))
for bad in (np.zeros(5), X[:0], np.zeros((3, 0)), X + 1j):
    try:
        sompca.PCA().fit(bad)
    except ValueError as err:
        print(str(err).splitlines()[0])
model = sompca.PCA(n_components=2, sample_shape=(4, 3)).fit(X.reshape(20, -1))
print(model.inverse_transform(model.transform(X)).shape, type(model.n_iter_).__name__)
"""


def test_validation_without_scikit_learn():
    # Without scikit-learn the same checks run, in the same words (the messages' first words).
    result = subprocess.run([sys.executable, "-c", NO_SKLEARN], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 5, lines
    assert lines[0].startswith("Expected 2D array, got 1D array instead: X has shape (5,)")
    assert lines[1].startswith("Found array with 0 sample(s) (shape=(0, 4, 3)) while a minimum of 1 is required")
    assert lines[2].startswith("Found array with 0 feature(s) (shape=(3, 0)) while a minimum of 1 is required")
    assert lines[3].startswith("Complex data not supported: X has dtype complex128")
    assert lines[4] == "(20, 12) int"


@pytest.mark.parametrize("dtype", [np.float64, np.uint16, np.int16])
def test_sample_strided_views_give_the_contiguous_model(dtype):
    # Every other sample, and samples cut out of wider rows' first axis, are read in place
    # (a stride between samples): the model and features of the same samples made contiguous,
    # bit for bit (integer values: the library contracts them alike whatever the type).
    wide = np.random.default_rng(8).integers(0, 200, size=(60, 6, 5)).astype(dtype)
    for view in (wide[::2], wide[5:45:3]):
        assert not view.flags.c_contiguous and sompca._lib.sample_stride(view) is not None
        got = sompca.SOMPCA(n_components=3).fit(view)
        want = sompca.SOMPCA(n_components=3).fit(np.ascontiguousarray(view))
        assert_same_model(got, want)
        assert np.array_equal(got.transform(view), want.transform(np.ascontiguousarray(view)))
    # Samples that are not contiguous inside are copied (the library needs that).
    assert sompca._lib.sample_stride(wide[:, ::2]) is None
