"""make bench-dask: a fit on a Dask LocalCluster against the local fit of the same samples.

    python tests/bench-dask/bench.py [--samples 100000] [--repeat 2] [--out build/bench-dask]

The data: --samples gait-size uint8 samples (32 x 22 x 10, a few strong
multilinear components plus noise) in an HDF5 file, made once and cached
(build/bench-dask/gait-<M>.h5, dataset /X, chunked by 256 samples).

The fits: SO-MPCA-RS, P = 10, K = 20, tol = 0, of
  - local:  the samples read into memory with h5py, then fit with 2 threads
            (one process: the library's own worker pool), with the default
            mode updates ("auto", which the data's shape resolves: rows up
            to 2^20 partial projections M x max_n I_n, so at 2 x 10^4 gait
            samples, the scatter beyond, so at 10^5) and with the other
            choice forced (the faster one locally when auto takes the
            scatter);
  - dask:   da.from_array over the h5py dataset in blocks of whole grains,
            persisted on a LocalCluster of 2 worker processes x 1 thread,
            then fit with the default mode updates (one round per pass: a
            message to each worker's block server, tasks for the first round);
  - with --compare-driver FILE, also the dask fit by another version of
            sompca/_dask.py (e.g. git show REV:bindings/python/sompca/_dask.py
            > /tmp/before.py), loaded here and on the workers as
            sompca._dask_compare: before/after figures in one run.
Each is timed as load (read or persist) and fit, wall and the CPU seconds
of all processes (this one and the cluster's); the runs alternate (local,
local other, dask, ...) so that all see the same machine load, and the
table gives min and median. The dask fit also reports its passes and the
wall time of a round (median and min over the passes) and the bytes of the
partials a pass brings to the driver, and the script checks that its model
equals the default local fit's bit for bit. The speed ratios are against
the default local fit and against the faster of the two local fits.
Last, the fixed cost of a round: the rounds of a fit of 1024 samples in 4
blocks, whose tasks have almost nothing to compute.
"""

import argparse
import importlib.util
import os
import resource
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


