"""Convert the reference fits in shared/fixtures (HDF5) to JSON for the pure-Go solver tests.

The fixtures were made by an independent NumPy implementation of the paper's methods (see
shared/fixtures/README.md); this script only changes their container, so that package solver can be
tested without cgo. Run from the repository root:

    python solver/testdata/convert_fixtures.py ../shared/fixtures solver/testdata/fixtures.json
"""
import json
import os
import sys

import h5py
import numpy as np


def arr(d):
    a = np.asarray(d)
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel(order="C")]}


def main(src, dst):
    out = {}
    for case in sorted(os.listdir(src)):
        cdir = os.path.join(src, case)
        if not os.path.isdir(cdir):
            continue
        entry = {}
        with h5py.File(os.path.join(cdir, "input.h5"), "r") as f:
            entry["input"] = arr(f["X"][()])
        for name in sorted(os.listdir(cdir)):
            if name == "input.h5" or not name.endswith(".h5"):
                continue
            with h5py.File(os.path.join(cdir, name), "r") as f:
                fit = {"attrs": {}}
                for k, v in f.attrs.items():
                    if isinstance(v, (bytes, str)):
                        fit["attrs"][k] = v.decode() if isinstance(v, bytes) else v
                    else:
                        fit["attrs"][k] = np.asarray(v).item()
                for k in f:
                    fit[k] = arr(f[k][()])
            entry[name[:-3]] = fit
        out[case] = entry
    with open(dst, "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
