"""Tests of fashion_to_hdf5.py on tiny hand-made IDX files."""

import gzip
import hashlib
import os
import struct

import h5py
import numpy as np
import pytest

import fashion_to_hdf5 as f2h


def idx_bytes(type_code, shape, payload):
    """An IDX file by hand: 0, 0, type, ndim, big-endian uint32 sizes, data."""
    return bytes([0, 0, type_code, len(shape)]) + struct.pack(">" + "I" * len(shape), *shape) + payload


def write(path, data, compress=False):
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)
    return str(path)


def test_read_idx_uint8_images(tmp_path):
    pixels = bytes(range(12))
    path = write(tmp_path / "img-idx3-ubyte.gz", idx_bytes(0x08, (2, 3, 2), pixels), compress=True)
    got = f2h.read_idx(path)
    # Expected: the 12 bytes in C order, shaped as the header says.
    assert got.dtype == np.uint8
    assert got.shape == (2, 3, 2)
    np.testing.assert_array_equal(got, np.arange(12, dtype=np.uint8).reshape(2, 3, 2))


def test_read_idx_big_endian_int32(tmp_path):
    # 258 = 0x00000102 and -2 = 0xfffffffe written big-endian by hand.
    payload = bytes([0, 0, 1, 2, 0xFF, 0xFF, 0xFF, 0xFE])
    got = f2h.read_idx(write(tmp_path / "v-idx1-int", idx_bytes(0x0C, (2,), payload)))
    assert got.dtype == np.int32 and got.dtype.isnative
    np.testing.assert_array_equal(got, [258, -2])


@pytest.mark.parametrize("data, message", [
    (bytes([1, 0, 8, 1, 0, 0, 0, 1, 5]), "magic number"),
    (bytes([0, 0, 0x42, 1, 0, 0, 0, 1, 5]), "element type 0x42"),
    (bytes([0, 0, 8, 0]), "0 dimensions"),
    (bytes([0, 0, 8, 2, 0, 0, 0, 1]), "too short"),
    (idx_bytes(0x08, (2, 2), bytes(3)), "needs 4 data bytes, file has 3"),
    (idx_bytes(0x08, (2,), bytes(3)), "needs 2 data bytes, file has 3"),
    (bytes([0, 0]), "too short"),
])
def test_read_idx_rejects_malformed_files(tmp_path, data, message):
    path = write(tmp_path / "bad-idx", data)
    with pytest.raises(f2h.IDXError, match=message) as info:
        f2h.read_idx(path)
    assert path in str(info.value)


def test_read_idx_rejects_bad_gzip(tmp_path):
    path = write(tmp_path / "bad.gz", b"this is not gzip data")
    with pytest.raises(f2h.IDXError, match="not a valid gzip file"):
        f2h.read_idx(path)


def make_source(directory, n_train=3, n_test=2, test_labels=None):
    """The four official file names, holding tiny 2 x 2 images."""
    rng = np.random.default_rng(5)
    images = {}
    for (name, image_file, label_file), n in zip(f2h.SPLIT_FILES, (n_train, n_test)):
        X = rng.integers(0, 256, size=(n, 2, 2), dtype=np.uint8)
        y = rng.integers(0, 10, size=n, dtype=np.uint8)
        if name == "test" and test_labels is not None:
            y = np.asarray(test_labels, dtype=np.uint8)
        write(directory / image_file, idx_bytes(0x08, X.shape, X.tobytes()), compress=True)
        write(directory / label_file, idx_bytes(0x08, y.shape, y.tobytes()), compress=True)
        images[name] = (X, y)
    return images


def digest(directory):
    return {p: hashlib.sha256(open(os.path.join(directory, p), "rb").read()).hexdigest()
            for p in sorted(os.listdir(directory))}


def test_convert_round_trip(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    images = make_source(source)
    before = digest(source)
    out = tmp_path / "out" / "fashion.h5"
    out.parent.mkdir()
    assert f2h.main(["--source", str(source), str(out)]) == 0
    with h5py.File(out, "r") as f:
        # Expected: train then test, labels alongside, split 0 then 1.
        np.testing.assert_array_equal(f["X"][()], np.concatenate([images["train"][0], images["test"][0]]))
        np.testing.assert_array_equal(f["y"][()], np.concatenate([images["train"][1], images["test"][1]]))
        np.testing.assert_array_equal(f["split"][()], [0, 0, 0, 1, 1])
        assert list(f["y"].attrs["class_names"])[9] == "Ankle boot"
        assert list(f["split"].attrs["split_names"]) == ["train", "test"]
    assert digest(source) == before, "an input file was modified"
    assert os.listdir(out.parent) == ["fashion.h5"], "a temporary file was left behind"


def test_convert_reports_mismatch_and_keeps_old_output(tmp_path, capsys):
    source = tmp_path / "src"
    source.mkdir()
    make_source(source, n_test=2, test_labels=[1, 2, 3])  # 2 test images, 3 labels
    out = tmp_path / "fashion.h5"
    out.write_bytes(b"old contents")
    assert f2h.main(["--source", str(source), str(out)]) == 1
    err = capsys.readouterr().err
    assert "test split: 2 images" in err and "but 3 labels" in err
    assert out.read_bytes() == b"old contents"
    assert sorted(os.listdir(tmp_path)) == ["fashion.h5", "src"]


def test_convert_reports_missing_directory(tmp_path, capsys):
    assert f2h.main(["--source", str(tmp_path / "nowhere"), str(tmp_path / "x.h5")]) == 1
    assert "nowhere" in capsys.readouterr().err
    assert not (tmp_path / "x.h5").exists()
