"""Fit and transform of dask arrays, on a LocalCluster of 2 worker processes and on Dask's local scheduler.

The reference of every comparison is the in-memory fit of the same samples
(``fit(numpy array)``), which the fixtures check against an independent
implementation (shared/fixtures, solver/fixture_test.go): a distributed fit
runs the same engine, so with blocks that start at multiples of
``BLOCK_MULTIPLE`` samples its sums are made of the same leaves by the same
fixed reduction tree and the model is equal bit for bit; with other blocks
only the grouping of the sums changes, so it agrees to rounding (1e-12).
"""

import os
import signal

import numpy as np
import pytest

import sompca
from helpers import assert_close, make_samples
from sompca import _dask, _lib

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

# Blocks of B samples start at multiples of BLOCK_MULTIPLE; the last block
# is short, as real data's is.
B = 4 * _dask.BLOCK_MULTIPLE
M = 3 * B + 77
SHAPE = (8, 6, 5)


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of 2 worker processes x 1 thread (as the benchmark), current only inside each test's `with`."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        with distributed.Client(cluster, set_as_default=False) as c:
            yield c


@pytest.fixture(scope="module")
def X():
    return make_samples((M,) + SHAPE, seed=11)


@pytest.fixture(scope="module")
def U8(X):
    return np.clip(np.rint(X * 20 + 100), 0, 255).astype(np.uint8)


TVP = (sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA)


def small(cls, **params):
    """A quick estimator: few sweeps and components keep the rounds few.

    The default mode updates ("auto") resolve by the data's shape alone, so
    a dask fit and its in-memory reference make the same passes.
    """
    if issubclass(cls, TVP):
        params.setdefault("n_components", 3)
    if cls is not sompca.PCA:
        params.setdefault("max_iter", 3)
    return cls(**params)


def assert_identical(a, b):
    """Every learned array equal, bit for bit."""
    assert a.shape_in_ == b.shape_in_ and a.n_samples_fit_ == b.n_samples_fit_
    for ua, ub in zip(a.projections_, b.projections_, strict=True):
        np.testing.assert_array_equal(ua, ub)
    np.testing.assert_array_equal(a.mean_, b.mean_)
    np.testing.assert_array_equal(a.explained_variance_, b.explained_variance_)
    np.testing.assert_array_equal(a.explained_variance_ratio_, b.explained_variance_ratio_)
    np.testing.assert_array_equal(a.order_, b.order_)
    np.testing.assert_array_equal(a.n_iter_per_component_, b.n_iter_per_component_)
    for ha, hb in zip(a.history_, b.history_, strict=True):
        np.testing.assert_array_equal(ha, hb)


ESTIMATORS = [sompca.SOMPCA, sompca.FOMPCA, sompca.TROD, sompca.UMPCA, sompca.PCA, sompca.MPCA, sompca.CSA]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_distributed_fit_is_the_local_fit_bit_for_bit(client, cls, X):
    local = small(cls).fit(X)
    with client.as_current():
        remote = small(cls).fit(da.from_array(X, chunks=(2 * B,) + SHAPE))
    assert_identical(remote, local)


# Shapes on both sides of "auto"'s rule (rows while M x max_n I_n <= 2^20,
# sompca.h SOMPCA_MODE_UPDATES_ROWS_LIMIT): the module's samples (M x 8 x 6 x 5:
# 6,760 partial projections) and 8,193 samples of 128 x 4 (1,048,704).
SCATTER_M, SCATTER_SHAPE = (1 << 20) // 128 + 1, (128, 4)


