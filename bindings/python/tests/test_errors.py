"""Every error path raises the right exception with a message that names what is wrong."""

import _thread
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sompca
from sompca import _lib
from helpers import run_child


def test_status_codes_map_to_exceptions():
    # The table of the issue: bad input -> ValueError, files -> OSError, a memory_limit too small ->
    # MemoryError, the rest -> RuntimeError.
    expected = {_lib.EINVAL: ValueError, _lib.ESHAPE: ValueError, _lib.ERANGE: ValueError, _lib.EDATA: ValueError,
                _lib.EIO: OSError, _lib.ENOTFITTED: RuntimeError, _lib.ENOMEM: MemoryError,
                _lib.ECANCELED: RuntimeError, _lib.EINTERNAL: RuntimeError, _lib.EFILE: sompca.InvalidFileError,
                _lib.ENOTFOUND: FileNotFoundError, _lib.ELINK: sompca.BrokenLinkError,
                _lib.EFILTER: sompca.MissingFilterError, _lib.ELOCKED: sompca.FileLockedError,
                _lib.EPERM: PermissionError, _lib.ETYPE: sompca.UnsupportedTypeError,
                _lib.EVERSION: sompca.FileVersionError,
                _lib.ENUMERICAL: RuntimeError, _lib.EHANDLE: RuntimeError, 42: RuntimeError}
    for status, cls in expected.items():
        exc = _lib.error_for(status, "message")
        assert type(exc) is cls and exc.status == status and str(exc) == "message"


def test_transform_before_fit():
    with pytest.raises(sompca.NotFittedError, match="SOMPCA instance is not fitted yet"):
        sompca.SOMPCA().transform(np.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match="not fitted"):  # NotFittedError is a ValueError
        sompca.PCA().save("never-written.h5")
    sklearn_exceptions = pytest.importorskip("sklearn.exceptions")
    assert sompca.NotFittedError is sklearn_exceptions.NotFittedError


@pytest.mark.parametrize("params, name", [
    ({"n_components": 0}, "n_components"), ({"n_components": -2}, "n_components"),
    ({"n_components": 2.5}, "n_components"), ({"n_components": True}, "n_components"),
    ({"n_components": 2**40}, "n_components"),
    ({"max_iter": 0}, "max_iter"), ({"max_iter": None}, "max_iter"),
    ({"tol": -1.0}, "tol"), ({"tol": float("nan")}, "tol"), ({"tol": "0"}, "tol"),
    ({"mode": -1}, "mode"), ({"n_jobs": 0}, "n_jobs"), ({"n_jobs": 1.5}, "n_jobs"),
])
def test_bad_parameters_name_the_parameter(params, name, X3):
    with pytest.raises(ValueError, match=name):
        sompca.SOMPCA(**params).fit(X3)


@pytest.mark.parametrize("q", [0.0, 1.5, -0.1, float("inf")])
def test_bad_q(q, X3):
    with pytest.raises(ValueError, match="q must be"):
        sompca.MPCA(q=q).fit(X3)


# Errors the library finds: the exception carries its message, which starts with the C
# function's name (capi's convention) and names the offending value.
@pytest.mark.parametrize("make, X, cls, words", [
    (lambda: sompca.SOMPCA(mode=3), "X3", ValueError, ["mode=3", "0..2"]),
    (lambda: sompca.SOMPCA(n_components=50), "X3", ValueError, ["50", "at most I_nu = 5"]),
    (lambda: sompca.SOMPCA(), "nan", ValueError, ["sample 0 holds a NaN"]),
    (lambda: sompca.SOMPCA(), "one", ValueError, ["1 samples: a fit needs at least 2"]),
])
def test_library_errors_carry_its_message(make, X, cls, words, X3):
    data = {"X3": X3, "nan": np.where(X3 > 3, np.nan, X3), "one": X3[:1], "empty": X3[:0]}[X]
    with pytest.raises(cls) as info:
        make().fit(data)
    for word in words:
        assert word in str(info.value)
    assert "sompca_fit" not in str(info.value)  # the library's message, without the C function's name
    assert info.value.status != _lib.OK


def test_empty_input_is_refused_before_the_library(X3):
    # In scikit-learn's words (its check_estimators_empty_data_messages looks for them).
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 5, 4, 3\)\)"):
        sompca.SOMPCA().fit(X3[:0])
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(30, 0\)\)"):
        sompca.PCA().fit(np.zeros((30, 0)))


