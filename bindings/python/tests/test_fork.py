"""sompca in forked processes (issue 16, "fork").

The Go runtime inside libsompca does not survive fork(), so a child forked
after the library was loaded loads a fresh copy, and models of the parent
are loaded again from the bytes kept at the fork. Each case runs in a
child interpreter (a hang fails it at the timeout), which must exit 0.
The expected values come from the same fit in the parent: a fit does not
depend on the process it runs in.
"""

from helpers import run_child

# Each child prints OK as its last line once its own assertions passed.
PRELUDE = """
import os, sys, time
import numpy as np
import sompca
X = np.random.default_rng(0).normal(size=(300, 8, 6))
parent = sompca.SOMPCA(n_components=3).fit(X)  # the parent has used the library
expected = parent.transform(X[:5])
def fit_and_transform(i):
    est = sompca.SOMPCA(n_components=3).fit(X)
    return est.transform(X[:5]), parent.transform(X[:5])
"""


def check(result):
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "OK", result.stdout + result.stderr


def test_multiprocessing_pools_fit_after_the_parent_fitted():
    # Every start method: fork (Linux's default), forkserver and spawn. 300 samples:
    # more than one grain, so the fit uses several goroutines (the case that hung
    # before); the children also use the parent's fitted model.
    check(run_child(PRELUDE + """
import multiprocessing
if __name__ == "__main__":
    for method in ("fork", "forkserver", "spawn"):
        with multiprocessing.get_context(method).Pool(2) as pool:
            for own, inherited in pool.map(fit_and_transform, range(2)):
                np.testing.assert_allclose(own, expected, rtol=0, atol=1e-12, err_msg=method)
                np.testing.assert_allclose(inherited, expected, rtol=0, atol=1e-12, err_msg=method)
    assert np.array_equal(parent.transform(X[:5]), expected)  # the parent still works
    print("OK")
""", timeout=120))


def test_joblib_multiprocessing_and_loky_backends_and_sklearn_n_jobs():
    check(run_child(PRELUDE + """
import joblib
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
if __name__ == "__main__":
    results = joblib.Parallel(n_jobs=2, backend="multiprocessing")(
        joblib.delayed(fit_and_transform)(i) for i in range(2))
    for own, inherited in results:
        np.testing.assert_allclose(own, expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(inherited, expected, rtol=0, atol=1e-12)
    y = (X[:, 0, 0] > 0).astype(int)
    pipe = make_pipeline(sompca.SOMPCA(n_components=3), KNeighborsClassifier(3))
    serial = cross_val_score(pipe, X, y, cv=3)
    with joblib.parallel_backend("multiprocessing"):
        forked = cross_val_score(pipe, X, y, cv=3, n_jobs=2)
    assert np.array_equal(serial, forked), (serial, forked)
    # joblib's default backend, loky (fresh worker processes, as README says).
    for own, inherited in joblib.Parallel(n_jobs=2)(joblib.delayed(fit_and_transform)(i) for i in range(2)):
        np.testing.assert_allclose(own, expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(inherited, expected, rtol=0, atol=1e-12)
    assert np.array_equal(serial, cross_val_score(pipe, X, y, cv=3, n_jobs=2))
    print("OK")
"""))


def test_bare_fork_child_and_grandchild():
    check(run_child(PRELUDE + """
def child(depth):
    own, inherited = fit_and_transform(0)
    assert np.allclose(own, expected, rtol=0, atol=1e-12) and np.allclose(inherited, expected, rtol=0, atol=1e-12)
    if depth == 1:
        pid = os.fork()
        if pid == 0:
            os._exit(child(2))
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)
    return 0
pid = os.fork()
if pid == 0:
    os._exit(child(1))
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
print("OK")
"""))


def test_models_follow_the_fork_without_files(tmp_path):
    # The parent's models reach the child as bytes made in memory
    # (sompca_model_serialize): no temporary directory is needed.
    check(run_child(PRELUDE + f"""
import tempfile
tempfile.tempdir = {str(tmp_path / "missing")!r}
pid = os.fork()
if pid == 0:
    os._exit(0 if np.allclose(parent.transform(X[:5]), expected, rtol=0, atol=1e-12) else 10)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
print("OK")
"""))
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_model_that_cannot_follow_the_fork_raises_at_once(tmp_path):
    # The parent cannot make the model's bytes at the fork (made to fail
    # here), so the child cannot use that model: it gets a RuntimeError
    # naming fork and the remedy (no hang: the test's timeout), and can
    # still fit.
    check(run_child(PRELUDE + """
def cannot(self):
    raise RuntimeError("no bytes")
real_to_bytes, sompca._lib.Model.to_bytes = sompca._lib.Model.to_bytes, cannot
pid = os.fork()
if pid == 0:
    sompca._lib.Model.to_bytes = real_to_bytes
    try:
        parent.transform(X[:5])
        os._exit(10)
    except RuntimeError as err:
        if "fork" not in str(err) or "'spawn'" not in str(err):
            os._exit(11)
    own = sompca.SOMPCA(n_components=3).fit(X).transform(X[:5])
    os._exit(0 if np.allclose(own, expected, rtol=0, atol=1e-12) else 13)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
print("OK")
"""))
    assert list(tmp_path.iterdir()) == []  # nothing left behind
