"""Shared set-up for the tests of sompca's Python examples.

The example programs live one directory up and are scripts, not an
installed package, so that directory is put on sys.path. ``StandInPCA`` is
a tiny PCA with the estimator interface the protocol relies on; it lets the
protocol's own logic (splits, classifier, tables, pictures) be tested
independently of the sompca bindings. The shipped programs use sompca only.
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class StandInPCA:
    """PCA of the vectorised samples by numpy's SVD, sompca-style attributes."""

    def __init__(self, n_components=None):
        self.n_components = n_components

    def fit(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
        self.mean_ = X.mean(axis=0)
        _, s, vt = np.linalg.svd(X - self.mean_, full_matrices=False)
        p = min(len(X) - 1, X.shape[1])
        if self.n_components is not None:
            p = min(p, self.n_components)
        self.components_ = vt[:p]
        self.explained_variance_ = s[:p] ** 2 / (len(X) - 1)
        self.n_components_ = p
        # Pretend the features were extracted in reverse order, so that the
        # extraction-order code is exercised, and give each a made-up
        # objective history that rises to its variance.
        self.order_ = np.arange(p)[::-1].copy()
        self.history_ = [v * (1 - 0.5 ** np.arange(1, 6)) for v in self.explained_variance_]
        return self

    def transform(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(len(X), -1)
        return (X - self.mean_) @ self.components_.T


@pytest.fixture
def stand_in_methods():
    """Every protocol method name mapped to a StandInPCA factory; "TROD"
    is capped at 3 features so that '-' cells appear."""
    from paper_protocol import TABLE_METHODS

    methods = {name: StandInPCA for name in (*TABLE_METHODS, "FO-MPCA")}
    methods["TROD"] = lambda: StandInPCA(n_components=3)
    return methods