def test_transform_rejects_nan_and_inf(tmp_path, X3):
    import h5py

    fitted = sompca.SOMPCA(n_components=3).fit(X3)
    bad = X3.copy()
    bad[2, 1, 1, 1] = np.nan
    bad[5, 0, 0, 0] = np.inf
    bad[7, 4, 3, 2] = -np.inf
    # The library names the first bad sample.
    with pytest.raises(ValueError, match=r"sample 2 holds a NaN or Inf value"):
        fitted.transform(bad)
    with h5py.File(tmp_path / "bad.h5", "w") as f:
        f["X"] = bad
    with pytest.raises(ValueError, match=r"sample 2 holds a NaN or Inf value"):
        fitted.transform(f"{tmp_path / 'bad.h5'}:/X")
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="sparse input"):
        fitted.transform(scipy_sparse.csr_matrix(X3.reshape(30, -1)))


def test_file_errors_are_oserrors(tmp_path, h5file, X3):
    missing = tmp_path / "missing.h5"
    with pytest.raises(OSError, match="missing.h5"):
        sompca.SOMPCA().fit(f"{missing}:/X")
    with pytest.raises(OSError, match="/nope"):
        sompca.SOMPCA().fit(f"{h5file}:/nope")
    with pytest.raises(OSError, match="missing.h5"):
        sompca.load(missing)
    with pytest.raises((OSError, ValueError), match="samples.h5"):  # an HDF5 file that is no model
        sompca.load(h5file)
    fitted = sompca.SOMPCA(n_components=2).fit(X3)
    with pytest.raises(OSError, match="no-such-folder"):
        fitted.save(tmp_path / "no-such-folder" / "model.h5")
    with pytest.raises(OSError, match="missing.h5"):
        fitted.transform(f"{missing}:/X")


def test_corrupted_model_is_a_checksum_error(tmp_path, X3):
    # A saved model with one bit of a value of its mean flipped loads as an
    # OSError saying "checksum mismatch" (status SOMPCA_EFILE), never as a
    # different model; the intact file loads with identical features.
    path = tmp_path / "model.h5"
    fitted = sompca.SOMPCA(n_components=3).fit(X3)
    fitted.save(path)
    data = bytearray(path.read_bytes())
    value = np.float64(fitted.mean_.flat[7]).tobytes()
    at = data.find(value)
    assert at > 0 and data.find(value, at + 1) < 0, "the value is in the file once"
    np.testing.assert_array_equal(sompca.load(path).transform(X3), fitted.transform(X3))
    data[at + 5] ^= 0x04
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="checksum mismatch") as info:
        sompca.load(path)
    assert info.value.status == _lib.EFILE and "model.h5" in str(info.value)


def test_bad_specs_and_shapes(h5file, X2, X3):
    for spec in ("samples.h5", "samples.h5:X", ":/X"):
        with pytest.raises(ValueError, match="FILE.h5:/DATASET"):
            sompca.SOMPCA().fit(spec)
    with pytest.raises(ValueError, match="FILE.h5:/DATASET"):
        sompca.SOMPCA().fit(h5file)  # a path without a dataset
    with pytest.raises(ValueError, match=r"shape \(30,\)"):
        sompca.SOMPCA().fit(np.zeros(30))
    fitted = sompca.SOMPCA(n_components=2).fit(X3)
    with pytest.raises(ValueError, match=r"shape \(8, 6\).*\(5, 4, 3\)"):
        fitted.transform(X2)
    with pytest.raises(ValueError, match=r"\[8 6\]|\(8, 6\)|8 x 6"):  # the library checks files' shapes
        fitted.transform(f"{h5file}:/data/X")


@pytest.fixture()
def progresses(monkeypatch):
    """The _Progress objects of the fits in a test, counting the library's callback calls."""
    made = []

    class Recorded(_lib._Progress):
        def __init__(self, *args):
            self.library_calls = 0
            super().__init__(*args)
            made.append(self)

        def _call(self, *args):
            self.library_calls += 1
            return super()._call(*args)

    monkeypatch.setattr(_lib, "_Progress", Recorded)
    return made


def test_progress_exceptions_stop_the_fit(X3, progresses):
    calls = []

    def report(done, total, variance):
        calls.append((done, total))
        if done == 2:
            raise ZeroDivisionError("from the progress hook")

    with pytest.raises(ZeroDivisionError, match="from the progress hook"):
        sompca.SOMPCA(n_components=4).fit(X3, progress=report)
    # The callback that raised returned "cancel": the library called it no more.
    assert calls == [(1, 4), (2, 4)] and progresses[0].library_calls == 2


def test_ctrl_c_cancels_the_fit(X3, progresses):
    # Ctrl-C during a fit reaches the main thread while the library works in a worker;
    # the progress callback then returns "cancel" and the fit raises KeyboardInterrupt.
    calls = []

    def report(done, total, variance):
        calls.append(done)
        if done == 1:
            _thread.interrupt_main()
            # Wait until the main thread has seen the interrupt, so the test does not race.
            assert progresses[0].cancel.wait(timeout=60)

    estimator = sompca.SOMPCA(n_components=5)
    with pytest.raises(KeyboardInterrupt):
        estimator.fit(X3, progress=report)
    # The library stopped at the callback that saw the cancel flag: it was called once.
    assert calls == [1] and progresses[0].library_calls == 1
    assert not hasattr(estimator, "projections_")


