"""Write variants of a sompca model file whose attributes or datasets have
types or shapes the format does not allow (for corrupt_test.go).

    python h5py_corrupt_model.py MODEL.h5 OUTDIR

Each variant is OUTDIR/<name>.h5, a copy of MODEL.h5 with one change.
"""
import os
import shutil
import sys

import h5py
import numpy as np

model, out = sys.argv[1], sys.argv[2]


def variant(name, change):
    path = os.path.join(out, name + ".h5")
    shutil.copyfile(model, path)
    with h5py.File(path, "r+") as f:
        change(f)


def replace_attr(f, name, value, dtype=None):
    del f.attrs[name]
    f.attrs.create(name, value, dtype=dtype)


def odd_precision(f):
    # An int64 whose datatype says only 40 of its bits are significant.
    t = h5py.h5t.STD_I64LE.copy()
    t.set_precision(40)
    del f.attrs["n_samples"]
    a = h5py.h5a.create(f.id, b"n_samples", t, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(1234, dtype=np.int64))


def odd_float(f):
    # A float64 whose exponent field is placed where IEEE puts none.
    t = h5py.h5t.IEEE_F64LE.copy()
    t.set_fields(63, 50, 11, 0, 50)
    del f.attrs["tol"]
    a = h5py.h5a.create(f.id, b"tol", t, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(0.5, dtype=np.float64))


variant("tol-edited", lambda f: replace_attr(f, "tol", 0.25))
variant("format-int", lambda f: replace_attr(f, "format", 7))
variant("method-long", lambda f: replace_attr(f, "method", np.bytes_(b"so-mpca".ljust(300, b" "))))
variant("method-array", lambda f: replace_attr(f, "method", np.array([b"so-mpca", b"pca"])))
variant("nfeatures-float", lambda f: replace_attr(f, "n_features", 2.0))
variant("nfeatures-array", lambda f: replace_attr(f, "n_features", np.array([2, 2])))
variant("shape-2d", lambda f: replace_attr(f, "shape", np.array([[3, 3]])))
variant("shape-long", lambda f: replace_attr(f, "shape", np.ones(100, dtype=np.int64)))
variant("nsamples-precision", odd_precision)
variant("tol-fields", odd_float)


def mean_unwritten(f):
    # /mean with the right shape but no data stored (reads as fill values).
    del f["mean"]
    f.create_dataset("mean", shape=(3, 3), dtype="f8")


variant("mean-unwritten", mean_unwritten)