@pytest.fixture(scope="module")
def large():
    """uint8 samples (4 MB) with strong components, so that rows and scatter fits agree to rounding."""
    return np.clip(np.rint(make_samples((SCATTER_M,) + SCATTER_SHAPE, seed=5) * 20 + 100), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("which", ["rows", "scatter"])
def test_default_dask_fit_is_the_default_local_fit(client, which, U8, large):
    """The default fit of a dask array equals the default in-memory fit bit for bit, on either side of the rule.

    Each default fit is also compared with the fits that force each choice:
    it equals the one the rule names and differs from the other (the two
    agree to rounding only), so the test sees which one "auto" took.
    """
    data = U8 if which == "rows" else large
    assert (data.shape[0] * max(data.shape[1:]) <= _lib.MODE_UPDATES_ROWS_LIMIT) == (which == "rows")
    local = small(sompca.SOMPCA).fit(data)
    assert_identical(local, small(sompca.SOMPCA, mode_updates=which).fit(data))
    other = small(sompca.SOMPCA, mode_updates="scatter" if which == "rows" else "rows").fit(data)
    assert not np.array_equal(other.projections_[0], local.projections_[0])
    assert_close(other.transform(data), local.transform(data), 1e-9)
    with client.as_current():
        remote = small(sompca.SOMPCA).fit(da.from_array(data, chunks=(32 * _dask.BLOCK_MULTIPLE,) + data.shape[1:]))
    assert_identical(remote, local)


def test_mode_updates_forced_on_dask(client, X):
    """A dask fit that forces "rows" or "scatter" equals the in-memory fit that forces the same."""
    dX = da.from_array(X, chunks=(B,) + SHAPE)
    for choice in ("rows", "scatter"):
        local = small(sompca.SOMPCA, mode_updates=choice).fit(X)
        with client.as_current():
            assert_identical(small(sompca.SOMPCA, mode_updates=choice).fit(dX), local)
    with pytest.raises(ValueError, match="mode_updates must be one of 'auto', 'rows', 'scatter'"):
        small(sompca.SOMPCA, mode_updates="dense").fit(X)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int16, np.uint16])
def test_every_dtype_bit_for_bit(client, dtype, X, U8):
    data = U8.astype(dtype) if dtype is not np.float32 else X.astype(np.float32)
    local = small(sompca.SOMPCA).fit(data)
    with client.as_current():
        remote = small(sompca.SOMPCA).fit(da.from_array(data, chunks=(B,) + SHAPE))
    assert_identical(remote, local)


def test_blocks_not_of_whole_grains_agree_to_rounding(client, X):
    local = small(sompca.SOMPCA).fit(X)
    # Blocks of 100 and 300 samples: grains straddle blocks, so sums group differently.
    chunks = ((100, 300, 100, 300, M - 800),) + tuple((d,) for d in SHAPE)
    with client.as_current():
        remote = small(sompca.SOMPCA).fit(da.from_array(X, chunks=chunks))
    for ua, ub in zip(remote.projections_, local.projections_, strict=True):
        assert_close(ua, ub, 1e-12)
    assert_close(remote.mean_, local.mean_, 1e-12)
    np.testing.assert_allclose(remote.explained_variance_, local.explained_variance_, rtol=1e-12)


def test_local_scheduler_without_a_client(X, U8):
    # No client current here: Dask's threaded scheduler in this process.
    assert _dask._client() is None
    for data in (X, U8):
        local = small(sompca.SOMPCA).fit(data)
        remote = small(sompca.SOMPCA).fit(da.from_array(data, chunks=(B,) + SHAPE))
        assert_identical(remote, local)


def test_chunks_along_other_axes_and_order_two(client):
    X2 = make_samples((2 * B + 5, 9, 7), seed=3)
    local = small(sompca.UMPCA).fit(X2)
    with client.as_current():
        # Chunked along axis 1 too: the driver makes blocks of whole samples.
        remote = small(sompca.UMPCA).fit(da.from_array(X2, chunks=(B, 4, 3)))
    assert_identical(remote, local)


def test_sample_shape_views_rows_as_tensors(client, X):
    rows = X.reshape(M, -1)
    local = small(sompca.SOMPCA, sample_shape=SHAPE).fit(rows)
    with client.as_current():
        est = small(sompca.SOMPCA, sample_shape=SHAPE).fit(da.from_array(rows, chunks=(B, 100)))
        features = est.transform(da.from_array(rows, chunks=(B, 100))).compute()
    assert_identical(est, local)
    np.testing.assert_array_equal(features, local.transform(rows))


