"""Comparisons shared by the tests."""

import numpy as np

import sompca


def numpy_features(estimator, X):
    """Features computed from the learned projections and mean alone (the definition, Shi and Lu eqs. 1-2)."""
    centred = np.asarray(X, dtype=np.float64) - estimator.mean_
    if isinstance(estimator, sompca.PCA):
        return centred.reshape(len(centred), -1) @ estimator.projections_[0]
    modes = "abcdefgh"[: centred.ndim - 1]
    spec = "m" + modes + "," + ",".join(f"{mode}p" for mode in modes) + "->mp"
    return np.einsum(spec, centred, *estimator.projections_)


def assert_close(actual, expected, tol=1e-10):
    """Agreement to tol relative to the largest magnitude (features are O(10) here)."""
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=tol * scale)


def assert_same_model(a, b, tol=1e-10):
    assert a.shape_in_ == b.shape_in_ and a.n_components_ == b.n_components_
    assert len(a.projections_) == len(b.projections_)
    for ua, ub in zip(a.projections_, b.projections_):
        assert_close(ua, ub, tol)
    assert_close(a.mean_, b.mean_, tol)
    assert_close(a.explained_variance_, b.explained_variance_, tol)
    np.testing.assert_array_equal(a.order_, b.order_)


def make_samples(shape, seed=0):
    """Samples with a few strong multilinear components plus noise, so fits are well conditioned."""
    rng = np.random.default_rng(seed)
    m, dims = shape[0], shape[1:]
    X = 0.1 * rng.normal(size=shape)
    for strength in (5.0, 3.0, 2.0, 1.0):
        factors = [rng.normal(size=i) for i in dims]
        outer = factors[0]
        for f in factors[1:]:
            outer = np.multiply.outer(outer, f)
        X += strength * rng.normal(size=m)[(slice(None),) + (None,) * len(dims)] * outer
    return X + 1.5  # a non-zero mean, so centring matters


def run_child(code, timeout=60, prefix=(), **kwargs):
    """Run Python code as a script in a fresh interpreter (the tests' own); return its CompletedProcess.

    The code is a file's __main__ (so that multiprocessing's spawn and
    forkserver can import it). A child that hangs fails the calling test
    after ``timeout`` seconds (subprocess kills it); its output is text.
    ``prefix`` is a command that runs the interpreter (e.g. unshare ...).
    """
    import subprocess
    import sys
    import tempfile
    import textwrap

    with tempfile.TemporaryDirectory(prefix="sompca-test-") as tmp:
        script = f"{tmp}/child.py"
        with open(script, "w") as file:
            file.write(textwrap.dedent(code))
        return subprocess.run([*prefix, sys.executable, script], capture_output=True, text=True, timeout=timeout, **kwargs)
