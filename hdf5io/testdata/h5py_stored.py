"""Write the HDF5 files of hdf5io's storage tests as HDF5 users write them (h5py).

    python h5py_stored.py DIR

DIR/samples.bin holds the samples (M = 20 of 4 x 3, float64 little-endian); every
dataset below that holds them in full reads as these samples, where fill
values replace the unwritten part they are named "partial...".

DIR/data.h5:
  /vds           virtual dataset over a.h5:/X (samples 0-11) and b.h5:/X (12-19)
  /vds_missing   the same over a.h5:/X and gone.h5:/X (no such file)
  /vds_same      virtual dataset over /contiguous of this file (".")
  /partial       chunked (4, 4, 3), unfiltered, samples 0-11 written, the rest fill (-1)
  /partial_gzip  the same, gzip
  /never         chunked, never written (fill 0)
  /never_contig  contiguous, never written (fill 0)
  /contiguous    the samples, contiguous
  /compact       the samples, compact layout
  /external      the samples in external raw file ext.bin
  /external_gone external storage in a file that was deleted
  /lzf           the samples, LZF (h5py's own filter)
  /dangling      soft link to /nowhere
  /extlink       external link to gone.h5:/X

DIR/libver_V.h5 for each libver V that h5py offers (low bound V, high bound
"latest"): /gzip (chunked, gzip), /contiguous and /vds (virtual, over
/contiguous), each the samples.
"""

import os
import sys

import h5py
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(36)
X = rng.integers(-3, 4, size=(20, 4, 3)).astype(np.float64)  # small integers: LZF and gzip compress them
X.astype("<f8").tofile(os.path.join(out, "samples.bin"))

with h5py.File(os.path.join(out, "a.h5"), "w") as f:
    f["X"] = X[:12]
with h5py.File(os.path.join(out, "b.h5"), "w") as f:
    f["X"] = X[12:]
with h5py.File(os.path.join(out, "gone.h5"), "w") as f:
    f["X"] = X[12:]

with open(os.path.join(out, "ext.bin"), "wb") as raw:
    raw.write(X.astype("<f8").tobytes())
with open(os.path.join(out, "ext_gone.bin"), "wb") as raw:
    raw.write(X.astype("<f8").tobytes())

with h5py.File(os.path.join(out, "data.h5"), "w") as f:
    for name, second in [("vds", "b.h5"), ("vds_missing", "gone.h5")]:
        layout = h5py.VirtualLayout(shape=X.shape, dtype="f8")
        layout[:12] = h5py.VirtualSource("a.h5", "X", shape=(12, 4, 3))
        layout[12:] = h5py.VirtualSource(second, "X", shape=(8, 4, 3))
        f.create_virtual_dataset(name, layout, fillvalue=0)
    f.create_dataset("contiguous", data=X)
    layout = h5py.VirtualLayout(shape=X.shape, dtype="f8")
    layout[:] = h5py.VirtualSource(".", "contiguous", shape=X.shape)
    f.create_virtual_dataset("vds_same", layout)
    for name, compression in [("partial", None), ("partial_gzip", "gzip")]:
        d = f.create_dataset(name, shape=X.shape, dtype="f8", chunks=(4, 4, 3), compression=compression,
                             fillvalue=-1.0)
        d[:12] = X[:12]
    f.create_dataset("never", shape=X.shape, dtype="f8", chunks=(4, 4, 3))
    f.create_dataset("never_contig", shape=X.shape, dtype="f8")
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(X.shape)
    h5py.h5d.create(f.id, b"compact", h5py.h5t.IEEE_F64LE, space, dcpl).write(
        h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(X))
    f.create_dataset("external", shape=X.shape, dtype="<f8", external=[("ext.bin", 0, X.nbytes)])
    f.create_dataset("external_gone", shape=X.shape, dtype="<f8", external=[("ext_gone.bin", 0, X.nbytes)])
    f.create_dataset("lzf", data=X, chunks=(4, 4, 3), compression="lzf")
    f["dangling"] = h5py.SoftLink("/nowhere")
    f["extlink"] = h5py.ExternalLink("gone.h5", "/X")
for libver in ["earliest", "v108", "v110", "v112", "v114", "v200", "latest"]:
    try:
        f = h5py.File(os.path.join(out, f"libver_{libver}.h5"), "w", libver=(libver, "latest"))
    except ValueError:
        continue  # a libver this h5py does not know
    with f:
        f.create_dataset("gzip", data=X, chunks=(4, 4, 3), compression="gzip")
        f.create_dataset("contiguous", data=X)
        layout = h5py.VirtualLayout(shape=X.shape, dtype="f8")
        layout[:] = h5py.VirtualSource(".", "contiguous", shape=X.shape)
        f.create_virtual_dataset("vds", layout)
os.remove(os.path.join(out, "gone.h5"))
os.remove(os.path.join(out, "ext_gone.bin"))
