"""Fit and transform of dask arrays: the driver of a library fit session.

A fit of a ``dask.array.Array`` runs the library's own engine (the one
``sompca_fit`` runs) in a fit session (see "Fit sessions" in sompca.h):
the engine asks for each pass over the samples as one request per block,
the blocks' partial results are computed where the blocks live by
``sompca_pass_partial``, and the engine folds them in block order. This
module only moves requests and partials; nothing of the algorithm is here.

- The array is persisted once (on the cluster's workers with a
  ``dask.distributed.Client`` active, else in this process by Dask's local
  scheduler), then every pass is one round. With a client, a block's first
  partial is computed by a task on the persisted block, which also keeps
  the block in its worker's process and starts that process's block
  server: a thread listening on a socket of the worker's host (an
  authenticated ``multiprocessing.connection``, its key random per
  process and given to the driver by the task). From then on the driver
  sends each worker the requests of the blocks it keeps, once per round,
  and reads back their partials as bytes: no task, no graph, no scheduler
  and no Dask message per pass, which cost more than the partials of small
  blocks (bench/MEASUREMENTS.md, "Dask: a socket per worker"). Workers
  whose address is not TCP (TLS, UCX) are served by tasks. Without a
  client, one task per block on Dask's local scheduler.
- Partials are folded in block order, so the model does not depend on
  where or in which order the tasks ran. Blocks that start at multiples
  of ``BLOCK_MULTIPLE`` samples give the model of an in-memory fit bit for
  bit; other blocks agree to rounding (about 1e-12).
- Faults: a partial is a pure function of the request and the block.
  When a worker dies, its connection breaks and the blocks it served go
  back to tasks on the persisted array: Dask recomputes the lost blocks
  from the array's graph, the tasks keep them on the workers they ran on,
  and those workers' block servers serve them from the next round. The
  fit goes on with the same result.
- Workers may keep a per-block cache between passes (for samples of order
  3 or more: the contraction with the first mode's vector, which the
  mode-2 pass fills and which saves reading the samples in the passes of
  modes 3..N; for samples of values that need float64, with each mode's
  vector in turn, N-1 passes for one read), when it is no larger than the
  block. It is an optimisation only: a task that finds no cache (another
  worker, a restarted one) computes from the samples, with the same
  result.
"""

import collections
import concurrent.futures
import os
import secrets
import sys
import threading
import time
import uuid

import numpy as np

from . import _lib

BLOCK_MULTIPLE = _lib.BLOCK_MULTIPLE


