"""Hold an HDF5 file open in a live h5py writer until standard input ends.

    python h5py_writer.py MODE PATH

Writes /X, 20 samples of 4 x 3 (element e of sample m is (m*12 + e) mod 7,
minus 3 for odd m), then prints "ready" and keeps the file open:

  swmr       libver="latest", SWMR mode, appending a sample of zeros every 10 ms
  swmr-v110  the same with libver="v110" (the format HDF5 1.10 writes)
  lock       an ordinary writer (HDF5 locks the file against readers)
"""

import select
import sys

import h5py
import numpy as np

mode, path = sys.argv[1], sys.argv[2]
X = (np.arange(20 * 12) % 7).reshape(20, 4, 3).astype(np.float64)
X[1::2] -= 3
libver = {"swmr": "latest", "swmr-v110": ("v110", "v110")}.get(mode)
with h5py.File(path, "w", libver=libver) as f:
    d = f.create_dataset("X", data=X, maxshape=(None, 4, 3), chunks=(4, 4, 3))
    if mode != "lock":
        f.swmr_mode = True
    f.flush()
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], 0.01)
        if ready and not sys.stdin.read(1):
            break
        if mode != "lock":
            d.resize(d.shape[0] + 1, axis=0)
            d[-1] = 0
            d.flush()
