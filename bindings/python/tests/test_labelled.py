"""xarray DataArrays, zarr arrays and masked arrays (issue 35, item 10)."""

import numpy as np
import pytest

import sompca
from helpers import make_samples

xarray = pytest.importorskip("xarray")  # installed by `make deps`; a skip is reported, never a pass


def labelled(X):
    """X (M, 8, 6) as a DataArray with the sample dim in the middle and coordinates on it."""
    moved = np.moveaxis(X, 0, 1)  # (8, M, 6)
    return xarray.DataArray(moved, dims=("row", "time", "col"),
                            coords={"time": np.arange(len(X)) * 10, "label": ("time", np.arange(len(X)) % 3),
                                    "row": np.arange(8)}, name="images")


def test_dataarray_with_a_named_sample_dim(X2):
    data = labelled(X2)
    model = sompca.SOMPCA(n_components=3, sample_dim="time").fit(data)
    # The sample's modes are the other dims, in the DataArray's order: the same fit as the numpy samples.
    assert model.dims_in_ == ("row", "col") and model.shape_in_ == (8, 6)
    reference = sompca.SOMPCA(n_components=3).fit(X2)
    features = model.transform(data)
    assert isinstance(features, xarray.DataArray) and features.dims == ("time", "feature")
    np.testing.assert_array_equal(features.values, reference.transform(X2))
    np.testing.assert_array_equal(features["time"], data["time"])
    np.testing.assert_array_equal(features["label"], data["label"])  # coordinates along the sample dim come along
    assert list(features["feature"].values) == ["sompca0", "sompca1", "sompca2"]
    # Later data with its dims in another order: put back in the training order by name.
    shuffled = data.transpose("col", "time", "row")
    np.testing.assert_array_equal(model.transform(shuffled).values, features.values)
    np.testing.assert_allclose(model.score_samples(shuffled), reference.score_samples(X2), rtol=1e-12)


def test_dataarray_errors(X2):
    data = labelled(X2)
    with pytest.raises(ValueError, match=r"sample_dim='sample' is not a dimension of X, whose dims are \('row', 'time', 'col'\)"):
        sompca.SOMPCA(sample_dim="sample").fit(data)
    model = sompca.SOMPCA(n_components=2, sample_dim="time").fit(data)
    with pytest.raises(ValueError, match=r"sample dims \('row', 'y'\).*fitted on sample dims \('row', 'col'\)"):
        model.transform(data.rename(col="y"))
    with pytest.raises(ValueError, match="xarray Dataset"):
        model.transform(data.to_dataset())


def test_dask_backed_dataarray_takes_the_dask_path(X2):
    pytest.importorskip("dask.array")
    data = labelled(X2).chunk({"time": 20})
    assert data.chunks is not None
    model = sompca.SOMPCA(n_components=3, sample_dim="time").fit(data)
    features = model.transform(data)
    assert features.chunks is not None  # still lazy: a dask array inside
    # A dask fit is the in-memory fit (blocks of 20 samples: to rounding, README "Dask").
    reference = sompca.SOMPCA(n_components=3).fit(X2).transform(X2)
    np.testing.assert_allclose(features.values, reference, rtol=0, atol=1e-10 * np.abs(reference).max())


def test_zarr_array_streams_by_blocks(monkeypatch):
    zarr = pytest.importorskip("zarr")
    X = make_samples((200, 8, 6), seed=5)
    store = zarr.create_array(store={}, shape=X.shape, chunks=(50, 8, 6), dtype="f8")
    store[...] = X
    reads = []
    original = type(store).__getitem__

    def counting(self, key):
        value = original(self, key)
        reads.append(np.shape(value)[0])
        return value

    monkeypatch.setattr(type(store), "__getitem__", counting)
    model = sompca.SOMPCA(n_components=3).fit(store)
    # Read a block at a time: chunks of 50 samples, at least the block multiple, 64: 64, 64, 64, 8 a pass.
    assert set(reads) == {64, 8} and len(reads) % 4 == 0
    # Blocks that start at multiples of 64 give the in-memory fit bit for bit (README, "Dask").
    reference = sompca.SOMPCA(n_components=3).fit(X)
    for a, b in zip(model.projections_, reference.projections_):
        np.testing.assert_array_equal(a, b)
    reads.clear()
    np.testing.assert_array_equal(model.transform(store), reference.transform(X))
    assert reads == [50, 50, 50, 50]  # transform: a chunk at a time


def test_masked_arrays_with_masked_entries_are_refused(X2):
    masked = np.ma.masked_greater(X2, 3.0)
    count = int(masked.mask.sum())
    assert count > 0
    with pytest.raises(ValueError, match=f"masked array with {count} masked entries"):
        sompca.SOMPCA().fit(masked)
    # Nothing masked: the data, as they are.
    unmasked = np.ma.masked_array(X2, mask=False)
    np.testing.assert_array_equal(sompca.SOMPCA(n_components=2).fit(unmasked).transform(unmasked),
                                  sompca.SOMPCA(n_components=2).fit(X2).transform(X2))
