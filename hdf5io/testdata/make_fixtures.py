"""Write hdf5io/testdata/odd.h5, the checked-in fixture of datasets that
hdf5io itself never writes: non-numeric element types and odd shapes for
the error tests, and a big-endian dataset.

Run from the repository root with a Python that has numpy and h5py::

    .venv/bin/python hdf5io/testdata/make_fixtures.py

The file is written with h5py's default ``libver="earliest"``, so any
HDF5 from 1.8 on reads it.
"""

import os

import h5py
import numpy as np


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "odd.h5")
    with h5py.File(path, "w") as f:
        f["strings"] = np.array([[b"ab", b"cd"], [b"ef", b"gh"]])
        f.create_dataset("vlen_strings", data=np.array([["a", "b"], ["c", "d"]], dtype=object),
                         dtype=h5py.string_dtype())
        f["compound"] = np.zeros((3, 2), dtype=[("x", "<f8"), ("y", "<i4")])
        f["bool"] = np.ones((3, 2), dtype=bool)  # h5py writes an enum
        f.create_dataset("enum", (3, 2), dtype=h5py.enum_dtype({"red": 0, "green": 1}, basetype="i1"))
        f["float16"] = np.ones((3, 2), dtype=np.float16)
        f["complex"] = np.ones((3, 2), dtype=np.complex128)
        f["opaque"] = np.zeros((3, 2), dtype="V4")
        f["scalar"] = np.float64(1.5)
        f["vector"] = np.arange(5.0)
        f.create_dataset("no_samples", shape=(0, 3, 2), dtype="<f8")
        f.create_dataset("empty_mode", shape=(4, 0), dtype="<f8")
        f["big_endian"] = np.arange(24, dtype=">i4").reshape(4, 3, 2) - 12
        f["big_endian_f64"] = (np.arange(24, dtype=">f8") / 8).reshape(4, 6)
        g = f.create_group("group")
        g["inner"] = np.arange(6.0).reshape(3, 2)
        f["dangling"] = h5py.SoftLink("/nowhere")
        f["named_type"] = np.dtype("<f8")


if __name__ == "__main__":
    main()