def load_driver(path):
    """Another version of sompca/_dask.py, as the module sompca._dask_compare (its tasks name it so)."""
    spec = importlib.util.spec_from_file_location("sompca._dask_compare", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def cpu_seconds(client=None):
    """User + system CPU seconds of this process and its children, plus the cluster's worker processes."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    if client is not None:
        total += sum(client.run(_own_cpu).values())
    return total


def _own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_local(path, mode_updates="auto"):
    t0 = time.perf_counter()
    with h5py.File(path, "r") as f:
        X = f["X"][()]
    t1, c1 = time.perf_counter(), cpu_seconds()
    model = estimator(mode_updates).fit(X)
    t2, c2 = time.perf_counter(), cpu_seconds()
    return t1 - t0, t2 - t1, c2 - c1, model


def run_dask(client, path, chunk, driver):
    import dask.array as da
    from distributed import wait

    f = h5py.File(path, "r")
    try:
        X = da.from_array(f["X"], chunks=(chunk,) + SHAPE)
        t0 = time.perf_counter()
        X = client.persist(X)
        with client.as_current():
            wait(X)
        t1, c1 = time.perf_counter(), cpu_seconds(client)
        rounds, sizes, stats = [], [], {}
        est = estimator()
        extra = {"stats": stats} if "stats" in driver.fit.__code__.co_varnames else {}
        with client.as_current():
            est._set_model(driver.fit(X, est._options(), rounds=rounds, partial_bytes=sizes, **extra))
        t2, c2 = time.perf_counter(), cpu_seconds(client)
        del X
        return t1 - t0, t2 - t1, c2 - c1, est, rounds, sizes, stats
    finally:
        f.close()


def run_overhead(client, path, driver):
    """The fixed cost of a round: a fit whose tasks do almost nothing (4 blocks of 256 samples)."""
    import dask.array as da
    import sompca

    with h5py.File(path, "r") as f:
        X = f["X"][:1024]
    rounds = []
    est = sompca.SOMPCA(n_components=3, relaxed_start=True, max_iter=5)
    with client.as_current():
        est._set_model(driver.fit(da.from_array(X, chunks=(256,) + SHAPE), est._options(), rounds=rounds))
    return rounds


def summary(values):
    return f"{min(values):8.2f} {statistics.median(values):8.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=50 * 256, help="samples per dask block (default 50 grains)")
    parser.add_argument("--out", default="build/bench-dask")
    parser.add_argument("--compare-driver", metavar="FILE",
                        help="also time the dask fit by this version of sompca/_dask.py")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    from sompca import _dask, _lib

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"gait-{args.samples}.h5")
    t = time.perf_counter()
    make_data(path, args.samples)
    print(f"data: {path}, {args.samples} x {SHAPE} uint8 ({args.samples * np.prod(SHAPE) / 1e6:.0f} MB), "
          f"ready in {time.perf_counter() - t:.1f} s", flush=True)
    auto = "rows" if args.samples * max(SHAPE) <= _lib.MODE_UPDATES_ROWS_LIMIT else "scatter"
    other = "scatter" if auto == "rows" else "rows"
    drivers = [("dask", _dask)]
    if args.compare_driver:
        drivers.append((f"dask, {os.path.basename(args.compare_driver)}", load_driver(args.compare_driver)))

    t = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=40)
    client = Client(cluster, set_as_default=False)
    if args.compare_driver:
        client.run(load_driver, os.path.abspath(args.compare_driver))
    print(f"LocalCluster(2 workers x 1 thread) up in {time.perf_counter() - t:.1f} s", flush=True)

    names = [f"local, 2 threads, auto = {auto}", f"local, 2 threads, {other}"] + [name for name, _ in drivers]
    table = {name: {"load": [], "fit": [], "cpu": []} for name in names}
    rounds_of, sizes_of, stats_of, passes, same = {}, {}, {}, None, True
    try:
        for r in range(args.repeat):
            for name, choice in zip(names[:2], ("auto", other)):
                load, fit, cpu, model = run_local(path, choice)
                if choice == "auto":
                    ref = model
                table[name]["load"].append(load)
                table[name]["fit"].append(fit)
                table[name]["cpu"].append(cpu)
                print(f"run {r + 1}: {name}: load {load:.2f} s fit {fit:.2f} s cpu {cpu:.2f} s", flush=True)
            for name, driver in drivers:
                load, fit, cpu, est, rounds, sizes, stats = run_dask(client, path, args.chunk, driver)
                table[name]["load"].append(load)
                table[name]["fit"].append(fit)
                table[name]["cpu"].append(cpu)
                rounds_of.setdefault(name, []).extend(rounds)
                sizes_of.setdefault(name, []).extend(sizes)
                stats_of[name] = stats
                passes = len(rounds)
                same = same and all(np.array_equal(a, b) for a, b in zip(est.projections_, ref.projections_)) and \
                    np.array_equal(est.explained_variance_, ref.explained_variance_)
                print(f"run {r + 1}: {name}: load {load:.2f} s fit {fit:.2f} s cpu {cpu:.2f} s ({passes} passes, "
                      f"round median {statistics.median(rounds) * 1e3:.1f} ms{', ' + str(stats) if stats else ''})",
                      flush=True)
        overhead = {name: run_overhead(client, path, driver) for name, driver in drivers}
    finally:
        client.close()
        cluster.close()

    print()
    print(f"SO-MPCA-RS, P = 10, K = 20, {args.samples} x {'x'.join(map(str, SHAPE))} uint8, "
          f"{args.repeat} runs (seconds: min median); load average {os.getloadavg()[0]:.1f}")
    print(f"{'':40} {'load':>17} {'fit (wall)':>17} {'fit (CPU, all)':>17}")
    for name in names:
        print(f"{name:40} {summary(table[name]['load'])} {summary(table[name]['fit'])} {summary(table[name]['cpu'])}")
    for name, _ in drivers:
        rounds, sizes = rounds_of[name], sizes_of[name]
        print(f"{name}: {passes} passes per fit; round: median {statistics.median(rounds) * 1e3:.1f} ms, "
              f"min {min(rounds) * 1e3:.1f} ms, sum {sum(rounds) / args.repeat:.2f} s per fit; fixed cost of a "
              f"round (4 blocks of 256 samples, {len(overhead[name])} rounds): median "
              f"{statistics.median(overhead[name]) * 1e3:.1f} ms, min {min(overhead[name]) * 1e3:.1f} ms")
        blocks = -(-args.samples // args.chunk)
        print(f"{name}: partials reaching the driver per pass ({blocks} blocks of {args.chunk}): median "
              f"{statistics.median(sizes) / 1e3:.1f} kB, max {max(sizes) / 1e3:.1f} kB")
    default, fastest = names[0], min(names[:2], key=lambda name: min(table[name]["fit"]))
    for name, _ in drivers:
        for against in dict.fromkeys((default, fastest)):
            fit, ref_fit = table[name]["fit"], table[against]["fit"]
            print(f"{name} speed / {against} speed: {min(ref_fit) / min(fit):.0%} (min), "
                  f"{statistics.median(ref_fit) / statistics.median(fit):.0%} (median)")
    print(f"dask models equal the default local fit's bit for bit: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
