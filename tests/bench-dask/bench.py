"""make bench-dask: a fit on a Dask LocalCluster against the local fit of the same samples.

    python tests/bench-dask/bench.py [--samples 100000] [--repeat 2] [--out build/bench-dask]

The data: --samples gait-size uint8 samples (32 x 22 x 10, a few strong
multilinear components plus noise) in an HDF5 file, made once and cached
(build/bench-dask/gait-<M>.h5, dataset /X, chunked by 256 samples).

The fits: SO-MPCA-RS, P = 10, K = 20, tol = 0, of
  - local:  the samples read into memory with h5py, then fit with 2 threads
            (one process: the library's own worker pool), with the default
            mode updates (rows: the fastest locally) and with
            mode_updates="scatter" (what a dask fit makes: its reference);
  - dask:   da.from_array over the h5py dataset in blocks of whole grains,
            persisted on a LocalCluster of 2 worker processes x 1 thread,
            then fit (one round of tasks per pass, mode updates "auto" =
            the folded I_n x I_n scatter).
Each is timed as load (read or persist) and fit; the runs alternate
(local, dask, local, dask, ...) so that both see the same machine load, and
the table gives min and median. The dask fit also reports its passes and
the wall time of a round of tasks (median and min over the passes) and the
bytes of the partials a pass brings to the driver, and the script checks
that its model equals the local scatter fit's bit for bit. The speed ratio
is against the default (fastest) local fit.
Last, the fixed cost of a round: the rounds of a fit of 1024 samples in 4
blocks, whose tasks have almost nothing to compute.
"""

import argparse
import os
import statistics
import sys
import time

import h5py
import numpy as np

SHAPE = (32, 22, 10)


def make_data(path, m, seed=0):
    """Gait-size uint8 samples: 4 rank-one components with random strengths, plus noise."""
    if os.path.exists(path):
        with h5py.File(path, "r") as f:
            if f["X"].shape == (m,) + SHAPE and f["X"].dtype == np.uint8:
                return
    rng = np.random.default_rng(seed)
    factors = [[rng.normal(size=d) for d in SHAPE] for _ in range(4)]
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        X = f.create_dataset("X", shape=(m,) + SHAPE, dtype=np.uint8, chunks=(256,) + SHAPE)
        step = 4096
        for start in range(0, m, step):
            n = min(step, m - start)
            block = 8.0 * rng.normal(size=(n,) + SHAPE)
            for strength, (a, b, c) in zip((30.0, 20.0, 12.0, 6.0), factors):
                block += strength * rng.normal(size=n)[:, None, None, None] * np.einsum("i,j,k->ijk", a, b, c)
            X[start:start + n] = np.clip(np.rint(block + 128), 0, 255).astype(np.uint8)
    os.replace(tmp, path)  # atomic: a half-made file is never taken for data


def estimator(mode_updates="auto"):
    import sompca

    return sompca.SOMPCA(n_components=10, relaxed_start=True, max_iter=20, tol=0.0, n_jobs=2,
                         mode_updates=mode_updates)


def run_local(path, mode_updates="auto"):
    t0 = time.perf_counter()
    with h5py.File(path, "r") as f:
        X = f["X"][()]
    t1 = time.perf_counter()
    model = estimator(mode_updates).fit(X)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, model


def run_dask(client, path, chunk):
    import dask.array as da
    from distributed import wait

    from sompca import _dask

    f = h5py.File(path, "r")
    try:
        X = da.from_array(f["X"], chunks=(chunk,) + SHAPE)
        t0 = time.perf_counter()
        X = client.persist(X)
        with client.as_current():
            wait(X)
        t1 = time.perf_counter()
        rounds, sizes = [], []
        est = estimator()
        with client.as_current():
            est._set_model(_dask.fit(X, est._options(), rounds=rounds, partial_bytes=sizes))
        t2 = time.perf_counter()
        del X
        return t1 - t0, t2 - t1, est, rounds, sizes
    finally:
        f.close()


