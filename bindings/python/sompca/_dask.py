"""Fit and transform of dask arrays: the driver of a library fit session.

A fit of a ``dask.array.Array`` runs the library's own engine (the one
``sompca_fit`` runs) in a fit session (see "Fit sessions" in sompca.h):
the engine asks for each pass over the samples as one request per block,
the blocks' partial results are computed where the blocks live by
``sompca_pass_partial``, and the engine folds them in block order. This
module only moves requests and partials; nothing of the algorithm is here.

- The array is persisted once (on the cluster's workers with a
  ``dask.distributed.Client`` active, else in this process by Dask's local
  scheduler), then every pass is one round of tasks: with a client, one
  task per worker thread over the blocks that worker holds (fewer tasks,
  less scheduler time per round); without, one task per block.
- Partials are folded in block order, so the model does not depend on
  where or in which order the tasks ran. Blocks that start at multiples
  of ``BLOCK_MULTIPLE`` samples give the model of an in-memory fit bit for
  bit; other blocks agree to rounding (about 1e-12).
- Faults: a task is a pure function of the request and the block, so when
  a worker dies Dask recomputes its blocks from the array's graph and
  reruns its tasks elsewhere; the fit goes on with the same result.
- Workers may keep a per-block cache between passes (for samples of order
  3 or more: the contraction with the last mode's vector, which saves
  reading the samples in the middle modes' passes), when it is no larger
  than the block. It is an optimisation only: a task that finds no cache
  (another worker, a restarted one) computes from the samples, with the
  same result.
"""

import collections
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
    if dtype.newbyteorder("=") != dtype or dtype not in (np.float64, np.float32, np.uint8):
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
    return {np.dtype(np.float64): _lib.FLOAT64, np.dtype(np.float32): _lib.FLOAT32,
            np.dtype(np.uint8): _lib.UINT8}[np.dtype(dtype)]


# Worker side ------------------------------------------------------------

# Per-process block caches: fit token -> {(first, n): float64 array}. A few
# fits' worth are kept (least recently used dropped); the driver drops its
# own at the end of a fit.
_CACHES: "collections.OrderedDict[object, dict]" = collections.OrderedDict()
_CACHES_LOCK = threading.Lock()
_CACHES_KEPT = 4


def _cache_for(token, first, n, size):
    if size == 0:
        return None
    with _CACHES_LOCK:
        caches = _CACHES.get(token)
        if caches is None:
            caches = _CACHES[token] = {}
            while len(_CACHES) > _CACHES_KEPT:
                _CACHES.popitem(last=False)
        else:
            _CACHES.move_to_end(token)
        cache = caches.get((first, n))
        if cache is None or cache.size != size:
            cache = caches[(first, n)] = np.zeros(size, dtype=np.float64)
        return cache


def drop_caches(token):
    """Forget the block caches of one fit in this process."""
    with _CACHES_LOCK:
        _CACHES.pop(token, None)


def block_partials(token, items):
    """The partials of (request, block) pairs, computed in this process.

    ``block`` is the numpy array of a block's samples; the result is the
    list of the partials' bytes, in the order of ``items``.
    """
    out = []
    for request, block in items:
        array = np.ascontiguousarray(block)
        first, n, partial_size, cache_size = _lib.pass_info(request)
        if array.shape[0] != n:
            raise ValueError(f"sompca: block of {array.shape[0]} samples for a request of {n} (samples {first}..)")
        # The cache saves reading the samples in the middle modes' passes; it
        # is kept only when it is at most the block's size (uint8 samples of a
        # short last mode would make it larger than the data).
        cache = _cache_for(token, first, n, cache_size) if 8 * cache_size <= max(array.nbytes, 1) else None
        out.append(_lib.pass_partial(request, array, _library_dtype(array.dtype), cache, partial_size))
    return out


# Driver -----------------------------------------------------------------


def _block_starts(chunks):
    starts, first = [], 0
    for n in chunks:
        starts.append(first)
        first += n
    return starts


