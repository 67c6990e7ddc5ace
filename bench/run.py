"""Time sompca (through Python and in pure Go) beside NumPy and scikit-learn.

Every row of the speed table of issue 18 runs in one process, on the same
data for every contender, interleaved repeat by repeat so that the noise of
the shared machine falls on all of them alike; each repeat starts one
contender later than the one before, so that no contender always runs
right after the same one (such as the NumPy contender's 9-11 s on both
cores). Printed: min and median
seconds per contender (wall, and CPU) and the ratio reference / sompca (above 1: sompca is
faster), plus the agreement of the captured variances as a check that the
contenders computed the same thing.

    python bench/run.py                    # every row, 3 repeats
    python bench/run.py -k faces -r 5      # rows whose name contains "faces"
    python bench/run.py --profile DIR      # also a Go CPU profile per row (go tool pprof)
    python bench/run.py --gofit PATH       # a prebuilt bench/gofit binary
    python bench/run.py --gofit-before OLD # also an older build, for before/after ratios
    python bench/run.py --library-before OLD.so  # also sompca through Python on an older libsompca.so

The data are uniform random integers 0..255 (a fixed seed) in the row's
dtype: a hard case for iterative eigensolvers, whose eigengaps are small.
Such float64 data are exactly uint8 values, which a fit reads through a
uint8 copy (docs/DESIGN.md, "Exactness and narrowing"); the float64+frac rows add 0.1 x a
uniform [0, 1) to them, full float64 mantissas that it reads as they are.
The agreement column is not a check to 1e-12. After K = 20 sweeps with
tol = 0 these fits are far from converged: NumPy's own variances at K = 20
and K = 40 differ by 2.8e-2 (gait uint8) and 1.8e-2 (faces uint8), and
along such a path any difference in a mode update is carried into the
later sweeps and EMPs. sompca's mode updates are warm-started Krylov
iterations stopped at a stated residual (docs/DESIGN.md), NumPy's are exact
eigh: at K = 20 they agree to 9.1e-5 (gait uint8), 3.1e-5 (gait
float64+frac) and 3.1e-4 (faces uint8), at K = 40 gait uint8 to 5.4e-13
(2026-11-27, both at BLAS 1 thread; NumPy at BLAS 1 and 2 threads gives
the same bits); faces uint8 at K = 40 is still 1.5e-2 apart, both fits
still moving (1.7e-2 and 1.8e-2 from their K = 20 values): converging
there takes more sweeps (not measured). sompca's results are checked to 1e-12 against reference
fits by its tests, not here. --floor prints in the reference's row how far
its variances move when every sample value moves by about 1e-15 (gait
uint8 2.9e-7, faces uint8 7.2e-6): a lower bound on that noise, not its
size. For PCA, scikit-learn's default solver at these shapes is its
randomized SVD (svd_solver='auto' picks it for 731 x 7040, P = 32): it is
approximate and changes from run to run (--floor: 1.1e-2 against itself),
so sompca agrees with it to 6.8e-2 but with svd_solver='full' (the
sklearn-full contender) to 3.4e-15.

CPU seconds (all threads of the process) are printed beside the wall
clock: on a machine shared with other work they measure the work done more
steadily; their ratio is not a parallel speed-up.

Each timed call starts after a pause (--settle, 1 s), for two reasons
found with perf on this machine. OpenBLAS's worker threads spin on a core
for about 0.1-0.15 s after each call before they sleep: the NumPy and
scikit-learn references left one core busy for the contender timed after
them, and at real-time priority (chrt -f, as the timings here are taken)
a fit's second thread could not run there at all (sompca through Python,
timed right after NumPy, lost 0.10-0.14 s of a 0.45-0.55 s gait fit on 2
threads). And real-time tasks may use 0.95 s of each second of a core
(/proc/sys/kernel/sched_rt_runtime_us): back-to-back timed work at
real-time priority was stopped for 50 ms every second, on a random share
of the fits; after a pause of a second, a fit that needs less than 0.95 s
of each core runs through.

Read the ratio of two sompca contenders with the noise in mind. Fits of
2 s vary by 14-17% (coefficient of variation, faces float64+frac at 2
threads, chrt -f 10, 2026-11-27), from the host: the CPU seconds of a fit
move with its wall time and steal time appears in the slow ones. Drawn
from those 36 fits, the ratio of the medians of two identical contenders
over 5 repeats falls outside 0.79-1.26 one time in ten (1.35 at 3
repeats). Through Python the faces float64+frac fit took 0.94x, 1.01x,
1.02x and 1.26x Go's median in four runs of `-k faces-f64frac -r 5
--threads 2` the same hour (the first two in a fixed order, NumPy,
Python, Go); without the NumPy contender, 18 Python fits and 18 Go fits
interleaved, 0.99x (wall) and 1.00x (CPU). Whichever path ran right
after the NumPy contender was not measurably slower than in the later
places of its repeat, and NumPy's OpenBLAS thread took no CPU time
during the fits (its spinning ends within the pause). A difference of a
few percent between paths needs tens of interleaved pairs.
"""

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, method, (M, I_1, ..., I_N), dtype, P (None: the method's default)
ROWS = [
    ("faces-u8", "so-mpca-rs", (721, 80, 60), "uint8", 60),
    ("faces-f64", "so-mpca-rs", (721, 80, 60), "float64", 60),
    ("gait-u8", "so-mpca-rs", (731, 32, 22, 10), "uint8", 32),
    ("gait-f64", "so-mpca-rs", (731, 32, 22, 10), "float64", 32),
    ("faces-f64frac", "so-mpca-rs", (721, 80, 60), "float64+frac", 60),
    ("gait-f64frac", "so-mpca-rs", (731, 32, 22, 10), "float64+frac", 32),
    ("img64", "so-mpca-rs", (300, 64, 64), "float32", 10),
    ("img96", "so-mpca-rs", (300, 96, 96), "float32", 10),
    ("img128", "so-mpca-rs", (300, 128, 128), "float32", 10),
    ("img128-m100", "so-mpca-rs", (100, 128, 128), "float32", 10),
    ("img256", "so-mpca-rs", (300, 256, 256), "float32", 10),
    ("img512", "so-mpca-rs", (300, 512, 512), "float32", 10),
    ("gait-mpca", "mpca", (731, 32, 22, 10), "uint8", None),
    ("gait-csa", "csa", (731, 32, 22, 10), "uint8", None),
    ("gait-pca", "pca", (731, 32, 22, 10), "uint8", 32),
    ("pca-3000x6000", "pca", (3000, 6000), "float64", 50),
]


def make_data(shape, dtype, seed=18):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, size=shape)
    if dtype == "float64+frac":  # full float64 mantissas: nothing narrower holds them (docs/DESIGN.md)
        return x + 0.1 * rng.random(shape)
    return x.astype(dtype)


