"""Reference fits in Python for the Octave and R test suites.

    reference.py make DIR     samples and the Python binding's fits of them:
                              DIR/manifest.txt, DIR/*.bin, DIR/<case>.h5
    reference.py relay DIR    a model written by Octave (DIR/octave_model.h5)
                              read by Python: its features of the samples it
                              was fitted to, checked against Octave's, and the
                              model saved again by Python for R

Arrays are raw little-endian float64 files in C order (samples first), which
Octave's fread and R's readBin read exactly. manifest.txt has a line
"data NAME DTYPE M I_1 ... I_N" per sample set and
"case NAME DATA METHOD P MODE MAX_ITER TOL Q" per fit (MODE: none, all or
a 0-based mode; P, MAX_ITER, TOL, Q: 0 for the default).
"""

import sys
from pathlib import Path

import numpy as np

import sompca

DATA = {
    # 3 modes, 2 modes (uint8, float32), vectors, booleans
    "a": lambda rng: rng.normal(size=(40, 6, 5, 4)),
    "b": lambda rng: rng.integers(0, 256, size=(30, 7, 6)).astype(np.uint8),
    "c": lambda rng: rng.normal(size=(30, 5, 8)).astype(np.float32),
    "d": lambda rng: rng.normal(size=(25, 9)),
    "e": lambda rng: rng.random(size=(30, 4, 5)) > 0.5,
}

# name, data, method, P, mode, max_iter, tol, q: every method of the library.
CASES = [
    ("sompca_rs", "a", "so-mpca-rs", 3, None, 0, 0, 0),
    ("sompca", "a", "so-mpca", 3, None, 0, 0, 0),
    ("sompca_mode1", "a", "so-mpca-rs", 3, 1, 0, 0, 0),
    ("sompca_all", "a", "so-mpca-rs", 4, "all", 0, 0, 0),
    ("sompca_tol", "a", "so-mpca-rs", 3, None, 50, 1e-3, 0),
    ("fompca_rs", "a", "fo-mpca-rs", 3, None, 0, 0, 0),
    ("fompca", "a", "fo-mpca", 3, None, 0, 0, 0),
    ("trod", "a", "trod", 3, None, 0, 0, 0),
    ("trod_rs", "a", "trod-rs", 3, None, 0, 0, 0),
    ("umpca", "a", "umpca", 3, None, 0, 0, 0),
    ("umpca_rs", "a", "umpca-rs", 3, None, 0, 0, 0),
    ("pca", "a", "pca", 5, None, 0, 0, 0),
    ("mpca", "a", "mpca", 0, None, 0, 0, 0.9),
    ("csa", "a", "csa", 6, None, 5, 0, 0.9),
    ("uint8", "b", "so-mpca-rs", 4, None, 0, 0, 0),
    ("float32", "c", "so-mpca-rs", 3, None, 0, 0, 0),
    ("vectors", "d", "so-mpca-rs", 3, None, 0, 0, 0),
    ("vectors_pca", "d", "pca", 3, None, 0, 0, 0),
    ("logical", "e", "so-mpca-rs", 3, None, 0, 0, 0),
]


def write(path, array):
    np.ascontiguousarray(array, dtype="<f8").tofile(path)


def estimator(method, p, mode, max_iter, tol, q):
    params = {"n_components": p or None}
    if method.startswith("so-mpca"):
        params["mode"] = mode
    if max_iter:
        params["max_iter"] = max_iter
    if tol:
        params["tol"] = tol
    if q:
        params["q"] = q
    return sompca.estimator_for(method, **params)


def make(out):
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(38)
    samples = {}
    lines = []
    for name, draw in DATA.items():
        X = draw(rng)
        samples[name] = X
        write(out / f"{name}.bin", X)
        lines.append(" ".join(["data", name, X.dtype.name, *map(str, X.shape)]))
    for name, data, method, p, mode, max_iter, tol, q in CASES:
        X = samples[data]
        model = estimator(method, p, mode, max_iter, tol, q).fit(X)
        model.save(out / f"{name}.h5")
        for n, u in enumerate(model.projections_):
            write(out / f"{name}_u{n + 1}.bin", u)
        write(out / f"{name}_variance.bin", model.explained_variance_)
        write(out / f"{name}_ratio.bin", model.explained_variance_ratio_)
        write(out / f"{name}_mean.bin", model.mean_)
        write(out / f"{name}_iterations.bin", model.n_iter_per_component_)
        # Python rounds float32 samples' features to float32; the MEX and R return the library's
        # float64, which the same samples held as float64 give exactly (float32 widens exactly).
        write(out / f"{name}_features.bin", model.transform(X.astype(np.float64) if X.dtype == np.float32 else X))
        lines.append(" ".join(["case", name, data, method, str(p), "none" if mode is None else str(mode),
                               str(max_iter), repr(tol), repr(q)]))
    (out / "manifest.txt").write_text("\n".join(lines) + "\n")
    print(f"reference.py: {len(CASES)} Python fits of {len(DATA)} sample sets in {out}")


def relay(out):
    X = np.fromfile(out / "a.bin", dtype="<f8").reshape(40, 6, 5, 4)
    model = sompca.load(out / "octave_model.h5")
    features = model.transform(X)
    octave = np.fromfile(out / "octave_features.bin", dtype="<f8").reshape(features.shape)
    # The same library on the same samples: agreement to rounding (here bit for bit).
    if not np.allclose(features, octave, rtol=0, atol=1e-12):
        sys.exit(f"reference.py relay: Python's features of Octave's model differ from Octave's by "
                 f"{np.abs(features - octave).max():.3g}")
    model.save(out / "python_from_octave.h5")
    write(out / "python_from_octave_features.bin", features)
    print(f"reference.py relay: Octave's {model.shape_in_} model read by Python, features agree "
          f"to {np.abs(features - octave).max():.3g}; saved again for R")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("make", "relay"):
        sys.exit(__doc__)
    {"make": make, "relay": relay}[sys.argv[1]](Path(sys.argv[2]))