def fit(X, options, report=None, rounds=None, partial_bytes=None):
    """Fit a library model to the samples of a dask array.

    ``options`` is a ``sompca_options``; ``report(done, total, variance)``
    is called after each EMP (as for an in-memory fit). ``rounds``, if a
    list, receives the wall time in seconds of each pass's round of tasks;
    ``partial_bytes``, if a list, the bytes of the partials that each pass
    brought to the driver. Returns a :class:`sompca._lib.Model`.
    """
    X = _prepare(X)
    n_samples, shape = int(X.shape[0]), tuple(int(d) for d in X.shape[1:])
    client = _client()
    runner = _ClusterRounds(client, X) if client is not None else _LocalRounds(X)
    spans = [(first, n) for first, n in zip(_block_starts(X.chunks[0]), X.chunks[0])]
    token = uuid.uuid4().hex
    session = _lib.Session(n_samples, shape, options, report)
    try:
        while session.next():
            requests = [session.request(first, n) if n else None for first, n in spans]
            started = time.perf_counter()
            partials = runner.round(token, requests)
            if rounds is not None:
                rounds.append(time.perf_counter() - started)
            if partial_bytes is not None:
                partial_bytes.append(sum(len(partial) for partial in partials if partial is not None))
            for (first, n), partial in zip(spans, partials):
                if n:
                    session.feed(first, n, partial)
        return session.finish()
    finally:
        session.close()
        runner.drop(token)


class _LocalRounds:
    """Rounds of tasks on Dask's local scheduler (no client): one task per block, in this process."""

    def __init__(self, X):
        self.blocks = list(X.persist().to_delayed().ravel())

    def round(self, token, requests):
        import dask

        tasks = [dask.delayed(block_partials, pure=False)(token, [(request, block)])
                 for request, block in zip(requests, self.blocks) if request is not None]
        results = iter(dask.compute(*tasks, optimize_graph=False))
        return [next(results)[0] if request is not None else None for request in requests]

    def drop(self, token):
        drop_caches(token)


class _ClusterRounds:
    """Rounds of tasks on a dask.distributed cluster: one task per worker thread, over the blocks it holds.

    The array is persisted once; its blocks stay on the workers as futures.
    Grouping blocks by worker makes a round one task per worker thread
    rather than one per block (the scheduler's time per task is what a
    round costs on small blocks). Groups are made again when the set of
    workers changes (a worker lost or added), which is checked at most every
    ``REGROUP_SECONDS`` (asking the scheduler is a round trip, a fixed cost
    that every round would otherwise pay) and after a round that failed; a
    stale group costs a transfer, never a wrong result, since the partials
    are pure.
    """

    REGROUP_SECONDS = 2.0

    def __init__(self, client, X):
        from distributed import futures_of, wait

        self.client = client
        X = client.persist(X)
        with client.as_current():
            wait(X)
        by_key = {future.key: future for future in futures_of(X)}
        self.futures = [by_key[key] for key in _flat_keys(X)]
        self.workers = None
        self.groups = None
        self.checked = -float("inf")  # time.monotonic() of the last look at the workers

    def _regroup(self):
        if self.groups is not None and time.monotonic() - self.checked < self.REGROUP_SECONDS:
            return self.groups
        self.checked = time.monotonic()
        info = self.client.scheduler_info().get("workers", {})
        workers = frozenset(info)
        if self.groups is None or workers != self.workers:
            who = self.client.who_has(self.futures)
            by_worker = collections.OrderedDict()
            for i, future in enumerate(self.futures):
                holders = sorted(who.get(future.key) or ())
                by_worker.setdefault(holders[0] if holders else None, []).append(i)
            # One task per worker thread: a worker's blocks in as many runs as it has threads.
            self.groups = []
            for address, blocks in by_worker.items():
                tasks = max(1, min(len(blocks), int(info.get(address, {}).get("nthreads", 1))))
                for t in range(tasks):
                    self.groups.append(blocks[t * len(blocks) // tasks:(t + 1) * len(blocks) // tasks])
            self.workers = workers
        return self.groups

    def round(self, token, requests):
        groups = [[i for i in group if requests[i] is not None] for group in self._regroup()]
        groups = [group for group in groups if group]
        submitted = [self.client.submit(block_partials, token, [(requests[i], self.futures[i]) for i in group],
                                        pure=False) for group in groups]
        try:
            results = self.client.gather(submitted)
        except BaseException:
            self.checked = -float("inf")  # look at the workers again before the next round
            raise
        partials = [None] * len(requests)
        for group, result in zip(groups, results):
            for i, partial in zip(group, result):
                partials[i] = partial
        return partials

    def drop(self, token):
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
    """A fitted model that travels to workers as its file's bytes, loaded once per process."""

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