def timed(fn, settle=0.0):
    """Wall and CPU seconds (all threads of this process) of fn(), and its result; sleep settle seconds first."""
    time.sleep(settle)
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - t0, time.process_time() - c0), out


def references(method, X, P, sklearn_full=True):
    """The reference contenders of a row: name -> (callable returning variances)."""
    if method == "so-mpca-rs":
        return {"numpy": lambda: np.sort(reference.so_mpca_rs(X, P)[1])[::-1]}
    if method in ("mpca", "csa"):
        # Variance (CSA: energy) of every projected entry, descending.
        return {"numpy": lambda: np.sort(reference.tucker(X, method)[1])[::-1]}
    from sklearn.decomposition import PCA

    X2 = X.reshape(X.shape[0], -1).astype(np.float64)
    refs = {"sklearn": lambda: PCA(n_components=P).fit(X2).explained_variance_}
    if sklearn_full:
        refs["sklearn-full"] = lambda: PCA(n_components=P, svd_solver="full").fit(X2).explained_variance_
    return refs


def sompca_python(method, X, P, threads, warm_up=True):
    """The callable that fits sompca through Python, after an untimed fit of 20 samples 4 x 4 (warm_up).

    The first fit in a process pays one-time costs that the later ones do not (Python's lazy first
    calls, the library's worker threads): the in-process contender paid them in its first repeat
    only, the --library-before child, a fresh process, in every repeat. Warmed up, both time the
    same kind of fit.
    """
    import sompca

    if warm_up:
        sompca_python(method, make_data((20, 4, 4), "uint8"), 2 if P else None, threads, warm_up=False)()
    if method == "so-mpca-rs":
        est = sompca.SOMPCA(n_components=P, relaxed_start=True, max_iter=20, tol=0.0, n_jobs=threads)
    elif method == "pca":
        est = sompca.PCA(n_components=P, n_jobs=threads)
    else:  # every entry of the projected tensor, as the reference gives
        est = {"mpca": sompca.MPCA, "csa": sompca.CSA}[method](max_iter=20, n_jobs=threads)
    return lambda: est.fit(X).explained_variance_ if method != "csa" else _csa_energy(est, X)


def _csa_energy(est, X):
    est.fit(X)
    F = est.transform(X)
    return np.sort((F**2).sum(axis=0))[::-1]


