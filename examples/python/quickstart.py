"""sompca quickstart: learn features from small images, classify with them, save the model.

Run it with `make test` or, once `make python-package` has installed sompca
into .venv, with `.venv/bin/python examples/python/quickstart.py`.
"""

import os
import tempfile

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

import sompca

# 1797 handwritten digits as 8 x 8 images (bundled with scikit-learn, no download).
# sompca wants the samples along the first axis: X has shape (1797, 8, 8).
digits = load_digits()
X = digits.images.astype(np.uint8)  # pixel values 0..16; uint8 is used without a copy
y = digits.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

# Fit SO-MPCA with relaxed start (the paper's method) and extract 8 features per image.
# A method can also be named as the C API and the command line name it:
# sompca.estimator_for("so-mpca-rs", n_components=8) is the same estimator.
model = sompca.SOMPCA(n_components=8).fit(X_train)
assert sompca.method_name(model) == "so-mpca-rs"
train_features = model.transform(X_train)  # shape (n_train, 8), float64
test_features = model.transform(X_test)
print(f"{sompca.method_name(model)}: {model.n_components_} features, orthogonal mode {model.mode_}, "
      f"{model.explained_variance_ratio_.sum():.1%} of the training variance")

# Each feature is an elementary multilinear projection: one vector per mode.
u1, u2 = model.projections_  # each 8 x 8: column p belongs to feature p
first = np.einsum("mij,i,j->m", X_test - model.mean_, u1[:, 0], u2[:, 0])
assert np.allclose(first, test_features[:, 0])

# Classify the test digits by their nearest training neighbour in feature space.
knn = KNeighborsClassifier(n_neighbors=1).fit(train_features, y_train)
accuracy = knn.score(test_features, y_test)
print(f"1-nearest-neighbour accuracy on {len(y_test)} test digits: {accuracy:.3f}")

# Save the model to an HDF5 file and load it back: same features.
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "digits-model.h5")
    model.save(path)
    loaded = sompca.load(path)
    assert np.array_equal(loaded.transform(X_test), test_features)
    print(f"saved to and loaded from {os.path.basename(path)}: identical features")

# The quickstart doubles as a test: the features must be useful (chance is 0.1; this split gives 0.81).
assert accuracy > 0.7, accuracy
