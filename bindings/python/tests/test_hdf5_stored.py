"""HDF5 files as people write them (issue 36): read through the library, or through h5py when it cannot.

Each file is written by h5py; each fit is compared with the fit of the
same samples in memory (bit for bit: blocks start at multiples of 64
samples, so the sums are folded in the in-memory fit's order), or fails
with an exception that names the cause.
"""

import os
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import sompca
from sompca import _dask, _lib

from helpers import assert_same_model, make_samples

X = make_samples((150, 6, 5), seed=36)


def fit(X):
    return sompca.SOMPCA(n_components=3, max_iter=3).fit(X)


@pytest.fixture(scope="module")
def reference():
    return fit(X)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("stored")
    with h5py.File(d / "lzf.h5", "w") as f:
        f.create_dataset("X", data=X, chunks=(16, 6, 5), compression="lzf")
        f["dangling"] = h5py.SoftLink("/nowhere")
        f["extlink"] = h5py.ExternalLink("gone.h5", "/X")
        f.create_group("g").create_dataset("inner", data=X[:2])
    with h5py.File(d / "latest.h5", "w", libver="latest") as f:
        f.create_dataset("X", data=X, chunks=(16, 6, 5), compression="gzip")
    for name, part in [("a.h5", X[:100]), ("b.h5", X[100:])]:
        with h5py.File(d / name, "w") as f:
            f["X"] = part
    with h5py.File(d / "vds.h5", "w") as f:
        layout = h5py.VirtualLayout(shape=X.shape, dtype="f8")
        layout[:100] = h5py.VirtualSource("a.h5", "X", shape=(100, 6, 5))
        layout[100:] = h5py.VirtualSource("b.h5", "X", shape=(50, 6, 5))
        f.create_virtual_dataset("X", layout)
        d_ = f.create_dataset("partial", shape=X.shape, dtype="f8", chunks=(10, 6, 5), fillvalue=2.0)
        d_[:70] = X[:70]
    return d


def test_lzf_through_h5py(files, reference):
    # The library's libhdf5 has no LZF (h5py's own filter): the file's name alone is refused naming the filter,
    # the h5py Dataset is read through h5py.
    with pytest.raises(sompca.MissingFilterError, match=r'"lzf".*h5py'):
        fit(f"{files}/lzf.h5:/X")
    with h5py.File(files / "lzf.h5", "r") as f:
        model = fit(f["X"])
        assert_same_model(model, reference, tol=0)
        np.testing.assert_array_equal(model.transform(f["X"]), reference.transform(X))


