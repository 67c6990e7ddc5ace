#!/usr/bin/env bash
# The sdist (make test-sdist): without Go it says what is missing; with Go, pip builds a wheel from
# it (setup.py runs `make lib` in its native/ folder) that fits.
# Usage: run_sdist.sh SDIST WORK_DIR (the venv's python, with setuptools >= 77, first on PATH).
set -euo pipefail
sdist=$(realpath "$1") work=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
python=$(command -v python)
SECONDS=0
bash "$here/no_go.sh" "$python" "$sdist" "$work/no-go"
rm -rf "$work/built" && mkdir -p "$work/built"
"$python" -m pip wheel -q --no-deps --no-build-isolation -w "$work/built" "$sdist"
wheel=$(ls "$work"/built/sompca-*-py3-none-linux_x86_64.whl)
(cd "$work/built" && "$python" -m zipfile -e "$wheel" unpacked)
(cd "$work/built" && env -u SOMPCA_LIBRARY PYTHONPATH="$work/built/unpacked" "$python" -c '
import numpy as np, sompca, pathlib
assert pathlib.Path(sompca._lib.library_path).parent == pathlib.Path(sompca.__file__).parent
X = np.random.default_rng(0).normal(size=(30, 5, 4))
m = sompca.SOMPCA(n_components=3).fit(X)
expected = np.einsum("mab,ap,bp->mp", X - m.mean_, *m.projections_)
np.testing.assert_allclose(m.transform(X), expected, rtol=0, atol=1e-10 * np.abs(expected).max())
print("run_sdist: the wheel built from the sdist fits; sompca", sompca.__version__)')
echo "test-sdist: passed (${SECONDS}s)"