def is_dask_array(X):
    """True if X is a ``dask.array.Array`` (without importing dask)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(X, da.Array)


def _client():
    """The active dask.distributed Client, or None (Dask's local scheduler)."""
    if "distributed" not in sys.modules:  # no client without the module
        return None
    from distributed import Client

    try:
        return Client.current()
    except ValueError:  # no client
        return None


def _prepare(X):
    """Check a dask array of samples and return it chunked along axis 0 only, in a library dtype."""
    if X.ndim < 2:
        raise ValueError(f"X has shape {X.shape}; want (n_samples, I_1, ..., I_N) with N >= 1")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X has dtype {X.dtype}; sompca needs real numbers (bool, integer or float)")
    if any(np.isnan(c) for chunks in X.chunks for c in chunks):
        raise ValueError("X has unknown chunk sizes (NaN in X.chunks); call X.compute_chunk_sizes() first")
    if any(len(chunks) > 1 for chunks in X.chunks[1:]):
        # A block must hold whole samples.
        X = X.rechunk({axis: -1 for axis in range(1, X.ndim)})
    dtype = np.dtype(X.dtype)
    if dtype.newbyteorder("=") != dtype or dtype not in (np.float64, np.float32, np.uint8, np.uint16, np.int16):
        X = X.astype(np.float64)
    return X


def with_sample_shape(X, sample_shape):
    """A dask matrix (n_samples, I_1 * ... * I_N) viewed as samples of sample_shape; other arrays as they are."""
    if sample_shape is None or tuple(X.shape[1:]) == tuple(sample_shape):
        return X
    size = int(np.prod(sample_shape))
    if X.ndim != 2 or X.shape[1] != size:
        raise ValueError(f"X has samples of shape {tuple(X.shape[1:])}, but sample_shape={tuple(sample_shape)} needs "
                         f"X of shape (n_samples, {size}) or (n_samples, {', '.join(map(str, sample_shape))})")
    X = X.rechunk({1: -1})  # whole rows, so that every block reshapes alone
    return X.reshape((X.shape[0],) + tuple(sample_shape))


def _library_dtype(dtype):
    return {np.dtype(np.float64): _lib.FLOAT64, np.dtype(np.float32): _lib.FLOAT32, np.dtype(np.uint8): _lib.UINT8,
            np.dtype(np.uint16): _lib.UINT16, np.dtype(np.int16): _lib.INT16}[np.dtype(dtype)]


# Worker side ------------------------------------------------------------

# Per-process block caches: fit token -> {(first, n): float64 array}. A few
# fits' worth are kept (least recently used dropped); the driver drops its
# own at the end of a fit.
_CACHES: "collections.OrderedDict[object, dict]" = collections.OrderedDict()
_CACHES_LOCK = threading.RLock()
_CACHES_KEPT = 4


def _per_fit(store, token):
    """store[token], a dict made if missing; only the _CACHES_KEPT most recently used fits are kept."""
    with _CACHES_LOCK:
        mine = store.get(token)
        if mine is None:
            mine = store[token] = {}
            while len(store) > _CACHES_KEPT:
                store.popitem(last=False)
        else:
            store.move_to_end(token)
        return mine


def _kept(token, key, size, dtype):
    """The array of ``size`` values that this process keeps for the fit ``token`` under ``key``.

    Made (zeros) when missing or of another size. Besides the block caches
    (key (first, n)), the buffers the block server writes a block's partial
    and a run's joined partial in (bench/MEASUREMENTS.md, "Dask: partials
    in kept buffers").
    """
    with _CACHES_LOCK:
        kept = _per_fit(_CACHES, token)
        array = kept.get(key)
        if array is None or array.size != size:
            array = kept[key] = np.zeros(size, dtype=dtype)
        return array


def _cache_for(token, first, n, size):
    return _kept(token, (first, n), size, np.float64) if size else None


def _out_for(token, key, size):
    """A kept buffer of at least size bytes (see _kept): the largest asked for so far."""
    with _CACHES_LOCK:
        array = _per_fit(_CACHES, token).get(key)
    return array if array is not None and array.size >= size else _kept(token, key, size, np.uint8)


# Per-process blocks kept for the block server: fit token -> {block index: array},
# filled by the tasks that computed a block's partial (held_partials), kept
# like the caches (a few fits, least recently used dropped).
_HELD: "collections.OrderedDict[object, dict]" = collections.OrderedDict()


def _held(token):
    return _per_fit(_HELD, token)


def drop_caches(token):
    """Forget the block caches and kept blocks of one fit in this process."""
    with _CACHES_LOCK:
        _CACHES.pop(token, None)
        _HELD.pop(token, None)


def block_partials(token, items, kept=False):
    """The partials of (request, block) pairs, computed in this process.

    ``block`` is the numpy array of a block's samples; the result is the
    list of the partials' bytes, in the order of ``items``; with ``kept``,
    of views of buffers this process keeps for the blocks (valid until the
    block's next partial).
    """
    out = []
    for request, block in items:
        array = np.ascontiguousarray(block)
        first, n, partial_size, cache_size = _lib.pass_info(request)
        if array.shape[0] != n:
            raise ValueError(f"sompca: block of {array.shape[0]} samples for a request of {n} (samples {first}..)")
        # The cache saves reading the samples in most passes of a sweep; it
        # is kept only when it is at most the block's size (uint8 samples of a
        # short first mode would make it larger than the data).
        cache = _cache_for(token, first, n, cache_size) if 8 * cache_size <= max(array.nbytes, 1) else None
        buffer = _out_for(token, ("partial", first, n), partial_size) if kept else None
        out.append(_lib.pass_partial(request, array, _library_dtype(array.dtype), cache, partial_size, out=buffer))
    return out


def narrow(block):
    """``block`` in the narrowest library dtype that holds each of its values bit for bit, else itself.

    A float64 (float32) block whose values are all integers 0..255 (never
    -0.0) comes back as uint8, a float64 block of finite float32 values as
    float32: the block a worker keeps for a fit's later rounds then takes
    1/8 (1/4) or 1/2 of the bytes, and its passes read that much less. The
    partials are the same bit for bit (the kernels take the same sums in
    the same order for every element type: docs/DESIGN.md, "Exactness and narrowing"), so
    blocks kept narrowed and blocks kept as they are mix freely.
    """
    a = np.asarray(block)
    if a.dtype not in (np.float64, np.float32):
        return block
    with np.errstate(invalid="ignore", over="ignore"):  # values outside 0..255 or NaN: compared below
        u = a.astype(np.uint8)
        if np.array_equal(u, a) and not np.signbit(a).any():
            return u
        if a.dtype == np.float64:
            f = a.astype(np.float32)
            if np.array_equal(f, a) and np.isfinite(f).all():
                return f
    return block


def held_partials(token, items):
    """A task: the partials of (index, request, block) triples, keeping the blocks in this process.

    Returns this worker's address, its block server's (address, key) or
    None (see _serve), and the partials in the order of ``items``; the
    block server serves the kept blocks from then on.
    """
    from distributed import get_worker

    held = _held(token)
    for i, _, block in items:
        held[i] = narrow(block)
    address = get_worker().address
    return address, _serve(address), block_partials(token, [(request, held[i]) for i, request, _ in items])


_POOL = None  # the threads the block server computes blocks on (as many as the worker's)


def _pool(threads):
    global _POOL
    with _CACHES_LOCK:
        if _POOL is None or _POOL._max_workers < threads:
            _POOL = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="sompca-blocks")
        return _POOL


