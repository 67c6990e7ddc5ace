"""Write, with h5py only, the datasets of hdf5io's layout test.

Usage: python h5py_layouts.py OUT.h5 CORRUPT.h5

OUT.h5 holds the same M = 1100 uint8 samples of shape (6, 5, 10) in every
storage layout the test reads: /contiguous; /chunks64, /chunks1 (chunks of
64 and of 1 sample); /auto (h5py's chunks=True, which cuts across the
sample's axes too); /gzip (gzip + shuffle, chunks of 64); /last64 (samples
along the last axis, shape (6, 5, 10, M), chunks of 64 samples). Element i
of the sample-major data is value(i), which hdf5io/layout_test.go computes
the same way.

CORRUPT.h5 holds /X, gzip'd in chunks of 64 samples, whose tenth chunk is
overwritten with garbage after the file is closed: reading it fails in the
middle of a pass.
"""

import sys

import h5py
import numpy as np

M, SHAPE = 1100, (6, 5, 10)


def values():
    i = np.arange(M * np.prod(SHAPE), dtype=np.int64)
    return ((i * 7919 + (i // 120) * 13) % 251).astype(np.uint8).reshape((M,) + SHAPE)


def main(out, corrupt):
    x = values()
    with h5py.File(out, "w") as f:
        f.create_dataset("contiguous", data=x)
        f.create_dataset("chunks64", data=x, chunks=(64,) + SHAPE)
        f.create_dataset("chunks1", data=x, chunks=(1,) + SHAPE)
        auto = f.create_dataset("auto", data=x, chunks=True)
        assert auto.chunks[1:] != SHAPE, auto.chunks  # cuts across the sample's axes
        f.create_dataset("gzip", data=x, chunks=(64,) + SHAPE, compression="gzip", shuffle=True)
        f.create_dataset("last64", data=np.moveaxis(x, 0, -1), chunks=SHAPE + (64,))
    with h5py.File(corrupt, "w") as f:
        f.create_dataset("X", data=x, chunks=(64,) + SHAPE, compression="gzip")
    with h5py.File(corrupt, "r") as f:
        info = f["X"].id.get_chunk_info(9)
    with open(corrupt, "r+b") as raw:
        raw.seek(info.byte_offset)
        raw.write(b"\xff" * info.size)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