def test_transform_returns_a_dask_array(client, X, U8):
    model = small(sompca.SOMPCA).fit(X)
    Xd = da.from_array(U8, chunks=(300,) + SHAPE)
    with client.as_current():
        features = model.transform(Xd)
        assert isinstance(features, da.Array)
        assert features.shape == (M, model.n_components_) and features.chunks[0] == Xd.chunks[0]
        computed = features.compute()
    # The in-memory transform is the reference (checked against numpy in test_estimators).
    np.testing.assert_array_equal(computed, model.transform(U8))
    # Order 1 samples (X of ndim 2): no axis is dropped.
    flat = small(sompca.PCA).fit(X.reshape(M, -1))
    out = flat.transform(da.from_array(X.reshape(M, -1), chunks=(200, 100))).compute()
    np.testing.assert_array_equal(out, flat.transform(X.reshape(M, -1)))


def test_progress_counts_emps(client, X):
    calls = []
    est = small(sompca.SOMPCA, n_components=4)
    with client.as_current():
        est.fit(da.from_array(X, chunks=(B,) + SHAPE), progress=lambda *a: calls.append(a))
    # One call per EMP, done = 1..P of total P, variance = that EMP's captured variance
    # (the model's variances, in extraction order).
    assert [c[:2] for c in calls] == [(p, 4) for p in range(1, 5)]
    by_extraction = est.explained_variance_[np.argsort(est.order_)]
    np.testing.assert_array_equal([c[2] for c in calls], by_extraction)


def test_nan_gives_the_local_error_with_the_global_index(client, X):
    bad = X.copy()
    bad[B + 40, 3, 2, 1] = np.nan  # in the second block
    with pytest.raises(ValueError) as local:
        small(sompca.SOMPCA).fit(bad)
    with client.as_current(), pytest.raises(ValueError) as remote:
        small(sompca.SOMPCA).fit(da.from_array(bad, chunks=(B,) + SHAPE))
    assert f"sample {B + 40} holds a NaN or Inf value" in str(remote.value)
    # The same solver message (the C function's name in front, which differed, is not shown).
    assert str(remote.value) == str(local.value)
    # A transform names the sample within its block, and the block.
    model = small(sompca.SOMPCA).fit(X)
    with pytest.raises(ValueError, match=rf"sample 40 holds a NaN or Inf value.* starting at sample {B}\)"):
        model.transform(da.from_array(bad, chunks=(B,) + SHAPE)).compute()


def test_a_worker_killed_mid_fit_changes_nothing(client, X):
    local = small(sompca.SOMPCA, n_components=4).fit(X)
    pids = client.run(os.getpid)
    killed = []

    def kill_after_first_emp(done, total, variance):
        if done == 1 and not killed:
            address, pid = sorted(pids.items())[0]
            os.kill(pid, signal.SIGKILL)  # its Nanny restarts it; its blocks are lost
            killed.append(address)

    est, stats, rounds = small(sompca.SOMPCA, n_components=4), {}, []
    dX = da.from_array(X, chunks=(B,) + SHAPE)
    with client.as_current():
        est._set_model(_dask.fit(dX, est._options(), report=kill_after_first_emp, stats=stats, rounds=rounds))
    assert killed
    assert_identical(est, local)
    # The killed worker's blocks went back to tasks (recomputed by Dask), then to block servers again.
    blocks = len(dX.chunks[0])
    assert stats["tasked"] > blocks and stats["served"] + stats["tasked"] == blocks * len(rounds)
    # The cluster heals: both workers are back (the killed one restarted by its Nanny).
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != set(pids.values())


def test_rounds_after_the_first_are_served_by_block_servers(client, X):
    """Tasks compute the first round only; every later round is one message to each worker's block server."""
    est, stats, rounds = small(sompca.SOMPCA), {}, []
    dX = da.from_array(X, chunks=(B,) + SHAPE)
    with client.as_current():
        est._set_model(_dask.fit(dX, est._options(), stats=stats, rounds=rounds))
    blocks = len(dX.chunks[0])
    assert stats["tasked"] == blocks and stats["served"] == blocks * (len(rounds) - 1)
    assert_identical(est, small(sompca.SOMPCA).fit(X))


