"""
EMP vectors as images
=====================

Each feature of a TVP method is an elementary multilinear projection (EMP): one unit vector per mode, here
:math:`u^{(0)}` along the image's rows and :math:`u^{(1)}` along its columns. The feature of an image
:math:`X` is :math:`u^{(0)T} X u^{(1)}`, so the EMP is the rank-one image :math:`u^{(0)} u^{(1)T}` the sample
is compared with. PCA's directions, by contrast, are full 8 x 8 images (64 parameters against 16).

With the relaxed start, SO-MPCA-RS fixes the first EMP to uniform vectors (a flat image: the sample's mean
brightness; the flat image in the first row, placed by its captured variance); later EMPs are orthogonal
to the earlier ones in the orthogonal mode.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import sompca

X = load_digits().images  # (1797, 8, 8), values 0..16

models = {
    "SO-MPCA-RS": sompca.SOMPCA(n_components=8).fit(X),
    "SO-MPCA": sompca.SOMPCA(n_components=8, relaxed_start=False).fit(X),
    "PCA": sompca.PCA(n_components=8).fit(X),
}


def images(model):
    """The P projections of a model as 8 x 8 images (for the TVP methods, u0 u1^T)."""
    return [model.component_tensor(p) for p in range(model.n_components_)]


fig, axes = plt.subplots(len(models), 8, figsize=(9, 3.6))
for row, (name, model) in zip(axes, models.items()):
    for p, (ax, image) in enumerate(zip(row, images(model))):
        limit = np.abs(image).max()
        ax.imshow(image, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_xticks([])
        ax.set_yticks([])
        if p == 0:
            ax.set_ylabel(name, fontsize=9)
        ax.set_title(f"{p + 1}", fontsize=8)
fig.suptitle("The first 8 projections on the digits, by captured variance")
fig.tight_layout()

# %%
# The orthogonal mode: SO-MPCA's vectors of mode ``mode_`` are orthonormal, so their Gram matrix is the
# identity; the other mode's vectors are unit vectors, but not orthogonal.
model = models["SO-MPCA-RS"]
U = model.projections_[model.mode_]
print("orthogonal mode:", model.mode_)
print("max |U^T U - I| in that mode:", np.abs(U.T @ U - np.eye(8)).max())