def _split(blocks, parts, lengths):
    """Blocks (indices, in order) cut into at most ``parts`` runs of about equal samples (lengths[i])."""
    total = sum(lengths[i] for i in blocks)
    runs, run, done = [], [], 0
    for i in blocks:
        # Start the next run once this one holds its share of the samples.
        if run and len(runs) < parts - 1 and done + lengths[i] / 2 > total * (len(runs) + 1) / parts:
            runs.append(run)
            run = []
        run.append(i)
        done += lengths[i]
    if run:
        runs.append(run)
    return runs


def _partials_of(token, items, threads):
    """The partials of the (index, request) items whose blocks this process keeps for the fit ``token``.

    Returns (i, j, partial) triples: the partial of blocks i..j-1, a run of
    neighbouring blocks kept here, joined into one (sompca_partials_join:
    the subtrees of the reduction tree they complete together are folded
    here, and the driver receives and feeds one partial per run). A block
    not kept here (its process restarted, or the block was never computed
    here) is left out, and the driver computes it by a task instead. The
    partials are views of buffers kept for the fit (see _kept), valid
    until the next call for the same blocks.
    """
    held = _held(token)
    here = {i: request for i, request in items if i in held}
    pool = _pool(threads)
    groups = [[(i, here[i]) for i in group]
              for group in _split(sorted(here), threads, {i: len(held[i]) for i in here})]
    results = _map(pool, lambda group: block_partials(token, [(request, held[i]) for i, request in group], kept=True),
                   groups)
    partials = {i: partial for group, result in zip(groups, results) for (i, _), partial in zip(group, result)}
    runs = _runs(sorted(partials))

    def join(run):
        parts = [partials[i] for i in run]
        return _lib.partials_join(here[run[0]], parts, out=_out_for(token, ("joined", run[0]), sum(map(len, parts))))

    joined = iter(_map(pool, join, [run for run in runs if len(run) > 1]))
    return [(run[0], run[-1] + 1, next(joined) if len(run) > 1 else partials[run[0]]) for run in runs]


def _map(pool, fn, items):
    """pool.map(fn, items) as a list; in this thread when there is one item (a hand-off to the pool is
    two thread wake-ups, about 0.1-0.3 ms a round on a worker of one thread)."""
    return [fn(item) for item in items] if len(items) <= 1 else list(pool.map(fn, items))


_SERVER = None  # this process's block server: (pid, listener address, key)


