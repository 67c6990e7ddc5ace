"""make bench-hdf5: sompca's HDF5 reads against h5py's, per dataset layout.

For each size M and layout, h5py writes gait-size uint8 samples
(32 x 22 x 10, the shape of the paper's gait data) once into
build/bench-hdf5/ (kept for later runs), then this script times, each in a
process of its own so that its peak RSS is its own:

  h5py     h5py reading the whole dataset once (ds[...])
  pass     one pass of the library over the samples, streamed within
           --stream-limit (hdf5io.Source reads, double-buffered)
  fit      a fit from the file within the default memory limit (which
           loads a dataset that fits, then fits from memory)
  sfit     the same fit streamed within --stream-limit
  memfit   the same fit on the samples already in memory (read not timed)

and prints min and median CPU seconds (user + system, all threads) and
wall seconds over --repeat runs, and the largest peak RSS. The machine
may be shared: compare the rows of one run, as ratios. Options say which sizes, layouts and operations to run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import h5py
import numpy as np

SHAPE = (32, 22, 10)

# name: (h5py create_dataset keywords, samples last)
LAYOUTS = {
    "contiguous": ({}, False),
    "chunks64": ({"chunks": (64,) + SHAPE}, False),
    "chunks64-gzip": ({"chunks": (64,) + SHAPE, "compression": "gzip", "shuffle": True}, False),
    "chunks1": ({"chunks": (1,) + SHAPE}, False),
    "chunks-auto": ({"chunks": True}, False),
    "last-chunks64": ({"chunks": SHAPE + (64,)}, True),
}

# The fits of the issue: (method, P, K) per size.
FITS = {10_000: ("so-mpca", 3, 2), 100_000: ("so-mpca-rs", 5, 3)}


def make_file(path, m, layout):
    kwargs, last = LAYOUTS[layout]
    if os.path.exists(path):
        return
    rng = np.random.default_rng(m)
    shape = SHAPE + (m,) if last else (m,) + SHAPE
    tmp = path + ".tmp"
    with h5py.File(tmp, "w") as f:
        ds = f.create_dataset("X", shape=shape, dtype=np.uint8, **kwargs)
        step = 4096
        for s in range(0, m, step):
            n = min(step, m - s)
            # Smooth images plus noise, so that gzip has something to do
            # but does not reduce the data to nothing.
            base = (np.arange(np.prod(SHAPE)) % 200).reshape(SHAPE).astype(np.int16)
            x = base[None] + rng.integers(0, 56, size=(n,) + SHAPE, dtype=np.int16)
            x = x.astype(np.uint8)
            if last:
                ds[..., s:s + n] = np.moveaxis(x, 0, -1)
            else:
                ds[s:s + n] = x
    os.replace(tmp, path)


def run_child(argv):
    """Runs argv, which prints {"seconds": s, "peak_rss": bytes}."""
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)


# The peak RSS is VmHWM: getrusage's ru_maxrss of a child also counts the
# memory of this process from before the child's exec.
H5PY_CHILD = r"""
import json, re, sys, time, h5py
with h5py.File(sys.argv[1], "r") as f:
    t, c = time.perf_counter(), time.process_time()
    x = f["X"][...]
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
rss = int(re.search(r"VmHWM:\s*(\d+) kB", open("/proc/self/status").read()).group(1)) << 10
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_rss": rss}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True, help="the bench-hdf5 Go binary")
    ap.add_argument("--dir", default="build/bench-hdf5-data")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--ops", default="h5py,pass,fit,sfit,memfit")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stream-limit", default="128MB",
                    help="memory limit of pass and sfit (default 128MB; for data smaller than that, half its size; "
                         "'' passes none, for a tool without the option)")
    ap.add_argument("--fit-repeat", type=int, default=0, help="runs of each fit (default: --repeat)")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    ops = args.ops.split(",")
    print(f"{'M':>7} {'layout':<14} {'op':<7} {'cpu min':>8} {'cpu med':>8} {'wall min':>9} {'wall med':>9} "
          f"{'peak RSS MB':>12}  limit")
    for m in [int(s) for s in args.sizes.split(",")]:
        method, p, k = FITS.get(m, FITS[10_000])
        for layout in args.layouts.split(","):
            path = os.path.join(args.dir, f"gait-{m}-{layout}.h5")
            make_file(path, m, layout)
            last = LAYOUTS[layout][1]
            limit = args.stream_limit
            data_bytes = m * int(np.prod(SHAPE))
            if limit == "128MB" and data_bytes <= 128 << 20:
                limit = str(data_bytes // 2)
            for op in ops:
                if op == "h5py":
                    argv = [sys.executable, "-c", H5PY_CHILD, path]
                else:
                    argv = [args.tool, f"-method={method}", f"-p={p}", f"-k={k}", f"-threads={args.threads}"]
                    if last:
                        argv.append("-samples-last")
                    if op in ("pass", "sfit") and limit:
                        argv.append(f"-memory-limit={limit}")
                    argv += ["fit" if op == "sfit" else op, path, "/X"]
                times, cpus, rss = [], [], 0
                repeat = args.fit_repeat if args.fit_repeat and "fit" in op else args.repeat
                for _ in range(repeat):
                    out = run_child(argv)
                    times.append(out["seconds"])
                    cpus.append(out.get("cpu", float("nan")))
                    rss = max(rss, out["peak_rss"])
                print(f"{m:>7} {layout:<14} {op:<7} {min(cpus):>8.3f} {statistics.median(cpus):>8.3f} "
                      f"{min(times):>9.3f} {statistics.median(times):>9.3f} {rss / 1e6:>12.0f}  "
                      f"{limit if op in ('pass', 'sfit') else ''}", flush=True)


if __name__ == "__main__":
    main()
