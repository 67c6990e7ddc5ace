"""Run by run.sh in the fresh virtual environment holding only the wheel and its dependencies.

First the conditions of the test: no go on PATH, the system libhdf5 not loadable, sompca not
importable from the source tree. Then a fit of an array and one of an HDF5 file streamed by the
library (through the wheel's own libhdf5), checked against numpy.
"""

import ctypes
import os
import pathlib
import shutil
import sys

version = sys.argv[1]
assert shutil.which("go") is None, f"go is on PATH: {shutil.which('go')}"
for name in ("libhdf5_serial.so.103", "libhdf5.so.103", "libhdf5_serial.so", "libhdf5.so"):
    try:
        ctypes.CDLL(name)
    except OSError:
        continue
    raise AssertionError(f"the system's {name} can still be loaded")
assert "SOMPCA_LIBRARY" not in os.environ and "PYTHONPATH" not in os.environ

import h5py  # noqa: E402  (its own wheel brings its own HDF5)
import numpy as np  # noqa: E402

import sompca  # noqa: E402

package = pathlib.Path(sompca.__file__).resolve().parent
venv = pathlib.Path(sys.prefix).resolve()
assert venv in package.parents, f"sompca imported from {package}, not from the fresh venv {venv}"
assert sompca.__version__ == sompca.library_version() == version, (sompca.__version__, version)
assert sompca._lib.library_path == package / "libsompca.so", sompca._lib.library_path

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 6, 5)) + np.multiply.outer(rng.normal(size=60), np.outer(np.arange(6), np.ones(5)))
model = sompca.SOMPCA(n_components=3).fit(X)
# The features by their definition (Shi and Lu, eqs. 1-2), computed with numpy.
expected = np.einsum("mab,ap,bp->mp", X - model.mean_, *model.projections_)
np.testing.assert_allclose(model.transform(X), expected, rtol=0, atol=1e-10 * np.abs(expected).max())

with h5py.File("samples.h5", "w") as f:
    f["X"] = X
streamed = sompca.SOMPCA(n_components=3).fit("samples.h5:/X")  # read by the wheel's libhdf5
np.testing.assert_allclose(streamed.transform(X), model.transform(X), rtol=0, atol=1e-10 * np.abs(expected).max())
streamed.save("model.h5")
np.testing.assert_array_equal(sompca.load("model.h5").transform(X), streamed.transform(X))

# Every HDF5 library in the process came from a wheel (sompca's or h5py's), none from the system.
with open("/proc/self/maps") as maps:
    hdf5 = {line.split()[-1] for line in maps if "libhdf5" in line}
assert hdf5 and all(path.startswith(str(venv)) for path in hdf5), hdf5
assert any("/sompca.libs/" in path for path in hdf5), hdf5
print(f"fit_in_fresh_venv: sompca {version} fitted from {package}, HDF5 from: {sorted(hdf5)}")