def go_fit(gofit, path, method, X, P, threads, profile=None, settle=0.0):
    time.sleep(settle)
    cmd = [gofit, "-data", path, "-dtype", str(X.dtype), "-shape", ",".join(map(str, X.shape)),
           "-method", method, "-p", str(P or 0)]
    if method in ("mpca", "csa"):
        cmd[-1] = "0"
    if threads:
        cmd += ["-threads", str(threads)]
    if profile:
        cmd += ["-cpuprofile", profile]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    return (res["times"][0], res["cpu"][0]), np.array(res["variance"])


# The child that times sompca through Python on another libsompca.so
# (--library-before): the same estimator as sompca_python, on the row's
# samples read back from the raw file gofit reads, in a fresh process so
# that it loads the other library; it prints the fit's wall and CPU
# seconds and the variances as JSON.
_CHILD = """
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import run
path, dtype, shape, method, P, threads = sys.argv[2], sys.argv[3], tuple(map(int, sys.argv[4].split(","))), sys.argv[5], \
    int(sys.argv[6]) or None, int(sys.argv[7]) or None
X = np.fromfile(path, dtype=dtype).reshape(shape)
(wall, cpu), var = run.timed(run.sompca_python(method, X, P, threads), float(sys.argv[8]))
print(json.dumps({"wall": wall, "cpu": cpu, "variance": np.asarray(var).tolist()}))
"""


def python_before(library, path, method, X, P, threads, settle=0.0):
    cmd = [sys.executable, "-c", _CHILD, os.path.dirname(os.path.abspath(__file__)), path, str(X.dtype),
           ",".join(map(str, X.shape)), method, str(P or 0), str(threads or 0), str(settle)]
    env = dict(os.environ, SOMPCA_LIBRARY=library)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    res = json.loads(out.strip().splitlines()[-1])
    return (res["wall"], res["cpu"]), np.array(res["variance"])


def perturbed(X, seed=19):
    """X as float64 with every element moved by a random one part in 1e15 or so (--floor): a few ulps, as
    another order of the same sums would move the values an implementation computes from them."""
    rng = np.random.default_rng(seed)
    return np.asarray(X, dtype=np.float64) * (1 + 1e-15 * rng.standard_normal(X.shape))