PELTED_CALL = """
def pelted(signals):
    # A call for _lib._interruptibly that sends SIGINT to the process `signals` times while it runs.
    import os, signal, time
    from sompca import _lib

    def call():
        for _ in range(signals):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.0005)
        return _lib.OK
    return call
"""


def test_ctrl_c_is_never_raised_inside_the_wait():
    # Ctrl-C while the main thread waits for a call is recorded, never raised where it
    # waits: raised there it could escape the wait with the call still running, or break
    # threading's Condition ("release unlocked lock" from Event.wait, the CLI's status 1
    # instead of 130). With the wait's own handler, every run of 200 interrupts returns.
    # In a child interpreter: an interrupt that escapes would end pytest itself.
    result = run_child(PELTED_CALL + """
import os, signal, time
from sompca import _lib
cancels = []
for _ in range(10):
    status, message, interrupted = _lib._interruptibly(pelted(200), on_interrupt=lambda: cancels.append(1))
    assert (status, message, interrupted) == (_lib.OK, None, True), (status, message, interrupted)
assert len(cancels) == 10, cancels  # on_interrupt once a call, however many interrupts
# Python's handler is back once the wait is over.
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("KeyboardInterrupt after the wait")
""")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "KeyboardInterrupt after the wait", result.stdout + result.stderr


def test_a_programs_own_sigint_handler_stays():
    seen = []

    def handler(signum, frame):
        seen.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        namespace = {}
        exec(PELTED_CALL, namespace)
        status, message, interrupted = _lib._interruptibly(namespace["pelted"](1))
        assert (status, interrupted) == (_lib.OK, True) and seen == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_programs_raising_handler_never_escapes_the_wait():
    # The program's own handler raises KeyboardInterrupt for each of 200 interrupts a call,
    # some while the worker thread is still starting: each counts as an interrupt, none
    # escapes the wait (in a child: an escape would end pytest itself).
    result = run_child(PELTED_CALL + """
import signal
from sompca import _lib
seen = []
def handler(signum, frame):
    seen.append(signum)
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, handler)
for _ in range(10):
    status, message, interrupted = _lib._interruptibly(pelted(200))
    assert (status, message, interrupted) == (_lib.OK, None, True), (status, message, interrupted)
assert signal.getsignal(signal.SIGINT) is handler
assert len(seen) >= 10, len(seen)
print("ok")
""")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok", result.stdout + result.stderr


def test_without_scikit_learn(X3):
    # The package works with scikit-learn unimportable, with its own NotFittedError and params.
    code = textwrap.dedent("""
        import sys
        sys.modules["sklearn"] = None  # makes `import sklearn` raise ImportError
        import numpy as np
        import sompca
        X = np.random.default_rng(0).normal(size=(20, 4, 3))
        est = sompca.SOMPCA(n_components=2, tol=1e-9)
        assert repr(est) == "SOMPCA(n_components=2, tol=1e-09)", repr(est)
        assert est.get_params()["tol"] == 1e-9
        assert est.set_params(max_iter=3) is est and est.max_iter == 3
        try:
            est.set_params(bogus=1)
        except ValueError as err:
            assert "bogus" in str(err)
        else:
            raise AssertionError("set_params accepted bogus")
        try:
            est.transform(X)
        except sompca.NotFittedError as err:
            assert isinstance(err, ValueError) and "not fitted" in str(err)
        else:
            raise AssertionError("no NotFittedError")
        assert est.fit_transform(X).shape == (20, 2)
        assert "sklearn" not in type(sompca.NotFittedError).__module__
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_library_version_mismatch_is_an_import_error(tmp_path):
    code = textwrap.dedent("""
        import sys, types
        fake = types.ModuleType("sompca._version")  # found in sys.modules before the real one
        fake.__version__ = "9.9.9"
        sys.modules["sompca._version"] = fake
        try:
            import sompca
        except ImportError as err:
            print(err)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "9.9.9" in result.stdout and sompca.library_version() in result.stdout, result.stdout + result.stderr


def test_missing_library_is_an_import_error(tmp_path):
    env = dict(os.environ, SOMPCA_LIBRARY=str(tmp_path / "libnothing.so"))
    result = subprocess.run([sys.executable, "-c", "import sompca"], capture_output=True, text=True, env=env)
    assert result.returncode != 0 and "ImportError" in result.stderr and "libnothing.so" in result.stderr