@pytest.mark.parametrize("mode_updates", ["rows", "scatter"])
def test_a_workers_neighbouring_blocks_are_joined(client, X, mode_updates):
    """A block server sends one partial per run of neighbouring blocks it holds, and the model keeps its bits.

    The 14 blocks of BLOCK_MULTIPLE samples (4 leaves of the reduction tree
    each) are placed in 4 runs on the 2 workers: blocks 0-2 (leaves 0-11,
    which cut the subtree of leaves 0-15), 3-6, 7-10 and 11-13. Every round
    after the first (tasks, one partial per block) feeds 4 partials.
    """
    workers = sorted(client.scheduler_info()["workers"])
    plan = [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1]
    B1 = _dask.BLOCK_MULTIPLE
    assert len(plan) == -(-M // B1)
    futures = [client.scatter(X[i * B1:(i + 1) * B1], workers=[workers[w]], hash=False) for i, w in enumerate(plan)]
    parts = [da.from_delayed(f, shape=X[i * B1:(i + 1) * B1].shape, dtype=X.dtype) for i, f in enumerate(futures)]
    est, stats, rounds = small(sompca.SOMPCA, mode_updates=mode_updates), {}, []
    with client.as_current():
        est._set_model(_dask.fit(da.concatenate(parts), est._options(), stats=stats, rounds=rounds))
    assert stats == {"tasked": len(plan), "served": len(plan) * (len(rounds) - 1), "fed": len(plan) + 4 * (len(rounds) - 1)}
    del futures  # held until the fit's end, so that Dask keeps the blocks where they were put
    assert_identical(est, small(sompca.SOMPCA, mode_updates=mode_updates).fit(X))


@pytest.mark.parametrize("mode_updates", ["rows", "scatter"])
def test_partials_in_kept_buffers_are_the_partials(X, mode_updates):
    """A block's partial written into a kept buffer (the block server's way) has the bytes of a fresh one.

    Over a whole session: every pass's blocks computed both ways, joined
    both ways, and the kept ones fed (as numpy views); the model is then
    the in-memory fit's bit for bit (blocks of whole grains).
    """
    token = "test-kept-buffers"
    est = small(sompca.SOMPCA, mode_updates=mode_updates)
    session = _lib.Session(M, SHAPE, est._options())
    spans = [(first, min(B, M - first)) for first in range(0, M, B)]
    try:
        while session.next():
            requests = [session.request(first, n) for first, n in spans]
            items = [(request, X[first:first + n]) for request, (first, n) in zip(requests, spans)]
            fresh = _dask.block_partials(token, items)
            kept = _dask.block_partials(token, items, kept=True)
            assert all(isinstance(p, np.ndarray) and bytes(p) == f for p, f in zip(kept, fresh))
            out = np.empty(sum(map(len, kept)), dtype=np.uint8)
            joined = _lib.partials_join(requests[0], kept[:2], out=out)
            assert joined.base is out and bytes(joined) == _lib.partials_join(requests[0], fresh[:2])
            with pytest.raises(ValueError, match="do not fit"):
                _lib.partials_join(requests[0], kept[:2], out=out[:len(kept[0])])
            with pytest.raises(ValueError, match="does not fit"):
                _lib.pass_partial(requests[0], items[0][1], _lib.FLOAT64, out=np.empty(1, dtype=np.uint8))
            for (first, n), partial in zip(spans, kept):
                session.feed(first, n, partial)
        est._set_model(session.finish())
    finally:
        session.close()
        _dask.drop_caches(token)
    assert_identical(est, small(sompca.SOMPCA, mode_updates=mode_updates).fit(X))


def test_block_server_answers_only_its_key(X):
    """The block server (in this process): the partials of block_partials, errors sent back, other keys refused."""
    from multiprocessing import AuthenticationError
    from multiprocessing.connection import Client

    token = "test-block-server"
    block = np.ascontiguousarray(X[:B])
    _dask._held(token)[0] = block
    session = _lib.Session(M, SHAPE, small(sompca.SOMPCA)._options())
    try:
        assert session.next()
        request = session.request(0, B)
        (host, port), key = _dask._serve("tcp://127.0.0.1:1")
        with Client((host, port), authkey=key) as conn, _dask._raw(conn) as sock:
            conn.send((token, [(0, request), (5, request)], 2))  # block 5 is not held here: left out
            status, pieces = conn.recv()
            assert status == "ok" and [(i, j) for i, j, _ in pieces] == [(0, 1)]
            partial = bytearray(pieces[0][2])  # the partial's bytes follow the message, raw
            _dask._read_into(sock, memoryview(partial))
            assert bytes(partial) == _dask.block_partials(token, [(request, block)])[0]
            conn.send((token, [(0, b"not a request")], 1))
            status, err = conn.recv()
            assert status == "error" and isinstance(err, ValueError)
            conn.send((token, [(0, request)], 1))  # the connection still serves
            status, again = conn.recv()
            assert status == "ok" and again == pieces
            _dask._read_into(sock, memoryview(partial))
            assert bytes(partial) == _dask.block_partials(token, [(request, block)])[0]
        with pytest.raises(AuthenticationError):
            Client((host, port), authkey=b"another key")
        assert _dask._serve("tls://127.0.0.1:1") is None  # not TCP: tasks serve such workers
        assert _dask._serve("tcp://127.0.0.1:2") == ((host, port), key)  # one server a process
        # A forked child (no thread of its parent's) starts its own.
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, repr(_dask._serve("tcp://127.0.0.1:1")[0]).encode())
            os._exit(0)
        os.close(write)
        assert os.waitpid(pid, 0)[1] == 0
        child = os.read(read, 200).decode()
        os.close(read)
        assert child.startswith("('127.0.0.1', ") and child != repr((host, port))
    finally:
        session.close()
        _dask.drop_caches(token)


