"""
Recognition rate against the number of features
===============================================

The paper's protocol (Sec. 4) in small: L training images per class, features learned from them without labels,
and each test image labelled by its nearest training image (1-NN, Euclidean) in feature space. Here L = 5 of the
digits' 10 classes (50 training images, the rest for testing), averaged over 5 random splits, with the features
sorted by captured variance and the first P kept.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.neighbors import KNeighborsClassifier

import sompca

digits = load_digits()
X, y = digits.images, digits.target
L, splits, Ps = 5, 5, np.arange(1, 9)
methods = {
    "SO-MPCA-RS": lambda: sompca.SOMPCA(n_components=8),
    "SO-MPCA": lambda: sompca.SOMPCA(n_components=8, relaxed_start=False),
    "FO-MPCA-RS": lambda: sompca.FOMPCA(n_components=8),
    "UMPCA": lambda: sompca.UMPCA(n_components=8),
    "PCA": lambda: sompca.PCA(n_components=8),
    "MPCA": lambda: sompca.MPCA(n_components=8),
}

rng = np.random.default_rng(0)
rates = {name: np.zeros((splits, len(Ps))) for name in methods}
for s in range(splits):
    train = np.concatenate([rng.choice(np.flatnonzero(y == c), L, replace=False) for c in range(10)])
    test = np.setdiff1d(np.arange(len(y)), train)
    for name, make in methods.items():
        model = make().fit(X[train])
        Z_train, Z_test = model.transform(X[train]), model.transform(X[test])
        for i, P in enumerate(Ps):
            knn = KNeighborsClassifier(n_neighbors=1).fit(Z_train[:, :P], y[train])
            rates[name][s, i] = knn.score(Z_test[:, :P], y[test])

fig, ax = plt.subplots(figsize=(6, 4))
for name, r in rates.items():
    ax.plot(Ps, 100 * r.mean(axis=0), marker="o", label=name)
ax.set_xlabel("number of features P")
ax.set_ylabel("1-NN recognition rate (%)")
ax.set_title(f"Digits, L = {L} training images per class, {splits} splits")
ax.legend()
fig.tight_layout()

for name, r in rates.items():
    print(f"{name:11s} P = 8: {100 * r[:, -1].mean():.1f}%")