def _serve(worker_address):
    """Start this process's block server once; its (address, key), or None when the worker's comm is not TCP.

    A daemon thread accepts connections (the driver's, authenticated by a
    key random per process); each is served by its own thread, which
    answers every message (token, items, threads) with
    ("ok", [(i, j, nbytes)]) and then each partial's nbytes bytes, raw on
    the connection's socket (_partials_of, _raw), or ("error", exception).
    """
    global _SERVER
    from multiprocessing.connection import Listener

    scheme, _, rest = worker_address.partition("://")
    if scheme == "inproc":
        host = "127.0.0.1"
    elif scheme == "tcp" and not rest.startswith("["):  # IPv4 or a name; not IPv6
        host = rest.rsplit(":", 1)[0]
    else:
        return None
    with _CACHES_LOCK:
        if _SERVER is None or _SERVER[0] != os.getpid():  # a forked child has no thread of its parent's
            key = secrets.token_bytes(32)
            listener = Listener((host, 0), authkey=key)
            threading.Thread(target=_accept, args=(listener,), daemon=True, name="sompca-server").start()
            _SERVER = (os.getpid(), listener.address, key)
        return _SERVER[1:]


def _accept(listener):
    while True:
        try:
            conn = listener.accept()
        except Exception:  # a client that failed authentication, or no file descriptor left
            time.sleep(0.01)
            continue
        threading.Thread(target=_answer, args=(conn, _raw(conn)), daemon=True, name="sompca-conn").start()


def _raw(conn):
    """A socket object on a connection's socket (a duplicate descriptor), for the partials' bytes.

    Partials go as raw bytes after the message that gives their sizes: the
    receiver reads them into kept buffers (socket.recv_into), where
    Connection.recv_bytes_into reads a message in fresh chunks and copies
    them twice (bench/MEASUREMENTS.md, "Dask: partials in kept buffers").
    It also sends a connection's messages at once (TCP_NODELAY): a
    message goes out in a few writes, and with Nagle's algorithm the last
    short write waits for the peer's delayed ACK, about 40 ms a round.
    """
    import socket

    sock = socket.socket(fileno=os.dup(conn.fileno()))  # the same socket: options and bytes are shared
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _read_into(sock, view):
    """Fill the buffer view from sock (EOFError if the peer closes first)."""
    done = 0
    while done < len(view):
        n = sock.recv_into(view[done:])
        if n == 0:
            raise EOFError("sompca: the block server's connection closed")
        done += n


def _answer(conn, sock):
    with conn, sock:
        while True:
            try:
                token, items, threads = conn.recv()
            except (EOFError, OSError):  # the driver closed the connection, or went away
                return
            try:
                pieces = _partials_of(token, items, threads)
            except Exception as err:  # the driver raises it, as a task's error
                try:
                    conn.send(("error", err))
                except Exception:  # an error that does not pickle: its words
                    conn.send(("error", RuntimeError(f"{type(err).__name__}: {err}")))
                continue
            conn.send(("ok", [(i, j, len(partial)) for i, j, partial in pieces]))
            for _, _, partial in pieces:
                sock.sendall(partial)


def _runs(indices):
    """Sorted block indices cut into runs of consecutive ones."""
    runs = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


# Driver -----------------------------------------------------------------


def _block_starts(chunks):
    starts, first = [], 0
    for n in chunks:
        starts.append(first)
        first += n
    return starts


def fit(X, options, report=None, rounds=None, partial_bytes=None, stats=None):
    """Fit a library model to the samples of a dask array.

    ``options`` is a ``sompca_options``; ``report(done, total, variance)``
    is called after each EMP (as for an in-memory fit). ``rounds``, if a
    list, receives the wall time in seconds of each pass's round;
    ``partial_bytes``, if a list, the bytes of the partials that each pass
    brought to the driver; ``stats``, if a dict, gets "fed", the partials
    fed to the session (a worker's neighbouring blocks are joined into one
    partial), and with a client "served" and "tasked", the block partials
    computed by block servers and by tasks.
    Returns a :class:`sompca._lib.Model`.
    """
    X = _prepare(X)
    n_samples, shape = int(X.shape[0]), tuple(int(d) for d in X.shape[1:])
    client = _client()
    runner = _ClusterRounds(client, X) if client is not None else _LocalRounds(X)
    spans = [(first, n) for first, n in zip(_block_starts(X.chunks[0]), X.chunks[0])]
    fed = []
    try:
        return _run(n_samples, shape, spans, runner, options, report, rounds, partial_bytes, fed)
    finally:
        if stats is not None:
            stats.update(fed=sum(fed))
            if client is not None:
                stats.update(served=runner.served, tasked=runner.tasked)


