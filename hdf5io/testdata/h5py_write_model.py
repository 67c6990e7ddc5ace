"""Write a sompca model file with h5py alone, from the layout documented
in hdf5io/doc.go, as another program would: fixed-length ASCII strings and
32-bit integers where sompca writes variable-length UTF-8 and int64.

Usage: python h5py_write_model.py OUT.h5

The model is an MPCA model of samples of shape (3, 2) with 2 features;
hdf5io/h5py_test.go checks that LoadModel reads exactly these values.
"""

import sys

import h5py
import numpy as np


def main(path):
    with h5py.File(path, "w") as f:
        a = f.attrs
        a["format"] = np.bytes_("sompca-model")
        a["format_version"] = np.int32(1)
        a["library_version"] = np.bytes_("external")
        a["method"] = np.bytes_("mpca")
        a["relaxed_start"] = np.int8(0)
        a["nu"] = np.int32(0)
        a["max_iter"] = np.int32(7)
        a["tol"] = 0.125
        a["q"] = 0.5
        a["feature_order"] = np.bytes_("extraction")
        a["n_samples"] = np.int32(10)
        a["n_features"] = np.int32(2)
        a["total_variance"] = 3.5
        a["shape"] = np.array([3, 2], dtype=np.int32)
        f["mean"] = np.arange(6.0).reshape(3, 2) / 4
        f["projections/U1"] = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        f["projections/U2"] = np.array([[0.5, -0.5], [0.5, 0.5]])
        f["variance"] = np.array([2.0, 1.0])
        f["extraction"] = np.array([1, 0], dtype=np.int32)
        f["iterations"] = np.array([0, 0], dtype=np.int32)
        f["history"] = np.array([[3.0, 2.5, np.nan]])
        f["history_lengths"] = np.array([2], dtype=np.int32)
        f["ranks"] = np.array([2, 1], dtype=np.int32)


if __name__ == "__main__":
    main(sys.argv[1])
