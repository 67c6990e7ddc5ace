"""Read a sompca model file with h5py only, check the documented layout
(hdf5io/doc.go) and print its contents as JSON for hdf5io's h5py test.

Usage: python h5py_read_model.py MODEL.h5 [FEATURES.h5 DATASET]

Floats are printed with repr, which round-trips exactly; the history is
printed row by row, cut to history_lengths, after checking that the
padding is NaN. With FEATURES.h5, the features dataset is printed too.
"""

import json
import sys

import h5py
import numpy as np


def main(path, features=None, dataset=None):
    out = {}
    with h5py.File(path, "r") as f:
        a = f.attrs
        assert a["format"] == "sompca-model", a["format"]
        assert int(a["format_version"]) == 2
        for key in ["format", "library_version", "method", "feature_order"]:
            assert isinstance(a[key], str), (key, type(a[key]))
            out[key] = a[key]
        for key in ["format_version", "relaxed_start", "mode", "max_iter", "n_samples", "n_features"]:
            out[key] = int(a[key])
        for key in ["tol", "q", "total_variance"]:
            out[key] = float(a[key])
        shape = [int(d) for d in a["shape"]]
        out["shape"] = shape
        p = out["n_features"]

        mean = f["mean"]
        assert list(mean.shape) == shape and mean.dtype == np.float64
        out["mean"] = mean[()].ravel().tolist()

        proj = f["projections"]
        names = ["W"] if out["method"] == "pca" else ["U%d" % n for n in range(len(shape))]
        assert sorted(proj.keys()) == sorted(names), list(proj.keys())
        out["projections"] = []
        for n, name in enumerate(names):
            u = proj[name]
            rows = int(np.prod(shape)) if name == "W" else shape[n]
            assert u.shape == (rows, p) and u.dtype == np.float64, (name, u.shape)
            out["projections"].append(u[()].tolist())

        for key, kind in [("variance", np.float64), ("extraction", np.int64), ("iterations", np.int64)]:
            d = f[key]
            assert d.shape == (p,) and d.dtype == kind, (key, d.shape, d.dtype)
            out[key] = d[()].tolist()
        if "history" in f:
            h, lengths = f["history"][()], f["history_lengths"][()]
            assert h.shape[0] == lengths.shape[0]
            for row, n in zip(h, lengths):
                assert np.all(np.isnan(row[n:]))
            out["history"] = [row[:n].tolist() for row, n in zip(h, lengths)]
        if "ranks" in f:
            out["ranks"] = f["ranks"][()].tolist()
        if "feature_modes" in f:
            d = f["feature_modes"]
            assert d.shape == (p,) and d.dtype == np.int64, (d.shape, d.dtype)
            assert out["mode"] == -2, out["mode"]
            out["feature_modes"] = d[()].tolist()
    if features is not None:
        with h5py.File(features, "r") as f:
            d = f[dataset]
            assert d.dtype == np.float64 and d.ndim == 2
            out["features"] = d[()].tolist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:])
