"""Write, with h5py only, the fixture that hdf5io's h5py test reads.

Usage: python h5py_write.py OUT.h5

For each real type T the file holds /first/T, shape (13, 4, 3), samples
first; /last/T, the same samples along the last axis (4, 3, 13); /colmajor/T,
the same samples as a column-major program (MATLAB, R, Julia) writes the
4 x 3 x 13 array, which HDF5 shows as (13, 3, 4); and for multi-byte types
but longdouble /big/T, big-endian, samples first. /chunked is float32,
chunked and gzip-compressed. Element i of the sample-major data is
value(T, i), which hdf5io/h5py_test.go computes the same way.
"""

import sys

import h5py
import numpy as np

M, SHAPE = 13, (4, 3)
TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64",
         "float16", "longdouble", "bool"]


def values(name, n):
    i = np.arange(n, dtype=np.int64)
    if name == "bool":
        return i % 3 == 0
    if name.startswith("float") or name == "longdouble":
        return (i * 0.25 - 3).astype(name)
    v = (i * 7919) % 251
    if not name.startswith("u"):
        v = v - 125
    return v.astype(name)


def main(path):
    n = M * SHAPE[0] * SHAPE[1]
    with h5py.File(path, "w") as f:
        for name in TYPES:
            first = values(name, n).reshape((M,) + SHAPE)
            f["first/" + name] = first
            author = np.moveaxis(first, 0, -1)  # 4 x 3 x 13, samples last, as MATLAB holds it
            f["last/" + name] = np.ascontiguousarray(author)
            f["colmajor/" + name] = np.ascontiguousarray(author.T)  # column-major bytes, HDF5 dims reversed
            if np.dtype(name).itemsize > 1 and name != "longdouble":
                f["big/" + name] = first.astype(np.dtype(name).newbyteorder(">"))
        f.create_dataset("chunked", data=values("float32", n).reshape((M,) + SHAPE),
                         chunks=(5, 4, 3), compression="gzip")


if __name__ == "__main__":
    main(sys.argv[1])