def run_overhead(client, path):
    """The fixed cost of a round: a fit whose tasks do almost nothing (4 blocks of 256 samples)."""
    import dask.array as da
    import sompca
    from sompca import _dask

    with h5py.File(path, "r") as f:
        X = f["X"][:1024]
    rounds = []
    est = sompca.SOMPCA(n_components=3, relaxed_start=True, max_iter=5)
    with client.as_current():
        est._set_model(_dask.fit(da.from_array(X, chunks=(256,) + SHAPE), est._options(), rounds=rounds))
    return rounds


def summary(values):
    return f"{min(values):8.2f} {statistics.median(values):8.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=50 * 256, help="samples per dask block (default 50 grains)")
    parser.add_argument("--out", default="build/bench-dask")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"gait-{args.samples}.h5")
    t = time.perf_counter()
    make_data(path, args.samples)
    print(f"data: {path}, {args.samples} x {SHAPE} uint8 ({args.samples * np.prod(SHAPE) / 1e6:.0f} MB), "
          f"ready in {time.perf_counter() - t:.1f} s", flush=True)

    t = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=40)
    client = Client(cluster, set_as_default=False)
    print(f"LocalCluster(2 workers x 1 thread) up in {time.perf_counter() - t:.1f} s", flush=True)

    local, scatter, remote = {"load": [], "fit": []}, {"load": [], "fit": []}, {"load": [], "fit": []}
    all_rounds, all_sizes, passes, same = [], [], None, True
    try:
        for r in range(args.repeat):
            load, fit, _ = run_local(path)
            local["load"].append(load)
            local["fit"].append(fit)
            print(f"run {r + 1}: local load {load:.2f} s fit {fit:.2f} s", flush=True)
            load, fit, ref = run_local(path, "scatter")
            scatter["load"].append(load)
            scatter["fit"].append(fit)
            print(f"run {r + 1}: local scatter load {load:.2f} s fit {fit:.2f} s", flush=True)
            load, fit, est, rounds, sizes = run_dask(client, path, args.chunk)
            remote["load"].append(load)
            remote["fit"].append(fit)
            all_rounds.extend(rounds)
            all_sizes.extend(sizes)
            passes = len(rounds)
            same = same and all(np.array_equal(a, b) for a, b in zip(est.projections_, ref.projections_)) and \
                np.array_equal(est.explained_variance_, ref.explained_variance_)
            print(f"run {r + 1}: dask  load {load:.2f} s fit {fit:.2f} s ({passes} passes, "
                  f"round median {statistics.median(rounds) * 1e3:.1f} ms)", flush=True)
        overhead = run_overhead(client, path)
    finally:
        client.close()
        cluster.close()

    print()
    print(f"SO-MPCA-RS, P = 10, K = 20, {args.samples} x {'x'.join(map(str, SHAPE))} uint8, "
          f"{args.repeat} runs (seconds: min median)")
    print(f"{'':34} {'load':>17} {'fit':>17}")
    print(f"{'local, 2 threads':34} {summary(local['load'])} {summary(local['fit'])}")
    print(f"{'local, 2 threads, scatter updates':34} {summary(scatter['load'])} {summary(scatter['fit'])}")
    print(f"{'dask LocalCluster(2 x 1 thread)':34} {summary(remote['load'])} {summary(remote['fit'])}")
    print(f"passes per fit: {passes}; round of tasks: median {statistics.median(all_rounds) * 1e3:.1f} ms, "
          f"min {min(all_rounds) * 1e3:.1f} ms, sum {sum(all_rounds) / args.repeat:.2f} s per fit")
    blocks = -(-args.samples // args.chunk)
    print(f"partials reaching the driver per pass ({blocks} blocks of {args.chunk}): median "
          f"{statistics.median(all_sizes) / 1e3:.1f} kB, max {max(all_sizes) / 1e3:.1f} kB "
          f"(the mean pass: {all_sizes[0] / 1e3:.1f} kB)")
    print(f"fixed cost of a round (4 tasks of 256 samples, {len(overhead)} rounds): median "
          f"{statistics.median(overhead) * 1e3:.1f} ms, min {min(overhead) * 1e3:.1f} ms")
    speed = min(local["fit"]) / min(remote["fit"])
    speed_med = statistics.median(local["fit"]) / statistics.median(remote["fit"])
    print(f"dask fit speed / local fit speed: {speed:.0%} (min), {speed_med:.0%} (median); target >= 70%")
    print(f"dask model equals the local scatter fit's bit for bit: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
