"""Shared fixtures: small deterministic tensors and HDF5 files of them."""

import h5py
import numpy as np
import pytest

import sompca
from helpers import make_samples
from sompca import _lib


def pytest_report_header(config):
    # Which package and library the tests exercise (the installed copy under `make test`).
    return [f"sompca {sompca.__version__} from {sompca.__file__}", f"libsompca {sompca.library_version()} from {_lib.library_path}"]


@pytest.fixture(scope="session")
def X3():
    """30 samples of shape 5 x 4 x 3 (an order-3 tensor)."""
    return make_samples((30, 5, 4, 3), seed=1)


@pytest.fixture(scope="session")
def X2():
    """40 samples of shape 8 x 6."""
    return make_samples((40, 8, 6), seed=2)


@pytest.fixture()
def h5file(tmp_path, X2):
    """An HDF5 file holding X2 as /data/X (float64), /data/X32 (float32) and /data/U8 (uint8)."""
    path = tmp_path / "samples.h5"
    with h5py.File(path, "w") as f:
        f["/data/X"] = X2
        f["/data/X32"] = X2.astype(np.float32)
        f["/data/U8"] = np.clip(X2 * 10 + 100, 0, 255).astype(np.uint8)
    return path
