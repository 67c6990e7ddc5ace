"""make bench-engine: one table of fit times, method x dtype x threads x path (Go, C, Python).

Each cell runs in its own process: one untimed fit, then --reps timed fits of
the same samples (generated once here, with a fixed seed, and read from a raw
file by every path). The paths time the same call from in-memory samples to a
fitted model: Go is solver.Model.Fit (bench/gofit, shared with make
bench-reference), C is sompca_fit (bench/engine/cfit.c), Python is the
estimator's fit (sompca.estimator_for(...).fit(X)). Every fit has tol = 0, so
it makes all K sweeps.

Each cell shows the CPU seconds of a fit (user + system of the process during
the fit: min / median of the repeats) and, in brackets, the median wall
seconds. The machine is shared and noisy: CPU seconds are the steadier figure
when other work competes for the cores, and the ratios within one run
(C/Go, Py/Go, medians) are what to compare, not seconds across runs. With
1 thread the CPU seconds are the fit's work; the second table gives, per
path, the wall speed-up of 2 threads over 1 and the parallel efficiency
CPU(1 thread) / CPU(2 threads), which is 1 when the second thread does no
extra work.

To add rows, append to CASES (a sample shape with its M and P) or pass
--methods / --dtypes / --threads / --cases.

    python bench/engine/table.py --gofit build/gofit --cfit build/bench/cfit [--reps 3]
"""

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


class Case:
    def __init__(self, name, m, shape, p, k=20):
        self.name, self.m, self.shape, self.p, self.k = name, m, tuple(shape), p, k

    def dims(self):
        return ",".join(str(d) for d in (self.m, *self.shape))


# The cases: the paper's gait shape and an image shape, P = 32, K = 20, tol = 0.
CASES = [
    Case("gait 731x32x22x10", 731, (32, 22, 10), 32),
    Case("image 2000x32x32", 2000, (32, 32), 32),
]
METHODS = ["so-mpca-rs"]
DTYPES = ["uint8", "float64"]
THREADS = [1, 2]
PATHS = ["Go", "C", "Python"]


def samples(case, dtype, folder):
    """Write the case's samples (uniform integers 0..255, seed 1) as a raw file; return its path."""
    path = os.path.join(folder, f"{case.m}x{'x'.join(map(str, case.shape))}.{dtype}")
    if not os.path.exists(path):
        rng = np.random.default_rng(1)
        x = rng.integers(0, 256, size=(case.m, *case.shape)).astype(dtype)
        x.tofile(path)
    return path


def python_fit(args):
    """The Python path, run in its own process: print the seconds of each timed fit."""
    import sompca

    case_dims = [int(d) for d in args.dims.split(",")]
    X = np.fromfile(args.data, dtype=args.dtype).reshape(case_dims)
    accepted = inspect.signature(type(sompca.estimator_for(args.method)).__init__).parameters
    params = {k: v for k, v in dict(n_components=args.p or None, max_iter=args.k, tol=0, n_jobs=args.threads).items()
              if k in accepted}
    for i in range(args.reps + 1):
        est = sompca.estimator_for(args.method, **params)
        t0, c0 = time.perf_counter(), time.process_time()
        est.fit(X)
        t, c = time.perf_counter() - t0, time.process_time() - c0
        if i > 0:
            print(f"{t:.6f} cpu {c:.6f}")


class Timing:
    """The timed fits of one cell: wall and CPU seconds."""

    def __init__(self, walls, cpus):
        self.walls, self.cpus = walls, cpus

    def wall(self):
        return statistics.median(self.walls)

    def cpu(self):
        return statistics.median(self.cpus)

    def cell(self):
        return f"{min(self.cpus):.3f} / {self.cpu():.3f} [{self.wall():.3f}]"


def measure(path, exe, data, dtype, case, method, threads, reps):
    if path == "Go":
        # bench/gofit prints one JSON object: the seconds and CPU seconds of each fit.
        cmd = [exe["Go"], "-data", data, "-dtype", dtype, "-shape", case.dims(), "-method", method,
               "-p", str(case.p), "-k", str(case.k), "-threads", str(threads), "-repeat", str(reps + 1)]
        got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        return Timing(got["times"][1:], got["cpu"][1:])  # the first fit is not timed
    if path == "C":
        cmd = [exe["C"], data, dtype, case.dims(), method, str(case.p), str(case.k), str(threads), str(reps)]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--python-fit", "--data", data, "--dtype", dtype,
               "--dims", case.dims(), "--method", method, "--p", str(case.p), "--k", str(case.k),
               "--threads", str(threads), "--reps", str(reps)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    # one line per fit: "WALL cpu CPU"
    lines = [line.split() for line in out.splitlines() if line.strip()]
    return Timing([float(f[0]) for f in lines], [float(f[2]) for f in lines])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gofit", default="build/gofit")
    ap.add_argument("--cfit", default="build/bench/cfit")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--threads", default=",".join(map(str, THREADS)))
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--cases", default="", help="substring of the case names to run (default: all)")
    # The Python path's own process.
    ap.add_argument("--python-fit", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data"), ap.add_argument("--dtype"), ap.add_argument("--dims"), ap.add_argument("--method")
    ap.add_argument("--p", type=int), ap.add_argument("--k", type=int)
    args = ap.parse_args()
    if args.python_fit:
        args.threads = int(args.threads)
        return python_fit(args)

    exe = {"Go": args.gofit, "C": args.cfit}
    paths = args.paths.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    print(f"CPU seconds per fit, min / median of {args.reps} [median wall seconds] (one untimed fit first); "
          "K = 20, tol = 0")
    head = ["case", "method", "dtype", "threads", *paths]
    if "Go" in paths:
        head += [f"{p}/Go CPU" for p in paths if p != "Go"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    scaling = []
    with tempfile.TemporaryDirectory() as folder:
        for case in CASES:
            if args.cases not in case.name:
                continue
            for method in args.methods.split(","):
                for dtype in args.dtypes.split(","):
                    data = samples(case, dtype, folder)
                    by_threads = {}
                    for t in threads:
                        got = {p: measure(p, exe, data, dtype, case, method, t, args.reps) for p in paths}
                        by_threads[t] = got
                        row = [case.name, method, dtype, str(t)] + [got[p].cell() for p in paths]
                        if "Go" in paths:
                            row += [f"{got[p].cpu() / got['Go'].cpu():.3f}" for p in paths if p != "Go"]
                        print("| " + " | ".join(row) + " |", flush=True)
                    if 1 in by_threads and 2 in by_threads:
                        one, two = by_threads[1], by_threads[2]
                        scaling.append((case.name, method, dtype,
                                        {p: (one[p].wall() / two[p].wall(), one[p].cpu() / two[p].cpu())
                                         for p in paths}))
    if scaling:
        print("\n2 threads vs 1: wall speed-up (ratio of median wall seconds) / parallel efficiency "
              "(CPU seconds with 1 thread / with 2)")
        print("| case | method | dtype | " + " | ".join(paths) + " |")
        print("|" + "---|" * (3 + len(paths)))
        for name, method, dtype, s in scaling:
            print(f"| {name} | {method} | {dtype} | "
                  + " | ".join(f"{s[p][0]:.2f}x / {s[p][1]:.2f}" for p in paths) + " |")


if __name__ == "__main__":
    sys.exit(main())