def test_blocks_give_the_in_memory_model():
    # Three blocks of 64, 64 and 22 samples, read as h5py would hand them out: the in-memory model bit for bit.
    options = _lib.new_options(method=_lib.METHOD_SOMPCA, n_components=3, max_iter=3)
    reads = []

    def read(first, n):
        reads.append((first, n))
        return X[first:first + n]

    blocks = _dask.fit_blocks(read, len(X), X.shape[1:], options, block_bytes=64 * 30 * 8)
    whole = _lib.Model.fit_array(np.ascontiguousarray(X), _lib.FLOAT64, options)
    assert {r for r in reads} == {(0, 64), (64, 64), (128, 22)}
    for a, b in zip(blocks.projections(), whole.projections()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(blocks.variance(), whole.variance())
    np.testing.assert_array_equal(blocks.mean(), whole.mean())


def test_in_memory_file(reference):
    f = h5py.File("in-memory.h5", "w", driver="core", backing_store=False)
    with f:
        f["X"] = X
        assert_same_model(fit(f["X"]), reference, tol=0)


def test_newer_format(files, reference):
    # h5py's libver="latest" writes HDF5 2.0's layout message, which libhdf5 1.10 cannot read.
    if h5py.version.hdf5_version_tuple < (2, 0):
        pytest.skip(f"h5py's HDF5 {h5py.version.hdf5_version} writes no format newer than 1.10 reads here")
    with pytest.raises(sompca.FileVersionError, match=r"written by HDF5 2\.0 or later") as info:
        fit(f"{files}/latest.h5:/X")
    assert "dangling" not in str(info.value)
    with h5py.File(files / "latest.h5", "r") as f:
        assert_same_model(fit(f["X"]), reference, tol=0)


def test_virtual_and_partly_written(files, reference):
    assert_same_model(fit(f"{files}/vds.h5:/X"), reference, tol=0)
    filled = X.copy()
    filled[70:] = 2.0  # the fill value of the chunks never written
    assert_same_model(fit(f"{files}/vds.h5:/partial"), fit(filled), tol=0)


def test_links(files):
    with pytest.raises(sompca.BrokenLinkError, match=r'"/dangling" is a soft link to "/nowhere"'):
        fit(f"{files}/lzf.h5:/dangling")
    with pytest.raises(sompca.BrokenLinkError, match=r'external link to "/X" in file "gone.h5"'):
        fit(f"{files}/lzf.h5:/extlink")
    with pytest.raises(FileNotFoundError, match=r'no object "/missing"'):
        fit(f"{files}/lzf.h5:/missing")


def test_closed_dataset_and_group(files):
    with h5py.File(files / "lzf.h5", "r") as f:
        dataset, group = f["g/inner"], f["g"]
        with pytest.raises(TypeError, match=r"h5py Group \('/g'\), not a Dataset.*'inner'"):
            fit(group)
        with pytest.raises(TypeError, match=r"h5py File"):
            fit(f)
    with pytest.raises(ValueError, match="closed h5py Dataset"):
        fit(dataset)


WRITER = """
import sys, time
import h5py, numpy as np
X = np.load(sys.argv[2])
with h5py.File(sys.argv[3], "w", libver="latest" if sys.argv[1] == "swmr" else None) as f:
    f.create_dataset("X", data=X, chunks=(16,) + X.shape[1:], maxshape=(None,) + X.shape[1:])
    if sys.argv[1] == "swmr":
        f.swmr_mode = True
    f.flush()
    print("ready", flush=True)
    sys.stdin.read()  # until the test closes its end
"""


@pytest.fixture
def writer(tmp_path):
    """Start a live h5py writer of X (mode "swmr" or "lock") in a child process; yield the file."""
    np.save(tmp_path / "X.npy", X)
    children = []

    def start(mode):
        path = tmp_path / f"{mode}.h5"
        child = subprocess.Popen([sys.executable, "-c", WRITER, mode, str(tmp_path / "X.npy"), str(path)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        children.append(child)
        assert child.stdout.readline().strip() == "ready"
        return path

    yield start
    for child in children:
        child.stdin.close()
        child.wait(timeout=30)


def test_swmr_writer_alive(writer, reference):
    path = writer("swmr")
    assert_same_model(fit(f"{path}:/X"), reference, tol=0)
    with h5py.File(path, "r", libver="latest", swmr=True) as f:
        assert_same_model(fit(f["X"]), reference, tol=0)


def test_locked_by_a_writer(writer):
    path = writer("lock")
    with pytest.raises(sompca.FileLockedError, match="another process.*HDF5_USE_FILE_LOCKING=FALSE") as info:
        fit(f"{path}:/X")
    assert "h5clear" not in str(info.value)


def test_plugin_filters(tmp_path, reference):
    # hdf5plugin's filters, built for its own HDF5, load into the library's libhdf5 1.10 from hdf5plugin's
    # folder, which the package puts on SOMPCA_HDF5_PLUGIN_PATH when it loads the library.
    hdf5plugin = pytest.importorskip("hdf5plugin")
    path = tmp_path / "plugins.h5"
    filters = {"zstd": hdf5plugin.Zstd(), "blosc": hdf5plugin.Blosc(), "lz4": hdf5plugin.LZ4(),
               "bitshuffle": hdf5plugin.Bitshuffle()}
    with h5py.File(path, "w") as f:
        for name, options in filters.items():
            f.create_dataset(name, data=X, chunks=(16, 6, 5), **options)
    for name in filters:
        assert_same_model(fit(f"{path}:/{name}"), reference, tol=0)
    # Without the plugins the library names the filter and where to get it; an h5py Dataset is read by h5py.
    code = f"""
        import h5py, hdf5plugin, numpy as np, sompca
        try:
            sompca.SOMPCA(n_components=3, max_iter=3).fit("{path}:/zstd")
        except sompca.MissingFilterError as err:
            print("refused:", err)
        with h5py.File("{path}", "r") as f:
            print("fitted:", sompca.SOMPCA(n_components=3, max_iter=3).fit(f["zstd"]).explained_variance_.tolist())
    """
    env = dict(os.environ, SOMPCA_HDF5_PLUGIN_PATH=str(tmp_path / "no-plugins"))
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                           timeout=120)
    assert child.returncode == 0, child.stderr
    assert "refused:" in child.stdout and "zstd" in child.stdout.lower() and "hdf5plugin" in child.stdout
    assert f"fitted: {reference.explained_variance_.tolist()}" in child.stdout


def test_save_through_a_symlink(tmp_path, reference):
    # The link stays a link; its target is replaced atomically (as editors and h5py write through links).
    target = tmp_path / "models" / "m.h5"
    target.parent.mkdir()
    link = tmp_path / "latest.h5"
    link.symlink_to(os.path.join("models", "m.h5"))  # dangling until the first save
    for _ in range(2):  # a new target, then a replaced one
        reference.save(link)
        assert link.is_symlink() and target.is_file()
        assert_same_model(sompca.load(target), reference, tol=0)


def test_save_refusals_say_why(tmp_path, reference, writer):
    with pytest.raises(OSError, match="is a directory; name a file") as info:
        reference.save(tmp_path)
    assert "not a sompca model" not in str(info.value)
    held = writer("lock")  # a file another process has open for writing
    with pytest.raises(sompca.FileLockedError, match="cannot tell whether the existing file is a sompca model"):
        reference.save(held)


def test_transform_output(tmp_path, files, reference):
    model = tmp_path / "model.h5"
    reference.save(model)
    data = f"{files}/vds.h5:/X"
    cli = [sys.executable, "-m", "sompca", "transform", str(model), data, "-o"]
    refused = subprocess.run([*cli, f"{model}:/Y"], capture_output=True, text=True)
    assert refused.returncode == 1 and "is a sompca model file" in refused.stderr
    # A group whose name ends in ':' in the FILE:/DATASET form.
    out = tmp_path / "features.h5"
    written = subprocess.run([*cli, f"{out}:/g:/Y"], capture_output=True, text=True)
    assert written.returncode == 0, written.stderr
    with h5py.File(out, "r") as f:
        np.testing.assert_array_equal(f["g:"]["Y"][()], reference.transform(X))


def test_denormal_rescale_message():
    # The factor 2^1061 is no float64: the message says how to apply it instead of printing +Inf.
    with pytest.raises(ValueError, match=r"2\^1061 \(a factor beyond float64's range.*ldexp\(X, 1061\)") as info:
        fit(np.random.default_rng(0).normal(size=(40, 6, 5)) * 1e-320)
    assert "Inf" not in str(info.value)
