"""Convert Fashion-MNIST from its IDX files to one HDF5 file.

Debian's package ``dataset-fashion-mnist`` installs the four gzipped IDX
files of Fashion-MNIST (Xiao, Rasul and Vollgraf 2017; MIT licence) under
``/usr/share/datasets/fashion-mnist``. This program reads them with numpy
(the IDX format is a big-endian header followed by raw bytes, see
http://yann.lecun.com/exdb/mnist/) and writes an HDF5 file that sompca's
examples read:

``X``
    uint8, 70000 x 28 x 28: the images, grey levels 0..255, the 60,000
    official training images first, then the 10,000 test images.
``y``
    uint8, 70000: the class labels 0..9 (attribute ``class_names``).
``split``
    uint8, 70000: the official split, 0 = train, 1 = test (attribute
    ``split_names``).

The output is written to a temporary file and renamed into place, so an
interrupted run never leaves a half-written file; the input files are only
read.

Usage::

    python fashion_to_hdf5.py [--source DIR] OUT.h5
"""

import argparse
import gzip
import os
import sys

import h5py
import numpy as np

from atomic import atomic_output

DEFAULT_SOURCE = "/usr/share/datasets/fashion-mnist"

# The four files of the official distribution, as (images, labels) pairs.
SPLIT_FILES = (
    ("train", "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    ("test", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
)

CLASS_NAMES = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
)

# IDX type codes (third byte of the magic number) and their big-endian dtypes.
_IDX_TYPES = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


class IDXError(ValueError):
    """An IDX file is malformed; the message names the file and the fault."""


def read_idx(path):
    """Read an IDX file (optionally gzip-compressed) into a numpy array.

    Parameters
    ----------
    path : str
        The file; a name ending in ``.gz`` is decompressed.

    Returns
    -------
    numpy.ndarray
        An array with the file's dimensions and element type (in native
        byte order).

    Raises
    ------
    IDXError
        If the magic number, the type code, the dimensions or the amount of
        data is wrong.
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "labels-idx1-ubyte")
    >>> with open(p, "wb") as f:
    ...     _ = f.write(bytes([0, 0, 8, 1, 0, 0, 0, 3, 7, 8, 9]))
    >>> read_idx(p)
    array([7, 8, 9], dtype=uint8)
    """
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except (gzip.BadGzipFile, EOFError) as err:
        raise IDXError(f"{path}: not a valid gzip file: {err}") from err
    if len(raw) < 4:
        raise IDXError(f"{path}: {len(raw)} bytes, too short for an IDX header")
    if raw[0] != 0 or raw[1] != 0:
        raise IDXError(f"{path}: bad IDX magic number {raw[:4].hex()} (must start with 0000)")
    dtype = _IDX_TYPES.get(raw[2])
    if dtype is None:
        raise IDXError(f"{path}: unknown IDX element type 0x{raw[2]:02x}")
    ndim = raw[3]
    if ndim == 0:
        raise IDXError(f"{path}: IDX header declares 0 dimensions")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise IDXError(f"{path}: {len(raw)} bytes, too short for a {ndim}-dimensional IDX header")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    have = len(raw) - header
    if have != want:
        raise IDXError(f"{path}: shape {shape} of {dtype.name} needs {want} data bytes, file has {have}")
    data = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))


def read_fashion_mnist(source=DEFAULT_SOURCE):
    """Read the official Fashion-MNIST files from a directory.

    Parameters
    ----------
    source : str
        Directory holding the four ``*-idx?-ubyte.gz`` files.

    Returns
    -------
    X : numpy.ndarray of uint8, shape (70000, 28, 28)
    y : numpy.ndarray of uint8, shape (70000,)
    split : numpy.ndarray of uint8, shape (70000,)
        0 for the official training images, 1 for the test images.

    Raises
    ------
    IDXError
        If a file is malformed or the images and labels disagree.
    """
    images, labels, splits = [], [], []
    for code, (name, image_file, label_file) in enumerate(SPLIT_FILES):
        image_path = os.path.join(source, image_file)
        label_path = os.path.join(source, label_file)
        X = read_idx(image_path)
        y = read_idx(label_path)
        if X.dtype != np.uint8 or X.ndim != 3:
            raise IDXError(f"{image_path}: want 3-d uint8 images, got {X.ndim}-d {X.dtype}")
        if y.dtype != np.uint8 or y.ndim != 1:
            raise IDXError(f"{label_path}: want 1-d uint8 labels, got {y.ndim}-d {y.dtype}")
        if len(X) != len(y):
            raise IDXError(f"{name} split: {len(X)} images in {image_path} but {len(y)} labels in {label_path}")
        if images and X.shape[1:] != images[0].shape[1:]:
            raise IDXError(f"{image_path}: image shape {X.shape[1:]} differs from {images[0].shape[1:]}")
        if y.size and y.max() >= len(CLASS_NAMES):
            raise IDXError(f"{label_path}: label {int(y.max())} outside 0..{len(CLASS_NAMES) - 1}")
        images.append(X)
        labels.append(y)
        splits.append(np.full(len(y), code, dtype=np.uint8))
    return np.concatenate(images), np.concatenate(labels), np.concatenate(splits)


def write_hdf5(path, X, y, split):
    """Write the data set to ``path`` atomically (temporary file + rename).

    Parameters
    ----------
    path : str
        Output file; its directory must exist.
    X, y, split : numpy.ndarray
        As returned by :func:`read_fashion_mnist`.
    """
    with atomic_output(path) as tmp:
        with h5py.File(tmp, "w") as f:
            f.attrs["source"] = "Fashion-MNIST (Xiao, Rasul and Vollgraf 2017), MIT licence"
            f.create_dataset("X", data=X, compression="gzip", compression_opts=4,
                             chunks=(max(1, min(1000, len(X))),) + X.shape[1:])
            dy = f.create_dataset("y", data=y)
            dy.attrs["class_names"] = list(CLASS_NAMES)
            ds = f.create_dataset("split", data=split)
            ds.attrs["split_names"] = [name for name, _, _ in SPLIT_FILES]

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="output HDF5 file")
    parser.add_argument("--source", default=DEFAULT_SOURCE,
                        help=f"directory of the IDX files (default {DEFAULT_SOURCE})")
    args = parser.parse_args(argv)
    try:
        X, y, split = read_fashion_mnist(args.source)
        write_hdf5(args.out, X, y, split)
    except (IDXError, OSError) as err:
        print(f"fashion_to_hdf5: error: {err}", file=sys.stderr)
        return 1
    print(f"fashion_to_hdf5: wrote {args.out}: X {X.shape} {X.dtype}, "
          f"{int((split == 0).sum())} train + {int((split == 1).sum())} test images")
    return 0


if __name__ == "__main__":
    sys.exit(main())