def agreement(a, b):
    """Largest relative difference of the leading captured variances."""
    n = min(len(a), len(b))
    a, b = np.asarray(a[:n], float), np.asarray(b[:n], float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


IMPORT_CHILD = """
import sys, time
t0 = time.perf_counter(); import numpy
t1 = time.perf_counter(); import sompca
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def import_times(runs=5):
    """Seconds of `import numpy` and then of `import sompca`, each in a fresh interpreter (min / median)."""
    numpy_s, sompca_s = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", IMPORT_CHILD], check=True, capture_output=True, text=True).stdout
        a, b = map(float, out.split())
        numpy_s.append(a)
        sompca_s.append(b)
    return (f"import numpy {min(numpy_s):.3f} / {statistics.median(numpy_s):.3f} s, then import sompca "
            f"{min(sompca_s):.3f} / {statistics.median(sompca_s):.3f} s (min / median of {runs} fresh interpreters)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", default="", help="run only rows whose name contains one of these (comma-separated)")
    ap.add_argument("-r", "--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="sompca threads (0: all cores)")
    ap.add_argument("--gofit", help="prebuilt bench/gofit binary (default: go build it)")
    ap.add_argument("--gofit-before", help="a bench/gofit binary built at an earlier commit, timed as sompca-go-before "
                                           "(before/after in one run)")
    ap.add_argument("--library-before", help="a libsompca.so built at an earlier commit: sompca through Python on it "
                                             "is timed as sompca-py-before, in a child process (before/after in one run)")
    ap.add_argument("--settle", type=float, default=1.0,
                    help="seconds to sleep before each timed call, so that the BLAS threads of the call before stop "
                         "spinning and real-time throttling does not cut into it (see above)")
    ap.add_argument("--profile", help="directory for one Go CPU profile per row")
    ap.add_argument("--no-python", action="store_true", help="skip sompca through Python")
    ap.add_argument("--no-sklearn-full", action="store_true",
                    help="PCA rows: skip scikit-learn's svd_solver='full' (16 s a repeat at 3000 x 6000)")
    ap.add_argument("--scaling", action="store_true", help="also time pure Go with 1 thread (ratio = 1 thread / all)")
    ap.add_argument("--floor", action="store_true",
                    help="also run each row's first reference once (untimed) on the samples with every element moved "
                         "by about one part in 1e15, and print in its agreement column how far that moves its "
                         "variances: the floor under which two correct implementations cannot agree (see above)")
    ap.add_argument("--blas-threads", type=int, default=0,
                    help="threads of NumPy's and scikit-learn's BLAS (0: its default, all cores); on a loaded "
                         "machine OpenBLAS threads that spin-wait can slow the references many times over")
    args = ap.parse_args()
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads)

    tmp = tempfile.mkdtemp(prefix="sompca-bench-")
    gofit = args.gofit
    if not gofit:
        gofit = os.path.join(tmp, "gofit")
        subprocess.run(["go", "build", "-o", gofit, "./bench/gofit"], check=True, cwd=ROOT,
                       env=dict(os.environ, CGO_ENABLED="0"))
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)

    if not args.no_python:
        print(import_times(), end="\n\n")
    print("| row | method | shape | dtype | P | contender | min s | median s | cpu s (min / median) "
          "| ratio ref/sompca (min wall; cpu) | agreement |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, method, shape, dtype, P in ROWS:
        if not any(k in name for k in args.k.split(",")):
            continue
        X = make_data(shape, dtype)
        path = os.path.join(tmp, name + ".raw")
        X.tofile(path)
        contenders = dict(references(method, X, P, not args.no_sklearn_full))
        if not args.no_python:
            contenders["sompca-py"] = sompca_python(method, X, P, args.threads or None)
        times = {c: [] for c in contenders}  # (wall, cpu) pairs
        times["sompca-go"] = []
        if args.gofit_before:
            times["sompca-go-before"] = []
        if args.library_before and not args.no_python:
            times["sompca-py-before"] = []
        if args.scaling:
            times["sompca-go-1t"] = []
        # Every timed call of a repeat: contender -> callable returning ((wall, cpu), result).
        calls = {c: functools.partial(timed, fn, args.settle) for c, fn in contenders.items()}
        calls["sompca-go"] = functools.partial(go_fit, gofit, path, method, X, P, args.threads, settle=args.settle)
        if args.gofit_before:
            calls["sompca-go-before"] = functools.partial(go_fit, args.gofit_before, path, method, X, P, args.threads,
                                                          settle=args.settle)
        if "sompca-py-before" in times:
            calls["sompca-py-before"] = functools.partial(python_before, args.library_before, path, method, X, P,
                                                          args.threads, args.settle)
        if args.scaling:
            calls["sompca-go-1t"] = functools.partial(go_fit, gofit, path, method, X, P, 1, settle=args.settle)
        order = list(calls)
        results = {}
        for i in range(args.repeat):
            # Repeat i starts at the i-th contender (see above, "order").
            for c in order[i % len(order):] + order[: i % len(order)]:
                t, results[c] = calls[c]()
                times[c].append(t)
        if args.profile:
            go_fit(gofit, path, method, X, P, args.threads, profile=os.path.join(args.profile, name + ".pprof"))
        os.remove(path)
        refs = [c for c in contenders if not c.startswith("sompca")]
        ref = refs[0]
        floor = None
        if args.floor:
            floor = agreement(references(method, perturbed(X), P, False)[ref](), results[ref])

        def best(c, k):
            return min(t[k] for t in times[c])

        for c, ts in times.items():
            wall = [t[0] for t in ts]
            ratio = ""
            if c.startswith("sompca"):
                ratio = " ".join(f"{r}: {best(r, 0) / best(c, 0):.2f}x; {best(r, 1) / best(c, 1):.2f}x" for r in refs)
            if c == "sompca-go-1t":
                ratio = f"1t/all: {best(c, 0) / best('sompca-go', 0):.2f}x"
            if c.endswith("-before"):
                after = c[: -len("-before")]
                ratio += f" before/after: {best(c, 0) / best(after, 0):.2f}x; {best(c, 1) / best(after, 1):.2f}x"
            agree = f"{agreement(results[c], results[ref]):.1e}" if c in results else ""
            if c == ref and floor is not None:
                agree = f"floor {floor:.1e}"
            if method == "csa" and c.startswith("sompca-go"):
                agree = "n/a"  # gofit reports variances; CSA ranks by energy
            print(f"| {name} | {method} | {'x'.join(map(str, shape))} | {dtype} | {P or ''} | {c} | "
                  f"{min(wall):.3f} | {statistics.median(wall):.3f} | {best(c, 1):.3f} / "
                  f"{statistics.median(t[1] for t in ts):.3f} | {ratio} | {agree} |", flush=True)


if __name__ == "__main__":
    main()