def test_bad_dask_input(X):
    with pytest.raises(ValueError, match="dtype complex128"):
        sompca.SOMPCA().fit(da.from_array(X.astype(complex), chunks=(B,) + SHAPE))
    unknown = da.from_array(X, chunks=(B,) + SHAPE)
    unknown = unknown[unknown[:, 0, 0, 0] > -np.inf]  # boolean index: chunk sizes unknown
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sompca.SOMPCA().fit(unknown)
    with pytest.raises(ValueError, match="shape"):
        sompca.SOMPCA().fit(da.from_array(X[:, 0, 0, 0], chunks=B))
    model = small(sompca.SOMPCA).fit(X)
    with pytest.raises(ValueError, match=r"shape \(6, 8, 5\)"):
        model.transform(da.from_array(X.transpose(0, 2, 1, 3), chunks=(B, 6, 8, 5)))


def test_narrow():
    """A block narrows only to a dtype that holds every value bit for bit (-0.0 is no uint8; NaN narrows to nothing)."""
    ints = np.array([[0.0, 7.0], [255.0, 1.0]])
    assert _dask.narrow(ints).dtype == np.uint8 and np.array_equal(_dask.narrow(ints), ints)
    assert _dask.narrow(ints.astype(np.float32)).dtype == np.uint8
    for x, want in [([0.5, 1.0], np.float32), ([256.0, 1.0], np.float32), ([-1.0, 2.0], np.float32),
                    ([-0.0, 2.0], np.float32), ([0.1, 1.0], np.float64), ([np.nan, 1.0], np.float64),
                    ([np.inf, 1.0], np.float64), ([1e300, 1.0], np.float64)]:
        got = _dask.narrow(np.array(x))
        assert got.dtype == want, (x, got.dtype)
        np.testing.assert_array_equal(got, np.array(x))
        assert np.array_equal(np.signbit(got), np.signbit(np.array(x)))
    assert _dask.narrow(np.array([0.5], np.float32)).dtype == np.float32
    u8 = np.array([1, 2], np.uint8)
    assert _dask.narrow(u8) is u8


@pytest.mark.parametrize("cls", [sompca.SOMPCA, sompca.UMPCA, sompca.PCA, sompca.MPCA])
def test_narrowed_blocks_mix(client, U8, cls):
    """Workers keep some blocks narrowed (uint8, float32) and others as they are: the in-memory fit, bit for bit."""
    X = U8.astype(np.float64)
    X[B:2 * B] += 0.5  # float32 values
    X[2 * B:3 * B] += 0.1  # full float64 mantissas; the rest are uint8 values
    assert [_dask.narrow(X[i:i + B]).dtype for i in range(0, M, B)] == [np.uint8, np.float32, np.float64, np.uint8]
    local = small(cls).fit(X)
    with client.as_current():
        assert_identical(small(cls).fit(da.from_array(X, chunks=(B,) + SHAPE)), local)