def fit_blocks(read, n_samples, shape, options, report=None, block_bytes=64 << 20):
    """Fit a library model to samples read a block at a time by ``read(first, n)``, in this process.

    ``read`` returns samples [first, first + n) as an array (n, *shape) of
    any real dtype; each pass reads every block again, so memory holds one
    block (of at most about ``block_bytes`` as float64) and the blocks'
    caches. Blocks start at multiples of ``BLOCK_MULTIPLE`` samples, so the
    model is the in-memory fit's bit for bit. It is how an h5py Dataset
    that the library cannot open is fitted, read through h5py.
    """
    size = int(np.prod(shape))
    per_block = max(1, block_bytes // max(8 * size, 1) // BLOCK_MULTIPLE) * BLOCK_MULTIPLE
    spans = [(first, min(per_block, n_samples - first)) for first in range(0, n_samples, per_block)]
    return _run(n_samples, tuple(shape), spans, _ReadRounds(read, spans), options, report)


def _run(n_samples, shape, spans, runner, options, report=None, rounds=None, partial_bytes=None, fed=None):
    """Run a fit session whose passes ``runner`` computes, one request per span (first, n) of samples."""
    token = uuid.uuid4().hex
    session = _lib.Session(n_samples, shape, options, report)
    try:
        while session.next():
            requests = [session.request(first, n) if n else None for first, n in spans]
            started = time.perf_counter()
            pieces = runner.round(token, requests)  # (i, j, the partial of blocks i..j-1), in order
            if rounds is not None:
                rounds.append(time.perf_counter() - started)
            if partial_bytes is not None:
                partial_bytes.append(sum(len(partial) for _, _, partial in pieces))
            if fed is not None:
                fed.append(len(pieces))
            for i, j, partial in pieces:
                first = spans[i][0]
                session.feed(first, spans[j - 1][0] + spans[j - 1][1] - first, partial)
        return session.finish()
    finally:
        session.close()
        runner.drop(token)


class _ReadRounds:
    """Rounds whose blocks ``read(first, n)`` reads again for each pass, computed in this process."""

    def __init__(self, read, spans):
        self.read, self.spans = read, spans

    def round(self, token, requests):
        out = []
        for i, ((first, n), request) in enumerate(zip(self.spans, requests)):
            if request is None:
                continue
            block = np.asarray(self.read(first, n))
            if block.dtype.newbyteorder("=") != block.dtype or block.dtype not in (np.float64, np.float32, np.uint8):
                block = block.astype(np.float64)
            out.append((i, i + 1, block_partials(token, [(request, block)])[0]))
        return out

    def drop(self, token):
        drop_caches(token)


class _LocalRounds:
    """Rounds of tasks on Dask's local scheduler (no client): one task per block, in this process."""

    def __init__(self, X):
        self.blocks = list(X.persist().to_delayed().ravel())

    def round(self, token, requests):
        import dask

        blocks = [i for i, request in enumerate(requests) if request is not None]
        tasks = [dask.delayed(block_partials, pure=False)(token, [(requests[i], self.blocks[i])]) for i in blocks]
        return [(i, i + 1, result[0]) for i, result in zip(blocks, dask.compute(*tasks, optimize_graph=False))]

    def drop(self, token):
        drop_caches(token)


class _ClusterRounds:
    """Rounds on a dask.distributed cluster: each worker's block server serves the blocks that worker keeps.

    The array is persisted once; its blocks stay on the workers as futures.
    A block whose partial no block server can give (the first round, a
    worker lost, a block Dask moved) is computed by a task on its
    persisted future (one task per worker thread over the blocks that
    worker holds, as Dask reports), which keeps the block in the process
    it ran in and tells the driver where, and how to reach that process's
    block server; the driver connects once. A round in which every block
    is served is one message to and from each worker. ``served`` and
    ``tasked`` count the partials each way (for tests and the benchmark).
    """

    CONNECT_SECONDS = 30.0  # a block server not reached in time is not used (its blocks stay on tasks)

    def __init__(self, client, X):
        from distributed import futures_of, wait

        self.client = client
        X = client.persist(X)
        with client.as_current():
            wait(X)
        by_key = {future.key: future for future in futures_of(X)}
        self.futures = [by_key[key] for key in _flat_keys(X)]
        self.lengths = [int(n) for n in X.chunks[0]]  # samples per block
        self.owner = [None] * len(self.futures)  # the worker whose process keeps block i
        self.channels = {}  # worker address -> connection to its block server
        self.sockets = {}  # worker address -> the socket of its connection, for the partials' bytes (_raw)
        self.inbox = {}  # (worker address, k): the kept buffer that worker's k-th partial of a round is read into
        self.threads = {}  # worker address -> its threads
        self.served = self.tasked = 0

    def round(self, token, requests):
        pieces = {}  # i -> (j, the partial of blocks i..j-1)
        done = [request is None for request in requests]  # the blocks with a partial (or none to make)
        by_owner = collections.defaultdict(list)
        for i, request in enumerate(requests):
            if request is not None and self.owner[i] in self.channels:
                by_owner[self.owner[i]].append(i)
        asked = []
        for address, blocks in by_owner.items():
            try:
                self.channels[address].send((token, [(i, requests[i]) for i in blocks], self.threads[address]))
                asked.append(address)
            except OSError:  # the worker cannot be reached: its blocks go to tasks
                self._lost(address)
        for address in asked:
            channel = self.channels[address]
            try:
                status, got = channel.recv()
                if status == "error":
                    raise got
                got = [(i, j, self._receive(address, k, size)) for k, (i, j, size) in enumerate(got)]
            except (EOFError, OSError):  # the worker died mid-round: its blocks go to tasks
                self._lost(address)
                continue
            for i, j, partial in got:
                pieces[i] = (j, partial)
                done[i:j] = [True] * (j - i)
                self.served += j - i
        rest = [i for i, ok in enumerate(done) if not ok]
        if rest:
            partials = [None] * len(requests)
            self._tasks(token, requests, rest, partials)
            pieces.update((i, (i + 1, partials[i])) for i in rest)
        return [(i, j, partial) for i, (j, partial) in sorted(pieces.items())]

    def _receive(self, address, k, size):
        """The next size bytes from a worker, read into a kept buffer: a view of it, valid for this round."""
        buffer = self.inbox.get((address, k))
        if buffer is None or buffer.size < size:
            buffer = self.inbox[(address, k)] = np.empty(size, dtype=np.uint8)
        _read_into(self.sockets[address], memoryview(buffer)[:size])
        return buffer[:size]

    def _lost(self, address):
        self.inbox = {key: buffer for key, buffer in self.inbox.items() if key[0] != address}
        channel = self.channels.pop(address, None)
        if channel is not None:
            channel.close()
            self.sockets.pop(address).close()
        self.owner = [None if owner == address else owner for owner in self.owner]

    def _tasks(self, token, requests, blocks, partials):
        """The partials of the given blocks by tasks on their persisted futures (Dask recomputes lost ones).

        The blocks are spread so that every worker thread gets about the
        same number of samples (the round waits for the busiest worker):
        a block stays on the worker that holds it while that worker is
        within its share, and otherwise goes to the least loaded worker
        (it moves there once; the worker keeps it for the next rounds).
        """
        info = self.client.scheduler_info().get("workers", {})
        threads = {address: max(1, int(worker.get("nthreads", 1))) for address, worker in info.items()}
        who = self.client.who_has([self.futures[i] for i in blocks])
        load = dict.fromkeys(threads, 0)
        for i, owner in enumerate(self.owner):  # the blocks block servers still serve
            if owner in load and i not in blocks:
                load[owner] += self.lengths[i]
        share = (sum(load.values()) + sum(self.lengths[i] for i in blocks)) / max(1, sum(threads.values()))
        assigned = collections.OrderedDict()
        rest = []
        for i in blocks:
            holders = [address for address in sorted(who.get(self.futures[i].key) or ()) if address in load]
            holder = min(holders, key=lambda a: load[a] / threads[a]) if holders else None
            if holder is not None and load[holder] + self.lengths[i] / 2 <= share * threads[holder]:
                load[holder] += self.lengths[i]
                assigned.setdefault(holder, []).append(i)
            else:
                rest.append(i)
        for i in sorted(rest, key=lambda i: -self.lengths[i]):
            address = min(load, key=lambda a: (load[a] + self.lengths[i]) / threads[a]) if load else None
            if address is not None:
                load[address] += self.lengths[i]
            assigned.setdefault(address, []).append(i)
        # One task per worker thread: a worker's blocks in as many runs as it has threads.
        groups = []
        for address, mine in assigned.items():
            mine.sort()
            for group in _split(mine, threads.get(address, 1), self.lengths):
                groups.append((address, group))
        submitted = [self.client.submit(held_partials, token, [(i, requests[i], self.futures[i]) for i in group],
                                        workers=[address] if address else None, allow_other_workers=True,
                                        pure=False) for address, group in groups]
        for (_, group), (address, server, result) in zip(groups, self.client.gather(submitted)):
            for i, partial in zip(group, result):
                partials[i] = partial
                self.owner[i] = address
            self.tasked += len(group)
            if server is not None and address not in self.channels:
                self._connect(address, server, threads.get(address, 1))

    def _connect(self, address, server, threads):
        """Connect to the block server of the worker at address (its blocks stay on tasks if it cannot be reached)."""
        import socket
        from multiprocessing.connection import Client

        (host, port), key = server
        try:
            # Client has no timeout: first check that the port answers.
            socket.create_connection((host, port), timeout=self.CONNECT_SECONDS).close()
            channel = Client((host, port), authkey=key)
            self.sockets[address] = _raw(channel)
            self.channels[address], self.threads[address] = channel, threads
        except OSError:
            pass

    def drop(self, token):
        for address in list(self.channels):
            self._lost(address)
        try:
            self.client.run(drop_caches, token)
        except Exception:  # a worker gone: its caches went with it
            pass


def _flat_keys(X):
    """The keys of a dask array's blocks in order along axis 0 (its other axes are one block each)."""
    return [block.key for block in X.to_delayed(optimize_graph=False).ravel()]


def transform(model, X):
    """The features of a dask array's samples, as a dask array (n_samples, P) chunked like X."""
    X = _prepare(X)
    shape = tuple(int(d) for d in X.shape[1:])
    if shape != tuple(model.shape()):
        raise ValueError(f"X has samples of shape {shape}, but the model was fitted on shape {tuple(model.shape())}")
    p = model.n_components()
    ref = _ModelRef(model)
    if X.ndim == 2:
        return X.map_blocks(_transform_block, ref, dtype=np.float64, chunks=(X.chunks[0], (p,)))
    return X.map_blocks(_transform_block, ref, dtype=np.float64, chunks=(X.chunks[0], (p,)),
                        drop_axis=list(range(2, X.ndim)))


def _transform_block(block, ref, block_info=None):
    array = np.ascontiguousarray(block)
    try:
        return ref.model().transform_array(array, _library_dtype(array.dtype))
    except ValueError as err:  # name the block: the library counts samples from its start
        first = block_info[0]["array-location"][0][0] if block_info else "?"
        raise ValueError(f"{err} (in the block of X starting at sample {first})") from err


class _ModelRef:
    """A fitted model that travels to workers as its file's bytes (made in memory), loaded once per process."""

    # digest -> Model, the few most recent
    _loaded: "collections.OrderedDict[str, _lib.Model]" = collections.OrderedDict()
    _lock = threading.Lock()

    def __init__(self, model, data=None, key=None):
        import hashlib

        self._model = model
        self._data = model.to_bytes() if data is None else data
        self._key = key or hashlib.sha256(self._data).hexdigest()

    def model(self):
        if self._model is None:
            with self._lock:
                model = self._loaded.get(self._key)
                if model is None:
                    model = self._loaded[self._key] = _lib._model_from_bytes(self._data)
                    while len(self._loaded) > _CACHES_KEPT:
                        self._loaded.popitem(last=False)
                self._model = model
        return self._model

    def __dask_tokenize__(self):
        return self._key

    def __reduce__(self):
        return (_ModelRef, (None, self._data, self._key))
