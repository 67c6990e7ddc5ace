"""Corrupt a sompca model file and a data file many times; load each copy in a child process.

    python tests/fuzz/fuzz_files.py [-n 2000] [--seed 1] [--timeout 20] [--keep DIR] [--fresh]

Writes a model (SO-MPCA, P = 4, fitted on 40 samples of 7 x 5, saved by
sompca) and a data file (/X, 40 x 7 x 5 float64, written by h5py without
checksums), then makes N corrupted copies of each: random bit flips (1 to
8 bits anywhere in the file) or a truncation at a random length. Each copy
is loaded in a child Python process through the sompca package:

    model: sompca.load(copy), then transform of fixed data; the result is
           compared with the original model's (every parameter, every
           learned attribute and the features, bit for bit)
    data:  the original model transforms "copy:/X"; compared with the
           features of the intact file

and classified as

    clean error       OSError or ValueError raised, with a message
    other error       any other exception (RuntimeError, MemoryError, ...)
    same              loaded, identical to the original
    different         loaded, NOT identical (for the model: a corrupted model
                      accepted; for the data: expected when a flip hits the
                      values, which h5py files carry no checksum for)
    crash             the child died by a signal or exited abnormally
    hang              no answer within --timeout seconds (child killed)

The children are long-lived workers that take one file after another (a
fresh one after each crash or hang); --fresh starts a new process for every
file instead (slower, for reproducing). Crashing and hanging files are kept
in --keep (default build/fuzz-files) with their seed. Exit status 1 when a
model copy crashed, hung or loaded as a different model, or a data copy
crashed or hung.
"""

import argparse
import hashlib
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

WORKER = r'''
import hashlib, json, sys
import numpy as np
import sompca

def digest(parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode() if not isinstance(p, np.ndarray) else
                 (str(p.dtype) + str(p.shape)).encode() + np.ascontiguousarray(p).tobytes())
    return h.hexdigest()

def describe(est, X):
    parts = [type(est).__name__, sorted(est.get_params().items())]
    for name in sorted(vars(est)):
        if name.endswith("_") and not name.startswith("_"):
            v = getattr(est, name)
            if isinstance(v, list):
                parts.append(name)
                parts.extend(np.asarray(x) for x in v)
            elif isinstance(v, np.ndarray):
                parts.extend([name, v])
            else:
                parts.append((name, v))
    parts.append(est.transform(X))
    return digest(parts)

X = np.load(sys.argv[1])
reference = sompca.load(sys.argv[2])
for line in sys.stdin:
    kind, path = line.rstrip("\n").split(" ", 1)
    try:
        if kind == "model":
            result = {"status": "ok", "digest": describe(sompca.load(path), X)}
        else:
            result = {"status": "ok", "digest": digest([reference.transform(path + ":/X")])}
    except (OSError, ValueError) as e:
        result = {"status": "clean error", "type": type(e).__name__, "message": str(e)[:300]}
    except Exception as e:
        result = {"status": "other error", "type": type(e).__name__, "message": str(e)[:300]}
    print(json.dumps(result), flush=True)
'''

CATEGORIES = ["clean error", "other error", "same", "different", "crash", "hang"]


class Worker:
    """A child Python process that loads the files it is given, one per line."""

    def __init__(self, script, args):
        self.cmd = [sys.executable, "-c", script] + args
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def load(self, kind, path, timeout):
        """Return the result dict, or {"status": "crash"/"hang", ...}."""
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write(f"{kind} {path}\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.stop()
            return {"status": "hang"}
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            self.proc = None
            return {"status": "crash", "returncode": rc}
        return json.loads(line)


def mutate(data, rng):
    """A corrupted copy of data and a description of what was done."""
    if rng.random() < 0.2:
        n = rng.randrange(len(data))
        return data[:n], f"truncated to {n} bytes"
    out = bytearray(data)
    flips = []
    for _ in range(rng.randint(1, 8)):
        bit = rng.randrange(len(out) * 8)
        out[bit // 8] ^= 1 << (bit % 8)
        flips.append(bit)
    return bytes(out), f"flipped bits {flips}"


def make_inputs(tmp):
    """The model, data file, fixed transform input and reference digests."""
    import h5py
    import numpy as np
    import sompca

    rng = np.random.default_rng(20151)
    X = rng.normal(size=(40, 7, 5))
    model_path, data_path, x_path = (os.path.join(tmp, n) for n in ("model.h5", "data.h5", "x.npy"))
    sompca.SOMPCA(n_components=4).fit(X).save(model_path)
    with h5py.File(data_path, "w") as f:
        f["X"] = X
    np.save(x_path, X)
    return model_path, data_path, x_path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=2000, help="corrupted copies of each file (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a child counts as hung")
    ap.add_argument("--keep", default=os.path.join("build", "fuzz-files"), help="where crashing files are kept")
    ap.add_argument("--fresh", action="store_true", help="a new child process for every file")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="sompca-fuzz-files-")
    try:
        model_path, data_path, x_path = make_inputs(tmp)
        worker = Worker(WORKER, [x_path, model_path])
        reference = {}
        for kind, path in (("model", model_path), ("data", data_path)):
            r = worker.load(kind, path, args.timeout * 3)
            if r.get("status") != "ok":
                sys.exit(f"fuzz-files: the intact {kind} file does not load: {r}")
            reference[kind] = r["digest"]
        originals = {"model": open(model_path, "rb").read(), "data": open(data_path, "rb").read()}
        counts = {kind: dict.fromkeys(CATEGORIES, 0) for kind in originals}
        bad = []
        rng = random.Random(args.seed)
        copy = os.path.join(tmp, "copy.h5")
        start = time.monotonic()
        for i in range(args.n):
            for kind, original in originals.items():
                data, what = mutate(original, rng)
                with open(copy, "wb") as f:
                    f.write(data)
                if args.fresh:
                    worker.stop()
                r = worker.load(kind, copy, args.timeout)
                status = r["status"]
                if status == "ok":
                    status = "same" if r["digest"] == reference[kind] else "different"
                counts[kind][status] += 1
                if status in ("crash", "hang") or (kind == "model" and status in ("different", "other error")):
                    os.makedirs(args.keep, exist_ok=True)
                    name = os.path.join(args.keep, f"{kind}-{i}-{status.replace(' ', '-')}.h5")
                    shutil.copyfile(copy, name)
                    bad.append(f"{name}: {what}: {r}")
            if (i + 1) % 500 == 0:
                print(f"fuzz-files: {i + 1}/{args.n} ({time.monotonic() - start:.0f} s)", file=sys.stderr, flush=True)
        worker.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"fuzz-files: N = {args.n} corrupted copies of each file, seed {args.seed}, {time.monotonic() - start:.0f} s")
    print(f"{'':14}" + "".join(f"{c:>13}" for c in CATEGORIES))
    for kind in counts:
        print(f"{kind + ' file':14}" + "".join(f"{counts[kind][c]:>13}" for c in CATEGORIES))
    for line in bad[:50]:
        print("  " + line)
    failed = any(counts[k]["crash"] or counts[k]["hang"] for k in counts) or counts["model"]["different"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
