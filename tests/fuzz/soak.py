"""Resource soaks through the Python package (part of `make soak`).

    python tests/fuzz/soak.py [--fits 2000] [--saves 1000]

fits:  fit/transform cycles of SO-MPCA on 40 samples of 7 x 5; the resident
       set may not grow by 1 MB or more between the end of a warm-up (the
       first tenth) and the end.
saves: save/load/transform cycles of a model file; no file descriptor may
       be left open (the /proc/self/fd entries before and after agree), and
       the resident set may not grow by 1 MB either.

Exit status 1 if a limit is exceeded.
"""

import argparse
import gc
import os
import sys
import tempfile

import numpy as np

import sompca


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def fds():
    return sorted(os.listdir("/proc/self/fd"))


def soak(name, cycles, step):
    warm_at, warm = max(1, cycles // 10), 0
    for c in range(cycles):
        step()
        if c + 1 == warm_at:
            gc.collect()
            warm = rss()
    gc.collect()
    end = rss()
    growth = end - warm
    print(f"soak {name}: {cycles} cycles; RSS {warm / 1e6:.1f} MB after {warm_at}, {end / 1e6:.1f} MB at the end: "
          f"growth {growth / 1e6:+.3f} MB (limit 1 MB)")
    return growth < 1_000_000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fits", type=int, default=2000)
    ap.add_argument("--saves", type=int, default=1000)
    args = ap.parse_args()
    X = np.random.default_rng(3).normal(size=(40, 7, 5))
    ok = soak("fit/transform", args.fits, lambda: sompca.SOMPCA(n_components=4).fit(X).transform(X))

    fitted = sompca.SOMPCA(n_components=4).fit(X)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.h5")
        fitted.save(path)
        sompca.load(path).transform(X)
        before = fds()

        def step():
            sompca.load(path).save(path)

        ok = soak("save/load", args.saves, step) and ok
        after = fds()
    print(f"soak save/load: {len(before)} file descriptors open before, {len(after)} after")
    if before != after:
        print(f"soak: file descriptors left open: {sorted(set(after) - set(before))}")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
