"""
A Dask fit
==========

``fit`` and ``transform`` take a dask array with samples on axis 0. Each pass over the samples is computed block
by block where the blocks live (here a local in-process cluster; on a real one, a ``Client`` connected to its
scheduler) and folded by the library in block order, so with blocks that start at multiples of 64 samples the
model equals the in-memory fit's bit for bit. ``transform`` returns a dask array chunked like the input.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.datasets import load_digits

import sompca

digits = load_digits()
X = digits.images

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
        Client(cluster) as client:
    blocks = da.from_array(X, chunks=(512, 8, 8))  # 4 blocks of 512 samples (the last 261)
    model = sompca.SOMPCA(n_components=8).fit(blocks)
    features = model.transform(blocks).compute()

local = sompca.SOMPCA(n_components=8).fit(X)
same = all(np.array_equal(a, b) for a, b in zip(model.projections_, local.projections_))
print("projections equal to the in-memory fit's bit for bit:", same)

fig, ax = plt.subplots(figsize=(5, 4.5))
points = ax.scatter(features[:, 1], features[:, 2], c=digits.target, cmap="tab10", s=6)
ax.legend(*points.legend_elements(), title="digit", fontsize=7, loc="best")
ax.set_xlabel("feature 2")
ax.set_ylabel("feature 3")
ax.set_title("SO-MPCA-RS features of the digits, fitted by Dask")
fig.tight_layout()
