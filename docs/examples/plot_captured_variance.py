"""
Captured variance per feature
=============================

The variance of each training feature (``explained_variance_``), as the paper's Fig. 2 draws it: semi-orthogonality
(SO-MPCA) constrains the EMPs less than full orthogonality (FO-MPCA) or uncorrelated features (UMPCA), so its
features capture more variance; PCA, whose directions are whole images, captures the most; MPCA's features are
the entries of a projected core, ranked by variance.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

import sompca

X = load_digits().images
P = 8
methods = {
    "SO-MPCA": sompca.SOMPCA(n_components=P, relaxed_start=False),
    "SO-MPCA-RS": sompca.SOMPCA(n_components=P),
    "FO-MPCA": sompca.FOMPCA(n_components=P, relaxed_start=False),
    "UMPCA": sompca.UMPCA(n_components=P),
    "PCA": sompca.PCA(n_components=P),
    "MPCA": sompca.MPCA(n_components=P),
}

fig, ax = plt.subplots(figsize=(6, 4))
for name, estimator in methods.items():
    model = estimator.fit(X)
    ax.plot(np.arange(1, P + 1), model.explained_variance_, marker="o", label=name)
    print(f"{name:11s} total over {P} features: {model.explained_variance_ratio_.sum():.3f} of the variance")
ax.set_xlabel("feature p")
ax.set_ylabel("captured variance")
ax.set_yscale("log")
ax.legend()
ax.set_title("Captured variance per feature, digits")
fig.tight_layout()
