"""Write a sompca model file with h5py alone, from the layout documented
in hdf5io/doc.go, as another program would: fixed-length ASCII strings and
32-bit integers where sompca writes variable-length UTF-8 and int64.

Usage: python h5py_write_model.py OUT.h5 VERSION METHOD

VERSION is the format_version: 2 (modes numbered from 0: attribute mode,
/projections/U0 ..) or 1 (sompca 0.1.0: attribute nu = mode + 1,
/projections/U1 ..). METHOD is "mpca" (an MPCA model of samples of shape
(3, 2) with 2 features, no orthogonal mode) or "so-mpca" (the same numbers
as an SO-MPCA model whose orthogonal mode is the second, 0-based mode 1).
hdf5io/h5py_test.go checks that LoadModel reads exactly these values.
"""

import sys

import h5py
import numpy as np


def main(path, version, method):
    version = int(version)
    mode = 1 if method == "so-mpca" else -1  # 0-based; -1: none
    with h5py.File(path, "w") as f:
        a = f.attrs
        a["format"] = np.bytes_("sompca-model")
        a["format_version"] = np.int32(version)
        a["library_version"] = np.bytes_("external")
        a["method"] = np.bytes_(method)
        a["relaxed_start"] = np.int8(0)
        if version == 1:
            a["nu"] = np.int32(mode + 1)
        else:
            a["mode"] = np.int32(mode)
        a["max_iter"] = np.int32(7)
        a["tol"] = 0.125
        a["q"] = 0.5
        a["feature_order"] = np.bytes_("extraction")
        a["n_samples"] = np.int32(10)
        a["n_features"] = np.int32(2)
        a["total_variance"] = 3.5
        a["shape"] = np.array([3, 2], dtype=np.int32)
        f["mean"] = np.arange(6.0).reshape(3, 2) / 4
        first = 1 if version == 1 else 0
        f[f"projections/U{first}"] = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        f[f"projections/U{first + 1}"] = np.array([[0.5, -0.5], [0.5, 0.5]])
        f["variance"] = np.array([2.0, 1.0])
        f["extraction"] = np.array([1, 0], dtype=np.int32)
        f["iterations"] = np.array([0, 0], dtype=np.int32)
        f["history"] = np.array([[3.0, 2.5, np.nan]])
        f["history_lengths"] = np.array([2], dtype=np.int32)
        if method == "mpca":
            f["ranks"] = np.array([2, 1], dtype=np.int32)


if __name__ == "__main__":
    main(*sys.argv[1:])
