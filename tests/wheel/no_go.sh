#!/usr/bin/env bash
# Building the package from source without Go stops at once and says what is missing.
# Usage: no_go.sh PYTHON SOURCE WORK_DIR, where SOURCE is bindings/python or an sdist, and
# PYTHON has setuptools >= 77 (the build runs without isolation: no download).
set -uo pipefail
python=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# PATH without go (only the system's folders and the venv's), GO unset.
env -u GO PATH="$(dirname "$python"):/usr/bin:/bin" "$python" -m pip wheel -q --no-deps --no-build-isolation \
  -w "$work" "$source" > "$work/log" 2>&1
status=$?
if [ $status -eq 0 ]; then
  echo "no_go: building $source without Go succeeded: it cannot have built libsompca.so" >&2; exit 1
fi
for words in "cannot build libsompca.so from source; missing:" "Go ('go' is not on PATH)" \
             "install a prebuilt wheel"; do
  grep -qF "$words" "$work/log" || { echo "no_go: the error does not say: $words" >&2; cat "$work/log" >&2; exit 1; }
done
echo "no_go: building $source without Go fails with: $(grep -F 'missing:' -A1 "$work/log" | tr -s ' \n' ' ')"
